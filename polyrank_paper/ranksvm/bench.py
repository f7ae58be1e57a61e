"""``polyrank bench ranksvm`` (seconds per solve of Tree-TRON, direct counting
and PRSVM+ on MQ2008 and the large-k set, against LinearSVC on the pair
differences) and ``polyrank bench ranksvm-l1``
(``large-scale-linear-ranksvm.txt``).
"""

from __future__ import annotations

import math
import os
import statistics
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from polyrank.datasets import load_mq2008
from polyrank.ranksvm import ranksvm_dcd, ranksvm_tron
from polyrank.ranksvm.reference import brute_force_fun, brute_force_l1, preference_pairs

from .._harness import median_times, progress_bar
from ..registry import (
    ExperimentResult,
    RepeatedBench,
    column,
    fmt_spec,
    record,
    register_bench,
    speed_phrase,
)
from ._common import _datasets

__all__ = ["bench_ranksvm", "bench_ranksvm_l1", "RankBenchRow", "RankBenchSummary",
           "RankL1Row", "RankL1Summary"]



def _ratio(v) -> str:
    return "-" if v is None else f"{v:.1f}x"


@dataclass(frozen=True)
class RankBenchRow:
    """One solver on one data set of :func:`bench_ranksvm`.

    Attributes
    ----------
    dataset, method : str
    seconds, cpu_s : float
        Median wall and CPU seconds per solve.
    steps, n_hv : int or None
        Newton steps and Hessian-vector products (None: not TRON).
    f : float
        The objective f(w) of Eq. 1.3.
    ratio_to_tree, cpu_ratio_to_tree : float or None
        seconds and cpu_s over the selection tree's.
    """

    dataset: str = column("dataset")
    method: str = column("method")
    seconds: float = column("s / solve", fmt_spec(".4f"), order=1)
    cpu_s: float = column("CPU s", fmt_spec(".4f"), order=3)
    steps: int | None = column("Newton steps")
    n_hv: int | None = column("Hv")
    f: float = column("f(w)", fmt_spec(".4f"), order=1)
    ratio_to_tree: float | None = column("/ tree", _ratio, order=2, default=None)
    cpu_ratio_to_tree: float | None = column("CPU / tree", _ratio, order=3, default=None)


@record
class RankBenchSummary(RepeatedBench):
    """The key figures of :func:`bench_ranksvm`.

    Attributes
    ----------
    rows : tuple of RankBenchRow
    liblinear_pairs_ratio : float
        LinearSVC on the pairs over Tree-TRON, wall time.
    liblinear_pairs_f : float
        LinearSVC's f.
    large_k_ratio_direct, large_k_ratio_prsvm_plus : float
        Direct counting's and PRSVM+'s time over Tree-TRON's on large k.
    load_average : float or None
        The machine's 1-minute load average.
    """

    rows: tuple
    liblinear_pairs_ratio: float
    liblinear_pairs_f: float
    large_k_ratio_direct: float
    large_k_ratio_prsvm_plus: float
    load_average: float | None


@dataclass(frozen=True)
class RankL1Row:
    """One timed task of :func:`bench_ranksvm_l1`.

    Attributes
    ----------
    task, solver : str
    seconds : float
    f : float or None
        f(w) of Eq. 1.2 (None: a grid).
    status : str
    """

    task: str = column("task")
    solver: str = column("solver")
    seconds: float = column("seconds", fmt_spec(".3f"))
    f: float | None = column("f(w) (Eq. 1.2)", fmt_spec(".4f"))
    status: str = column("status")


@record
class RankL1Summary(RepeatedBench):
    """The key figures of :func:`bench_ranksvm_l1`.

    Attributes
    ----------
    peer_ratio : float
        LinearSVC time / ours at C = 1.
    f_ours, f_peer : float
    tol : float
        Our tolerance at C = 1.
    reached_peer_f : bool
    grid_ratio : float
        L1 grid time / L2 grid time.
    grid_log2_C : tuple of int
        The grid's first and last log2 C.
    grid_converged, grid_size : int
    load_average : float or None
    """

    peer_ratio: float
    f_ours: float
    f_peer: float
    tol: float
    reached_peer_f: bool
    grid_ratio: float
    grid_log2_C: tuple
    grid_converged: int
    grid_size: int
    load_average: float | None


def _load_average() -> float | None:
    try:
        return float(os.getloadavg()[0])
    except (OSError, AttributeError):
        return None


def _n_cpus() -> int:
    return os.cpu_count() or 1


def _liblinear_pairs_peer(X, y, qid, repeats, threadpool_limits):
    """LinearSVC (LIBLINEAR, squared hinge, no intercept, C = 1, default tol)
    on the pair differences of (X, y, qid) and Tree-TRON at the loosest tol
    in 1e-3 ... 1e-8 whose f is no worse than LinearSVC's, timed alternately
    (median wall / CPU seconds of ``repeats`` each, after a warm-up); f of
    Eq. 1.3 at both solutions."""
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


