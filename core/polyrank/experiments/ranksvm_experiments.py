"""Reproductions of Sec. 4 of ``large-scale-linear-ranksvm.txt`` (Lee & Lin,
"Large-Scale Linear RankSVM", Neural Computation 2014) and ``polyrank bench
ranksvm``.

* :func:`ranksvm_fig4` -- Fig. 4: relative function value against training
  time of TRON with the direct counting method, the order-statistic tree
  keyed by y and the selection tree, on MQ2008 and on a large-k problem
  (k_q = l_q), C = 1.
* :func:`ranksvm_methods` -- Fig. 5-7 style: Tree-TRON, PRSVM+ and the L1
  cutting-plane method, with C chosen on the validation split over
  2^-15 .. 2^10 (Table 3): relative function value, test pairwise accuracy
  and mean NDCG against time.
* :func:`ranksvm_vs_svr` -- Table 4-5 style: L2-loss RankSVM against
  L2-loss linear SVR (scikit-learn's ``LinearSVR``, epsilon = 0) on MQ2008.
* :func:`bench_ranksvm` -- ``polyrank bench ranksvm``: seconds per solve of
  Tree-TRON, direct counting and PRSVM+ on MQ2008 and on the large-k set.

Every function returns an :class:`~polyrank.experiments.registry.ExperimentResult`
(tidy rows, JSON summary; drawn by ``polyrank_widgets.figures.ranksvm``).  Times are wall
clock in this process; speed is reported as ratios of times measured in the
same run, never asserted in tests (``DESIGN.md``).
"""

from __future__ import annotations

import math
import statistics
import sys
import time
import warnings

import numpy as np

from .registry import ExperimentResult, register, register_bench, speed_phrase

__all__ = ["ranksvm_fig4", "ranksvm_methods", "ranksvm_vs_svr", "bench_ranksvm",
           "large_k_problem", "LIBLINEAR_RANKSVM_MQ2008", "METHOD_LABELS"]

_PAPER = "Lee & Lin, Neural Computation 2014"

#: liblinear-ranksvm 2.11 (-s 8, C = 1) on the bundled MQ2008 Fold1 train
#: split (independent implementation; numbers from the issue tracker):
#: converged objective, objective and Newton steps at the default tol, test
#: pairwise accuracy at f* (pooled, ties correct) and mean NDCG of the
#: default-tol model (objectives and metrics only: ``polyrank bench ranksvm``
#: times its peer, LinearSVC on the pair differences, in the same run).
LIBLINEAR_RANKSVM_MQ2008 = {"f_star": 29566.5228, "f_default_eps": 29568.97,
                            "newton_steps_default_eps": 5,
                            "test_pairwise_accuracy": 0.8272,
                            "test_mean_ndcg": 0.457}

#: the counting methods of Fig. 4 as a reader names them
METHOD_LABELS = {"direct": "direct counting", "y_tree": "y-keyed tree",
                 "selection_tree": "selection tree", "prsvm_plus": "PRSVM+"}


def _bar(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, file=sys.stderr,
                leave=True, dynamic_ncols=True)


def large_k_problem(seed: int = 0, n_queries: int = 10, docs_per_query: int = 2000,
                    n_features: int = 46):
    """A ranking problem with k_q = l_q in every query, in the spirit of
    MQ2008-list (Table 2: every document of a query has its own relevance
    level).

    Features are uniform on [0, 1] (like LETOR's query-normalised
    features); the relevance of document i is ``x_i . w_true + 0.5 e_i``
    with ``w_true, e_i ~ N(0, I)``, so all labels of a query differ.

    Returns
    -------
    X : ndarray, shape (n_queries * docs_per_query, n_features)
    y : ndarray, shape (l,)
    qid : ndarray of int64, shape (l,)

    Examples
    --------
    >>> X, y, qid = large_k_problem(0, n_queries=2, docs_per_query=5, n_features=3)
    >>> X.shape, np.unique(y).size, np.bincount(qid).tolist()
    ((10, 3), 10, [5, 5])
    """
    rng = np.random.default_rng(seed)
    l = n_queries * docs_per_query
    X = rng.uniform(size=(l, n_features))
    w_true = rng.normal(size=n_features)
    y = X @ w_true + 0.5 * rng.normal(size=l)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), docs_per_query)
    return X, y, qid


def _datasets(quick: bool, seed: int, large_k: tuple | None):
    from ..datasets import load_mq2008

    d = load_mq2008()
    # full size: two queries of 10,000 documents, each with its own level (k_q = l_q),
    # large enough for the O(l k) of direct counting to show against O(l log k)
    nq, lq = large_k if large_k is not None else ((5, 400) if quick else (2, 10000))
    Xk, yk, qk = large_k_problem(seed, nq, lq)
    return {"MQ2008": (d.X_train, d.y_train, d.qid_train),
            f"large-k ({nq} x {lq})": (Xk, yk, qk)}, d


