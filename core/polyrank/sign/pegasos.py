"""SC-Pegasos (Alg. 1; Alg. 3 for the multiclass losses) of Kato, Kobayashi
and Sano (``sign-constrained-sdca-pegasos.txt``): the problem of
:func:`polyrank.sign.sc_sdca` (Eq. 5) by projected stochastic sub-gradient
steps, with the objectives and a certifying dual point after every epoch.
"""

from __future__ import annotations

import numpy as np

from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..validation import check_int
from . import _kernels as K
from ._common import _check_common, _gap_rule, _gap_scale, _objectives, _violation
from .data import _csr, _to_csr, prepare_data
from .losses import r_loss

__all__ = ['sc_pegasos', 'sc_pegasos_trusted']

def sc_pegasos(X, y, loss: str = "hinge", lam: float = 1e-3, signs=None,
               batch_size: int = 1, max_iter: int | None = None, *,
               smoothing: float = 0.01, top_k: int = 1, tol: float = 0.0,
               callback=None, callback_every: int = 1,
               random_state=None, sample_weight=None) -> SolverResult:
    """Sign-constrained Pegasos (Alg. 1; Alg. 3 for the multiclass losses).

    Minimises the problem of :func:`sc_sdca` by projected stochastic
    sub-gradient steps: mini-batch A_t of k = ``batch_size`` examples, the
    step of Eq. 9 with eta_t = 1/(lam t), the sign correction Eq. 11 and the
    projection onto the ball of radius sqrt(r_loss / lam) (Alg. 1 step 7,
    Lemma A.2); the output is the average of w_1 .. w_T (step 9).

    One recorded iteration is one epoch of ``max(1, n // batch_size)``
    steps, whose mini-batches are consecutive slices of a fresh random
    permutation (each is a uniform k-subset).  After every epoch the trace
    gets the primal objective of the averaged iterate w~, a dual objective
    (Eq. 48) at alpha_i = -phi_i'(<w~, x_i>) (a dual feasible point; for the
    smooth losses it tends to the optimum, so the gap certifies w~; for the
    hinge losses it stays a valid but loose bound), and the gap.

    Parameters
    ----------
    X, y, loss, lam, signs, smoothing, top_k
        As in :func:`sc_sdca`.
    batch_size : int
        k >= 1, at most n.
    max_iter : int, optional
        Maximum number of iterations, one iteration being one mini-batch
        step: T of Alg. 1, all done unless ``tol`` stops the run earlier;
        default 20 epochs (20 * max(1, n // batch_size) steps).
    tol : float
        Stop early when the gap recorded after an epoch <= tol * max(1, P(0))
        (default 0: never), as in :func:`sc_sdca`; the gap bounds the primal
        objective gap of Theorem 1.
    callback, callback_every, random_state
        As in :func:`sc_sdca`; extras ``steps``, ``primal_last`` (P of the
        current, non-averaged w_t) and ``sign_violation`` (of w~ and w_t,
        exactly 0).
    sample_weight : array_like, shape (n,), optional
        Example weights, as in :func:`sc_sdca` (the loss term is
        ``1/sum(s) sum_i s_i phi_i``): the sub-gradient of row i is scaled
        by n s_i / sum(s), and the radius of step 7 is sqrt(P_s(0) / lam)
        with the weighted P_s(0) = 1/sum(s) sum_i s_i phi_i(0).

    Returns
    -------
    SolverResult
        ``x``: the average w~ (Alg. 1 step 9); ``last``: w_{T+1};
        ``dual``: alpha(w~); ``primal_objective``, ``dual_objective``,
        ``gap``, ``nit`` (steps T), ``status``, ``trace``,
        ``solver="sc-pegasos"``; extras ``last`` (w_{T+1}), ``loss``,
        ``lam``, ``signs``, ``batch_size``.  ``success`` is True only when
        the gap reached ``tol > 0`` (``status="converged"``): Pegasos has no
        stopping rule of its own, so running its T iterations ends with
        ``status="maximum number of iterations reached"``, ``success=False``
        (the iterate is still the paper's output).

    Raises
    ------
    TypeError, ValueError
        As :func:`sc_sdca`; also batch_size < 1 or > n, max_iter < 1.

    Notes
    -----
    Source: ``sign-constrained-sdca-pegasos.txt``, Sec. 3, Alg. 1, Eq. 9
    (with its 1/k; Alg. 1 step 5 drops it), Eq. 11, Lemma A.2 (Eq. 38: the
    radius sqrt(r_loss/lam)); Theorem 1; Sec. 5, Alg. 3 (radius
    sqrt(r_loss/lam) as in Eq. 38; the printed r_loss/sqrt(lam) is a typo).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3)); y = np.sign(X[:, 0] + 0.1)
    >>> res = sc_pegasos(X, y, "hinge", lam=0.1, signs=[1, 1, 0], batch_size=5,
    ...                  max_iter=200, random_state=0)
    >>> bool(np.all(res.x[:2] >= 0)), res.nit
    (True, 200)
    """
    data = prepare_data(X, y, loss, signs, top_k, sample_weight)
    return sc_pegasos_trusted(data, loss, lam, batch_size, max_iter, smoothing=smoothing,
                              top_k=top_k, tol=tol, callback=callback,
                              callback_every=callback_every, random_state=random_state,
                              weighted=sample_weight is not None)


