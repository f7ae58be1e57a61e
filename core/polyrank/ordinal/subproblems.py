"""The sub-problem solvers of :func:`polyrank.ordinal.solve_ordinal`: one
strategy object per way of solving the problem restricted to the working
set W, behind one interface (:class:`SubproblemSolver`), chosen by
:func:`make_subproblem_solver`.

Source: ``row-column-generation-ordinal.txt`` (Izunaga et al., JORSJ 2015),
Step 2 of the algorithms RH, RC(H-bar), RC(H~), RS, RC(S-bar), RC(S~)
(Sec. 4, 5, 7, 8) and the sub-problems (H(W)), (H-bar(W)), (H~(W)),
(H~+(W)), (S(W)), (S-bar(W)), (S~(W)).

========================  =====================  ==================================
strategy                  ``subproblem_solver``  solves
========================  =====================  ==================================
:class:`ClarabelQP`       ``"clarabel"``         the QP as written: (H), (S), (H~+)
:class:`ClarabelDual`     ``"clarabel"``         the Lagrangian dual of (H-bar),
                                                 (H~), (S-bar), (S~) from scratch
:class:`DualCD`           ``"dual_cd"``          the same dual by warm-started SMO
                                                 (:func:`._kernels.dual_cd`), Clarabel
                                                 deciding when SMO does not converge
:class:`ScreenedNewton`   ``"newton"``           (S) over the objects near its margin
                                                 (:mod:`.screened`), Clarabel on the
                                                 whole sub-problem when its check fails
========================  =====================  ==================================

The data of the sub-problems is held apart from the solvers:
:class:`PrimalRows` (the rows x^i of X, ``representation="primal"``) or
:class:`KernelColumns` (the kernel columns kappa(., x^j) of the objects j
in W, grown with W; never the full n x n Gram matrix except for
``method="full"``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar, NamedTuple, Protocol, runtime_checkable

import numpy as np
import scipy.sparse as sp

from ..qp import solve_qp
from . import _kernels
from .screened import MAX_NEWTON_DIM, constraint_rows, solve_soft_primal

__all__ = ["Subproblem", "SubSolution", "SubproblemSolver", "SubproblemData", "ClarabelQP",
           "ClarabelDual", "DualCD", "ScreenedNewton", "PrimalRows", "KernelColumns",
           "make_subproblem_solver", "InfeasibleError"]

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


class InfeasibleError(ValueError):
    """The hard margin problem (H), (H-bar), (H~) or (H~+) is infeasible:
    the instance is not separable (Sec. 3.1) by the chosen model."""


@dataclass(frozen=True)
class Subproblem:
    """What every sub-problem of one solve shares.

    Attributes
    ----------
    labels : ndarray of int64, shape (n,)
        l_i in 0..l.
    l : int
        The largest label (l thresholds p_1..p_l).
    soft : bool
        Soft margin (slacks penalised by ``c_obj``) or hard margin.
    c_obj : ndarray of float64, shape (n,)
        The slack penalty c_i of every object (c, or c w_i with weights).
    nonneg : bool
        lambda >= 0 (H~+, Appendix A).
    qp_tol : float
        Tolerance of the sub-problem solvers.
    name : str
        The paper's name of the problem ("H", "Sbar" ...), for messages.
    """

    labels: np.ndarray
    l: int
    soft: bool
    c_obj: np.ndarray
    nonneg: bool
    qp_tol: float
    name: str

    @property
    def c_soft(self) -> np.ndarray | None:
        """``c_obj`` for the soft margin, None for the hard margin."""
        return self.c_obj if self.soft else None


class SubSolution(NamedTuple):
    """The solution of one sub-problem on W.

    ``coef`` (w (m,) or lambda_W (|W|,)), ``p`` (l,), the multipliers
    ``y_lo``, ``y_up`` (|W|,) of the lower and upper constraints,
    ``lower`` (the sub-problem's optimum: a lower bound on the whole
    problem's), ``seconds`` (inside the solver), ``P`` (the quadratic form
    of the objective on ``coef``: ||w||^2 = coef' P coef) and ``steps``
    (SMO pair updates; 0 for the other solvers)."""

    coef: np.ndarray
    p: np.ndarray
    y_lo: np.ndarray
    y_up: np.ndarray
    lower: float
    seconds: float
    P: np.ndarray
    steps: int = 0


# ------------------------------------------------------- the sub-problem data

@runtime_checkable
class SubproblemData(Protocol):
    """What a sub-problem reads of the data (the interface of
    :class:`PrimalRows` and :class:`KernelColumns`): the rows of the
    constraints of W, the scores of a solution over all objects, and the
    columns of objects joining W."""

    def rows(self, W) -> tuple[np.ndarray, np.ndarray]:
        """(A_W, P): f_W = A_W coef and the objective's quadratic form P.

        Parameters
        ----------
        W : ndarray of int64, shape (w,)
            The working set.

        Returns
        -------
        (ndarray, ndarray)
            A_W of shape (w, n_cols) and P of shape (n_cols, n_cols).
        """
        ...

    def scores(self, coef, w_size: int) -> np.ndarray:
        """The scores f (n,) of all objects at ``coef`` (w (m,) or
        lambda_W (w_size,))."""
        ...

    def n_cols(self, w_size: int) -> int:
        """The number of variables besides the thresholds."""
        ...

    def add(self, w_size: int, new) -> None:
        """The objects ``new`` (int64 array) join W after its first ``w_size``."""
        ...


class PrimalRows:
    """The rows x^i (i in W) of X: the sub-problems (H(W)), (S(W)) in w.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix, shape (n, m)
    """

    def __init__(self, X) -> None:
        self.X = X
        self.m = X.shape[1]

    def rows(self, W) -> tuple[np.ndarray, np.ndarray]:
        """(A_W, P): f_W = A_W w (dense (|W|, m)) and the identity (m, m)."""
        A = self.X[W].toarray() if sp.issparse(self.X) else self.X[W]
        return A, np.eye(self.m)

    def scores(self, coef, w_size: int) -> np.ndarray:
        """f = X w over all n objects."""
        return np.asarray(self.X @ coef).ravel()

    def n_cols(self, w_size: int) -> int:
        """The number of variables besides p: m."""
        return self.m

    def add(self, w_size: int, new) -> None:
        """Nothing to add: the rows are read from X on demand."""


class KernelColumns:
    """The kernel columns kappa(x^i, x^j) of the objects j in W, for all i,
    in insertion order (the dual representation, Sec. 3.2, 5).

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix, shape (n, m)
    kernel : str
    params : dict
        Checked kernel parameters.
    W : ndarray of int64
        The initial working set.
    capacity : int
        Columns allocated at first (grown geometrically).
    """

    def __init__(self, X, kernel: str, params: dict, W, capacity: int) -> None:
        self.X, self.kernel, self.params = X, kernel, params
        self.K = _add_kernel_columns(np.empty((X.shape[0], capacity)), X, 0, W, kernel,
                                     params)

    def rows(self, W) -> tuple[np.ndarray, np.ndarray]:
        """(K_W, K_W): the symmetrised kernel matrix of W, both as the rows
        of f_W = K_W lambda_W and as the objective's quadratic form."""
        Kw = self.K[:, :W.size]
        A_rows = Kw[W]
        P = 0.5 * (A_rows + A_rows.T)
        return P, P

    def scores(self, coef, w_size: int) -> np.ndarray:
        """f = K_{N,W} lambda_W over all n objects."""
        return self.K[:, :w_size] @ coef

    def n_cols(self, w_size: int) -> int:
        """The number of variables besides p: |W|."""
        return w_size

    def add(self, w_size: int, new) -> None:
        """Append the columns of the objects ``new`` after the first
        ``w_size``."""
        self.K = _add_kernel_columns(self.K, self.X, w_size, new, self.kernel, self.params)


# ------------------------------------------------------------ the strategies

@runtime_checkable
class SubproblemSolver(Protocol):
    """One way of solving the sub-problems of a solve (the interface the
    row and column generation driver, :mod:`polyrank.ordinal.generation`,
    calls; :class:`ClarabelQP`, :class:`ScreenedNewton`,
    :class:`ClarabelDual` and :class:`DualCD` implement it).

    Attributes
    ----------
    name : str
        Reported as ``SolverResult.subproblem_solver``.
    problem : Subproblem
    data : SubproblemData
    n_fallback : int
        Sub-problems this solver handed to Clarabel whole.
    cd_steps : int
        SMO pair updates in all.
    """

    n_fallback: int
    cd_steps: int

    @property
    def name(self) -> str:
        """Reported as ``SolverResult.subproblem_solver``."""
        ...

    @property
    def problem(self) -> Subproblem:
        """The sub-problems' shared data."""
        ...

    @property
    def data(self) -> SubproblemData:
        """The rows or kernel columns the sub-problems read."""
        ...

    def solve(self, W, f, search) -> SubSolution:
        """Solve the sub-problem on W.

        Parameters
        ----------
        W : ndarray of int64
            The working set.
        f : ndarray (n,) or None
            The scores of the previous sub-problem's solution (None first).
        search : object
            The driver's search for violated constraints (``run(f, p)``
            returns (largest violation, violated, chosen)).

        Returns
        -------
        SubSolution

        Raises
        ------
        InfeasibleError
            A hard margin sub-problem that is infeasible.
        ValueError
            A sub-problem Clarabel cannot solve (badly scaled data).
        """
        ...

    def grow(self, W, new) -> None:
        """The objects ``new`` join W (their kernel columns are already in
        ``data``); a solver that keeps state between sub-problems grows it."""
        ...


class _SolverBase:
    """What the sub-problem solvers share: the problem, its data, the
    counters, and no state kept between sub-problems (:meth:`grow`).

    Parameters
    ----------
    problem : Subproblem
    data : SubproblemData
    """

    name: ClassVar[str]

    def __init__(self, problem: Subproblem, data: SubproblemData) -> None:
        self.problem = problem
        self.data = data
        self.n_fallback = 0
        self.cd_steps = 0

    def grow(self, W, new) -> None:
        """Nothing is kept between sub-problems (see :class:`SubproblemSolver`)."""
        return None


class ClarabelQP(_SolverBase):
    """The sub-problem as written in the paper ((H(W)), (S(W)), (H~+(W)):
    variables w or lambda_W, p and the slacks), from scratch by Clarabel."""

    name = "clarabel"

    def solve(self, W, f, search) -> SubSolution:
        A_rows, P = self.data.rows(W)
        return self._qp(W, A_rows, P)

    def _qp(self, W, A_rows, P) -> SubSolution:
        pb = self.problem
        coef, p, _, _, y_lo, y_up, res = _solve_sub(A_rows, P, pb.labels[W], pb.l, pb.soft,
                                                    pb.c_obj[W], pb.nonneg, pb.qp_tol, pb.name)
        return SubSolution(coef, p, y_lo, y_up, res.primal_objective, res.solve_time_s, P)


class ScreenedNewton(ClarabelQP):
    """(S(W)) over the objects near its margin
    (:func:`~polyrank.ordinal.screened.solve_soft_primal`); a sub-problem
    whose check still fails goes to Clarabel whole (``n_fallback``)."""

    name = "newton"

    def solve(self, W, f, search) -> SubSolution:
        pb = self.problem
        A_rows, P = self.data.rows(W)
        sol = solve_soft_primal(A_rows, pb.labels[W], pb.l, pb.c_obj[W], pb.qp_tol)
        if sol is not None:
            coef, p, y_lo, y_up, lower, seconds = sol
            return SubSolution(coef, p, y_lo, y_up, lower, seconds, P)
        self.n_fallback += 1
        return self._qp(W, A_rows, P)


class ClarabelDual(_SolverBase):
    """(H-bar(W)), (H~(W)), (S-bar(W)), (S~(W)) through their Lagrangian
    dual, from scratch by Clarabel (:func:`_solve_sub_dual`)."""

    name = "clarabel"

    def solve(self, W, f, search) -> SubSolution:
        pb = self.problem
        K_W, P = self.data.rows(W)
        coef, p, y_lo, y_up, res = _solve_sub_dual(K_W, pb.labels[W], pb.l, pb.soft,
                                                   pb.c_obj[W], pb.qp_tol, pb.name)
        return SubSolution(coef, p, y_lo, y_up, res.lower_bound, res.solve_time_s, P)


class DualCD(_SolverBase):
    """The dual of (H-bar(W)), (H~(W)), (S-bar(W)), (S~(W)) by warm-started
    SMO (:func:`polyrank.ordinal._kernels.dual_cd`): K_W and the dual (a,
    b) are kept and grown with W (W only grows, so the previous multipliers
    padded with zeros are feasible).

    Sub-problems are solved loosely (:data:`DUAL_CD_LOOSE_EPS`) while objects
    outside W are violated (they only steer the search); the last one again
    to ``max(qp_tol, DUAL_CD_MIN_EPS)``.  A solve that does not converge in
    1000 |W| + 100000 pair updates, or meets an unbounded direction (an
    infeasible hard margin sub-problem), is redone by Clarabel on its dual
    (``n_fallback``), which raises :class:`InfeasibleError` when it is
    infeasible.

    Parameters
    ----------
    problem : Subproblem
    data : KernelColumns
        Holding the columns of ``W``.
    W : ndarray of int64
        The initial working set.
    """

    name = "dual_cd"

    data: KernelColumns

    def __init__(self, problem: Subproblem, data: KernelColumns, W) -> None:
        super().__init__(problem, data)
        Kcols = data.K
        self.cap = Kcols.shape[1]
        self.KW = np.empty((self.cap, self.cap))
        self.KW[:W.size, :W.size] = Kcols[W, :W.size]
        self.a = np.zeros(self.cap)
        self.b = np.zeros(self.cap)
        self.f = np.empty(self.cap)
        c_obj = problem.c_soft
        self.bound = c_obj[W] if c_obj is not None else np.full(W.size, np.inf)
        self.eps = max(problem.qp_tol, DUAL_CD_MIN_EPS)
        self.eps_now = max(self.eps, DUAL_CD_LOOSE_EPS)

    def solve(self, W, f, search) -> SubSolution:
        w_size = W.size
        P = self.KW[:w_size, :w_size]                  # symmetric already
        p = np.empty(self.problem.l)
        lab_w = self.problem.labels[W]
        sub_time = 0.0
        steps = 0
        while True:
            lower, seconds, st, failed = self._smo(W, f, lab_w, p)
            sub_time += seconds
            steps += st
            if failed:
                # not converged in the step budget, or an unbounded direction:
                # Clarabel decides (and raises InfeasibleError when infeasible)
                return self._fallback(W, lab_w, sub_time, steps)
            y_lo = self.a[:w_size].copy()
            y_up = self.b[:w_size].copy()
            coef = 0.5 * (y_lo - y_up)
            if self.eps_now <= self.eps:
                break
            # solved loosely: if nothing outside W is violated, solve the
            # same W again to full accuracy (warm) before the real check
            t_chk = time.perf_counter()
            f = self.data.scores(coef, w_size)
            _, _, n_loose = search.run(f, p)
            sub_time += time.perf_counter() - t_chk
            if n_loose > 0:
                break
            self.eps_now = self.eps
        self.cd_steps += steps
        return SubSolution(coef, p, y_lo, y_up, lower, sub_time, P, steps)

    def _smo(self, W, f, lab_w, p) -> tuple[float, float, int, bool]:
        """One SMO run on W from the current (a, b); fills ``p``.  Returns
        (lower bound, seconds, pair updates, whether it failed)."""
        w_size = W.size
        t_cd = time.perf_counter()
        f_given = f is not None         # f of the last solve, over all N
        if f_given:
            self.f[:w_size] = f[W]
        # the whole buffer (C-contiguous), not KW[:w, :w] (C-contiguous only when
        # W fills it): one layout, so numba compiles dual_cd once
        cd_status, st, _, lower = _kernels.dual_cd(
            self.KW, lab_w, self.problem.l + 1, self.bound,
            self.a[:w_size], self.b[:w_size], self.f[:w_size], f_given, self.eps_now,
            1000 * w_size + 100000, p,
            DUAL_CD_GAP_TOL if self.eps_now <= self.eps else -1.0)
        return lower, time.perf_counter() - t_cd, int(st), cd_status != 0

    def _fallback(self, W, lab_w, sub_time, steps) -> SubSolution:
        """The sub-problem on W by Clarabel on its dual, after SMO failed."""
        pb = self.problem
        w_size = W.size
        coef, p, y_lo, y_up, res = _solve_sub_dual(
            self.KW[:w_size, :w_size].copy(), lab_w, pb.l, pb.soft, pb.c_obj[W],
            pb.qp_tol, pb.name)
        self.a[:w_size] = y_lo
        self.b[:w_size] = y_up
        self.n_fallback += 1
        self.cd_steps += steps
        return SubSolution(coef, p, y_lo, y_up, res.lower_bound, sub_time + res.solve_time_s,
                           self.KW[:w_size, :w_size], steps)

    def grow(self, W, new) -> None:
        """Add the objects ``new`` to W: K_W's new rows and columns from the
        kernel columns (already holding theirs), a = b = 0 for them."""
        Kcols = self.data.K
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
        c_obj = self.problem.c_soft
        self.bound = c_obj[W_all] if c_obj is not None else np.full(w_new, np.inf)


def make_subproblem_solver(choice: str, problem: Subproblem, data: SubproblemData, W, *,
                           primal: bool, method: str) -> SubproblemSolver:
    """The strategy of ``subproblem_solver=choice`` for this problem.

    Parameters
    ----------
    choice : {"auto", "dual_cd", "newton", "clarabel"}
        As :func:`~polyrank.ordinal.solve_ordinal`'s ``subproblem_solver``
        (checked there): ``"auto"`` picks SMO for the soft margin dual
        problems, the screened Newton solver for (S) with m + l <=
        :data:`~polyrank.ordinal.screened.MAX_NEWTON_DIM`, else Clarabel.
    problem : Subproblem
    data : PrimalRows or KernelColumns
        Already holding the columns of the initial W.
    W : ndarray of int64
        The initial working set.
    primal : bool
        ``representation="primal"``.
    method : {"generation", "full"}
        SMO only for ``"generation"`` (its warm start needs a growing W).

    Returns
    -------
    SubproblemSolver
    """
    via_dual = not primal and not problem.nonneg
    if via_dual and method == "generation" and (
            choice == "dual_cd" or (choice == "auto" and problem.soft)):
        if not isinstance(data, KernelColumns):      # the dual representation's data
            raise TypeError(f"data: the dual representation reads KernelColumns, got "
                            f"{type(data).__name__}")
        return DualCD(problem, data, W)
    if primal and problem.soft and not problem.nonneg and (
            choice == "newton"
            or (choice == "auto" and data.n_cols(0) + problem.l <= MAX_NEWTON_DIM)):
        return ScreenedNewton(problem, data)
    return ClarabelDual(problem, data) if via_dual else ClarabelQP(problem, data)


# ------------------------------------------------- Clarabel on one sub-problem

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


# ----------------------------------------------------------- kernel columns

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