# ------------------------------------------------------------------ Fig. 4

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
        rows: ``dataset, method, step, time_s, f, rel_f, n_hv``; summary per
        dataset and method: total seconds, steps, Hessian-vector products,
        seconds to the default-tol line, and ratios to the selection tree.
    """
    from ..ranksvm import ranksvm_tron

    tol = (1e-6 if quick else 1e-8) if tol is None else float(tol)
    data, _ = _datasets(quick, seed, large_k)
    rows, summary = [], {"experiment": "ranksvm-fig4", "quick": quick, "seed": seed,
                         "tol": tol, "C": 1.0, "datasets": {}}
    bar = _bar(len(data) * (len(methods) + 2), "ranksvm-fig4", progress)
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
            rows.append({"dataset": name, "method": method, "step": 0, "time_s": 0.0,
                         "f": res.f0, "rel_f": (res.f0 - f_star) / f_star, "n_hv": 0})
            hit = None
            for k in range(len(t)):
                rel = (t.primal[k] - f_star) / f_star
                rows.append({"dataset": name, "method": method, "step": int(t.iteration[k]),
                             "time_s": float(t.time_s[k]), "f": float(t.primal[k]),
                             "rel_f": float(rel), "n_hv": int(t.cg_total[k])})
                if hit is None and rel <= line:
                    hit = float(t.time_s[k])
            info["methods"][method] = {"time_s": float(t.time_s[-1]), "steps": int(res.nit),
                                       "n_hv": int(res.n_hv), "time_to_default_s": hit,
                                       "final_rel_f": float(max(res.primal_objective - f_star,
                                                                0.0) / f_star)}
            bar.update()
        base = info["methods"].get("selection_tree")
        if base:
            for m, v in info["methods"].items():
                v["ratio_to_selection_tree"] = v["time_s"] / base["time_s"]
        summary["datasets"][name] = info
    bar.close()
    notes = []
    for name, info in summary["datasets"].items():
        parts = [f"{METHOD_LABELS.get(m, m)} {v['time_s']:.3g} s"
                 + (f" ({v['ratio_to_selection_tree']:.1f}x)" if "ratio_to_selection_tree" in v
                    else "") for m, v in info["methods"].items()]
        notes.append(f"{name}: l = {info['l']}, p = {info['n_pairs']:,}, max k_q = "
                     f"{info['k_max']}; f* = {info['f_star']:.6g}; to tol = {tol:g}: "
                     + ", ".join(parts))
    notes.append("As in Fig. 4: the trees are alike; direct counting (O(lk) per Hv) falls "
                 "behind when k is large.")
    summary["paper"] = _fig4_paper_rows(summary["datasets"])
    columns = [("dataset", "dataset", None), ("method", "method", None),
               ("steps", "Newton steps", None), ("n_hv", "Hv", None),
               ("time_s", "seconds", lambda v: f"{v:.3g}"),
               ("time_to_default_s", "s to tol=1e-3 line",
                lambda v: f"{v:.3g}"),
               ("ratio_to_selection_tree", "time / selection tree", lambda v: f"{v:.2f}")]
    table = [{"dataset": n, "method": m, **v} for n, i in summary["datasets"].items()
             for m, v in i["methods"].items()]
    return ExperimentResult("ranksvm-fig4", f"Fig. 4 of {_PAPER}: relative function value vs "
                            "training time, TRON with three counting methods, C = 1",
                            rows, summary, None, columns, table, notes)


def _fig4_paper_rows(datasets: dict) -> list[dict]:
    """The README's paper-vs-polyrank rows of Fig. 4: time of direct counting
    and of the y-keyed tree over the selection tree's, per data set."""
    def ratios(method):
        return ", ".join(f"{info['methods'][method]['ratio_to_selection_tree']:.1f}x ({name})"
                         for name, info in datasets.items()
                         if method in info["methods"]
                         and "ratio_to_selection_tree" in info["methods"][method])
    data = ("MQ2008 Fold1 and a generated large-k set standing in for MQ2008-list "
            "(k_q = l_q); MSLR and YAHOO not bundled")
    rows = []
    if ratios("direct"):
        rows.append({"item": "Fig. 4: direct counting's time over the selection tree's, C = 1",
                     "paper": "slow when k is large (Eq. 2.14)", "ours": ratios("direct"),
                     "data": data})
    if ratios("y_tree"):
        rows.append({"item": "Fig. 4: an order-statistic tree (y-keyed) over the selection tree",
                     "paper": "very similar", "ours": ratios("y_tree"), "data": data})
    return rows


# ------------------------------------------------------------- Fig. 5-7

def _c_grid(quick: bool, grid):
    if grid is not None:
        return [float(c) for c in grid]
    exps = range(-6, 4, 3) if quick else range(-15, 11)
    return [2.0 ** e for e in exps]


def _select_C(fit, grid, X_val, y_val, q_val, bar):
    """Validation pairwise accuracy and mean NDCG for each C; returns rows
    and the argmax C of each measure (ties: the smallest C)."""
    from ..metrics import mean_ndcg, pairwise_accuracy

    rows = []
    for C in grid:
        w, status = fit(C)
        s = X_val @ w
        rows.append({"C": C, "log2_C": math.log2(C), "val_pairwise_accuracy":
                     pairwise_accuracy(y_val, s, q_val), "val_mean_ndcg":
                     mean_ndcg(y_val, s, q_val), "status": status})
        bar.update()
    best_pa = max(rows, key=lambda r: (r["val_pairwise_accuracy"], -r["C"]))["C"]
    best_ndcg = max(rows, key=lambda r: (r["val_mean_ndcg"], -r["C"]))["C"]
    return rows, best_pa, best_ndcg


def _method_runs(tr, C_l2, C_l1, cp_max_iter, seed, bar):
    """Tree-TRON and PRSVM+ (tol = 1e-6) at C_l2, L1 dual coordinate descent
    and the cutting-plane method (tol = 1e-4) at C_l1, every iterate kept:
    {solver: (result, f*, work per trace point)}, f* each loss's optimum
    (L2: Tree-TRON at tol = 1e-9; L1: the smaller certified f of the two)."""
    from ..ranksvm import ranksvm_cutting_plane, ranksvm_dcd, ranksvm_tron

    runs = {}
    f_ref = ranksvm_tron(*tr, C_l2, tol=1e-9, max_iter=5000).primal_objective
    bar.update()
    for solver, method in (("tree-tron", "selection_tree"), ("prsvm+", "prsvm_plus")):
        ranksvm_tron(*tr, C_l2, method=method, max_iter=1)      # compile outside the clock
        res = ranksvm_tron(*tr, C_l2, method=method, tol=1e-6, keep_iterates=True)
        runs[solver] = (res, f_ref, res.trace.cg_total)
        bar.update()
    ranksvm_dcd(*tr, C_l1, max_iter=1)                          # compile outside the clock
    dcd = ranksvm_dcd(*tr, C_l1, tol=1e-4, max_iter=20000, random_state=seed,
                      keep_iterates=True)
    cp = ranksvm_cutting_plane(*tr, C_l1, tol=1e-4, max_iter=cp_max_iter,
                               keep_iterates=True)
    f_l1 = min(dcd.primal_objective, cp.primal_objective)
    runs["l1-dcd"] = (dcd, f_l1, dcd.trace.iteration)
    runs["l1-cutting-plane"] = (cp, f_l1, cp.trace.n_planes)
    bar.update()
    return runs


