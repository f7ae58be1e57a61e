"""Minimum-margin maximisation for ordinal ranking: the formulations (H),
(H-bar), (H~), (H~+), (S), (S-bar), (S~) and the row and column generation
algorithms RH, RC(H-bar), RC(H~), RS, RC(S-bar), RC(S~).

Source: ``row-column-generation-ordinal.txt`` (Y. Izunaga, K. Sato,
K. Tatsumi and Y. Yamamoto, "Row and column generation algorithms for
minimum margin maximization of ranking problems", J. Oper. Res. Soc. Japan
58(4):394-409, 2015), Sections 3-8, 10 and Appendix A.

Objects i = 1..n have attribute vectors x^i and labels l_i in L = {0..l};
the thresholds p_1 < ... < p_l (with p_0 = -inf, p_{l+1} = +inf) separate
the layers.  The hard margin constraints (Sec. 3.1) are::

    p_{l_i} + 1 <= f_i <= p_{l_i + 1} - 1        for i in N

with f_i = (x^i)' w (primal), (k^i)' lambda (dual representation w =
X lambda, Sec. 3.2) or (k~^i)' lambda (kernel, Sec. 5); the soft margin
constraints (Sec. 6.1) relax them by slacks xi_{-i}, xi_{+i} >= 0 penalised
by c.  The objective is ||w||^2 (resp. lambda' K lambda) plus
c 1'(xi_- + xi_+): the paper's objective, without a factor 1/2.

The sub-problems of the dual representation ((H-bar(W)), (H~(W)),
(S-bar(W)), (S~(W))) are solved through their dual either by a warm-started
SMO in numba (:func:`polyrank.ordinal._kernels.dual_cd`: W only grows, so the
previous multipliers padded with zeros are feasible, and K_W is kept and
extended, never rebuilt; the cure of the paper's Sec. 10 remark that "a finely
tuned application of a QP solver could dramatically reduce the total
computation time") or from scratch by Clarabel through
:func:`polyrank.qp.solve_qp`, which also solves the hard margin primal
sub-problems, (H~+) and the whole dual problem (``method="full"``); the soft
margin primal (S), whole or over W, is solved as a QP over the objects near
its margin only (:mod:`polyrank.ordinal.screened`); the searches for violated
constraints (Step 3), the choice of Delta^nu (Step 5) and the initial working
set (Sec. 10) are numba kernels (:mod:`polyrank.ordinal._kernels`).  Kernel
values are computed only for the columns of the working set (n x |W|), never
the full n x n Gram matrix (except by ``method="full"``).
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from ..kernels import check_kernel_params
from ..qp import solve_qp
from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..validation import as_float_array, check_design, check_int, check_positive
from . import _kernels
from .screened import MAX_NEWTON_DIM, constraint_rows, solve_soft_primal

__all__ = ["solve_ordinal", "check_labels", "InfeasibleError", "FORMULATIONS",
           "formulation_name", "algorithm_name", "predict_labels",
           "initial_working_set", "MARGINS", "REPRESENTATIONS", "METHODS",
           "SUBPROBLEM_SOLVERS"]

MARGINS = ("hard", "soft")
REPRESENTATIONS = ("primal", "dual")
METHODS = ("generation", "full")
SUBPROBLEM_SOLVERS = ("auto", "dual_cd", "newton", "clarabel")
#: the KKT gap (units of f) at which ``subproblem_solver="dual_cd"`` stops
#: is max(qp_tol, DUAL_CD_MIN_EPS): below it rounding in f = K_W lambda
#: (kernel values up to 81 for (1 + x.y)^4) can keep the gap from closing
DUAL_CD_MIN_EPS = 1e-9
#: the KKT gap of the sub-problems solved while objects outside W still
#: violate a constraint (they only decide which objects are added next);
#: a loose solution that leaves nothing outside W violated is solved again
#: (same iteration, warm) to max(qp_tol, DUAL_CD_MIN_EPS)
DUAL_CD_LOOSE_EPS = 1e-2
#: the relative duality gap a fully accurate ``"dual_cd"`` solve of a soft
#: margin sub-problem must also reach (the KKT gap bounds it only up to the
#: size of the multipliers, which grows with c): else its KKT tolerance is
#: divided by 100 and SMO goes on
DUAL_CD_GAP_TOL = 1e-9

#: The paper's problems and the keyword arguments of :func:`solve_ordinal`
#: that select them (Sec. 3.1, 3.2, 5, 6.1, 6.2, 8, Appendix A).  For
#: "Htilde", "Htilde+" and "Stilde" also pass a non-linear ``kernel``.
FORMULATIONS = {
    "H": {"margin": "hard", "representation": "primal"},
    "Hbar": {"margin": "hard", "representation": "dual", "kernel": "linear"},
    "Htilde": {"margin": "hard", "representation": "dual"},
    "Htilde+": {"margin": "hard", "representation": "dual", "nonneg": True},
    "S": {"margin": "soft", "representation": "primal"},
    "Sbar": {"margin": "soft", "representation": "dual", "kernel": "linear"},
    "Stilde": {"margin": "soft", "representation": "dual"},
}


class InfeasibleError(ValueError):
    """The hard margin problem (H), (H-bar), (H~) or (H~+) is infeasible:
    the instance is not separable (Sec. 3.1) by the chosen model."""


def formulation_name(margin: str, representation: str, kernel: str,
                     nonneg: bool = False) -> str:
    """The paper's name of the problem: "H", "Hbar", "Htilde", "Htilde+",
    "S", "Sbar" or "Stilde" (the soft margin version of (H~+) is called
    "Stilde+").

    Examples
    --------
    >>> formulation_name("soft", "dual", "poly")
    'Stilde'
    """
    base = "H" if margin == "hard" else "S"
    if representation == "primal":
        return base
    name = base + ("bar" if kernel == "linear" else "tilde")
    if nonneg:
        name = base + "tilde+"
    return name


def algorithm_name(formulation: str) -> str:
    """The paper's algorithm for a formulation: "H" -> "RH", "S" -> "RS",
    "Hbar" -> "RCHbar", "Stilde" -> "RCStilde", "Htilde+" -> "RCHtilde+".

    Examples
    --------
    >>> algorithm_name("Htilde")
    'RCHtilde'
    """
    return "R" + formulation if formulation in ("H", "S") else "RC" + formulation


def paper_notation(name: str) -> str:
    """The paper's notation for an algorithm or formulation name of
    :func:`algorithm_name` / :func:`formulation_name`: ``"RCStilde"`` ->
    ``"RC(S̃)"``, ``"RCHbar"`` -> ``"RC(H̄)"``, ``"Htilde+"`` -> ``"(H̃+)"``;
    other names are returned unchanged.

    Examples
    --------
    >>> paper_notation("RCStilde"), paper_notation("RCHtilde+"), paper_notation("RS")
    ('RC(S̃)', 'RC(H̃+)', 'RS')
    """
    for suffix, mark in (("tilde", "\u0303"), ("bar", "\u0304")):
        for plus in ("+", ""):
            tail = suffix + plus
            if name.endswith(tail):
                head = name[:-len(tail)]
                prefix, letter = head[:-1], head[-1]
                return f"{prefix}({letter}{mark}{plus})"
    return name


def check_X(X, kernel: str):
    """Validate the objects X of :func:`solve_ordinal` and :func:`~polyrank.ordinal.prank`.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (n, m)
        The objects; sparse input only with the linear kernel, whose
        products need no kernel matrix.
    kernel : str
        The kernel name.

    Returns
    -------
    ndarray of float64 (n, m) or scipy.sparse.csr_matrix (a copy)

    Raises
    ------
    TypeError
        If X is sparse and ``kernel`` is not ``"linear"``.
    ValueError
        If X is not 2-d or holds NaN or infinity.
    """
    return check_design(X, kernel=kernel)


def check_labels(labels, n: int) -> tuple[np.ndarray, int]:
    """Validate ordinal labels 0..l and return them as int64 with l.

    Parameters
    ----------
    labels : array_like, shape (n,)
        Integer labels (an integer dtype, or floats with integral values);
        every label 0, 1, ..., l must have at least one object (Sec. 3.1
        assumes N(k) != empty for all k), and l >= 1.
    n : int
        Expected length (the number of rows of X).

    Returns
    -------
    (ndarray of int64 (n,), int)
        The labels and l (the largest label).

    Raises
    ------
    TypeError
        If the labels are not numbers (strings, objects, booleans).
    ValueError
        If not 1-d of length n, NaN/inf, non-integral, negative, fewer than
        two labels, or a label in 0..l without objects.

    Examples
    --------
    >>> check_labels([0, 2, 1, 2], 4)[1]
    2
    """
    arr = np.asarray(labels)
    if arr.dtype == bool:
        raise TypeError("labels: expected integer labels 0..l, got booleans")
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"labels: expected integer labels 0..l, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"labels: expected a 1-d array, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"labels: expected {n} labels (one per row of X), got {arr.shape[0]}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError("labels: contains NaN or infinity")
        if not np.all(arr == np.round(arr)):
            bad = arr[arr != np.round(arr)][0]
            raise ValueError(f"labels: expected integer labels 0..l, got the "
                             f"non-integer value {bad!r}")
    out = arr.astype(np.int64)
    if out.min() < 0:
        raise ValueError(f"labels: expected labels 0..l (>= 0), got {out.min()}")
    l = int(out.max())
    if l < 1:
        raise ValueError("labels: need at least two labels (0 and 1), got only 0")
    counts = np.bincount(out, minlength=l + 1)
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise ValueError(f"labels: label {int(empty[0])} has no objects; labels "
                         f"must be 0..{l} with every label used (Sec. 3.1 "
                         f"assumes N(k) non-empty)")
    return out, l


def predict_labels(f, thresholds) -> np.ndarray:
    """Labels from scores: l^ = max {k in L | f > p_k} with p_0 = -inf
    (Sec. 10, the rule under Table 2).  Exact also when the thresholds are
    not ordered (possible for the soft margin problems, which do not
    constrain their order).

    Parameters
    ----------
    f : array_like, shape (n,)
        Scores.
    thresholds : array_like, shape (l,)
        p_1, ..., p_l.

    Returns
    -------
    ndarray of int64, shape (n,)

    Examples
    --------
    >>> predict_labels([-3.0, 0.5, 2.0, 9.0], [0.0, 1.0, 5.0]).tolist()
    [0, 1, 2, 3]
    >>> predict_labels([0.5], [1.0, 0.0]).tolist()     # p_2 < f < p_1: label 2
    [2]
    """
    f = np.asarray(f, dtype=np.float64)
    p = np.asarray(thresholds, dtype=np.float64)
    above = f[:, None] > p[None, :]
    last = p.size - np.argmax(above[:, ::-1], axis=1)       # largest k with f > p_k
    return np.where(above.any(axis=1), last, 0).astype(np.int64)


def initial_working_set(scores, labels, n_labels: int) -> np.ndarray:
    """The initial working set W^0 of Sec. 10: for each label the objects
    with the lowest, the median and the highest score.

    Parameters
    ----------
    scores : ndarray (n,)
        The initial scorer (the paper: x_1 + x_2, the sum of the attributes).
    labels : int64 ndarray (n,)
    n_labels : int
        l + 1.

    Returns
    -------
    ndarray of int64
        At most 3 (l + 1) distinct indices, label by label.

    Examples
    --------
    >>> import numpy as np
    >>> initial_working_set(np.arange(6.0), np.array([0, 0, 0, 0, 1, 1]), 2).tolist()
    [0, 1, 3, 4, 5]
    """
    out = np.empty(3 * n_labels, dtype=np.int64)
    m = _kernels.initial_working_set(np.asarray(scores, dtype=np.float64),
                                     labels, n_labels, out)
    return out[:m].copy()


# --------------------------------------------------------------- sub-problem

def _build_qp(A_rows, P_coef, labels_rows, l: int, soft: bool, c,
              nonneg: bool):
    """The QP of (H(W)), (S(W)), (H-bar(W)) ... in Clarabel form.

    Variables ``[coef (d), p_1..p_l, xi_- (n_lo), xi_+ (n_up)]``; the rows
    ``A_rows`` (r x d) give f = A_rows coef for the objects of the working
    set; ``c`` (r,) is the slack penalty of each of those objects.  Returns
    P, q, G, h and the bookkeeping of the rows of G."""
    r, d = A_rows.shape
    # lower: p_{l_i} - f_i (- xi_-i) <= -1 ; upper: f_i - p_{l_i+1} (- xi_+i) <= -1,
    # i.e. -a_t . (coef, p) (- xi_t) <= -1 for the rows a_t of (S)
    A, lo, up = constraint_rows(A_rows, labels_rows, l)
    n_lo, n_up = lo.size, up.size
    n_slack = (n_lo + n_up) if soft else 0
    nvar = d + l + n_slack
    parts = [sp.csr_matrix(-A)]
    if soft:
        parts.append(-sp.identity(n_lo + n_up, format="csr"))
    G_main = sp.hstack(parts, format="csr")
    h_main = -np.ones(n_lo + n_up)
    extra_G, extra_h = [], []
    if soft:                                       # xi >= 0
        extra_G.append(sp.hstack([sp.csr_matrix((n_slack, d + l)),
                                  -sp.identity(n_slack, format="csr")], format="csr"))
        extra_h.append(np.zeros(n_slack))
    if nonneg:                                     # lambda >= 0 (Appendix A)
        extra_G.append(sp.hstack([-sp.identity(d, format="csr"),
                                  sp.csr_matrix((d, l + n_slack))], format="csr"))
        extra_h.append(np.zeros(d))
    G = sp.vstack([G_main] + extra_G, format="csc")
    h = np.concatenate([h_main] + extra_h)
    Pm = sp.block_diag([sp.csr_matrix(2.0 * P_coef),
                        sp.csr_matrix((l + n_slack, l + n_slack))], format="csc")
    q = np.zeros(nvar)
    if soft:
        q[d + l:] = np.r_[c[lo], c[up]]
    return Pm, q, G, h, lo, up


def _qp_failure(exc: RuntimeError, name: str, soft: bool, solved: str) -> ValueError:
    """The error for a sub-problem Clarabel could not solve (``solved``:
    what it was given, e.g. "Clarabel on its dual"): an infeasible hard
    margin problem is not separable (InfeasibleError); anything else (e.g.
    'InsufficientProgress', 'DualInfeasible' on badly scaled data) says
    what to do."""
    msg = str(exc)
    if "Infeasible" in msg and not soft:
        return InfeasibleError(
            f"the hard margin problem ({name}) is infeasible: the instance "
            f"is not separable by this model ({solved}: {msg}); use margin='soft'")
    return ValueError(
        f"the QP sub-problem of {name} could not be solved (Clarabel: {msg}); this "
        f"happens with badly scaled features or a very large c: standardize X (e.g. "
        f"sklearn.preprocessing.StandardScaler) or lower c")


def _solve_sub(A_rows, P_coef, labels_rows, l, soft, c, nonneg, qp_tol, name):
    """Solve one sub-problem; returns coef, p, slacks, multipliers, result."""
    Pm, q, G, h, lo, up = _build_qp(A_rows, P_coef, labels_rows, l, soft, c, nonneg)
    try:
        res = solve_qp(Pm, q, G=G, h=h, tol=qp_tol, max_iter=500)
    except RuntimeError as exc:
        raise _qp_failure(exc, name, soft, "Clarabel") from None
    d = A_rows.shape[1]
    x = res.x
    coef, p = x[:d].copy(), x[d:d + l].copy()
    r = A_rows.shape[0]
    xi_lo = np.zeros(r)
    xi_up = np.zeros(r)
    if soft:
        xi_lo[lo] = x[d + l:d + l + lo.size]
        xi_up[up] = x[d + l + lo.size:]
    y = res.dual["ineq"]
    y_lo = np.zeros(r)
    y_up = np.zeros(r)
    y_lo[lo] = y[:lo.size]
    y_up[up] = y[lo.size:lo.size + up.size]
    return coef, p, xi_lo, xi_up, y_lo, y_up, res


def _solve_once(A_rows, P_coef, labels_rows, l, problem, via_dual, use_newton):
    """One sub-problem by Clarabel or, for (S(W)), by
    :func:`~polyrank.ordinal.screened.solve_soft_primal` (``use_newton``);
    ``problem`` = (soft, c, nonneg, qp_tol, name).  Returns coef, p, the
    multipliers y_lo, y_up, the optimum (a lower bound), the solver's
    seconds and 1 when a "newton" solve went to Clarabel (else 0)."""
    soft, c, nonneg, qp_tol, name = problem
    if use_newton:
        sol = solve_soft_primal(A_rows, labels_rows, l, c, qp_tol)
        if sol is not None:
            return (*sol, 0)
    if via_dual:
        coef, p, y_lo, y_up, res = _solve_sub_dual(A_rows, labels_rows, l, soft, c,
                                                   qp_tol, name)
        return coef, p, y_lo, y_up, res.lower_bound, res.solve_time_s, 0
    coef, p, _, _, y_lo, y_up, res = _solve_sub(A_rows, P_coef, labels_rows, l, soft, c,
                                                nonneg, qp_tol, name)
    return coef, p, y_lo, y_up, res.primal_objective, res.solve_time_s, int(use_newton)


def _solve_sub_dual(K_rows, labels_rows, l, soft, c, qp_tol, name):
    # c: (r,) slack penalty per object of the working set
    """Solve (H-bar(W)), (H~(W)), (S-bar(W)) or (S~(W)) through its
    Lagrangian dual (the fixed-margin dual of Shashua & Levin, the paper's
    ref. [6])::

        max  1'(a + b) - 1/4 (a - b)' K_W (a - b)
        s.t. sum_{i in W, l_i = k} a_i = sum_{i in W, l_i = k - 1} b_i  (k = 1..l)
             0 <= a, b (<= c for the soft margin)

    with a_i (b_i) the multiplier of the lower (upper) constraint of object
    i.  Then lambda_W = (a - b) / 2 and p = minus the multipliers of the
    equalities solve the sub-problem (KKT).  The primal form itself is
    degenerate: every lambda + null(K_W) is optimal, an unbounded optimal
    face on which Clarabel's interior point stops with NumericalError for
    the hard margin; the dual's optimal set is bounded (Slater)."""
    r = K_rows.shape[0]
    lo = np.flatnonzero(labels_rows >= 1)
    up = np.flatnonzero(labels_rows <= l - 1)
    sel = np.r_[lo, up]
    sign = np.r_[np.ones(lo.size), -np.ones(up.size)]
    M = sign[:, None] * K_rows[np.ix_(sel, sel)] * sign[None, :]
    nz = sel.size
    A_eq = sp.csr_matrix(
        (np.r_[np.ones(lo.size), -np.ones(up.size)],
         (np.r_[labels_rows[lo] - 1, labels_rows[up]], np.arange(nz))), shape=(l, nz))
    if soft:
        G = sp.vstack([-sp.identity(nz), sp.identity(nz)], format="csc")
        h = np.r_[np.zeros(nz), c[lo], c[up]]
    else:
        G = -sp.identity(nz, format="csc")
        h = np.zeros(nz)
    try:
        res = solve_qp(0.5 * (M + M.T) * 0.5, -np.ones(nz), A_eq=A_eq, b_eq=np.zeros(l),
                       G=G, h=h, tol=qp_tol, max_iter=500)
    except RuntimeError as exc:
        raise _qp_failure(exc, name, soft, "Clarabel on its dual") from None
    z = np.maximum(res.x, 0.0)
    y_lo = np.zeros(r)
    y_up = np.zeros(r)
    y_lo[lo] = z[:lo.size]
    y_up[up] = z[lo.size:]
    coef = 0.5 * (y_lo - y_up)
    p = -res.dual["eq"]
    # the dual's optimum, a lower bound on the sub-problem's optimum
    res.lower_bound = -res.primal_objective
    return coef, p, y_lo, y_up, res


