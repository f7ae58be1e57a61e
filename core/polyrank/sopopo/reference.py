"""Independent QP references for SOPOPO, solved by Clarabel.

These functions pose the problems of ``sopopo-label-ranking.txt`` literally,
as generic quadratic programs, and hand them to :func:`polyrank.qp.solve_qp`.
They share no code with the SOPOPO kernels: tests use them to check
:func:`polyrank.sopopo.soft_project` and the batch solver, and
:mod:`polyrank_paper.bench.sopopo` uses :func:`reduced_qp` as the baseline of
the paper's Fig. 6 (the paper used LOQO; we use Clarabel).

* :func:`soft_project_qp` -- the soft projection of Eq. 7 (Sec. 3), with one
  inequality per edge of ``A x B``.
* :func:`reduced_qp` -- the reduced problem of Eq. 19 (Sec. 3.2).
* :func:`batch_reduced_qp` -- the reduced batch dual of Eq. 38 (Sec. 5 and
  Appendix C), generalised to weighted pieces as in Eq. 24/30.

They are slow (an interior-point method on the full problem): meant for
tests and benchmarks on small instances, not for users' training runs.

All label indices are 0-based (the paper's labels ``1..k`` are ``0..k-1``).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from polyrank.qp import solve_qp
from polyrank.result import SolverResult
from polyrank.validation import as_float_array, check_label_set, check_positive

__all__ = ["soft_project_qp", "reduced_qp", "batch_reduced_qp"]


# ---------------------------------------------------------------- checks

def _float_array(v, name: str, ndim: int) -> np.ndarray:
    return as_float_array(v, name, ndim=ndim, allow_empty=True)


def _bound(C, name: str) -> float:
    return check_positive(C, name, strict=False)


def _labels(v, name: str, k: int) -> np.ndarray:
    return check_label_set(v, name, k)


def _label_pair(A, B, k: int, nameA: str, nameB: str):
    A = _labels(A, nameA, k)
    B = _labels(B, nameB, k)
    common = np.intersect1d(A, B)
    if common.size:
        raise ValueError(f"{nameA}, {nameB}: must be disjoint, both contain "
                         f"{common.tolist()}")
    return A, B


# ---------------------------------------------------------------- Eq. 7

def soft_project_qp(x, y, U, A, B, C, *, tol: float = 1e-10) -> SolverResult:
    """Soft projection onto a polyhedron (Eq. 7), posed as a generic QP.

    Solves::

        min_{W, xi}  1/2 sum_y ||w_y - u_y||^2 + C xi
        s.t.         w_r . x - w_s . x >= y_r - y_s - xi
                         for every edge (r, s) in A x B
                     xi >= 0

    with one explicit inequality per edge (``|A| |B|`` rows). Only labels in
    ``A u B`` get variables: every other row of ``W`` equals ``U`` (Eq. 11).

    Parameters
    ----------
    x : array_like, shape (n,)
        The instance.
    y : array_like, shape (k,)
        The target ranking, the paper's γ of Sec. 2 (only ``y[A]`` and
        ``y[B]`` are used).
    U : array_like, shape (k, n)
        Current prototypes ``u_1 .. u_k``, one per row.
    A, B : array_like of int, shapes (p,) and (q,)
        Disjoint, non-empty sets of 0-based label indices; the edges are
        ``A x B`` (``A`` the preferred side).
    C : float
        Slack penalty, ``C >= 0``.
    tol : float, default 1e-10
        Passed to :func:`polyrank.qp.solve_qp`.

    Returns
    -------
    SolverResult
        ``W`` (ndarray (k, n)), ``xi`` (float: the smallest feasible slack
        for ``W``, ``max(0, max_{(r,s)} y_r - y_s - (w_r - w_s).x)``),
        ``objective`` (float: ``1/2 sum ||w_y - u_y||^2 + C xi``),
        ``alpha`` (ndarray (p,), in the order of ``A``) and ``beta``
        (ndarray (q,), in the order of ``B``): the reduced duals of Eq. 14,
        ``alpha_a = sum_b tau_ab``, ``beta_b = sum_a tau_ab``, summed from
        Clarabel's multipliers ``tau`` of the edge constraints; ``z``
        (``alpha.sum()``), ``tau`` (ndarray (p, q)), plus ``x`` (= ``W``),
        ``primal_objective`` (= ``objective``), ``status``, ``success``,
        ``nit``, ``solve_time_s``, ``wall_time_s`` and
        ``solver="clarabel-eq7"``.

    Raises
    ------
    TypeError
        If an input is not numeric, or ``A``/``B`` are not integer arrays.
    ValueError
        On shape mismatch, NaN/inf, out-of-range, repeated or overlapping
        labels, empty ``A`` or ``B``, or ``C < 0``.
    RuntimeError
        If Clarabel fails (see :func:`polyrank.qp.solve_qp`).

    Notes
    -----
    Source: ``sopopo-label-ranking.txt``, Sec. 3, Eq. 7 (primal), Eq. 11
    and Eq. 14/15 (primal-dual relations). By strong duality its optimal
    value equals ``||x||^2 (1/2 ||mu||^2 + 1/2 ||nu||^2 - F*)`` where ``F*``
    is the optimal value of the reduced problem Eq. 19 (see
    :func:`reduced_qp`), from Eq. 16 rewritten in ``mu`` and ``nu``.

    Examples
    --------
    >>> import numpy as np
    >>> r = soft_project_qp(np.array([1.0, 0.0]), np.array([1.0, 0.0]),
    ...                     np.zeros((2, 2)), [0], [1], C=10.0)
    >>> np.round(r.W, 6).tolist(), round(r.objective, 6)
    ([[0.5, 0.0], [-0.5, 0.0]], 0.25)
    """
    x = _float_array(x, "x", 1)
    n = x.shape[0]
    y = _float_array(y, "y", 1)
    k = y.shape[0]
    U = _float_array(U, "U", 2)
    if U.shape != (k, n):
        raise ValueError(f"U: expected shape ({k}, {n}) = (len(y), "
                         f"len(x)), got {U.shape}")
    A, B = _label_pair(A, B, k, "A", "B")
    C = _bound(C, "C")
    p, q = A.size, B.size
    V = np.concatenate([A, B])
    nw = V.size * n
    nvar = nw + 1                                 # w for labels in V, xi

    # objective: 1/2 ||w - u||^2 + C xi = 1/2 w'w - u'w + C xi + const
    P = sp.diags(np.r_[np.ones(nw), 0.0], format="csc")
    qvec = np.r_[-U[V].ravel(), C]

    # edge (a, b), row e = ia * q + ib:
    #   -(x . w_a) + (x . w_b) - xi <= -(y_a - y_b)
    ia, ib = np.meshgrid(np.arange(p), np.arange(q), indexing="ij")
    ia, ib = ia.ravel(), ib.ravel()
    e = np.arange(p * q)
    cols_a = ia[:, None] * n + np.arange(n)
    cols_b = (p + ib)[:, None] * n + np.arange(n)
    rows = np.concatenate([np.repeat(e, n), np.repeat(e, n), e])
    cols = np.concatenate([cols_a.ravel(), cols_b.ravel(),
                           np.full(p * q, nw)])
    vals = np.concatenate([np.tile(-x, p * q), np.tile(x, p * q),
                           -np.ones(p * q)])
    G_edges = sp.csc_matrix((vals, (rows, cols)), shape=(p * q, nvar))
    h_edges = -(y[A][ia] - y[B][ib])
    G_xi = sp.csc_matrix(([-1.0], ([0], [nw])), shape=(1, nvar))
    G = sp.vstack([G_edges, G_xi], format="csc")
    h = np.r_[h_edges, 0.0]

    res = solve_qp(P, qvec, G=G, h=h, tol=tol)
    W = U.copy()
    W[V] = res.x[:nw].reshape(V.size, n)
    f = W @ x
    viol = (y[A][:, None] - y[B][None, :]) - (f[A][:, None]
                                                      - f[B][None, :])
    xi = float(max(0.0, viol.max()))
    objective = float(0.5 * np.sum((W - U) ** 2) + C * xi)
    tau = res.dual["ineq"][:p * q].reshape(p, q)
    alpha = tau.sum(axis=1)
    beta = tau.sum(axis=0)
    return SolverResult(
        W=W, xi=xi, objective=objective, alpha=alpha, beta=beta,
        z=float(alpha.sum()), tau=tau,
        x=W, primal_objective=objective, status=res.status,
        success=res.success, nit=res.nit, message=res.message,
        solve_time_s=res.solve_time_s, wall_time_s=res.wall_time_s,
        solver="clarabel-eq7")


# ---------------------------------------------------------------- Eq. 19

def reduced_qp(mu, nu, C, *, tol: float = 1e-10) -> SolverResult:
    """The reduced problem (Eq. 19), posed as a generic QP.

    Solves::

        min_{alpha, beta}  1/2 ||alpha - mu||^2 + 1/2 ||beta - nu||^2
        s.t.               sum(alpha) = sum(beta) <= C
                           alpha >= 0, beta >= 0

    Parameters
    ----------
    mu : array_like, shape (p,)
        Margins of the labels in ``A``, ``(y_a - u_a.x) / ||x||^2``
        (any order; not required to be sorted).
    nu : array_like, shape (q,)
        Margins of the labels in ``B``, ``(u_b.x - y_b) / ||x||^2``.
    C : float
        The bound on ``sum(alpha)``, ``C >= 0``.
    tol : float, default 1e-10
        Passed to :func:`polyrank.qp.solve_qp`.

    Returns
    -------
    SolverResult
        ``alpha`` (ndarray (p,), same order as ``mu``), ``beta`` (ndarray
        (q,)), ``z`` (float, ``alpha.sum()``), ``objective`` (float,
        ``1/2 ||alpha - mu||^2 + 1/2 ||beta - nu||^2`` recomputed from the
        solution), plus ``x`` (``concat(alpha, beta)``),
        ``primal_objective`` (= ``objective``), ``status``, ``success``,
        ``nit``, ``solve_time_s`` (Clarabel's solve time), ``wall_time_s``
        (including building the matrices) and ``solver="clarabel-eq19"``.

    Raises
    ------
    TypeError
        If ``mu``, ``nu`` or ``C`` are not real numbers.
    ValueError
        If ``mu`` or ``nu`` is empty, not 1-d or not finite, or ``C < 0``.
    RuntimeError
        If Clarabel fails (see :func:`polyrank.qp.solve_qp`).

    Notes
    -----
    Source: ``sopopo-label-ranking.txt``, Sec. 3.2, Eq. 19 (equivalently
    Eq. 18 after dividing Eq. 16 by ``||x||^2``); its minimiser in ``z`` is
    that of ``g(z; mu) + g(z; nu)`` over ``[0, C]`` (Sec. 3.3, Eq. 20-21).

    Examples
    --------
    The instance of Fig. 4 (minimum at z = 23/5):

    >>> r = reduced_qp([3.0, -1.0, 2.0], [1.0, 1.0, 2.0], C=10.0)
    >>> round(r.z, 8)
    4.6
    """
    mu = _float_array(mu, "mu", 1)
    nu = _float_array(nu, "nu", 1)
    if mu.size == 0:
        raise ValueError("mu: expected at least one element")
    if nu.size == 0:
        raise ValueError("nu: expected at least one element")
    C = _bound(C, "C")
    p, q = mu.size, nu.size
    nv = p + q
    # matrices built directly in CSC form (scipy's generic constructors
    # would cost more than Clarabel's solve on small k)
    ar = np.arange(nv)
    P = sp.csc_matrix((np.ones(nv), ar, np.arange(nv + 1)), shape=(nv, nv))
    qvec = -np.r_[mu, nu]
    # sum(alpha) - sum(beta) = 0
    A_eq = sp.csc_matrix((np.r_[np.ones(p), -np.ones(q)], np.zeros(nv, int),
                          np.arange(nv + 1)), shape=(1, nv))
    # rows 0..nv-1: -alpha <= 0, -beta <= 0; row nv: sum(alpha) <= C
    ind = np.empty(2 * p + q, dtype=np.int64)
    val = np.empty(2 * p + q)
    ind[0:2 * p:2], val[0:2 * p:2] = ar[:p], -1.0
    ind[1:2 * p:2], val[1:2 * p:2] = nv, 1.0
    ind[2 * p:], val[2 * p:] = ar[p:], -1.0
    ptr = np.r_[0, np.cumsum(np.r_[np.full(p, 2), np.ones(q, int)])]
    G = sp.csc_matrix((val, ind, ptr), shape=(nv + 1, nv))
    h = np.r_[np.zeros(nv), C]
    res = solve_qp(P, qvec, A_eq=A_eq, b_eq=np.zeros(1), G=G, h=h, tol=tol)
    alpha = res.x[:p].copy()
    beta = res.x[p:].copy()
    objective = float(0.5 * np.sum((alpha - mu) ** 2)
                      + 0.5 * np.sum((beta - nu) ** 2))
    return SolverResult(
        alpha=alpha, beta=beta, z=float(alpha.sum()), objective=objective,
        x=res.x, primal_objective=objective, status=res.status,
        success=res.success, nit=res.nit, message=res.message,
        solve_time_s=res.solve_time_s, wall_time_s=res.wall_time_s,
        solver="clarabel-eq19")


# ---------------------------------------------------------------- Eq. 38

def _psd_factor(K: np.ndarray) -> np.ndarray:
    """Return ``L`` (m, d) with ``K = L L'`` (eigendecomposition)."""
    w, V = np.linalg.eigh(K)
    top = max(float(w.max()), 0.0)
    if w.min() < -1e-9 * max(top, 1.0):
        raise ValueError(f"K: expected a positive semidefinite matrix, "
                         f"smallest eigenvalue {w.min():.3g}")
    keep = w > 1e-13 * max(top, 1e-300)
    return V[:, keep] * np.sqrt(w[keep])


def _check_qp_inputs(X, Y, K, C, formulation):
    """Validate the arrays of :func:`batch_reduced_qp`; return X, Y, K
    (float64 or None) and the default bound C (or None)."""
    if formulation not in ("factored", "gram"):
        raise ValueError(f"formulation: expected 'factored' or 'gram', got "
                         f"{formulation!r}")
    Y = _float_array(Y, "Y", 2)
    m = Y.shape[0]
    if X is None and K is None:
        raise ValueError("X, K: give at least one of them")
    if X is not None:
        X = _float_array(X, "X", 2)
        if X.shape[0] != m:
            raise ValueError(f"X: expected {m} rows (as Y), got shape "
                             f"{X.shape}")
    if K is not None:
        K = _float_array(K, "K", 2)
        if K.shape != (m, m):
            raise ValueError(f"K: expected shape ({m}, {m}), got {K.shape}")
        if np.abs(K - K.T).max() > 1e-12 * max(np.abs(K).max(), 1.0):
            raise ValueError("K: expected a symmetric matrix")
    if C is not None:
        C = _bound(C, "C")
    return X, Y, K, C


def _piece_variables(pieces, m, k, C):
    """Validate the pieces of :func:`batch_reduced_qp` and lay out their
    variables (alpha^p then beta^p, piece after piece).  Returns, per
    variable, its example, label, sign (+1 for alpha, -1 for beta) and
    piece; the bounds C_p; and per piece the (start, end of alpha, end of
    beta) offsets."""
    ex, lab, sgn, pid = [], [], [], []
    bounds = np.empty(len(pieces))
    slices = []
    nv = 0
    for j, piece in enumerate(pieces):
        if not isinstance(piece, (tuple, list)) or len(piece) not in (3, 4):
            raise ValueError(f"pieces[{j}]: expected a tuple (i, A, B) or "
                             f"(i, A, B, C_p), got {piece!r}")
        i, Aj, Bj = piece[0], piece[1], piece[2]
        Cj = piece[3] if len(piece) == 4 else None
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise TypeError(f"pieces[{j}]: example index must be an int, got "
                            f"{type(i).__name__}")
        if not 0 <= i < m:
            raise ValueError(f"pieces[{j}]: example index {i} not in "
                             f"[0, {m})")
        Aj, Bj = _label_pair(Aj, Bj, k, f"pieces[{j}] A", f"pieces[{j}] B")
        if Cj is None:
            if C is None:
                raise ValueError(f"pieces[{j}]: no bound C_p and no default "
                                 f"C given")
            bounds[j] = C
        else:
            bounds[j] = _bound(Cj, f"pieces[{j}] C_p")
        na, nb = Aj.size, Bj.size
        slices.append((nv, nv + na, nv + na + nb))
        nv += na + nb
        ex.append(np.full(na + nb, int(i)))
        lab.append(np.r_[Aj, Bj])
        sgn.append(np.r_[np.ones(na), -np.ones(nb)])
        pid.append(np.full(na + nb, j))
    return (np.concatenate(ex), np.concatenate(lab), np.concatenate(sgn),
            np.concatenate(pid), bounds, slices)


def _gram_qp(X, K, ex, lab, sgn, lin, A_pc, S_pc, bounds, k, tol):
    """Eq. 38 with the dense quadratic term ``P = M' (K kron I_k) M`` over
    the piece variables (``formulation="gram"``): returns (lambda, the
    :func:`~polyrank.qp.solve_qp` result)."""
    nv, npieces = ex.size, bounds.size
    Kmat = K if K is not None else X @ X.T
    same = lab[:, None] == lab[None, :]
    P = (sgn[:, None] * sgn[None, :]) * Kmat[np.ix_(ex, ex)] * same
    P = 0.5 * (P + P.T)
    res = solve_qp(sp.csc_matrix(P), -lin, A_eq=A_pc,
                   b_eq=np.zeros(npieces),
                   G=sp.vstack([-sp.identity(nv, format="csc"), S_pc],
                               format="csc"),
                   h=np.r_[np.zeros(nv), bounds], tol=tol)
    return res.x, res


def _factored_qp(X, K, ex, lab, sgn, lin, A_pc, S_pc, bounds, k, tol):
    """Eq. 38 with ``K = L L'`` and extra variables ``v_r = L' c[:, r]``
    tied by equalities, minimising ``1/2 sum ||v_r||^2`` (sparse;
    ``formulation="factored"``): returns (lambda, the
    :func:`~polyrank.qp.solve_qp` result)."""
    nv, npieces = ex.size, bounds.size
    idx = np.arange(nv)
    L = X if K is None else _psd_factor(K)
    d = L.shape[1]
    P = sp.diags(np.r_[np.zeros(nv), np.ones(k * d)], format="csc")
    qvec = np.r_[-lin, np.zeros(k * d)]
    # v_{r, j} - sum_{vars of label r} sgn * L[ex, j] * lambda = 0
    rows = (lab[:, None] * d + np.arange(d)).ravel()
    cols = np.repeat(idx, d)
    vals = (-sgn[:, None] * L[ex, :]).ravel()
    T = sp.csc_matrix((vals, (rows, cols)), shape=(k * d, nv))
    A_eq = sp.vstack([
        sp.hstack([T, sp.identity(k * d, format="csc")]),
        sp.hstack([A_pc, sp.csc_matrix((npieces, k * d))]),
    ], format="csc")
    b_eq = np.zeros(k * d + npieces)
    G = sp.hstack([
        sp.vstack([-sp.identity(nv, format="csc"), S_pc]),
        sp.csc_matrix((nv + npieces, k * d)),
    ], format="csc")
    res = solve_qp(P, qvec, A_eq=A_eq, b_eq=b_eq, G=G,
                   h=np.r_[np.zeros(nv), bounds], tol=tol)
    return res.x[:nv], res


def _slacks(pieces, Y, scores) -> np.ndarray:
    """The smallest feasible slack of every piece at ``scores`` (Eq. 6/24):
    ``xi_p = max(0, max_{a in A_p} (Y - f)[i, a] + max_{b in B_p} (f - Y)[i, b])``."""
    xi = np.empty(len(pieces))
    for j, piece in enumerate(pieces):
        i = int(piece[0])
        Aj = np.asarray(piece[1], dtype=np.int64)
        Bj = np.asarray(piece[2], dtype=np.int64)
        xi[j] = max(0.0, float(np.max(Y[i, Aj] - scores[i, Aj])
                               + np.max(scores[i, Bj] - Y[i, Bj])))
    return xi


def batch_reduced_qp(X, Y, pieces, C=None, K=None, *,
                     formulation: str = "factored",
                     tol: float = 1e-10) -> SolverResult:
    """The reduced batch dual (Eq. 38) with weighted pieces, as a generic QP.

    Each piece ``p = (i, A, B, C_p)`` is one complete bipartite graph
    ``A x B`` of example ``i`` with its own bound ``C_p`` (``C_p = C
    sigma_p`` in Eq. 6/24). Solves::

        max  D = -1/2 sum_r ||w_r||^2
                 + sum_p ( sum_{a in A_p} alpha^p_a Y[i_p, a]
                         - sum_{b in B_p} beta^p_b Y[i_p, b] )
        s.t. alpha^p >= 0, beta^p >= 0,
             sum(alpha^p) = sum(beta^p) <= C_p          for every piece p

    where ``w_r = sum_i c[i, r] x^i`` and ``c[i, r]`` is the sum over the
    pieces of example ``i`` of ``alpha^p_r [r in A_p] - beta^p_r [r in
    B_p]``; with a Gram matrix, ``||w_r||^2 = c[:, r]' K c[:, r]``.

    Parameters
    ----------
    X : array_like, shape (m, n), or None
        Instances, one per row. May be None if ``K`` is given.
    Y : array_like, shape (m, k)
        Target rankings, one per row (the paper's γ^i, Sec. 2).
    pieces : sequence of tuples
        ``(i, A, B)`` or ``(i, A, B, C_p)``: example index ``0 <= i < m``,
        disjoint non-empty 0-based label index arrays ``A`` and ``B``, and
        the piece's bound ``C_p >= 0`` (None or omitted: use ``C``). An
        example may have several pieces (a decomposition with ``d > 1``,
        Eq. 6) or none.
    C : float, optional
        Default bound for pieces that give none.
    K : array_like, shape (m, m), optional
        Symmetric PSD Gram matrix ``K[i, j] = <x^i, x^j>`` (any Mercer
        kernel). Default: the linear kernel ``X X'``.
    formulation : {"factored", "gram"}, default "factored"
        How the quadratic term is handed to Clarabel. ``"gram"``: the dense
        matrix ``P = M' (K kron I_k) M`` over the piece variables (``M``
        maps them to ``vec(c)``); size ``(sum |A_p|+|B_p|)^2``. ``"factored"``:
        with ``K = L L'`` (``L = X`` for the linear kernel, otherwise from an
        eigendecomposition) add variables ``v_r = L' c[:, r]`` tied by
        equalities and minimise ``1/2 sum ||v_r||^2``: the same QP, sparse.
    tol : float, default 1e-10
        Passed to :func:`polyrank.qp.solve_qp`.

    Returns
    -------
    SolverResult
        ``alpha`` and ``beta`` (lists of ndarrays, one per piece, in the
        order of that piece's ``A`` and ``B``), ``c`` (ndarray (m, k)),
        ``W`` (ndarray (k, n), ``c' X``; only if ``X`` is given),
        ``scores`` (ndarray (m, k), ``f_r(x^i) = (K c)[i, r]``),
        ``dual_objective`` (``D`` recomputed from the solution),
        ``primal_objective`` (Eq. 6/24 at ``w = c' X``:
        ``1/2 sum ||w_r||^2 + sum_p C_p xi_p`` with the smallest feasible
        slacks), ``gap`` (primal - dual, ~0 at the optimum), ``xi``
        (ndarray (n_pieces,)), ``bounds`` (ndarray (n_pieces,), the ``C_p``),
        ``status``, ``success``, ``nit``, ``solve_time_s``, ``wall_time_s``
        and ``solver="clarabel-eq38"``.

    Raises
    ------
    TypeError
        On non-numeric input, or label arrays that are not integers.
    ValueError
        On shape mismatch, NaN/inf, no pieces, a piece that is not a 3- or
        4-tuple, an example index out of range, bad label sets, a missing or
        negative bound, a ``K`` that is not symmetric PSD, both ``X`` and
        ``K`` missing, or an unknown ``formulation``.
    RuntimeError
        If Clarabel fails (see :func:`polyrank.qp.solve_qp`).

    Notes
    -----
    Source: ``sopopo-label-ranking.txt``, Sec. 5, Eq. 38, derived in
    Appendix C (Eq. 40-43) from the dual Eq. 30 of Eq. 24/26; pieces with
    per-piece bounds follow Eq. 24 (``C_i = C sigma^i``, one pseudo-example
    per sub-graph). By strong duality ``dual_objective`` equals the optimal
    value of the primal Eq. 6.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> Y = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> r = batch_reduced_qp(X, Y, [(0, [0], [1]), (1, [1], [0])], C=10.0)
    >>> round(r.dual_objective, 8), round(abs(r.gap), 6)
    (0.5, 0.0)
    """
    X, Y, K, C = _check_qp_inputs(X, Y, K, C, formulation)
    m, k = Y.shape
    try:
        pieces = list(pieces)
    except TypeError:
        raise TypeError("pieces: expected a sequence of (i, A, B[, C_p]) "
                        "tuples") from None
    if not pieces:
        raise ValueError("pieces: expected at least one piece")
    ex, lab, sgn, pid, bounds, slices = _piece_variables(pieces, m, k, C)
    nv = ex.size
    npieces = len(pieces)
    idx = np.arange(nv)

    # M: piece variables -> vec(c), row i*k + r (row-major c)
    M = sp.csc_matrix((sgn, (ex * k + lab, idx)), shape=(m * k, nv))
    lin = sgn * Y[ex, lab]              # D's linear term; minimise -D

    # per piece: sum(alpha) - sum(beta) = 0 ; sum(alpha) <= C_p ; lambda >= 0
    A_pc = sp.csc_matrix((sgn, (pid, idx)), shape=(npieces, nv))
    S_pc = sp.csc_matrix(((sgn > 0).astype(float), (pid, idx)),
                         shape=(npieces, nv))

    qp = _gram_qp if formulation == "gram" else _factored_qp
    lam, res = qp(X, K, ex, lab, sgn, lin, A_pc, S_pc, bounds, k, tol)

    alpha = [lam[s0:s1].copy() for s0, s1, _ in slices]
    beta = [lam[s1:s2].copy() for _, s1, s2 in slices]
    c = (M @ lam).reshape(m, k)
    if K is None:
        W = c.T @ X
        scores = X @ W.T
        sq_norm = float(np.sum(W * W))
    else:
        W = c.T @ X if X is not None else None
        scores = K @ c
        sq_norm = float(np.sum(c * scores))
    dual_objective = float(-0.5 * sq_norm + lin @ lam)
    xi = _slacks(pieces, Y, scores)
    primal_objective = float(0.5 * sq_norm + bounds @ xi)
    out = SolverResult(
        alpha=alpha, beta=beta, c=c, scores=scores,
        dual_objective=dual_objective, primal_objective=primal_objective,
        gap=primal_objective - dual_objective, xi=xi, bounds=bounds,
        x=c, status=res.status, success=res.success, nit=res.nit,
        message=res.message, solve_time_s=res.solve_time_s,
        wall_time_s=res.wall_time_s, solver="clarabel-eq38")
    if W is not None:
        out["W"] = W
    return out