def _path_rows(runs, metrics):
    """Path rows (one per recorded iterate: time, work, f, relative f, test
    measures) and one table row per solver (its final state)."""
    rows, table = [], []
    for solver, (res, f_star, work) in runs.items():
        t = res.trace
        for k in range(len(t)):
            pa, nd = metrics(res.iterates[k])
            rows.append({"kind": "path", "solver": solver, "C": res.C,
                         "step": int(t.iteration[k]), "time_s": float(t.time_s[k]),
                         "work": int(work[k]), "f": float(t.primal[k]),
                         "rel_f": float(max(t.primal[k] - f_star, 0.0) / abs(f_star)),
                         "test_pairwise_accuracy": pa, "test_mean_ndcg": nd})
        pa, nd = metrics(res.x)
        table.append({"solver": solver, "C": res.C, "log2_C": math.log2(res.C),
                      "time_s": float(t.time_s[-1]), "steps": int(res.nit),
                      "work": int(work[-1]), "status": res.status,
                      "f": float(res.primal_objective), "gap": float(res.gap),
                      "test_pairwise_accuracy": pa, "test_mean_ndcg": nd})
    return rows, table


@register("ranksvm-methods", "Tree-TRON vs PRSVM+ vs L1 dual coordinate descent and cutting "
          "plane on MQ2008: f, test pairwise accuracy and mean NDCG vs time, C chosen on "
          "validation (Fig. 5-7, Table 3)")
def ranksvm_methods(*, quick: bool = False, seed: int = 0, progress: bool = False,
                    grid=None, cp_max_iter: int | None = None) -> ExperimentResult:
    """Fig. 5 (and Table 3) of ``large-scale-linear-ranksvm.txt`` (Sec. 4.4)
    on MQ2008.

    1. C is selected on the validation split over 2^-15 .. 2^10 (quick:
       2^-6, 2^-3, 2^0, 2^3) for the L2 loss (Tree-TRON; PRSVM+ solves the
       same problem) and for the L1 loss (dual coordinate descent, each C
       warm-started from the previous one's solution, to a relative
       duality gap of 1e-3), once by pairwise accuracy and once by mean
       NDCG (Table 3).  The two grids' total times are compared.
    2. At the C selected by pairwise accuracy (footnote 7), Tree-TRON and
       PRSVM+ (tol = 1e-6), L1 dual coordinate descent and the paper's
       cutting-plane method (tol = 1e-4) run with every iterate kept; each
       iterate's relative function value (against each loss's own optimum)
       and test pairwise accuracy and mean NDCG are recorded against time.

    Parameters
    ----------
    quick : bool
        Coarse grid (2^-6, 2^-3, 2^0, 2^3) and at most 80 cutting planes
        on the path.
    seed : int
        Unused (the data are fixed); kept for the registry's signature.
    progress : bool
        tqdm progress bar.
    grid : sequence of float, optional
        The C values (overrides the default grids).
    cp_max_iter : int, optional
        Half the cutting planes of the path run (default 300; quick 40).

    Returns
    -------
    ExperimentResult
        rows: the path rows (``kind="path"``: solver, step, time_s, work,
        rel_f, test_pairwise_accuracy, test_mean_ndcg) and the selection
        rows (``kind="selection"``); summary: the selected C, final test
        measures, times.
    """
    from ..datasets import load_mq2008
    from ..metrics import mean_ndcg, pairwise_accuracy
    from ..ranksvm import ranksvm_dcd, ranksvm_tron

    d = load_mq2008()
    grid = _c_grid(quick, grid)
    cp_max_iter = (40 if quick else 300) if cp_max_iter is None else int(cp_max_iter)
    tr = (d.X_train, d.y_train, d.qid_train)
    bar = _bar(2 * len(grid) + 5, "ranksvm-methods", progress)

    def fit_l2(C):
        r = ranksvm_tron(*tr, C, tol=1e-3)
        return r.x, r.status

    warm = {}                                   # the previous C's alpha and C

    def fit_l1(C):
        alpha0 = warm["alpha"] * (C / warm["C"]) if warm else None
        r = ranksvm_dcd(*tr, C, tol=1e-3, max_iter=20000, alpha0=alpha0, random_state=seed)
        warm.update(alpha=r.dual, C=C)
        return r.x, r.status

    ranksvm_dcd(*tr, 1.0, max_iter=1)           # compile outside the clock
    grid = sorted(grid)                         # warm starts go up the grid
    t0 = time.perf_counter()
    sel_l2, l2_pa, l2_ndcg = _select_C(fit_l2, grid, d.X_vali, d.y_vali, d.qid_vali, bar)
    t_l2 = time.perf_counter() - t0
    sel_l1, l1_pa, l1_ndcg = _select_C(fit_l1, grid, d.X_vali, d.y_vali, d.qid_vali, bar)
    t_l1 = time.perf_counter() - t0 - t_l2
    rows = [{"kind": "selection", "loss": "l2", **r} for r in sel_l2]
    rows += [{"kind": "selection", "loss": "l1", **r} for r in sel_l1]

    def metrics(w):
        s = d.X_test @ w
        return (pairwise_accuracy(d.y_test, s, d.qid_test), mean_ndcg(d.y_test, s, d.qid_test))

    runs = _method_runs(tr, l2_pa, l1_pa, cp_max_iter * 2, seed, bar)
    summary = {"experiment": "ranksvm-methods", "quick": quick, "grid_log2_C":
               [math.log2(c) for c in grid],
               "grid_seconds": {"l2_tron": t_l2, "l1_dcd": t_l1},
               "l1_grid_converged": sum(r["status"] == "converged" for r in sel_l1),
               "selected_C": {"l2": {"pairwise_accuracy": l2_pa, "mean_ndcg": l2_ndcg},
                              "l1": {"pairwise_accuracy": l1_pa, "mean_ndcg": l1_ndcg}},
               "solvers": {}}
    path, table = _path_rows(runs, metrics)
    rows += path
    summary["solvers"] = {r["solver"]: {k: v for k, v in r.items() if k != "solver"}
                          for r in table}
    bar.close()
    s = summary["selected_C"]

    def p2(c):
        return f"2^{math.log2(c):g}"

    data = "MQ2008 Fold1" + ("" if len(grid) == 26 else f", grid of {len(grid)} C values")
    summary["paper"] = [
        {"item": "Table 3: C selected for L2 RankSVM (pairwise accuracy / NDCG)",
         "paper": "2^7 / 2^7", "ours": f"{p2(s['l2']['pairwise_accuracy'])} / "
         f"{p2(s['l2']['mean_ndcg'])}", "data": data},
        {"item": "Table 3: C selected for L1 RankSVM (pairwise accuracy / NDCG)",
         "paper": "2^8 / 2^-6", "ours": f"{p2(s['l1']['pairwise_accuracy'])} / "
         f"{p2(s['l1']['mean_ndcg'])}", "data": data},
        {"item": "L1 fits of the C grid at a certified relative gap of 1e-3",
         "paper": "not reported (TreeRankSVM's cutting planes)",
         "ours": f"{summary['l1_grid_converged']} of {len(sel_l1)}", "data": data}]
    notes = [f"selected C (validation): L2 pairwise accuracy 2^{math.log2(s['l2']['pairwise_accuracy']):g}, "
             f"mean NDCG 2^{math.log2(s['l2']['mean_ndcg']):g}; L1 pairwise accuracy "
             f"2^{math.log2(s['l1']['pairwise_accuracy']):g}, mean NDCG "
             f"2^{math.log2(s['l1']['mean_ndcg']):g} (paper, Table 3, MQ2008: L2 2^7 / 2^7, "
             "L1 2^8 / 2^-6)",
             "work = CG iterations (TRON), passes over the pairs (DCD) or cutting planes "
             "(one sweep each, footnote 8)",
             f"L1 selection fits (dual coordinate descent, warm-started up the grid) "
             f"converged to a relative duality gap of 1e-3: {summary['l1_grid_converged']} "
             f"of {len(sel_l1)}; the whole grid took {t_l1:.2f} s, {t_l1 / t_l2:.1f}x the "
             f"{t_l2:.2f} s of Tree-TRON's L2 grid (validation scoring included in both)"]
    columns = [("solver", "solver", None), ("log2_C", "log2 C", lambda v: f"{v:g}"),
               ("steps", "steps", None), ("work", "Hv / planes", None),
               ("time_s", "seconds", lambda v: f"{v:.3g}"), ("status", "status", None),
               ("test_pairwise_accuracy", "test pair. acc.", lambda v: f"{100 * v:.2f}%"),
               ("test_mean_ndcg", "test mean NDCG", lambda v: f"{v:.4f}")]
    return ExperimentResult("ranksvm-methods", f"Fig. 5 / Table 3 of {_PAPER} on MQ2008: "
                            "Tree-TRON, PRSVM+ and two L1 methods",
                            rows, summary, None, columns, table, notes)


