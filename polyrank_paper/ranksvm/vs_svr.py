"""Tables 4-5 of ``large-scale-linear-ranksvm.txt`` on MQ2008: RankSVM (L2;
L1) against L1- and L2-loss linear SVR (scikit-learn's ``LinearSVR``,
epsilon = 0).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVR

from polyrank.datasets import load_mq2008
from polyrank.metrics import mean_ndcg, pairwise_accuracy
from polyrank.ranksvm import ranksvm_dcd, ranksvm_tron

from .._harness import progress_bar
from ..registry import (
    ExperimentInfo,
    ExperimentResult,
    PaperItem,
    fmt_spec,
    leading_columns,
    record,
    register,
)
from ._common import _PAPER, SelectionRow, _c_grid, _select_C

__all__ = ["ranksvm_vs_svr", "SvrSelectionRow", "SvrResult", "SvrResultRow", "SvrSummary"]


@dataclass(frozen=True)
class SvrSelectionRow(SelectionRow, leading_columns("kind", "model")):
    """A :class:`~polyrank_paper.ranksvm.SelectionRow` of
    :func:`ranksvm_vs_svr`, with its kind and model first.

    Attributes
    ----------
    kind : str
        ``"selection"``.
    model : str
        ``"ranksvm-l2"``, ``"svr-l2"``, ``"svr-l1"`` or ``"ranksvm-l1"``.
    """


@dataclass(frozen=True)
class SvrResult:
    """A model refitted at the C selected by one measure, on the test split.

    Attributes
    ----------
    model : str
    selected_by : str
        ``"pairwise_accuracy"`` or ``"mean_ndcg"``.
    C, log2_C : float
    time_s : float
        Training seconds.
    status : str
    test_pairwise_accuracy, test_mean_ndcg : float
    """

    model: str
    selected_by: str
    C: float
    log2_C: float
    time_s: float
    status: str
    test_pairwise_accuracy: float
    test_mean_ndcg: float


@dataclass(frozen=True)
class SvrResultRow(SvrResult, leading_columns("kind")):
    """A :class:`SvrResult` row, with its kind (``"result"``) first.

    Attributes
    ----------
    kind : str
    """


@record
class SvrSummary(ExperimentInfo):
    """The key figures of :func:`ranksvm_vs_svr`.

    Attributes
    ----------
    grid_log2_C : tuple of float
    results : dict of str to SvrResult
        Keyed ``"model/measure"``.
    paper : tuple of PaperItem
    """

    grid_log2_C: tuple
    results: dict
    paper: tuple = ()


@register("ranksvm-vs-svr", "RankSVM (L2; L1) vs L1- and L2-loss linear SVR (LinearSVR, "
          "epsilon = 0) on MQ2008: training time, test NDCG and pairwise accuracy (Table 4-5)")
def ranksvm_vs_svr(*, quick: bool = False, seed: int = 0, progress: bool = False,
                   grid=None) -> ExperimentResult:
    """Tables 4-5 of ``large-scale-linear-ranksvm.txt`` (Sec. 4.5) on MQ2008.

    For each model -- L2-loss RankSVM (Tree-TRON, tol = 1e-3), L2-loss
    linear SVR (scikit-learn's ``LinearSVR(loss="squared_epsilon_insensitive",
    epsilon=0, dual=False, fit_intercept=False, tol=1e-3)``, i.e. LIBLINEAR's
    primal TRON solver for -s 11 as in the paper), L1-loss linear SVR
    (``LinearSVR(loss="epsilon_insensitive", epsilon=0, dual=True,
    fit_intercept=False)``, LIBLINEAR -s 13, at most 1000 iterations, as the
    paper's Table 5 footnote a) and, beyond the paper's table, L1-loss
    RankSVM (:func:`~polyrank.ranksvm.ranksvm_dcd`, relative gap 1e-3,
    warm-started up the grid during selection) -- C is selected on the
    validation split by pairwise accuracy and by mean NDCG; the model is
    retrained at that C (cold) and timed; test mean NDCG and pairwise
    accuracy are reported.

    Parameters
    ----------
    quick : bool
        Grid 2^-6, 2^-3, 2^0, 2^3 (default 2^-15 .. 2^10).
    seed : int
        Unused (fixed data).
    progress : bool
    grid : sequence of float, optional

    Returns
    -------
    ExperimentResult
        rows: validation rows (``kind="selection"``) and result rows
        (``kind="result"``: model, measure, C, time_s, test measures).
    """
    d = load_mq2008()
    grid = sorted(_c_grid(quick, grid))         # L1 RankSVM warm-starts up the grid
    tr = (d.X_train, d.y_train, d.qid_train)
    bar = progress_bar(4 * len(grid) + 8, "ranksvm-vs-svr", progress)

    models, retrain = _vs_svr_fits(d, tr, seed)
    rows, results, table = _vs_svr_runs(d, grid, models, retrain, bar)
    bar.close()
    return _vs_svr_result(rows, results, table, grid, quick)


def _vs_svr_fits(d, tr, seed):
    """The fits of :func:`ranksvm_vs_svr`, each ``fit(C) -> (w, status,
    seconds)``: L2 RankSVM (Tree-TRON), L1 RankSVM (ranksvm_dcd, warm-started
    from the previous C), L2- and L1-loss LinearSVR (epsilon 0, no
    intercept); and the refits that differ (L1 RankSVM cold)."""
    def fit_rank(C):
        t0 = time.perf_counter()
        r = ranksvm_tron(*tr, C, tol=1e-3)
        return r.x, r.status, time.perf_counter() - t0

    warm = {}

    def fit_rank_l1(C, cold=False):
        t0 = time.perf_counter()
        alpha0 = warm["alpha"] * (C / warm["C"]) if warm and not cold else None
        r = ranksvm_dcd(*tr, C, tol=1e-3, max_iter=20000, alpha0=alpha0, random_state=seed)
        if not cold:
            warm.update(alpha=r.dual, C=C)
        return r.x, r.status, time.perf_counter() - t0

    def fit_svr(C, loss="squared_epsilon_insensitive"):
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            m = LinearSVR(C=C, epsilon=0.0, loss=loss, dual=loss == "epsilon_insensitive",
                          fit_intercept=False, tol=1e-3, max_iter=1000,
                          random_state=seed).fit(d.X_train, d.y_train)
        dt = time.perf_counter() - t0
        status = "max_iter" if any(issubclass(w.category, ConvergenceWarning)
                                   for w in caught) else "converged"
        return m.coef_.ravel(), status, dt

    models = {"ranksvm-l2": fit_rank, "svr-l2": fit_svr,
              "svr-l1": lambda C: fit_svr(C, "epsilon_insensitive"),
              "ranksvm-l1": fit_rank_l1}
    retrain = {"ranksvm-l1": lambda C: fit_rank_l1(C, cold=True)}
    return models, retrain


def _vs_svr_runs(d, grid, models, retrain, bar):
    """Select C on validation for every model (by pairwise accuracy and by
    mean NDCG), refit at each selected C (timed after a warm-up fit) and
    score it on test.  Returns (rows, results by "model/measure", the
    table rows)."""
    rows, results, table = [], {}, []
    for model, fit in models.items():
        sel, best_pa, best_ndcg = _select_C(lambda C, fit=fit: fit(C)[:2], grid, d.X_vali,
                                            d.y_vali, d.qid_vali, bar)
        rows += [SvrSelectionRow(kind="selection", model=model, **vars(r)) for r in sel]
        for measure, C in (("pairwise_accuracy", best_pa), ("mean_ndcg", best_ndcg)):
            refit = retrain.get(model, fit)
            refit(C)                                                # warm (numba, caches)
            w, status, dt = refit(C)
            s = d.X_test @ w
            res = SvrResult(model=model, selected_by=measure, C=C, log2_C=math.log2(C),
                            time_s=dt, status=status,
                            test_pairwise_accuracy=pairwise_accuracy(d.y_test, s, d.qid_test),
                            test_mean_ndcg=mean_ndcg(d.y_test, s, d.qid_test))
            rows.append(SvrResultRow(kind="result", **vars(res)))
            table.append(rows[-1])
            results[f"{model}/{measure}"] = res
            bar.update()
    return rows, results, table


#: the table columns of :func:`ranksvm_vs_svr` (attribute, header, format)
_COLUMNS = [("model", "model", None), ("selected_by", "C selected by", None),
            ("log2_C", "log2 C", lambda v: f"{v:g}"),
            ("time_s", "train s", fmt_spec(".3g")), ("status", "status", None),
            ("test_mean_ndcg", "test mean NDCG", fmt_spec(".4f")),
            ("test_pairwise_accuracy", "test pair. acc.", lambda v: f"{100 * v:.2f}%")]


def _vs_svr_result(rows, results, table, grid, quick) -> ExperimentResult:
    """The :class:`ExperimentResult` of :func:`ranksvm_vs_svr`: the
    comparison with Table 5 of the paper and the notes."""
    r = results

    def pa(key):
        return f"{100 * r[key + '/pairwise_accuracy'].test_pairwise_accuracy:.2f}%"

    l1sel = [x for x in rows if x.kind == "selection" and x.model == "svr-l1"]
    v1 = [x.val_pairwise_accuracy for x in l1sel]
    data = "MQ2008 Fold1" + ("" if not quick and grid == [2.0 ** e for e in range(-15, 11)]
                             else f", grid 2^{math.log2(grid[0]):g}..2^{math.log2(grid[-1]):g}")
    summary = SvrSummary(experiment="ranksvm-vs-svr", quick=quick,
                         grid_log2_C=tuple(math.log2(c) for c in grid), results=results,
                         paper=tuple([
        PaperItem(item=f"Table 5: test NDCG, {label} (C by NDCG)", paper=f"{paper:.4f}",
                  ours=f"{r[key + '/mean_ndcg'].test_mean_ndcg:.4f}", data=data)
        for key, label, paper in (("ranksvm-l2", "L2-loss RankSVM", 0.4571),
                                  ("svr-l1", "L1-loss SVR", 0.4153),
                                  ("svr-l2", "L2-loss SVR", 0.4450))] + [
        PaperItem(item=f"Table 5: test pairwise accuracy, {label} (C by pairwise accuracy)",
                  paper=f"{paper:.2f} %", ours=pa(key).replace("%", " %"), data=data)
        for key, label, paper in (("ranksvm-l2", "L2-loss RankSVM", 82.70),
                                  ("svr-l1", "L1-loss SVR", 77.72),
                                  ("svr-l2", "L2-loss SVR", 82.17))]))

    notes = [f"test mean NDCG (C by NDCG): RankSVM {r['ranksvm-l2/mean_ndcg'].test_mean_ndcg:.4f}, "
             f"L1-loss SVR {r['svr-l1/mean_ndcg'].test_mean_ndcg:.4f}, "
             f"L2-loss SVR {r['svr-l2/mean_ndcg'].test_mean_ndcg:.4f} (paper, Table 5: "
             "0.4571, 0.4153, 0.4450); L1-loss RankSVM (not in the table) "
             f"{r['ranksvm-l1/mean_ndcg'].test_mean_ndcg:.4f}",
             f"test pairwise accuracy (C by pairwise accuracy): RankSVM {pa('ranksvm-l2')}, "
             f"L1-loss SVR {pa('svr-l1')}, L2-loss SVR {pa('svr-l2')} (paper: 82.70%, "
             f"77.72%, 82.17%); L1-loss RankSVM {pa('ranksvm-l1')}",
             "the paper's L1-loss SVR reached LIBLINEAR's iteration limit (Table 5, note a) "
             "at its C = 2^8; here the selected fits: " + ", ".join(
                 f"{m}: {r[f'svr-l1/{m}'].status}" for m in ("pairwise_accuracy", "mean_ndcg"))
             + "; over the grid its validation pairwise accuracy ranges "
             f"{min(v1):.3f}-{max(v1):.3f} ({sum(x.status != 'converged' for x in l1sel)} "
             f"of {len(l1sel)} fits at the iteration limit): LIBLINEAR's dual solver for the "
             "L1-loss SVR with epsilon = 0 gives erratic models, the paper's weakest row"]
    return ExperimentResult("ranksvm-vs-svr", f"Tables 4-5 of {_PAPER} on MQ2008: RankSVM vs "
                            "L1- and L2-loss linear SVR", rows, summary, columns=_COLUMNS,
                            table_rows=table, notes=notes)
