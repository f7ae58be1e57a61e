"""Drivers of SC-Pegasos (Alg. 1, 3) and SC-SDCA (Alg. 2, 4).

Paper: T. Kato, M. Kobayashi, D. Sano, "Sign-Constrained Regularized Loss
Minimization" (``sign-constrained-sdca-pegasos.txt``).  Both solve Eq. 5,

    min_w  P(w) = lam/2 ||w||^2 + 1/n sum_i phi_i(<w, x_i>)   s.t.  c * w >= 0,

(Eq. 23 and 27 for a weight matrix W (d, m) and a sign matrix C in the
multiclass case) and record, once per epoch, the primal objective, the dual
objective of Eq. 48 and the duality gap.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..validation import as_float_array, check_design, check_int, check_positive, check_signs
from . import _kernels as K
from .losses import BINARY_LOSSES, get_loss, r_loss

__all__ = ["sc_sdca", "sc_pegasos", "prepare_data", "trusted_data", "sc_sdca_trusted",
           "sc_pegasos_trusted"]


def _as_csr(X) -> sp.csr_matrix:
    """X (dense or scipy.sparse, shape (n, d)) checked (:func:`check_design`)
    and as canonical float64 CSR."""
    return _to_csr(check_design(X))


def _to_csr(X) -> sp.csr_matrix:
    """A checked X (dense float64 or canonical CSR) as a float64 CSR copy with
    int64 indices, the form of the kernels; no check (validate once)."""
    Xc = sp.csr_matrix(X, copy=True)              # the bias column may be appended
    Xc.indptr = Xc.indptr.astype(np.int64)
    Xc.indices = Xc.indices.astype(np.int64)
    return Xc


def _check_labels(y, n: int, loss: str, multiclass: bool):
    arr = np.asarray(y)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"y: expected numeric labels, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"y: expected shape ({n},) (one label per row of X), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("y: contains NaN or infinity")
    if multiclass:
        if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
            raise ValueError(f"y: the {loss} loss needs class indices 0..m-1, got non-integers")
        yi = arr.astype(np.int64)
        if yi.min() < 0:
            raise ValueError(f"y: class indices must be >= 0, got {yi.min()}")
        return yi, int(yi.max()) + 1
    yf = arr.astype(np.float64)
    if loss in BINARY_LOSSES and not np.all(np.abs(yf) == 1.0):
        bad = yf[np.abs(yf) != 1.0][0]
        raise ValueError(f"y: the {loss} loss needs labels in {{-1, +1}} (Table 1), got {bad!r}")
    return np.ascontiguousarray(yf), None


def _check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """Example weights s (n,) scaled to mean 1 (all ones for None)."""
    if sample_weight is None:
        return np.ones(n)
    arr = np.asarray(sample_weight)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"sample_weight: expected real numbers, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"sample_weight: expected shape ({n},) (one weight per row of X), "
                         f"got {arr.shape}")
    sw = arr.astype(np.float64)
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight: contains NaN or infinity")
    if sw.min() < 0:
        raise ValueError(f"sample_weight: expected weights >= 0, got {sw.min():.3g}")
    total = sw.sum()
    if not total > 0:
        raise ValueError("sample_weight: all weights are zero")
    return np.ascontiguousarray(sw * (n / total))


def prepare_data(X, y, loss: str, signs, top_k: int = 1, sample_weight=None):
    """Validate and convert the inputs shared by :func:`sc_sdca` and
    :func:`sc_pegasos`.

    Returns
    -------
    dict
        ``X`` (CSR, float64, int64 indices), ``y`` (float64 (n,), or int64
        class indices), ``code``, ``multiclass``, ``m`` (classes or None),
        ``c`` (signs, (d,) or (d, m)), ``sw`` (example weights (n,) scaled
        to mean 1; ones without ``sample_weight``).

    Raises
    ------
    TypeError, ValueError
        See :func:`sc_sdca`.
    """
    code, multiclass = get_loss(loss, top_k)
    Xc = _as_csr(X)
    n, d = Xc.shape
    y, m = _check_labels(y, n, loss, multiclass)
    if multiclass:
        if m < 2:
            raise ValueError(f"y: a multiclass loss needs at least 2 classes, got {m}")
        if top_k > m:
            raise ValueError(f"top_k: must be <= the number of classes {m}, got {top_k}")
        c = check_signs(signs, "signs", (d, m))
    else:
        c = check_signs(signs, "signs", (d,))
    sw = _check_sample_weight(sample_weight, n)
    return {"X": Xc, "y": y, "code": code, "multiclass": multiclass, "m": m, "c": c,
            "sw": sw}


def trusted_data(X, y, loss: str, signs, top_k: int = 1, sample_weight=None):
    """:func:`prepare_data` for inputs a caller has validated already (the
    estimators; validate once, ``CONTRIBUTING.md``): conversions only, no
    pass over the data to check it.

    Parameters
    ----------
    X : ndarray of float64 or canonical scipy.sparse CSR, shape (n, d)
        Finite (as :func:`polyrank.validation.validate_X` returns it).
    y : ndarray, shape (n,)
        Real targets; +-1 for a binary loss; class indices 0..m-1 (every
        one used) for a multiclass loss.
    loss : str
    signs : ndarray of float64, shape (d,) or (d, m)
        Checked by :func:`polyrank.validation.check_signs`.
    top_k : int
    sample_weight : ndarray of float64 (n,) or None
        Finite, >= 0, with a positive sum.

    Returns
    -------
    dict
        As :func:`prepare_data`.

    Raises
    ------
    ValueError
        An unknown loss, or ``top_k`` above the number of classes.
    """
    code, multiclass = get_loss(loss, top_k)
    Xc = _to_csr(X)
    n = Xc.shape[0]
    m = None
    if multiclass:
        y = np.asarray(y).astype(np.int64)
        m = int(y.max()) + 1
        if top_k > m:
            raise ValueError(f"top_k: must be <= the number of classes {m}, got {top_k}")
    else:
        y = np.ascontiguousarray(np.asarray(y).astype(np.float64))
    sw = np.ones(n) if sample_weight is None else np.ascontiguousarray(
        sample_weight * (n / sample_weight.sum()))
    return {"X": Xc, "y": y, "code": code, "multiclass": multiclass, "m": m, "c": signs,
            "sw": sw}


def _csr(Xc):
    return Xc.indptr, Xc.indices, Xc.data


def _violation(w, c) -> float:
    """max(0, max_h -c_h w_h): 0.0 exactly when w satisfies the signs."""
    return float(max(0.0, np.max(-c * w)))


def _dual_point(Xc, alpha, lam, c):
    """(wbar, Pi_S(wbar)) with wbar = X' alpha / (lam n) (Eq. 49)."""
    n, d = Xc.shape
    wbar = np.empty((d,) + alpha.shape[1:])
    K.xt_alpha(*_csr(Xc), alpha.reshape(n, -1), lam * n, wbar.reshape(d, -1))
    w_dual = np.empty_like(wbar)
    K.project_signs(wbar, c, w_dual)
    return wbar, w_dual