@register("ranksvm-fig7", "Fig. 7: relative function value against time of Tree-TRON, PRSVM+ "
          "and the two L1 methods at fixed C = 100, 1, 1e-4 on MQ2008")
def ranksvm_fig7(*, quick: bool = False, seed: int = 0, progress: bool = False,
                 Cs=None, cp_max_iter: int | None = None) -> ExperimentResult:
    """Fig. 7 of ``large-scale-linear-ranksvm.txt`` (Sec. 4.4): instead of
    the C selected on validation, one fixed C for every method -- large (C
    = 100), medium (1) and small (1e-4) -- and each method's relative
    function value (f - f*) / f* against training time on MQ2008: Tree-TRON
    and PRSVM+ (L2 loss, tol = 1e-6) and, for the L1 loss, dual coordinate
    descent and the paper's cutting-plane method (tol = 1e-4), each against
    its own loss's optimum.

    Parameters
    ----------
    quick : bool
        At most 60 cutting planes per C (default 600).
    seed : int
        Seed of the dual coordinate descent's pass order.
    progress : bool
    Cs : sequence of float, optional
        The C values (default the paper's 100, 1, 1e-4).
    cp_max_iter : int, optional
        Cutting planes per C.

    Returns
    -------
    ExperimentResult
        rows: path rows (C, solver, step, time_s, work, f, rel_f, test
        measures); table and summary: per C and solver the final time,
        status, f and gap.
    """
    from ..datasets import load_mq2008
    from ..metrics import mean_ndcg, pairwise_accuracy

    Cs = [100.0, 1.0, 1e-4] if Cs is None else [float(c) for c in Cs]
    cp_max_iter = (60 if quick else 600) if cp_max_iter is None else int(cp_max_iter)
    d = load_mq2008()
    tr = (d.X_train, d.y_train, d.qid_train)

    def metrics(w):
        s = d.X_test @ w
        return (pairwise_accuracy(d.y_test, s, d.qid_test), mean_ndcg(d.y_test, s, d.qid_test))

    bar = _bar(4 * len(Cs), "ranksvm-fig7", progress)
    rows, table, summary = [], [], {"experiment": "ranksvm-fig7", "quick": quick, "C": Cs,
                                    "solvers": {}}
    for C in Cs:
        path, tab = _path_rows(_method_runs(tr, C, C, cp_max_iter, seed, bar), metrics)
        rows += path
        table += tab
        summary["solvers"][f"{C:g}"] = {r["solver"]: {k: v for k, v in r.items()
                                                      if k != "solver"} for r in tab}
    bar.close()
    notes = []
    for C in Cs:
        info = summary["solvers"][f"{C:g}"]
        fastest_l1 = min(("l1-dcd", "l1-cutting-plane"), key=lambda m: (
            info[m]["status"] != "converged", info[m]["time_s"]))
        notes.append(f"C = {C:g}: Tree-TRON {info['tree-tron']['time_s']:.3g} s, PRSVM+ "
                     f"{info['prsvm+']['time_s']:.3g} s (L2, tol = 1e-6); L1: dual coordinate "
                     f"descent {info['l1-dcd']['time_s']:.3g} s ({info['l1-dcd']['status']}), "
                     f"cutting plane {info['l1-cutting-plane']['time_s']:.3g} s "
                     f"({info['l1-cutting-plane']['status']}); faster L1 method: {fastest_l1}")
    notes.append("paper (Fig. 7): Tree-TRON is always one of the fastest methods")

    def tron_vs_fastest(info):
        done = [v["time_s"] for v in info.values() if v["status"] == "converged"]
        return info["tree-tron"]["time_s"] / min(done)

    summary["paper"] = [{
        "item": "Fig. 7: Tree-TRON's time over the fastest converged method, C = "
                + ", ".join(f"{C:g}" for C in Cs),
        "paper": "always one of the fastest",
        "ours": ", ".join(f"{tron_vs_fastest(summary['solvers'][f'{C:g}']):.1f}x" for C in Cs),
        "data": "MQ2008 Fold1"}]
    columns = [("C", "C", lambda v: f"{v:g}"), ("solver", "solver", None),
               ("steps", "steps", None), ("work", "Hv / passes / planes", None),
               ("time_s", "seconds", lambda v: f"{v:.3g}"), ("status", "status", None),
               ("f", "f", lambda v: f"{v:.6g}"), ("gap", "gap", lambda v: f"{v:.2g}")]
    return ExperimentResult("ranksvm-fig7", f"Fig. 7 of {_PAPER} on MQ2008: every method at "
                            "the same C", rows, summary, None, columns, table, notes)


