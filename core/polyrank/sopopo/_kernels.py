"""numba kernels of SOPOPO (Shalev-Shwartz & Singer, JMLR 2006).

Paper file: ``sopopo-label-ranking.txt``.  Plain arrays in, numbers out; no
Python objects.  Conventions: label sets A and B of one piece are int64 index
arrays; ``mu`` and ``nu`` are the reduced-problem vectors of Eq. 19 in the
order of A and B (unsorted); sorting happens inside.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def knots_sorted(mu_desc):
    """Knots z_i = sum_{r<=i} mu_r - i mu_i of Thm. 4 for mu sorted
    non-increasingly.  Returns (knots, prefix) where prefix[i] = sum_{r<i+1} mu_r."""
    p = mu_desc.shape[0]
    z = np.empty(p)
    s = np.empty(p)
    acc = 0.0
    for i in range(p):
        acc += mu_desc[i]
        s[i] = acc
        z[i] = acc - (i + 1) * mu_desc[i]
        if i > 0 and z[i] < z[i - 1]:
            # Thm. 4: the sequence is non-decreasing; rounding may break it
            z[i] = z[i - 1]
    return z, s


@njit(cache=True)
def g_sorted(zs, mu_desc):
    """g(z; mu) of Eq. 20 (with its factor 1/2) for each z in zs >= 0, by the
    piecewise form of Thm. 4: g = 1/2 [(S_i - z)^2 / i + sum_{r>i} mu_r^2]
    for z in [z_i, z_{i+1})."""
    p = mu_desc.shape[0]
    kn, s = knots_sorted(mu_desc)
    tail = np.empty(p + 1)          # tail[i] = sum_{r >= i} mu_r^2 (0-based)
    tail[p] = 0.0
    for r in range(p - 1, -1, -1):
        tail[r] = tail[r + 1] + mu_desc[r] * mu_desc[r]
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


@njit(cache=True)
def solve_reduced_kernel(mu, nu, C):
    """Minimise g(z; mu) + g(z; nu) over z in [0, C] (Fig. 3 of the paper).

    The union of the knots below C is swept in ascending order.  On the
    interval [z', N(z')] with R = R(z') and S = S(z') knots to its left, the
    objective is quadratic with derivative (z - S_R(mu))/R + (z - S_S(nu))/S;
    its stationary point is O(z') = (S sum_{r<=R} mu_r + R sum_{r<=S} nu_r)/(R+S)
    (Fig. 3, LOCAL MIN).  Fig. 3 tests O(z') in [z', N(z')]; we test the
    equivalent sign change of the derivative at N(z') and clip O(z') to the
    interval, which is immune to rounding.  If the derivative at 0,
    -(mu_1 + nu_1), is >= 0 then z* = 0; if it is still negative at C, z* = C.

    Returns
    -------
    z, theta_alpha, theta_beta, lo, hi, R, S
        z*, the thresholds of Eq. 23 (alpha = (mu - theta_alpha)_+), the
        bracketing interval [lo, hi] and the counts R(z*), S(z*).
    """
    p = mu.shape[0]
    q = nu.shape[0]
    mu_d = -np.sort(-mu)
    nu_d = -np.sort(-nu)
    zm, sm = knots_sorted(mu_d)
    zn, sn = knots_sorted(nu_d)
    # derivative at z = 0 (one-sided): -(mu_1 + nu_1)
    if mu_d[0] + nu_d[0] <= 0.0:
        return 0.0, mu_d[0], nu_d[0], 0.0, 0.0, 1, 1
    # R, S: number of knots <= current left end z'; start at z' = 0
    R = 0
    while R < p and zm[R] <= 0.0:
        R += 1
    S = 0
    while S < q and zn[S] <= 0.0:
        S += 1
    lo = 0.0
    while True:
        # next knot of the union (strictly above lo), capped at C
        nxt = C
        if R < p and zm[R] < nxt:
            nxt = zm[R]
        if S < q and zn[S] < nxt:
            nxt = zn[S]
        SR = sm[R - 1]
        SS = sn[S - 1]
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
            ta = (SR - z) / R
            tb = (SS - z) / S
            return z, ta, tb, lo, nxt, R, S
        lo = nxt
        while R < p and zm[R] <= lo:
            R += 1
        while S < q and zn[S] <= lo:
            S += 1


@njit(cache=True)
def _piece_update(f, gam, A, B, sqn, Cp, alpha_old, beta_old, alpha_new, beta_new):
    """One soft projection (Eq. 35/36) for a piece whose current predictions
    are f (k,) *including* the piece's own contribution.  Writes the new dual
    variables and returns the dual increase Delta (Sec. 4.3)."""
    p = A.shape[0]
    q = B.shape[0]
    mu = np.empty(p)
    nu = np.empty(q)
    # remove the piece's contribution: u.x = f - (alpha - beta) ||x||^2
    for t in range(p):
        a = A[t]
        mu[t] = (gam[a] - (f[a] - alpha_old[t] * sqn)) / sqn
    for t in range(q):
        b = B[t]
        nu[t] = ((f[b] + beta_old[t] * sqn) - gam[b]) / sqn
    z, ta, tb, lo, hi, R, S = solve_reduced_kernel(mu, nu, Cp)
    # dual of the piece problem (Eq. 36) in reduced form: up to a constant
    # it is -||x||^2 [1/2||alpha - mu||^2 + 1/2||beta - nu||^2]
    old = 0.0
    new = 0.0
    for t in range(p):
        v = mu[t] - ta
        an = v if v > 0.0 else 0.0
        alpha_new[t] = an
        old += (alpha_old[t] - mu[t]) ** 2
        new += (an - mu[t]) ** 2
    for t in range(q):
        v = nu[t] - tb
        bn = v if v > 0.0 else 0.0
        beta_new[t] = bn
        old += (beta_old[t] - nu[t]) ** 2
        new += (bn - nu[t]) ** 2
    return 0.5 * sqn * (old - new)


@njit(cache=True)
def pass_linear(X, sqnorm, Gam, W, order, piece_ex, piece_C, A_ptr, A_idx,
                B_ptr, B_idx, alpha, beta):
    """One pass of Fig. 5 over the pieces in ``order`` with an explicit W (k, n).

    For each piece: f = W x (only rows in A u B), soft projection, then
    W_a += (alpha_new - alpha_old) x, W_b -= (beta_new - beta_old) x.
    Returns the total dual increase of the pass and the largest single one.
    """
    n = X.shape[1]
    k = W.shape[0]
    f = np.zeros(k)
    total = 0.0
    best = 0.0
    for o in range(order.shape[0]):
        pc = order[o]
        i = piece_ex[pc]
        sqn = sqnorm[i]
        if sqn == 0.0:
            continue
        A = A_idx[A_ptr[pc]:A_ptr[pc + 1]]
        B = B_idx[B_ptr[pc]:B_ptr[pc + 1]]
        x = X[i]
        for a in A:
            acc = 0.0
            for j in range(n):
                acc += W[a, j] * x[j]
            f[a] = acc
        for b in B:
            acc = 0.0
            for j in range(n):
                acc += W[b, j] * x[j]
            f[b] = acc
        aold = alpha[A_ptr[pc]:A_ptr[pc + 1]]
        bold = beta[B_ptr[pc]:B_ptr[pc + 1]]
        anew = np.empty(A.shape[0])
        bnew = np.empty(B.shape[0])
        inc = _piece_update(f, Gam[i], A, B, sqn, piece_C[pc], aold, bold, anew, bnew)
        for t in range(A.shape[0]):
            d = anew[t] - aold[t]
            if d != 0.0:
                a = A[t]
                for j in range(n):
                    W[a, j] += d * x[j]
            aold[t] = anew[t]
        for t in range(B.shape[0]):
            d = bnew[t] - bold[t]
            if d != 0.0:
                b = B[t]
                for j in range(n):
                    W[b, j] -= d * x[j]
            bold[t] = bnew[t]
        total += inc
        if inc > best:
            best = inc
    return total, best


@njit(cache=True)
def _apply_kernel_update(K, F, coef, i, A, B, aold, bold, anew, bnew):
    """Apply the change of a piece's dual variables to the coefficient matrix
    coef (m, k) and to the training predictions F = K coef (m, k)."""
    m = K.shape[0]
    for t in range(A.shape[0]):
        d = anew[t] - aold[t]
        if d != 0.0:
            a = A[t]
            coef[i, a] += d
            for j in range(m):
                F[j, a] += d * K[j, i]
        aold[t] = anew[t]
    for t in range(B.shape[0]):
        d = bnew[t] - bold[t]
        if d != 0.0:
            b = B[t]
            coef[i, b] -= d
            for j in range(m):
                F[j, b] -= d * K[j, i]
        bold[t] = bnew[t]


@njit(cache=True)
def pass_kernel(K, Gam, F, coef, order, piece_ex, piece_C, A_ptr, A_idx,
                B_ptr, B_idx, alpha, beta):
    """One pass of Fig. 5 in the kernel form (end of Sec. 4.2): w_r =
    sum_i coef[i, r] phi(x_i), predictions on the training set F = K coef are
    kept up to date, ||x_i||^2 = K[i, i].  Returns (total, largest) dual increase."""
    total = 0.0
    best = 0.0
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
        anew = np.empty(A.shape[0])
        bnew = np.empty(B.shape[0])
        inc = _piece_update(F[i], Gam[i], A, B, sqn, piece_C[pc], aold, bold, anew, bnew)
        _apply_kernel_update(K, F, coef, i, A, B, aold, bold, anew, bnew)
        total += inc
        if inc > best:
            best = inc
    return total, best


@njit(cache=True)
def greedy_kernel(K, Gam, F, coef, n_updates, piece_ex, piece_C, A_ptr, A_idx,
                  B_ptr, B_idx, alpha, beta):
    """``n_updates`` iterations of Eq. 31 where each picks the piece with the
    largest potential dual increase max_r Delta^r (Sec. 4.3, Thm. 6).

    Every iteration evaluates the soft projection of every piece, so it costs
    O(sum_p |V_p| log |V_p| + m |V_r|).  Returns (total, largest) increase."""
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
    for _ in range(n_updates):
        best = 0.0
        arg = -1
        for pc in range(P):
            i = piece_ex[pc]
            sqn = K[i, i]
            if sqn <= 0.0:
                continue
            A = A_idx[A_ptr[pc]:A_ptr[pc + 1]]
            B = B_idx[B_ptr[pc]:B_ptr[pc + 1]]
            inc = _piece_update(F[i], Gam[i], A, B, sqn, piece_C[pc],
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
        inc = _piece_update(F[i], Gam[i], A, B, K[i, i], piece_C[pc], aold, bold, anew, bnew)
        _apply_kernel_update(K, F, coef, i, A, B, aold, bold, anew, bnew)
        total += inc
        if inc > best_all:
            best_all = inc
    return total, best_all


@njit(cache=True)
def objectives(F, Gam, piece_ex, piece_C, A_ptr, A_idx, B_ptr, B_idx, alpha, beta, sqw):
    """Primal (Eq. 24) and dual (Eq. 30, in reduced form) objectives.

    F (m, k) are the predictions f_r(x_i); sqw = sum_r ||w_r||^2.
    xi_p = max(0, max_{a in A_p}(gamma_a - f_a) + max_{b in B_p}(f_b - gamma_b)).
    D = -1/2 sqw + sum_p (sum_a alpha_a gamma_a - sum_b beta_b gamma_b).
    """
    P = piece_ex.shape[0]
    loss = 0.0
    lin = 0.0
    for pc in range(P):
        i = piece_ex[pc]
        ma = -np.inf
        for t in range(A_ptr[pc], A_ptr[pc + 1]):
            a = A_idx[t]
            v = Gam[i, a] - F[i, a]
            if v > ma:
                ma = v
            lin += alpha[t] * Gam[i, a]
        mb = -np.inf
        for t in range(B_ptr[pc], B_ptr[pc + 1]):
            b = B_idx[t]
            v = F[i, b] - Gam[i, b]
            if v > mb:
                mb = v
            lin -= beta[t] * Gam[i, b]
        xi = ma + mb
        if xi > 0.0:
            loss += piece_C[pc] * xi
    return 0.5 * sqw + loss, -0.5 * sqw + lin
