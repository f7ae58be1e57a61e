"""``polyrank bench sopopo-many-labels``: the SOPOPO batch solver
(``sopopo-label-ranking.txt``, Sec. 4, Fig. 5, with shrinking) when the
preference graphs are large.

With ``decomposition="all_pairs"`` every edge (a, b) of an example's
preference graph is a piece of its own (Fig. 2 top); a multi-label example
with half of its k labels relevant has k^2 / 4 edges, so k = 1000 labels and
24 examples make 6,000,000 pieces.  Their soft projections have a closed
form (:func:`polyrank.sopopo._kernels.pair_step`) and the shrinking pass
visits them in segments of one example, computing the label scores once per
segment (:func:`polyrank.sopopo._kernels.pass_pairs_shrink`).  This bench measures,
on the same data and in the same run (one thread):

* k = 200: seconds per pass of ``all_pairs`` against ``top_vs_rest`` (one
  piece per example: the relevant labels against the rest), and their
  ratio; nanoseconds per edge; passes and seconds of ``all_pairs`` to a
  relative duality gap of 1e-3;
* k = 1000: the wall time of 50 passes of ``all_pairs`` (and of
  ``top_vs_rest`` beside it), and the peak memory of the solve (numpy
  arrays, by :mod:`tracemalloc`) in bytes per edge.

Following ``DESIGN.md``, speed is reported as ratios against a baseline timed
in the same run, never asserted in tests.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.sopopo import sopopo_batch

from ..registry import ExperimentResult, RepeatedBench, column, fmt_spec, record, register_bench

__all__ = ["many_labels_problem", "bench_sopopo_many_labels", "ManyLabelsRow",
           "ManyLabelsSummary"]


def _thousands(v) -> str:
    return f"{v:,}"


@dataclass(frozen=True)
class ManyLabelsRow:
    """One (k, decomposition) of :func:`bench_sopopo_many_labels`.

    Attributes
    ----------
    k : int
        Labels.
    decomposition : str
        ``"all_pairs"`` or ``"top_vs_rest"``.
    pieces : int
        Pieces of the decomposition.
    edges : int
        Edges of the preference graphs.
    passes : int
        Passes done.
    seconds : float
        Wall seconds of ``sopopo_batch``.
    s_per_pass : float
        Seconds per pass.
    ns_per_edge_pass : float
        Nanoseconds per edge and pass.
    rel_gap : float
        Duality gap / primal at the end.
    """

    k: int = column("k")
    decomposition: str = column("decomposition")
    pieces: int = column("pieces", _thousands)
    edges: int = column("edges", _thousands)
    passes: int = column("passes")
    seconds: float = column("seconds", fmt_spec(".3f"))
    s_per_pass: float = column("s per pass", fmt_spec(".5f"))
    ns_per_edge_pass: float = column("ns per edge-pass", fmt_spec(".1f"))
    rel_gap: float = column("rel. gap", fmt_spec(".2g"))


@record
class ManyLabelsSummary(RepeatedBench):
    """The key figures of :func:`bench_sopopo_many_labels`.

    Attributes
    ----------
    C : float
    passes, k_small, k_large : int
    ratio_k_small, ratio_k_large : float
        all_pairs / top_vs_rest seconds per pass.
    large_seconds : float
        Seconds of all_pairs at k_large.
    peak_bytes : int
        Peak numpy memory of the all_pairs solve at k_large, bytes.
    tol_1e_3_passes : int
        Passes of all_pairs at k_small to a relative gap of 1e-3 (written
        as ``tol_1e-3_passes``, as the two next).
    tol_1e_3_seconds : float
        Their seconds.
    tol_1e_3_converged : bool
    bytes_per_edge : float
        peak_bytes / edges at k_large.
    rows : tuple of ManyLabelsRow
    """

    C: float
    passes: int
    k_small: int
    k_large: int
    ratio_k_small: float
    ratio_k_large: float
    large_seconds: float
    peak_bytes: int
    tol_1e_3_passes: int = column(key="tol_1e-3_passes")
    tol_1e_3_seconds: float = column(key="tol_1e-3_seconds")
    tol_1e_3_converged: bool = column(key="tol_1e-3_converged")
    bytes_per_edge: float = column()
    rows: tuple = column()


def many_labels_problem(k: int, m: int = 24, n: int = 50, seed: int = 0):
    """Multi-label data with k labels, half of them relevant in every row.

    x_i ~ N(0, I_n); the scores x_i . v_r + e_ir (v_r ~ N(0, I_n), e_ir ~
    N(0, 1)) above their row's median are the relevant labels (target 1),
    the rest irrelevant (0), so each row's preference graph (Sec. 2, Fig. 1)
    has |E_i| = |relevant| |irrelevant| = k^2 / 4 edges for even k, the most
    a 0/1 row can have.

    Parameters
    ----------
    k : int
        Number of labels (>= 2).
    m : int, default=24
        Number of examples.
    n : int, default=50
        Number of features.
    seed : int, default=0

    Returns
    -------
    X : ndarray, shape (m, n)
    Y : ndarray, shape (m, k)
        0/1 targets.

    Raises
    ------
    ValueError
        If k < 2, m < 1 or n < 1; one message names the three values.

    Examples
    --------
    >>> X, Y = many_labels_problem(10, m=3, n=4)
    >>> X.shape, Y.shape, Y.sum(axis=1).tolist()
    ((3, 4), (3, 10), [5.0, 5.0, 5.0])
    """
    if k < 2 or m < 1 or n < 1:
        raise ValueError(f"k, m, n: expected k >= 2, m >= 1, n >= 1, got {k}, {m}, {n}")
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    S = X @ rng.standard_normal((k, n)).T + rng.standard_normal((m, k))
    Y = (S > np.median(S, axis=1, keepdims=True)).astype(float)
    return X, Y


def _timed_solve(X, Y, decomposition, passes, seed, C):
    t0 = time.perf_counter()
    res = sopopo_batch(X, Y, C, decomposition=decomposition, tol=1e-15, max_iter=passes,
                       random_state=seed)
    return time.perf_counter() - t0, res


def _per_pass(X, Y, passes, repeats, seed, C):
    """Median seconds of ``passes`` passes of each decomposition, the two
    alternating; returns {decomposition: (seconds, passes done, result)}."""
    times = {"all_pairs": [], "top_vs_rest": []}
    out = {}
    for _ in range(repeats):
        for dec in times:
            t, res = _timed_solve(X, Y, dec, passes, seed, C)
            times[dec].append(t)
            out[dec] = res
    return {dec: (statistics.median(t), int(out[dec].nit), out[dec]) for dec, t in times.items()}


def _peak_memory(X, Y, seed, C):
    """Peak bytes of numpy arrays during a solve of all_pairs (two passes: the
    arrays are all allocated before the first pass ends)."""

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        res = sopopo_batch(X, Y, C, decomposition="all_pairs", max_iter=2, random_state=seed)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, res.dual["pieces"].n_pieces


@register_bench("sopopo-many-labels")
def bench_sopopo_many_labels(*, quick: bool = False, seed: int = 0, progress: bool = False,
                             repeats: int | None = None, C: float = 1.0,
                             passes: int = 50, k_small: int = 200,
                             k_large: int = 1000) -> ExperimentResult:
    """Time the SOPOPO batch solver on large preference graphs.

    On :func:`many_labels_problem` (24 examples, 50 features, half of the
    labels relevant), ``sopopo_batch(X, Y, C, decomposition=..., tol=1e-15,
    max_iter=passes)`` with its defaults otherwise (shrinking, shuffled
    order): the seconds per pass (wall time of the call, building the
    pieces and the duality-gap checks included, divided by the passes done)
    of ``all_pairs`` and ``top_vs_rest`` at ``k_small`` labels, alternating
    repeats, median; the passes and time of ``all_pairs`` at ``k_small`` to
    a relative duality gap of 1e-3; then ``passes`` passes of both at
    ``k_large`` labels
    (once), and the peak of the numpy memory of an ``all_pairs`` solve at
    ``k_large`` (:mod:`tracemalloc`).

    Parameters
    ----------
    quick : bool
        k_large = 500 and 20 passes (k_small unchanged), one repeat.
    seed : int
        Seed of the data and of the piece order.
    progress : bool
        Unused.
    repeats : int, optional
        Timing repeats at k_small (default 3, quick 1).
    C : float, default=1.0
    passes : int, default=50
    k_small, k_large : int, default 200 and 1000

    Returns
    -------
    ExperimentResult
        rows: a :class:`ManyLabelsRow` per (k, decomposition): ``k``, ``decomposition``,
        ``edges`` (pieces), ``passes``, ``seconds``, ``s_per_pass``,
        ``ns_per_edge_pass``, ``rel_gap``; summary: a
        :class:`ManyLabelsSummary`, ``ratio_k_small``
        (all_pairs / top_vs_rest seconds per pass), ``large_seconds``,
        ``peak_bytes``, ``bytes_per_edge``, the passes and seconds of
        ``all_pairs`` at ``k_small`` to a relative gap of 1e-3
        (``tol_1e-3_*``) and the rows.

    Raises
    ------
    ValueError
        If a size or ``passes`` is below 1 (k below 2).
    """

    if passes < 1:
        raise ValueError(f"passes: expected >= 1, got {passes}")
    if quick:
        k_large = min(k_large, 500)
        passes = min(passes, 20)
    repeats = (1 if quick else 3) if repeats is None else int(repeats)
    with threadpool_limits(1):
        Xs, Ys = many_labels_problem(k_small, seed=seed)
        _per_pass(Xs[:3], Ys[:3, :10], 2, 1, seed, C)          # compile outside the timing
        small = _per_pass(Xs, Ys, passes, repeats, seed, C)
        t0 = time.perf_counter()
        conv = sopopo_batch(Xs, Ys, C, decomposition="all_pairs", tol=1e-3,
                            max_iter=100_000, random_state=seed)
        conv_s = time.perf_counter() - t0
        Xl, Yl = many_labels_problem(k_large, seed=seed)
        large = {dec: _timed_solve(Xl, Yl, dec, passes, seed, C)
                 for dec in ("all_pairs", "top_vs_rest")}
        peak, edges_large = _peak_memory(Xl, Yl, seed, C)
    rows = _many_rows(((k_small, Ys, {d: (t, r) for d, (t, _, r) in small.items()}),
                       (k_large, Yl, large)))
    return _many_result(rows, k_small, k_large, conv, conv_s, peak, edges_large, quick,
                        repeats, C, passes)


def _many_rows(runs_by_k) -> list:
    """One :class:`ManyLabelsRow` per (k, decomposition) of ``runs_by_k``, a
    sequence of (k, Y, {decomposition: (seconds, result)})."""
    rows = []
    for k, Y, runs in runs_by_k:
        rel = Y.sum(axis=1)
        E = int(np.sum(rel * (k - rel)))        # edges of the preference graphs
        for dec, (t, res) in runs.items():
            rows.append(ManyLabelsRow(
                k=k, decomposition=dec, pieces=res.dual["pieces"].n_pieces, edges=E,
                passes=int(res.nit), seconds=t, s_per_pass=t / res.nit,
                ns_per_edge_pass=1e9 * t / res.nit / E,
                rel_gap=float(res.gap / res.primal_objective)))
    return rows


def _many_result(rows, k_small, k_large, conv, conv_s, peak, edges_large, quick, repeats,
                 C, passes) -> ExperimentResult:
    """The :class:`ExperimentResult` of :func:`bench_sopopo_many_labels`:
    the per-pass ratios, the notes and the summary."""
    by = {(r.k, r.decomposition): r for r in rows}
    ratio = by[k_small, "all_pairs"].s_per_pass / by[k_small, "top_vs_rest"].s_per_pass
    ratio_large = by[k_large, "all_pairs"].s_per_pass / by[k_large, "top_vs_rest"].s_per_pass
    big = by[k_large, "all_pairs"]
    notes = [
        f"k = {k_small}: a pass of all_pairs ({by[k_small, 'all_pairs'].edges:,} "
        f"single-edge pieces) takes {by[k_small, 'all_pairs'].s_per_pass * 1e3:.2f} ms, "
        f"{ratio:.1f}x the {by[k_small, 'top_vs_rest'].s_per_pass * 1e3:.2f} ms of "
        f"top_vs_rest (24 pieces) on the same data (within 20x: "
        f"{'yes' if ratio <= 20 else 'no'}); "
        f"{by[k_small, 'all_pairs'].ns_per_edge_pass:.0f} ns per edge and pass; "
        f"to a relative duality gap of 1e-3 (tol=1e-3): {conv.nit} passes, {conv_s:.2f} s"
        + ("" if conv.success else f" (stopped: {conv.status})"),
        f"k = {k_large}: {big.passes} passes of all_pairs over {big.edges:,} edges in "
        f"{big.seconds:.1f} s (under a minute: {'yes' if big.seconds < 60 else 'no'}; "
        f"{big.ns_per_edge_pass:.0f} ns per edge and pass, relative gap "
        f"{big.rel_gap:.2g}); top_vs_rest {by[k_large, 'top_vs_rest'].seconds:.1f} s "
        f"({ratio_large:.1f}x per pass)",
        f"k = {k_large}: peak memory of the all_pairs solve {peak / 1e6:.0f} MB of numpy "
        f"arrays = {peak / edges_large:.0f} bytes per edge (pieces, alpha, beta, active "
        f"set; O(m k + |E|))",
        f"24 examples x 50 features, half of the labels relevant, C = {C:g}, shrinking "
        f"(the default), tol=1e-15 so that every pass runs; seconds = wall time of "
        f"sopopo_batch (building the pieces and the gap checks included) / passes, "
        f"median of {repeats} alternating repeat(s) at k = {k_small}; one thread",
    ]
    summary = ManyLabelsSummary(
        bench="sopopo-many-labels", quick=quick, repeats=repeats, C=C, passes=passes,
        k_small=k_small, k_large=k_large, ratio_k_small=ratio, ratio_k_large=ratio_large,
        large_seconds=big.seconds, peak_bytes=int(peak), tol_1e_3_passes=int(conv.nit),
        tol_1e_3_seconds=conv_s, tol_1e_3_converged=bool(conv.success),
        bytes_per_edge=peak / edges_large, rows=tuple(rows))
    return ExperimentResult("sopopo-many-labels", "SOPOPO all_pairs with many labels: "
                            "closed-form single-edge pieces, visited in segments of one "
                            "example, vs top_vs_rest on the same data", rows, summary,
                            notes=notes)