# ------------------------------------------------------------ Table 4-5

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
    from sklearn.svm import LinearSVR

    from ..datasets import load_mq2008
    from ..metrics import mean_ndcg, pairwise_accuracy
    from ..ranksvm import ranksvm_dcd, ranksvm_tron

    d = load_mq2008()
    grid = sorted(_c_grid(quick, grid))         # L1 RankSVM warm-starts up the grid
    tr = (d.X_train, d.y_train, d.qid_train)
    bar = _bar(4 * len(grid) + 8, "ranksvm-vs-svr", progress)

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
        import warnings

        from sklearn.exceptions import ConvergenceWarning

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
    rows, summary = [], {"experiment": "ranksvm-vs-svr", "quick": quick,
                         "grid_log2_C": [math.log2(c) for c in grid], "results": {}}
    table = []
    for model, fit in models.items():
        sel, best_pa, best_ndcg = _select_C(lambda C: fit(C)[:2], grid, d.X_vali,
                                            d.y_vali, d.qid_vali, bar)
        rows += [{"kind": "selection", "model": model, **r} for r in sel]
        for measure, C in (("pairwise_accuracy", best_pa), ("mean_ndcg", best_ndcg)):
            refit = retrain.get(model, fit)
            refit(C)                                                # warm (numba, caches)
            w, status, dt = refit(C)
            s = d.X_test @ w
            res = {"kind": "result", "model": model, "selected_by": measure, "C": C,
                   "log2_C": math.log2(C), "time_s": dt, "status": status,
                   "test_pairwise_accuracy": pairwise_accuracy(d.y_test, s, d.qid_test),
                   "test_mean_ndcg": mean_ndcg(d.y_test, s, d.qid_test)}
            rows.append(res)
            table.append(res)
            summary["results"][f"{model}/{measure}"] = {k: v for k, v in res.items()
                                                       if k != "kind"}
            bar.update()
    bar.close()
    r = summary["results"]
    def pa(key):
        return f"{100 * r[key + '/pairwise_accuracy']['test_pairwise_accuracy']:.2f}%"

    l1sel = [x for x in rows if x["kind"] == "selection" and x["model"] == "svr-l1"]
    v1 = [x["val_pairwise_accuracy"] for x in l1sel]
    data = "MQ2008 Fold1" + ("" if not quick and grid == [2.0 ** e for e in range(-15, 11)]
                             else f", grid 2^{math.log2(grid[0]):g}..2^{math.log2(grid[-1]):g}")
    summary["paper"] = [
        {"item": f"Table 5: test NDCG, {label} (C by NDCG)", "paper": f"{paper:.4f}",
         "ours": f"{r[key + '/mean_ndcg']['test_mean_ndcg']:.4f}", "data": data}
        for key, label, paper in (("ranksvm-l2", "L2-loss RankSVM", 0.4571),
                                  ("svr-l1", "L1-loss SVR", 0.4153),
                                  ("svr-l2", "L2-loss SVR", 0.4450))] + [
        {"item": f"Table 5: test pairwise accuracy, {label} (C by pairwise accuracy)",
         "paper": f"{paper:.2f} %", "ours": pa(key).replace("%", " %"), "data": data}
        for key, label, paper in (("ranksvm-l2", "L2-loss RankSVM", 82.70),
                                  ("svr-l1", "L1-loss SVR", 77.72),
                                  ("svr-l2", "L2-loss SVR", 82.17))]

    notes = [f"test mean NDCG (C by NDCG): RankSVM {r['ranksvm-l2/mean_ndcg']['test_mean_ndcg']:.4f}, "
             f"L1-loss SVR {r['svr-l1/mean_ndcg']['test_mean_ndcg']:.4f}, "
             f"L2-loss SVR {r['svr-l2/mean_ndcg']['test_mean_ndcg']:.4f} (paper, Table 5: "
             "0.4571, 0.4153, 0.4450); L1-loss RankSVM (not in the table) "
             f"{r['ranksvm-l1/mean_ndcg']['test_mean_ndcg']:.4f}",
             f"test pairwise accuracy (C by pairwise accuracy): RankSVM {pa('ranksvm-l2')}, "
             f"L1-loss SVR {pa('svr-l1')}, L2-loss SVR {pa('svr-l2')} (paper: 82.70%, "
             f"77.72%, 82.17%); L1-loss RankSVM {pa('ranksvm-l1')}",
             "the paper's L1-loss SVR reached LIBLINEAR's iteration limit (Table 5, note a) "
             "at its C = 2^8; here the selected fits: " + ", ".join(
                 f"{m}: {r[f'svr-l1/{m}']['status']}" for m in ("pairwise_accuracy", "mean_ndcg"))
             + "; over the grid its validation pairwise accuracy ranges "
             f"{min(v1):.3f}-{max(v1):.3f} ({sum(x['status'] != 'converged' for x in l1sel)} "
             f"of {len(l1sel)} fits at the iteration limit): LIBLINEAR's dual solver for the "
             "L1-loss SVR with epsilon = 0 gives erratic models, the paper's weakest row"]
    columns = [("model", "model", None), ("selected_by", "C selected by", None),
               ("log2_C", "log2 C", lambda v: f"{v:g}"),
               ("time_s", "train s", lambda v: f"{v:.3g}"), ("status", "status", None),
               ("test_mean_ndcg", "test mean NDCG", lambda v: f"{v:.4f}"),
               ("test_pairwise_accuracy", "test pair. acc.", lambda v: f"{100 * v:.2f}%")]
    return ExperimentResult("ranksvm-vs-svr", f"Tables 4-5 of {_PAPER} on MQ2008: RankSVM vs "
                            "L1- and L2-loss linear SVR", rows, summary, None, columns,
                            table, notes)


