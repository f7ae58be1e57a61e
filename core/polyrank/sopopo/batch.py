"""Batch label ranking by successive soft projections (Sec. 4, Fig. 5).

Solves the batch problem Eq. 6 (in the pseudo-example form Eq. 24/26, one
slack per piece with C_i = C sigma_i) by dual block-coordinate ascent on
Eq. 30: each step frees the dual variables of one piece and solves the
resulting soft projection Eq. 35 exactly with SOPOPO (Fig. 3).  Theorem 6
guarantees convergence of the dual to the optimum.

:func:`sopopo_batch` validates its input and delegates to :func:`solve`,
which trusts it (the entry of :class:`~polyrank.LabelRanker`, whose input
scikit-learn's ``validate_data`` has checked once).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._csr import _NO_INDEX, row_arrays
from .._memory import check_allocation
from ..kernels import KERNELS, check_kernel_params, kernel_matrix
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
from ..validation import as_float_array, check_design, check_gram, check_int, check_positive
from . import _kernels
from .graph import build_pieces

__all__ = ["sopopo_batch", "solve", "check_gram", "ORDERS",
           "STATUS_STALLED", "STATUS_NUMERICAL"]

# STATUS_STALLED (defined in polyrank.result, exported here too): a whole
# pass leaves the dual unchanged before the gap tolerance is met.
#: greedy steps smaller than this (relative to |D|) are rounding noise
_GREEDY_MIN = 1e-16
#: a greedy pass whose largest step is below this (relative to |D|) is followed by
#: a cyclic pass: near the optimum the greedy choice can keep picking pieces whose
#: computed increase is rounding noise while the primal, more sensitive than the
#: dual (P - P* ~ |alpha - alpha*|), stays above the tolerance
_GREEDY_NOISE = 1e-13

#: Piece orders: "shuffle" (a fresh random permutation every pass),
#: "cyclic" (pieces in input order), "greedy" (the piece with the largest
#: dual increase at every step, as assumed in the analysis of Sec. 4.3).
ORDERS = ("shuffle", "cyclic", "greedy")

def _check_targets(Y, m: int) -> np.ndarray:
    Y = as_float_array(Y, "Y", ndim=2)
    if Y.shape[0] != m:
        raise ValueError(f"Y: expected {m} rows (one per example of X), got {Y.shape[0]}")
    if Y.shape[1] < 2:
        raise ValueError(f"Y: needs at least 2 labels (columns), got {Y.shape[1]}")
    return Y


def sopopo_batch(X, Y, C: float = 1.0, *, decomposition="all_pairs",
                 normalize: bool = False, kernel: str = "linear", gamma=None,
                 degree: int = 3, coef0: float = 1.0, order: str = "shuffle",
                 tol: float = 1e-3, atol: float = 0.0, max_iter: int = 1000,
                 callback=None, callback_every: int = 1,
                 random_state=None, sample_weight=None,
                 shrinking: bool = True) -> SolverResult:
    """Fit a label ranker by the iterative soft-projection procedure of Fig. 5.

    Minimises Eq. 6 of ``sopopo-label-ranking.txt``::

        1/2 sum_r ||w_r||^2 + C sum_i w_i sum_j sigma_j xi_j^i
        s.t. w_r.x_i - w_s.x_i >= y^i_r - y^i_s - xi_j^i  for (r, s) in E_j(y^i)

    (w_i the sample weights, 1 by default) over w_1..w_k (or their kernel
    expansions).  One iteration is one pass over all pieces (for
    ``order="greedy"``: as many greedy steps as there are pieces).  After every
    pass the primal objective (Eq. 24), the dual objective (Eq. 30) and their
    gap are recorded in the trace.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (m, n)
        Instances; for ``kernel="precomputed"`` the Gram matrix (m, m),
        which must be symmetric positive semidefinite (:func:`check_gram`).
        A sparse matrix (any format; used as CSR) only with the linear
        kernel: the passes then touch only its non-zeros.
    Y : array_like, shape (m, k)
        Target rankings y^i, one per row (the paper's γ^i, Sec. 2; real
        valued, 0/1 multilabel rows are a special case).  Rows with all
        entries equal are rejected.
    C : float
        Slack penalty C > 0.
    decomposition : str or callable
        ``"all_pairs"``, ``"adjacent_layers"``, ``"top_vs_rest"`` (Fig. 2),
        or ``callable(y) -> [(A, B[, sigma]), ...]`` for a row y of Y,
        checked against the conditions of Sec. 2.
    normalize : bool
        Use sigma_j = 1/d_i (the average piece loss) instead of sigma_j = 1.
    kernel : {"linear", "rbf", "poly", "precomputed"}
        Mercer kernel (end of Sec. 4.2).  The linear kernel with a
        non-greedy order keeps W (k, n) explicitly; every other case keeps
        dual coefficients and the training predictions F = K coef.
    gamma, degree, coef0 : float, int, float
        Kernel parameters (see :mod:`polyrank.kernels`; ``gamma`` is the
        rbf/poly width).
    order : {"shuffle", "cyclic", "greedy"}
        Order in which pieces are visited (see :data:`ORDERS`).  "greedy"
        costs a sweep over all pieces per update; when no piece offers an
        increase above rounding noise (1e-16 |D|), it makes a cyclic pass.
    tol, atol : float
        Stop when ``P - D <= max(atol, tol * P)`` after a pass.  If a whole
        pass leaves every dual variable unchanged before that, the solve
        stops with ``status=STATUS_STALLED``, ``success=False``.
    max_iter : int
        Maximum number of passes.
    callback : callable, optional
        ``callback(info: IterInfo)`` after each pass; extras
        ``dual_increase`` (total over the pass) and ``max_dual_increase``.
        Raising :class:`StopIteration` stops the solve.
    callback_every : int
        Call the callback every this many passes.
    random_state : int, Generator or None
        Seed for ``order="shuffle"``.
    sample_weight : array_like, shape (m,), optional
        Per-example weights w_i >= 0: every piece of example i gets the
        bound C_i = C w_i sigma_j (an integer weight is the example repeated
        that many times; weight 0 removes it).
    shrinking : bool, default=True
        Visit the pieces example by example and keep an active set, in the
        manner of LIBLINEAR's Crammer-Singer solver (see Notes).  False is
        the paper's plain procedure of Fig. 5 (one soft projection per piece,
        ``order`` over all pieces, the objectives after every pass), which
        the reproductions of the paper's figures use.  Ignored for
        ``order="greedy"``.

    Returns
    -------
    SolverResult
        ``x``: W (k, n) for the explicit linear form, else the dual
        coefficients (m, k) with w_r = sum_i x[i, r] phi(x_i);
        ``dual``: dict with ``alpha``, ``beta`` (concatenated per piece, see
        ``pieces``) and ``pieces`` (:class:`PieceSet`); ``coef_form``:
        ``"primal"`` or ``"dual"``; ``full_passes``: the work done, in
        passes over all pieces (a pass over the active set of the shrinking
        variant counts its share of the pieces; without shrinking it is
        ``nit``); ``primal_objective``, ``dual_objective``, ``gap``,
        ``nit``, ``status``, ``trace``.
        ``status`` is :data:`STATUS_NUMERICAL` (``success=False``) if an
        objective is not finite or the gap is negative beyond rounding:
        never "converged".

    Raises
    ------
    ValueError
        Invalid shapes, NaN/inf, C <= 0, unknown decomposition/kernel/order,
        rows of Y without preferences, invalid custom decompositions, a
        precomputed kernel that is not symmetric positive semidefinite,
        negative or all-zero sample weights.
    TypeError
        Non-numeric input or wrongly typed parameters; sparse X with a
        kernel other than "linear".

    Notes
    -----
    With ``shrinking=True`` every step is still the exact soft projection
    (Eq. 31) of one piece, so the dual increases monotonically as in Fig. 5,
    but

    * when every piece is a single edge {(a, b)} (``"all_pairs"``, and
      LabelRanker's threshold-label pieces) the pieces are visited in
      segments, each of at most 16 k pieces of one example (for
      ``order="shuffle"`` drawn at random from the example once, in runs of
      8 consecutive pieces; every pass permutes the segments and the active
      pieces within each; ``"cyclic"`` takes them in turn): the label
      scores w_r . x_i are computed once per visit of a segment and kept up
      to date, each piece's soft projection is the closed-form clipped step
      along e_a - e_b (tens of nanoseconds a piece), and W is updated once
      per changed label at the end of the visit.  Memory: 8 numbers per
      edge (the pieces, alpha, beta and the active set) plus O(m k), never
      a dense array over the edges and labels.  Other decompositions visit
      the pieces one at a time (``order`` permutes all active pieces), with
      the scores of the piece's labels computed at every visit;
    * a label whose dual variable is 0 and could gain mass neither from
      another label of its side nor by raising the piece's total is removed
      from the piece (LIBLINEAR's ``be_shrunk``); a piece without active
      labels on one side, and an example without active pieces, leave the
      active set;
    * the objectives are not evaluated after every pass: the largest
      violation of a piece's optimality conditions seen in a pass (in units
      of Y) is compared with a threshold that starts at the largest
      y_r - y_s and halves at every failed check (LIBLINEAR's
      ``eps_shrink``); below it, or after max(20, 5 % of the passes done)
      passes or the work of max(10, 5 % of the work done) full passes
      without a check, the exact primal and dual objectives are computed
      on the full problem (so a solve runs at most about 5 % more passes
      than the check that stops it needs).
      The solve stops only when that full gap meets the tolerance; otherwise
      every label and piece is made active again when the violation was
      below the threshold or the full gap fell by less than 20 % since the
      previous check, and the passes go on.

    The trace then holds only these checks (``iteration`` is the number of
    passes done; ``dual_increase`` the total since the previous check;
    extras ``n_active_pieces``, ``max_violation``, ``eps_shrink``,
    ``full_passes``).  A
    callback is still called after every ``callback_every``-th pass, as
    without shrinking: such a pass evaluates the objectives for it (and
    adds them to the trace) without changing the course of the solve, which
    stops only at its own checks (same iterates and result with or without
    a callback).
    """
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol", strict=False)
    atol = check_positive(atol, "atol", strict=False)
    if tol == 0 and atol == 0:
        raise ValueError("tol, atol: at least one must be > 0")
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    if order not in ORDERS:
        raise ValueError(f"order: expected one of {ORDERS}, got {order!r}")
    if kernel not in KERNELS:
        raise ValueError(f"kernel: expected one of {KERNELS}, got {kernel!r}")
    X = check_design(X, kernel=kernel)
    m = X.shape[0]
    Y = _check_targets(Y, m)
    if sample_weight is not None:
        sample_weight = as_float_array(sample_weight, "sample_weight", ndim=1, shape=(m,))
        if sample_weight.min() < 0:
            raise ValueError("sample_weight: expected weights >= 0, got "
                             f"{sample_weight.min():.3g}")
    if kernel == "precomputed":
        check_gram(X)
    params = {} if kernel == "precomputed" else check_kernel_params(
        kernel, gamma, degree, coef0, X.shape[1])
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking: expected a bool, got {type(shrinking).__name__}")
    pieces = build_pieces(Y, decomposition, normalize, C, sample_weight)
    return solve(X, Y, pieces, kernel=kernel, kernel_params=params, order=order, tol=tol,
                 atol=atol, max_iter=max_iter, callback=callback,
                 callback_every=callback_every, random_state=random_state,
                 shrinking=bool(shrinking))


def solve(X, Y, pieces, *, kernel: str, kernel_params: dict, order: str, tol: float,
          atol: float, max_iter: int, callback=None, callback_every: int = 1,
          random_state=None, shrinking: bool = False, init=None,
          shrink_eps=None) -> SolverResult:
    """The solve of :func:`sopopo_batch` on input it trusts.

    Parameters
    ----------
    X : ndarray (m, n), CSR matrix (linear kernel), or the Gram matrix
        (m, m) for ``kernel="precomputed"``; float64, finite.
    Y : ndarray, shape (m, k)
        Target rankings (float64).
    pieces : PieceSet
        From :func:`~polyrank.sopopo.build_pieces` (the bounds C_p include C,
        sigma and the sample weights).
    kernel_params : dict
        From :func:`~polyrank.kernels.check_kernel_params`.
    order, tol, atol, max_iter, callback, callback_every, random_state
        As :func:`sopopo_batch` (already checked).
    shrinking : bool, default=False
        As :func:`sopopo_batch` (whose default is True).
    init : tuple (alpha, beta) or (alpha, beta, W) of ndarrays, optional
        A feasible initial dual point (a warm start): ``alpha`` of the size
        of ``pieces.A_idx``, ``beta`` of ``pieces.B_idx``, with
        ``sum(alpha^p) = sum(beta^p) <= C_p`` for every piece (e.g. a
        previous solution at C' scaled by C / C'); ``W`` (k, n), the
        explicit form's W = X'c of that point (the previous W scaled
        likewise), used instead of computing it (ignored by the kernel
        form).  None: 0.
    shrink_eps : float, optional
        The shrinking threshold to start from (a warm start: the previous
        solve's final ``result.eps_shrink``, the shrinking state carried
        over); None: the largest preference gap, as a cold solve.  It
        decides only which pieces a pass skips, never when the solve stops
        (the duality gap of the full problem does).

    Returns
    -------
    SolverResult
        As :func:`sopopo_batch`.
    """
    runner = CallbackRunner(callback, callback_every)
    rng = np.random.default_rng(random_state)
    m = X.shape[0]
    k = Y.shape[1]
    if init is None:
        alpha, beta = np.zeros(pieces.A_idx.size), np.zeros(pieces.B_idx.size)
        coef = np.zeros((m, k))
    explicit = kernel == "linear" and order != "greedy"
    W0 = init[2] if init is not None and len(init) > 2 and explicit else None
    if init is not None:
        alpha, beta = (np.array(a, dtype=np.float64) for a in init[:2])
        coef = None if W0 is not None else dual_coefficients(pieces, alpha, beta, m, k)
    parr = _kernels.PieceArrays(pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx,
                                pieces.B_ptr, pieces.B_idx, alpha, beta)
    if explicit:
        W = (np.zeros((k, X.shape[1])) if init is None
             else np.array(W0, dtype=np.float64, order="C") if W0 is not None
             else np.ascontiguousarray(np.asarray(X.T @ coef).T))
        form = _Form(X, W=W, rows=_instances(X))
    else:
        K = _gram(X, kernel, kernel_params)
        form = _Form(X, K=K, coef=coef, F=np.zeros((m, k)) if init is None else K @ coef)
    if shrinking and order != "greedy":
        status, it, primal, dual, work, eps = _shrinking_solve(
            form, Y, pieces, alpha, beta, parr, rng, order, tol, atol, max_iter, runner,
            shrink_eps)
    else:
        status, it, primal, dual, work = _plain_solve(
            form, Y, pieces.n_pieces, parr, rng, order, tol, atol, max_iter, runner)
        eps = None
    return _result(status, it, primal, dual, max_iter, form.W if explicit else form.coef,
                   "primal" if explicit else "dual", alpha, beta, pieces, runner, work, eps)


def dual_coefficients(pieces, alpha, beta, m: int, k: int) -> np.ndarray:
    """c (m, k) of Eq. 38 from the piece variables: ``c[i, r]`` sums, over
    the pieces of example i, ``alpha^p_r`` for r in A_p and ``-beta^p_r`` for
    r in B_p, so that w_r = sum_i c[i, r] x^i (``sopopo-label-ranking.txt``,
    Sec. 4; :func:`~polyrank.sopopo.reference.batch_reduced_qp`)."""
    coef = np.zeros((m, k))
    a_piece = np.repeat(np.arange(pieces.n_pieces), np.diff(pieces.A_ptr))
    b_piece = np.repeat(np.arange(pieces.n_pieces), np.diff(pieces.B_ptr))
    np.add.at(coef, (pieces.example[a_piece], pieces.A_idx), alpha)
    np.subtract.at(coef, (pieces.example[b_piece], pieces.B_idx), beta)
    return coef


class _Form:
    """The iterate of a solve in one of two forms: explicit (linear kernel,
    not greedy: ``W`` (k, n) and the rows of X as ``rows``) or kernel
    (``K`` (m, m), the dual coefficients ``coef`` (m, k) and the running
    predictions ``F = K coef`` (m, k)); ``X`` is the input."""

    def __init__(self, X, *, W=None, rows=None, K=None, coef=None, F=None):
        self.X, self.W, self.rows, self.K, self.coef, self.F = X, W, rows, K, coef, F
        self.explicit = W is not None


def _instances(X):
    """The rows of X (ndarray or CSR) with their squared norms, as the
    explicit passes read them (:class:`~polyrank.sopopo._kernels.Instances`)."""
    sqnorm = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
              else np.einsum("ij,ij->i", X, X))
    return _kernels.Instances(*row_arrays(X), sqnorm)


def _gram(X, kernel: str, kernel_params: dict) -> np.ndarray:
    """The Gram matrix K (m, m) of the kernel form: X itself for
    ``"precomputed"``, X X' for ``"linear"`` (after a memory check), else
    :func:`~polyrank.kernels.kernel_matrix`; ValueError naming ``kernel``
    if k(x, x) < 0 for some x (not a Mercer kernel)."""
    m = X.shape[0]
    if kernel == "precomputed":
        return X
    if kernel == "linear":
        check_allocation(8.0 * m * m, f"the {m:,} x {m:,} Gram matrix of order='greedy'",
                         "use order='cyclic' or 'random' (no Gram matrix with the "
                         "linear kernel)")
        return np.ascontiguousarray((X @ X.T).toarray() if sp.issparse(X) else X @ X.T)
    K = kernel_matrix(X, kernel=kernel, **kernel_params)
    if np.any(np.diag(K) < 0):
        raise ValueError(f"kernel: {kernel!r} with {kernel_params} gives negative "
                         "k(x, x): not a Mercer (PSD) kernel for these parameters")
    return K


def _shrinking_solve(form, Y, pieces, alpha, beta, parr, rng, order, tol, atol, max_iter,
                     runner, eps0=None):
    """The passes of ``shrinking=True`` (not greedy): build the active set
    (:class:`_PairActiveSet` when every piece is one edge, else
    :class:`_PieceActiveSet`) and run :func:`_shrinking_loop` on ``form``.
    Returns (status, passes, primal, dual, work in full passes, the final
    shrinking threshold); ``eps0``: the threshold to start from (None: the
    largest preference gap)."""
    m, k = Y.shape
    # violations are in units of Y: start at the largest preference gap
    scale = float(np.max(Y.max(axis=1) - Y.min(axis=1)))
    scale = scale if scale > 0 else 1.0
    if _single_edge(pieces):
        acts = _PairActiveSet(pieces, m, alpha, beta, 1e-12 * scale, k,
                              rng if order == "shuffle" else None)
    else:
        acts = _PieceActiveSet(pieces, m, alpha, beta, 1e-12 * scale)
    X, W, rows, K, coef, F = form.X, form.W, form.rows, form.K, form.coef, form.F
    if form.explicit:
        def evaluate(sync):
            F = np.asarray(X @ W.T)
            return _kernels.objectives(F, Y, parr, float(np.sum(W * W)))

        def sweep():
            return acts.sweep_linear(rows, Y, W)
    else:
        def evaluate(sync):
            exact = K @ coef
            if sync:
                F[...] = exact     # no drift from the rank-one updates
            return _kernels.objectives(exact, Y, parr, float(np.sum(coef * exact)))

        def sweep():
            return acts.sweep_kernel(K, Y, F, coef)
    return _shrinking_loop(sweep, evaluate, acts, scale, rng, order, tol, atol, max_iter,
                           runner, eps0)


def _plain_solve(form, Y, P, parr, rng, order, tol, atol, max_iter, runner):
    """The passes without shrinking: every pass visits all ``P`` pieces
    (greedy: the best piece at every step, then a cyclic pass once greedy
    steps are rounding noise), then evaluates the exact objectives and tests
    :func:`_ending`.  Returns (status, passes, primal, dual, work)."""
    X, W, rows, K, coef, F = form.X, form.W, form.rows, form.K, form.coef, form.F
    explicit = form.explicit
    status = STATUS_MAX_ITER
    primal = dual = np.nan
    it = 0
    for it in range(1, max_iter + 1):
        changed = 0
        if order == "greedy":
            min_inc = _GREEDY_MIN * max(abs(dual), 1.0) if it > 1 else 0.0
            inc, big, changed = _kernels.greedy_kernel(K, Y, F, coef, P, min_inc, parr)
            if it > 1 and big <= _GREEDY_NOISE * max(abs(dual), 1.0):
                # every greedy step was rounding noise: the greedy choice can cycle
                # there (the dual at its optimum, the primal still above it)
                changed = 0
        if order != "greedy" or changed == 0:
            # greedy: once no piece offers more than rounding noise, a cyclic
            # pass still makes the (tiny, real) progress that noise hides
            perm = rng.permutation(P) if order == "shuffle" else np.arange(P)
            if explicit:
                inc, big, changed = _kernels.pass_linear(rows, Y, W, perm, parr)
            else:
                inc, big, changed = _kernels.pass_kernel(K, Y, F, coef, perm, parr)
        if explicit:
            F = np.asarray(X @ W.T)
            sqw = float(np.sum(W * W))
        else:
            # recompute the predictions exactly: no drift from the rank-one updates
            F = K @ coef
            sqw = float(np.sum(coef * F))
        primal, dual = _kernels.objectives(F, Y, parr, sqw)
        stop = runner.record(it, primal, dual, dual_increase=inc, max_dual_increase=big)
        ending = _ending(primal, dual, tol, atol, stop, changed == 0)
        if ending is not None:
            status = ending
            break
    return status, it, primal, dual, float(it)


def _ending(primal: float, dual: float, tol: float, atol: float, stop: bool,
            stalled: bool):
    """The status that ends a SOPOPO solve after an evaluated pass, or None
    to go on: a non-finite or inverted objective first, then the
    duality-gap test ``P - D <= max(atol, tol |P|)``, then a callback's
    request, then a pass that changed nothing (``stalled``)."""
    if numerical_failure(primal, dual):
        return STATUS_NUMERICAL
    if primal - dual <= max(atol, tol * abs(primal)):
        return STATUS_CONVERGED
    if stop:
        return STATUS_CALLBACK
    if stalled:
        return STATUS_STALLED
    return None


def _result(status, it, primal, dual, max_iter, x, coef_form, alpha, beta, pieces,
            runner, work, eps_shrink=None) -> SolverResult:
    return finish(
        runner, status, solver="sopopo-batch", x=x,
        dual={"alpha": alpha, "beta": beta, "pieces": pieces}, primal=primal,
        dual_objective=dual, nit=it, unit="passes",
        rule=f"duality gap {primal - dual:.3g} <= max(atol, tol * P)",
        progress=f"duality gap {primal - dual:.3g}", limit=f"max_iter={max_iter}",
        advice="scale X (e.g. StandardScaler) or lower C", coef_form=coef_form,
        full_passes=work, eps_shrink=eps_shrink)


#: passes of the shrinking variant between two full-gap checks, at most, early
#: in a solve (later :data:`_CHECK_SHARE` of the passes done; a check costs
#: about m k n, less than a pass over the pieces)
_CHECK_PASSES = 20
#: a full-gap check whose gap is above this fraction of the previous one
#: un-shrinks (the shrunk problem no longer drives the full gap down)
_STAGNANT = 0.8
#: work of the shrinking variant between two full-gap checks, at most, early
#: in a solve, in passes over all pieces (later :data:`_CHECK_SHARE` of the
#: work done; a check costs about one such pass)
_CHECK_EVERY = 10
#: ... or, later in a solve, this share of the passes (and work) done so far,
#: so that a solve runs at most about 5 % more passes than the check that
#: stops it needs
_CHECK_SHARE = 0.05


def _single_edge(pieces) -> bool:
    """True if every piece is one edge {(a, b)} (``"all_pairs"``, the pair
    pieces of the threshold label): |A_p| = |B_p| = 1 for all p."""
    P = pieces.n_pieces
    return pieces.A_idx.size == P and pieces.B_idx.size == P


#: the kernel of the shrinking pass over single-edge pieces: "pairs" (the
#: closed form, :func:`~polyrank.sopopo._kernels.pass_pairs_shrink`) or
#: "general" (the general pass, Fig. 3 per piece, over the same order: the
#: reference the tests compare the closed form with)
_PAIR_KERNEL = "pairs"

#: segments of the single-edge pass hold at most this many times k pieces: the
#: scores of the up to k labels of a segment are computed once per visit, a few
#: flops a piece; smaller segments interleave the examples better.  Measured
#: on 24 examples, k = 200, half the labels relevant (``polyrank bench
#: sopopo-many-labels``' data), relative gap after 50 passes: 1.1e-3 (0.03
#: with whole examples as segments, 1.0e-3 with 4 k), after 100 passes
#: 1.6e-6 (4e-5; 5e-7); a full pass at k = 1000: 70 ns a piece (49; 75)
_SEGMENT_LABELS = 16
#: the pieces of a segment come in runs of this many consecutive pieces (one
#: cache line of each of their arrays), drawn at random from the example
_SEGMENT_BLOCK = 8

_NO_2D = np.empty((0, 0))
_NO_1D = np.empty(0)
#: the instances argument of the kernel form (not read there)
_NO_ROWS = _kernels.Instances(_NO_2D, _NO_1D, _NO_INDEX, _NO_INDEX, _NO_1D)


class _PieceActiveSet:
    """The active set of the shrinking variant for pieces of any shape: one
    list of active pieces over all examples (shuffled as a whole), and per
    piece its active labels (``A_pos``/``A_act``, ``B_pos``/``B_act``; see
    :func:`~polyrank.sopopo._kernels._example_sweep`).  Memory: 6 int64 per
    piece and label."""

    def __init__(self, pieces, m, alpha, beta, skip):
        self.A_cnt = np.diff(pieces.A_ptr)
        self.B_cnt = np.diff(pieces.B_ptr)
        kmax = int(max(self.A_cnt.max(), self.B_cnt.max()))
        self.A_act = self.A_cnt.copy()
        self.B_act = self.B_cnt.copy()
        self.size = pieces.n_pieces
        self.active = np.arange(self.size, dtype=np.int64)
        self.n_active = self.size
        self.state = (_kernels.PieceArrays(pieces.example, pieces.C, pieces.A_ptr,
                                           pieces.A_idx, pieces.B_ptr, pieces.B_idx, alpha,
                                           beta),
                      _kernels.ActiveLabels(np.arange(pieces.A_idx.size, dtype=np.int64),
                                            np.arange(pieces.B_idx.size, dtype=np.int64),
                                            self.A_act, self.B_act),
                      kmax, skip, True)

    def shuffle(self, rng):
        rng.shuffle(self.active[:self.n_active])

    def restore(self):
        self.A_act[:] = self.A_cnt
        self.B_act[:] = self.B_cnt
        self.active.sort()
        self.n_active = self.size

    def sweep_linear(self, rows, Y, W):
        inc, big, changed, viol, self.n_active = _kernels.pass_linear_shrink(
            rows, Y, W, self.active, self.n_active, *self.state)
        return inc, big, changed, viol

    def sweep_kernel(self, K, Y, F, coef):
        inc, big, changed, viol, self.n_active = _kernels.pass_kernel_shrink(
            K, Y, F, coef, self.active, self.n_active, *self.state)
        return inc, big, changed, viol


class _PairActiveSet:
    """The active set of the shrinking variant when every piece is one edge.

    The pieces of every example are cut into segments of at most
    ``_SEGMENT_LABELS * k`` pieces (for ``order="shuffle"`` each segment a
    random set of runs of ``_SEGMENT_BLOCK`` consecutive pieces of the
    example, drawn once): segment g holds
    pieces of example ``seg_ex[g]``, ``pos[seg_ptr[g]:seg_ptr[g + 1]]``,
    the active ones first (``n_act[g]`` of them).  A pass visits the
    segments in a random order and, within a segment, its active pieces in
    a random order (``"cyclic"``: the segments in turn, each as it stands),
    with :func:`~polyrank.sopopo._kernels.pass_pairs_shrink`.  Memory: one
    int64 per piece and O(m + P / k) (the labels are the pieces' own
    ``A_idx``/``B_idx``; alpha = beta)."""

    def __init__(self, pieces, m, alpha, beta, skip, k, rng=None):
        ex = pieces.example
        self.pieces, self.alpha, self.beta, self.skip = pieces, alpha, beta, skip
        self.arrays = _kernels.PieceArrays(pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx,
                                           pieces.B_ptr, pieces.B_idx, alpha, beta)
        self.size = pieces.n_pieces
        grouped = self.size < 2 or bool(np.all(ex[1:] >= ex[:-1]))
        self.pos = (np.arange(self.size, dtype=np.int64) if grouped
                    else np.argsort(ex, kind="stable").astype(np.int64))
        cnt = np.bincount(ex, minlength=m).astype(np.int64)
        ptr = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(cnt, out=ptr[1:])
        if rng is not None:
            # random segments: permute every example's pieces once, by blocks
            _kernels.shuffle_blocks(self.pos, ptr, cnt, _SEGMENT_BLOCK,
                                    int(rng.integers(0, 2**63 - 1)))
        # cut example i into ceil(cnt_i / S) segments of near-equal size
        S = max(1, _SEGMENT_LABELS * k)
        nseg = -(-cnt // S)
        self.seg_ex = np.repeat(np.arange(m, dtype=np.int64), nseg)
        first = np.repeat(np.cumsum(nseg) - nseg, nseg)
        j = np.arange(self.seg_ex.size, dtype=np.int64) - first
        c = cnt[self.seg_ex]
        self.seg_ptr = np.append(ptr[self.seg_ex] + (j * c) // nseg[self.seg_ex],
                                 self.size).astype(np.int64)
        self.seg_cnt = np.diff(self.seg_ptr)
        self.n_act = self.seg_cnt.copy()
        self.n_active = self.size
        self.seg_order = np.arange(self.seg_ex.size, dtype=np.int64)
        self.shrink = True          # False: keep every piece (the tests' reference runs)

    def shuffle(self, rng):
        self.seg_order = rng.permutation(self.seg_ex.size).astype(np.int64)
        _kernels.shuffle_segments(self.pos, self.seg_ptr, self.n_act,
                                  int(rng.integers(0, 2**63 - 1)))

    def restore(self):
        self.n_act[:] = self.seg_cnt
        self.n_active = self.size

    def _pairs(self, linear, rows, W, K, F, coef, Y):
        segs = _kernels.Segments(self.seg_order, self.seg_ex, self.seg_ptr, self.pos,
                                 self.n_act)
        inc, big, changed, viol, self.n_active = _kernels.pass_pairs_shrink(
            linear, rows, W, K, F, coef, Y, segs, self.arrays, self.skip, self.shrink)
        return inc, big, changed, viol

    def _general(self, run):
        """The same pass by the general kernel, one example's segment at a
        time (``_PAIR_KERNEL = "general"``)."""
        ones = np.ones(self.size, dtype=np.int64)
        pos = np.arange(self.size, dtype=np.int64)
        state = (self.arrays, _kernels.ActiveLabels(pos, pos, ones, ones.copy()), 1, self.skip,
                 self.shrink)
        inc = big = viol = 0.0
        changed = 0
        for g in self.seg_order:
            seg = self.pos[self.seg_ptr[g]:self.seg_ptr[g + 1]]
            a, b, c, v, self.n_act[g] = run(seg, self.n_act[g], state)
            inc += a
            big = max(big, b)
            changed += c
            viol = max(viol, v)
        self.n_active = int(self.n_act.sum())
        return inc, big, changed, viol

    def sweep_linear(self, rows, Y, W):
        if _PAIR_KERNEL == "general":
            return self._general(lambda seg, n, state: _kernels.pass_linear_shrink(
                rows, Y, W, seg, n, *state))
        return self._pairs(True, rows, W, _NO_2D, _NO_2D, _NO_2D, Y)

    def sweep_kernel(self, K, Y, F, coef):
        if _PAIR_KERNEL == "general":
            return self._general(lambda seg, n, state: _kernels.pass_kernel_shrink(
                K, Y, F, coef, seg, n, *state))
        return self._pairs(False, _NO_ROWS, _NO_2D, K, F, coef, Y)


def _shrinking_loop(sweep, evaluate, acts, scale, rng, order, tol, atol, max_iter, runner,
                    eps0=None):
    """The passes of ``sopopo_batch(..., shrinking=True)`` (see its Notes).

    ``sweep()`` runs one pass over the active set ``acts``
    (:class:`_PieceActiveSet` or :class:`_PairActiveSet`) and returns (total
    dual increase, largest increase, pieces changed, largest violation);
    ``evaluate(sync)`` returns the exact (primal, dual) objectives of the
    full problem (``sync``: also reset the kernel form's running predictions
    to K coef).  ``scale`` is the largest preference gap (the unit of the
    violations).  Returns (status, passes, primal, dual, work in full
    passes, the final shrinking threshold); ``eps0``: the threshold to start
    from (None: ``scale``; a warm start's previous final one)."""
    skip = 1e-12 * scale
    eps_shrink = scale if eps0 is None else min(max(float(eps0), skip), scale)
    watched = runner.callback is not None
    from_all = True         # no label, piece or example was inactive at the pass start
    since = 0
    work = 0.0
    passes_since = 0
    last_gap = np.inf
    inc_sum = big_max = 0.0
    status = STATUS_MAX_ITER
    primal = dual = np.nan
    it = 0
    for it in range(1, max_iter + 1):
        if order == "shuffle":
            acts.shuffle(rng)
        share = acts.n_active / acts.size           # work in full passes
        since += share
        work += share
        inc, big, changed, viol = sweep()
        inc_sum += inc
        big_max = max(big_max, big)
        passes_since += 1
        # checks at most every 5 % of the passes done (not every 20 passes
        # throughout: at 40,000 passes those checks cost a tenth of the solve)
        due = (viol < eps_shrink or changed == 0
               or since >= max(_CHECK_EVERY, _CHECK_SHARE * work)
               or passes_since >= max(_CHECK_PASSES, _CHECK_SHARE * it) or it == max_iter)
        if not (due or (watched and it % runner.callback_every == 0)):
            from_all = False
            continue
        primal, dual = evaluate(due)
        stop = runner.record(it, primal, dual, dual_increase=inc_sum,
                             max_dual_increase=big_max, n_active_pieces=acts.n_active,
                             max_violation=viol, eps_shrink=eps_shrink,
                             full_passes=work)
        inc_sum = big_max = 0.0
        if not due:
            # a pass evaluated for the callback only: the solve goes on as
            # without a callback (same iterates, same stopping pass)
            if stop:
                status = STATUS_CALLBACK
                break
            from_all = False
            continue
        since = 0
        passes_since = 0
        gap = primal - dual
        ending = _ending(primal, dual, tol, atol, stop, changed == 0 and from_all)
        if ending is not None:
            status = ending
            break
        stagnant = gap > _STAGNANT * last_gap
        last_gap = gap
        if viol < eps_shrink or changed == 0 or stagnant:
            # the shrunk problem looks solved, or the full gap stopped
            # shrinking, but the full problem is not solved: un-shrink
            if viol < eps_shrink or changed == 0:
                eps_shrink = max(0.5 * eps_shrink, skip)
            acts.restore()
            from_all = True
        else:
            from_all = False
    return status, it, primal, dual, work, eps_shrink
