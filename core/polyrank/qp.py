"""The one adapter to the QP solver (Clarabel).

Every reference solution in polyrank that needs a general-purpose convex QP
goes through :func:`solve_qp`, so the solver can be swapped in one place.
Clarabel (an interior-point solver, https://clarabel.org) is used because it
is accurate to ~1e-10 on small problems; OSQP is faster but only accurate to
about 1e-4 (``RECIPES.md``, "Clarabel") and is therefore not a reference.

Clarabel solves ``min 1/2 x'Px + q'x  s.t.  Ax + s = b, s in K``. Here the
cone ``K`` is the product of a zero cone (the equalities ``A_eq x = b_eq``)
and a nonnegative cone (the inequalities ``G x <= h``, i.e.
``s = h - G x >= 0``). Clarabel reads only the upper triangle of ``P``.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from polyrank.result import SolverResult

__all__ = ["solve_qp"]

#: Clarabel statuses accepted as a solution.
_ACCEPTED = ("Solved", "AlmostSolved")

#: Above this many stored entries, matrices are converted, checked and
#: stacked by scipy.sparse (C code, a few copies of the entries); below it
#: by raw numpy index arithmetic (scipy.sparse costs ~0.1 ms per operation,
#: more than Clarabel needs for a small QP).
_LARGE = 100_000


def _csc_parts(M, name: str, n_cols: int | None):
    """Return ``(data, indices, indptr, shape)`` of ``M`` in canonical CSC form
    (float64, sorted row indices, no duplicates), checking finiteness and the
    number of columns. Works on raw arrays: scipy.sparse operations cost
    ~0.1 ms each, more than Clarabel needs for a small QP."""
    if sp.issparse(M):
        M = M.tocsc()
        if not M.has_canonical_format:
            M = M.copy()
            M.sum_duplicates()
        data = np.asarray(M.data, dtype=np.float64)
        indices = np.asarray(M.indices, dtype=np.int64)
        indptr = np.asarray(M.indptr, dtype=np.int64)
        shape = M.shape
    else:
        arr = np.asarray(M)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                       or arr.dtype == bool):
            raise TypeError(f"{name}: expected a numeric 2-d array or scipy "
                            f"sparse matrix, got dtype {arr.dtype}")
        if np.iscomplexobj(arr):
            raise TypeError(f"{name}: expected real numbers, got dtype "
                            f"{arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(f"{name}: expected a 2-d array, got shape "
                             f"{arr.shape}")
        arr = np.asarray(arr, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name}: contains NaN or infinite entries")
        if arr.size > _LARGE:
            # scipy converts in C, without the index arrays of np.nonzero
            M = sp.csc_matrix(arr)
            data, indices = M.data, M.indices.astype(np.int64)
            indptr = M.indptr.astype(np.int64)
        else:
            cols, rows = np.nonzero(arr.T)          # column-major order = CSC
            data = arr[rows, cols]
            indices = rows.astype(np.int64)
            indptr = np.zeros(arr.shape[1] + 1, dtype=np.int64)
            np.cumsum(np.bincount(cols, minlength=arr.shape[1]), out=indptr[1:])
        shape = arr.shape
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name}: contains NaN or infinite entries")
    if n_cols is not None and shape[1] != n_cols:
        raise ValueError(f"{name}: expected {n_cols} columns (the length of "
                         f"q), got shape {shape}")
    return data, indices, indptr, shape


def _entry_cols(indptr: np.ndarray) -> np.ndarray:
    """The column of every stored entry of a CSC matrix."""
    return np.repeat(np.arange(indptr.size - 1, dtype=np.int64),
                     np.diff(indptr))


def _upper_triangle(data, indices, indptr, n: int):
    """Check symmetry of the CSC matrix and return its upper triangle (CSC)
    and a function computing ``P @ x``."""
    if data.size > _LARGE:
        M = sp.csc_matrix((data, indices, indptr), shape=(n, n))
        M.eliminate_zeros()
        diff = M - M.T
        asym = float(abs(diff).max()) if diff.nnz else 0.0
        del diff
        scale = max(float(abs(M).max()) if M.nnz else 0.0, 1.0)
        if asym > 1e-12 * scale:
            raise ValueError(f"P: expected a symmetric matrix, max |P - P'| "
                             f"= {asym:.3g}")
        return sp.triu(M, format="csc"), M.dot
    cols = _entry_cols(indptr)
    nz = data != 0
    r, c, v = indices[nz], cols[nz], data[nz]
    if not np.array_equal(r, c):                 # not diagonal: check P = P'
        keys = np.concatenate([r * n + c, c * n + r])
        _, inv = np.unique(keys, return_inverse=True)
        diff = np.bincount(inv, weights=np.concatenate([v, -v]))
        asym = float(np.abs(diff).max())
        if asym > 1e-12 * max(float(np.abs(v).max()), 1.0):
            raise ValueError(f"P: expected a symmetric matrix, max |P - P'| "
                             f"= {asym:.3g}")
    up = r <= c
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(c[up], minlength=n), out=ptr[1:])
    P_upper = sp.csc_matrix((v[up], r[up], ptr), shape=(n, n))

    def matvec(x):
        return np.bincount(r, weights=v * x[c], minlength=n)
    return P_upper, matvec


def _stack_rows(parts, n: int):
    """Stack CSC matrices (given as parts) vertically into one CSC matrix."""
    if not parts:
        return sp.csc_matrix((0, n), dtype=np.float64)
    if sum(p[0].size for p in parts) > _LARGE:
        return sp.vstack([sp.csc_matrix((d, ind, ptr), shape=shape)
                          for d, ind, ptr, shape in parts], format="csc")
    data, rows, cols = [], [], []
    offset = 0
    for d, ind, ptr, shape in parts:
        data.append(d)
        rows.append(ind + offset)
        cols.append(_entry_cols(ptr))
        offset += shape[0]
    data = np.concatenate(data)
    rows = np.concatenate(rows)
    cols = np.concatenate(cols)
    order = np.argsort(cols, kind="stable")     # keeps rows sorted per column
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols, minlength=n), out=ptr[1:])
    return sp.csc_matrix((data[order], rows[order], ptr), shape=(offset, n))


def _as_vector(v, name: str, length: int | None) -> np.ndarray:
    arr = np.asarray(v)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                   or arr.dtype == bool):
        raise TypeError(f"{name}: expected a numeric 1-d array, got dtype "
                        f"{arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d array, got shape "
                         f"{arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name}: expected length {length}, got "
                         f"{arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite entries")
    return arr


def _check_options(A_eq, b_eq, G, h, tol, max_iter) -> None:
    """Check that the constraint pairs of :func:`solve_qp` come both or
    neither and that ``tol`` and ``max_iter`` are positive (ValueError or
    TypeError naming the argument)."""
    if (A_eq is None) != (b_eq is None):
        raise ValueError("A_eq, b_eq: give both or neither")
    if (G is None) != (h is None):
        raise ValueError("G, h: give both or neither")
    if not (isinstance(tol, (float, int)) and np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol: expected a positive finite number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"max_iter: expected an int, got "
                        f"{type(max_iter).__name__}")
    if max_iter < 1:
        raise ValueError(f"max_iter: expected >= 1, got {max_iter}")


def _constraints(clarabel, A_eq, b_eq, G, h, n: int):
    """Clarabel's constraint data ``A x + s = b, s in K`` for
    ``A_eq x = b_eq`` (zero cone) then ``G x <= h`` (nonnegative cone), each
    checked: returns (A as CSC (p + r, n), b, the cones, p, r)."""
    blocks, rhs, cones = [], [], []
    sizes = []          # the numbers of equalities p and inequalities r
    for M, vec, names, cone in ((A_eq, b_eq, ("A_eq", "b_eq"), clarabel.ZeroConeT),
                                (G, h, ("G", "h"), clarabel.NonnegativeConeT)):
        rows = 0
        if M is not None:
            parts = _csc_parts(M, names[0], n)
            rows = parts[3][0]
            vec = _as_vector(vec, names[1], rows)
            if rows:
                blocks.append(parts)
                rhs.append(vec)
                cones.append(cone(rows))
        sizes.append(rows)
    p, r = sizes
    b = np.concatenate(rhs) if rhs else np.zeros(0)
    return _stack_rows(blocks, n), b, cones, p, r


def _settings(clarabel, tol, max_iter, verbose):
    """Clarabel's settings: ``tol`` for the gap and feasibility tolerances,
    ``max_iter``, ``verbose``, one thread."""
    settings = clarabel.DefaultSettings()
    settings.verbose = bool(verbose)
    settings.max_iter = int(max_iter)
    settings.tol_gap_abs = float(tol)
    settings.tol_gap_rel = float(tol)
    settings.tol_feas = float(tol)
    # Clarabel defaults to a rayon thread pool (max_threads = 0), which
    # threadpoolctl cannot limit; one thread keeps reference solves and
    # timings single-threaded like every polyrank solver
    settings.max_threads = 1
    return settings


def solve_qp(P, q, A_eq=None, b_eq=None, G=None, h=None, *,
             tol: float = 1e-10, max_iter: int = 200,
             verbose: bool = False) -> SolverResult:
    """Solve a convex quadratic program with Clarabel.

    Solves::

        minimise    1/2 x' P x + q' x
        subject to  A_eq x  = b_eq
                    G x    <= h

    Parameters
    ----------
    P : array_like or scipy.sparse matrix, shape (n, n)
        Symmetric positive semidefinite cost matrix (dense or sparse). It
        must be symmetric (checked to a relative 1e-12); only its upper
        triangle is passed to Clarabel, as Clarabel expects.
    q : array_like, shape (n,)
        Linear cost.
    A_eq : array_like or sparse, shape (p, n), optional
        Equality constraint matrix; requires ``b_eq``.
    b_eq : array_like, shape (p,), optional
        Equality right-hand side; requires ``A_eq``.
    G : array_like or sparse, shape (r, n), optional
        Inequality constraint matrix; requires ``h``.
    h : array_like, shape (r,), optional
        Inequality right-hand side; requires ``G``.
    tol : float, default 1e-10
        Clarabel's ``tol_gap_abs``, ``tol_gap_rel`` and ``tol_feas``.
    max_iter : int, default 200
        Clarabel's ``max_iter`` (interior-point iterations).
    verbose : bool, default False
        Clarabel's ``verbose`` (prints its iteration log).

    Returns
    -------
    SolverResult
        With ``x`` (ndarray (n,)), ``primal_objective`` (1/2 x'Px + q'x,
        recomputed in float64 from ``x``), ``dual_objective`` (Clarabel's
        dual objective), ``gap``, ``dual`` (dict with ``"eq"``, shape (p,),
        and ``"ineq"``, shape (r,), the Lagrange multipliers; ``ineq >= 0``
        and the KKT stationarity reads ``P x + q + A_eq' y_eq + G' y_ineq =
        0``), ``status`` (Clarabel's status string, ``"Solved"`` or
        ``"AlmostSolved"``), ``success`` (True), ``message``,
        ``solve_time_s`` (Clarabel's own solve time, seconds),
        ``wall_time_s`` (seconds including input conversion and setup),
        ``nit`` (interior-point iterations) and ``solver="clarabel"``.

    Raises
    ------
    TypeError
        If an argument is not numeric.
    ValueError
        If an argument has the wrong shape, contains NaN/inf, ``P`` is not
        symmetric, only one of a pair (``A_eq``/``b_eq``, ``G``/``h``) is
        given, or ``tol``/``max_iter`` are not positive.
    RuntimeError
        If Clarabel does not report ``Solved`` or ``AlmostSolved``
        (e.g. ``PrimalInfeasible``, ``MaxIterations``); the message names
        the status.

    Notes
    -----
    Source: not from a paper; the adapter behind the QP references of
    ``sopopo-label-ranking.txt`` (Eq. 7, Eq. 19, Eq. 38), see
    :mod:`polyrank.sopopo.reference`. Clarabel's interface:
    ``clarabel.DefaultSolver(P, q, A, b, cones, settings)`` with
    ``ZeroConeT`` and ``NonnegativeConeT`` cones.

    Examples
    --------
    >>> import numpy as np
    >>> r = solve_qp(np.eye(2), np.array([-1.0, -1.0]),
    ...              A_eq=np.ones((1, 2)), b_eq=np.array([1.0]))
    >>> np.round(r.x, 8).tolist(), r.status
    ([0.5, 0.5], 'Solved')
    """
    import clarabel

    t_wall = time.perf_counter()
    q = _as_vector(q, "q", None)
    n = q.shape[0]
    if n == 0:
        raise ValueError("q: expected at least one variable, got length 0")
    P_parts = _csc_parts(P, "P", None)
    if P_parts[3] != (n, n):
        raise ValueError(f"P: expected shape ({n}, {n}) to match q, got "
                         f"{P_parts[3]}")
    _check_options(A_eq, b_eq, G, h, tol, max_iter)
    P_upper, P_matvec = _upper_triangle(*P_parts[:3], n)
    A, b, cones, p, r = _constraints(clarabel, A_eq, b_eq, G, h, n)
    solution = clarabel.DefaultSolver(P_upper, q, A, b, cones,
                                      _settings(clarabel, tol, max_iter, verbose)).solve()
    status = str(solution.status)
    if status not in _ACCEPTED:
        raise RuntimeError(f"Clarabel did not solve the QP: status "
                           f"{status!r} after {solution.iterations} "
                           f"iterations (n={n}, equalities={p}, "
                           f"inequalities={r})")
    x = np.asarray(solution.x, dtype=np.float64)
    z = np.asarray(solution.z, dtype=np.float64)
    primal = float(0.5 * x @ P_matvec(x) + q @ x)
    dual = float(solution.obj_val_dual)
    wall = time.perf_counter() - t_wall
    return SolverResult(
        x=x,
        dual={"eq": z[:p].copy(), "ineq": z[p:].copy()},
        primal_objective=primal,
        dual_objective=dual,
        gap=primal - dual,
        nit=int(solution.iterations),
        success=True,
        status=status,
        message=f"Clarabel status {status}",
        solver="clarabel",
        solve_time_s=float(solution.solve_time),
        wall_time_s=wall,
    )
