"""numba kernels of SOPOPO (Shalev-Shwartz & Singer, JMLR 2006).

Paper file: ``sopopo-label-ranking.txt``.  Plain arrays in, numbers out; no
Python objects.  Conventions: label sets A and B of one piece are int64 index
arrays; ``mu`` and ``nu`` are the reduced-problem vectors of Eq. 19 in the
order of A and B (unsorted); sorting happens inside.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._csr import label_axpy, label_dot, row_axpy, row_dot, rows_axpy, rows_dot
from .._sort import heapsort_prefix


class PieceArrays(NamedTuple):
    """The pieces of the decomposition (Sec. 3) and their dual variables, one
    argument of the pass kernels (:func:`pass_linear`, :func:`pass_kernel`,
    :func:`greedy_kernel`, the shrinking passes) instead of eight (numba
    types a NamedTuple of arrays field by field; the kernels read the
    fields once).  Piece p belongs to example ``example[p]``, has the bound
    ``C[p]`` and the label sets A_p = ``A_idx[A_ptr[p]:A_ptr[p + 1]]``,
    B_p likewise; its dual variables are ``alpha[A_ptr[p]:A_ptr[p + 1]]``
    (one per a in A_p) and ``beta[B_ptr[p]:B_ptr[p + 1]]``."""

    example: np.ndarray        # int64 (P,): the example of each piece
    C: np.ndarray              # float64 (P,): C_p
    A_ptr: np.ndarray          # int64 (P + 1,)
    A_idx: np.ndarray          # int64 (sum |A_p|,): labels
    B_ptr: np.ndarray          # int64 (P + 1,)
    B_idx: np.ndarray          # int64 (sum |B_p|,): labels
    alpha: np.ndarray          # float64 (sum |A_p|,), in place
    beta: np.ndarray           # float64 (sum |B_p|,), in place


class ActiveLabels(NamedTuple):
    """The active labels of every piece in the shrinking variant (see
    :func:`_example_sweep`): the active entries of side A of piece p are
    ``A_pos[A_ptr[p]:A_ptr[p] + A_act[p]]`` (positions into ``A_idx`` and
    ``alpha``), the shrunk ones follow; B likewise.  All in place."""

    A_pos: np.ndarray          # int64 (sum |A_p|,)
    B_pos: np.ndarray          # int64 (sum |B_p|,)
    A_act: np.ndarray          # int64 (P,)
    B_act: np.ndarray          # int64 (P,)


class Instances(NamedTuple):
    """The instances of the explicit (linear) form: the rows of the dense X
    (m, n), or, when X has no rows (shape (0, 0)), of the CSR matrix
    (Xdata, Xind, Xptr) (see :func:`row_dot`), with ||x_i||^2."""

    X: np.ndarray              # float64 (m, n) or (0, 0)
    Xdata: np.ndarray          # float64 (nnz,)
    Xind: np.ndarray           # int (nnz,)
    Xptr: np.ndarray           # int (m + 1,)
    sqnorm: np.ndarray         # float64 (m,): ||x_i||^2


class Segments(NamedTuple):
    """The segments of :func:`pass_pairs_shrink`: segment g holds pieces of
    example ``seg_ex[g]``, the active ones ``pos[seg_ptr[g]:seg_ptr[g] +
    n_act[g]]``; a pass visits the segments in ``order``."""

    order: np.ndarray          # int64 (G,)
    seg_ex: np.ndarray         # int64 (G,)
    seg_ptr: np.ndarray        # int64 (G + 1,)
    pos: np.ndarray            # int64 (P,), in place
    n_act: np.ndarray          # int64 (G,), in place


class SweepBuffers(NamedTuple):
    """The scores and work buffers of :func:`_example_sweep` (made by the
    shrinking passes, once per pass)."""

    f: np.ndarray              # float64 (k,): scores f_r of the current example
    dc: np.ndarray             # float64 (k,): changes of the label coefficients
    mu: np.ndarray             # float64 (kmax,)
    nu: np.ndarray             # float64 (kmax,)
    ms: np.ndarray             # float64 (kmax,)
    ns: np.ndarray             # float64 (kmax,)


@njit(cache=True, nogil=True)
def knots_sorted(mu_asc):
    """Knots z_i = sum_{r<=i} mu_r - i mu_i of Thm. 4, where mu_1 >= mu_2 >= ...
    is ``mu_asc`` (sorted ascending) read from its end.  Returns (knots,
    prefix) with prefix[i] = mu_1 + ... + mu_{i+1}."""
    p = mu_asc.shape[0]
    z = np.empty(p)
    s = np.empty(p)
    acc = 0.0
    for i in range(p):
        m = mu_asc[p - 1 - i]
        acc += m
        s[i] = acc
        z[i] = acc - (i + 1) * m
        if i > 0 and z[i] < z[i - 1]:
            # Thm. 4: the sequence is non-decreasing; rounding may break it
            z[i] = z[i - 1]
    return z, s


@njit(cache=True, nogil=True)
def g_sorted(zs, mu_asc):
    """g(z; mu) of Eq. 20 (with its factor 1/2) for each z in zs >= 0, by the
    piecewise form of Thm. 4: g = 1/2 [(S_i - z)^2 / i + sum_{r>i} mu_r^2]
    for z in [z_i, z_{i+1}); mu_asc sorted ascending."""
    p = mu_asc.shape[0]
    kn, s = knots_sorted(mu_asc)
    tail = np.empty(p + 1)          # tail[i] = sum of squares of all but the i largest
    tail[p] = 0.0
    for r in range(p - 1, -1, -1):
        m = mu_asc[p - 1 - r]
        tail[r] = tail[r + 1] + m * m
    out = np.empty(zs.shape[0])
    for t in range(zs.shape[0]):
        z = zs[t]
        # i = number of knots <= z  (>= 1 because the first knot is 0)
        i = np.searchsorted(kn, z, side="right")
        if i < 1:
            i = 1
        d = s[i - 1] - z
        out[t] = 0.5 * (d * d / i + tail[i])
    return out


@njit(cache=True, nogil=True)
def sort_inplace(a):
    """Sort ascending in place (:func:`sort_prefix` of the whole array)."""
    sort_prefix(a, a.shape[0])


@njit(cache=True, nogil=True, _nrt=False)
def sort_prefix(a, n):
    """Sort a[:n] ascending in place: insertion sort for short prefixes (the
    pieces of the batch solver have a handful of labels; numba's quicksort
    costs about 0.5 us even for 8 numbers), numba's sort otherwise.  Taking
    the length instead of a slice keeps the hot loops free of array views
    (each one reference counted: atomic operations that took most of a
    shrinking pass on digits), and ``_nrt=False`` keeps the reference counts
    of the arguments out too."""
    if n > 64:
        heapsort_prefix(a, n)
        return
    for i in range(1, n):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


@njit(cache=True, nogil=True)
def solve_reduced_kernel(mu, nu, C):
    """:func:`solve_sorted` after sorting copies of mu and nu inside numba
    (used for the small pieces of the batch solver)."""
    mu_s = mu.copy()
    nu_s = nu.copy()
    sort_inplace(mu_s)
    sort_inplace(nu_s)
    return solve_sorted(mu_s, nu_s, C)


@njit(cache=True, nogil=True)
def solve_sorted(mu_s, nu_s, C):
    """:func:`solve_sorted_n` on the whole arrays mu_s and nu_s."""
    return solve_sorted_n(mu_s, mu_s.shape[0], nu_s, nu_s.shape[0], C)


@njit(cache=True, nogil=True, _nrt=False)
def solve_sorted_n(mu_s, p, nu_s, q, C):
    """Minimise g(z; mu) + g(z; nu) over z in [0, C] (Fig. 3 of the paper),
    for mu_s and nu_s sorted ascending (mu_1 = mu_s[-1] is the largest).

    The union of the knots below C is swept in ascending order.  With
    mu_1 >= mu_2 >= ... and S_i = mu_1 + ... + mu_i, the knot after z_i is
    z_{i+1} = S_i - i mu_{i+1} (proof of Thm. 4), computed on the fly.  On
    the interval [z', N(z')] with R = R(z') and S = S(z') knots to its
    left, the objective is quadratic with derivative
    (z - S_R(mu))/R + (z - S_S(nu))/S; its stationary point is
    O(z') = (S sum_{r<=R} mu_r + R sum_{r<=S} nu_r)/(R+S) (Fig. 3, LOCAL MIN).
    Fig. 3 tests O(z') in [z', N(z')]; we test the equivalent sign change of
    the derivative at N(z') and clip O(z') to the interval, which is immune
    to rounding.  If the derivative at 0, -(mu_1 + nu_1), is >= 0 then
    z* = 0; if it is still negative at C, z* = C.

    Returns
    -------
    z, mean_alpha, mean_beta, lo, hi, R, S
        z*, the means of the R largest mu and of the S largest nu, the
        bracketing interval [lo, hi] and the counts R(z*), S(z*).  The
        thresholds of Eq. 23 are theta_alpha = mean_alpha - z*/R, and
        alpha = (mu - theta_alpha)_+ is best evaluated as
        ((mu - mean_alpha) + z*/R)_+ (see :func:`alpha_from`), which stays
        exact when z* is tiny against |mu| (with R = 1, alpha = z* exactly).
    Only the prefixes mu_s[:p] and nu_s[:q] are read (no array views in the
    batch solver's hot loop).
    """
    if mu_s[p - 1] + nu_s[q - 1] <= 0.0:
        return 0.0, mu_s[p - 1], nu_s[q - 1], 0.0, 0.0, 1, 1
    # R, S: numbers of knots <= lo; SR, SS: sums of the R (S) largest entries
    R = 1
    SR = mu_s[p - 1]
    while R < p and SR - R * mu_s[p - 1 - R] <= 0.0:
        SR += mu_s[p - 1 - R]
        R += 1
    S = 1
    SS = nu_s[q - 1]
    while S < q and SS - S * nu_s[q - 1 - S] <= 0.0:
        SS += nu_s[q - 1 - S]
        S += 1
    lo = 0.0
    while True:
        # next knot of the union (strictly above lo), capped at C
        nxt = C
        if R < p:
            kz = SR - R * mu_s[p - 1 - R]
            if kz < nxt:
                nxt = kz
        if S < q:
            kz = SS - S * nu_s[q - 1 - S]
            if kz < nxt:
                nxt = kz
        # derivative of the quadratic piece at the right end
        dright = (nxt - SR) / R + (nxt - SS) / S
        if dright >= 0.0 or nxt >= C:
            if dright >= 0.0:
                z = (S * SR + R * SS) / (R + S)
                if z < lo:
                    z = lo
                if z > nxt:
                    z = nxt
            else:
                z = C
            return z, SR / R, SS / S, lo, nxt, R, S
        lo = nxt
        while R < p and SR - R * mu_s[p - 1 - R] <= lo:
            SR += mu_s[p - 1 - R]
            R += 1
        while S < q and SS - S * nu_s[q - 1 - S] <= lo:
            SS += nu_s[q - 1 - S]
            S += 1


@njit(cache=True, nogil=True)
def check_piece(k, A, B, y, x, f):
    """Validate one soft-projection problem in O(k + n) (y: the target
    ranking, the paper's γ of Sec. 2).

    Returns (code, r, s): 0 ok; 1 A out of range (r); 2 B out of range (r);
    3 duplicate in A (r); 4 duplicate in B (r); 5 r in both A and B;
    6 y[r] <= y[s] for r in A, s in B (condition 1 of Sec. 2);
    7 x[r] not finite; 8 y[r] not finite; 9 f[r] = u_r . x not finite."""
    for j in range(x.shape[0]):
        if not np.isfinite(x[j]):
            return 7, j, -1
    for j in range(k):
        if not np.isfinite(y[j]):
            return 8, j, -1
    for j in range(k):
        if not np.isfinite(f[j]):
            return 9, j, -1
    mark = np.zeros(k, dtype=np.int8)
    amin = np.inf
    ra = -1
    for a in A:
        if a < 0 or a >= k:
            return 1, a, -1
        if mark[a]:
            return 3, a, -1
        mark[a] = 1
        if y[a] < amin:
            amin = y[a]
            ra = a
    bmax = -np.inf
    sb = -1
    for b in B:
        if b < 0 or b >= k:
            return 2, b, -1
        if mark[b] == 1:
            return 5, b, -1
        if mark[b] == 2:
            return 4, b, -1
        mark[b] = 2
        if y[b] > bmax:
            bmax = y[b]
            sb = b
    if not amin > bmax:
        return 6, ra, sb
    return 0, -1, -1


@njit(cache=True, nogil=True)
def project_rows(U, x, A, B, alpha, beta, W):
    """W = U with w_a = u_a + alpha_a x (a in A), w_b = u_b - beta_b x (Eq. 15),
    written into W in one pass over U."""
    k, n = U.shape
    c = np.zeros(k)
    for t in range(A.shape[0]):
        c[A[t]] = alpha[t]
    for t in range(B.shape[0]):
        c[B[t]] = -beta[t]
    for r in range(k):
        d = c[r]
        if d != 0.0:
            for j in range(n):
                W[r, j] = U[r, j] + d * x[j]
        else:
            for j in range(n):
                W[r, j] = U[r, j]


@njit(cache=True, nogil=True)
def finish_projection(ma, mb, mean_a, mean_b, z, R, S, sq, C, alpha, beta):
    """Dual variables, slack and objectives of one soft projection.

    ma = y_A - U_A x and mb = U_B x - y_B are the margins scaled by
    ||x||^2 (the reduced problem was solved with C ||x||^2).  Writes alpha,
    beta (Eq. 14, unscaled) and returns xi (slack of Eq. 7 after the
    update), the primal value of Eq. 7 and the dual value of Eq. 16."""
    p = ma.shape[0]
    q = mb.shape[0]
    za = z / R
    zb = z / S
    half = 0.0
    lin = 0.0
    xa = -np.inf
    xb = -np.inf
    for t in range(p):
        v = (ma[t] - mean_a) + za
        a2 = v if v > 0.0 else 0.0          # alpha ||x||^2
        alpha[t] = a2 / sq
        half += a2 * a2
        lin += ma[t] * a2
        if ma[t] - a2 > xa:
            xa = ma[t] - a2                 # y_a - w_a . x
    for t in range(q):
        v = (mb[t] - mean_b) + zb
        b2 = v if v > 0.0 else 0.0
        beta[t] = b2 / sq
        half += b2 * b2
        lin += mb[t] * b2
        if mb[t] - b2 > xb:
            xb = mb[t] - b2                 # w_b . x - y_b
    half = 0.5 * half / sq
    xi = xa + xb
    if xi < 0.0:
        xi = 0.0
    return xi, half + C * xi, lin / sq - half


@njit(cache=True, nogil=True)
def soft_project_kernel(U, x, y, f, A, B, C, mu_sorted, nu_sorted, W, alpha, beta):
    """Validation and the whole of Fig. 3 for one problem.

    f: U x, or an empty array to compute it here.  mu_sorted / nu_sorted:
    the margins y_a - f_a and f_b - y_b sorted ascending, or empty
    arrays to sort here (numba's sort is slower than numpy's for large k,
    so the caller sorts then).  W (k, n), alpha (|A|,), beta (|B|,) are
    outputs allocated by the caller (returning fresh arrays from numba costs
    about 1 us each).  Returns (code, r, s) of :func:`check_piece` (code -1:
    x = 0, left to the caller), z*, xi, primal (Eq. 7) and dual (Eq. 16);
    when code != 0 the outputs are not written."""
    k, n = U.shape
    if f.shape[0] == 0:
        f = np.dot(U, x)                # BLAS dgemv
    code, r, s = check_piece(k, A, B, y, x, f)
    if code != 0:
        return code, r, s, 0.0, 0.0, 0.0, 0.0
    sq = np.dot(x, x)
    if sq == 0.0:
        return -1, -1, -1, 0.0, 0.0, 0.0, 0.0
    p = A.shape[0]
    q = B.shape[0]
    ma = np.empty(p)
    mb = np.empty(q)
    for t in range(p):
        ma[t] = y[A[t]] - f[A[t]]
    for t in range(q):
        mb[t] = f[B[t]] - y[B[t]]
    # Eq. 19 scaled by ||x||^2 (margins ma, mb and bound C ||x||^2): its
    # solution is ||x||^2 (alpha, beta), with no division before the solve,
    # which keeps it exact when ||x|| is tiny.
    if mu_sorted.shape[0] == 0:
        sort_inplace(ma)
        sort_inplace(mb)
        z, mean_a, mean_b, lo, hi, R, S = solve_sorted(ma, mb, C * sq)
        for t in range(p):
            ma[t] = y[A[t]] - f[A[t]]
        for t in range(q):
            mb[t] = f[B[t]] - y[B[t]]
    else:
        z, mean_a, mean_b, lo, hi, R, S = solve_sorted(mu_sorted, nu_sorted, C * sq)
    xi, primal, dual = finish_projection(ma, mb, mean_a, mean_b, z, R, S, sq, C,
                                         alpha, beta)
    project_rows(U, x, A, B, alpha, beta, W)
    return 0, -1, -1, z / sq, xi, primal, dual


@njit(cache=True, nogil=True)
def solve_reduced_full(mu, nu, C, mu_sorted, nu_sorted, alpha, beta):
    """Eq. 19 solved and evaluated in one call (see :func:`soft_project_kernel`
    for mu_sorted / nu_sorted); alpha and beta are outputs.  Returns
    (bad, z, theta_alpha, theta_beta, lo, hi, R, S, objective) where bad is
    -1 if mu and nu are finite, else the index of the first non-finite
    entry of (mu, nu) concatenated."""
    p = mu.shape[0]
    for t in range(p):
        if not np.isfinite(mu[t]):
            return t, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0.0
    for t in range(nu.shape[0]):
        if not np.isfinite(nu[t]):
            return p + t, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0.0
    if mu_sorted.shape[0] == 0:
        z, ma, mb, lo, hi, R, S = solve_reduced_kernel(mu, nu, C)
    else:
        z, ma, mb, lo, hi, R, S = solve_sorted(mu_sorted, nu_sorted, C)
    alpha_from(mu, ma, z, R, alpha)
    alpha_from(nu, mb, z, S, beta)
    obj = 0.0
    for t in range(mu.shape[0]):
        obj += (alpha[t] - mu[t]) ** 2
    for t in range(nu.shape[0]):
        obj += (beta[t] - nu[t]) ** 2
    return -1, z, ma - z / R, mb - z / S, lo, hi, R, S, 0.5 * obj


@njit(cache=True, nogil=True)
def alpha_from(mu, mean, z, R, out):
    """out = ((mu - mean) + z / R)_+ = (mu - theta)_+ of Eq. 23."""
    zr = z / R
    for t in range(mu.shape[0]):
        v = (mu[t] - mean) + zr
        out[t] = v if v > 0.0 else 0.0


@njit(cache=True, nogil=True)
def pair_step(mu, nu, ao, Cs):
    """The soft projection of a single-edge piece {(a, b)} in closed form.

    With A = {a}, B = {b} the reduced problem Eq. 19 has one variable per
    side, tied by its constraint alpha_a = beta_b <= C (both are tau_ab,
    Eq. 14), so Fig. 3 finds no knot inside (0, C) and its LOCAL MIN is
    z* = (mu + nu) / 2 clipped to [0, C]: the dual step is the 1-d clipped
    step along e_a - e_b,
    alpha_new = clip(alpha + (y_a - y_b - f_a + f_b) / (2 ||x||^2),
    0, C_p).  Everything is scaled by ||x||^2 as in :func:`_piece_update`:
    mu = y_a - u_a.x and nu = u_b.x - y_b (the piece's own
    contribution removed), ao = ||x||^2 alpha_old, Cs = C_p ||x||^2.  The
    arithmetic is that of :func:`solve_sorted` with p = q = 1 (same
    comparisons, same roundings), so the result equals the general path's
    bit for bit.

    Returns
    -------
    an, inc2
        ||x||^2 alpha_new and 2 ||x||^2 times the dual increase (Sec. 4.3).
    """
    if mu + nu <= 0.0:
        an = 0.0
    else:
        dright = (Cs - mu) + (Cs - nu)
        if dright >= 0.0:
            an = (mu + nu) / 2
            if an < 0.0:
                an = 0.0
            if an > Cs:
                an = Cs
        else:
            an = Cs
    inc = 2.0 * mu * (an - ao) - (an * an - ao * ao)
    inc += 2.0 * nu * (an - ao) - (an * an - ao * ao)
    return an, inc


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


# ---------------------------------------------------------------- shrinking
#
# The shrinking variant of Fig. 5 (``sopopo_batch(..., shrinking=True)``), in
# the manner of LIBLINEAR's Solver_MCSVM_CS (Keerthi et al., KDD 2008): the
# pieces are visited example by example (one dot product per label of an
# example per visit, one axpy per changed label), and labels, pieces and
# examples whose dual variables sit at 0 and would stay there are removed from
# the active set.  Every step is still the exact soft projection Eq. 31 of one
# piece restricted to its active labels (the shrunk ones are held at 0), so the
# dual increases monotonically.  The driver checks the exact duality gap on
# the full set before it stops.


@njit(cache=True, nogil=True, _nrt=False)
def _example_sweep(buf, Y, i, sqn, lo, n_act, piece_pos, pieces, act, skip, shrink):
    """One sweep over the active pieces ``piece_pos[lo:lo + n_act]`` of one
    example with predictions ``buf.f`` (k,) (all contributions included,
    updated here as the dual variables change), target row Y[i] and ||x||^2
    = sqn; ``pieces`` (:class:`PieceArrays`) and ``act``
    (:class:`ActiveLabels`) the pieces and their active labels.

    For each piece, with u_a = y_a - f_a, v_b = f_b - y_b over its
    active labels, s = sum alpha = sum beta, U = max u, V = max v:

    * violation of the piece's optimality conditions (the reduced problem
      Eq. 19 / Eq. 23): max(U - min_{alpha_a > 0} u_a, V - min_{beta_b > 0}
      v_b, U + V if s < C_p, -(U + V) if s > 0), 0 at the optimum;
    * shrinking: a label with zero dual variable is dropped when it could
      gain mass neither from another label of its side (u_a below every
      u of a positive alpha) nor by raising s (u_a + V < 0 when s < C_p)
      -- the rule ``be_shrunk`` of LIBLINEAR's Solver_MCSVM_CS; a piece with
      no active label left on one side is dropped, and so is a piece at its
      bound (s = C_p) with one active label per side, both holding the whole
      mass, and U + V > 0 (its projection would not move);
    * unless the violation is <= ``skip``, the soft projection Eq. 31 on the
      active labels; the changes of the label coefficients are accumulated
      in ``buf.dc`` (k,) and applied to f (f_r += d ||x||^2).

    ``buf`` (:class:`SweepBuffers`): f, dc and the work buffers mu, nu, ms, ns
    of the largest piece size.  Returns (total dual increase, largest, pieces
    changed, largest violation, number of active pieces left)."""
    f, dc, mu, nu, ms, ns = buf.f, buf.dc, buf.mu, buf.nu, buf.ms, buf.ns
    piece_C, A_ptr, A_idx, B_ptr = pieces.C, pieces.A_ptr, pieces.A_idx, pieces.B_ptr
    B_idx, alpha, beta = pieces.B_idx, pieces.alpha, pieces.beta
    A_pos, B_pos, A_act, B_act = act.A_pos, act.B_pos, act.A_act, act.B_act
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    t = 0
    while t < n_act:
        pc = piece_pos[lo + t]
        a0 = A_ptr[pc]
        b0 = B_ptr[pc]
        na = A_act[pc]
        nb = B_act[pc]
        Cp = piece_C[pc]
        s = 0.0
        U = -np.inf
        V = -np.inf
        minu = np.inf
        minv = np.inf
        for j in range(na):
            q = A_pos[a0 + j]
            u = Y[i, A_idx[q]] - f[A_idx[q]]
            if u > U:
                U = u
            if alpha[q] > 0.0:
                s += alpha[q]
                if u < minu:
                    minu = u
        for j in range(nb):
            q = B_pos[b0 + j]
            v = f[B_idx[q]] - Y[i, B_idx[q]]
            if v > V:
                V = v
            if beta[q] > 0.0 and v < minv:
                minv = v
        below = s < Cp * (1.0 - 1e-12)
        viol = 0.0
        if minu < np.inf and U - minu > viol:
            viol = U - minu
        if minv < np.inf and V - minv > viol:
            viol = V - minv
        if below and U + V > viol:
            viol = U + V
        if s > 0.0 and -(U + V) > viol:
            viol = -(U + V)
        if viol > vmax:
            vmax = viol
        # shrink labels held at 0 that cannot gain mass
        ta = minu
        tb = minv
        if not shrink:
            ta = -np.inf
            tb = -np.inf
        elif below:
            if -V < ta:
                ta = -V
            if -U < tb:
                tb = -U
        j = 0
        while j < na:
            q = A_pos[a0 + j]
            if alpha[q] == 0.0 and Y[i, A_idx[q]] - f[A_idx[q]] < ta:
                na -= 1
                A_pos[a0 + j] = A_pos[a0 + na]
                A_pos[a0 + na] = q
            else:
                j += 1
        j = 0
        while j < nb:
            q = B_pos[b0 + j]
            if beta[q] == 0.0 and f[B_idx[q]] - Y[i, B_idx[q]] < tb:
                nb -= 1
                B_pos[b0 + j] = B_pos[b0 + nb]
                B_pos[b0 + nb] = q
            else:
                j += 1
        A_act[pc] = na
        B_act[pc] = nb
        # at the bound with all mass on one label per side and a positive
        # margin violation: the soft projection keeps it there (LIBLINEAR
        # shrinks y at alpha_y = C the same way)
        fixed = (shrink and not below and na == 1 and nb == 1 and U + V > 0.0
                 and minu < np.inf and minv < np.inf)
        if na == 0 or nb == 0 or Cp <= 0.0 or fixed:
            n_act -= 1
            piece_pos[lo + t] = piece_pos[lo + n_act]
            piece_pos[lo + n_act] = pc
            continue
        t += 1
        if viol <= skip:
            continue
        # Eq. 19 scaled by ||x||^2 on the active labels (see _piece_update)
        for j in range(na):
            q = A_pos[a0 + j]
            a = A_idx[q]
            mu[j] = Y[i, a] - (f[a] - alpha[q] * sqn)
            ms[j] = mu[j]
        for j in range(nb):
            q = B_pos[b0 + j]
            b = B_idx[q]
            nu[j] = (f[b] + beta[q] * sqn) - Y[i, b]
            ns[j] = nu[j]
        sort_prefix(ms, na)
        sort_prefix(ns, nb)
        z, mean_a, mean_b, zlo, zhi, R, S = solve_sorted_n(ms, na, ns, nb, Cp * sqn)
        za = z / R
        zb = z / S
        inc = 0.0
        moved = 0
        for j in range(na):
            q = A_pos[a0 + j]
            w = (mu[j] - mean_a) + za
            an = w if w > 0.0 else 0.0
            ao = alpha[q] * sqn
            inc += 2.0 * mu[j] * (an - ao) - (an * an - ao * ao)
            an = an / sqn
            d = an - alpha[q]
            if d != 0.0:
                moved = 1
                a = A_idx[q]
                alpha[q] = an
                dc[a] += d
                f[a] += d * sqn
        for j in range(nb):
            q = B_pos[b0 + j]
            w = (nu[j] - mean_b) + zb
            bn = w if w > 0.0 else 0.0
            bo = beta[q] * sqn
            inc += 2.0 * nu[j] * (bn - bo) - (bn * bn - bo * bo)
            bn = bn / sqn
            d = bn - beta[q]
            if d != 0.0:
                moved = 1
                b = B_idx[q]
                beta[q] = bn
                dc[b] -= d
                f[b] -= d * sqn
        inc = 0.5 * inc / sqn
        changed += moved
        total += inc
        if inc > best:
            best = inc
    return total, best, changed, vmax, n_act


@njit(cache=True, nogil=True)
def _zero_norm_piece(y, pc, piece_C, A_ptr, A_idx, B_ptr, B_idx, alpha, beta, dc):
    """The soft projection of a piece whose instance is x = 0: its dual term
    s (y_a - y_b) has no quadratic part, so the optimum puts the whole
    bound C_p on the most preferred a in A and the least preferred b in B
    (without it the slack of such a piece stays in the primal and the gap
    never closes).  Writes alpha, beta and their changes into dc; returns the
    dual increase and 1 if anything changed."""
    a0 = A_ptr[pc]
    b0 = B_ptr[pc]
    ta = a0
    for t in range(a0, A_ptr[pc + 1]):
        if y[A_idx[t]] > y[A_idx[ta]]:
            ta = t
    tb = b0
    for t in range(b0, B_ptr[pc + 1]):
        if y[B_idx[t]] < y[B_idx[tb]]:
            tb = t
    Cp = piece_C[pc]
    inc = 0.0
    moved = 0
    for t in range(a0, A_ptr[pc + 1]):
        new = Cp if t == ta else 0.0
        d = new - alpha[t]
        if d != 0.0:
            moved = 1
            inc += d * y[A_idx[t]]
            dc[A_idx[t]] += d
            alpha[t] = new
    for t in range(b0, B_ptr[pc + 1]):
        new = Cp if t == tb else 0.0
        d = new - beta[t]
        if d != 0.0:
            moved = 1
            inc -= d * y[B_idx[t]]
            dc[B_idx[t]] -= d
            beta[t] = new
    return inc, moved


@njit(cache=True, nogil=True, _nrt=False)
def _active_labels(pc, A_ptr, A_idx, B_ptr, B_idx, A_pos, B_pos, A_act, B_act, lab, dc):
    """The active labels of piece pc (its side A first) into lab, with their
    dc set to 0; returns their number."""
    nl = _active_side(A_ptr[pc], A_act[pc], A_idx, A_pos, lab, np.int64(0), dc)
    return _active_side(B_ptr[pc], B_act[pc], B_idx, B_pos, lab, nl, dc)


@njit(cache=True, nogil=True, _nrt=False)
def _active_side(start, count, idx, pos, lab, nl, dc):
    """Append the ``count`` active labels ``idx[pos[start:start + count]]``
    of one side of a piece to lab[nl:], zeroing their dc; returns the new
    length."""
    for j in range(count):
        a = idx[pos[start + j]]
        lab[nl] = a
        dc[a] = 0.0
        nl += 1
    return nl


@njit(cache=True, nogil=True)
def pass_linear_shrink(rows, Y, W, active, n_active, pieces, act, kmax, skip, shrink):
    """One pass of the shrinking variant with an explicit W (k, n) over the
    active pieces ``active[:n_active]`` (in that order; instances as in
    :func:`pass_linear`).

    Per piece: f_r = w_r . x_i for its active labels only, the step of
    :func:`_example_sweep`, then w_r += d_r x_i for every label whose dual
    variable changed by d_r.  A piece with x_i = 0 gets its optimal dual
    variables at once (:func:`_zero_norm_piece`); it, and a piece left without
    active labels on one side, leave the active set (swapped behind
    ``active[:n_active]``).  Returns (total dual increase, largest single
    increase, pieces changed, largest violation, n_active after the
    pass).  ``rows``: :class:`Instances`; ``pieces``: :class:`PieceArrays`;
    ``act``: :class:`ActiveLabels`; kmax: the largest |A_p|, |B_p|."""
    X, Xdata, Xind, Xptr, sqnorm = rows.X, rows.Xdata, rows.Xind, rows.Xptr, rows.sqnorm
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    A_pos, B_pos, A_act, B_act = act.A_pos, act.B_pos, act.A_act, act.B_act
    k = W.shape[0]
    lab = np.empty(2 * kmax, dtype=np.int64)
    buf = SweepBuffers(np.zeros(k), np.zeros(k), np.empty(kmax), np.empty(kmax),
                       np.empty(kmax), np.empty(kmax))
    f, dc = buf.f, buf.dc
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    o = np.int64(0)   # not a literal: one specialisation of the callees
    while o < n_active:
        pc = active[o]
        i = piece_ex[pc]
        sqn = sqnorm[i]
        n_act = 1
        if sqn > 0.0:
            nl = _active_labels(pc, A_ptr, A_idx, B_ptr, B_idx, A_pos, B_pos, A_act, B_act,
                                lab, dc)
            rows_dot(W, lab, nl, X, Xdata, Xind, Xptr, i, f)
            tot, bst, ch, viol, n_act = _example_sweep(buf, Y, i, sqn, o, 1, active, pieces,
                                                       act, skip, shrink)
            total += tot
            changed += ch
            if bst > best:
                best = bst
            if viol > vmax:
                vmax = viol
            if ch:
                # the labels still active after the sweep hold every change
                # (a label leaves only with its dual variable at 0 before
                # the step); the ones dropped have dc = 0
                rows_axpy(W, lab, nl, dc, X, Xdata, Xind, Xptr, i)
        else:
            # x_i = 0: W does not change
            inc, ch = _zero_norm_piece(Y[i], pc, piece_C, A_ptr, A_idx, B_ptr, B_idx,
                                       alpha, beta, dc)
            total += inc
            changed += ch
            n_act = 0
        if n_act == 0:
            n_active -= 1
            active[o] = active[n_active]
            active[n_active] = pc
        else:
            o += 1
    return total, best, changed, vmax, n_active


@njit(cache=True, nogil=True)
def pass_kernel_shrink(K, Y, F, coef, active, n_active, pieces, act, kmax, skip, shrink):
    """:func:`pass_linear_shrink` in the kernel form (see :func:`pass_kernel`):
    f = F[i], and a change d of a label's coefficient updates coef[i, r] += d
    and F[:, r] += d K[:, i]."""
    piece_ex, piece_C, A_ptr, A_idx = pieces.example, pieces.C, pieces.A_ptr, pieces.A_idx
    B_ptr, B_idx, alpha, beta = pieces.B_ptr, pieces.B_idx, pieces.alpha, pieces.beta
    A_pos, B_pos, A_act, B_act = act.A_pos, act.B_pos, act.A_act, act.B_act
    m, k = F.shape
    buf = SweepBuffers(np.zeros(k), np.zeros(k), np.empty(kmax), np.empty(kmax),
                       np.empty(kmax), np.empty(kmax))
    f, dc = buf.f, buf.dc
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    o = np.int64(0)   # not a literal: one specialisation of the callees
    while o < n_active:
        pc = active[o]
        i = piece_ex[pc]
        sqn = K[i, i]
        n_act = 1
        if sqn > 0.0:
            a0 = A_ptr[pc]
            b0 = B_ptr[pc]
            for j in range(A_act[pc]):
                a = A_idx[A_pos[a0 + j]]
                f[a] = F[i, a]
                dc[a] = 0.0
            for j in range(B_act[pc]):
                b = B_idx[B_pos[b0 + j]]
                f[b] = F[i, b]
                dc[b] = 0.0
            tot, bst, ch, viol, n_act = _example_sweep(buf, Y, i, sqn, o, 1, active, pieces,
                                                       act, skip, shrink)
            total += tot
            changed += ch
            if bst > best:
                best = bst
            if viol > vmax:
                vmax = viol
            if ch:
                for j in range(A_act[pc] + B_act[pc]):
                    r = (A_idx[A_pos[a0 + j]] if j < A_act[pc]
                         else B_idx[B_pos[b0 + j - A_act[pc]]])
                    d = dc[r]
                    if d != 0.0:
                        coef[i, r] += d
                        for t in range(m):
                            F[t, r] += d * K[t, i]
        else:
            # phi(x_i) = 0: K[:, i] = 0, so F does not change
            for r in range(k):
                dc[r] = 0.0
            inc, ch = _zero_norm_piece(Y[i], pc, piece_C, A_ptr, A_idx, B_ptr, B_idx,
                                       alpha, beta, dc)
            total += inc
            changed += ch
            for r in range(k):
                coef[i, r] += dc[r]
            n_act = 0
        if n_act == 0:
            n_active -= 1
            active[o] = active[n_active]
            active[n_active] = pc
        else:
            o += 1
    return total, best, changed, vmax, n_active


# ------------------------------------------------------ single-edge pieces
#
# ``decomposition="all_pairs"`` (and the pair pieces of the threshold label)
# gives only single-edge pieces {(a, b)}: |A| = |B| = 1, so alpha = beta is one
# number per piece and its soft projection is the clipped 1-d step of
# :func:`pair_step`.  The shrinking pass below visits the pieces in segments,
# each a few thousand pieces of one example: the scores f_r = w_r . x_i are
# computed once per segment visit (only for the labels of its active pieces)
# and kept up to date as the pieces move, and W (or F and the coefficients) is
# updated once per changed label at the end of the visit, so that a piece
# costs a few loads and a dozen flops instead of two dot products and two
# axpys.  The active pieces of segment g are
# ``pos[seg_ptr[g]:seg_ptr[g] + n_act[g]]``.


@njit(cache=True, nogil=True)
def shuffle_blocks(pos, ptr, cnt, block, seed):
    """Permute every example's pieces ``pos[ptr[i]:ptr[i] + cnt[i]]`` in
    place by blocks: the runs of ``block`` consecutive entries (the last one
    shorter) are put in a random order (splitmix64 seeded by ``seed``), each
    run kept whole.  The segments cut from the result then mix labels from
    the whole example while every cache line of the pieces' arrays belongs
    to one segment.  Work O(sum cnt); memory O(max cnt)."""
    big = 0
    for i in range(cnt.shape[0]):
        if cnt[i] > big:
            big = cnt[i]
    tmp = np.empty(big, dtype=pos.dtype)
    perm = np.empty((big + block - 1) // block, dtype=np.int64)
    state = np.uint64(seed)
    for i in range(cnt.shape[0]):
        lo = ptr[i]
        c = cnt[i]
        nb = (c + block - 1) // block
        for t in range(nb):
            perm[t] = t
        for t in range(nb - 1, 0, -1):
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            j = np.int64(z % np.uint64(t + 1))
            tmp_b = perm[t]
            perm[t] = perm[j]
            perm[j] = tmp_b
        for t in range(c):
            tmp[t] = pos[lo + t]
        w = lo
        for t in range(nb):
            start = perm[t] * block
            stop = min(start + block, c)
            for u in range(start, stop):
                pos[w] = tmp[u]
                w += 1


@njit(cache=True, nogil=True)
def shuffle_segments(pos, seg_ptr, n_act, seed):
    """Shuffle the active part ``pos[seg_ptr[g]:seg_ptr[g] + n_act[g]]`` of
    every segment g in place (Fisher-Yates with the splitmix64 generator
    seeded by ``seed``, so a seed gives the same order on every machine)."""
    state = np.uint64(seed)
    for i in range(n_act.shape[0]):
        lo = seg_ptr[i]
        for t in range(n_act[i] - 1, 0, -1):
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            j = np.int64(z % np.uint64(t + 1))
            tmp = pos[lo + t]
            pos[lo + t] = pos[lo + j]
            pos[lo + j] = tmp


@njit(cache=True, nogil=True)
def pass_pairs_shrink(linear, rows, W, K, F, coef, Y, segs, pieces, skip, shrink):
    """One pass of the shrinking variant over single-edge pieces, segment by
    segment (``sopopo-label-ranking.txt``, Sec. 4, Fig. 5 with Eq. 31 in the
    closed form of :func:`pair_step`).

    ``linear``: the explicit form, scores w_r . x_i from W (k, n) and the
    instances ``rows`` (:class:`Instances`) as in :func:`pass_linear`,
    ||x_i||^2 = sqnorm[i]; K, F, coef are not used (pass empty arrays).
    Otherwise the kernel form of :func:`pass_kernel_shrink`: scores F[i],
    ||x_i||^2 = K[i, i], a change d of label r's coefficient adds d to
    coef[i, r] and d K[:, i] to F[:, r] (rows, W not used).

    The pieces are grouped in segments (``segs``, :class:`Segments`), each
    of one example: segment g holds pieces of example seg_ex[g], the active
    ones ``pos[seg_ptr[g]:seg_ptr[g] + n_act[g]]``.  The segments are
    visited in ``segs.order``, the active pieces of a segment in their
    order.  Piece p of ``pieces`` (:class:`PieceArrays`, every piece one
    edge) is the edge (A_idx[p], B_idx[p]) with bound C[p]; alpha[p] =
    beta[p] is its dual variable.  Each piece gets exactly the step of
    :func:`_example_sweep` for |A| = |B| = 1 (same violation, same shrinking
    rules, same soft projection), so the iterates are those of
    :func:`pass_linear_shrink` / :func:`pass_kernel_shrink` run over the same
    order, up to the rounding of the scores (kept up to date here instead of
    recomputed from W).  A piece that leaves the active set is swapped
    behind the active part of its segment.  An example with x_i = 0 puts
    every active piece of its segments at its bound at once
    (:func:`_zero_norm_piece`).

    Returns (total dual increase, largest single increase, pieces changed,
    largest violation, active pieces after the pass).  Work: O(active pieces
    + touched labels * nnz(x_i)) per pass; memory O(k).
    """
    X, Xdata, Xind, Xptr, sqnorm = rows.X, rows.Xdata, rows.Xind, rows.Xptr, rows.sqnorm
    seg_order, seg_ex, seg_ptr, pos, n_act = (segs.order, segs.seg_ex, segs.seg_ptr, segs.pos,
                                              segs.n_act)
    piece_C, pa, pb, alpha, beta = (pieces.C, pieces.A_idx, pieces.B_idx, pieces.alpha,
                                    pieces.beta)
    k = Y.shape[1]
    f = np.empty(k)
    dc = np.zeros(k)
    seen = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    total = 0.0
    best = 0.0
    changed = 0
    vmax = 0.0
    n_left = 0
    for o in range(seg_order.shape[0]):
        sg = seg_order[o]
        i = seg_ex[sg]
        lo = seg_ptr[sg]
        na = n_act[sg]
        if na == 0:
            continue
        y = Y[i]
        sqn = sqnorm[i] if linear else K[i, i]
        if not sqn > 0.0:
            # x_i = 0: the optimum of every piece is its bound (its dual term
            # is linear); W and F do not change
            for t in range(lo, lo + na):
                pc = pos[t]
                a = pa[pc]
                b = pb[pc]
                d = piece_C[pc] - alpha[pc]
                if d != 0.0:
                    changed += 1
                    total += d * y[a] - d * y[b]
                    alpha[pc] = piece_C[pc]
                    beta[pc] = piece_C[pc]
                    if not linear:
                        coef[i, a] += d
                        coef[i, b] -= d
            n_act[sg] = 0
            continue
        nt = 0
        t = 0
        while t < na:
            pc = pos[lo + t]
            a = pa[pc]
            b = pb[pc]
            if seen[a] != o:
                seen[a] = o
                f[a] = label_dot(W, a, X, Xdata, Xind, Xptr, i) if linear else F[i, a]
                dc[a] = 0.0
                touched[nt] = a
                nt += 1
            if seen[b] != o:
                seen[b] = o
                f[b] = label_dot(W, b, X, Xdata, Xind, Xptr, i) if linear else F[i, b]
                dc[b] = 0.0
                touched[nt] = b
                nt += 1
            Cp = piece_C[pc]
            s = alpha[pc]
            u = y[a] - f[a]
            v = f[b] - y[b]
            below = s < Cp * (1.0 - 1e-12)
            viol = 0.0
            if below and u + v > viol:
                viol = u + v
            if s > 0.0 and -(u + v) > viol:
                viol = -(u + v)
            if viol > vmax:
                vmax = viol
            # the rules of _example_sweep for one label per side: a piece at 0
            # whose labels cannot gain mass (u < -v) loses both, and so does a
            # piece at its bound with a positive violation
            gone = Cp <= 0.0
            if shrink:
                if s == 0.0:
                    if below and u < -v:
                        gone = True
                elif not below and u + v > 0.0:
                    gone = True
            if gone:
                na -= 1
                pos[lo + t] = pos[lo + na]
                pos[lo + na] = pc
                continue
            t += 1
            if viol <= skip:
                continue
            ao = s * sqn
            mu = y[a] - (f[a] - ao)
            nu = (f[b] + beta[pc] * sqn) - y[b]
            an, inc = pair_step(mu, nu, ao, Cp * sqn)
            inc = 0.5 * inc / sqn
            an = an / sqn
            d = an - s
            if d != 0.0:
                changed += 1
                alpha[pc] = an
                beta[pc] = an
                dc[a] += d
                dc[b] -= d
                f[a] += d * sqn
                f[b] -= d * sqn
            total += inc
            if inc > best:
                best = inc
        n_act[sg] = na
        n_left += na
        for j in range(nt):
            r = touched[j]
            d = dc[r]
            if d != 0.0:
                if linear:
                    label_axpy(W, r, d, X, Xdata, Xind, Xptr, i)
                else:
                    coef[i, r] += d
                    for t2 in range(F.shape[0]):
                        F[t2, r] += d * K[t2, i]
    return total, best, changed, vmax, n_left
