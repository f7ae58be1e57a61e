"""numba kernels of SOPOPO's batch passes without shrinking (Fig. 5, Eq. 26-36).

Paper file: ``sopopo-label-ranking.txt``, Sec. 4: one soft projection per
piece (Eq. 35/36) in the explicit (linear) and the kernel form, the greedy
order, and the primal and dual objectives (Eq. 29-30).
"""

import numpy as np
from numba import njit

from .._csr import row_axpy, row_dot
from ._projection_kernels import alpha_from, pair_step, solve_reduced_kernel


@njit(cache=True, nogil=True)
def _piece_update(f, y, A, B, sqn, Cp, alpha_old, beta_old, alpha_new, beta_new):
    """One soft projection (Eq. 35/36) for a piece whose current predictions
    are f (k,) *including* the piece's own contribution.  Writes the new dual
    variables and returns the dual increase Delta (Sec. 4.3).  A single-edge
    piece takes the closed form :func:`pair_step` (no work arrays); every
    other piece :func:`_piece_update_general`."""
    if A.shape[0] == 1 and B.shape[0] == 1:
        a = A[0]
        b = B[0]
        ao = alpha_old[0] * sqn
        mu = y[a] - (f[a] - ao)
        nu = (f[b] + beta_old[0] * sqn) - y[b]
        an, inc = pair_step(mu, nu, ao, Cp * sqn)
        alpha_new[0] = an / sqn
        beta_new[0] = an / sqn
        return 0.5 * inc / sqn
    return _piece_update_general(f, y, A, B, sqn, Cp, alpha_old, beta_old, alpha_new,
                                 beta_new)


@njit(cache=True, nogil=True)
def _piece_update_general(f, y, A, B, sqn, Cp, alpha_old, beta_old, alpha_new, beta_new):
    """:func:`_piece_update` for any piece by Fig. 3 (:func:`solve_sorted`):
    the reference of the single-edge closed form."""
    p = A.shape[0]
    q = B.shape[0]
    # mu and nu of Eq. 19 scaled by ||x||^2 (mu' = y_a - u_a.x, C' = C ||x||^2),
    # whose solution is ||x||^2 (alpha, beta): no division before the solve.
    mu = np.empty(p)
    nu = np.empty(q)
    # remove the piece's contribution: u.x = f - (alpha - beta) ||x||^2
    for t in range(p):
        a = A[t]
        mu[t] = y[a] - (f[a] - alpha_old[t] * sqn)
    for t in range(q):
        b = B[t]
        nu[t] = (f[b] + beta_old[t] * sqn) - y[b]
    z, ma, mb, lo, hi, R, S = solve_reduced_kernel(mu, nu, Cp * sqn)
    alpha_from(mu, ma, z, R, alpha_new)
    alpha_from(nu, mb, z, S, beta_new)
    # dual of the piece problem (Eq. 36) in reduced form: up to a constant
    # it is -1/(2 ||x||^2) [||alpha' - mu'||^2 + ||beta' - nu'||^2] with
    # alpha' = ||x||^2 alpha; the increase is expanded so that ||mu'||^2
    # cancels analytically rather than numerically.
    inc = 0.0
    for t in range(p):
        ao = alpha_old[t] * sqn
        an = alpha_new[t]
        inc += 2.0 * mu[t] * (an - ao) - (an * an - ao * ao)
        alpha_new[t] = an / sqn
    for t in range(q):
        bo = beta_old[t] * sqn
        bn = beta_new[t]
        inc += 2.0 * nu[t] * (bn - bo) - (bn * bn - bo * bo)
        beta_new[t] = bn / sqn
    return 0.5 * inc / sqn


@njit(cache=True, nogil=True)
def _piece_buffers(A_ptr, B_ptr):
    """Work buffers for the new dual variables of any piece: two arrays of
    the largest |A_p|, |B_p| (allocated once per pass, not per piece)."""
    na = 1
    nb = 1
    for pc in range(A_ptr.shape[0] - 1):
        if A_ptr[pc + 1] - A_ptr[pc] > na:
            na = A_ptr[pc + 1] - A_ptr[pc]
        if B_ptr[pc + 1] - B_ptr[pc] > nb:
            nb = B_ptr[pc + 1] - B_ptr[pc]
    return np.empty(na), np.empty(nb)


