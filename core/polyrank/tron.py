"""Trust-region Newton-CG (TRON), as in LIBLINEAR, over any fun/grad/Hv object.

Source: ``large-scale-linear-ranksvm.txt``, Sec. 2.1 (Alg. 1, Eq. 2.1-2.2)
and Sec. 4.1 (Eq. 4.1-4.4): the trust-region rule of Lin and More (1999) and
Lin, Weng and Keerthi (2008) with Steihaug's conjugate gradient inside the
trust region, the constants eta0 = 1e-4, eta1 = 0.25, eta2 = 0.75,
sigma1 = 0.25, sigma2 = 0.5, sigma3 = 4, and LIBLINEAR's stopping rule
||grad f(w)|| <= tol ||grad f(w0)|| (Eq. 4.4, tol being the paper's
epsilon_s, with the gradient at the zero vector as in LIBLINEAR).  The
step-size update follows LIBLINEAR's ``tron.cpp`` (interpolation ``alpha``
inside the intervals of Eq. 4.3).

The optimiser knows nothing about the objective: an object with

* ``fun(w) -> float``,
* ``grad(w) -> ndarray (n,)``,
* ``Hv(w, v) -> ndarray (n,)`` (the (generalised) Hessian at w times v),
* optionally ``dual(w) -> float`` (a lower bound on min f, recorded as the
  trace's ``dual`` column; NaN otherwise),

declared as the protocols :class:`TronObjective` and :class:`TronDualObjective`
(LIBLINEAR's ``function`` class of ``tron.h``; checked by mypy, e.g. for
:class:`polyrank.ranksvm.RankSVMObjective`).

Each CG iteration is one ``Hv`` call; one TRON iteration is one trust-region
subproblem (Eq. 4.1).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from .result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    STATUS_NO_PROGRESS,
    STATUS_NUMERICAL,
    CallbackRunner,
    SolverResult,
    finish,
)
from .validation import as_float_array, check_int, check_positive

__all__ = ["tron", "trcg", "TRON_CONSTANTS", "STATUS_NO_PROGRESS", "TronObjective",
           "TronDualObjective"]

#: Eq. 4.3: trust-region constants of LIBLINEAR's TRON.
TRON_CONSTANTS = {"eta0": 1e-4, "eta1": 0.25, "eta2": 0.75,
                  "sigma1": 0.25, "sigma2": 0.5, "sigma3": 4.0}

# STATUS_NO_PROGRESS (defined in polyrank.result, exported here too): the
# actual and predicted reductions fall below rounding (LIBLINEAR's "actred
# and prered too small") before Eq. 4.4 holds.


class TronObjective(Protocol):
    """What :func:`tron` minimises: a convex f with its gradient and
    (generalised) Hessian-vector products (``large-scale-linear-ranksvm.txt``,
    Sec. 2.1 and 4.1; LIBLINEAR's ``function`` of ``tron.h``).

    The three methods take w of shape (n,) as a float64 ndarray that the
    caller will not modify while it uses the results; an implementation may
    remember what it computed at the last w (as
    :class:`polyrank.ranksvm.RankSVMObjective` keeps its ``Workspace``) and
    must then return the same numbers for an equal w.  :func:`tron` reads an
    optional attribute ``n_features`` (int, n) when it is given no ``w0``.
    Errors an implementation raises (e.g. ValueError for a non-finite value)
    end the solve and reach :func:`tron`'s caller unchanged.
    """

    def fun(self, w: np.ndarray, /) -> float:
        """f(w), a float."""
        ...

    def grad(self, w: np.ndarray, /) -> np.ndarray:
        """grad f(w), shape (n,); the caller may modify the array returned."""
        ...

    def Hv(self, w: np.ndarray, v: np.ndarray, /) -> np.ndarray:
        """The (generalised) Hessian of f at ``w`` times ``v`` (both shape
        (n,)), shape (n,): one conjugate-gradient step of :func:`trcg`."""
        ...


class TronDualObjective(TronObjective, Protocol):
    """A :class:`TronObjective` that also certifies its iterates: ``dual(w)``
    is a lower bound on min f (e.g. the L2-SVM dual at alpha(w), appendix of
    ``large-scale-linear-ranksvm.txt``), recorded by :func:`tron` as the
    trace's ``dual`` column and the result's ``dual_objective`` and ``gap``."""

    def dual(self, w: np.ndarray, /) -> float:
        """A lower bound on min f computed at ``w`` (NaN: no bound there)."""
        ...


def trcg(Hv, g: np.ndarray, delta: float, cg_tol: float = 0.1):
    """Steihaug's conjugate gradient for min g's + 1/2 s'Hs, ||s|| <= delta
    (Eq. 4.1), as in LIBLINEAR's ``TRON::trcg``.

    Parameters
    ----------
    Hv : callable
        ``Hv(v) -> H v``.
    g : ndarray, shape (n,)
        The gradient.
    delta : float
        Trust-region radius (> 0).
    cg_tol : float
        Stop when ||r|| <= cg_tol ||g|| (LIBLINEAR: 0.1), or after max(n, 5)
        steps (LIBLINEAR's ``newton.cpp``), or at a non-finite curvature
        d'Hd (then s holds NaN).

    Returns
    -------
    s : ndarray, shape (n,)
        The step.
    r : ndarray, shape (n,)
        The residual -g - H s.
    cg_iter : int
        Number of Hessian-vector products.
    boundary : bool
        True if the step was stopped at the trust-region boundary.

    Examples
    --------
    >>> H = np.diag([1.0, 4.0]); g = np.array([-1.0, -4.0])
    >>> s, r, it, b = trcg(lambda v: H @ v, g, 10.0)
    >>> np.round(s, 12).tolist(), b
    ([1.0, 1.0], False)
    """
    n = g.size
    s = np.zeros(n)
    r = -g
    d = r.copy()
    tol = cg_tol * math.sqrt(float(g @ g))
    rTr = float(r @ r)
    cg_iter = 0
    # in exact arithmetic CG ends within n steps; with rounding on an
    # ill-conditioned H (one feature 1e100 times the others) the residual can
    # stall above tol for ever: LIBLINEAR's newton.cpp caps the steps at
    # max(n, 5), and a non-finite curvature ends the loop (the caller sees
    # the NaN predicted reduction)
    max_cg = max(n, 5)
    while math.sqrt(rTr) > tol and cg_iter < max_cg:
        cg_iter += 1
        Hd = Hv(d)
        dHd = float(d @ Hd)
        if not math.isfinite(dHd):
            s = s + np.nan * d
            return s, r, cg_iter, False
        alpha = rTr / dHd
        s_new = s + alpha * d
        if math.sqrt(float(s_new @ s_new)) > delta:
            # move to the boundary along d: ||s + tau d|| = delta
            std = float(s @ d)
            sts = float(s @ s)
            dtd = float(d @ d)
            dsq = delta * delta
            rad = math.sqrt(std * std + dtd * (dsq - sts))
            tau = (dsq - sts) / (std + rad) if std >= 0 else (rad - std) / dtd
            s = s + tau * d
            r = r - tau * Hd
            return s, r, cg_iter, True
        s = s_new
        r = r - alpha * Hd
        rnew = float(r @ r)
        d = r + (rnew / rTr) * d
        rTr = rnew
    return s, r, cg_iter, False


def _check_objective(obj: object) -> None:
    """Raise TypeError unless ``obj`` has callable fun, grad and Hv."""
    for name in ("fun", "grad", "Hv"):
        if not callable(getattr(obj, name, None)):
            raise TypeError(f"obj: expected an object with fun, grad and Hv; no {name}")


def _start_point(obj: TronObjective, w0) -> np.ndarray:
    """The starting w: a copy of ``w0`` (checked against ``obj.n_features``),
    or zeros of length ``obj.n_features``; ValueError if neither gives n."""
    n = getattr(obj, "n_features", None)
    if w0 is None:
        if n is None:
            raise ValueError("w0: required when obj has no n_features")
        return np.zeros(int(n))
    return as_float_array(w0, "w0", ndim=1,
                          shape=None if n is None else (int(n),)).copy()


def _cg_step(obj: TronObjective, w: np.ndarray, g: np.ndarray, delta: float, cg_tol: float):
    """The trial step s of Eq. 4.1 at w by :func:`trcg`, with g's, the predicted
    reduction prered = -(g's + 1/2 s'Hs), the CG iterations and whether s
    ends on the trust-region boundary."""
    s, r, cg_iter, boundary = trcg(lambda v: obj.Hv(w, v), g, delta, cg_tol)
    gs = float(g @ s)
    return s, gs, -0.5 * (gs - float(s @ r)), cg_iter, boundary


def _new_radius(delta: float, snorm: float, gs: float, f: float, fnew: float,
                actred: float, prered: float, boundary: bool) -> float:
    """The trust-region radius after one step (Eq. 4.3, as LIBLINEAR's
    ``tron.cpp``): ``alpha`` interpolates f along s, and the interval of
    rho = actred / prered chooses how far delta shrinks or grows."""
    c = TRON_CONSTANTS
    sigma1, sigma2, sigma3 = c["sigma1"], c["sigma2"], c["sigma3"]
    if fnew - f - gs <= 0:
        alpha = sigma3
    else:
        alpha = max(sigma1, -0.5 * (gs / (fnew - f - gs)))
    if actred < c["eta0"] * prered:
        return min(max(alpha, sigma1) * snorm, sigma2 * delta)
    if actred < c["eta1"] * prered:
        return max(sigma1 * delta, min(alpha * snorm, sigma2 * delta))
    if actred < c["eta2"] * prered:
        return max(sigma1 * delta, min(alpha * snorm, sigma3 * delta))
    if boundary:                         # LIBLINEAR >= 2.11: the step hit the boundary
        return sigma3 * delta
    return max(delta, min(alpha * snorm, sigma3 * delta))


def _step_status(converged: bool, stop: bool, f: float, delta: float,
                 actred: float, prered: float):
    """Why the solve ends after this trust-region step, or None to go on:
    Eq. 4.4 met, the callback's StopIteration, an overflow, or no progress
    (LIBLINEAR's "prered <= 0" and "actred and prered too small")."""
    if converged:
        return STATUS_CONVERGED
    if stop:
        return STATUS_CALLBACK
    if not (math.isfinite(prered) and math.isfinite(actred) and math.isfinite(f)):
        return STATUS_NUMERICAL          # an overflow: more trials would loop forever
    if f < -1.0e32:
        return STATUS_NO_PROGRESS
    if prered <= 0 or delta <= 0:        # LIBLINEAR: "WARNING: prered <= 0"
        return STATUS_NO_PROGRESS
    if abs(actred) <= 1.0e-12 * abs(f) and abs(prered) <= 1.0e-12 * abs(f):
        return STATUS_NO_PROGRESS
    return None


def _first_point(obj: TronObjective, w: np.ndarray, dual_of):
    """f, grad f, ||grad f|| and the dual bound (NaN without ``dual_of``) at
    the start ``w``, and ||grad f(0)|| (Eq. 4.4's reference, LIBLINEAR's)."""
    gnorm0 = float(np.linalg.norm(obj.grad(np.zeros_like(w))))
    f = float(obj.fun(w))
    g = obj.grad(w)
    dual = float(dual_of(w)) if dual_of is not None else math.nan
    return f, g, float(np.linalg.norm(g)), gnorm0, dual


def _start_status(small_grad: bool, min_iter: int, f: float, dual: float,
                  start_gap: float | None):
    """STATUS_CONVERGED if the start point ends the solve, else None: Eq.
    4.4 holds there and either no step is required (``min_iter`` 0) or the
    duality gap certifies it, f - dual <= ``start_gap`` |f| (then f(w0) -
    min f <= start_gap |f| too, since dual <= min f)."""
    if not small_grad:
        return None
    if min_iter == 0:
        return STATUS_CONVERGED
    if start_gap is not None and math.isfinite(dual) and f - dual <= start_gap * abs(f):
        return STATUS_CONVERGED
    return None


def tron(obj: TronObjective, w0=None, *, tol: float = 1e-3, max_iter: int = 1000,
         cg_tol: float = 0.1, callback=None, callback_every: int = 1,
         keep_iterates: bool = False, solver: str = "tron",
         min_iter: int = 0, start_gap: float | None = None) -> SolverResult:
    """Minimise a twice (generalised-)differentiable convex function by TRON.

    Alg. 1 of ``large-scale-linear-ranksvm.txt`` with the trust-region
    mechanism of Sec. 4.1: at w^t, Steihaug-CG (:func:`trcg`) approximately
    solves Eq. 4.1; the step is taken if rho = actred / prered >= eta0
    (Eq. 4.2, LIBLINEAR: ``actred > eta0 * prered``); delta is updated by
    Eq. 4.3.  Stops when ||grad f(w)|| <= tol ||grad f(0)|| (Eq. 4.4).

    Parameters
    ----------
    obj : TronObjective
        With ``fun(w)``, ``grad(w)``, ``Hv(w, v)`` and optionally
        ``dual(w)`` (a :class:`TronDualObjective`; see the module docstring).
    w0 : array_like, shape (n,), optional
        Starting point (default: zeros; ``obj.n_features`` gives n).
    tol : float, default 1e-3
        Relative gradient tolerance: the paper's epsilon_s in Eq. 4.4 (> 0).
    max_iter : int, default 1000
        Maximum number of iterations, one iteration being one accepted
        Newton step (LIBLINEAR's ``iter``).
    cg_tol : float, default 0.1
        Relative residual tolerance of the inner CG.
    callback : callable, optional
        ``callback(info: IterInfo)`` after every trust-region step (taken
        or not); ``info.primal`` is f(w), ``info.dual`` is ``obj.dual(w)``
        (NaN without it); extras ``grad_norm`` (||grad f(w)||), ``delta``
        (the radius for the next step), ``cg_iter`` (Hv products of this
        step), ``cg_total`` (cumulative), ``accepted`` (1.0 or 0.0),
        ``actred``, ``prered``.  Raising StopIteration stops the solve.
    callback_every : int, default 1
    keep_iterates : bool, default False
        Also return ``iterates``, a list with a copy of w after every
        trust-region step (one per trace row; for test-set curves such as
        Fig. 5-6 of the paper).
    solver : str
        Name recorded in the result.
    min_iter : int, default 0
        Accepted Newton steps before the gradient rule may stop the solve.
        A warm start (``w0`` the solution at a neighbouring C) uses 1: its
        w0 may already meet ||grad f(w0)|| <= tol ||grad f(0)|| while its
        f is further from the new minimum than one step leaves it (on a
        regularisation path it would otherwise never move).
    start_gap : float, optional
        With ``min_iter`` >= 1 and a :class:`TronDualObjective`: a start
        point that meets Eq. 4.4 *and* whose duality gap certifies
        f(w0) - dual(w0) <= start_gap |f(w0)| ends the solve without a step
        (``nit`` 0): it is then within that relative distance of min f,
        certified, which one more Newton step need not improve on.

    Returns
    -------
    SolverResult
        ``x`` (w), ``primal_objective`` f(w), ``dual_objective`` (NaN
        without ``obj.dual``), ``gap``, ``nit`` (accepted steps, as
        LIBLINEAR's ``iter``), ``grad_norm``, ``grad_norm0``
        (||grad f(0)||), ``f0`` (f(w0)), ``n_hv`` (total CG iterations),
        ``status``, ``success``, ``message``, ``trace`` (one row per
        trust-region step).

    Raises
    ------
    ValueError
        tol <= 0, max_iter < 1, w0 of the wrong shape or not finite.
    TypeError
        If ``obj`` lacks fun/grad/Hv.

    Examples
    --------
    A strictly convex quadratic 1/2 w'Aw - b'w:

    >>> class Quad:
    ...     A = np.array([[3.0, 1.0], [1.0, 2.0]]); b = np.array([1.0, 1.0])
    ...     n_features = 2
    ...     def fun(self, w): return 0.5 * w @ self.A @ w - self.b @ w
    ...     def grad(self, w): return self.A @ w - self.b
    ...     def Hv(self, w, v): return self.A @ v
    >>> res = tron(Quad(), tol=1e-10)
    >>> np.allclose(res.x, np.linalg.solve(Quad.A, Quad.b)), res.status
    (True, 'converged')
    """
    _check_objective(obj)
    tol = check_positive(tol, "tol")
    cg_tol = check_positive(cg_tol, "cg_tol")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    runner = CallbackRunner(callback, callback_every)
    w = _start_point(obj, w0)
    dual_of = getattr(obj, "dual", None)       # a TronDualObjective's bound
    dual_of = dual_of if callable(dual_of) else None
    has_dual = dual_of is not None
    f, g, gnorm, gnorm0, dual = _first_point(obj, w, dual_of)
    f0 = f
    delta = gnorm
    it = 1
    trial = 0
    n_hv = 0
    status = _start_status(gnorm <= tol * gnorm0, min_iter, f, dual, start_gap)
    iterates = []
    while status is None:
        if it > max_iter:
            status = STATUS_MAX_ITER
            break
        s, gs, prered, cg_iter, boundary = _cg_step(obj, w, g, delta, cg_tol)
        n_hv += cg_iter
        trial += 1
        w_new = w + s
        fnew = float(obj.fun(w_new))
        actred = f - fnew
        snorm = float(np.linalg.norm(s))
        if it == 1:                      # LIBLINEAR: before the first accepted step
            delta = min(delta, snorm)
        delta = _new_radius(delta, snorm, gs, f, fnew, actred, prered, boundary)
        accepted = actred > TRON_CONSTANTS["eta0"] * prered
        if accepted:
            it += 1
            w = w_new
            f = fnew
            g = obj.grad(w)
            gnorm = float(np.linalg.norm(g))
            if dual_of is not None:
                dual = float(dual_of(w))
        stop = runner.record(trial, f, dual, grad_norm=gnorm, delta=delta,
                             cg_iter=float(cg_iter), cg_total=float(n_hv),
                             accepted=float(accepted), actred=actred, prered=prered)
        if keep_iterates:
            iterates.append(w.copy())
        status = _step_status(accepted and gnorm <= tol * gnorm0 and it > min_iter, stop,
                              f, delta,
                              actred, prered)
    nit = it - 1
    kept: dict[str, Any] = {"iterates": iterates} if keep_iterates else {}
    return finish(
        runner, status, solver=solver, x=w, dual=None, primal=f, dual_objective=dual,
        gap=f - dual if has_dual else math.nan, nit=nit, unit="Newton steps",
        rule=f"||grad f|| = {gnorm:.3g} <= tol ||grad f(0)|| = {tol * gnorm0:.3g}",
        progress=(f"||grad f|| = {gnorm:.3g} > tol ||grad f(0)|| = {tol * gnorm0:.3g} "
                  f"({trial} trust-region steps)"),
        limit=f"max_iter={max_iter}", grad_norm=gnorm, grad_norm0=gnorm0, f0=f0,
        n_hv=n_hv, **kept)