# ------------------------------------------------------------------ bench

def _load_average() -> float | None:
    try:
        import os

        return float(os.getloadavg()[0])
    except (OSError, AttributeError):
        return None


def _n_cpus() -> int:
    import os

    return os.cpu_count() or 1


def _median_time(fn, repeats: int) -> tuple[float, float]:
    """Median wall and CPU (process) seconds of ``repeats`` calls of ``fn``
    after one warm-up call.  On a shared machine the CPU time is the better
    measure of the work done (the wall time includes waiting for a core)."""
    fn()                                                # warm-up (compile, caches)
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def _liblinear_pairs_peer(X, y, qid, repeats, threadpool_limits):
    """LinearSVC (LIBLINEAR, squared hinge, no intercept, C = 1, default tol)
    on the pair differences of (X, y, qid) and Tree-TRON at the loosest tol
    in 1e-3 ... 1e-8 whose f is no worse than LinearSVC's, timed alternately
    (median wall / CPU seconds of ``repeats`` each, after a warm-up); f of
    Eq. 1.3 at both solutions."""
    from sklearn.svm import LinearSVC

    from ..ranksvm import ranksvm_tron
    from ..ranksvm.reference import brute_force_fun, preference_pairs

    t0 = time.perf_counter()
    pairs = preference_pairs(y, qid)
    D = np.asarray(X[pairs[:, 0]] - X[pairs[:, 1]])
    sign = np.where(np.arange(len(pairs)) % 2 == 0, 1.0, -1.0)   # two classes, same f
    D *= sign[:, None]
    pairs_s = time.perf_counter() - t0
    svc = LinearSVC(C=1.0, loss="squared_hinge", fit_intercept=False)
    times = {"svc": ([], []), "tree": ([], [])}
    with threadpool_limits(1):
        svc.fit(D, sign)
        f_peer = brute_force_fun(X, y, qid, svc.coef_.ravel(), 1.0)
        # the loosest tol at which Tree-TRON's f is no worse than LinearSVC's
        for tol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-8):
            f_tree = ranksvm_tron(X, y, qid, 1.0, tol=tol).primal_objective
            if f_tree <= f_peer * (1 + 1e-12):
                break
        tree = lambda: ranksvm_tron(X, y, qid, 1.0, tol=tol)          # noqa: E731
        for _ in range(repeats):
            for key, fn in (("svc", lambda: svc.fit(D, sign)), ("tree", tree)):
                w0, c0 = time.perf_counter(), time.process_time()
                fn()
                times[key][0].append(time.perf_counter() - w0)
                times[key][1].append(time.process_time() - c0)
    w = svc.coef_.ravel()
    return {"seconds": statistics.median(times["svc"][0]),
            "cpu_s": statistics.median(times["svc"][1]),
            "tree_seconds": statistics.median(times["tree"][0]),
            "tree_cpu_s": statistics.median(times["tree"][1]),
            "n_iter": int(np.max(svc.n_iter_)), "n_pairs": int(len(pairs)),
            "pairs_s": pairs_s, "f": brute_force_fun(X, y, qid, w, 1.0), "tree_tol": tol,
            "tree_f": float(f_tree)}


@register_bench("ranksvm", "seconds per solve: Tree-TRON vs direct counting vs PRSVM+ on "
                "MQ2008 and a large-k set (tol = 1e-3, C = 1)")