def _objectives(data, Xc, lam, smoothing, top_k, w, alpha, w_dual=None):
    """(P(w), D(alpha)) with the dual point Pi_S(X' alpha / (lam n))
    recomputed from alpha exactly unless given as ``w_dual``."""
    wbar = None
    if w_dual is None:
        wbar, w_dual = _dual_point(Xc, alpha, lam, data["c"])
    if data["multiclass"]:
        P, D = K.mc_objectives(*_csr(Xc), data["y"], data["sw"], data["code"], top_k, lam,
                               w, alpha, w_dual)
    else:
        P, D = K.objectives(*_csr(Xc), data["y"], data["sw"], data["code"], smoothing, lam, w,
                            alpha, w_dual)
    return float(P), float(D), wbar, w_dual


def _check_common(lam, smoothing, top_k, tol):
    lam = check_positive(lam, "lam")
    smoothing = check_positive(smoothing, "smoothing")
    if smoothing > 1:
        raise ValueError(f"smoothing: Table 1 requires 0 < smoothing <= 1, got {smoothing}")
    top_k = check_int(top_k, "top_k", minimum=1)
    tol = check_positive(tol, "tol", strict=False)
    return lam, smoothing, top_k, tol


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
    data = prepare_data(X, y, loss, signs, top_k, sample_weight)
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
    layout = _choose_layout(layout, data["X"], data["multiclass"])
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking: expected True or False, got {shrinking!r}")
    if shrinking and data["multiclass"]:
        raise ValueError("shrinking: implemented for the binary and regression losses only")
    runner = CallbackRunner(callback, callback_every)
    Xc, code = data["X"], data["code"]
    n = Xc.shape[0]
    rng = np.random.default_rng(random_state)
    sqnorm = K.row_sqnorms(Xc.indptr, Xc.data)
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


#: with ``shrinking``, at most this many epochs over the active rows follow
#: each full epoch of :func:`sc_sdca`
MAX_ACTIVE_EPOCHS = 50

#: ``layout="auto"`` of :func:`sc_sdca` copies X to a dense array when at
#: least this fraction of its entries is non-zero ...
DENSE_MIN_DENSITY = 0.25
#: ... and the copy has at most this many entries (2^25: 256 MiB of float64)
DENSE_MAX_ENTRIES = 2 ** 25