@register_bench("ranksvm")
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
        rows: :class:`RankBenchRow` (dataset, method, wall and CPU seconds, Newton steps, Hv,
        ratios to the selection tree, objective f); summary: a
        :class:`RankBenchSummary`; notes: the ratios (wall
        time) with the machine's load average.
    """
    repeats = (3 if quick else 7) if repeats is None else int(repeats)
    data, _ = _datasets(quick, seed, large_k)
    methods = ("selection_tree", "y_tree", "direct", "prsvm_plus")
    rows = []
    bar = progress_bar(len(data) * len(methods), "bench ranksvm", progress)
    with threadpool_limits(1):
        for name, (X, y, qid) in data.items():
            for method in methods:
                res = ranksvm_tron(X, y, qid, 1.0, method=method, tol=1e-3)
                reps = repeats if (method in ("selection_tree", "y_tree") or name == "MQ2008") \
                    else max(1, repeats // 3)
                t, c = median_times(
                    lambda X=X, y=y, qid=qid, method=method: ranksvm_tron(
                        X, y, qid, 1.0, method=method, tol=1e-3), reps, warmup=True)
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
    rows = [RankBenchRow(**r) for r in rows]
    big = [r for r in rows if r.dataset != "MQ2008"]
    r_direct = next(r.ratio_to_tree for r in big if r.method == "direct")
    r_prsvm = next(r.ratio_to_tree for r in big if r.method == "prsvm_plus")
    big_name = big[0].dataset
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
    summary = RankBenchSummary(bench="ranksvm", quick=quick, repeats=repeats, rows=tuple(rows),
                               liblinear_pairs_ratio=peer_ratio, liblinear_pairs_f=peer["f"],
                               large_k_ratio_direct=r_direct,
                               large_k_ratio_prsvm_plus=r_prsvm, load_average=load)
    return ExperimentResult("ranksvm", "Tree-TRON vs direct counting vs PRSVM+ (tol = 1e-3, "
                            "C = 1): seconds per solve", rows, summary, notes=notes)


def _l1_at_c1(X, y, qid, D, sign, svc, seed, repeats, bar):
    """C = 1: LinearSVC(hinge) on the pair differences ``D``, then
    ranksvm_dcd at the loosest tol in 1e-3 .. 1e-6 that reaches the peer's f,
    both timed (medians of ``repeats``, alternating).  Returns (our result,
    its tol, our f, the peer's f, the peer's seconds, our seconds)."""
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
    return ours, tol, f_ours, f_peer, t_svc, t_dcd


def _l1_grid(X, y, qid, grid, seed, bar):
    """The C grid: Tree-TRON's L2 fits (warmed first) and warm-started L1
    ranksvm_dcd fits to a relative gap of 1e-3.  Returns (L2 seconds, L1
    seconds, the L1 statuses)."""
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
    return t_l2, t_l1, statuses


@register_bench("ranksvm-l1")
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
        rows: a :class:`RankL1Row` per timed solver; summary
        (:class:`RankL1Summary`): ``peer_ratio`` (LinearSVC time
        / ours), ``grid_ratio`` (L1 grid time / L2 grid time), both
        objectives, the grid's statuses.
    """
    repeats = (3 if quick else 7) if repeats is None else int(repeats)
    d = load_mq2008()
    X, y, qid = d.X_train, d.y_train, d.qid_train
    pairs = preference_pairs(y, qid)
    sign = np.where(np.arange(len(pairs)) % 2 == 0, 1.0, -1.0)    # two classes, same f
    D = (X[pairs[:, 0]] - X[pairs[:, 1]]) * sign[:, None]
    svc = LinearSVC(C=1.0, loss="hinge", fit_intercept=False, random_state=seed)
    exps = range(-6, 3) if quick else range(-6, 9)
    grid = [2.0 ** e for e in exps]
    bar = progress_bar(2 * repeats + 2 * len(grid) + 2, "bench ranksvm-l1", progress)
    # LinearSVC's iteration cap (1000) is reported in the table, not warned
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours, tol, f_ours, f_peer, t_svc, t_dcd = _l1_at_c1(X, y, qid, D, sign, svc, seed,
                                                            repeats, bar)
        t_l2, t_l1, statuses = _l1_grid(X, y, qid, grid, seed, bar)
    bar.close()
    peer_ratio, grid_ratio = t_svc / t_dcd, t_l1 / t_l2
    lo, hi = int(math.log2(grid[0])), int(math.log2(grid[-1]))
    n_conv = sum(s == "converged" for s in statuses)
    rows = [RankL1Row(task="C = 1", solver=f"ranksvm_dcd (tol={tol:g})", seconds=t_dcd,
                      f=f_ours, status=ours.status),
            RankL1Row(task="C = 1", solver="LinearSVC(loss='hinge') on pairs", seconds=t_svc,
                      f=f_peer, status=f"{int(np.max(svc.n_iter_))} iterations"
                      + (" (its cap)" if np.max(svc.n_iter_) >= svc.max_iter else "")),
            RankL1Row(task=f"C = 2^{lo} .. 2^{hi}", solver="ranksvm_dcd, warm-started (L1)",
                      seconds=t_l1, f=None, status=f"{n_conv} of {len(grid)} converged"),
            RankL1Row(task=f"C = 2^{lo} .. 2^{hi}", solver="Tree-TRON (L2)", seconds=t_l2,
                      f=None, status="")]
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
    summary = RankL1Summary(bench="ranksvm-l1", quick=quick, repeats=repeats,
                            peer_ratio=peer_ratio, f_ours=f_ours, f_peer=f_peer, tol=tol,
                            reached_peer_f=reached, grid_ratio=grid_ratio, grid_log2_C=(lo, hi),
                            grid_converged=n_conv, grid_size=len(grid), load_average=load)
    return ExperimentResult("ranksvm-l1", "L1-loss RankSVM on MQ2008: dual coordinate descent "
                            "vs LinearSVC on pairs, and the C grid", rows, summary, notes=notes)