def bench_ranksvm(*, quick: bool = False, seed: int = 0, progress: bool = False,
                  repeats: int | None = None, large_k: tuple | None = None) -> ExperimentResult:
    """Seconds per ``ranksvm_tron`` call (grouping + TRON, tol = 1e-3, C = 1;
    median of ``repeats`` after a warm-up) for the selection tree, direct
    counting and PRSVM+ (and the y-keyed tree), on MQ2008 and on the large-k
    set of :func:`large_k_problem`.

    The peer, timed in the same run on MQ2008: scikit-learn's ``LinearSVC``
    (LIBLINEAR, squared hinge, no intercept, C = 1, its default tol) on the
    explicit pair differences x_i - x_j (what a user without a RankSVM would
    fit; the same objective f of Eq. 1.3, printed for both), Tree-TRON and
    LinearSVC alternating over the repeats; the time to build the pairs is
    reported apart.  On large k, Tree-TRON against direct counting and
    PRSVM+ (full size; the quick set is too small for that ratio).

    Returns
    -------
    ExperimentResult
        rows: dataset, method, wall and CPU seconds, Newton steps, Hv,
        ratios to the selection tree, objective f; notes: the ratios (wall
        time) with the machine's load average.
    """
    from threadpoolctl import threadpool_limits

    from ..ranksvm import ranksvm_tron

    repeats = (3 if quick else 7) if repeats is None else int(repeats)
    data, _ = _datasets(quick, seed, large_k)
    methods = ("selection_tree", "y_tree", "direct", "prsvm_plus")
    rows = []
    bar = _bar(len(data) * len(methods), "bench ranksvm", progress)
    with threadpool_limits(1):
        for name, (X, y, qid) in data.items():
            for method in methods:
                res = ranksvm_tron(X, y, qid, 1.0, method=method, tol=1e-3)
                reps = repeats if (method in ("selection_tree", "y_tree") or name == "MQ2008") \
                    else max(1, repeats // 3)
                t, c = _median_time(lambda: ranksvm_tron(X, y, qid, 1.0, method=method,
                                                         tol=1e-3), reps)
                rows.append({"dataset": name, "method": method, "seconds": t, "cpu_s": c,
                             "steps": int(res.nit), "n_hv": int(res.n_hv),
                             "f": float(res.primal_objective)})
                bar.update()
    bar.close()
    for name in data:
        base, cpu_base = next((r["seconds"], r["cpu_s"]) for r in rows
                              if r["dataset"] == name and r["method"] == "selection_tree")
        for r in rows:
            if r["dataset"] == name:
                r["ratio_to_tree"] = r["seconds"] / base
                r["cpu_ratio_to_tree"] = r["cpu_s"] / cpu_base
    peer = _liblinear_pairs_peer(*data["MQ2008"], repeats, threadpool_limits)
    peer_ratio = peer["seconds"] / peer["tree_seconds"]
    rows.append({"dataset": "MQ2008", "method": f"selection_tree, tol={peer['tree_tol']:g}",
                 "seconds": peer["tree_seconds"], "cpu_s": peer["tree_cpu_s"], "steps": None,
                 "n_hv": None, "f": peer["tree_f"], "ratio_to_tree": None,
                 "cpu_ratio_to_tree": None})
    rows.append({"dataset": "MQ2008", "method": "LinearSVC on pairs", "seconds":
                 peer["seconds"], "cpu_s": peer["cpu_s"], "steps": peer["n_iter"],
                 "n_hv": None, "f": peer["f"], "ratio_to_tree": peer_ratio,
                 "cpu_ratio_to_tree": peer["cpu_s"] / peer["tree_cpu_s"]})
    big = [r for r in rows if r["dataset"] != "MQ2008"]
    r_direct = next(r["ratio_to_tree"] for r in big if r["method"] == "direct")
    r_prsvm = next(r["ratio_to_tree"] for r in big if r["method"] == "prsvm_plus")
    big_name = big[0]["dataset"]
    load = _load_average()
    notes = [f"MQ2008: Tree-TRON {peer['tree_seconds']:.3f} s per solve at tol = "
             f"{peer['tree_tol']:g} (f = {peer['tree_f']:.4f}, no worse than LinearSVC's), "
             f"LinearSVC on the {peer['n_pairs']:,} pair differences {peer['seconds']:.3f} s "
             f"(f = {peer['f']:.4f}; building the pairs took {peer['pairs_s']:.2f} s more): "
             f"Tree-TRON is {peer_ratio:.1f}x faster, alternating repeats"
             + (f" [machine load average {load:.1f} on {_n_cpus()} cores]" if load else ""),
             f"{big_name}: direct counting takes {r_direct:.1f}x and PRSVM+ {r_prsvm:.1f}x "
             "the time of Tree-TRON"
             + (" (quick size: the paper's gap opens at the full size)" if quick else ""),
             "one thread (numba kernels for X v, X'r and the counts; BLAS limited by "
             "threadpoolctl); seconds = median wall time of ranksvm_tron (query grouping "
             "+ TRON) after a warm-up; CPU s = process time of the same calls"]
    summary = {"bench": "ranksvm", "quick": quick, "repeats": repeats, "rows": rows,
               "liblinear_pairs_ratio": peer_ratio, "liblinear_pairs_f": peer["f"],
               "large_k_ratio_direct": r_direct, "large_k_ratio_prsvm_plus": r_prsvm}
    summary["load_average"] = load
    columns = [("dataset", "dataset", None), ("method", "method", None),
               ("steps", "Newton steps", None), ("n_hv", "Hv", None),
               ("seconds", "s / solve", lambda v: f"{v:.4f}"),
               ("f", "f(w)", lambda v: f"{v:.4f}"),
               ("ratio_to_tree", "/ tree", lambda v: "-" if v is None else f"{v:.1f}x"),
               ("cpu_s", "CPU s", lambda v: f"{v:.4f}"),
               ("cpu_ratio_to_tree", "CPU / tree",
                lambda v: "-" if v is None else f"{v:.1f}x")]
    return ExperimentResult("ranksvm", "Tree-TRON vs direct counting vs PRSVM+ (tol = 1e-3, "
                            "C = 1): seconds per solve", rows, summary, None, columns,
                            None, notes)


@register_bench("ranksvm-l1", "L1-loss RankSVM on MQ2008: dual coordinate descent vs LinearSVC "
                "(hinge) on the pair differences at C = 1, and the C grid 2^-6 .. 2^8 against "
                "Tree-TRON's L2 grid")
def bench_ranksvm_l1(*, quick: bool = False, seed: int = 0, progress: bool = False,
                     repeats: int | None = None) -> ExperimentResult:
    """L1-loss RankSVM (Eq. 1.2) by :func:`~polyrank.ranksvm.ranksvm_dcd`
    against the peers, on MQ2008 (one thread).

    1. C = 1: scikit-learn's ``LinearSVC(loss="hinge", fit_intercept=False)``
       (LIBLINEAR's dual coordinate descent, default tol) on the explicit
       pair differences, and ``ranksvm_dcd`` at the loosest tol in 1e-3 ..
       1e-6 whose f(w) is no worse than LinearSVC's (f of Eq. 1.2 of both
       printed, by brute force over the pairs), timed alternately (median
       of ``repeats``).
    2. The C grid 2^-6 .. 2^8 (quick: 2^-6 .. 2^2): every L1 fit to a
       relative duality gap of 1e-3, each warm-started from the previous
       C's solution, against Tree-TRON (L2, tol = 1e-3) on the same grid;
       total seconds of each grid (issue 19's target: within 20x).

    Returns
    -------
    ExperimentResult
        rows: one per timed solver; summary: ``peer_ratio`` (LinearSVC time
        / ours), ``grid_ratio`` (L1 grid time / L2 grid time), both
        objectives, the grid's statuses.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC
    from threadpoolctl import threadpool_limits

    from ..datasets import load_mq2008
    from ..ranksvm import ranksvm_dcd, ranksvm_tron
    from ..ranksvm.reference import brute_force_l1, preference_pairs

    repeats = (3 if quick else 7) if repeats is None else int(repeats)
    d = load_mq2008()
    X, y, qid = d.X_train, d.y_train, d.qid_train
    pairs = preference_pairs(y, qid)
    sign = np.where(np.arange(len(pairs)) % 2 == 0, 1.0, -1.0)    # two classes, same f
    D = (X[pairs[:, 0]] - X[pairs[:, 1]]) * sign[:, None]
    svc = LinearSVC(C=1.0, loss="hinge", fit_intercept=False, random_state=seed)
    exps = range(-6, 3) if quick else range(-6, 9)
    grid = [2.0 ** e for e in exps]
    bar = _bar(2 * repeats + 2 * len(grid) + 2, "bench ranksvm-l1", progress)
    # LinearSVC's iteration cap (1000) is reported in the table, not warned
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svc.fit(D, sign)
        f_peer = brute_force_l1(X, y, qid, svc.coef_.ravel(), 1.0)
        for tol in (1e-3, 1e-4, 1e-5, 1e-6):
            ours = ranksvm_dcd(X, y, qid, 1.0, tol=tol, max_iter=20000, random_state=seed)
            if ours.primal_objective <= f_peer * (1 + 1e-12):
                break
        f_ours = brute_force_l1(X, y, qid, ours.x, 1.0)
        times = {"svc": [], "dcd": []}
        for _ in range(repeats):
            for key, fn in (("svc", lambda: svc.fit(D, sign)),
                            ("dcd", lambda: ranksvm_dcd(X, y, qid, 1.0, tol=tol,
                                                        max_iter=20000, random_state=seed))):
                t0 = time.perf_counter()
                fn()
                times[key].append(time.perf_counter() - t0)
                bar.update()
        t_svc, t_dcd = statistics.median(times["svc"]), statistics.median(times["dcd"])
        ranksvm_tron(X, y, qid, 1.0)                    # warm (compiled) before the grid
        t0 = time.perf_counter()
        for C in grid:
            ranksvm_tron(X, y, qid, C, tol=1e-3)
            bar.update()
        t_l2 = time.perf_counter() - t0
        t0 = time.perf_counter()
        statuses, alpha = [], None
        for k, C in enumerate(grid):
            r = ranksvm_dcd(X, y, qid, C, tol=1e-3, max_iter=20000, random_state=seed,
                            alpha0=None if alpha is None else alpha * (C / grid[k - 1]))
            alpha = r.dual
            statuses.append(r.status)
            bar.update()
        t_l1 = time.perf_counter() - t0
    bar.close()
    peer_ratio, grid_ratio = t_svc / t_dcd, t_l1 / t_l2
    lo, hi = int(math.log2(grid[0])), int(math.log2(grid[-1]))
    n_conv = sum(s == "converged" for s in statuses)
    rows = [{"task": "C = 1", "solver": f"ranksvm_dcd (tol={tol:g})", "seconds": t_dcd,
             "f": f_ours, "status": ours.status},
            {"task": "C = 1", "solver": "LinearSVC(loss='hinge') on pairs", "seconds": t_svc,
             "f": f_peer, "status": f"{int(np.max(svc.n_iter_))} iterations"
             + (" (its cap)" if np.max(svc.n_iter_) >= svc.max_iter else "")},
            {"task": f"C = 2^{lo} .. 2^{hi}", "solver": "ranksvm_dcd, warm-started (L1)",
             "seconds": t_l1, "f": None, "status": f"{n_conv} of {len(grid)} converged"},
            {"task": f"C = 2^{lo} .. 2^{hi}", "solver": "Tree-TRON (L2)", "seconds": t_l2,
             "f": None, "status": ""}]
    load = _load_average()
    reached = f_ours <= f_peer * (1 + 1e-12)
    notes = [f"C = 1, {len(pairs):,} pairs: "
             + speed_phrase(peer_ratio, "ranksvm_dcd", "LinearSVC(loss='hinge') on the pair "
                            "differences")
             + f" (f = {f_ours:.4f} vs {f_peer:.4f}; median of {repeats}, alternating)"
             + ("" if reached else "; ranksvm_dcd did NOT reach LinearSVC's f even at "
                f"tol = {tol:g} ({ours.status}): the comparison flatters it"),
             f"C = 2^{lo} .. 2^{hi}: every L1 fit to a relative duality gap of 1e-3 "
             f"({n_conv} of {len(grid)} converged) in {t_l1:.2f} s, {grid_ratio:.1f}x the "
             f"{t_l2:.2f} s of Tree-TRON's L2 grid"
             + (f" [machine load average {load:.1f} on {_n_cpus()} cores]" if load else "")]
    summary = {"bench": "ranksvm-l1", "quick": quick, "repeats": repeats,
               "peer_ratio": peer_ratio, "f_ours": f_ours, "f_peer": f_peer, "tol": tol,
               "reached_peer_f": reached,
               "grid_ratio": grid_ratio, "grid_log2_C": [lo, hi],
               "grid_converged": n_conv, "grid_size": len(grid), "load_average": load}
    columns = [("task", "task", None), ("solver", "solver", None),
               ("seconds", "seconds", lambda v: f"{v:.3f}"),
               ("f", "f(w) (Eq. 1.2)", lambda v: "-" if v is None else f"{v:.4f}"),
               ("status", "status", None)]
    return ExperimentResult("ranksvm-l1", "L1-loss RankSVM on MQ2008: dual coordinate descent "
                            "vs LinearSVC on pairs, and the C grid", rows, summary, None,
                            columns, None, notes)