# -------------------------------------------------------------------- driver

def _kernel_columns(X, rows, kernel, params) -> np.ndarray:
    """kappa(x^i, x^j) for all i and the objects j in ``rows``: (n, |rows|);
    CSR X (linear kernel) by a sparse product."""
    if sp.issparse(X):
        return np.asarray((X @ X[rows].T).toarray(), dtype=np.float64)
    # direct formulas (sklearn's pairwise_kernels validates its input on every
    # call: milliseconds per sub-problem); the whole QP uses kernel_matrix
    Y = X[rows]
    if kernel == "rbf":
        out = np.empty((X.shape[0], Y.shape[0]))
        _kernels.rbf_columns(X, Y, params["gamma"], out)
        return out
    G = X @ Y.T
    if kernel == "poly":
        G *= params["gamma"]
        G += params["coef0"]
        G **= params["degree"]
    return G


def _kernel_params(kernel, gamma, degree, coef0, n_features):
    if kernel == "precomputed":
        raise ValueError("kernel: 'precomputed' is not supported here (the "
                         "generation algorithms compute kernel columns on demand)")
    return check_kernel_params(kernel, gamma, degree, coef0, n_features)


def _check_problem(X, labels, margin, representation, method, subproblem_solver, c,
                   nonneg, kernel, gamma, degree, coef0, sample_weight, init_scores):
    """Validate the problem of :func:`solve_ordinal`; return X (float64,
    dense or CSR), the labels and l, the per-object penalties c_i, the
    initial scores and the checked kernel parameters."""
    if margin not in MARGINS:
        raise ValueError(f"margin: expected one of {MARGINS}, got {margin!r}")
    if representation not in REPRESENTATIONS:
        raise ValueError(f"representation: expected one of {REPRESENTATIONS}, "
                         f"got {representation!r}")
    if method not in METHODS:
        raise ValueError(f"method: expected one of {METHODS}, got {method!r}")
    if subproblem_solver not in SUBPROBLEM_SOLVERS:
        raise ValueError(f"subproblem_solver: expected one of {SUBPROBLEM_SOLVERS}, "
                         f"got {subproblem_solver!r}")
    if subproblem_solver == "newton" and not (margin == "soft" and representation == "primal"
                                              and not nonneg):
        raise ValueError("subproblem_solver: 'newton' solves the soft margin primal (S) "
                         "only (margin='soft', representation='primal', nonneg=False), got "
                         f"margin={margin!r}, representation={representation!r}, "
                         f"nonneg={nonneg!r}")
    c = check_positive(c, "c")
    if not isinstance(nonneg, (bool, np.bool_)):
        raise TypeError(f"nonneg: expected a bool, got {type(nonneg).__name__}")
    X = check_X(X, kernel)
    n, m = X.shape
    labels, l = check_labels(labels, n)
    c_obj = np.full(n, c)
    if sample_weight is not None:
        if margin != "soft":
            raise ValueError("sample_weight: needs margin='soft' (the hard margin "
                             "problem has no per-object penalty to weight)")
        sw = as_float_array(sample_weight, "sample_weight", ndim=1, shape=(n,))
        if np.any(sw < 0):
            raise ValueError("sample_weight: weights must be >= 0")
        c_obj = c * sw
    primal = representation == "primal"
    if primal and kernel != "linear":
        raise ValueError(f"kernel: the primal representation ((H), (S)) needs "
                         f"kernel='linear', got {kernel!r}; use representation='dual'")
    if primal and nonneg:
        raise ValueError("nonneg: lambda >= 0 needs representation='dual' (H~+)")
    params = _kernel_params(kernel, gamma, degree, coef0, m)
    if init_scores is None:
        init_scores = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    else:
        init_scores = as_float_array(init_scores, "init_scores", ndim=1, shape=(n,))
    return X, labels, l, c_obj, init_scores, params


