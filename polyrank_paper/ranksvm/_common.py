"""What the reproductions of ``large-scale-linear-ranksvm.txt`` share: the
data sets (MQ2008 and a generated large-k set), the grid of C, selecting C
on the validation split, and the runs of every method along a solve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from polyrank.datasets import load_mq2008
from polyrank.metrics import mean_ndcg, pairwise_accuracy
from polyrank.ranksvm import ranksvm_cutting_plane, ranksvm_dcd, ranksvm_tron

from ..labels import METHOD_LABELS  # noqa: F401  (re-exported: the experiments' name)
from ..registry import leading_columns

__all__ = ["METHOD_LABELS", "large_k_problem", "SelectionRow", "PathRow", "SolverSummary",
           "SolverRow"]


@dataclass(frozen=True)
class SelectionRow:
    """One C of the grid, scored on the validation split.

    Attributes
    ----------
    C : float
    log2_C : float
    val_pairwise_accuracy : float
        Validation pairwise accuracy (fraction).
    val_mean_ndcg : float
        Validation mean NDCG.
    status : str
        The fit's status.
    """

    C: float
    log2_C: float
    val_pairwise_accuracy: float
    val_mean_ndcg: float
    status: str


@dataclass(frozen=True)
class PathRow:
    """One recorded iterate of a solver on MQ2008.

    Attributes
    ----------
    kind : str
        ``"path"``.
    solver : str
    C : float
    step : int
        Iterations so far.
    time_s : float
        Seconds so far.
    work : int
        CG iterations (TRON), passes (DCD) or planes (cutting plane) so far.
    f : float
        Primal objective.
    rel_f : float
        (f - f*) / |f*|, clipped at 0.
    test_pairwise_accuracy, test_mean_ndcg : float
        Test measures of the iterate.
    """

    kind: str
    solver: str
    C: float
    step: int
    time_s: float
    work: int
    f: float
    rel_f: float
    test_pairwise_accuracy: float
    test_mean_ndcg: float


@dataclass(frozen=True)
class SolverSummary:
    """A solver's final state on MQ2008 at one C.

    Attributes
    ----------
    C, log2_C : float
    time_s : float
        Seconds.
    steps, work : int
        Iterations and their work (as :class:`PathRow`).
    status : str
    f, gap : float
        Primal objective and duality gap.
    test_pairwise_accuracy, test_mean_ndcg : float
    """

    C: float
    log2_C: float
    time_s: float
    steps: int
    work: int
    status: str
    f: float
    gap: float
    test_pairwise_accuracy: float
    test_mean_ndcg: float


@dataclass(frozen=True)
class SolverRow(SolverSummary, leading_columns("solver")):
    """A printed row: a :class:`SolverSummary` with the solver first.

    Attributes
    ----------
    solver : str
    """

    def summary(self) -> SolverSummary:
        """The same without ``solver``."""
        return SolverSummary(**{k: v for k, v in vars(self).items() if k != "solver"})


_PAPER = "Lee & Lin, Neural Computation 2014"



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
    d = load_mq2008()
    # full size: two queries of 10,000 documents, each with its own level (k_q = l_q),
    # large enough for the O(l k) of direct counting to show against O(l log k)
    nq, lq = large_k if large_k is not None else ((5, 400) if quick else (2, 10000))
    Xk, yk, qk = large_k_problem(seed, nq, lq)
    return {"MQ2008": (d.X_train, d.y_train, d.qid_train),
            f"large-k ({nq} x {lq})": (Xk, yk, qk)}, d


def _c_grid(quick: bool, grid):
    if grid is not None:
        return [float(c) for c in grid]
    exps = range(-6, 4, 3) if quick else range(-15, 11)
    return [2.0 ** e for e in exps]


def _select_C(fit, grid, X_val, y_val, q_val, bar):
    """Validation pairwise accuracy and mean NDCG for each C; returns rows
    and the argmax C of each measure (ties: the smallest C)."""
    rows = []
    for C in grid:
        w, status = fit(C)
        s = X_val @ w
        rows.append(SelectionRow(C=C, log2_C=math.log2(C),
                                 val_pairwise_accuracy=pairwise_accuracy(y_val, s, q_val),
                                 val_mean_ndcg=mean_ndcg(y_val, s, q_val), status=status))
        bar.update()
    best_pa = max(rows, key=lambda r: (r.val_pairwise_accuracy, -r.C)).C
    best_ndcg = max(rows, key=lambda r: (r.val_mean_ndcg, -r.C)).C
    return rows, best_pa, best_ndcg


def _method_runs(tr, C_l2, C_l1, cp_max_iter, seed, bar):
    """Tree-TRON and PRSVM+ (tol = 1e-6) at C_l2, L1 dual coordinate descent
    and the cutting-plane method (tol = 1e-4) at C_l1, every iterate kept:
    {solver: (result, f*, work per trace point)}, f* each loss's optimum
    (L2: Tree-TRON at tol = 1e-9; L1: the smaller certified f of the two)."""
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
            rows.append(PathRow(kind="path", solver=solver, C=res.C,
                                step=int(t.iteration[k]), time_s=float(t.time_s[k]),
                                work=int(work[k]), f=float(t.primal[k]),
                                rel_f=float(max(t.primal[k] - f_star, 0.0) / abs(f_star)),
                                test_pairwise_accuracy=pa, test_mean_ndcg=nd))
        pa, nd = metrics(res.x)
        table.append(SolverRow(solver=solver, C=res.C, log2_C=math.log2(res.C),
                               time_s=float(t.time_s[-1]), steps=int(res.nit),
                               work=int(work[-1]), status=res.status,
                               f=float(res.primal_objective), gap=float(res.gap),
                               test_pairwise_accuracy=pa, test_mean_ndcg=nd))
    return rows, table
