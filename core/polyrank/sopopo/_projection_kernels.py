"""numba kernels of one soft projection of SOPOPO (Shalev-Shwartz & Singer, JMLR 2006).

Paper file: ``sopopo-label-ranking.txt``, Sec. 3: the knots and g(z) of the
reduced problem (Eq. 19-20, Thm. 4, Fig. 3), the reduced solve, the checks of
one piece and the closed-form step of a single-edge piece.  Plain arrays in,
numbers out.  ``mu`` and ``nu`` are the reduced-problem vectors of Eq. 19 in
the order of A and B (unsorted); sorting happens inside.
"""

import numpy as np
from numba import njit

from .._sort import heapsort_prefix


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