@njit(cache=True, nogil=True)
def pass_linear(rows, Y, W, order, pieces):
    """One pass of Fig. 5 over the pieces in ``order`` with an explicit W (k, n).

    ``rows`` (:class:`Instances`): the instances, the rows of the dense X
    (m, n), or, when X has no rows (shape (0, 0)), of the CSR matrix (Xdata,
    Xind, Xptr) (see :func:`row_dot`), and their ||x_i||^2; ``pieces``
    (:class:`PieceArrays`): the pieces and their dual variables.

    For each piece: f = W x (only rows in A u B), soft projection, then
    W_a += (alpha_new - alpha_old) x, W_b -= (beta_new - beta_old) x.
    Returns the total dual increase of the pass, the largest single one and
    the number of pieces whose dual variables changed.
    """
    X, Xdata, Xind, Xptr, sqnorm = rows.X, rows.Xdata, rows.Xind, rows.Xptr, rows.sqnorm
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    k = W.shape[0]
    f = np.zeros(k)
    abuf, bbuf = _piece_buffers(A_ptr, B_ptr)
    total = 0.0
    best = 0.0
    changed = 0
    for o in range(order.shape[0]):
        pc = order[o]
        i = piece_ex[pc]
        sqn = sqnorm[i]
        if sqn == 0.0:
            continue
        A = A_idx[A_ptr[pc]:A_ptr[pc + 1]]
        B = B_idx[B_ptr[pc]:B_ptr[pc + 1]]
        for a in A:
            f[a] = row_dot(W[a], X, Xdata, Xind, Xptr, i)
        for b in B:
            f[b] = row_dot(W[b], X, Xdata, Xind, Xptr, i)
        aold = alpha[A_ptr[pc]:A_ptr[pc + 1]]
        bold = beta[B_ptr[pc]:B_ptr[pc + 1]]
        anew = abuf[:A.shape[0]]
        bnew = bbuf[:B.shape[0]]
        inc = _piece_update(f, Y[i], A, B, sqn, piece_C[pc], aold, bold, anew, bnew)
        changed += _apply_linear_update(W, X, Xdata, Xind, Xptr, i, A, B, aold, bold,
                                        anew, bnew)
        total += inc
        if inc > best:
            best = inc
    return total, best, changed


@njit(cache=True, nogil=True)
def _apply_linear_update(W, X, Xdata, Xind, Xptr, i, A, B, aold, bold, anew, bnew):
    """W_a += (alpha_new - alpha_old) x_i, W_b -= (beta_new - beta_old) x_i
    (Eq. 15); store the new dual variables.  Returns 1 if anything changed,
    else 0."""
    changed = 0
    for t in range(A.shape[0]):
        d = anew[t] - aold[t]
        if d != 0.0:
            changed = 1
            row_axpy(W[A[t]], d, X, Xdata, Xind, Xptr, i)
        aold[t] = anew[t]
    for t in range(B.shape[0]):
        d = bnew[t] - bold[t]
        if d != 0.0:
            changed = 1
            row_axpy(W[B[t]], -d, X, Xdata, Xind, Xptr, i)
        bold[t] = bnew[t]
    return changed


@njit(cache=True, nogil=True)
def _apply_kernel_update(K, F, coef, i, A, B, aold, bold, anew, bnew):
    """Apply the change of a piece's dual variables to the coefficient matrix
    coef (m, k) and to the training predictions F = K coef (m, k).
    Returns 1 if anything changed, else 0."""
    m = K.shape[0]
    changed = 0
    for t in range(A.shape[0]):
        d = anew[t] - aold[t]
        if d != 0.0:
            changed = 1
            a = A[t]
            coef[i, a] += d
            for j in range(m):
                F[j, a] += d * K[j, i]
        aold[t] = anew[t]
    for t in range(B.shape[0]):
        d = bnew[t] - bold[t]
        if d != 0.0:
            changed = 1
            b = B[t]
            coef[i, b] -= d
            for j in range(m):
                F[j, b] -= d * K[j, i]
        bold[t] = bnew[t]
    return changed


@njit(cache=True, nogil=True)
def pass_kernel(K, Y, F, coef, order, pieces):
    """One pass of Fig. 5 in the kernel form (end of Sec. 4.2): w_r =
    sum_i coef[i, r] phi(x_i), predictions on the training set F = K coef are
    kept up to date, ||x_i||^2 = K[i, i]; ``pieces``: :class:`PieceArrays`.
    Returns (total, largest) dual increase and the number of pieces that
    changed."""
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    abuf, bbuf = _piece_buffers(A_ptr, B_ptr)
    total = 0.0
    best = 0.0
    changed = 0
    for o in range(order.shape[0]):
        pc = order[o]
        i = piece_ex[pc]
        sqn = K[i, i]
        if sqn <= 0.0:
            continue
        A = A_idx[A_ptr[pc]:A_ptr[pc + 1]]
        B = B_idx[B_ptr[pc]:B_ptr[pc + 1]]
        aold = alpha[A_ptr[pc]:A_ptr[pc + 1]]
        bold = beta[B_ptr[pc]:B_ptr[pc + 1]]
        anew = abuf[:A.shape[0]]
        bnew = bbuf[:B.shape[0]]
        inc = _piece_update(F[i], Y[i], A, B, sqn, piece_C[pc], aold, bold, anew, bnew)
        changed += _apply_kernel_update(K, F, coef, i, A, B, aold, bold, anew, bnew)
        total += inc
        if inc > best:
            best = inc
    return total, best, changed


