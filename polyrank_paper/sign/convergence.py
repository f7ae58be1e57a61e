"""Fig. 2 (c) (or (b)) of ``sign-constrained-sdca-pegasos.txt`` (Sec. 6.2):
primal objective gap P(w) - P(w*) against epochs for SC-Pega (mini-batch 10
and 100) and SC-SDCA, smoothed hinge, lam = 1/n; P(w*) from an independent
Clarabel QP (cross-checked by L-BFGS-B with bounds).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.sign import sc_pegasos, sc_sdca
from polyrank.sign.reference import reference_lbfgsb, reference_qp
from polyrank.validation import check_int

from .._harness import progress_bar
from ..registry import ExperimentResult, PaperItem, column, fmt_spec, record, register
from ._common import (
    _PAPER,
    FIG2_DATA,
    FIG2_PAPER_ORDER,
    SignDataInfo,
    _fig2_data,
    correlation_signs,
)

__all__ = ["sign_convergence", "ConvergenceRow", "ConvergenceSummary"]



@dataclass(frozen=True)
class ConvergenceRow:
    """One (solver, epoch) of :func:`sign_convergence`.

    Attributes
    ----------
    solver : str
        ``"SC-Pega (k=...)"`` or ``"SC-SDCA"``.
    epoch : int
        Epochs (passes over the n examples) so far.
    primal : float
        P(w), the regularised smoothed-hinge risk.
    primal_gap : float
        P(w) - P(w*).
    duality_gap : float
        SDCA's P - D; for Pegasos the certified gap of alpha(w~).
    """

    solver: str = column("solver")
    epoch: int = column("epoch", str)
    primal: float = column("P(w)", lambda v: f"{v:.10f}")
    primal_gap: float = column("P(w) - P(w*)", fmt_spec(".3e"))
    duality_gap: float = column("duality gap", fmt_spec(".3e"))


@record
class ConvergenceSummary(SignDataInfo):
    """The key figures of :func:`sign_convergence` (dicts keyed by solver).

    Attributes
    ----------
    signs : str
    n, d : int
        Examples and features.
    lam, smoothing : float
    epochs : int
    batch_sizes : tuple of int
    seed : int
    quick : bool
    n_signs_positive, n_signs_negative : int
        Coordinates constrained >= 0 and <= 0.
    n_signs_active : int
        Sign-constrained coordinates SDCA holds at 0.
    p_star, p_star_lbfgsb, p_star_sdca : float
        P(w*) by Clarabel, by L-BFGS-B, and SDCA's last primal.
    reference_agreement : float
        |p_star_lbfgsb - p_star| / p_star.
    final_primal_gap : dict of str to float
    epochs_to_1e_6 : dict of str to int or None
        Epochs to P - P* <= 1e-6 (written as ``epochs_to_1e-6``).
    sdca_final_duality_gap : float
    elapsed_s : float
        Seconds.
    paper : tuple of PaperItem
    """

    signs: str
    n: int
    d: int
    lam: float
    smoothing: float
    epochs: int
    batch_sizes: tuple
    seed: int
    quick: bool
    n_signs_positive: int
    n_signs_negative: int
    n_signs_active: int
    p_star: float
    p_star_lbfgsb: float
    p_star_sdca: float
    reference_agreement: float
    final_primal_gap: dict
    epochs_to_1e_6: dict = column(key="epochs_to_1e-6")
    sdca_final_duality_gap: float = column()
    elapsed_s: float = column()
    paper: tuple = column(default=())


@register("sign-convergence", "SC-Pega (k=10, 100) vs SC-SDCA: primal gap P(w) - P(w*) "
          "vs epochs on phishing, smoothed hinge (Sec. 6.2, Fig. 2c)")
def sign_convergence(*, epochs: int | None = None, n_sub: int | None = None,
                     smoothing: float = 0.01, batch_sizes=(10, 100), seed: int = 0,
                     quick: bool = False, progress: bool = False,
                     dataset: str = "phishing",
                     signs: str = "correlation") -> ExperimentResult:
    """Fig. 2 (c) (or (b) with ``dataset="w8a"``): convergence of SC-Pega
    and SC-SDCA on phishing (W8a).

    Minimises Eq. 5 with the smoothed hinge loss (γ = 0.01) and
    lam = 1/n on the bundled phishing (W8a) data, with the sign vector
    :func:`correlation_signs` (the paper does not state its signs).  Runs
    SC-Pega (Alg. 1) with mini-batches of 10 and 100 and SC-SDCA (Alg. 2)
    for the same number of epochs (an epoch = n examples visited) and
    records P(w) after every epoch (Pegasos: of the averaged iterate, the
    algorithm's output).  P(w*) comes from an independent solve: the QP of
    the smoothed hinge (Huber form) by Clarabel, cross-checked by scipy's
    L-BFGS-B with the signs as bounds.

    Parameters
    ----------
    epochs : int, optional
        Epochs per solver (default 100; quick: 30).
    n_sub : int, optional
        Use a random subset of this many examples (default: all 11,055;
        quick: 2,000).
    smoothing : float
        Smoothing of the smoothed hinge (the paper's gamma, Table 1).
    batch_sizes : sequence of int
        Mini-batch sizes of SC-Pega.
    seed : int
        Seed of the subset and the solvers' random orders.
    quick, progress : bool
        Quick defaults; tqdm progress on stderr.
    dataset : {"phishing", "w8a"}
        The data: Fig. 2 (c) or Fig. 2 (b).
    signs : {"correlation", "none"}
        The sign vector: :func:`correlation_signs`, or no constraint (c = 0,
        plain Pegasos / SDCA) to see what the constraints change.

    Returns
    -------
    ExperimentResult
        ``rows``: a :class:`ConvergenceRow` per (solver, epoch): ``solver``, ``epoch``,
        ``primal``, ``primal_gap`` (P - P*), ``duality_gap`` (SDCA's P - D;
        for Pegasos the certified gap of alpha(w~)).  ``summary``: a
        :class:`ConvergenceSummary`, ``n``,
        ``d``, ``lam``, ``p_star`` (Clarabel), ``p_star_lbfgsb``,
        ``p_star_sdca`` (SDCA's last primal), ``final_primal_gap`` per
        solver, ``epochs_to_1e-6`` per solver (None if not reached),
        ``sdca_final_duality_gap``, ``n_signs_active`` (coordinates at 0
        forced by the signs), settings.

    Raises
    ------
    ValueError
        On invalid counts, smoothing or dataset.

    Notes
    -----
    Source: ``sign-constrained-sdca-pegasos.txt``, Sec. 6.2, Fig. 2 (b, c).
    """
    epochs = check_int(30 if quick and epochs is None else (epochs or 100), "epochs")
    batch_sizes = [check_int(k, "batch_sizes") for k in batch_sizes]
    if not 0 < smoothing <= 1:
        raise ValueError(f"smoothing: expected 0 < smoothing <= 1, got {smoothing!r}")
    t0 = time.perf_counter()
    X, y = _fig2_data(dataset, quick, n_sub, seed)
    panel = FIG2_DATA[dataset]
    n, d = X.shape
    lam = 1.0 / n
    if signs not in ("correlation", "none"):
        raise ValueError(f"signs: expected 'correlation' or 'none', got {signs!r}")
    c = correlation_signs(X, y) if signs == "correlation" else np.zeros(d)
    bar = progress_bar(len(batch_sizes) + 3, "sign-convergence", progress)
    try:
        ref, lb, runs = _convergence_runs(X, y, lam, c, smoothing, batch_sizes, epochs, seed,
                                          bar)
    finally:
        bar.close()
    p_star = ref.primal_objective
    rows, summary_final, reach = _convergence_rows(runs, p_star)
    sd = runs["SC-SDCA"]
    notes = [f"P(w*) = {p_star:.12f} (Clarabel QP); L-BFGS-B with bounds: "
             f"{lb.primal_objective:.12f} (relative difference "
             f"{abs(lb.primal_objective - p_star) / p_star:.1e})",
             f"final P(w) - P(w*) after {epochs:d} epochs: " + ", ".join(
                 f"{k} {v:.2e}" for k, v in summary_final.items()),
             "epochs to P(w) - P(w*) <= 1e-6: " + ", ".join(
                 f"{k} {v if v is not None else 'not reached'}" for k, v in reach.items()),
             f"SC-SDCA final duality gap {sd.gap:.2e}; "
             f"{int(np.sum((sd.x == 0) & (c != 0)))} of "
             f"{int((c != 0).sum())} sign-constrained weights are held at 0"]
    summary = ConvergenceSummary(
        experiment="sign-convergence", source=f"{_PAPER}, Sec. 6.2, Fig. 2 ({panel})",
        data=dataset, signs=signs, n=n, d=d, lam=lam, smoothing=smoothing, epochs=epochs,
        batch_sizes=tuple(batch_sizes), seed=seed, quick=quick,
        n_signs_positive=int((c > 0).sum()), n_signs_negative=int((c < 0).sum()),
        n_signs_active=int(np.sum((sd.x == 0) & (c != 0))),
        p_star=p_star, p_star_lbfgsb=lb.primal_objective,
        p_star_sdca=float(sd.primal_objective),
        reference_agreement=abs(lb.primal_objective - p_star) / p_star,
        final_primal_gap=summary_final, epochs_to_1e_6=reach,
        sdca_final_duality_gap=float(sd.gap), elapsed_s=time.perf_counter() - t0,
        paper=(PaperItem(
            item=f"Fig. 2 ({panel}): epochs to P(w) - P(w*) <= 1e-6, " + ", ".join(reach),
            paper=FIG2_PAPER_ORDER.get(dataset, "-"),
            ours=", ".join(str(v) if v is not None else f"> {epochs}"
                           for v in reach.values()),
            data=f"{dataset} n = {n}, signs: {signs}"),))
    show = {1, 2, 5, 10, 20, 50, 100, 200, epochs}
    table_rows = [r for r in rows if r.epoch in show]
    return ExperimentResult(
        name="sign-convergence",
        title=(f"Fig. 2 ({panel}) ({_PAPER}, Sec. 6.2): {dataset}, n = {n}, d = {d}, smoothed "
               f"hinge γ = {smoothing:g}, lam = 1/n"),
        rows=rows, summary=summary, table_rows=table_rows, notes=notes)


def _convergence_runs(X, y, lam, c, smoothing, batch_sizes, epochs, seed, bar):
    """The reference optimum (Clarabel QP), L-BFGS-B with bounds, SC-Pega
    for every batch size and SC-SDCA, each for ``epochs`` epochs, one
    thread.  Returns (the QP result, the L-BFGS-B result, {solver: result})."""
    with threadpool_limits(limits=1):
        ref = reference_qp(X, y, "smoothed_hinge", lam, c, smoothing=smoothing)
        bar.update(1)
        lb = reference_lbfgsb(X, y, "smoothed_hinge", lam, c, smoothing=smoothing)
        bar.update(1)
        runs = {}
        for k in batch_sizes:
            res = sc_pegasos(X, y, "smoothed_hinge", lam, c, batch_size=k,
                             max_iter=epochs * max(1, X.shape[0] // k), smoothing=smoothing,
                             random_state=seed)
            runs[f"SC-Pega (k={k})"] = res
            bar.update(1)
        res = sc_sdca(X, y, "smoothed_hinge", lam, c, smoothing=smoothing, tol=0.0,
                      max_iter=epochs, random_state=seed)
        runs["SC-SDCA"] = res
        bar.update(1)
    return ref, lb, runs


def _convergence_rows(runs, p_star):
    """One :class:`ConvergenceRow` per solver and epoch; the final primal
    gap P(w) - P(w*) per solver and the first epoch where it is <= 1e-6
    (None if never)."""
    rows = []
    summary_final, reach = {}, {}
    for name, res in runs.items():
        tr = res.trace
        for e, P, g in zip(tr.iteration, tr.primal, tr.gap):
            rows.append(ConvergenceRow(solver=name, epoch=int(e), primal=float(P),
                                       primal_gap=float(P - p_star), duality_gap=float(g)))
        pg = tr.primal - p_star
        summary_final[name] = float(pg[-1])
        hit = np.flatnonzero(pg <= 1e-6)
        reach[name] = int(tr.iteration[hit[0]]) if hit.size else None
    return rows, summary_final, reach
