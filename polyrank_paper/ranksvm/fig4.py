"""Fig. 4 of ``large-scale-linear-ranksvm.txt``: relative function value
against training time of TRON with three ways to count l+, l-, gamma+,
gamma- (direct counting, a y-keyed order-statistic tree, the selection
tree), C = 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from polyrank.ranksvm import ranksvm_tron

from .._harness import progress_bar
from ..registry import (
    ExperimentResult,
    PaperItem,
    RunInfo,
    column,
    fmt_spec,
    leading_columns,
    record,
    register,
)
from ._common import _PAPER, METHOD_LABELS, _datasets

__all__ = ["ranksvm_fig4", "RankFig4Row", "RankFig4Method", "RankFig4Dataset",
           "RankFig4TableRow", "RankFig4Summary"]



@dataclass(frozen=True)
class RankFig4Row:
    """One trust-region step of :func:`ranksvm_fig4`.

    Attributes
    ----------
    dataset, method : str
        The data and the counting method.
    step : int
        Newton steps so far (0: the start).
    time_s : float
        Seconds so far.
    f : float
        The primal objective f(w) of Eq. 1.3.
    rel_f : float
        (f(w) - f(w*)) / f(w*).
    n_hv : int
        Hessian-vector products so far.
    """

    dataset: str
    method: str
    step: int
    time_s: float
    f: float
    rel_f: float
    n_hv: int


@dataclass(frozen=True)
class RankFig4Method:
    """One counting method on one data set of :func:`ranksvm_fig4`.

    Attributes
    ----------
    time_s : float
        Seconds to the tolerance.
    steps, n_hv : int
        Newton steps and Hessian-vector products.
    time_to_default_s : float or None
        Seconds to f of the default tol = 1e-3 (None: not reached).
    final_rel_f : float
    ratio_to_selection_tree : float or None
        time_s over the selection tree's (left out of the record without a
        selection-tree run).
    """

    time_s: float = column("seconds", fmt_spec(".3g"), order=1)
    steps: int = column("Newton steps")
    n_hv: int = column("Hv")
    time_to_default_s: float | None = column("s to tol=1e-3 line", fmt_spec(".3g"), order=1)
    final_rel_f: float = column()
    ratio_to_selection_tree: float | None = column("time / selection tree",
                                                   fmt_spec(".2f"), order=1,
                                                   omit_none=True, default=None)


@dataclass(frozen=True)
class RankFig4TableRow(RankFig4Method, leading_columns("dataset", "method", printed=True)):
    """A printed row of :func:`ranksvm_fig4`: a :class:`RankFig4Method` with
    its data set and method first.

    Attributes
    ----------
    dataset, method : str
    """


@dataclass(frozen=True)
class RankFig4Dataset:
    """One data set of :func:`ranksvm_fig4`.

    Attributes
    ----------
    l : int
        Documents.
    n_pairs : int
        Preference pairs.
    k_max : int
        Largest number of levels in a query.
    f_star : float
        f(w*) (selection tree, tol = 1e-9).
    default_line : float
        Relative f reached at the default tol = 1e-3 (the paper's dotted line).
    methods : dict of str to RankFig4Method
    """

    l: int
    n_pairs: int
    k_max: int
    f_star: float
    default_line: float
    methods: dict


@record
class RankFig4Summary(RunInfo):
    """The key figures of :func:`ranksvm_fig4`.

    Attributes
    ----------
    tol, C : float
    datasets : dict of str to RankFig4Dataset
    paper : tuple of PaperItem
    """

    tol: float
    C: float
    datasets: dict
    paper: tuple = ()


@register("ranksvm-fig4", "relative f vs training time: direct counting, y-keyed tree and "
          "selection tree inside TRON, MQ2008 and a large-k set, C = 1 (Fig. 4)")
def ranksvm_fig4(*, quick: bool = False, seed: int = 0, progress: bool = False,
                 tol: float | None = None, large_k: tuple | None = None,
                 methods=("direct", "y_tree", "selection_tree")) -> ExperimentResult:
    """Fig. 4 of ``large-scale-linear-ranksvm.txt`` (Sec. 4.3).

    TRON (Sec. 4.1) on Eq. 1.3 with C = 1 and each counting method; one row
    per trust-region step with the elapsed time and the relative difference
    |f(w) - f(w*)| / f(w*), f(w*) from a selection-tree run at tol = 1e-9.
    The dotted line of the paper -- f reached at the default tol = 1e-3 --
    is in the summary (``default_line``).

    Parameters
    ----------
    quick : bool
        Large-k set of 5 queries x 400 documents (default 2 x 10000);
        tol 1e-6 (default 1e-8).
    seed : int
        Seed of the large-k set.
    progress : bool
        tqdm progress bar on stderr.
    tol : float, optional
        Stopping tolerance (Eq. 4.4) of the timed runs.
    large_k : (int, int), optional
        (queries, documents per query) of the large-k set.
    methods : sequence of str
        Counting methods (keys of :data:`polyrank.ranksvm.METHODS`).

    Returns
    -------
    ExperimentResult
        rows: :class:`RankFig4Row` (``dataset, method, step, time_s, f,
        rel_f, n_hv``); summary (:class:`RankFig4Summary`) per
        dataset and method: total seconds, steps, Hessian-vector products,
        seconds to the default-tol line, and ratios to the selection tree.
    """
    tol = (1e-6 if quick else 1e-8) if tol is None else float(tol)
    data, _ = _datasets(quick, seed, large_k)
    rows, datasets = [], {}
    bar = progress_bar(len(data) * (len(methods) + 2), "ranksvm-fig4", progress)
    for name, (X, y, qid) in data.items():
        ref = ranksvm_tron(X, y, qid, 1.0, tol=1e-9)
        bar.update()
        default = ranksvm_tron(X, y, qid, 1.0, tol=1e-3)
        bar.update()
        f_star = ref.primal_objective
        line = (default.primal_objective - f_star) / f_star
        info = {"l": int(y.size), "n_pairs": int(ref.n_pairs),
                "k_max": int(max(np.unique(y[qid == q]).size for q in np.unique(qid))),
                "f_star": f_star, "default_line": line, "methods": {}}
        for method in methods:
            ranksvm_tron(X, y, qid, 1.0, method=method, max_iter=1)   # compile outside the clock
            res = ranksvm_tron(X, y, qid, 1.0, method=method, tol=tol)
            t = res.trace
            rows.append(RankFig4Row(dataset=name, method=method, step=0, time_s=0.0,
                                    f=res.f0, rel_f=(res.f0 - f_star) / f_star, n_hv=0))
            hit = None
            for k in range(len(t)):
                rel = (t.primal[k] - f_star) / f_star
                rows.append(RankFig4Row(dataset=name, method=method,
                                        step=int(t.iteration[k]), time_s=float(t.time_s[k]),
                                        f=float(t.primal[k]), rel_f=float(rel),
                                        n_hv=int(t.cg_total[k])))
                if hit is None and rel <= line:
                    hit = float(t.time_s[k])
            info["methods"][method] = {"time_s": float(t.time_s[-1]), "steps": int(res.nit),
                                       "n_hv": int(res.n_hv), "time_to_default_s": hit,
                                       "final_rel_f": float(max(res.primal_objective - f_star,
                                                                0.0) / f_star)}
            bar.update()
        base = info["methods"].get("selection_tree")
        if base:
            for v in info["methods"].values():
                v["ratio_to_selection_tree"] = v["time_s"] / base["time_s"]
        info["methods"] = {m: RankFig4Method(**v) for m, v in info["methods"].items()}
        datasets[name] = RankFig4Dataset(**info)
    bar.close()
    notes = []
    for name, info in datasets.items():
        parts = [f"{METHOD_LABELS.get(m, m)} {v.time_s:.3g} s"
                 + (f" ({v.ratio_to_selection_tree:.1f}x)"
                    if v.ratio_to_selection_tree is not None else "")
                 for m, v in info.methods.items()]
        notes.append(f"{name}: l = {info.l}, p = {info.n_pairs:,}, max k_q = "
                     f"{info.k_max}; f* = {info.f_star:.6g}; to tol = {tol:g}: "
                     + ", ".join(parts))
    notes.append("As in Fig. 4: the trees are alike; direct counting (O(lk) per Hv) falls "
                 "behind when k is large.")
    summary = RankFig4Summary(experiment="ranksvm-fig4", quick=quick, seed=seed, tol=tol,
                              C=1.0, datasets=datasets, paper=_fig4_paper_rows(datasets))
    table = [RankFig4TableRow(dataset=n, method=m, **vars(v)) for n, i in datasets.items()
             for m, v in i.methods.items()]
    return ExperimentResult("ranksvm-fig4", f"Fig. 4 of {_PAPER}: relative function value vs "
                            "training time, TRON with three counting methods, C = 1",
                            rows, summary, table_rows=table, notes=notes)


def _fig4_paper_rows(datasets: dict) -> tuple[PaperItem, ...]:
    """The README's paper-vs-polyrank rows of Fig. 4: time of direct counting
    and of the y-keyed tree over the selection tree's, per data set."""
    def ratios(method):
        return ", ".join(f"{info.methods[method].ratio_to_selection_tree:.1f}x ({name})"
                         for name, info in datasets.items()
                         if method in info.methods
                         and info.methods[method].ratio_to_selection_tree is not None)
    data = ("MQ2008 Fold1 and a generated large-k set standing in for MQ2008-list "
            "(k_q = l_q); MSLR and YAHOO not bundled")
    rows = []
    if ratios("direct"):
        rows.append(PaperItem(
            item="Fig. 4: direct counting's time over the selection tree's, C = 1",
            paper="slow when k is large (Eq. 2.14)", ours=ratios("direct"), data=data))
    if ratios("y_tree"):
        rows.append(PaperItem(
            item="Fig. 4: an order-statistic tree (y-keyed) over the selection tree",
            paper="very similar", ours=ratios("y_tree"), data=data))
    return tuple(rows)