def _choose_layout(layout, Xc, multiclass: bool) -> str:
    """The storage the SDCA epochs run on: "dense" or "csr" (see
    :func:`sc_sdca`, parameter ``layout``)."""
    if not isinstance(layout, str) or layout not in ("auto", "dense", "csr"):
        raise ValueError(f"layout: expected 'auto', 'dense' or 'csr', got {layout!r}")
    if multiclass:
        if layout == "dense":
            raise ValueError("layout: 'dense' is implemented for the binary and regression "
                             "losses only; the multiclass losses run on CSR")
        return "csr"
    if layout != "auto":
        return layout
    n, d = Xc.shape
    dense = Xc.nnz >= DENSE_MIN_DENSITY * n * d and n * d <= DENSE_MAX_ENTRIES
    return "dense" if dense else "csr"


class _Snapshot:
    """The state at the end of one SC-SDCA epoch whose primal objective is
    still to be completed (its loss sum is gathered during the next epoch)."""

    __slots__ = ("it", "out", "alpha", "wbar", "D", "changed", "steps", "averaged",
                 "n_active")

    def __init__(self, it, out, alpha, wbar, D, changed, steps, averaged, n_active):
        self.it, self.out, self.alpha, self.wbar = it, out, alpha, wbar
        self.D, self.changed, self.steps, self.averaged = D, changed, steps, averaged
        self.n_active = n_active


def _gap_scale(data: dict, smoothing: float) -> float:
    """max(1, P(0)): what ``tol`` of :func:`sc_sdca` and :func:`sc_pegasos`
    is relative to.

    P(0) = (1/n) sum_i s_i phi_i(0) is the primal objective (Eq. 5) at
    w = 0.  For the classification losses of Table 1 it is at most 1 (1 for
    the hinge, 1 - gamma/2 for the smoothed hinge, log 2 for the logistic
    loss, 1 for every multiclass loss), so the stopping rule is the
    paper's absolute duality gap.  For a regression loss it is
    0.5 mean(y^2) or mean |y|, and a gap relative to it makes the stop
    independent of the targets' units (targets in the hundreds otherwise
    need an absolute gap of 1e-6 on a primal of 1e4).

    Parameters
    ----------
    data : dict
        From :func:`prepare_data` or :func:`trusted_data`.
    smoothing : float
        The smoothed hinge's gamma.

    Returns
    -------
    float
        At least 1.
    """
    if data["multiclass"]:
        return 1.0
    n = data["y"].shape[0]
    P0 = float(K.loss_sum(data["code"], np.zeros(n), data["y"], smoothing, data["sw"])) / n
    return max(1.0, P0)


def _gap_rule(gap: float, tol: float, gap_tol: float) -> str:
    """The stopping rule of a duality-gap solve, as SolverResult states it."""
    if gap_tol == tol:
        return f"duality gap {gap:.3g} <= tol"
    return f"duality gap {gap:.3g} <= tol * P(0) = {gap_tol:.3g}"


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
        self.rows = K.CsrExamples(*_csr(Xc), yv, sw)
        if layout == "dense":
            self.dense = K.DenseExamples(np.ascontiguousarray(Xc.toarray()), yv, sw)
            self.box = K.SignBox(np.where(c > 0, 0.0, -np.inf), np.where(c < 0, 0.0, np.inf))

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
        code, smoothing, lam = self.data["code"], self.smoothing, self.lam
        if self.layout == "dense":
            return K.sdca_epoch_dense(self.dense, code, smoothing, lam, self.sqnorm, self.s_lb,
                                      state, self.box, order, steps, averaging, track)
        return K.sdca_epoch(self.rows, code, smoothing, lam, self.sqnorm, self.s_lb, state,
                            self.data["c"], order, steps, averaging, track)

    def tracked_gap(self, prev):
        """P(w_prev) from the margins the last epoch stored, and D(alpha_prev)."""
        d = self.data
        loss = K.loss_sum(d["code"], self.z_prev, d["y"], self.smoothing, d["sw"])
        return 0.5 * self.lam * float(prev.out @ prev.out) + loss / self.n, prev.D

    def active_epochs(self, rng, steps, averaging):
        """The shrinking epochs over the rows whose alpha moved (up to
        min(n / |A|, MAX_ACTIVE_EPOCHS)); returns (|A|, steps taken)."""
        d = self.data
        active = K.active_rows(d["code"], self.alpha, self.alpha_before, d["y"], d["sw"])
        n_active, taken = active.shape[0], 0
        if 0 < n_active < self.n:
            for _ in range(min(MAX_ACTIVE_EPOCHS, self.n // n_active)):
                K.shuffle(active, rng.random(n_active))
                moved = self.epoch(active, steps + taken, averaging, self.w, False)
                taken += n_active
                if moved == 0:
                    break
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
            n_active, taken = s.active_epochs(rng, steps, averaging)
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
