"""Fig. 8 of ``sopopo-label-ranking.txt`` (Sec. 5): the dual increase of every
single update and the primal-dual gap against the number of updates (the
"phase transition" after about m updates).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.sopopo import build_pieces
from polyrank.sopopo import kernels as _kernels
from polyrank.utils import row_arrays
from polyrank.validation import check_int

from .._harness import progress_bar
from ..registry import (
    ExperimentResult,
    PaperItem,
    SourceInfo,
    column,
    fmt_spec,
    record,
    register,
    table_columns,
)
from ._common import _PAPER
from .fig7 import fig7_data

__all__ = ["sopopo_fig8", "Fig8Row", "Fig8TableRow", "Fig8Summary"]


@dataclass(frozen=True)
class Fig8Row:
    """One row of :func:`sopopo_fig8`: the state after one update (one soft
    projection of one example).

    Attributes
    ----------
    iteration : int
        Updates so far, t (0: the start).
    pass_ : int
        The pass, 1-based; 0 at t = 0 (written as ``pass``).
    example : int or None
        0-based index of the updated example (None at t = 0).
    dual_increase : float or None
        The increase of the dual D by this update (Sec. 4.3; None at t = 0).
    dual : float
        D_0 plus the increases so far.
    primal, gap : float or None
        The primal P (Eq. 24) and P - D, where evaluated.
    """

    iteration: int = column("iteration", str)
    pass_: int = column("pass", str, key="pass")
    example: int | None = column()
    dual_increase: float | None = column("dual increase", fmt_spec(".3e"))
    dual: float = column("dual D", fmt_spec(".6f"), order=1)
    primal: float | None = column("primal P", fmt_spec(".6f"), order=1)
    gap: float | None = column("gap P-D", fmt_spec(".3e"), order=1)


@dataclass(frozen=True)
class Fig8TableRow(Fig8Row):
    """A printed row of :func:`sopopo_fig8`: a :class:`Fig8Row` with the
    median dual increase over the ``window`` updates up to it.

    Attributes
    ----------
    window_median_increase : float or None
        That median (None for t < window).
    """

    window_median_increase: float | None = column("median of last window",
                                                  fmt_spec(".3e"), default=None)


@record
class Fig8Summary(SourceInfo):
    """The key figures of :func:`sopopo_fig8` (see its Returns).

    Attributes
    ----------
    k, m, n : int
    C : float
    passes, iterations, gap_every, window : int
    drop_factor : float
    seed : int
    quick : bool
    first_pass_median_increase : float
    median_increase_per_pass : tuple of float
    transition_iteration : int or None
    transition_over_m : float or None
        transition_iteration / m.
    drop_iteration : dict of str to int or None
        Keyed by the factor (``"10"``, ``"100"``).
    gap_at_iteration : dict of str to float
        P - D keyed by the iteration.
    initial_gap, final_gap, final_primal, final_dual : float
    last_pass_median_increase_over_final_gap : float
    min_dual_increase : float
    n_zero_increases : int
    dual_drift : float
        max |D_0 + sum of increases - D| at the evaluations.
    elapsed_s : float
        Seconds.
    paper : tuple of PaperItem
    """

    k: int
    m: int
    n: int
    C: float
    passes: int
    iterations: int
    gap_every: int
    window: int
    drop_factor: float
    seed: int
    quick: bool
    first_pass_median_increase: float
    median_increase_per_pass: tuple
    transition_iteration: int | None
    transition_over_m: float | None
    drop_iteration: dict
    gap_at_iteration: dict
    initial_gap: float
    final_gap: float
    final_primal: float
    final_dual: float
    last_pass_median_increase_over_final_gap: float
    min_dual_increase: float
    n_zero_increases: int
    dual_drift: float
    elapsed_s: float
    paper: tuple = ()


_FIG8_FULL = {"k": 100, "m": 1000, "passes": 5}
_FIG8_QUICK = {"k": 40, "m": 400, "passes": 3}


@register("sopopo-fig8", "batch learning, k = 100, m = 1000: dual increase of every update "
          "and duality gap vs iterations (Sec. 5, Fig. 8)")
def sopopo_fig8(*, k: int | None = None, m: int | None = None, n: int = 100,
                C: float | None = None, passes: int | None = None, gap_every: int = 10,
                drop_factor: float = 100.0, seed: int = 0, quick: bool = False,
                progress: bool = False) -> ExperimentResult:
    """Fig. 8: the increase of the dual per update and the duality gap.

    Runs the procedure of Fig. 5 (random order: a fresh permutation of the
    m pieces every pass, as ``sopopo_batch(..., random_state=seed,
    shrinking=False)``) one
    update at a time by calling the numba kernel
    :func:`polyrank.sopopo._kernels.pass_linear` on one piece per call.
    One iteration is one soft projection of one example, as in the paper
    (whose phase transition comes after about m iterations).  Records the
    dual increase of every update (exact: the kernel's Delta, Sec. 4.3) and,
    every ``gap_every`` updates, at the end of every pass and at the
    printed iterations, the primal (Eq. 24, from F = X W^T, O(mnk)) and
    dual (Eq. 30) objectives by :func:`polyrank.sopopo._kernels.objectives`.

    Parameters
    ----------
    k, m : int, optional
        Labels and examples (default k = 100, m = 1000 as in the paper;
        quick: 40 and 400).
    n : int, default 100
        Dimension.
    C : float, optional
        Default 1/m (as in Fig. 7, whose data Fig. 8 uses).
    passes : int, optional
        Passes over the m pieces (default 5; quick: 3): passes * m
        iterations.
    gap_every : int, default 10
        Evaluate the primal and the gap every this many updates.
    drop_factor : float, default 100
        The transition is where the dual increase falls ``drop_factor``
        times below its first-pass median (see Returns).
    seed : int, default 0
        Seed of the data and of the order.
    quick : bool, default False
        Use the quick defaults for ``k``, ``m`` and ``passes``.
    progress : bool, default False
        Show a tqdm progress bar on stderr.

    Returns
    -------
    ExperimentResult
        ``rows``: one per iteration t = 0..passes*m with ``iteration``,
        ``pass`` (1-based; 0 for t = 0), ``example`` (0-based index of the
        updated example), ``dual_increase`` (None at t = 0), ``dual`` (D_0
        plus the increases so far), ``primal`` and ``gap`` (P - D from
        ``objectives``; None where not evaluated).  ``table_rows``: a
        selection (t = 0, 1, 10, 100, every half pass) with the median
        increase over the ``window`` updates up to t.  ``summary``:
        ``first_pass_median_increase``, ``median_increase_per_pass``,
        ``transition_iteration`` (the first t whose centred window of
        ``window`` = max(1, m // 20) updates has a median increase below
        first-pass median / drop_factor; None if never),
        ``transition_over_m``, ``drop_iteration`` (the same for drops by
        10x and by ``drop_factor``, keyed by the factor),
        ``gap_at_iteration`` (at m, 2 m, 5 m, where run, and the last),
        ``initial_gap``, ``final_gap``,
        ``last_pass_median_increase_over_final_gap`` (the paper's remark
        that the increase becomes tiny relative to the gap),
        ``min_dual_increase``, ``dual_drift`` (max |D_0 + sum of increases
        - D| at the evaluations: the increases are the dual's true
        changes) and the settings.

    Raises
    ------
    ValueError
        On k < 2, m, n, passes or gap_every < 1, C <= 0 or drop_factor <= 1.

    Notes
    -----
    Source: ``sopopo-label-ranking.txt``, Sec. 5, Fig. 8 (the data of
    Fig. 7 with k = 100, m = 1000); Sec. 4.3 for the dual increase.

    Examples
    --------
    >>> res = sopopo_fig8(k=4, m=10, n=3, passes=2)
    >>> len(res.rows), min(r.dual_increase for r in res.rows[1:]) >= 0
    (21, True)
    """
    defaults = _FIG8_QUICK if quick else _FIG8_FULL
    k = check_int(defaults["k"] if k is None else k, "k", 2)
    m = check_int(defaults["m"] if m is None else m, "m")
    n = check_int(n, "n")
    passes = check_int(defaults["passes"] if passes is None else passes, "passes")
    gap_every = check_int(gap_every, "gap_every")
    C = 1.0 / m if C is None else C
    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C: expected a finite number > 0, got {C!r}")
    if not drop_factor > 1:
        raise ValueError(f"drop_factor: expected > 1, got {drop_factor!r}")

    t_start = time.perf_counter()
    bar = progress_bar(passes * m, "sopopo-fig8", progress)
    try:
        with threadpool_limits(limits=1):
            rows, display, drift = _fig8_rows(k, m, n, float(C), passes, gap_every,
                                              seed, bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t_start
    window = max(1, m // 20)
    summary, table_rows = _fig8_summary(rows, display, drift, k, m, n, float(C), passes,
                                        gap_every, window, float(drop_factor), seed,
                                        quick, elapsed)
    t_m = summary.transition_over_m
    summary = dataclasses.replace(summary, paper=(PaperItem(
        item=f"Fig. 8: the dual increase per update collapses (a {drop_factor:g}x drop of its "
             "median) after",
        paper="about m updates (one pass)",
        ours="no drop" if t_m is None else f"{t_m:.3f} m",
        data=f"synthetic as in Sec. 5, k = {k}, m = {m}, n = {n}"),))
    columns = table_columns(Fig8TableRow,
                            headers={"window_median_increase": f"median of last {window}"})
    return ExperimentResult(
        name="sopopo-fig8",
        title=(f"Fig. 8 ({_PAPER}, Sec. 5): SOPOPO batch (Fig. 5), k = {k}, m = {m}, "
               f"n = {n}, C = {C:g}; one iteration = one example's soft projection"),
        rows=rows, summary=summary, columns=columns, table_rows=table_rows,
        notes=_fig8_notes(summary))


def _fig8_display_iterations(m: int, total: int) -> list[int]:
    its = {0, total}
    p = 1
    while p < min(m, total):
        its.add(p)
        p *= 10
    half = max(1, m // 2)
    its.update(range(half, total + 1, half))
    return sorted(t for t in its if t <= total)


def _fig8_rows(k, m, n, C, passes, gap_every, seed, bar):
    rng = np.random.default_rng(seed)
    X, Y = fig7_data(rng, k, m, n)
    pieces = build_pieces(Y, "top_vs_rest", False, C)
    P = pieces.n_pieces
    alpha = np.zeros(pieces.A_idx.size)
    beta = np.zeros(pieces.B_idx.size)
    W = np.zeros((k, n))
    sqnorm = np.einsum("ij,ij->i", X, X)
    xrows = _kernels.Instances(*row_arrays(X), sqnorm)
    parr = _kernels.PieceArrays(pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx,
                                pieces.B_ptr, pieces.B_idx, alpha, beta)
    total = passes * P
    display = _fig8_display_iterations(P, total)
    show = set(display)

    def evaluate():
        F = X @ W.T
        return _kernels.objectives(F, Y, parr, float(np.sum(W * W)))

    primal, dual = evaluate()
    rows = [Fig8Row(iteration=0, pass_=0, example=None, dual_increase=None,
                    dual=float(dual), primal=float(primal), gap=float(primal - dual))]
    dual_run = float(dual)
    drift = 0.0
    # the order of sopopo_batch(random_state=seed, shrinking=False)
    order_rng = np.random.default_rng(seed)
    t = 0
    for p in range(1, passes + 1):
        perm = order_rng.permutation(P)
        for j in range(P):
            inc, _, _ = _kernels.pass_linear(xrows, Y, W, perm[j:j + 1], parr)
            t += 1
            dual_run += inc
            primal = gap = None
            if t % gap_every == 0 or j == P - 1 or t in show:
                primal, dual = evaluate()
                primal, gap = float(primal), float(primal - dual)
                drift = max(drift, abs(dual_run - dual))
            rows.append(Fig8Row(iteration=t, pass_=p, example=int(pieces.example[perm[j]]),
                                dual_increase=float(inc), dual=dual_run, primal=primal,
                                gap=gap))
            if t % 100 == 0 or t == total:
                bar.update(t - bar.n)
        bar.set_postfix_str(f"pass {p}")
    return rows, display, drift


def _fig8_summary(rows, display, drift, k, m, n, C, passes, gap_every, window,
                  drop_factor, seed, quick, elapsed):
    inc = np.array([r.dual_increase for r in rows[1:]])
    total = inc.size
    per_pass = [float(np.median(inc[j * m:(j + 1) * m])) for j in range(passes)]
    first = per_pass[0]
    drops = {}
    if total >= window:
        med = np.median(np.lib.stride_tricks.sliding_window_view(inc, window), axis=1)
        # med[j] covers iterations j+1 .. j+window; centred at t = j + 1 + window // 2
        for factor in sorted({10.0, drop_factor}):
            below = np.flatnonzero(med < first / factor)
            drops[f"{factor:g}"] = int(below[0] + 1 + window // 2) if below.size else None
    transition = drops.get(f"{drop_factor:g}")
    gaps = {r.iteration: r.gap for r in rows if r.gap is not None}
    gap_at = {str(t): gaps[t] for t in (m, 2 * m, 5 * m) if t in gaps}
    gap_at[str(total)] = gaps[total]
    table_rows = []
    for t in display:
        median = float(np.median(inc[t - window:t])) if t >= window else None
        table_rows.append(Fig8TableRow(**dataclasses.asdict(rows[t]),
                                       window_median_increase=median))
    final_gap = gaps[total]
    summary = Fig8Summary(
        experiment="sopopo-fig8", source=f"{_PAPER}, Sec. 5, Fig. 8",
        k=k, m=m, n=n, C=C, passes=passes, iterations=total,
        gap_every=gap_every, window=window, drop_factor=drop_factor,
        seed=seed, quick=quick,
        first_pass_median_increase=first,
        median_increase_per_pass=tuple(per_pass),
        transition_iteration=transition,
        transition_over_m=None if transition is None else transition / m,
        drop_iteration=drops,
        gap_at_iteration=gap_at,
        initial_gap=rows[0].gap, final_gap=final_gap,
        final_primal=rows[-1].primal, final_dual=rows[-1].dual,
        last_pass_median_increase_over_final_gap=per_pass[-1] / final_gap,
        min_dual_increase=float(inc.min()),
        n_zero_increases=int(np.sum(inc == 0.0)),
        dual_drift=float(drift),
        elapsed_s=elapsed,
    )
    return summary, table_rows


def _fig8_notes(s: Fig8Summary) -> list[str]:
    lines = ["median dual increase per pass: "
             + ", ".join(f"{v:.2e}" for v in s.median_increase_per_pass)]
    if s.transition_iteration is not None:
        lines.append(f"phase transition: the median increase (window {s.window}) first "
                     f"falls {s.drop_factor:g}x below its first-pass median at iteration "
                     f"{s.transition_iteration} = {s.transition_over_m:.3f} m "
                     f"(paper: after about m = {s.m} iterations); a 10x drop at "
                     f"iteration {s.drop_iteration.get('10')}")
    else:
        lines.append(f"no {s.drop_factor:g}x drop of the dual increase within "
                     f"{s.iterations} iterations")
    lines.append("duality gap at iteration " + ", ".join(
        f"{t}: {v:.3e}" for t, v in s.gap_at_iteration.items())
        + f" (start {s.initial_gap:.3g})")
    lines.append(f"last pass: median increase / gap = "
                 f"{s.last_pass_median_increase_over_final_gap:.1e}; min increase "
                 f"{s.min_dual_increase:.2e}; dual drift {s.dual_drift:.1e}; "
                 f"elapsed {s.elapsed_s:.1f} s")
    return lines
