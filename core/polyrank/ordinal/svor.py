"""Support vector ordinal regression with implicit constraints (SVORIM), the
default model of :class:`~polyrank.OrdinalMarginRanker`, and thresholds
chosen for the loss a user scores.

Source: W. Chu and S. S. Keerthi, "Support vector ordinal regression",
Neural Computation 19(3):792-815, 2007, Sec. 3 ("implicit constraints on
thresholds"): one threshold b_j per boundary between grades j and j + 1
and a slack for every (object, threshold) pair on the wrong side of its
unit margin, the SVM form of the all-threshold loss (Rennie & Srebro,
"Loss functions for preference levels", IJCAI 2005 workshop) that mord's
``LogisticAT`` minimises with the logistic loss.  Unlike the minimum-margin
problems of ``row-column-generation-ordinal.txt`` ((S), Sec. 6.1: a slack
only for the two thresholds around an object's own grade), a model that
puts every object in the middle grade pays for every threshold it crosses,
so overlapping grades do not collapse it to w = 0.

With labels 0..l, s_ij = +1 if l_i >= j else -1 (j = 1..l; threshold j
lies between grades j - 1 and j), the problem solved is, in the units of
the paper's (S) (no factor 1/2)::

    min_{w, b}  ||w||^2 + ||b||^2 + c sum_i v_i sum_{j=1..l} L(1 - s_ij (f_i - b_j))

with f_i = w . x_i (or sum_r u_r kappa(x_r, x_i) with a kernel), v_i the
sample weights, and L(t) = max(0, t)^2 (``loss="squared_hinge"``, the L2-loss
SVM of LIBLINEAR) or max(0, t) (``loss="hinge"``, Chu & Keerthi's own).  The
thresholds are regularised like the weights, as LIBLINEAR regularises its
bias feature (``-B 1``); Chu & Keerthi leave them free.  Their Theorem
(the thresholds come out ordered, b_1 <= ... <= b_l) holds here too: swapping
two thresholds leaves ||b||^2 unchanged.

With the linear kernel and the squared hinge it is solved by trust-region
Newton (:func:`polyrank.tron.tron`) over (w, b): the objective is
differentiable, each function, gradient and Hessian-vector product costs
O(nnz(X) + n l), and a handful of Newton steps reach a relative duality gap
of 1e-9 (the dual point alpha_ij = c v_i max(0, r_ij) gives the bound).
Otherwise (the hinge, or a kernel) it is solved in the dual of LIBLINEAR's
form of the same problem, half of it with C_i = c v_i / 2 and the bias
features z_ij = (phi(x_i), -e_j)::

    max_{0 <= alpha <= U}  sum alpha - 1/2 ||W||^2 - 1/2 sum_ij D_i alpha_ij^2,
    W = (w, b) = sum_ij alpha_ij s_ij z_ij

(hinge: U_i = C_i, D_i = 0; squared hinge: U = inf, D_i = 1 / (2 C_i)), by
dual coordinate descent with shrinking (C.-J. Hsieh et al., "A dual
coordinate descent method for large-scale linear SVM", ICML 2008, Alg. 1 and
Sec. 3.2), the l pairs of an object one after another with one product
w . x_i: O(nnz(x_i) + l) per object and pass, never a QP.  It stops on the
relative duality gap.

:func:`loss_thresholds` then chooses the thresholds for the loss the user
scores (mean absolute error by default), exactly, by dynamic programming
over the sorted training scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._memory import check_allocation
from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    STATUS_NUMERICAL,
    STATUS_STALLED,
    CallbackRunner,
    SolverResult,
    finish,
    numerical_failure,
)
from ..tron import tron
from ..validation import as_float_array, check_int, check_positive
from ..validation import check_sample_weight as _check_weights
from . import _svor_kernels as _kernels
from .generation import _kernel_params, check_labels, check_X, predict_labels
from .subproblems import _kernel_columns

__all__ = ["solve_svor", "solve_svor_trusted", "SvorOptions", "loss_thresholds",
           "thresholds_trusted",
           "SVOR_LOSSES", "SVOR_SOLVERS", "THRESHOLD_LOSSES", "DEFAULT_TOL", "DEFAULT_MAX_ITER",
           "SVOR_LINEAR_C", "PAPER_C"]

#: the losses L of :func:`solve_svor`
SVOR_LOSSES = ("squared_hinge", "hinge")
#: the solvers of :func:`solve_svor`
SVOR_SOLVERS = ("auto", "tron", "dual_cd")
#: the relative duality gap at which :func:`solve_svor` stops with ``tol=None``
DEFAULT_TOL = {"tron": 1e-9, "dual_cd": 1e-4}
#: the iteration limit of :func:`solve_svor` with ``max_iter=None``
DEFAULT_MAX_ITER = {"tron": 1000, "dual_cd": 10000}
#: :class:`~polyrank.OrdinalMarginRanker`'s default c for SVOR with the linear
#: kernel (``c=None``): on standardised red wine with 0, 89 and 389 seeded
#: random extra features (d = 11, 100, 400) its 3-fold CV test MAE averaged
#: over 12 splits is at most 0.002 above mord's ``LogisticAT()`` at every d
#: (0.005 below it at d = 400), where c = 10 is 0.008 above it (issue 30)
SVOR_LINEAR_C = 0.02
#: the default c of the paper's formulations and of kernel SVOR (the paper's
#: experiments, Sec. 10 of ``row-column-generation-ordinal.txt``)
PAPER_C = 10.0
#: the losses :func:`loss_thresholds` minimises, with their kernel codes
THRESHOLD_LOSSES = {"mae": _kernels.LOSS_ABSOLUTE, "mse": _kernels.LOSS_SQUARED,
                    "zero_one": _kernels.LOSS_ZERO_ONE}
#: the PG range on the active pairs at which the shrunk pairs are brought back
#: (LIBLINEAR's eps: 0.1), divided by 10 whenever all pairs are active again
#: and the duality gap is still above ``tol``
_SHRINK_EPS = 0.1
#: a warm TRON solve (a regularisation path, a slider) with dense X of at most
#: this many features multiplies by its (d + l) x (d + l) Hessian, built once
#: per Newton step in O(n d^2), instead of two products with X per CG step:
#: on red wine (d = 11, l = 5) a CG step then costs O(256) instead of O(nd)
_EXPLICIT_HESSIAN_MAX_D = 32
#: the inner CG's relative residual of such a warm solve (LIBLINEAR's 0.1 for
#: the others): with CG steps that cheap, nearly exact Newton steps converge
#: quadratically, in fewer Newton steps (each one a pass over the data)
_WARM_CG_TOL = 1e-3


def _gram_bytes_ok(n: int) -> None:
    """Refuse an n x n Gram matrix larger than the available memory."""
    check_allocation(8.0 * n * n, f"the kernel SVOR's {n:,} x {n:,} Gram matrix",
                     "use kernel='linear' or formulation='paper' (row and column "
                     "generation keeps n x |W| columns)")


def _problem_data(X, kernel: str, params: dict):
    """What an SVOR solve reads that depends on the data and the kernel only
    (not on c): the Gram matrix (None for the linear kernel) and the squared
    norms of the objects in feature space."""
    if kernel == "linear":
        if sp.issparse(X):
            return None, np.asarray(X.multiply(X).sum(axis=1)).ravel()
        return None, np.einsum("ij,ij->i", X, X)
    _gram_bytes_ok(X.shape[0])
    K = np.ascontiguousarray(_kernel_columns(X, np.arange(X.shape[0]), kernel, params))
    return K, np.diag(K).copy()


class _Problem:
    """The checked data of one SVOR solve (checked by the caller: validate
    once): X (dense or CSR) or the Gram
    matrix, labels, l, per-object U_i and D_i, the objects with a positive
    weight and the per-object penalties c_i = c v_i."""

    def __init__(self, X, labels, l, c, loss, kernel, params, sample_weight, cache=None):
        n = X.shape[0]
        self.X, self.kernel, self.params, self.loss = X, kernel, params, loss
        self.labels, self.l = labels, l
        self.cw = cw = np.full(n, c) if sample_weight is None else c * sample_weight
        self.squared = loss == "squared_hinge"
        pos = cw > 0
        self.upper = np.full(n, np.inf) if self.squared else 0.5 * cw
        self.diag = np.where(pos, 1.0 / np.where(pos, cw, 1.0), 0.0) \
            if self.squared else np.zeros(n)
        self.rows_all = np.flatnonzero(pos).astype(np.int64)
        cache = {} if cache is None else cache
        key = ("svor", kernel, tuple(sorted(params.items())))
        if key not in cache:
            cache.clear()                # one kernel's data at a time
            cache[key] = _problem_data(X, kernel, params)
        self.K, self.sqnorm = cache[key]

    def scores(self, x):
        """f = X x (linear: x = w) or K x (kernel: x = u), exactly."""
        if self.K is None:
            return np.asarray(self.X @ x, dtype=np.float64).ravel()
        return self.K @ x

    def multipliers(self, f, b):
        """alpha_ij = c_i max(0, r_ij), r_ij = 1 - s_ij (f_i - b_j), (n, l): the
        multipliers of the squared hinge at a primal point (LIBLINEAR's units)."""
        s = np.where(self.labels[:, None] > np.arange(self.l)[None, :], 1.0, -1.0)
        return self.cw[:, None] * np.maximum(0.0, 1.0 - s * (f[:, None] - b[None, :]))


class _State:
    """The iterate: alpha (n l,), b (l,), w (d,) or u (n,) and f (n,),
    the active pairs and rows, the random state and LIBLINEAR's PG bounds."""

    def __init__(self, prob: _Problem, seed: int):
        n, l = prob.labels.size, prob.l
        self.alpha = np.zeros(n * l)
        self.b = np.zeros(l)
        self.w = np.zeros(prob.X.shape[1]) if prob.K is None else np.zeros(0)
        self.u = np.zeros(n)
        self.f = np.zeros(n)
        self.active = np.zeros(n * l, dtype=np.bool_)
        for j in range(l):
            self.active[prob.rows_all * l + j] = True
        self.rows = prob.rows_all.copy()
        self.m = self.rows.size
        self.rng = np.array([np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(seed)], dtype=np.uint64)
        self.pg = np.array([np.inf, -np.inf, -np.inf, np.inf])
        self.eps = _SHRINK_EPS

    def start_at(self, prob: _Problem, alpha0) -> None:
        """Start from the dual point ``alpha0`` (n, l) (a warm start): alpha,
        and the primal point W(alpha) it determines, w = X' u (or u itself
        with a Gram matrix) and b_j = -sum_i alpha_ij s_ij with u_i = sum_j
        alpha_ij s_ij, s_ij = +1 if y_i > j else -1."""
        n, l = prob.labels.size, prob.l
        alpha = np.minimum(np.maximum(alpha0, 0.0), prob.upper[:, None])
        s = np.where(prob.labels[:, None] > np.arange(l)[None, :], 1.0, -1.0)
        self.alpha[:] = alpha.reshape(n * l)
        self.u[:] = (alpha * s).sum(axis=1)
        self.b[:] = -(alpha * s).sum(axis=0)
        if prob.K is None:
            self.w[:] = np.asarray(prob.X.T @ self.u, dtype=np.float64).ravel()
            self.f[:] = prob.scores(self.w)
        else:
            self.f[:] = prob.K @ self.u

    def unshrink(self, prob: _Problem) -> None:
        """Every pair of a weighted object active again (LIBLINEAR's reset)."""
        for j in range(prob.l):
            self.active[prob.rows_all * prob.l + j] = True
        self.rows = prob.rows_all.copy()
        self.m = self.rows.size
        self.pg[0], self.pg[1] = np.inf, -np.inf

    def run_pass(self, prob: _Problem) -> float:
        """One pass over the active objects; returns the largest |alpha change|."""
        arrays = _kernels.SvorArrays(prob.sqnorm, prob.labels, prob.upper, prob.diag,
                                     self.alpha, self.b, self.active, self.rows, self.rng,
                                     self.pg)
        K = prob.K
        if K is not None:
            self.m, moved = _kernels.svor_pass_gram(K, self.u, self.f, arrays, prob.l, self.m)
        elif sp.issparse(prob.X):
            X = prob.X
            self.m, moved = _kernels.svor_pass_csr(X.indptr, X.indices, X.data, self.w,
                                                   arrays, prob.l, self.m)
        else:
            self.m, moved = _kernels.svor_pass_dense(prob.X, self.w, arrays, prob.l, self.m)
        return float(moved)

    def shrink_schedule(self, prob: _Problem, all_active: bool) -> None:
        """LIBLINEAR's bounds for the next pass: PGmax_old, PGmin_old from
        this pass; once the active pairs are solved to ``eps``, every pair
        is made active again (and ``eps`` tightened when it already was)."""
        pgmax, pgmin = self.pg[2], self.pg[3]
        if pgmax - pgmin <= self.eps:
            if all_active:
                self.eps /= 10.0
            self.unshrink(prob)
            return
        self.pg[0] = pgmax if pgmax > 0 else np.inf
        self.pg[1] = pgmin if pgmin < 0 else -np.inf

    def objectives(self, prob: _Problem):
        """(primal, dual, scores) in the paper's units at the iterate.

        With W = sum_ij alpha_ij s_ij z_ij (LIBLINEAR's w) the solution is
        (w, b) = W; P = 2 (1/2 ||W||^2 + sum_i (c_i / 2) sum_j L), D = 2
        (sum alpha - 1/2 ||W||^2 - 1/2 sum D'_i alpha^2) with LIBLINEAR's
        D'_i = 1 / (2 C_i) = 1 / c_i: the paper's units are twice LIBLINEAR's."""
        f = prob.scores(self.w if prob.K is None else self.u)
        reg = (float(self.w @ self.w) if prob.K is None else float(self.u @ f)) \
            + float(self.b @ self.b)
        data = _kernels.svor_loss(f, prob.labels, self.b, prob.cw, prob.squared)
        s1, s2 = _kernels.svor_dual_terms(self.alpha, prob.diag, prob.l)
        primal = reg + data
        dual = 2.0 * s1 - reg - s2
        return primal, dual, f


class _SquaredHinge:
    """The linear SVOR objective with the squared hinge over theta = (w, b)
    for :func:`polyrank.tron.tron`: fun, grad, the generalised Hessian times
    a vector (Hv) and a dual lower bound, each O(nnz(X) + n l).

    F(w, b) = ||w||^2 + ||b||^2 + sum_i c_i sum_j max(0, r_ij)^2 with r_ij =
    1 - s_ij (x_i . w - b_j).  The pairs with r_ij > 0 (the generalised
    Hessian's) are kept in a workspace tied to the theta they were computed
    at (``DESIGN.md``: LIBLINEAR's state between grad and Hv made explicit).
    """

    def __init__(self, X, labels, cw, l, explicit_hessian: bool = False):
        self.X, self.labels, self.cw, self.l = X, labels, cw, l
        n, d = X.shape
        self.d = d
        self.n_features = d + l
        self.g_f = np.empty(n)
        self.g_b = np.empty(l)
        self.mask = np.zeros((n, l), dtype=np.bool_)
        self.t = np.empty(n)
        self.hb = np.empty(l)
        self._at = None                  # the theta of g_f, g_b, mask, _data, _s1, _gw
        self._data = self._s1 = 0.0
        self._gw = None                  # X' g_f at _at, once grad has asked
        self.explicit_hessian = explicit_hessian
        self._H = None                   # the (d + l) x (d + l) Hessian at _at, if built

    def _scores(self, theta):
        return np.asarray(self.X @ theta[:self.d], dtype=np.float64).ravel()

    def _evaluate(self, theta):
        """The data term at theta; fills the workspace for grad, Hv and dual."""
        b = np.ascontiguousarray(theta[self.d:])
        self._data, self._s1 = _kernels.svor_sq_fun_grad(
            self._scores(theta), b, self.labels, self.cw, self.g_f, self.g_b, self.mask)
        self._at = theta.copy()
        self._gw = None
        self._H = None
        return self._data

    def _ensure(self, theta):
        if self._at is None or not np.array_equal(self._at, theta):
            self._evaluate(theta)

    def _grad_w(self, theta):
        """X' g_f at theta (the gradient's w part), one product, kept."""
        self._ensure(theta)
        if self._gw is None:
            self._gw = np.asarray(self.X.T @ self.g_f, dtype=np.float64).ravel()
        return self._gw

    def fun(self, theta):
        return float(theta @ theta) + self._evaluate(theta)

    def grad(self, theta):
        return 2.0 * theta + np.concatenate([self._grad_w(theta), self.g_b])

    def _hessian(self):
        """The generalised Hessian at ``_at`` as a (d + l) x (d + l) matrix
        (dense X): 2 I plus 2 sum over the pairs (i, j) with r_ij > 0 of c_i
        z_ij z_ij', z_ij = (x_i, -e_j).  O(n d^2), once per Newton step; then
        each CG step is O((d + l)^2) instead of two products with X."""
        cm = self.mask * self.cw[:, None]                     # c_i [r_ij > 0], (n, l)
        X, d = self.X, self.d
        H = np.empty((self.n_features, self.n_features))
        H[:d, :d] = X.T @ (X * (cm @ np.ones(self.l))[:, None])
        H[:d, d:] = X.T @ cm
        H[:d, d:] *= -1.0
        H[d:, :d] = H[:d, d:].T
        H[d:, d:] = np.diag(np.ones(X.shape[0]) @ cm)      # sums by BLAS, not ufunc reduce
        H *= 2.0
        H.flat[::self.n_features + 1] += 2.0
        return H

    def Hv(self, theta, v):
        self._ensure(theta)
        if self.explicit_hessian:
            if self._H is None:
                self._H = self._hessian()
            return self._H @ v
        q = self._scores(v)
        _kernels.svor_sq_hv(q, np.ascontiguousarray(v[self.d:]), self.cw, self.mask,
                            self.t, self.hb)
        hw = np.asarray(self.X.T @ self.t, dtype=np.float64).ravel()
        return 2.0 * v + np.concatenate([hw, self.hb])

    def dual(self, theta):
        """The dual objective (paper's units) at alpha_ij = c_i max(0, r_ij):
        a lower bound on min F, equal to it at the optimum.

        With W(alpha) = (X' u, b(alpha)) = -(X' g_f, g_b) / 2 and sum_ij
        alpha_ij^2 / c_i = the data term, it is 2 sum alpha - ||W||^2 - data
        from the gradient's workspace: no product with X beyond the
        gradient's (TRON asks for both at every accepted point)."""
        gw = self._grad_w(theta)
        return 2.0 * self._s1 - 0.25 * float(gw @ gw) - 0.25 * float(self.g_b @ self.g_b) \
            - self._data


@dataclass(frozen=True)
class SvorOptions:
    """The settings of one SVOR solve, resolved ("auto" and None replaced)
    and checked: what :func:`solve_svor_trusted` receives and does not check
    again (validate once: :func:`solve_svor` checks them with its data, the
    estimator with its ``_parameter_constraints``).

    Attributes
    ----------
    c : float
        > 0.
    loss : {"squared_hinge", "hinge"}
    kernel : {"linear", "rbf", "poly"}
    params : dict
        The kernel's checked parameters
        (:func:`polyrank.kernels.check_kernel_params`).
    solver : {"tron", "dual_cd"}
    tol : float
        > 0.
    max_iter : int
        >= 1.
    random_state : int
    """

    c: float
    loss: str
    kernel: str
    params: dict
    solver: str
    tol: float
    max_iter: int
    random_state: int = 0

    @classmethod
    def resolve(cls, *, c: float, loss: str, kernel: str, params: dict, solver: str = "auto",
                tol=None, max_iter=None, random_state: int = 0) -> SvorOptions:
        """The options of valid settings: ``solver="auto"`` is TRON for the
        linear squared hinge, else dual CD; ``tol``/``max_iter`` None are
        the solver's defaults (:data:`DEFAULT_TOL`, :data:`DEFAULT_MAX_ITER`).
        Nothing is checked (the caller has)."""
        if solver == "auto":
            solver = "tron" if loss == "squared_hinge" and kernel == "linear" else "dual_cd"
        return cls(float(c), loss, kernel, params, solver,
                   DEFAULT_TOL[solver] if tol is None else float(tol),
                   DEFAULT_MAX_ITER[solver] if max_iter is None else int(max_iter),
                   int(random_state))


def _check_svor(c, loss, kernel, solver, tol, max_iter):
    """The settings of :func:`solve_svor` (no data); returns c, the solver
    ("auto" resolved), tol and max_iter."""
    if loss not in SVOR_LOSSES:
        raise ValueError(f"loss: expected one of {SVOR_LOSSES}, got {loss!r}")
    if solver not in SVOR_SOLVERS:
        raise ValueError(f"solver: expected one of {SVOR_SOLVERS}, got {solver!r}")
    if solver == "tron" and (loss != "squared_hinge" or kernel != "linear"):
        raise ValueError(f"solver: 'tron' needs loss='squared_hinge' and kernel='linear' "
                         f"(a differentiable primal over w), got loss={loss!r}, "
                         f"kernel={kernel!r}; use solver='dual_cd'")
    if solver == "auto":
        solver = "tron" if loss == "squared_hinge" and kernel == "linear" else "dual_cd"
    c = check_positive(c, "c")
    tol = DEFAULT_TOL[solver] if tol is None else check_positive(tol, "tol")
    max_iter = DEFAULT_MAX_ITER[solver] if max_iter is None else check_int(
        max_iter, "max_iter", minimum=1)
    return c, solver, tol, max_iter


def _relative_gap(primal, dual):
    return (primal - dual) / abs(primal) if primal else 0.0


def _svor_dcd(prob, tol, max_iter, seed, callback, callback_every, alpha0=None):
    """Dual coordinate descent with shrinking (from ``alpha0`` (n, l), feasible,
    if given); returns (status, passes, x, b, alpha (n, l), runner, primal,
    dual)."""
    state = _State(prob, seed)
    if alpha0 is not None:
        state.start_at(prob, alpha0)
    runner = CallbackRunner(callback, callback_every)
    status, it, primal, dual = STATUS_MAX_ITER, 0, math.nan, math.nan
    for it in range(1, max_iter + 1):
        all_active = int(state.active.sum()) == prob.rows_all.size * prob.l
        moved = state.run_pass(prob)
        primal, dual, _ = state.objectives(prob)
        stop = runner.record(it, primal, dual, n_active=float(state.active.sum()),
                             max_change=moved)
        if numerical_failure(primal, dual):
            status = STATUS_NUMERICAL
        elif _relative_gap(primal, dual) <= tol:
            status = STATUS_CONVERGED
        elif stop:
            status = STATUS_CALLBACK
        elif moved == 0.0 and all_active:
            status = STATUS_STALLED
        else:
            state.shrink_schedule(prob, all_active)
            continue
        break
    x = state.w.copy() if prob.K is None else state.u.copy()
    alpha = state.alpha.reshape(-1, prob.l).copy()
    return status, it, x, state.b.copy(), alpha, runner, primal, dual


def _svor_tron(prob, tol, max_iter, callback, callback_every, theta0=None):
    """TRON on the squared hinge over (w, b), from ``theta0`` = (w, b) if
    given, stopped by the relative duality gap; returns what
    :func:`_svor_dcd` returns."""
    CallbackRunner(callback, callback_every)            # validates both arguments
    warm = theta0 is not None
    explicit = warm and not sp.issparse(prob.X) and prob.X.shape[1] <= _EXPLICIT_HESSIAN_MAX_D
    obj = _SquaredHinge(prob.X, prob.labels, prob.cw, prob.l, explicit_hessian=explicit)
    met = []

    def check(info):
        if callback is not None and info.iteration % callback_every == 0:
            callback(info)
        if info.accepted and _relative_gap(info.primal, info.dual) <= tol:
            met.append(info.iteration)
            raise StopIteration

    # TRON's own gradient rule is off (tol at rounding); the gap decides
    res = tron(obj, theta0, tol=1e-300, max_iter=max_iter, callback=check, solver="svor-tron",
               cg_tol=_WARM_CG_TOL if explicit else 0.1)
    status = STATUS_CONVERGED if met else res.status
    if numerical_failure(res.primal_objective, res.dual_objective):
        status = STATUS_NUMERICAL
    d = prob.X.shape[1]
    w, b = res.x[:d].copy(), res.x[d:].copy()
    return (status, res.nit, w, b, prob.multipliers(prob.scores(w), b),
            SimpleNamespace(trace=res.trace), res.primal_objective, res.dual_objective)


def solve_svor(X, labels, *, c: float = 10.0, loss: str = "squared_hinge",
               kernel: str = "linear", gamma=None, degree: int = 3, coef0: float = 1.0,
               solver: str = "auto", tol=None, max_iter=None,
               sample_weight=None, random_state: int = 0, callback=None,
               callback_every: int = 1) -> SolverResult:
    """Support vector ordinal regression with implicit constraints (SVORIM,
    Chu & Keerthi 2007, Sec. 3), by TRON or by dual coordinate descent.

    Minimises, with labels 0..l, s_ij = +1 if l_i >= j else -1 (threshold j
    between grades j - 1 and j) and L(t) = max(0, t)^2 (``"squared_hinge"``)
    or max(0, t) (``"hinge"``)::

        ||w||^2 + ||b||^2 + c sum_i v_i sum_{j=1..l} L(1 - s_ij (f_i - b_j))

    over w (or the kernel expansion f_i = sum_r u_r kappa(x_r, x_i), with
    ||w||^2 = u' K u) and the thresholds b_1..b_l, which the optimum orders
    (Chu & Keerthi's Theorem; here ||b||^2 is regularised like a bias
    feature).  The units are those of the paper's (S) (no factor 1/2):
    LIBLINEAR's C is c / 2.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (n, m)
        Sparse (used as CSR) with the linear kernel only.
    labels : array_like of int, shape (n,)
        Labels 0..l, every label used (:func:`~polyrank.ordinal.check_labels`).
    c : float
        Slack penalty c > 0.
    loss : {"squared_hinge", "hinge"}
    kernel : {"linear", "rbf", "poly"}
    gamma, degree, coef0
        Kernel parameters (see :func:`polyrank.ordinal.solve_ordinal`).
    solver : {"auto", "tron", "dual_cd"}
        ``"tron"``: trust-region Newton (:func:`polyrank.tron.tron`) over
        (w, b) on the squared hinge, linear kernel only: each function,
        gradient and Hessian-vector product costs O(nnz(X) + n l) (two
        products with X and an O(n l) pass over the pairs), a handful of
        Newton steps.  ``"dual_cd"``: dual coordinate descent with
        shrinking (Hsieh et al. 2008, Alg. 1) in the dual above, objects in
        a seeded random order, O(nnz(x_i) + l) per object and pass (linear)
        or O(n) with a kernel, whose n x n Gram matrix is built once; it
        needs many passes when the problem is badly conditioned (correlated
        features, low-rank kernels, large c).  ``"auto"``: "tron" for the
        linear squared hinge, else "dual_cd".
    tol : float or None
        Stop when the relative duality gap (P - D) / P <= tol (P the
        objective, D the dual at the multipliers alpha_ij = c_i max(0, r_ij)
        (TRON) or at the dual iterate (dual CD)).  None: 1e-9 for TRON
        (quadratic convergence: a Newton step or two more than 1e-6), 1e-4
        for dual CD (linear convergence).
    max_iter : int or None
        Maximum number of Newton steps (TRON; None: 1000) or passes (dual
        CD; None: 10000, which the hinge on a linear kernel may need).
    sample_weight : array_like, shape (n,), optional
        v_i >= 0; an integer weight is the object repeated.
    random_state : int
        Seed of the order in which dual CD visits the objects.
    callback : callable, optional
        ``callback(info: IterInfo)`` after every trust-region step (TRON:
        extras ``grad_norm``, ``delta``, ``cg_iter``, ``cg_total``,
        ``accepted``, ``actred``, ``prered`` as in :func:`polyrank.tron.tron`)
        or pass (dual CD: extras ``n_active``, the pairs not shrunk, and
        ``max_change``, the largest change of a dual variable); primal,
        dual and gap in the units above.  StopIteration stops.
    callback_every : int

    Returns
    -------
    SolverResult
        ``x``: w (m,) for the linear kernel, else u (n,) with f = K u;
        ``thresholds`` b (l,); ``scores`` f (n,) on the training objects;
        ``dual``: alpha (n, l), the multiplier of pair (i, j) in LIBLINEAR's
        units (W = (w, b) = sum_ij alpha_ij s_ij (x_i, -e_j) at the
        optimum); ``objective``: the objective at the returned point;
        ``support`` (objects with a nonzero alpha); ``kernel``,
        ``kernel_params``; ``loss``; ``svor_solver`` ("tron" or "dual_cd");
        ``formulation`` ("SVORIM"); ``nit`` Newton steps or passes;
        ``status`` "converged" (relative gap <= tol), the maximum-iterations
        status, "stalled at rounding level" (dual CD: a pass with every pair
        active changed nothing) or "no progress at rounding level" (TRON)
        while the gap is above tol, "numerical failure" (a non-finite
        objective: features too large) or "stopped by callback".

    Raises
    ------
    ValueError
        Bad X (NaN/inf, not 2-d), labels (see ``check_labels``), c <= 0,
        tol <= 0, max_iter < 1, negative weights, unknown loss, solver or
        kernel, solver="tron" with the hinge or a kernel.
    TypeError
        Sparse X with a non-linear kernel; non-numeric input.
    MemoryError
        A kernel whose n x n Gram matrix exceeds the available memory.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0], [7.0]])
    >>> r = solve_svor(X, [0, 0, 1, 1, 2, 2])
    >>> r.status, r.svor_solver, bool(r.thresholds[0] < r.thresholds[1]), bool(r.x[0] > 0)
    ('converged', 'tron', True, True)
    """
    c, solver, tol, max_iter = _check_svor(c, loss, kernel, solver, tol, max_iter)
    X = check_X(X, kernel)
    params = _kernel_params(kernel, gamma, degree, coef0, X.shape[1])
    labels, l = check_labels(labels, X.shape[0])
    sample_weight = _check_weights(sample_weight, X.shape[0])
    opts = SvorOptions(c, loss, kernel, params, solver, tol, max_iter, int(random_state))
    return _svor_checked(_Problem(X, labels, l, c, loss, kernel, params, sample_weight),
                         opts, callback, callback_every)


def solve_svor_trusted(X, labels, options: SvorOptions, *, sample_weight=None,
                       callback=None, callback_every: int = 1, init=None,
                       cache=None) -> SolverResult:
    """:func:`solve_svor` on data a caller has validated already: the
    trusted path of the estimators (validate once, ``CONTRIBUTING.md``).

    Parameters
    ----------
    X : ndarray of float64 or canonical scipy.sparse CSR, shape (n, m)
        Finite (as :func:`polyrank.validation.validate_X` returns it);
        sparse only with the linear kernel.
    labels : ndarray of int64, shape (n,)
        0..l with every label used.
    options : SvorOptions
        The resolved, checked settings (not checked again).
    sample_weight : ndarray of float64 (n,) or None
        Finite and >= 0.
    callback, callback_every :
        As :func:`solve_svor`.
    init : dict, optional
        A warm start: ``{"alpha": (n, l)}`` for dual coordinate descent (a
        feasible dual point, e.g. an earlier solution at c' scaled by
        c / c'; clipped to the box [0, c_i / 2] of the hinge), ``{"theta":
        (d + l,)}`` = (w, b) for TRON.  None: a cold start from 0.
    cache : dict, optional
        Kept by the caller across solves on the same X (a regularisation
        path, :func:`polyrank._warm.prepared`): what depends on X and the
        kernel only (the Gram matrix, the squared norms) is built into it
        once and read from it afterwards.  None: built for this solve.

    Returns
    -------
    SolverResult
        As :func:`solve_svor`.

    Raises
    ------
    MemoryError
        As :func:`solve_svor`.  Nothing else is checked: neither the data
        nor the settings.
    """
    o = options
    prob = _Problem(X, labels, int(labels.max()), o.c, o.loss, o.kernel, o.params,
                    sample_weight, cache)
    return _svor_checked(prob, o, callback, callback_every, init or {})


def _svor_checked(prob: _Problem, options: SvorOptions, callback, callback_every,
                  init=None) -> SolverResult:
    """:func:`solve_svor` after its checks (``init``: see
    :func:`solve_svor_trusted`)."""
    init = init or {}
    solver, tol, max_iter = options.solver, options.tol, options.max_iter
    seed = options.random_state
    with np.errstate(over="ignore", invalid="ignore"):   # reported as the status
        if solver == "tron":
            out = _svor_tron(prob, tol, max_iter, callback, callback_every,
                             init.get("theta"))
        else:
            out = _svor_dcd(prob, tol, max_iter, seed, callback, callback_every,
                            init.get("alpha"))
    status, it, x, b, alpha, runner, primal, dual = out
    f = prob.scores(x)
    gap = _relative_gap(primal, dual)
    return finish(
        runner, status, solver="svor-" + solver.replace("_", "-"),
        x=x, dual=alpha, primal=primal, dual_objective=dual, nit=it,
        unit="Newton steps" if solver == "tron" else "passes",
        rule=f"relative duality gap {gap:.2e} <= tol={tol:g}",
        progress=f"relative duality gap {gap:.2e} > tol={tol:g}",
        limit=f"max_iter={max_iter}",
        advice="the features are too large: scale them (e.g. StandardScaler)",
        thresholds=b, scores=f, objective=float(primal),
        support=np.flatnonzero(alpha.any(axis=1)), kernel=prob.kernel,
        kernel_params=prob.params, loss=prob.loss,
        svor_solver=solver, formulation="SVORIM")


def loss_thresholds(scores, labels, *, levels=None, loss: str = "mae", sample_weight=None,
                    reference=None, margin: float = 1.0) -> np.ndarray:
    """Thresholds b_1 <= ... <= b_l that minimise the training loss of the
    predictions max {k | f_i > b_k}, exactly (dynamic programming over the
    sorted scores, O(n (l + 1)) after an O(n log n) sort).

    Every monotone choice of thresholds assigns nondecreasing grades to the
    sorted scores, equal scores alike; the recursion V_t(k) = cost_t(k) +
    min_{k' <= k} V_{t-1}(k') over the blocks of equal scores finds the best
    (:func:`polyrank.ordinal._svor_kernels.dp_thresholds`).  The threshold between
    two grades is the midpoint of the neighbouring scores; a grade that no
    training object gets sits ``margin`` beyond the range of the scores.
    Among threshold choices of equal loss (the loss takes few values: ties
    are common) the one whose predictions differ least from those at the
    ``reference`` thresholds wins.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Training scores f_i.
    labels : array_like of int, shape (n,)
        Labels 0..l (every label used).
    levels : array_like, shape (l + 1,), optional
        The value of each grade in the loss (e.g. the labels' numbers, wine
        quality 3..8, so that the mean absolute error is in their units);
        default 0..l.
    loss : {"mae", "mse", "zero_one"}
        |a - b|, (a - b)^2 or [a != b] between the grades' levels.
    sample_weight : array_like, shape (n,), optional
        Weights >= 0 (an integer weight is the object repeated; objects of
        weight 0 do not count, not even for the midpoints).
    reference : array_like, shape (l,), optional
        Thresholds that break ties (e.g. the fitted objective's); default:
        ties go to the lower grades.
    margin : float
        Distance of an unused grade's threshold beyond the scores (> 0).

    Returns
    -------
    ndarray, shape (l,)
        Nondecreasing thresholds.

    Raises
    ------
    ValueError
        Mismatched shapes, NaN/inf scores or levels, bad labels, unknown
        loss, negative weights or all weights 0, margin <= 0.

    Examples
    --------
    >>> loss_thresholds([0.0, 1.0, 2.0, 3.0, 4.0], [0, 0, 2, 1, 2]).tolist()
    [1.5, 3.5]
    """
    if loss not in THRESHOLD_LOSSES:
        raise ValueError(f"loss: expected one of {tuple(THRESHOLD_LOSSES)}, got {loss!r}")
    f = as_float_array(scores, "scores", ndim=1)
    labels, l = check_labels(labels, f.size)
    lev = (np.arange(l + 1, dtype=np.float64) if levels is None
           else as_float_array(levels, "levels", ndim=1, shape=(l + 1,)))
    w = (None if sample_weight is None
         else as_float_array(sample_weight, "sample_weight", ndim=1, shape=(f.size,)))
    if w is not None and np.any(w < 0):
        raise ValueError("sample_weight: weights must be >= 0")
    margin = check_positive(margin, "margin")
    ref = (None if reference is None
           else as_float_array(reference, "reference", ndim=1, shape=(l,)))
    return thresholds_trusted(f, labels, lev, THRESHOLD_LOSSES[loss], w, ref, margin)


def thresholds_trusted(f, labels, levels, kind: int, sample_weight, reference,
                       margin: float = 1.0) -> np.ndarray:
    """:func:`loss_thresholds` on checked input (the estimators' trusted
    path: ``fit`` validated the data, the solver's scores are finite).

    Parameters
    ----------
    f : ndarray of float64, shape (n,)
    labels : ndarray of int64, shape (n,)
        0..l, every label used.
    levels : ndarray of float64, shape (l + 1,)
    kind : int
        A value of :data:`THRESHOLD_LOSSES`.
    sample_weight : ndarray of float64 (n,) >= 0, or None
    reference : ndarray of float64 (l,), or None
    margin : float
        > 0.

    Returns
    -------
    ndarray, shape (l,)
        As :func:`loss_thresholds`.

    Raises
    ------
    ValueError
        If every weight is 0.
    """
    w = np.ones(f.size) if sample_weight is None else sample_weight
    ref = (np.zeros(f.size, dtype=np.int64) if reference is None
           else predict_labels(f, reference))
    # objects of weight 0 are not there (a weight is a count of copies)
    order = np.flatnonzero(w > 0)
    order = order[np.argsort(f[order], kind="stable")]
    if order.size == 0:
        raise ValueError("sample_weight: every weight is 0")
    out = np.empty(levels.size - 1)
    _kernels.dp_thresholds(f[order], labels[order], w[order], levels, kind, ref[order],
                           margin, out)
    return out
