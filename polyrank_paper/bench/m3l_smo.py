"""``polyrank bench m3l-rows-smo``: the kernel M3L SMO (Alg. 1 of
``m3l-multilabel-zero-shot.txt``, an LRU cache of kernel rows) with and
without LIBSVM's shrinking, against one-vs-rest SVC, on resampled yeast
rows.

``M3LClassifier(solver="smo")`` with a kernel cache of a tenth of the Gram
matrix forces the path taken when the Gram matrix does not fit the cache
(``method="auto"`` would otherwise pick the coordinate ascent on the whole
Gram matrix at these sizes). Speed is reported as ratios against fits timed
in the same run (interleaved repeats, medians), never asserted in tests.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from polyrank.m3l import M3LClassifier
from polyrank.validation import check_int, check_positive

from .._harness import cpu_time, progress_bar
from ..registry import (
    BenchRunInfo,
    ExperimentResult,
    column,
    fmt_spec,
    record,
    register_bench,
    speed_phrase,
)
from .m3l_labels import yeast_rows

__all__ = ["bench_m3l_rows_smo", "M3LSmoRow", "M3LSmoSummary"]


@dataclass(frozen=True)
class M3LSmoRow:
    """One training-set size of :func:`bench_m3l_rows_smo`.

    Attributes
    ----------
    N : int
        Training rows.
    cache_rows : int
        Kernel rows the SMO's LRU cache holds.
    shrink_s, plain_s, svc_s : float
        Median CPU seconds of the SMO with shrinking, without (the paper's
        Alg. 1) and of one-vs-rest SVC.
    plain_vs_shrink : float
        plain_s / shrink_s (the speed-up of shrinking).
    shrink_vs_svc : float
        shrink_s / svc_s (the issue's target: at most 1).
    hamming_shrink, hamming_plain, hamming_svc : float
        Test Hamming losses (fractions).
    dual_shrink, dual_plain : float
        M3L's dual objectives D2 (the same problem, the same tol).
    n_shrunk, n_unshrink : int
        Examples shrunk (summed over the shrinkings) and gradient
        reconstructions of the shrinking fit.
    misses_shrink, misses_plain : int
        Kernel rows computed by the two M3L fits.
    """

    N: int = column("N", str)
    cache_rows: int = column("cache rows", str)
    shrink_s: float = column("SMO shrink s", fmt_spec(".2f"))
    plain_s: float = column("SMO plain s", fmt_spec(".2f"))
    svc_s: float = column("1-vs-rest SVC s", fmt_spec(".2f"))
    plain_vs_shrink: float = column("plain/shrink", fmt_spec(".2f"))
    shrink_vs_svc: float = column("shrink/SVC", fmt_spec(".3f"))
    hamming_shrink: float = column("Hamming shrink", fmt_spec(".4f"))
    hamming_plain: float = column("Hamming plain", fmt_spec(".4f"))
    hamming_svc: float = column("Hamming SVC", fmt_spec(".4f"))
    dual_shrink: float = column("D2 shrink", fmt_spec(".6g"))
    dual_plain: float = column("D2 plain", fmt_spec(".6g"))
    n_shrunk: int = column("shrunk", str)
    n_unshrink: int = column("unshrinks", str)
    misses_shrink: int = column("rows computed shrink", str)
    misses_plain: int = column("rows computed plain", str)


@record
class M3LSmoSummary(BenchRunInfo):
    """The key figures of :func:`bench_m3l_rows_smo`.

    Attributes
    ----------
    Ns : tuple of int
    repeats : int
    C_m3l, C_svc, gamma, tol, cache_fraction : float
    speedups : tuple of float
        plain_s / shrink_s per N (2 decimals).
    ratios_svc : tuple of float
        shrink_s / svc_s per N (3 decimals).
    same_dual : bool
        Both M3L fits reach the same D2 within 1e-4 relative at every N.
    elapsed_s : float
    """

    Ns: tuple
    repeats: int
    C_m3l: float
    C_svc: float
    gamma: float
    tol: float
    cache_fraction: float
    speedups: tuple
    ratios_svc: tuple
    same_dual: bool
    elapsed_s: float


def _smo_fits(Xtr, Ytr, C, gamma, tol, cache_mb, seed, repeats):
    """The fitted (shrink, plain, svc) models and their median CPU seconds,
    the three fits interleaved in every repeat."""
    kw = dict(kernel="rbf", C=C, tol=tol, solver="smo", cache_mb=cache_mb,
              random_state=seed)                                     # gamma 1 / D
    models = (M3LClassifier(shrinking=True, **kw), M3LClassifier(shrinking=False, **kw),
              OneVsRestClassifier(SVC(kernel="rbf", C=2 * C, gamma=gamma, tol=tol)))
    times: list[list[float]] = [[], [], []]
    for _ in range(repeats):
        for m, t in zip(models, times):
            t.append(cpu_time(lambda m=m: m.fit(Xtr, Ytr)))
    return models, [statistics.median(t) for t in times]


def _smo_row(N, C, gamma, tol, fraction, seed, repeats) -> M3LSmoRow:
    """The :class:`M3LSmoRow` of one N."""
    Xtr, Xte, Ytr, Yte = yeast_rows(N, seed)
    cache_mb = fraction * 8.0 * N * N / 1e6
    (shrink, plain, svc), (shrink_s, plain_s, svc_s) = _smo_fits(
        Xtr, Ytr, C, gamma, tol, cache_mb, seed, repeats)
    rs, rp = shrink.result_, plain.result_
    return M3LSmoRow(
        N=N, cache_rows=int(rs.cache_rows), shrink_s=shrink_s, plain_s=plain_s, svc_s=svc_s,
        plain_vs_shrink=plain_s / shrink_s, shrink_vs_svc=shrink_s / svc_s,
        hamming_shrink=float(np.mean(shrink.predict(Xte) != Yte)),
        hamming_plain=float(np.mean(plain.predict(Xte) != Yte)),
        hamming_svc=float(np.mean(svc.predict(Xte) != Yte)),
        dual_shrink=float(rs.dual_objective), dual_plain=float(rp.dual_objective),
        n_shrunk=int(rs.n_shrunk), n_unshrink=int(rs.n_unshrink),
        misses_shrink=int(rs.cache_misses), misses_plain=int(rp.cache_misses))


@register_bench("m3l-rows-smo")
def bench_m3l_rows_smo(*, quick: bool = False, seed: int = 0, progress: bool = False,
                       repeats: int | None = None, Ns: Sequence[int] | None = None,
                       C: float = 0.1, tol: float = 1e-3,
                       cache_fraction: float = 0.1) -> ExperimentResult:
    """Time ``M3LClassifier(kernel="rbf", C=C, solver="smo")`` with a kernel
    cache of ``cache_fraction`` of the Gram matrix, with ``shrinking=True``
    (LIBSVM's shrinking, :class:`polyrank.m3l.solver._SmoShrinking`) and
    ``shrinking=False`` (the paper's Alg. 1), against
    ``OneVsRestClassifier(SVC(kernel="rbf", C=2 C, gamma=1/103))`` (its
    200 MB cache and shrinking) on :func:`~.m3l_labels.yeast_rows`, and
    compare the test Hamming losses on yeast's test split and the two M3L
    dual objectives.

    As ``polyrank bench m3l-rows``: gamma 1 / 103 and bias 1 (the kernel
    offset) for M3L, the same ``tol`` for all (M3L's on the projected
    gradient of D2, twice LIBSVM's scale), CPU seconds, one BLAS thread,
    the three fits interleaved in each repeat, medians.

    Parameters
    ----------
    quick : bool
        N = 600, 1,200 (instead of 2,000, 5,000).
    seed : int
        Seed of the resampling.
    progress : bool
        A tqdm bar on stderr.
    repeats : int, optional
        Interleaved repeats (default 3 with ``quick``, else 1).
    Ns : sequence of int, optional
        Training sizes (each >= 8).
    C : float
        M3L's C (> 0); SVC gets 2 C.
    tol : float
        The tolerance of all three (> 0).
    cache_fraction : float
        M3L's kernel cache as a fraction of the float64 Gram matrix
        (0 < fraction < 1: the SMO's LRU cache evicts rows).

    Returns
    -------
    ExperimentResult
        ``rows``: one :class:`M3LSmoRow` per N; ``summary``: a
        :class:`M3LSmoSummary`.

    Raises
    ------
    ValueError
        Bad ``repeats``, ``Ns``, ``C``, ``tol`` or ``cache_fraction``.
    """
    Ns = [check_int(n, "Ns", minimum=8) for n in (Ns or ((600, 1200) if quick
                                                         else (2000, 5000)))]
    repeats = check_int(repeats if repeats is not None else (3 if quick else 1), "repeats",
                        minimum=1)
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    fraction = check_positive(cache_fraction, "cache_fraction")
    if fraction >= 1.0:
        raise ValueError(f"cache_fraction: expected a fraction < 1 (a cache smaller than the "
                         f"Gram matrix), got {fraction:g}")
    gamma = 1.0 / 103
    t0 = time.perf_counter()
    Xw, _, Yw, _ = yeast_rows(40, seed)
    for shrinking in (True, False):                  # compile outside the timings
        M3LClassifier(kernel="rbf", C=C, solver="smo", cache_mb=1e-3,
                      shrinking=shrinking).fit(Xw, Yw)
    rows = []
    bar = progress_bar(len(Ns), "bench m3l-rows-smo", progress, leave=False)
    try:
        with threadpool_limits(limits=1):
            for N in Ns:
                rows.append(_smo_row(N, C, gamma, tol, fraction, seed, repeats))
                bar.update()
    finally:
        bar.close()
    return _smo_result(rows, Ns, repeats, C, gamma, tol, fraction, seed, quick, t0)


def _smo_result(rows, Ns, repeats, C, gamma, tol, fraction, seed, quick,
                t0) -> ExperimentResult:
    """The :class:`ExperimentResult` of :func:`bench_m3l_rows_smo`."""
    same = all(abs(r.dual_shrink - r.dual_plain) <= 1e-4 * abs(r.dual_plain) for r in rows)
    summary = M3LSmoSummary(
        bench="m3l-rows-smo", quick=quick, seed=seed, Ns=tuple(Ns), repeats=repeats,
        C_m3l=C, C_svc=2 * C, gamma=gamma, tol=tol, cache_fraction=fraction,
        speedups=tuple(round(r.plain_vs_shrink, 2) for r in rows),
        ratios_svc=tuple(round(r.shrink_vs_svc, 3) for r in rows), same_dual=same,
        elapsed_s=round(time.perf_counter() - t0, 2))
    notes = [f"N = {r.N:,} ({r.cache_rows:,} cached rows): "
             + speed_phrase(r.plain_vs_shrink, "SMO with shrinking", "SMO without")
             + f" (plain/shrink {r.plain_vs_shrink:.2f}); shrink/SVC {r.shrink_vs_svc:.3f} ("
             + speed_phrase(1 / r.shrink_vs_svc, "SMO with shrinking", "one-vs-rest SVC")
             + f"), plain/SVC {r.plain_s / r.svc_s:.3f}; test Hamming shrink "
             f"{r.hamming_shrink:.4f}, plain {r.hamming_plain:.4f}, SVC {r.hamming_svc:.4f}; "
             f"D2 shrink {r.dual_shrink:.6g}, plain {r.dual_plain:.6g}; {r.n_shrunk:,} "
             f"examples shrunk, {r.n_unshrink} unshrinks; rows computed {r.misses_shrink:,} "
             f"vs {r.misses_plain:,}"
             for r in rows]
    notes.append(f"same D2 with and without shrinking (1e-4 relative): "
                 f"{'yes' if same else 'no'}")
    notes.append(f"yeast training rows resampled with replacement, yeast test split (917 "
                 f"rows); M3LClassifier(solver='smo') with a kernel cache of {fraction:g} of "
                 f"the float64 Gram matrix; C = {C:g} (SVC {2 * C:g}), gamma = {gamma:.4g}, "
                 f"tol = {tol:g} (all); SVC cache 200 MB; median CPU seconds of {repeats} "
                 "interleaved repeat(s), one BLAS thread")
    return ExperimentResult(
        name="m3l-rows-smo",
        title=f"kernel M3L SMO with vs without shrinking vs one-vs-rest SVC on resampled "
              f"yeast rows, rbf, N = {', '.join(f'{n:,}' for n in Ns)}",
        rows=rows, summary=summary, notes=notes)