def _on_csr(data: dict) -> dict:
    """``data`` with X stored as CSR, which SC-Pegasos reads (a copy only when
    it was built for SC-SDCA's dense layout)."""
    if isinstance(data["X"], np.ndarray):
        return {**data, "X": _to_csr(data["X"]), "layout": "csr", "sqnorm": None}
    return data


def sc_pegasos_trusted(data: dict, loss: str = "hinge", lam: float = 1e-3,
                       batch_size: int = 1, max_iter: int | None = None, *,
                       smoothing: float = 0.01, top_k: int = 1, tol: float = 0.0,
                       callback=None, callback_every: int = 1, random_state=None,
                       weighted: bool = False) -> SolverResult:
    """:func:`sc_pegasos` on data prepared by :func:`prepare_data` or
    :func:`trusted_data` (the estimators' path: validate once,
    ``CONTRIBUTING.md``).

    Parameters
    ----------
    data : dict
        From :func:`prepare_data` or :func:`trusted_data`.
    loss, lam, batch_size, max_iter, smoothing, top_k, tol, callback, callback_every, \
random_state :
        As :func:`sc_pegasos`; checked here as there (no pass over the data).
    weighted : bool
        The weights in ``data`` came from a ``sample_weight``: the radius of
        the projection (Alg. 1 step 7) is then sqrt(P_s(0) / lam), as in
        :func:`sc_pegasos`.

    Returns
    -------
    SolverResult
        As :func:`sc_pegasos`.

    Raises
    ------
    ValueError, TypeError
        Bad settings, as :func:`sc_pegasos`; the data is not checked again.
    """
    lam, smoothing, top_k, tol = _check_common(lam, smoothing, top_k, tol)
    data = _on_csr(data)
    Xc, yv, code, c, sw = data["X"], data["y"], data["code"], data["c"], data["sw"]
    n, d = Xc.shape
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    if batch_size > n:
        raise ValueError(f"batch_size: must be <= n = {n}, got {batch_size}")
    per_epoch = max(1, n // batch_size)
    max_iter = 20 * per_epoch if max_iter is None else check_int(max_iter, "max_iter", minimum=1)
    runner = CallbackRunner(callback, callback_every)
    rng = np.random.default_rng(random_state)
    mc = data["multiclass"]
    m = data["m"]
    if not weighted or mc:                  # the multiclass phi_i(0) is one constant
        r = r_loss(loss, yv, smoothing, top_k, m)
    else:
        r = float(K.loss_sum(code, np.zeros(n), yv, smoothing, sw)) / n
    radius = float(np.sqrt(r / lam))
    gap_tol = tol * _gap_scale(data, smoothing)
    shape = (d, m) if mc else (d,)
    w = np.zeros(shape)
    wsum = np.zeros(shape)
    alpha = np.zeros((n, m) if mc else n)
    rows = K.CsrExamples(*_csr(Xc), yv, sw)
    status = STATUS_MAX_ITER
    P = D = np.nan
    t = 0
    epoch = 0
    avg = w
    while t < max_iter:
        epoch += 1
        n_steps = min(per_epoch, max_iter - t)
        perm = rng.permutation(n).astype(np.int64)
        if mc:
            K.mc_pegasos_steps(rows, code, top_k, lam, radius, c, w, wsum, perm, batch_size,
                               t + 1, n_steps)
        else:
            K.pegasos_steps(rows, code, smoothing, lam, radius, c, w, wsum, perm, batch_size,
                            t + 1, n_steps)
        t += n_steps
        avg = wsum / t
        if mc:
            K.mc_dual_from_primal(*_csr(Xc), yv, sw, code, top_k, avg, alpha)
        else:
            K.dual_from_primal(*_csr(Xc), yv, sw, code, smoothing, avg, alpha)
        P, D, _, w_dual = _objectives(data, Xc, lam, smoothing, top_k, avg, alpha)
        P_last, _, _, _ = _objectives(data, Xc, lam, smoothing, top_k, w, alpha, w_dual)
        stop = runner.record(epoch, P, D, steps=float(t), primal_last=P_last,
                             sign_violation=max(_violation(avg, c), _violation(w, c)))
        if tol > 0 and P - D <= gap_tol:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
    return finish(
        runner, status, solver="sc-pegasos", x=np.array(avg), dual=alpha, primal=P,
        dual_objective=D, nit=t, unit="steps", rule=_gap_rule(P - D, tol, gap_tol),
        progress=f"duality gap {P - D:.3g}", limit=f"max_iter={max_iter}",
        last=w, loss=loss, lam=lam, signs=c, batch_size=batch_size)
