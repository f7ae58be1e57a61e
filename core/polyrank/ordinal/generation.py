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

Each sub-problem is solved by one strategy object of
:mod:`polyrank.ordinal.subproblems` (:class:`~polyrank.ordinal.subproblems.SubproblemSolver`:
Clarabel on the QP, Clarabel on its dual, warm SMO, or the screened Newton
solver), chosen once per solve by ``subproblem_solver``.  The sub-problems
of the dual representation ((H-bar(W)), (H~(W)),
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

import functools
import inspect
import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..kernels import check_kernel_params
from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..validation import as_float_array, check_design, check_int, check_positive
from ..validation import check_ordinal_labels as check_labels
from . import _kernels
from .subproblems import (
    InfeasibleError,
    KernelColumns,
    PrimalRows,
    Subproblem,
    SubproblemSolver,
    SubSolution,
    make_subproblem_solver,
)

__all__ = ["solve_ordinal", "solve_ordinal_trusted", "check_labels", "InfeasibleError",
           "FORMULATIONS", "formulation_name", "algorithm_name", "predict_labels",
           "initial_working_set", "MARGINS", "REPRESENTATIONS", "METHODS",
           "SUBPROBLEM_SOLVERS"]

MARGINS = ("hard", "soft")
REPRESENTATIONS = ("primal", "dual")
METHODS = ("generation", "full")
SUBPROBLEM_SOLVERS = ("auto", "dual_cd", "newton", "clarabel")
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
    if p.ndim == 1 and f.ndim == 1 and np.all(p[1:] >= p[:-1]) and not (
            np.isnan(p).any() or np.isnan(f).any()):
        # ordered thresholds: the number of p_k < f, by bisection (the same labels)
        return np.searchsorted(p, f, side="left").astype(np.int64)
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


# -------------------------------------------------------------------- driver

def _kernel_params(kernel, gamma, degree, coef0, n_features):
    if kernel == "precomputed":
        raise ValueError("kernel: 'precomputed' is not supported here (the "
                         "generation algorithms compute kernel columns on demand)")
    return check_kernel_params(kernel, gamma, degree, coef0, n_features)


@dataclass(frozen=True)
class _Options:
    """The checked settings of one :func:`solve_ordinal` (see there)."""

    margin: str
    representation: str
    kernel: str
    nonneg: bool
    method: str
    subproblem_solver: str
    c: float
    add_per_iter: int
    tol: float
    qp_tol: float
    max_iter: int

    @property
    def soft(self) -> bool:
        return self.margin == "soft"

    @property
    def primal(self) -> bool:
        return self.representation == "primal"


def _check_choices(margin, representation, method, subproblem_solver, nonneg) -> None:
    """The named choices of :func:`solve_ordinal` and their combinations."""
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


def _check_options(margin, representation, method, subproblem_solver, c, nonneg, kernel,
                   tol, qp_tol, add_per_iter, max_iter, weighted: bool) -> _Options:
    """Validate the settings of :func:`solve_ordinal` (no data: also the
    trusted path checks them); ``weighted``: sample weights were given."""
    _check_choices(margin, representation, method, subproblem_solver, nonneg)
    c = check_positive(c, "c")
    if not isinstance(nonneg, (bool, np.bool_)):
        raise TypeError(f"nonneg: expected a bool, got {type(nonneg).__name__}")
    if weighted and margin != "soft":
        raise ValueError("sample_weight: needs margin='soft' (the hard margin "
                         "problem has no per-object penalty to weight)")
    primal = representation == "primal"
    if primal and kernel != "linear":
        raise ValueError(f"kernel: the primal representation ((H), (S)) needs "
                         f"kernel='linear', got {kernel!r}; use representation='dual'")
    if primal and nonneg:
        raise ValueError("nonneg: lambda >= 0 needs representation='dual' (H~+)")
    return _Options(margin, representation, kernel, bool(nonneg), method, subproblem_solver,
                    c, check_int(add_per_iter, "add_per_iter", minimum=1),
                    check_positive(tol, "tol", strict=False), check_positive(qp_tol, "qp_tol"),
                    check_int(max_iter, "max_iter", minimum=1))


def _check_data(X, labels, kernel, sample_weight, init_scores):
    """Validate the data of :func:`solve_ordinal`: X (float64, dense or
    CSR), the labels and l, the weights and the initial scores."""
    X = check_X(X, kernel)
    n = X.shape[0]
    labels, l = check_labels(labels, n)
    if sample_weight is not None:
        sample_weight = as_float_array(sample_weight, "sample_weight", ndim=1, shape=(n,))
        if np.any(sample_weight < 0):
            raise ValueError("sample_weight: weights must be >= 0")
    if init_scores is not None:
        init_scores = as_float_array(init_scores, "init_scores", ndim=1, shape=(n,))
    return X, labels, l, sample_weight, init_scores


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

    def price(self, nu, n_new):
        """Column generation of (H~+): add to ``chosen`` (after its first
        ``n_new``) at most ``max(1, add_per_iter // 2)`` objects outside W
        whose reduced cost ``nu`` is below -tol; return the new count."""
        return _kernels.select_columns(nu, self.in_w, max(1, self.add_per_iter // 2),
                                       self.tol, self.chosen, n_new)


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
    opts = _check_options(margin, representation, method, subproblem_solver, c, nonneg, kernel,
                          tol, qp_tol, add_per_iter, max_iter, sample_weight is not None)
    X, labels, l, sample_weight, init_scores = _check_data(X, labels, kernel, sample_weight,
                                                           init_scores)
    params = _kernel_params(kernel, gamma, degree, coef0, X.shape[1])
    return _solve_checked(X, labels, l, opts, params, sample_weight, init_scores,
                          callback, callback_every)


def solve_ordinal_trusted(X, labels, *, sample_weight=None, callback=None,
                          callback_every: int = 1, working_set=None,
                          **options) -> SolverResult:
    """:func:`solve_ordinal` on data a caller has validated already: the
    trusted path of the estimators (validate once, ``CONTRIBUTING.md``).

    Parameters
    ----------
    X : ndarray of float64 or scipy.sparse.csr_matrix (canonical), shape (n, m)
        Finite, as :func:`polyrank.validation.validate_X` or
        :func:`polyrank.validation.check_design` returns it (sparse only
        with the linear kernel).
    labels : ndarray of int64, shape (n,)
        0..l with every label used (as :func:`check_labels` returns them).
    sample_weight : ndarray of float64 (n,) or None
        Finite and >= 0 (as :func:`polyrank.validation.check_sample_weight`
        returns them).
    callback, callback_every :
        As :func:`solve_ordinal`.
    working_set : ndarray of int64, optional
        The initial working set W^0 (a warm start: an earlier solve's
        ``working_set`` on the same data, e.g. at another c), distinct
        object indices in [0, n); None: W^0 from ``init_scores`` (Sec. 10).
        Ignored by ``method="full"``, whose working set is every object.
    **options
        The other keyword arguments of :func:`solve_ordinal` (``margin``,
        ``c``, ``kernel`` ...), checked as there (they cost no pass over the
        data); ``init_scores``, if given, is trusted too (float64 (n,)).

    Returns
    -------
    SolverResult
        As :func:`solve_ordinal`.

    Raises
    ------
    ValueError, TypeError
        Bad settings, as :func:`solve_ordinal`; the data is not checked.
    """
    kw = trusted_options(solve_ordinal, options)
    opts = _check_options(kw["margin"], kw["representation"], kw["method"],
                          kw["subproblem_solver"], kw["c"], kw["nonneg"], kw["kernel"],
                          kw["tol"], kw["qp_tol"], kw["add_per_iter"], kw["max_iter"],
                          sample_weight is not None)
    params = _kernel_params(kw["kernel"], kw["gamma"], kw["degree"], kw["coef0"], X.shape[1])
    return _solve_checked(X, labels, int(labels.max()), opts, params, sample_weight,
                          kw["init_scores"], callback, callback_every, working_set)


class _Outcome(NamedTuple):
    """Where the generation loop stopped: its status and iterations, the
    last sub-problem's solution (on ``W_solved``), the scores f, its
    objective ``reg`` and upper bound, the violated objects left, the
    thresholds (-inf, p, +inf) and the seconds inside the sub-problem solver."""

    status: str
    it: int
    sol: SubSolution
    f: np.ndarray
    W_solved: np.ndarray
    reg: float
    upper: float
    n_viol: int
    thr_ext: np.ndarray
    qp_time: float


def _solve_checked(X, labels, l, opts: _Options, params, sample_weight, init_scores,
                   callback, callback_every, working_set=None) -> SolverResult:
    """:func:`solve_ordinal` after its checks: set up W^0, the sub-problem
    data and solver, run the generation loop, assemble the result."""
    n = X.shape[0]
    c_obj = np.full(n, opts.c) if sample_weight is None else opts.c * sample_weight
    if init_scores is None:
        init_scores = np.asarray(X.sum(axis=1), dtype=np.float64).ravel()
    name = formulation_name(opts.margin, opts.representation, opts.kernel, opts.nonneg)
    runner = CallbackRunner(callback, callback_every)
    search = _Search(labels, l, opts.add_per_iter, opts.tol)
    full = opts.method == "full"
    if full:
        W = np.arange(n, dtype=np.int64)
    elif working_set is not None:
        W = np.array(working_set, dtype=np.int64)
    else:
        W = initial_working_set(init_scores, labels, l + 1)
    search.in_w[W] = True
    # kernel columns kappa(x^i, x^j), j in W, in insertion order (dual only)
    data = (PrimalRows(X) if opts.primal
            else KernelColumns(X, opts.kernel, params, W, n if full else max(64, 2 * W.size)))
    problem = Subproblem(labels, l, opts.soft, c_obj, opts.nonneg, opts.qp_tol, name)
    solver = make_subproblem_solver(opts.subproblem_solver, problem, data, W,
                                    primal=opts.primal, method=opts.method)
    out = _generate(solver, search, W, opts.max_iter, runner)
    return _result(out, solver, opts, runner, params, n_init=W.size)


def _generate(solver: SubproblemSolver, search: _Search, W, max_iter: int,
              runner: CallbackRunner) -> _Outcome:
    """The loop of Steps 2-5: solve on W, search the violated constraints
    (and, for (H~+), price the columns) over N, grow W, until nothing is
    violated, the callback stops or ``max_iter`` sub-problems."""
    problem, data = solver.problem, solver.data
    f = None                            # the scores of the last sub-problem
    status = STATUS_MAX_ITER
    qp_time = 0.0
    it = 0
    gen_pending = 0.0                   # kernel columns computed for the next sub-problem
    while it < max_iter:
        it += 1
        t_gen = time.perf_counter()
        w_size = W.size
        sol = solver.solve(W, f, search)
        qp_time += sol.seconds
        # Fig. 4: generation = everything of this call but the solve
        gen_s = time.perf_counter() - t_gen - sol.seconds + gen_pending
        t_feas = time.perf_counter()
        f = data.scores(sol.coef, w_size)
        big, n_viol, n_new = search.run(f, sol.p)
        if problem.nonneg:
            # reduced costs of the columns outside W (KKT of (H~+))
            n_new = search.price(data.K[:, :w_size] @ (2.0 * sol.coef + sol.y_up - sol.y_lo),
                                 n_new)
        reg = float(sol.coef @ (sol.P @ sol.coef))
        upper = _upper_bound(reg, f, problem.labels, search.thr_ext, problem.c_soft)
        W_solved = W
        stop = runner.record(it, upper, sol.lower, n_rows=float(w_size),
                             n_cols=float(data.n_cols(w_size)),
                             n_added=float(n_new), n_violated=float(n_viol),
                             max_violation=float(max(big, 0.0)), gen_s=gen_s,
                             solve_s=float(sol.seconds), feas_s=time.perf_counter() - t_feas,
                             cd_steps=float(sol.steps))
        if n_new == 0:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
        t_cols = time.perf_counter()
        new = search.chosen[:n_new].copy()
        search.in_w[new] = True
        data.add(W.size, new)
        solver.grow(W, new)
        W = np.concatenate([W, new])
        gen_pending = time.perf_counter() - t_cols
    return _Outcome(status, it, sol, f, W_solved, reg, upper, n_viol, search.thr_ext, qp_time)


def _result(out: _Outcome, solver: SubproblemSolver, opts: _Options, runner: CallbackRunner,
            params, n_init: int) -> SolverResult:
    """The :class:`SolverResult` of the last sub-problem's solution, on
    ``W_solved`` (W may have grown after it when max_iter was reached)."""
    problem, sol, f, W_solved = solver.problem, out.sol, out.f, out.W_solved
    labels, c_obj, n = problem.labels, problem.c_obj, problem.labels.size
    x, slack_lo, slack_up, y_lo_n, y_up_n = _solution_over_n(
        sol.coef, sol.y_lo, sol.y_up, W_solved, f, labels, out.thr_ext, n, opts.primal,
        opts.soft)
    return finish(
        runner, out.status, solver="ordinal-" + opts.method, x=x,
        dual={"y_lo": y_lo_n, "y_up": y_up_n}, primal=out.upper, dual_objective=sol.lower,
        nit=out.it, unit="sub-problems",
        rule=(f"no constraint outside W violated by more than tol={opts.tol:g} "
              f"(|W| = {W_solved.size} of n = {n})"),
        progress=f"{out.n_viol} objects outside W still violate a constraint",
        limit=f"max_iter={opts.max_iter}", thresholds=sol.p, scores=f,
        predictions=predict_labels(f, sol.p), working_set=W_solved.copy(),
        slack_lo=slack_lo, slack_up=slack_up,
        objective=float(out.reg + float(c_obj @ (slack_lo + slack_up)) if opts.soft
                        else out.reg),
        n_added=int(W_solved.size - n_init), n_initial=int(n_init),
        formulation=problem.name,
        algorithm=algorithm_name(problem.name) if opts.method == "generation" else "full QP",
        qp_time_s=out.qp_time, subproblem_solver=solver.name, n_fallback=solver.n_fallback,
        cd_steps=solver.cd_steps, kernel=opts.kernel, kernel_params=params)


@functools.cache
def _keyword_defaults(driver) -> dict:
    """The keyword-only parameters of ``driver`` and their defaults (read
    once per driver: ``inspect.signature`` costs more than a small fit's
    Newton step)."""
    return {k: v.default for k, v in inspect.signature(driver).parameters.items()
            if v.kind is v.KEYWORD_ONLY}


def trusted_options(driver, options: dict) -> dict:
    """The keyword-only arguments of ``driver`` (a public driver) with their
    defaults, updated by ``options``: the settings of its trusted path.

    Raises
    ------
    TypeError
        If ``options`` holds a name ``driver`` does not take.
    """
    defaults = _keyword_defaults(driver)
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise TypeError(f"{driver.__name__}_trusted: unknown keyword arguments {unknown}")
    return {**defaults, **options}
