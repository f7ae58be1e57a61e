"""SC-SDCA (Alg. 2; Alg. 4 for the multiclass losses) of Kato, Kobayashi and
Sano, "Sign-Constrained Regularized Loss Minimization"
(``sign-constrained-sdca-pegasos.txt``): it solves Eq. 5,

    min_w  P(w) = lam/2 ||w||^2 + 1/n sum_i phi_i(<w, x_i>)   s.t.  c * w >= 0,

(Eq. 23 and 27 for a weight matrix W (d, m) and a sign matrix C in the
multiclass case) by dual coordinate ascent, and records, once per epoch, the
primal objective, the dual objective of Eq. 48 and the duality gap.
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
from ..validation import as_float_array, check_int
from . import _kernels as K
from ._common import _check_common, _dual_point, _gap_rule, _gap_scale, _objectives, _violation
from .data import _check_layout, _csr, _to_csr, kernel_form, prepare_data

__all__ = ['sc_sdca', 'sc_sdca_trusted', 'MAX_ACTIVE_EPOCHS']

def sc_sdca(X, y, loss: str = "hinge", lam: float = 1e-3, signs=None, *,
            smoothing: float = 0.01, top_k: int = 1, tol: float = 1e-6,
            max_iter: int = 1000, average_from: int | None = None,
            layout: str = "auto", shrinking: bool = False, callback=None,
            callback_every: int = 1, random_state=None,
            sample_weight=None) -> SolverResult:
    """Sign-constrained SDCA (Alg. 2; Alg. 4 for the multiclass losses).

    Minimises ``P(w) = lam/2 ||w||^2 + 1/n sum_i phi_i(<w, x_i>)`` subject
    to ``signs * w >= 0`` (Eq. 5) by stochastic dual coordinate ascent on
    the dual Eq. 48 with the sign correction Eq. 11 after every step.  One
    iteration is one epoch: a fresh random permutation of the n examples,
    one coordinate step each.  For every epoch the primal objective P of
    ``w = Pi_S(wbar)`` (Eq. 49), the dual D (Eq. 48) and the gap P - D are
    recorded.

    For the losses of Table 1 the pass over X that P(w_k) needs is fused
    into epoch k + 1 (see Notes), so the solver runs one epoch beyond the
    one it returns, and the callback of epoch k is called after epoch k + 1.
    The returned iterate, dual point and objectives are those of the
    recorded epoch, with ``wbar`` recomputed exactly as ``X' alpha/(lam n)``
    (no drift from the rank-one updates).  The multiclass losses evaluate
    P and D after each epoch on an exactly recomputed wbar.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (n, d)
        One example per row (the transpose of the paper's d x n X).  Stored
        as CSR; see ``layout`` for the storage the epochs run on.
    y : array_like, shape (n,)
        Labels in {-1, +1} for hinge / smoothed hinge / logistic, reals for
        square / absolute, class indices 0..m-1 for the multiclass losses.
    loss : str
        ``"hinge"``, ``"smoothed_hinge"``, ``"logistic"``, ``"square"``,
        ``"absolute"`` (Table 1), ``"softmax"``, ``"max_hinge"``,
        ``"top_k_hinge"`` (Eq. 20-22).  The max-hinge is Crammer-Singer's
        ``max_y (s_y - s_yi + 1 - delta_{y, yi})``, the margin form of
        Eq. 22 with k = 1.
    lam : float
        Regularisation lambda > 0.
    signs : array_like or None
        c in {-1, 0, +1}^d (Eq. 4), or C in {-1, 0, +1}^(d x m) (Eq. 26)
        for a multiclass loss; None: unconstrained.
    smoothing : float
        Smoothing 0 < smoothing <= 1 of the smoothed hinge (the paper's γ,
        Table 1).
    top_k : int
        k of the top-k hinge (1 <= k <= m).
    tol : float
        Stop when the duality gap P - D <= tol * max(1, P(0)) after an
        epoch, P(0) = (1/n) sum_i s_i phi_i(0) the primal at w = 0.  For the
        classification losses max(1, P(0)) = 1: the absolute gap, which
        bounds the primal objective gap that Theorem 2 drives below the
        paper's epsilon.  For a regression loss with P(0) > 1 (targets of
        magnitude above about 1.4) the gap is relative to P(0).
    max_iter : int
        Maximum number of iterations, one iteration being one epoch (n
        coordinate steps of Alg. 2).
    average_from : int or None
        T0 of Alg. 2, step 8, in epochs: return the average of the iterates
        w^(t-1), t = T0 n + 1 .. T, instead of the last one (None: the last
        iterate).  The trace's primal is then that of the running average.
    layout : {"auto", "dense", "csr"}
        Storage of X that the epochs read.  ``"dense"`` copies X to a
        C-contiguous float64 array (n x d x 8 bytes) whose inner products
        vectorise; ``"csr"`` reads the CSR rows.  ``"auto"``: dense when at
        least :data:`DENSE_MIN_DENSITY` (1/4) of the entries are non-zero
        and n d <= :data:`DENSE_MAX_ENTRIES` (2^25), else CSR.  The two give
        the same iterates up to the rounding of the inner products.  The
        multiclass losses run on CSR only.
    shrinking : bool
        Skip rows whose dual variable sits at a bound (LIBLINEAR's
        shrinking for dual coordinate descent; not part of the paper).
        After every full epoch, the active rows A (alpha_i changed in that
        epoch or not at a bound of the conjugate's domain;
        :func:`polyrank.sign._kernels.active_rows`) get up to
        min(n / |A|, :data:`MAX_ACTIVE_EPOCHS`) further epochs of the same
        coordinate steps, each in a fresh random order of A, ending early
        when one changes nothing.  One iteration is then one full epoch and
        its active epochs; the duality gap is still P - D over all n rows,
        so the stopping rule and the returned certificate are unchanged.
        It pays off when most dual variables end at a bound (hinge,
        smoothed hinge, absolute loss); the logistic and square losses have
        none, so it does nothing for them.  Binary and regression losses
        only.
    callback : callable, optional
        ``callback(info: IterInfo)`` after every ``callback_every`` epochs;
        extras ``steps`` (coordinate steps so far), ``n_changed`` (dual
        variables changed in the (full) epoch), ``n_active`` (rows of the
        active epochs with ``shrinking``, else n; not recorded for the
        multiclass losses) and ``sign_violation`` (max(0,
        max_h -c_h w_h) of the recorded iterate: exactly 0).  Raising
        StopIteration stops the solve.
    callback_every : int
        See ``callback``.
    random_state : int, numpy Generator or None
        Seed of the permutations.
    sample_weight : array_like, shape (n,), optional
        Example weights s_i >= 0 (not all 0).  The loss term becomes
        ``1/sum(s) sum_i s_i phi_i``, so an integer weight equals repeating
        the row and a weight 0 equals removing it.  Internally s is scaled
        to mean 1; the dual variable of row i then lives in s_i times the
        domain of phi_i^*, and its step is s_i times the unweighted step
        with ``||x_i||^2`` scaled by s_i (the same closed forms).

    Returns
    -------
    SolverResult
        ``x``: w (d,) or W (d, m) (sign-feasible); ``dual``: alpha (n,) or
        A (n, m); ``wbar``: X' alpha / (lam n); ``primal_objective``,
        ``dual_objective``, ``gap``, ``nit`` (epochs), ``status``,
        ``success`` (the gap reached ``tol``), ``message``, ``trace``,
        ``solver="sc-sdca"``; extras ``wbar``, ``loss``, ``lam``, ``signs``
        (the sign vector c or matrix C used) and ``layout`` ("dense" or
        "csr").

    Raises
    ------
    TypeError
        Non-numeric X, y or signs; non-int top_k / max_iter; non-bool
        ``shrinking``.
    ValueError
        Wrong shapes, NaN/inf, signs outside {-1, 0, 1}, lam <= 0, smoothing
        outside (0, 1], labels not in {-1, +1} for a classification loss,
        class indices < 0 or fewer than 2 classes, unknown loss, unknown
        ``layout``, or ``layout="dense"`` or ``shrinking=True`` with a
        multiclass loss; ``sample_weight`` of the wrong shape, negative,
        non-finite or all zero.

    Notes
    -----
    The duality gap of epoch k is P(w_k) - D(alpha_k).  D(alpha_k) =
    -lam/2 ||Pi_S(wbar_k)||^2 - 1/n sum_i phi_i^*(-alpha_i) needs no pass
    over X and is computed at the end of epoch k; the losses
    phi_i(<w_k, x_i>) of P(w_k) are summed during epoch k + 1 while row i
    is read for its coordinate step.  Each epoch thus reads X once instead
    of twice.  When that gap is <= ``tol``, it is recomputed on the exact
    X' alpha_k / (lam n) before the solve stops.

    Source: ``sign-constrained-sdca-pegasos.txt``, Sec. 4, Alg. 2 (step 4 in
    closed form for hinge, smoothed hinge, square and absolute losses; the
    step of Eq. 16 for the logistic loss, with R = max_i ||x_i||), dual
    Eq. 48, recovery Eq. 49; Sec. 5, Alg. 4 and Eq. 30 (exact simplex /
    capped-simplex projections for the max-hinge and top-k hinge, Eq. 16
    for the soft-max).  For the top-k hinge with k >= 2, alpha = 0 is not
    dual feasible, so alpha_i starts at e_yi - Pi(e_yi) (Pi: projection
    onto the capped simplex of the conjugate's domain).  Convergence:
    Theorem 2.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [2.0, -1.0], [-1.0, -1.0], [-2.0, 1.0]])
    >>> y = np.array([1.0, 1.0, -1.0, -1.0])
    >>> res = sc_sdca(X, y, "hinge", lam=0.1, signs=[1, -1], tol=1e-10, random_state=0)
    >>> res.status, bool(res.x[0] >= 0 and res.x[1] <= 0), res.gap <= 1e-10
    ('converged', True, True)
    """
    data = prepare_data(X, y, loss, signs, top_k, sample_weight, layout=layout)
    return sc_sdca_trusted(data, loss, lam, smoothing=smoothing, top_k=top_k, tol=tol,
                           max_iter=max_iter, average_from=average_from, layout=layout,
                           shrinking=shrinking, callback=callback,
                           callback_every=callback_every, random_state=random_state)


def sc_sdca_trusted(data: dict, loss: str = "hinge", lam: float = 1e-3, *,
                    smoothing: float = 0.01, top_k: int = 1, tol: float = 1e-6,
                    max_iter: int = 1000, average_from: int | None = None,
                    layout: str = "auto", shrinking: bool = False, callback=None,
                    callback_every: int = 1, random_state=None,
                    alpha0=None) -> SolverResult:
    """:func:`sc_sdca` on data prepared by :func:`prepare_data` or, from
    input a caller validated already, by :func:`trusted_data` (the
    estimators' path: validate once, ``CONTRIBUTING.md``).

    Parameters
    ----------
    data : dict
        From :func:`prepare_data` or :func:`trusted_data`: X, y, the signs
        and the example weights.
    loss, lam, smoothing, top_k, tol, max_iter, average_from, layout, shrinking, \
callback, callback_every, random_state :
        As :func:`sc_sdca`; checked here as there (no pass over the data).
    alpha0 : ndarray, shape (n,) or (n, m), optional
        The initial dual point (a warm start): the ``dual`` of an earlier
        result on the same data and loss.  Its feasible set (the domain of
        the conjugate losses, Table 1) does not depend on ``lam``, so the
        alpha of any ``lam`` is a feasible start for any other; w starts at
        Pi_S(X' alpha0 / (lam n)) (Eq. 11, 49).  None: alpha = 0 (as Alg. 2).
        With ``shrinking``, a warm start's active rows are the previous
        solution's, so its shrinking epochs may run longer: up to
        min(:data:`WARM_ACTIVE_STEPS` n / |A|, :data:`WARM_ACTIVE_EPOCHS`)
        epochs, ending once the active rows' part of the duality gap is
        <= :data:`WARM_GAP_SHARE` tol (the stopping rule is unchanged).

    Returns
    -------
    SolverResult
        As :func:`sc_sdca`.

    Raises
    ------
    ValueError, TypeError
        Bad settings, as :func:`sc_sdca`; ``alpha0`` of the wrong shape; the
        data is not checked again.
    """
    lam, smoothing, top_k, tol = _check_common(lam, smoothing, top_k, tol)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    if average_from is not None:
        average_from = check_int(average_from, "average_from", minimum=0)
    data = _in_layout(data, layout)
    layout = data["layout"]
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking: expected True or False, got {shrinking!r}")
    if shrinking and data["multiclass"]:
        raise ValueError("shrinking: implemented for the binary and regression losses only")
    runner = CallbackRunner(callback, callback_every)
    Xc, code = data["X"], data["code"]
    n = Xc.shape[0]
    rng = np.random.default_rng(random_state)
    sqnorm = data["sqnorm"]
    R2 = float((sqnorm * data["sw"]).max())    # the step's ||x_i||^2 is scaled by s_i
    g = float(K.conj_convexity(code, smoothing))
    s_lb = lam * n * g / (lam * n * g + R2) if g > 0 and R2 > 0 else 1.0
    run = _sdca_multiclass if data["multiclass"] else _sdca_binary
    gap_tol = tol * _gap_scale(data, smoothing)
    if alpha0 is not None:
        shape = (n, data["m"]) if data["multiclass"] else (n,)
        alpha0 = as_float_array(alpha0, "alpha0", shape=shape).copy()
    out, alpha, wbar, P, D, it, status = run(
        data, layout, lam, smoothing, top_k, gap_tol, max_iter, average_from, runner, rng,
        sqnorm, s_lb, shrinking, alpha0)
    return finish(
        runner, status, solver="sc-sdca", x=np.array(out), dual=alpha, primal=P,
        dual_objective=D, nit=it, unit="epochs", rule=_gap_rule(P - D, tol, gap_tol),
        progress=f"duality gap {P - D:.3g}", limit=f"max_iter={max_iter}",
        wbar=wbar, loss=loss, lam=lam, signs=data["c"], layout=layout)


def _in_layout(data: dict, layout) -> dict:
    """``data`` with X in the storage ``layout`` of :func:`sc_sdca` (as
    :func:`~polyrank.sign.data.kernel_form` builds it): unchanged when built
    for it (or for any, with ``layout="auto"``), else converted (one copy)."""
    _check_layout(layout, data["multiclass"])
    built = data.get("layout")
    if built is not None and layout in ("auto", built):
        return data
    Xc = data["X"] if built != "dense" else _to_csr(data["X"])
    form = kernel_form(Xc, layout=layout, multiclass=data["multiclass"])
    return {**data, "X": form.X, "layout": form.layout, "sqnorm": form.sqnorm}


#: with ``shrinking``, at most this many epochs over the active rows follow
#: each full epoch of :func:`sc_sdca` ...
MAX_ACTIVE_EPOCHS = 50
#: ... and after a warm start (``alpha0``), whose active rows are those of
#: the previous solution already, at most this many, and at most
#: :data:`WARM_ACTIVE_STEPS` n steps, ending once the active rows' part of
#: the duality gap is below half the tolerance (the stopping rule is unchanged:
#: the gap over all n rows after the next full epoch)
WARM_ACTIVE_EPOCHS = 1000
#: see :data:`WARM_ACTIVE_EPOCHS`
WARM_ACTIVE_STEPS = 10
#: see :data:`WARM_ACTIVE_EPOCHS`: the share of the tolerance
WARM_GAP_SHARE = 0.5


class _Snapshot:
    """The state at the end of one SC-SDCA epoch whose primal objective is
    still to be completed (its loss sum is gathered during the next epoch)."""

    __slots__ = ("it", "out", "alpha", "wbar", "D", "changed", "steps", "averaged",
                 "n_active")

    def __init__(self, it, out, alpha, wbar, D, changed, steps, averaged, n_active):
        self.it, self.out, self.alpha, self.wbar = it, out, alpha, wbar
        self.D, self.changed, self.steps, self.averaged = D, changed, steps, averaged
        self.n_active = n_active


class _BinarySdca:
    """The state of SC-SDCA for the losses of Table 1 (:func:`_sdca_binary`):
    the iterate (alpha, wbar, w, the running sum of an average), the fused
    margins of the previous epoch, and the epoch, exact-gap and trace steps
    that use them."""

    def __init__(self, data, layout, lam, smoothing, top_k, runner, sqnorm, s_lb,
                 alpha0=None):
        self.data, self.layout, self.lam = data, layout, lam
        self.smoothing, self.top_k, self.runner = smoothing, top_k, runner
        self.sqnorm, self.s_lb = sqnorm, s_lb
        Xc, yv, c, sw = data["X"], data["y"], data["c"], data["sw"]
        n, d = Xc.shape
        self.n = n
        self.alpha = np.zeros(n)
        self.wbar = np.zeros(d)
        self.w = np.zeros(d)                  # Pi_S(wbar) (Eq. 11)
        if alpha0 is not None:                # a warm start: wbar = X' alpha / (lam n)
            self.alpha = alpha0
            self.wbar, self.w = _dual_point(Xc, alpha0, lam, c)
        self.wsum = np.zeros(d)
        self.last = np.zeros(d, dtype=np.int64)
        self.z_prev = np.zeros(n)             # <w_(k-1), x_i>, filled during epoch k
        self.alpha_before = np.empty(n)
        self.warm = alpha0 is not None
        if layout == "dense":                 # X is the dense form (kernel_form)
            self.rows = K.DenseExamples(Xc, yv, sw)
            self.bound = K.SignBox(np.where(c > 0, 0.0, -np.inf), np.where(c < 0, 0.0, np.inf))
        else:
            self.rows = K.CsrExamples(*_csr(Xc), yv, sw)
            self.bound = c

    def exact(self, snap):
        """(output, wbar, P, D) at the exact dual point of ``snap``."""
        Xc, c = self.data["X"], self.data["c"]
        wbar_x, w_x = _dual_point(Xc, snap.alpha, self.lam, c)
        out = snap.out if snap.averaged else w_x
        P, D, _, _ = _objectives(self.data, Xc, self.lam, self.smoothing, self.top_k, out,
                                 snap.alpha, w_x)
        return out, wbar_x, P, D

    def record(self, snap, P, D):
        """The trace entry of ``snap``; True when the callback stops."""
        return self.runner.record(snap.it, P, D, steps=float(snap.steps),
                                  n_changed=float(snap.changed),
                                  n_active=float(snap.n_active),
                                  sign_violation=_violation(snap.out, self.data["c"]))

    def epoch(self, order, steps, averaging, w_prev, track):
        """One pass of Alg. 2 over ``order``; the number of alphas changed."""
        state = K.SdcaIterate(self.alpha, self.wbar, self.w, self.wsum, self.last, w_prev,
                              self.z_prev)
        kernel = K.sdca_epoch_dense if self.layout == "dense" else K.sdca_epoch
        return kernel(self.rows, self.data["code"], self.smoothing, self.lam, self.sqnorm,
                      self.s_lb, state, self.bound, order, steps, averaging, track)

    def tracked_gap(self, prev):
        """P(w_prev) from the margins the last epoch stored, and D(alpha_prev)."""
        d = self.data
        loss = K.loss_sum(d["code"], self.z_prev, d["y"], self.smoothing, d["sw"])
        return 0.5 * self.lam * float(prev.out @ prev.out) + loss / self.n, prev.D

    def active_epochs(self, rng, steps, averaging, gap_tol):
        """The shrinking epochs over the rows whose alpha moved or is not at
        a bound (up to min(n / |A|, MAX_ACTIVE_EPOCHS); after a warm start
        up to min(WARM_ACTIVE_STEPS n / |A|, WARM_ACTIVE_EPOCHS), ending
        once the active rows' gap is <= gap_tol / 2); returns (|A|, steps
        taken).  The kernel shuffles with uniforms drawn here in one block;
        the generator is then set to where drawing |A| per epoch done would
        have left it (the same stream as one draw per epoch)."""
        d = self.data
        active = K.active_rows(d["code"], self.alpha, self.alpha_before, d["y"], d["sw"])
        n_active = active.shape[0]
        if not 0 < n_active < self.n:
            return n_active, 0
        if self.warm:
            k = min(WARM_ACTIVE_EPOCHS, WARM_ACTIVE_STEPS * self.n // n_active)
            gap_stop = WARM_GAP_SHARE * gap_tol * self.n
        else:
            k, gap_stop = min(MAX_ACTIVE_EPOCHS, self.n // n_active), -1.0
        state = K.SdcaIterate(self.alpha, self.wbar, self.w, self.wsum, self.last, self.w,
                              self.z_prev)
        kernel = K.active_epochs_dense if self.layout == "dense" else K.active_epochs
        bitgen = rng.bit_generator
        if not hasattr(bitgen, "advance"):          # no jump-ahead: one epoch per call
            taken = 0
            for e in range(k):
                act = K.ActiveRows(active, rng.random(n_active), e)
                done, ended = kernel(self.rows, d["code"], self.smoothing, self.lam, self.sqnorm,
                              self.s_lb, state, self.bound, act, steps + taken, averaging,
                              gap_stop)
                taken += done
                if ended:
                    break
            return n_active, taken
        start = bitgen.state
        act = K.ActiveRows(active, rng.random(k * n_active), 0)
        taken, _ = kernel(self.rows, d["code"], self.smoothing, self.lam, self.sqnorm,
                          self.s_lb, state, self.bound, act, steps, averaging, gap_stop)
        if taken < k * n_active:
            bitgen.state = start
            bitgen.advance(taken)
        return n_active, taken

    def dual(self):
        """D(alpha) of the current iterate (from alpha and w alone)."""
        d = self.data
        return (-0.5 * self.lam * float(self.w @ self.w)
                - K.conj_sum(d["code"], self.alpha, d["y"], self.smoothing, d["sw"]) / self.n)


def _sdca_binary(data, layout, lam, smoothing, top_k, tol, max_iter, average_from, runner,
                 rng, sqnorm, s_lb, shrinking, alpha0=None):
    """Epoch loop of SC-SDCA (Alg. 2) for the losses of Table 1.

    The duality gap of epoch k needs P(w_k), one pass over X.  That pass is
    fused into epoch k + 1 (each row is read once for both), so the gap of
    epoch k is known after epoch k + 1; D(alpha_k) is computed at the end of
    epoch k from alpha and wbar alone.  The solver therefore runs one epoch
    beyond the one it returns.  A gap <= tol found this way is confirmed on
    the exact dual point X' alpha_k / (lam n) before the solve stops.

    With ``shrinking``, each full epoch is followed by up to
    min(n / |A|, MAX_ACTIVE_EPOCHS) epochs over the active rows A (see
    :func:`sc_sdca`); the snapshot is taken after them, so the gap is still
    measured by the next full epoch.
    """
    s = _BinarySdca(data, layout, lam, smoothing, top_k, runner, sqnorm, s_lb, alpha0)
    n = s.n
    perm = np.arange(n, dtype=np.int64)
    prev = None
    final = None
    status = STATUS_MAX_ITER
    steps = avg_steps = 0
    for it in range(1, max_iter + 1):
        averaging = average_from is not None and it > average_from
        if averaging and avg_steps == 0:
            s.last[:] = steps               # the sum starts at this epoch
        K.shuffle(perm, rng.random(n))
        track = prev is not None
        if shrinking:
            s.alpha_before[:] = s.alpha
        changed = s.epoch(perm, steps, averaging, prev.out if track else s.w, track)
        steps += n
        n_steps = n
        if track:                           # the gap of the previous epoch
            P, D = s.tracked_gap(prev)
            if P - D <= tol:
                final = s.exact(prev)
                P, D = final[2], final[3]
            stop = s.record(prev, P, D)
            if P - D <= tol:
                status = STATUS_CONVERGED
                break
            final = None
            if stop:
                status = STATUS_CALLBACK
                break
        n_active = n
        if shrinking:
            n_active, taken = s.active_epochs(rng, steps, averaging, tol)
            steps += taken
            n_steps += taken
        if averaging:
            K.flush_average(s.w, s.wsum, s.last, steps)
            avg_steps += n_steps
        out = s.wsum / avg_steps if averaging else s.w.copy()
        prev = _Snapshot(it, out, s.alpha.copy(), s.wbar.copy(), s.dual(), changed, steps,
                         averaging, n_active)
    else:                                   # max_iter done: evaluate the last epoch
        final = s.exact(prev)
        stop = s.record(prev, final[2], final[3])
        if final[2] - final[3] <= tol:
            status = STATUS_CONVERGED
        elif stop:
            status = STATUS_CALLBACK
    if final is None:
        final = s.exact(prev)
    out, wbar_x, P, D = final
    return out, prev.alpha, wbar_x, P, D, prev.it, status


def _sdca_multiclass(data, layout, lam, smoothing, top_k, tol, max_iter, average_from,
                     runner, rng, sqnorm, s_lb, shrinking, alpha0=None):
    """Epoch loop of SC-SDCA for the multiclass losses (Alg. 4): after every
    epoch wbar is recomputed exactly from A and P, D (Eq. 48) evaluated."""
    Xc, yv, code, c, sw = data["X"], data["y"], data["code"], data["c"], data["sw"]
    n, d = Xc.shape
    m = data["m"]
    alpha = np.zeros((n, m)) if alpha0 is None else alpha0
    if alpha0 is None and code == K.TOP_K_HINGE and top_k > 1:
        p = np.empty(m)
        for i in range(n):
            e = np.zeros(m)
            e[yv[i]] = 1.0
            K.project_capped_simplex(e, 1.0 / top_k, p)
            alpha[i] = sw[i] * (e - p)
    wbar, w = _dual_point(Xc, alpha, lam, c)
    wsum = np.zeros((d, m))
    last = np.zeros(d, dtype=np.int64)
    perm = np.arange(n, dtype=np.int64)
    rows = K.CsrExamples(*_csr(Xc), yv, sw)
    state = K.McSdcaIterate(alpha, wbar, w, wsum, last)
    status = STATUS_MAX_ITER
    P = D = np.nan
    it = 0
    steps = 0
    avg_steps = 0
    out = w
    for it in range(1, max_iter + 1):
        averaging = average_from is not None and it > average_from
        if averaging and avg_steps == 0:
            last[:] = steps                 # the sum starts at this epoch
        K.shuffle(perm, rng.random(n))
        changed = K.mc_sdca_epoch(rows, code, top_k, lam, sqnorm, s_lb, state, c, perm,
                                  steps, averaging)
        steps += n
        if averaging:
            K.mc_flush_average(w, wsum, last, steps)
            avg_steps += n
        # exact recomputation: no drift from the rank-one updates
        wbar_new, w_new = _dual_point(Xc, alpha, lam, c)
        wbar[...] = wbar_new
        w[...] = w_new
        out = wsum / avg_steps if averaging else w
        P, D, _, _ = _objectives(data, Xc, lam, smoothing, top_k, out, alpha, w)
        stop = runner.record(it, P, D, steps=float(steps), n_changed=float(changed),
                             sign_violation=_violation(out, c))
        if P - D <= tol:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
    return out, alpha, wbar, P, D, it, status