class _Search:
    """Step 3 of the row generation: the objects outside W whose constraints
    the scores f violate, the ``add_per_iter`` worst chosen.  Holds the
    buffers reused across iterations: ``thr_ext`` (-inf, p_1..p_l, +inf),
    ``in_w`` (membership of W), the violations and ``chosen`` (room for
    ``add_per_iter`` rows and ``max(1, add_per_iter // 2)`` columns)."""

    def __init__(self, labels, l, add_per_iter, tol):
        n = labels.size
        self.labels, self.add_per_iter, self.tol = labels, add_per_iter, tol
        self.thr_ext = np.empty(l + 2)
        self.thr_ext[0], self.thr_ext[-1] = -np.inf, np.inf
        self.v_lo = np.empty(n)
        self.v_up = np.empty(n)
        self.chosen = np.empty(add_per_iter + max(1, add_per_iter // 2), dtype=np.int64)
        self.in_w = np.zeros(n, dtype=bool)

    def run(self, f, p):
        """Set the thresholds p; return (largest violation, number of
        violated objects, number chosen into ``chosen``)."""
        self.thr_ext[1:-1] = p
        big, n_viol = _kernels.violations(f, self.labels, self.thr_ext, self.in_w,
                                          self.v_lo, self.v_up)
        n_new = _kernels.select_violated(self.v_lo, self.v_up, self.add_per_iter,
                                         self.tol, self.chosen)
        return big, n_viol, n_new


def _upper_bound(reg, f, labels, thr_ext, c_obj):
    """Upper bound on the whole problem's optimum at the scores f (the trace's
    ``primal``): the soft objective with every slack (``c_obj`` given), or
    for the hard margin the objective of the iterate scaled by 1 / (1 - v),
    v the largest violation over all of N (NaN when v >= 1)."""
    if c_obj is not None:
        return reg + _kernels.soft_slacks_weighted(f, labels, thr_ext, c_obj)
    n = f.size
    # over all of N (W included, where it is only the sub-solver's rounding)
    v_all, _ = _kernels.violations(f, labels, thr_ext, np.zeros(n, dtype=bool),
                                   np.empty(n), np.empty(n))
    v_all = max(v_all, 0.0)
    return reg / (1.0 - v_all) ** 2 if v_all < 1.0 else math.nan


def _add_kernel_columns(Kcols, X, w_size, new, kernel, params):
    """Append the kernel columns of the objects ``new`` after the first
    ``w_size`` columns of Kcols, growing its buffer geometrically; return
    the (possibly new) buffer."""
    n = Kcols.shape[0]
    if w_size + new.size > Kcols.shape[1]:
        grown = np.empty((n, min(n, 2 * Kcols.shape[1] + new.size)))
        grown[:, :w_size] = Kcols[:, :w_size]
        Kcols = grown
    Kcols[:, w_size:w_size + new.size] = _kernel_columns(X, new, kernel, params)
    return Kcols


class _DualCD:
    """The SMO sub-problem solver's warm state (``subproblem_solver=
    "dual_cd"``): K_W and the dual (a, b), grown with W.

    Sub-problems are solved loosely (:data:`DUAL_CD_LOOSE_EPS`) while objects
    outside W are violated (they only steer the search); the last one again
    to ``max(qp_tol, DUAL_CD_MIN_EPS)``.
    """

    def __init__(self, Kcols, W, c_obj, qp_tol):
        self.cap = Kcols.shape[1]
        self.KW = np.empty((self.cap, self.cap))
        self.KW[:W.size, :W.size] = Kcols[W, :W.size]
        self.a = np.zeros(self.cap)
        self.b = np.zeros(self.cap)
        self.f = np.empty(self.cap)
        self.bound = c_obj[W] if c_obj is not None else np.full(W.size, np.inf)
        self.eps = max(qp_tol, DUAL_CD_MIN_EPS)
        self.eps_now = max(self.eps, DUAL_CD_LOOSE_EPS)

    def solve(self, W, l, f, Kcols, search, fallback):
        """Solve the sub-problem on W (warm), Clarabel deciding when SMO does
        not converge in its step budget.  ``f``: the scores of the last
        solve over all N, or None; ``fallback``: (soft, c_W, qp_tol, name)
        for :func:`_solve_sub_dual`.  Returns (coef, p, y_lo, y_up, lower
        bound, seconds, SMO steps, 1 if Clarabel solved it else 0)."""
        w_size = W.size
        p = np.empty(l)
        lab_w = search.labels[W]
        sub_time = 0.0
        steps = 0
        while True:
            t_cd = time.perf_counter()
            f_given = f is not None         # f of the last solve, over all N
            if f_given:
                self.f[:w_size] = f[W]
            cd_status, st, _, lower = _kernels.dual_cd(
                self.KW[:w_size, :w_size], lab_w, l + 1, self.bound, self.a[:w_size],
                self.b[:w_size], self.f[:w_size], f_given, self.eps_now,
                1000 * w_size + 100000, p,
                DUAL_CD_GAP_TOL if self.eps_now <= self.eps else -1.0)
            sub_time += time.perf_counter() - t_cd
            steps += int(st)
            if cd_status != 0:
                # not converged in the step budget, or an unbounded direction
                # (a hard margin sub-problem that is infeasible): Clarabel
                # decides (and raises InfeasibleError when it is infeasible)
                soft, c_w, qp_tol, name = fallback
                coef, p, y_lo, y_up, res = _solve_sub_dual(
                    self.KW[:w_size, :w_size].copy(), lab_w, l, soft, c_w, qp_tol, name)
                self.a[:w_size] = y_lo
                self.b[:w_size] = y_up
                return (coef, p, y_lo, y_up, res.lower_bound, sub_time + res.solve_time_s,
                        steps, 1)
            y_lo = self.a[:w_size].copy()
            y_up = self.b[:w_size].copy()
            coef = 0.5 * (y_lo - y_up)
            if self.eps_now <= self.eps:
                break
            # solved loosely: if nothing outside W is violated, solve the
            # same W again to full accuracy (warm) before the real check
            t_chk = time.perf_counter()
            f = Kcols[:, :w_size] @ coef
            _, _, n_loose = search.run(f, p)
            sub_time += time.perf_counter() - t_chk
            if n_loose > 0:
                break
            self.eps_now = self.eps
        return coef, p, y_lo, y_up, lower, sub_time, steps, 0

    def grow(self, W, new, Kcols, c_obj):
        """Add the objects ``new`` to W: K_W's new rows and columns from
        Kcols (already holding their columns), a = b = 0 for them."""
        w_new = W.size + new.size
        if w_new > self.cap:
            self.cap = Kcols.shape[1]
            grown = np.empty((self.cap, self.cap))
            grown[:W.size, :W.size] = self.KW[:W.size, :W.size]
            self.KW = grown
            for attr in ("a", "b"):
                big = np.zeros(self.cap)
                big[:W.size] = getattr(self, attr)[:W.size]
                setattr(self, attr, big)
            self.f = np.empty(self.cap)
        W_all = np.concatenate([W, new])
        self.KW[:w_new, W.size:w_new] = Kcols[W_all, W.size:w_new]
        self.KW[W.size:w_new, :W.size] = self.KW[:W.size, W.size:w_new].T
        self.a[W.size:w_new] = 0.0
        self.b[W.size:w_new] = 0.0
        self.bound = c_obj[W_all] if c_obj is not None else np.full(w_new, np.inf)


def _solution_over_n(coef, y_lo, y_up, W, f, labels, thr_ext, n, primal, soft):
    """The last sub-problem's solution on W spread over all n objects: x
    (w, or lambda with zeros outside W), the slacks at (f, p) (zero for the
    hard margin) and the multipliers y_lo, y_up (zeros outside W)."""
    if primal:
        x = coef
    else:
        x = np.zeros(n)
        x[W] = coef
    slack_lo = np.zeros(n)
    slack_up = np.zeros(n)
    if soft:
        slack_lo = np.maximum(0.0, 1.0 - f + thr_ext[labels])
        slack_up = np.maximum(0.0, 1.0 + f - thr_ext[labels + 1])
    y_lo_n = np.zeros(n)
    y_up_n = np.zeros(n)
    y_lo_n[W] = y_lo
    y_up_n[W] = y_up
    return x, slack_lo, slack_up, y_lo_n, y_up_n


def solve_ordinal(X, labels, *, margin: str = "hard", c: float = 1.0,
                  representation: str = "dual", kernel: str = "linear",
                  gamma=None, degree: int = 3, coef0: float = 1.0,
                  nonneg: bool = False, method: str = "generation",
                  add_per_iter: int = 2, init_scores=None, tol: float = 1e-7,
                  qp_tol: float = 1e-10, max_iter: int = 10000, sample_weight=None,
                  subproblem_solver: str = "auto",
                  callback=None, callback_every: int = 1) -> SolverResult:
    """Maximise the minimum margin of an ordinal ranking by row (and column)
    generation, or solve the whole problem at once.

    ``margin``, ``representation``, ``kernel`` and ``nonneg`` select the
    paper's problem (see :data:`FORMULATIONS`):

    ===========  ==========  ===============  =======  =================
    margin       repr.       kernel           nonneg   problem / algorithm
    ===========  ==========  ===============  =======  =================
    hard         primal      linear           --       (H)  / RH
    hard         dual        linear           False    (H-bar) / RC(H-bar)
    hard         dual        rbf, poly        False    (H~) / RC(H~)
    hard         dual        any              True     (H~+) / RC(H~+)
    soft         primal      linear           --       (S)  / RS
    soft         dual        linear           False    (S-bar) / RC(S-bar)
    soft         dual        rbf, poly        False    (S~) / RC(S~)
    ===========  ==========  ===============  =======  =================

    Row generation (RH, RS; Sec. 4, 7) grows the set W of constraint rows;
    row and column generation (Sec. 4, 5, 7, 8) grows W as both the rows and
    the columns lambda_W.  Each iteration (Steps 2-5) solves the sub-problem
    on W with Clarabel, finds the objects outside W whose hard margin
    constraints ``p_{l_i} + 1 <= f_i <= p_{l_i+1} - 1`` are violated by more
    than ``tol`` and adds at most ``add_per_iter`` of the most violated ones
    (Sec. 10); it stops when none is left (Lemmas 4.1, 5.1, 7.1, 7.2: then
    the sub-problem's solution, padded with zeros, solves the whole problem).

    For the monotone variant (H~+) (Appendix A, lambda >= 0) the paper's
    lemmas do not cover column generation (a zero lambda_j may have a
    negative reduced cost); the driver therefore also prices the columns
    outside W, nu_j = (k~^j_W)'(2 lambda_W + y_+ - y_-) with the sub-problem's
    multipliers y, adds objects with nu_j < -tol and stops only when no row is
    violated and no column is priced out: the KKT conditions of (H~+).

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (n, m)
        Attribute vectors x^i (rows); sparse (used as CSR) with the linear
        kernel only.
    labels : array_like of int, shape (n,)
        Labels l_i in 0..l, every label used (see :func:`check_labels`).
    margin : {"hard", "soft"}
        Hard margin constraints (Sec. 3) or soft margin (Sec. 6).
    c : float
        Penalty c > 0 of the slacks (soft margin only; checked always).
    representation : {"primal", "dual"}
        ``"primal"``: the normal vector w itself ((H), (S); linear kernel
        only); ``"dual"``: w = X lambda or its kernel version (Sec. 3.2, 5).
    kernel : {"linear", "rbf", "poly"}
        kappa(x, y) of :mod:`polyrank.kernels`: x.y, exp(-gamma ||x-y||^2),
        (gamma x.y + coef0)^degree.  The paper's Gaussian kernel with width
        sigma is ``gamma = 1 / (2 sigma^2)``; its polynomial kernel (1 +
        x.y)^d is ``gamma=1, coef0=1, degree=d`` (Sec. 9).
    gamma, degree, coef0 : float or None, int, float
        Kernel parameters (``gamma=None``: 1 / m).
    nonneg : bool
        Add lambda >= 0 (the monotone variant (H~+), Appendix A; allowed
        with the soft margin too).  Needs ``representation="dual"``.
    method : {"generation", "full"}
        ``"generation"``: the algorithms above; ``"full"``: the whole
        problem as one QP (the paper's "GRB" column of Table 1; builds the
        n x n Gram matrix).
    add_per_iter : int
        At most this many objects added per iteration (>= 1, default 2: the
        most violated lower and upper constraints, Sec. 10; see
        :func:`polyrank.ordinal._kernels.select_violated`).
    init_scores : array_like (n,), optional
        The initial scorer of W^0 (Sec. 10); default: the sum of the
        attributes, x_1 + ... + x_m (the paper's x_1 + x_2).
    tol : float
        Violations (and, for nonneg, negative reduced costs) up to ``tol``
        count as satisfied (absolute; the constraints have right-hand side 1).
    qp_tol : float
        Clarabel's tolerances for the sub-problems; with ``"dual_cd"`` the
        KKT gap tolerance is max(qp_tol, 1e-9).
    max_iter : int
        Maximum number of sub-problems.
    subproblem_solver : {"auto", "dual_cd", "newton", "clarabel"}
        How the sub-problems (H-bar(W)), (H~(W)), (S-bar(W)), (S~(W)) of
        ``method="generation"`` are solved: ``"dual_cd"``, warm-started SMO
        on their dual (Fan, Chen and Lin's second-order pair selection, the
        thresholds from the KKT conditions; the KKT gap closed to
        max(``qp_tol``, 1e-9) in units of f); ``"clarabel"``, each one from
        scratch by Clarabel; ``"auto"``: ``"dual_cd"`` for the soft margin,
        ``"clarabel"`` for the hard margin (whose duals with low-rank
        kernels, e.g. (1 + x.y)^4 in two dimensions, have huge, weakly curved
        optimal multipliers on which SMO crawls).  A ``"dual_cd"`` solve that
        does not converge within 1000 |W| + 100000 pair updates, or meets an
        unbounded direction (an infeasible hard margin sub-problem), is
        redone by Clarabel (counted in ``n_fallback``).  While objects
        outside W are violated, ``"dual_cd"`` stops at a KKT gap of 1e-2
        (those sub-problems only choose the objects to add); a sub-problem
        whose loose solution leaves nothing violated is solved again, warm,
        to full accuracy within the same iteration.  ``"newton"`` solves the
        soft margin primal (S) and its sub-problems (S(W)), ``method="full"``
        included, as a QP over the objects near the margin only: Newton's
        method on the Huber-smoothed hinge finds them, Clarabel solves the QP
        over them with the others fixed at their bounds, and every object is
        checked against the result (:func:`polyrank.ordinal.screened.solve_soft_primal`;
        the whole problem's optimum, 3-4x faster than Clarabel on all of it on
        red wine); ``"auto"`` picks it for (S) when m + l <= 300, and a
        check that still fails after 8 QPs hands the sub-problem to Clarabel
        whole (counted in ``n_fallback``).  The hard margin primal (H), the
        monotone (H~+) and the dual representation with ``method="full"``
        use Clarabel.
    sample_weight : array_like, shape (n,), optional
        Weights w_i >= 0 of the objects (soft margin only): object i's slacks
        cost c w_i instead of c, so an integer weight is the object repeated
        and 0 removes its penalty.
    callback : callable, optional
        ``callback(info: IterInfo)`` after every sub-problem; extras
        ``n_rows`` (|W| rows), ``n_cols`` (columns: |W| or m), ``n_added``,
        ``n_violated`` (objects outside W with a violated constraint) and
        ``max_violation`` (largest violation outside W, 0 if none).
        Raising :class:`StopIteration` stops the solve.
    callback_every : int
        Call the callback every this many iterations.

    Returns
    -------
    SolverResult
        ``x``: w (m,) for ``representation="primal"``, else lambda (n,)
        (zeros outside W); ``thresholds`` p_1..p_l (l,); ``scores`` f (n,) on
        the training objects; ``predictions`` (n,) by :func:`predict_labels`;
        ``working_set`` W (int64, in the order objects were added; all of N
        for ``method="full"``); ``slack_lo``, ``slack_up`` (n,) the optimal
        slacks at (f, p) (zero for the hard margin); ``dual`` dict with the
        sub-problem's multipliers ``y_lo``, ``y_up`` (n,); ``objective``: the
        paper's objective of the whole problem at the returned point
        (||w||^2 or lambda' K lambda, plus c times the slacks for the soft
        margin, c w_i with ``sample_weight``): its optimum on convergence;
        ``primal_objective``: the upper
        bound of the last trace row (equal to ``objective`` up to rounding on
        convergence); ``dual_objective``: the last sub-problem's optimum, a
        lower bound on the whole problem's optimum (a relaxation); ``gap``;
        ``nit`` (sub-problems solved); ``n_initial`` (|W^0|); ``n_added``
        (objects added beyond W^0); ``kernel`` and ``kernel_params`` (the
        kernel's checked parameters, as :func:`polyrank.kernels.check_kernel_params`
        returns them); ``formulation``, ``algorithm`` (the paper's names); ``qp_time_s``
        (seconds inside the sub-problem solver); ``subproblem_solver``
        ("dual_cd", "newton" or "clarabel", the one used), ``n_fallback``
        (``"dual_cd"`` or ``"newton"`` solves redone by Clarabel), ``cd_steps``
        (SMO pair updates in all); ``status``, ``success``, ``message``,
        ``trace``.  In the trace, ``primal`` is an upper bound on the optimum
        of the whole problem (soft margin: the objective with all slacks;
        hard margin: the objective of the iterate scaled by 1 / (1 - v) when
        the largest violation v < 1, else NaN), ``dual`` the sub-problem's
        optimum (a lower bound): their gap goes to zero.  Per sub-problem
        the trace also has the paper's Fig. 4 breakdown, in seconds:
        ``gen_s`` (generating the sub-problem: its kernel columns and QP
        matrices), ``solve_s`` (the sub-problem solver's time) and ``feas_s``
        (the search for violated constraints, Step 3); ``cd_steps`` the SMO
        pair updates of the sub-problem (0 with Clarabel).

    Raises
    ------
    InfeasibleError (a ValueError)
        Hard margin on an instance that is not separable by the model.
    ValueError
        ``subproblem_solver="newton"`` for a problem other than (S); bad
        shapes, NaN/inf in X or init_scores, bad labels (see
        :func:`check_labels`), c <= 0, unknown margin / representation /
        method / kernel, primal representation with a non-linear kernel or
        nonneg, add_per_iter < 1, tol < 0, negative or non-finite
        ``sample_weight`` or weights with the hard margin; a sub-problem
        Clarabel cannot solve (badly scaled X or a huge c: the message says
        so).
    TypeError
        Non-numeric input or wrongly typed parameters; sparse X with a
        non-linear kernel.

    Notes
    -----
    How each sub-problem is solved with Clarabel (one call through
    :func:`polyrank.qp.solve_qp`, ``method="full"`` included; see
    ``subproblem_solver`` for the SMO alternative):

    * (H), (S), (H~+) and its soft version: the QP exactly as written in the
      paper (variables w or lambda_W, p, and the slacks).
    * (H-bar), (H~), (S-bar), (S~): their Lagrangian dual (see
      ``_solve_sub_dual``), lambda_W = (a - b) / 2 and p = minus the
      equality multipliers.  The primal form has an unbounded optimal face
      (lambda + null(K~_W)), on which Clarabel stops with ``NumericalError``
      for the hard margin; the dual's optimal set is bounded.  The tests
      check both against independent formulations (w in the primal, the
      explicit polynomial feature map, libsvm for two labels).

    The soft margin problems, as in the paper, do not constrain the order of
    the thresholds: with tiny classes the optimum can have p_k > p_{k+1}
    (the hard margin forces p_{k+1} - p_k >= 2).  :func:`predict_labels`
    applies the paper's rule max {k | f > p_k} as written.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0], [7.0]])
    >>> r = solve_ordinal(X, [0, 0, 1, 1, 2, 2], margin="hard")
    >>> r.algorithm, r.status, np.round(r.thresholds, 6).tolist()
    ('RCHbar', 'converged', [2.0, 5.0])
    >>> round(r.primal_objective, 8)     # ||w||^2 with w = 1: margin 2 between layers
    1.0
    """
    X, labels, l, c_obj, init_scores, params = _check_problem(
        X, labels, margin, representation, method, subproblem_solver, c, nonneg, kernel,
        gamma, degree, coef0, sample_weight, init_scores)
    tol = check_positive(tol, "tol", strict=False)
    qp_tol = check_positive(qp_tol, "qp_tol")
    add_per_iter = check_int(add_per_iter, "add_per_iter", minimum=1)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    n, m = X.shape
    soft = margin == "soft"
    primal = representation == "primal"
    via_dual = not primal and not nonneg
    use_cd = via_dual and method == "generation" and (
        subproblem_solver == "dual_cd" or (subproblem_solver == "auto" and soft))
    use_newton = primal and soft and not nonneg and (
        subproblem_solver == "newton"
        or (subproblem_solver == "auto" and m + l <= MAX_NEWTON_DIM))
    name = formulation_name(margin, representation, kernel, bool(nonneg))
    algorithm = algorithm_name(name) if method == "generation" else "full QP"
    runner = CallbackRunner(callback, callback_every)

    search = _Search(labels, l, add_per_iter, tol)
    thr_ext, in_w, chosen = search.thr_ext, search.in_w, search.chosen
    if method == "full":
        W = np.arange(n, dtype=np.int64)
    else:
        W = initial_working_set(init_scores, labels, l + 1)
    in_w[W] = True
    n_init = W.size
    # kernel columns kappa(x^i, x^j), j in W, in insertion order (dual only)
    Kcols = (np.empty((n, 0)) if primal
             else _add_kernel_columns(np.empty((n, n if method == "full" else
                                                max(64, 2 * W.size))),
                                      X, 0, W, kernel, params))
    cd = _DualCD(Kcols, W, c_obj if soft else None, qp_tol) if use_cd else None
    n_fallback = 0
    cd_steps = 0
    f = None                            # the scores of the last sub-problem
    status = STATUS_MAX_ITER
    qp_time = 0.0
    it = 0
    upper = lower = math.nan
    gen_pending = 0.0                   # kernel columns computed for the next sub-problem
    while it < max_iter:
        it += 1
        t_gen = time.perf_counter()
        w_size = W.size
        if primal:
            A_rows = X[W].toarray() if sp.issparse(X) else X[W]
            P_coef = np.eye(m)
        elif use_cd:
            A_rows = P_coef = cd.KW[:w_size, :w_size]   # symmetric already
        else:
            Kw = Kcols[:, :w_size]
            A_rows = Kw[W]
            P_coef = 0.5 * (A_rows + A_rows.T)
            A_rows = P_coef
        if use_cd:
            coef, p, y_lo, y_up, lower, sub_time, steps, fell_back = cd.solve(
                W, l, f, Kcols, search, (soft, c_obj[W], qp_tol, name))
            n_fallback += fell_back
            cd_steps += steps
        else:
            coef, p, y_lo, y_up, lower, sub_time, fell_back = _solve_once(
                A_rows, P_coef, labels[W], l, (soft, c_obj[W], bool(nonneg), qp_tol, name),
                via_dual, use_newton)
            n_fallback += fell_back
            steps = 0
        qp_time += sub_time
        # Fig. 4: generation = everything of this call but the solve
        gen_s = time.perf_counter() - t_gen - sub_time + gen_pending
        t_feas = time.perf_counter()
        f = np.asarray(X @ coef).ravel() if primal else Kcols[:, :w_size] @ coef
        big, n_viol, n_new = search.run(f, p)
        if nonneg:
            # reduced costs of the columns outside W (KKT of (H~+))
            nu = Kcols[:, :w_size] @ (2.0 * coef + y_up - y_lo)
            n_new = _kernels.select_columns(nu, in_w, max(1, add_per_iter // 2),
                                            tol, chosen, n_new)
        reg = float(coef @ (P_coef @ coef))
        upper = _upper_bound(reg, f, labels, thr_ext, c_obj if soft else None)
        W_solved = W
        feas_s = time.perf_counter() - t_feas
        stop = runner.record(it, upper, lower, n_rows=float(w_size),
                             n_cols=float(m if primal else w_size),
                             n_added=float(n_new), n_violated=float(n_viol),
                             max_violation=float(max(big, 0.0)), gen_s=gen_s,
                             solve_s=float(sub_time), feas_s=feas_s,
                             cd_steps=float(steps))
        if n_new == 0:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
        t_cols = time.perf_counter()
        new = chosen[:n_new].copy()
        in_w[new] = True
        if not primal:
            Kcols = _add_kernel_columns(Kcols, X, W.size, new, kernel, params)
        if use_cd:
            cd.grow(W, new, Kcols, c_obj if soft else None)
        W = np.concatenate([W, new])
        gen_pending = time.perf_counter() - t_cols
    # the solution of the last sub-problem, on W_solved (W may have grown
    # after it when max_iter was reached)
    x, slack_lo, slack_up, y_lo_n, y_up_n = _solution_over_n(
        coef, y_lo, y_up, W_solved, f, labels, thr_ext, n, primal, soft)
    return finish(
        runner, status, solver="ordinal-" + method, x=x, dual={"y_lo": y_lo_n, "y_up": y_up_n},
        primal=upper, dual_objective=lower, nit=it, unit="sub-problems",
        rule=(f"no constraint outside W violated by more than tol={tol:g} "
              f"(|W| = {W_solved.size} of n = {n})"),
        progress=f"{n_viol} objects outside W still violate a constraint",
        limit=f"max_iter={max_iter}", thresholds=p, scores=f, predictions=predict_labels(f, p),
        working_set=W_solved.copy(), slack_lo=slack_lo, slack_up=slack_up,
        objective=float(reg + float(c_obj @ (slack_lo + slack_up)) if soft else reg),
        n_added=int(W_solved.size - n_init), n_initial=int(n_init),
        formulation=name, algorithm=algorithm,
        qp_time_s=qp_time,
        subproblem_solver="dual_cd" if use_cd else "newton" if use_newton else "clarabel",
        n_fallback=n_fallback, cd_steps=cd_steps, kernel=kernel, kernel_params=params)
