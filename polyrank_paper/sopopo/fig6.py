"""Fig. 6 of ``sopopo-label-ranking.txt`` (Sec. 5): the run-time of one soft
projection against k, SOPOPO (Eq. 7 by ``soft_project``, Eq. 19 by the
Fig. 3 algorithm) against Clarabel, each Clarabel solve single-threaded
under a time budget (:class:`~polyrank_paper._baseline.BaselineRunner`).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.sopopo import soft_project, solve_reduced
from polyrank.validation import check_int

from .._baseline import BaselineRunner
from .._harness import mean_sd, progress_bar
from ..bench.sopopo import _fig6_problem, _per_call_times
from ..registry import (
    ExperimentResult,
    PaperItem,
    SourceInfo,
    column,
    fmt_spec,
    fmt_time,
    record,
    register,
)
from ._common import (
    _OBJ_RTOL,
    _PAPER,
    CLARABEL_TASKS,
    _BudgetedSolver,
    _check_budget,
    _check_ks,
    _clarabel_accuracy,
    _loglog_slope,
    _rel,
)

__all__ = ["sopopo_fig6", "Fig6Row", "Fig6Problem", "Fig6Summary"]



@dataclass(frozen=True)
class Fig6Row:
    """One row of :func:`sopopo_fig6`: one problem (Eq. 7 or Eq. 19) at one k.

    Attributes
    ----------
    problem : str
        ``"eq7"`` (the soft projection) or ``"eq19"`` (its reduced dual).
    k : int
        Number of labels.
    trials : int
        Random problems timed.
    sopopo_s, sopopo_sd_s : float
        SOPOPO's time per solve, mean and standard deviation over trials,
        seconds.
    clarabel_s, clarabel_sd_s : float or None
        Clarabel's wall time per solve (building its matrices included),
        mean and sd over the finished solves, seconds; None if none finished.
    clarabel_trials : int
        Clarabel solves finished.
    clarabel_solver_s : float or None
        Clarabel's own solve time, mean, seconds.
    clarabel_nit : int or None
        Median interior-point iterations.
    ratio : float or None
        clarabel_s / sopopo_s (dimensionless).
    ratio_solver : float or None
        clarabel_solver_s / sopopo_s.
    ratio_lower_bound : float or None
        budget / sopopo_s when Clarabel was stopped at or skipped for the
        budget.
    max_rel_obj_diff : float or None
        Max over trials of |SOPOPO - Clarabel| / |Clarabel| (optimal
        objectives).
    max_abs_obj_diff : float or None
        Max over trials of |SOPOPO - Clarabel|.
    clarabel_accuracy : float or None
        The absolute accuracy allowed to Clarabel's value (Notes of
        :func:`sopopo_fig6`).
    n_rel_above_1e_6 : int or None
        Trials whose relative difference exceeds 1e-6 (written as
        ``n_rel_above_1e-6``).
    objectives_agree : bool or None
        Every trial within 1e-6 |Clarabel| + clarabel_accuracy.
    sopopo_pd_gap : float or None
        Eq. 7: max of SOPOPO's primal minus its dual Eq. 16; None for Eq. 19.
    clarabel_status : str
        ``"ok"``, ``"over budget"``, ``"stopped at budget"`` or ``"skipped
        (budget exceeded at k=...)"``.
    """

    problem: str = column("eq", lambda v: v[2:])
    k: int = column("k", str)
    trials: int = column("trials", str)
    sopopo_s: float = column("sopopo", fmt_time)
    sopopo_sd_s: float = column("sd", fmt_time)
    clarabel_s: float | None = column("clarabel", fmt_time)
    clarabel_sd_s: float | None = column("sd", fmt_time)
    clarabel_trials: int = column("done", str)
    clarabel_solver_s: float | None = column()
    clarabel_nit: int | None = column("nit", str)
    ratio: float | None = column("cl/sop", fmt_spec(".0f"))
    ratio_solver: float | None = column("cl.solve/sop", fmt_spec(".0f"))
    ratio_lower_bound: float | None = column("cl/sop>=", fmt_spec(".0f"))
    max_rel_obj_diff: float | None = column("rel.obj.diff", fmt_spec(".1e"))
    max_abs_obj_diff: float | None = column()
    clarabel_accuracy: float | None = column()
    n_rel_above_1e_6: int | None = column(key="n_rel_above_1e-6")
    objectives_agree: bool | None = column("agree")
    sopopo_pd_gap: float | None = column()
    clarabel_status: str = column("clarabel status", str)


@dataclass(frozen=True)
class Fig6Problem:
    """The summary of one panel of Fig. 6 (Eq. 7 or Eq. 19); the dicts are
    keyed by k as a str.

    Attributes
    ----------
    sopopo_s, clarabel_s : dict of str to float
        Mean time per solve, seconds (Clarabel: the k it solved).
    ratio, ratio_solver : dict of str to float
        Clarabel's wall time (own solve time) over SOPOPO's.
    ratio_lower_bound : dict of str to float
        budget / SOPOPO's time where Clarabel was stopped or skipped.
    largest_k_within_budget, clarabel_stopped_at_k : int or None
        The largest k Clarabel solved within the budget; the first k where
        it did not.
    max_rel_obj_diff : float or None
        Max relative difference of the optimal objectives.
    slope_sopopo_vs_k, slope_clarabel_vs_k : float or None
    slope_ratio_vs_k, slope_ratio_solver_vs_k : float or None
        Log-log slopes against k (None: fewer than two points).
    ratio_nondecreasing : bool or None
        The ratio never decreases with k.
    ratio_decreases : tuple of (int, int)
        The consecutive pairs of k between which the ratio decreases.
    """

    sopopo_s: dict
    clarabel_s: dict
    ratio: dict
    ratio_solver: dict
    ratio_lower_bound: dict
    largest_k_within_budget: int | None
    clarabel_stopped_at_k: int | None
    max_rel_obj_diff: float | None
    slope_sopopo_vs_k: float | None
    slope_clarabel_vs_k: float | None
    slope_ratio_vs_k: float | None
    slope_ratio_solver_vs_k: float | None
    ratio_nondecreasing: bool | None
    ratio_decreases: tuple


@record
class Fig6Summary(SourceInfo):
    """The key figures of :func:`sopopo_fig6`.

    Attributes
    ----------
    n : int
        Dimension.
    C : float
        The bound C; ``C_note`` says it is not the paper's.
    C_note : str
    trials : int
    budget_s : float or None
        Clarabel's budget per solve, seconds (None: no budget).
    ks : tuple of int
    seed : int
    quick : bool
    eq7, eq19 : Fig6Problem
        The two panels.
    eq19_ratio_at_k100, eq19_ratio_solver_at_k100 : float or None
        Eq. 19, Clarabel's time (own solve time) over SOPOPO's at k = 100.
    target_eq19_ratio_at_k100_ge_100, target_eq19_ratio_grows_with_k : bool or None
        The targets; None if not measured.
    max_rel_obj_diff : float or None
    objectives_agree : bool or None
    n_trials_rel_above_1e_6 : int
        Solves whose relative difference exceeds 1e-6 (written as
        ``n_trials_rel_above_1e-6``).
    n_trials_compared : int
    sopopo_max_pd_gap_eq7 : float or None
        SOPOPO's largest primal - dual on Eq. 7.
    agreement_rule : str
    elapsed_s : float
        Seconds the experiment took.
    paper : tuple of PaperItem
        The README's paper-vs-polyrank rows.
    """

    n: int
    C: float
    C_note: str
    trials: int
    budget_s: float | None
    ks: tuple
    seed: int
    quick: bool
    eq7: Fig6Problem
    eq19: Fig6Problem
    eq19_ratio_at_k100: float | None
    eq19_ratio_solver_at_k100: float | None
    target_eq19_ratio_at_k100_ge_100: bool | None
    target_eq19_ratio_grows_with_k: bool | None
    max_rel_obj_diff: float | None
    objectives_agree: bool | None
    n_trials_rel_above_1e_6: int = column(key="n_trials_rel_above_1e-6")
    n_trials_compared: int = column()
    sopopo_max_pd_gap_eq7: float | None = column()
    agreement_rule: str = column()
    elapsed_s: float = column()
    paper: tuple = column(default=())


_FIG6_FULL = {"ks": (10, 20, 50, 100, 200, 500, 1000, 2000, 5000), "trials": 10,
              "budget_s": 60.0}
_FIG6_QUICK = {"ks": (10, 20, 50, 100, 200, 500, 1000), "trials": 3, "budget_s": 5.0}


@register("sopopo-fig6", "one soft projection: time vs k, SOPOPO vs Clarabel on Eq. 7 "
          "(left) and Eq. 19 (right) (Sec. 5, Fig. 6)")
def sopopo_fig6(*, ks: Sequence[int] | None = None, trials: int | None = None,
                budget_s: float | None = None, n: int = 100, C: float = 1.0,
                repeats: int = 3, min_time: float = 0.005, seed: int = 0,
                quick: bool = False, progress: bool = False) -> ExperimentResult:
    """Fig. 6: time of one soft projection against k, SOPOPO vs Clarabel.

    For every k and each of ``trials`` random problems (the paper's data,
    see Notes), times

    * Eq. 7 (left panel): SOPOPO = :func:`polyrank.sopopo.soft_project`
      (the whole soft projection: margins, Fig. 3, update of W) against
      Clarabel on the original problem Eq. 7
      (:func:`polyrank.sopopo.reference.soft_project_qp`, one inequality
      per edge of A x B);
    * Eq. 19 (right panel): SOPOPO = :func:`polyrank.sopopo.solve_reduced`
      (Fig. 3) against Clarabel on the reduced problem Eq. 19
      (:func:`polyrank.sopopo.reference.reduced_qp`), both given the same
      mu and nu;

    and checks that each pair's optimal objectives agree to a relative
    1e-6 (or to Clarabel's accuracy, see Notes).  Clarabel runs to its
    default tolerance (1e-10), one timed call per problem (wall time,
    including building its matrices) in a single-threaded worker process;
    SOPOPO's time per problem is the median of ``repeats`` timeit-style
    loops of at least ``min_time`` seconds, here, single-threaded.

    Parameters
    ----------
    ks : sequence of int, optional
        Numbers of labels (each >= 2).  Default (10, 20, 50, 100, 200, 500,
        1000, 2000, 5000); quick: up to 1000.
    trials : int, optional
        Random problems per k (default 10 as in the paper; quick: 3).
    budget_s : float, optional
        Time budget of one Clarabel solve, in seconds (default 60; quick:
        5).  A solve that exceeds it is stopped (the worker is killed) and
        that solver is not run for larger k.  ``inf``: no budget.
    n : int, default 100
        Dimension of x and u_y (the paper's 100).
    C : float, default 1.0
        The bound C of Eq. 7 / Eq. 19.  The paper does not state C for
        Fig. 6; we use 1.
    repeats : int, default 3
        Timing loops per SOPOPO measurement.
    min_time : float, default 0.005
        Minimal duration of one SOPOPO timing loop, in seconds.
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng` (the data).
    quick : bool, default False
        Use the quick defaults for ``ks``, ``trials`` and ``budget_s``
        (those given explicitly win).
    progress : bool, default False
        Show a tqdm progress bar on stderr.

    Returns
    -------
    ExperimentResult
        ``rows``: one :class:`Fig6Row` per (problem, k): SOPOPO's and
        Clarabel's times, their ratios, the objectives' agreement and
        Clarabel's status.  ``summary``: a :class:`Fig6Summary`, per
        problem (:class:`Fig6Problem`) the ratio and times per k, the
        largest k Clarabel solved within the budget, the k where it
        stopped, the log-log slopes of time and ratio against k; the Eq. 19
        ratio at k = 100, the targets (ratio >= 100 at k = 100; ratio
        growing with k), the overall max_rel_obj_diff and the settings.

    Raises
    ------
    ValueError
        On a k < 2, trials/repeats/n < 1, C <= 0, budget_s <= 0 or
        min_time < 0.
    RuntimeError
        If Clarabel fails on a problem.

    Notes
    -----
    Source: ``sopopo-label-ranking.txt``, Sec. 5, Fig. 6 (paper: LOQO,
    k from 10 to 100, ten trials).  Data: ``A = [k/2]``, ``B = [k] \\
    [k/2]``, the target ``y = 1`` (the paper's gamma) on A and 0 on B, x
    and u_1..u_k from N(0, I_100).  Eq. 7 is the soft projection, Eq. 19 its reduced dual.

    The QP references give Clarabel the objectives without their constant
    terms (1/2 sum_y ||u_y||^2 for Eq. 7, about 50 k here), and Clarabel
    stops at a gap of 1e-10 (1 + |its objective|).  When the optimum of
    Eq. 7 is small (say 5e-4 at k = 6) Clarabel's value is then only
    accurate to ~1e-8 absolute, a relative 1e-5, while SOPOPO's primal
    equals its dual to ~1e-16.  ``clarabel_accuracy`` = 10 * 1e-10 (1 +
    |Clarabel's objective without the constant|) is that allowance.

    Examples
    --------
    >>> res = sopopo_fig6(ks=(10,), trials=1, repeats=1, min_time=0.0,
    ...                   budget_s=30)
    >>> [(r.problem, r.objectives_agree) for r in res.rows]
    [('eq7', True), ('eq19', True)]
    """
    defaults = _FIG6_QUICK if quick else _FIG6_FULL
    ks = _check_ks(defaults["ks"] if ks is None else ks)
    trials = check_int(defaults["trials"] if trials is None else trials, "trials")
    budget_s = _check_budget(defaults["budget_s"] if budget_s is None else budget_s)
    n = check_int(n, "n")
    repeats = check_int(repeats, "repeats")
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C: expected a finite number > 0, got {C!r}")
    if not min_time >= 0:
        raise ValueError(f"min_time: expected >= 0, got {min_time!r}")

    t_start = time.perf_counter()
    bar = progress_bar(len(ks) * trials, "sopopo-fig6", progress)
    try:
        with threadpool_limits(limits=1):
            rows = _fig6_rows(ks, trials, budget_s, n, float(C), repeats, min_time,
                              seed, bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t_start
    summary = _fig6_summary(rows, ks, trials, budget_s, n, float(C), seed, quick, elapsed)
    summary = dataclasses.replace(summary, paper=_fig6_paper_rows(summary))
    return ExperimentResult(
        name="sopopo-fig6",
        title=(f"Fig. 6 ({_PAPER}, Sec. 5): one soft projection, SOPOPO vs Clarabel on "
               f"Eq. 7 and Eq. 19; n = {n}, C = {C:g} (not stated in the paper), mean over "
               f"{trials} trials, seconds per solve, single-threaded"),
        rows=rows, summary=summary, notes=_fig6_notes(summary))


def _fig6_rows(ks, trials, budget_s, n, C, repeats, min_time, seed, bar):
    rng = np.random.default_rng(seed)
    # warm up numba here and Clarabel in the worker
    x, y, U, A, B = _fig6_problem(np.random.default_rng(12345), 4, n)
    mu, nu = np.array([0.5, -0.1]), np.array([0.2, 0.3])
    soft_project(x, y, U, A, B, C)
    solve_reduced(mu, nu, C)
    warmup = [("eq7", (x, y, U, A, B, C)), ("eq19", (mu, nu, C))]
    with BaselineRunner(CLARABEL_TASKS, warmup) as worker:
        return _fig6_loop(ks, trials, budget_s, n, C, repeats, min_time, rng, bar, worker)


def _fig6_loop(ks, trials, budget_s, n, C, repeats, min_time, rng, bar, worker):
    solvers = {p: _BudgetedSolver(worker, p, budget_s) for p in ("eq7", "eq19")}
    rows = []
    for k in ks:
        # all problems of this k first: the data do not depend on the budget
        problems = [_fig6_problem(rng, k, n) for _ in range(trials)]
        rec = {p: {"sop": [], "cl": [], "cl_solver": [], "nit": [], "rel": [], "abs": [],
                   "acc": [], "agree": [], "cert": [], "status": "ok"} for p in solvers}
        for x, y, U, A, B in problems:
            _fig6_trial(x, y, U, A, B, C, repeats, min_time, solvers, rec)
            bar.set_postfix_str(f"k={k}")
            bar.update(1)
        for p, solver in solvers.items():
            r = rec[p]
            rows.append(_fig6_row(p, k, trials, r, solver, budget_s))
            if r["status"] != "ok" and solver.stopped_at is None:
                solver.stopped_at = k
    return rows


def _fig6_trial(x, y, U, A, B, C, repeats, min_time, solvers, rec) -> None:
    """One problem of :func:`_fig6_loop`: time SOPOPO on Eq. 7 and on
    Eq. 19, run Clarabel on both (while within budget) and append the
    times, objective differences and certificates to ``rec``."""
    sq = float(x @ x)
    f = U @ x
    mu = (y[A] - f[A]) / sq
    nu = (f[B] - y[B]) / sq
    sop7 = soft_project(x, y, U, A, B, C)
    sop19 = solve_reduced(mu, nu, C)
    # SOPOPO's own optimality certificate on Eq. 7: primal - dual (Eq. 16)
    rec["eq7"]["cert"].append(abs(sop7.objective - sop7.dual_objective))
    rec["eq7"]["sop"].append(statistics.median(_per_call_times(
        lambda x=x, y=y, U=U, A=A, B=B: soft_project(x, y, U, A, B, C), repeats,
        min_time)))
    rec["eq19"]["sop"].append(statistics.median(_per_call_times(
        lambda mu=mu, nu=nu: solve_reduced(mu, nu, C), repeats, min_time)))
    calls = {"eq7": ((x, y, U, A, B, C), sop7.objective,
                     0.5 * float(np.sum(U[np.r_[A, B]] ** 2))),
             "eq19": ((mu, nu, C), sop19.objective, 0.5 * float(mu @ mu + nu @ nu))}
    for p, solver in solvers.items():
        r = rec[p]
        if solver.stopped_at is not None or r["status"] != "ok":
            continue
        args, sop_obj, dropped = calls[p]
        value, dt, status = solver.run(args)
        if value is not None:
            cl_obj = value["objective"]
            diff = abs(sop_obj - cl_obj)
            acc = _clarabel_accuracy(cl_obj, dropped)
            r["cl"].append(dt)
            r["cl_solver"].append(value["solve_time_s"])
            r["nit"].append(value["nit"])
            r["rel"].append(_rel(sop_obj, cl_obj))
            r["abs"].append(diff)
            r["acc"].append(acc)
            r["agree"].append(diff <= _OBJ_RTOL * abs(cl_obj) + acc)
        if status != "ok":
            r["status"] = status


def _fig6_row(p, k, trials, r, solver, budget_s) -> Fig6Row:
    """The :class:`Fig6Row` of problem ``p`` ("eq7" or "eq19") at ``k``
    from its records ``r`` (means of the times, largest objective
    differences, Clarabel's status or why it stopped)."""
    sop_mean, sop_sd = mean_sd(r["sop"])
    cl_mean, cl_sd = mean_sd(r["cl"])
    if solver.stopped_at is not None and not r["cl"] and r["status"] == "ok":
        status = solver.skipped_status()
    else:
        status = r["status"]
    lower = None
    if status.startswith("stopped") or status.startswith("skipped"):
        lower = budget_s / sop_mean
    rel = max(r["rel"]) if r["rel"] else None
    n_rel = sum(v > _OBJ_RTOL for v in r["rel"])
    return Fig6Row(
        problem=p, k=k, trials=trials,
        sopopo_s=sop_mean, sopopo_sd_s=sop_sd,
        clarabel_s=cl_mean, clarabel_sd_s=cl_sd,
        clarabel_trials=len(r["cl"]),
        clarabel_solver_s=mean_sd(r["cl_solver"])[0],
        clarabel_nit=int(statistics.median(r["nit"])) if r["nit"] else None,
        ratio=cl_mean / sop_mean if cl_mean is not None else None,
        ratio_solver=(mean_sd(r["cl_solver"])[0] / sop_mean
                      if r["cl_solver"] else None),
        ratio_lower_bound=lower,
        max_rel_obj_diff=rel,
        max_abs_obj_diff=max(r["abs"]) if r["abs"] else None,
        clarabel_accuracy=max(r["acc"]) if r["acc"] else None,
        n_rel_above_1e_6=n_rel if r["rel"] else None,
        objectives_agree=bool(all(r["agree"])) if r["agree"] else None,
        sopopo_pd_gap=max(r["cert"]) if r["cert"] else None,
        clarabel_status=status,
    )


def _fig6_problem_summary(sub: list[Fig6Row]) -> Fig6Problem:
    done = [r for r in sub if r.clarabel_s is not None]
    within = [r.k for r in sub if r.clarabel_status == "ok"]
    stopped = [r.k for r in sub if r.clarabel_status != "ok"
               and not r.clarabel_status.startswith("skipped")]
    ratios = [r.ratio for r in done]
    return Fig6Problem(
        sopopo_s={str(r.k): r.sopopo_s for r in sub},
        clarabel_s={str(r.k): r.clarabel_s for r in done},
        ratio={str(r.k): r.ratio for r in done},
        ratio_solver={str(r.k): r.ratio_solver for r in done},
        ratio_lower_bound={str(r.k): r.ratio_lower_bound for r in sub
                           if r.ratio_lower_bound is not None},
        largest_k_within_budget=max(within) if within else None,
        clarabel_stopped_at_k=stopped[0] if stopped else None,
        max_rel_obj_diff=max((r.max_rel_obj_diff for r in done), default=None),
        slope_sopopo_vs_k=_loglog_slope([r.k for r in sub], [r.sopopo_s for r in sub]),
        slope_clarabel_vs_k=_loglog_slope([r.k for r in done], [r.clarabel_s for r in done]),
        slope_ratio_vs_k=_loglog_slope([r.k for r in done], ratios),
        slope_ratio_solver_vs_k=_loglog_slope([r.k for r in done],
                                              [r.ratio_solver for r in done]),
        ratio_nondecreasing=(all(b >= a for a, b in zip(ratios, ratios[1:]))
                             if len(ratios) > 1 else None),
        ratio_decreases=tuple((done[j].k, done[j + 1].k) for j in range(len(done) - 1)
                              if ratios[j + 1] < ratios[j]))


def _fig6_summary(rows, ks, trials, budget_s, n, C, seed, quick, elapsed) -> Fig6Summary:
    eq7, eq19 = (_fig6_problem_summary([r for r in rows if r.problem == p])
                 for p in ("eq7", "eq19"))
    rels = [r.max_rel_obj_diff for r in rows if r.max_rel_obj_diff is not None]
    r100 = eq19.ratio.get("100")
    slope = eq19.slope_ratio_vs_k
    agree = [r.objectives_agree for r in rows if r.objectives_agree is not None]
    certs = [r.sopopo_pd_gap for r in rows if r.sopopo_pd_gap is not None]
    return Fig6Summary(
        experiment="sopopo-fig6", source=f"{_PAPER}, Sec. 5, Fig. 6",
        n=n, C=C, C_note="the paper does not state C for Fig. 6; C = 1 is used",
        trials=trials, budget_s=budget_s if math.isfinite(budget_s) else None,
        ks=tuple(ks), seed=seed, quick=quick, eq7=eq7, eq19=eq19,
        eq19_ratio_at_k100=r100,
        eq19_ratio_solver_at_k100=eq19.ratio_solver.get("100"),
        target_eq19_ratio_at_k100_ge_100=None if r100 is None else bool(r100 >= 100),
        target_eq19_ratio_grows_with_k=None if slope is None else bool(slope > 0),
        max_rel_obj_diff=max(rels) if rels else None,
        objectives_agree=bool(all(agree)) if agree else None,
        n_trials_rel_above_1e_6=sum(r.n_rel_above_1e_6 or 0 for r in rows),
        n_trials_compared=sum(r.clarabel_trials for r in rows),
        sopopo_max_pd_gap_eq7=max(certs) if certs else None,
        agreement_rule=("|SOPOPO - Clarabel| <= 1e-6 |Clarabel| + 10 * 1e-10 * "
                        "(1 + |Clarabel's objective without the dropped constant|)"),
        elapsed_s=elapsed)


def _fig6_notes(s: Fig6Summary) -> list[str]:
    lines = []
    for d, label in ((s.eq7, "Eq. 7 (original)"), (s.eq19, "Eq. 19 (reduced)")):
        ratios = ", ".join(f"k={k}: {v:.0f}x" for k, v in d.ratio.items())
        lines.append(f"{label}: Clarabel/SOPOPO {ratios or '-'}")
        solver = ", ".join(f"k={k}: {v:.0f}x" for k, v in d.ratio_solver.items())
        lines.append(f"  Clarabel's own solve time/SOPOPO {solver or '-'}")
        if d.clarabel_stopped_at_k is not None:
            lines.append(f"  Clarabel exceeded the {s.budget_s:g} s budget at k = "
                         f"{d.clarabel_stopped_at_k}; larger k skipped")
        if d.slope_ratio_vs_k is not None:
            decreases = [list(pair) for pair in d.ratio_decreases]
            lines.append(f"  log-log slopes vs k: SOPOPO {d.slope_sopopo_vs_k:.2f}, "
                         f"Clarabel {d.slope_clarabel_vs_k:.2f}, ratio "
                         f"{d.slope_ratio_vs_k:.2f}; ratio decreases between k pairs: "
                         f"{decreases or 'none'}")
    r100 = s.eq19_ratio_at_k100
    if r100 is not None:
        grows = s.target_eq19_ratio_grows_with_k
        lines.append(f"Eq. 19 at k = 100: Fig. 3 is {r100:.0f}x faster than Clarabel; the ratio "
                     f"{'grows' if grows else 'does not grow'} with k (log-log slope)")
    if s.max_rel_obj_diff is not None:
        lines.append(f"objectives: max relative difference SOPOPO vs Clarabel "
                     f"{s.max_rel_obj_diff:.1e}; {s.n_trials_rel_above_1e_6} of "
                     f"{s.n_trials_compared} solves above 1e-6; agreement within 1e-6 "
                     f"or Clarabel's accuracy: {'ok' if s.objectives_agree else 'FAILED'}; "
                     f"SOPOPO's primal - dual on Eq. 7 <= {s.sopopo_max_pd_gap_eq7:.1e}")
    lines.append(f"C = {s.C:g} ({s.C_note}); elapsed {s.elapsed_s:.1f} s")
    return lines


def _fig6_paper_rows(s: Fig6Summary) -> tuple[PaperItem, ...]:
    """The README's paper-vs-polyrank rows of Fig. 6 (left: growth of the
    interior-point time with k; right: where SOPOPO becomes the faster)."""
    data = f"synthetic as in Sec. 5, n = {s.n}, {s.trials} trials per k"
    rows = []
    d7 = s.eq7
    if d7.slope_clarabel_vs_k is not None:
        ks = list(d7.clarabel_s)
        rows.append(PaperItem(
            item="Fig. 6 left (Eq. 7): growth of the time with k, interior point vs SOPOPO",
            paper="LOQO grows significantly; SOPOPO hardly",
            ours=(f"Clarabel ~k^{d7.slope_clarabel_vs_k:.1f} (k = {ks[0]}-{ks[-1]}), "
                  f"SOPOPO ~k^{d7.slope_sopopo_vs_k:.1f}"),
            data=data))
    d19 = s.eq19
    if d19.ratio:
        faster = [int(k) for k, v in d19.ratio.items() if v > 1.0]
        ks = [int(k) for k in d19.ratio]
        where = ("every k measured" if len(faster) == len(ks)
                 else f"k >= {min(faster)}" if faster else "no k measured")
        r100 = d19.ratio.get("100")
        rows.append(PaperItem(
            item="Fig. 6 right (Eq. 19): k beyond which SOPOPO is faster than the interior "
                 "point",
            paper="k > 300 (SOPOPO in Matlab, LOQO native)",
            ours=(f"{where} ({ks[0]}-{ks[-1]}; compiled SOPOPO)"
                  + (f", {r100:.0f}x at k = 100" if r100 is not None else "")),
            data=data))
    return tuple(rows)