@njit(cache=True, nogil=True)
def greedy_kernel(K, Y, F, coef, n_updates, min_inc, pieces):
    """``n_updates`` iterations of Eq. 31 where each picks the piece with the
    largest potential dual increase max_r Delta^r (Sec. 4.3, Thm. 6).

    Every iteration evaluates the soft projection of every piece, so it costs
    O(sum_p |V_p| log |V_p| + m |V_r|).  Stops early when no piece would
    increase the dual by more than ``min_inc`` (rounding level).  ``pieces``:
    :class:`PieceArrays`.  Returns (total, largest) increase and the number
    of updates made."""
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    P = piece_ex.shape[0]
    total = 0.0
    best_all = 0.0
    kmax = 1
    for pc in range(P):
        s = (A_ptr[pc + 1] - A_ptr[pc])
        if s > kmax:
            kmax = s
        s = (B_ptr[pc + 1] - B_ptr[pc])
        if s > kmax:
            kmax = s
    abuf = np.empty(kmax)
    bbuf = np.empty(kmax)
    done = 0
    for _ in range(n_updates):
        best = min_inc
        arg = -1
        for pc in range(P):
            i = piece_ex[pc]
            sqn = K[i, i]
            if sqn <= 0.0:
                continue
            A = A_idx[A_ptr[pc]:A_ptr[pc + 1]]
            B = B_idx[B_ptr[pc]:B_ptr[pc + 1]]
            inc = _piece_update(F[i], Y[i], A, B, sqn, piece_C[pc],
                                alpha[A_ptr[pc]:A_ptr[pc + 1]],
                                beta[B_ptr[pc]:B_ptr[pc + 1]],
                                abuf[:A.shape[0]], bbuf[:B.shape[0]])
            if inc > best:
                best = inc
                arg = pc
        if arg < 0:
            break
        pc = arg
        i = piece_ex[pc]
        A = A_idx[A_ptr[pc]:A_ptr[pc + 1]]
        B = B_idx[B_ptr[pc]:B_ptr[pc + 1]]
        aold = alpha[A_ptr[pc]:A_ptr[pc + 1]]
        bold = beta[B_ptr[pc]:B_ptr[pc + 1]]
        anew = np.empty(A.shape[0])
        bnew = np.empty(B.shape[0])
        inc = _piece_update(F[i], Y[i], A, B, K[i, i], piece_C[pc], aold, bold, anew, bnew)
        _apply_kernel_update(K, F, coef, i, A, B, aold, bold, anew, bnew)
        done += 1
        total += inc
        if inc > best_all:
            best_all = inc
    return total, best_all, done


@njit(cache=True, nogil=True)
def objectives(F, Y, pieces, sqw):
    """Primal (Eq. 24) and dual (Eq. 30, in reduced form) objectives.

    F (m, k) are the predictions f_r(x_i); sqw = sum_r ||w_r||^2.
    xi_p = max(0, max_{a in A_p}(y_a - f_a) + max_{b in B_p}(f_b - y_b)).
    D = -1/2 sqw + sum_p (sum_a alpha_a y_a - sum_b beta_b y_b); ``pieces``:
    :class:`PieceArrays`.
    """
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    P = piece_ex.shape[0]
    loss = 0.0
    lin = 0.0
    for pc in range(P):
        i = piece_ex[pc]
        ma = -np.inf
        for t in range(A_ptr[pc], A_ptr[pc + 1]):
            a = A_idx[t]
            v = Y[i, a] - F[i, a]
            if v > ma:
                ma = v
            lin += alpha[t] * Y[i, a]
        mb = -np.inf
        for t in range(B_ptr[pc], B_ptr[pc + 1]):
            b = B_idx[t]
            v = F[i, b] - Y[i, b]
            if v > mb:
                mb = v
            lin -= beta[t] * Y[i, b]
        xi = ma + mb
        if xi > 0.0:
            loss += piece_C[pc] * xi
    return 0.5 * sqw + loss, -0.5 * sqw + lin
