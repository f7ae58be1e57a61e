"""Run-time of a single soft projection: SOPOPO against Clarabel and sort.

Reproduces the set-up of Fig. 6 (right) of ``sopopo-label-ranking.txt``
(Sec. 5): SOPOPO (Fig. 3) against a general interior-point QP solver given
the *reduced* problem Eq. 19. The paper used LOQO; we use Clarabel through
:func:`polyrank.sopopo.reference.reduced_qp`. Because SOPOPO is
``Theta(k log k)`` (dominated by sorting, Sec. 3.4), the time of ``np.sort``
on ``k`` numbers is reported as a second, machine-independent baseline.

Following ``DESIGN.md``, speed is reported as ratios against baselines
measured in the same run, never asserted in tests.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.sopopo import soft_project, solve_reduced
from polyrank.sopopo.reference import reduced_qp

from ..registry import column, fmt_spec, fmt_time, format_rows, table_columns

__all__ = ["bench_sopopo", "format_table", "SopopoBenchRow"]



@dataclass(frozen=True)
class SopopoBenchRow:
    """One row of :func:`bench_sopopo`: the times at one k (medians over
    trials of seconds per call) and their ratios.

    Attributes
    ----------
    k : int
        Number of labels.
    sopopo_s : float
        ``soft_project`` (all of Eq. 7: the O(k n) inner products, Fig. 3
        and the update of W), seconds.
    sopopo_reduced_s : float
        ``solve_reduced`` (Fig. 3 on Eq. 19), seconds.
    clarabel_s : float
        Clarabel on Eq. 19, wall seconds.
    clarabel_solver_s : float
        Clarabel's own solve time, seconds.
    sort_s : float
        ``np.sort`` of the k margins, seconds.
    ratio_clarabel : float
        clarabel_s / sopopo_s.
    ratio_sort : float
        sopopo_s / sort_s.
    ratio_clarabel_reduced : float
        clarabel_s / sopopo_reduced_s (both on Eq. 19).
    ratio_sort_reduced : float
        sopopo_reduced_s / sort_s.
    obj_diff : float
        Max over trials of |SOPOPO's objective of Eq. 19 - Clarabel's|.
    z_diff : float
        Max |z_SOPOPO - z_Clarabel|.
    clarabel_nit : int
        Median interior-point iterations.
    trials : int
        Random problems per k.
    """

    k: int = column("k", str)
    sopopo_s: float = column("sopopo", fmt_time)
    sopopo_reduced_s: float = column("sopopo19", fmt_time)
    clarabel_s: float = column("clarabel", fmt_time)
    clarabel_solver_s: float = column("cl.solve", fmt_time)
    sort_s: float = column("sort", fmt_time)
    ratio_clarabel: float = column("cl/sop", fmt_spec(".1f"))
    ratio_sort: float = column("sop/sort", fmt_spec(".1f"))
    ratio_clarabel_reduced: float = column("cl/sop19", fmt_spec(".1f"))
    ratio_sort_reduced: float = column("sop19/sort", fmt_spec(".1f"))
    obj_diff: float = column("obj_diff", fmt_spec(".1e"))
    z_diff: float = column()
    clarabel_nit: int = column()
    trials: int = column()


def _per_call_times(fn: Callable[[], object], repeats: int,
                    min_time: float) -> list[float]:
    """Seconds per call of ``fn``: ``repeats`` timings of a loop whose length
    is chosen like :meth:`timeit.Timer.autorange` (1, 2, 5, 10, 20, ...
    calls until one loop takes at least ``min_time``), after a warm-up
    call."""
    fn()                                     # warm-up (numba compile, caches)
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            break
        # 1, 2, 5, 10, 20, 50, ...
        number = number * 5 // 2 if str(number)[0] == "2" else number * 2
    times = [dt / number]
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return times


def _fig6_problem(rng: np.random.Generator, k: int, n: int):
    """The data of Fig. 6: A = the first k/2 labels, B = the rest, the
    target y = 1 (the paper's gamma) on A and 0 on B, x and every u_r drawn
    from N(0, I_n)."""
    A = np.arange(k // 2, dtype=np.int64)
    B = np.arange(k // 2, k, dtype=np.int64)
    y = np.zeros(k)
    y[A] = 1.0
    x = rng.standard_normal(n)
    U = rng.standard_normal((k, n))
    return x, y, U, A, B


def bench_sopopo(ks: Sequence[int] = (10, 100, 1000, 10000), repeats: int = 7,
                 seed: int = 0, *, n: int = 100, C: float = 1.0,
                 trials: int = 3, min_time: float = 0.02,
                 tol: float = 1e-8) -> tuple[SopopoBenchRow, ...]:
    """Time SOPOPO's soft projection against Clarabel and ``np.sort``.

    For each ``k`` and each of ``trials`` random problems (Fig. 6 data: see
    Notes), times

    * ``polyrank.sopopo.soft_project(x, y, U, A, B, C)`` -- the whole
      soft projection of Eq. 7 (margins, knot search, update of W);
    * ``polyrank.sopopo.reference.reduced_qp(mu, nu, C)`` -- Clarabel on
      the reduced problem Eq. 19 for the same ``mu``, ``nu`` (wall time,
      including building the sparse matrices; Clarabel's own solve time is
      reported separately);
    * ``polyrank.sopopo.solve_reduced(mu, nu, C)`` -- SOPOPO on the
      reduced problem alone (the same input as Clarabel's: Fig. 6 right);
    * ``np.sort`` of ``k`` floats (the margins).

    Each time is the median over ``repeats`` loops of a timeit-style
    autoranged number of calls (each loop >= ``min_time`` seconds), after a
    warm-up call; the row reports the median over trials.

    Parameters
    ----------
    ks : sequence of int, default (10, 100, 1000, 10000)
        Numbers of labels, each >= 2.
    repeats : int, default 7
        Timing loops per measurement (>= 1).
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`.
    n : int, default 100
        Dimension of x and u_y (the paper's 100).
    C : float, default 1.0
        The bound C of Eq. 7 / Eq. 19 (not stated in the paper for Fig. 6).
    trials : int, default 3
        Independent random problems per k (the paper used ten).
    min_time : float, default 0.02
        Minimal duration of one timing loop, in seconds.
    tol : float, default 1e-8
        Clarabel's gap and feasibility tolerances (its defaults); the
        ``obj_diff`` column shows that both solve the same problem.

    Returns
    -------
    tuple of SopopoBenchRow
        One row per k: the times of ``soft_project``, ``solve_reduced``,
        Clarabel (wall and its own solve time) and ``np.sort``, their
        ratios, ``obj_diff`` = max over trials of |SOPOPO's reduced
        objective - Clarabel's| (the objective of Eq. 19, ``1/2||alpha -
        mu||^2 + 1/2||beta - nu||^2``, at each solver's alpha, beta),
        ``z_diff`` and Clarabel's iterations (see :class:`SopopoBenchRow`).

    Raises
    ------
    ValueError
        If a ``k < 2``, ``repeats``, ``trials`` or ``n`` < 1, ``C <= 0`` or
        ``min_time < 0``.
    RuntimeError
        If Clarabel fails on a problem.

    Notes
    -----
    Source: ``sopopo-label-ranking.txt``, Sec. 5, Fig. 6 (right): ``A =
    [k/2]``, ``B = [k] \\ [k/2]``, the target ``y_r = 1`` (the paper's
    gamma) on A and 0 on B, x and u_1..u_k from a 100-dimensional standard
    normal; SOPOPO is Fig. 3, the reduced problem Eq. 19.

    Examples
    --------
    >>> rows = bench_sopopo(ks=(10,), repeats=1, trials=1, min_time=0.0)
    >>> rows[0].k, rows[0].obj_diff < 1e-6
    (10, True)
    """
    ks = [int(k) for k in ks]
    if any(k < 2 for k in ks):
        raise ValueError(f"ks: every k must be >= 2, got {ks}")
    for name, value in (("repeats", repeats), ("trials", trials), ("n", n)):
        if int(value) != value or value < 1:
            raise ValueError(f"{name}: expected an int >= 1, got {value!r}")
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C: expected a finite number > 0, got {C!r}")
    if not min_time >= 0:
        raise ValueError(f"min_time: expected >= 0, got {min_time!r}")

    # every solver here is single-threaded: time BLAS (U @ x) on one thread
    # too, which also keeps OpenBLAS from spinning on a busy machine
    with threadpool_limits(limits=1):
        return _bench_rows(ks, repeats, seed, n, C, trials, min_time, tol)


def _bench_rows(ks, repeats, seed, n, C, trials, min_time, tol):
    rng = np.random.default_rng(seed)
    rows = []
    for k in ks:
        t_sop, t_red, t_cla, t_cla_solver, t_sort, nits = [], [], [], [], [], []
        obj_diff = z_diff = 0.0
        for _ in range(trials):
            x, y, U, A, B = _fig6_problem(rng, k, n)
            sq = float(x @ x)
            f = U @ x
            mu = (y[A] - f[A]) / sq
            nu = (f[B] - y[B]) / sq
            values = np.r_[mu, nu]

            t_sop.append(statistics.median(_per_call_times(
                lambda x=x, y=y, U=U, A=A, B=B: soft_project(x, y, U, A, B, C), repeats,
                min_time)))
            t_red.append(statistics.median(_per_call_times(
                lambda mu=mu, nu=nu: solve_reduced(mu, nu, C), repeats, min_time)))
            solver_times = []

            def clarabel_call(mu=mu, nu=nu, solver_times=solver_times):
                r = reduced_qp(mu, nu, C, tol=tol)
                solver_times.append(r.solve_time_s)
                return r

            t_cla.append(statistics.median(_per_call_times(
                clarabel_call, repeats, min_time)))
            t_cla_solver.append(statistics.median(solver_times))
            t_sort.append(statistics.median(_per_call_times(
                lambda values=values: np.sort(values), repeats, min_time)))

            sop = soft_project(x, y, U, A, B, C)
            ref = reduced_qp(mu, nu, C, tol=tol)
            nits.append(ref.nit)
            sop_obj = 0.5 * (np.sum((sop.alpha - mu) ** 2)
                             + np.sum((sop.beta - nu) ** 2))
            obj_diff = max(obj_diff, abs(float(sop_obj) - ref.objective))
            z_diff = max(z_diff, abs(float(sop.z) - ref.z))
        sopopo_s = statistics.median(t_sop)
        clarabel_s = statistics.median(t_cla)
        sort_s = statistics.median(t_sort)
        reduced_s = statistics.median(t_red)
        rows.append(SopopoBenchRow(
            k=k, sopopo_s=sopopo_s, sopopo_reduced_s=reduced_s, clarabel_s=clarabel_s,
            clarabel_solver_s=statistics.median(t_cla_solver), sort_s=sort_s,
            ratio_clarabel=clarabel_s / sopopo_s, ratio_sort=sopopo_s / sort_s,
            ratio_clarabel_reduced=clarabel_s / reduced_s,
            ratio_sort_reduced=reduced_s / sort_s, obj_diff=obj_diff, z_diff=z_diff,
            clarabel_nit=int(statistics.median(nits)), trials=trials))
    return tuple(rows)


def format_table(rows: Sequence[dict]) -> str:
    """Format the rows of :func:`bench_sopopo` as a plain-text table.

    Parameters
    ----------
    rows : sequence of SopopoBenchRow or dict
        As returned by :func:`bench_sopopo` (or dicts with its keys;
        columns missing from a row are shown as ``-``).

    Returns
    -------
    str
        A header line, a rule and one right-aligned line per row; times in
        s/ms/us/ns, ratios with one decimal. Columns: ``sopopo``
        (``soft_project``), ``sopopo19`` (``solve_reduced``), ``clarabel``
        (wall time of ``reduced_qp``), ``cl.solve`` (Clarabel's own solve
        time), ``sort`` (``np.sort`` of k numbers), ``cl/sop``
        (clarabel/sopopo), ``sop/sort`` (sopopo/sort), ``cl/sop19``
        (clarabel/sopopo19), ``sop19/sort`` (sopopo19/sort) and ``obj_diff``.

    Examples
    --------
    >>> print(format_table([{"k": 10, "sopopo_s": 2e-6, "clarabel_s": 1e-4,
    ...                      "ratio_clarabel": 50.0}]))
     k  sopopo  sopopo19  clarabel  cl.solve  sort  cl/sop  sop/sort  cl/sop19  sop19/sort  obj_diff
    --  ------  --------  --------  --------  ----  ------  --------  --------  ----------  --------
    10    2 us         -    100 us         -     -    50.0         -         -           -         -
    """
    return format_rows(rows, table_columns(SopopoBenchRow))
