"""``polyrank bench sign``: SC-SDCA's time to a duality gap of 1e-6 on phishing
against scipy's L-BFGS-B with bounds to the same primal value
(``sign-constrained-sdca-pegasos.txt``).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from threadpoolctl import threadpool_limits

from polyrank.datasets import load_phishing
from polyrank.sign import sc_sdca
from polyrank.sign.reference import reference_lbfgsb
from polyrank.validation import check_int

from .._harness import progress_bar
from ..registry import ExperimentResult, column, fmt_spec, register_bench, speed_phrase
from ._common import correlation_signs

__all__ = ["bench_sign", "SignBenchRow", "SignBenchSummary"]



@dataclass(frozen=True)
class SignBenchRow:
    """One solver of :func:`bench_sign`.

    Attributes
    ----------
    solver : str
    time_s : float
        Median seconds.
    primal : float
        P(w) reached.
    iterations : int
        Iterations in ``unit``.
    unit : str
        ``"epochs"``, ``"rounds"`` or ``"iterations"``.
    steps_per_n : float or None
        Coordinate steps / n (SDCA only).
    gap : float or None
        SDCA's duality gap.
    ratio : float or None
        t(L-BFGS-B) / t(SC-SDCA) (L-BFGS-B rows).
    reached : bool or None
        L-BFGS-B reached SDCA's P (L-BFGS-B rows).
    """

    solver: str = column("solver")
    time_s: float = column("time [s]", fmt_spec(".3f"))
    primal: float = column("P(w)", lambda v: f"{v:.10f}")
    iterations: int = column("iters", str)
    unit: str = column("of")
    steps_per_n: float | None = column("steps / n", (fmt_spec(".1f")))
    gap: float | None = column("duality gap", (fmt_spec(".1e")))
    ratio: float | None = column("t(L-BFGS-B)/t(SC-SDCA)", (fmt_spec(".2f")))
    reached: bool | None = column(default=None)


@dataclass(frozen=True)
class SignBenchSummary:
    """The key figures of :func:`bench_sign` (times in seconds).

    Attributes
    ----------
    bench, data : str
    n, d : int
    lam, smoothing, tol : float
    repeats : int
    layout : str
        How X is stored.
    sdca_time_s, lbfgsb_time_s, ratio : float
        Alg. 2 and L-BFGS-B to its P, and their ratio.
    sdca_primal, sdca_gap : float
    sdca_epochs : int
    lbfgsb_primal : float
    lbfgsb_reached_target : bool
    shrinking_time_s, shrinking_lbfgsb_time_s, ratio_shrinking : float
        The same with shrinking.
    shrinking_rounds : int
    shrinking_steps_per_n, shrinking_gap : float
    target : str
    target_met_alg2, target_met : bool
    """

    bench: str
    data: str
    n: int
    d: int
    lam: float
    smoothing: float
    tol: float
    repeats: int
    layout: str
    sdca_time_s: float
    lbfgsb_time_s: float
    ratio: float
    sdca_primal: float
    sdca_gap: float
    sdca_epochs: int
    lbfgsb_primal: float
    lbfgsb_reached_target: bool
    shrinking_time_s: float
    shrinking_lbfgsb_time_s: float
    ratio_shrinking: float
    shrinking_rounds: int
    shrinking_steps_per_n: float
    shrinking_gap: float
    target: str
    target_met_alg2: bool
    target_met: bool


def _sign_runs(X, y, lam, c, smoothing, tol, variants, repeats, seed, bar):
    """Time every SC-SDCA variant (after a compiling run on 200 rows) and
    L-BFGS-B to the primal value it reached, ``repeats`` times in turn.
    Returns ({variant: (SC-SDCA seconds, L-BFGS-B seconds)}, {variant: the
    last (SC-SDCA, L-BFGS-B) results})."""
    times = {v: ([], []) for v, _ in variants}
    runs = {}
    with threadpool_limits(limits=1):
        for _, shrink in variants:
            sc_sdca(X[:200], y[:200], "smoothed_hinge", lam, c, smoothing=smoothing, max_iter=2,
                    shrinking=shrink)
        bar.update(1)
        for r in range(repeats):
            for name, shrink in variants:
                t = time.perf_counter()
                sd = sc_sdca(X, y, "smoothed_hinge", lam, c, smoothing=smoothing, tol=tol,
                             max_iter=10000, shrinking=shrink, random_state=seed + r)
                times[name][0].append(time.perf_counter() - t)
                bar.update(1)
                t = time.perf_counter()
                lb = reference_lbfgsb(X, y, "smoothed_hinge", lam, c, smoothing=smoothing,
                                      target=sd.primal_objective)
                times[name][1].append(time.perf_counter() - t)
                bar.update(1)
                runs[name] = (sd, lb)
    return times, runs


def _sign_rows(variants, runs, times, n):
    """Two :class:`SignBenchRow` rows per variant (SC-SDCA, then L-BFGS-B to
    its P) from the median times; returns (rows, {variant: (SC-SDCA s,
    L-BFGS-B s, ratio)})."""
    rows = []
    med = {}
    for name, _ in variants:
        sd, lb = runs[name]
        ts, tl = statistics.median(times[name][0]), statistics.median(times[name][1])
        med[name] = (ts, tl, tl / ts)
        rows.append(SignBenchRow(solver=name, time_s=ts, primal=sd.primal_objective,
                                 iterations=int(sd.nit),
                                 unit="epochs" if name.endswith("2)") else "rounds",
                                 steps_per_n=float(sd.trace.steps[-1]) / n,
                                 gap=float(sd.gap), ratio=None))
        rows.append(SignBenchRow(solver="  L-BFGS-B to its P", time_s=tl,
                                 primal=lb.primal_objective, iterations=int(lb.nit),
                                 unit="iterations", steps_per_n=None, gap=None,
                                 ratio=tl / ts, reached=bool(lb.reached_target)))
    return rows, med


@register_bench("sign")
def bench_sign(*, repeats: int | None = None, tol: float = 1e-6, smoothing: float = 0.01,
               seed: int = 0, quick: bool = False, progress: bool = False) -> ExperimentResult:
    """SC-SDCA against L-BFGS-B on phishing (smoothed hinge, lam = 1/n).

    Times (single-threaded, in this process, after a warm-up) SC-SDCA
    (:func:`polyrank.sign.sc_sdca`, duality gap of every epoch) until its
    duality gap is <= ``tol``, once as Alg. 2 of the paper and once with
    ``shrinking=True`` (LIBLINEAR's shrinking, not in the paper), each
    followed by scipy's L-BFGS-B with the sign constraints as bounds
    (:func:`polyrank.sign.reference.reference_lbfgsb` with ``target``)
    until its primal value is <= that SC-SDCA run's final primal value.
    Reports the medians of ``repeats`` runs and, for each variant, the ratio
    t(L-BFGS-B) / t(SC-SDCA); the target is a ratio > 1 (SC-SDCA faster).

    Parameters
    ----------
    repeats : int, optional
        Timed runs of each (default 5; quick: 1).
    tol : float
        SC-SDCA's duality-gap tolerance.
    smoothing, seed, quick, progress
        As the experiments.

    Returns
    -------
    ExperimentResult
        ``rows``: a :class:`SignBenchRow` per solver with ``time_s`` (median), ``primal``,
        ``iterations``; ``summary`` (:class:`SignBenchSummary`): ``ratio`` (Alg. 2),
        ``ratio_shrinking``,
        ``target_met`` (either ratio > 1), ``target_met_alg2``.
    """
    repeats = check_int(1 if quick and repeats is None else (repeats or 5), "repeats")
    X, y = load_phishing()
    n = X.shape[0]
    lam = 1.0 / n
    c = correlation_signs(X, y)
    variants = (("SC-SDCA (Alg. 2)", False), ("SC-SDCA + shrinking", True))
    bar = progress_bar(4 * repeats + 1, "bench sign", progress)
    times, runs = _sign_runs(X, y, lam, c, smoothing, tol, variants, repeats, seed, bar)
    bar.close()
    rows, med = _sign_rows(variants, runs, times, n)
    (ts, tl, ratio), (ts2, tl2, ratio2) = med[variants[0][0]], med[variants[1][0]]
    sd, lb = runs[variants[0][0]]
    sd2, lb2 = runs[variants[1][0]]
    summary = SignBenchSummary(
        bench="sign", data="phishing", n=n, d=int(X.shape[1]), lam=lam, smoothing=smoothing,
        tol=tol, repeats=repeats, layout=sd.layout, sdca_time_s=ts, lbfgsb_time_s=tl,
        ratio=ratio, sdca_primal=float(sd.primal_objective), sdca_gap=float(sd.gap),
        sdca_epochs=int(sd.nit), lbfgsb_primal=float(lb.primal_objective),
        lbfgsb_reached_target=bool(lb.reached_target and lb2.reached_target),
        shrinking_time_s=ts2, shrinking_lbfgsb_time_s=tl2, ratio_shrinking=ratio2,
        shrinking_rounds=int(sd2.nit), shrinking_steps_per_n=float(sd2.trace.steps[-1]) / n,
        shrinking_gap=float(sd2.gap), target="ratio t(L-BFGS-B) / t(SC-SDCA) > 1",
        target_met_alg2=bool(ratio > 1), target_met=bool(max(ratio, ratio2) > 1))
    notes = [f"median of {repeats} run(s), single-threaded, X stored as {sd.layout}; SC-SDCA "
             f"to duality gap <= {tol:g}, L-BFGS-B until P(w) <= that run's P "
             f"({'reached' if summary.lbfgsb_reached_target else 'not reached'})",
             speed_phrase(ratio, "SC-SDCA (Alg. 2 as in the paper)", "L-BFGS-B") + "; "
             + speed_phrase(ratio2, "with shrinking (LIBLINEAR's, not in the paper; same "
                            "steps and gap certificate) it", "L-BFGS-B")]
    return ExperimentResult(name="sign", title=(
        f"SC-SDCA vs L-BFGS-B on phishing (n = {n}), smoothed hinge γ = {smoothing:g}, "
        "lam = 1/n"), rows=rows, summary=summary, notes=notes)
