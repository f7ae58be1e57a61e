"""The soft margin primal (S) of a linear model solved on the objects near
its margin: a smoothed Newton solve in (w, p) finds them, Clarabel solves
the QP on them with every other object fixed at its bound, and every object
is checked against the result.

Source: the problem is (S) of ``row-column-generation-ordinal.txt``
(Sec. 6.1, the paper's objective ||w||^2 + c 1'(xi_- + xi_+), without a
factor 1/2; ``c_i`` per object with sample weights).  The solver is not the
paper's: it is the reduction that makes the whole problem small, with the
paper's own check (Step 3: no constraint of an object left out is violated)
as its certificate.

Every constraint row t (object i and a side) reads a_t . z >= 1 - xi_t
with z = (w, p): a_t = (x_i, -e_{l_i}) for the lower side (f_i - p_{l_i} >=
1 - xi), a_t = (-x_i, e_{l_i + 1}) for the upper side (p_{l_i + 1} - f_i >= 1
- xi).  At the optimum u_t = 1 - a_t . z splits the rows into those with
u_t > 0 (slack u_t, multiplier c_t), u_t < 0 (multiplier 0) and u_t = 0 (the
margin: 0 <= multiplier <= c_t).  Given a guess of that split, the QP over
the margin rows alone, with the first kind's terms c_t (1 - a_t . z) kept as
a linear term and the second kind dropped, has the whole problem's optimum
when its solution leaves every first-kind row with u_t >= 0 and every
second-kind row with u_t <= 0: its KKT conditions plus those rows'
multipliers (c_t and 0) are the whole problem's.  A row on the wrong side
joins the margin rows and the QP is solved again.

The guess comes from Newton's method on the Huber-smoothed hinge (a
quadratic within mu of the kink) for mu = 4, 1, 0.3, 0.1, warm-started from
z = 0: a (d + l) x (d + l) system a step.  On red wine (1,279 objects, 11
features, 5 thresholds, c = 10) the margin band |u_t| < 0.1 (a thin class can leave the
QP over the band unbounded: the band then widens) holds about 240
of the 2,550 rows and one QP on them is exact: the same objective, w and p as
Clarabel on the whole problem to 1e-10, in a quarter of the time.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..qp import solve_qp

__all__ = ["solve_soft_primal", "constraint_rows", "MAX_NEWTON_DIM"]

#: the smoothing widths of the Newton stages, in units of the margin (1)
_MUS = (4.0, 1.0, 0.3, 0.1)
#: Newton steps per stage, at most
_NEWTON_STEPS = 20
#: a stage ends when the Newton decrement falls below this share of the
#: smoothed objective (the stages only choose the QP's rows)
_NEWTON_DEC = 1e-6
#: rows with |u| below the first width go into the first QP (units of the
#: margin); a QP without a bounded optimum widens the band to the next (inf:
#: every row, the whole problem)
_BANDS = (0.1, 0.5, 2.0, np.inf)
#: QPs on a growing set of rows before the whole problem goes to Clarabel
_MAX_ROUNDS = 8
#: a row fixed at its bound may sit this far on the margin's other side
#: (units of the margin: rounding; its multiplier c_t is then still optimal)
_SIDE_TOL = 1e-9
#: the largest d + l for which ``subproblem_solver="auto"`` picks this solver:
#: a Newton step costs (rows in the zone) (d + l)^2; at n = 3,000 the whole QP
#: by Clarabel takes 3.1x as long at d = 300, as long at d = 500, a third at
#: d = 700
MAX_NEWTON_DIM = 300


def constraint_rows(A_rows, labels_rows, l):
    """The constraint rows a_t of (S) and (H), a_t . (w, p) >= 1 (- xi_t):
    dense, (n_lo + n_up) x (d + l), the lower sides first, and the objects
    of the lower and upper sides (labels >= 1, <= l - 1)."""
    r, d = A_rows.shape
    lo = np.flatnonzero(labels_rows >= 1)
    up = np.flatnonzero(labels_rows <= l - 1)
    A = np.zeros((lo.size + up.size, d + l))
    A[:lo.size, :d] = A_rows[lo]
    A[np.arange(lo.size), d + labels_rows[lo] - 1] = -1.0
    A[lo.size:, :d] = -A_rows[up]
    A[lo.size + np.arange(up.size), d + labels_rows[up]] = 1.0
    return A, lo, up


def _smoothed(z, A, c, d, mu):
    """||w||^2 + sum_t c_t h_mu(1 - a_t . z), h_mu the Huber hinge."""
    u = 1.0 - A @ z
    h = np.where(u >= mu, u - 0.5 * mu, np.where(u > 0.0, u * u / (2.0 * mu), 0.0))
    return float(z[:d] @ z[:d] + c @ h)


def _newton(A, c, d, l):
    """Newton's method with backtracking on the smoothed problem for each
    width of :data:`_MUS`, warm-started from z = 0; a stage ends when the
    Newton decrement is below _NEWTON_DEC of the objective or a step finds no
    decrease.  Returns z."""
    z = np.zeros(d + l)
    ridge = np.r_[np.full(d, 2.0), np.full(l, 1e-9)]
    for mu in _MUS:
        f0 = _smoothed(z, A, c, d, mu)
        for _ in range(_NEWTON_STEPS):
            u = 1.0 - A @ z
            g = -(A.T @ (c * np.clip(u / mu, 0.0, 1.0)))
            g[:d] += 2.0 * z[:d]
            zone = (u > 0.0) & (u < mu)
            Az = A[zone]
            H = (Az.T * (c[zone] / mu)) @ Az
            H[np.diag_indices_from(H)] += ridge
            # a threshold without rows in the quadratic zone is linear here:
            # it keeps its value (the exact update after the stages sets it)
            move = np.r_[np.ones(d, dtype=bool), np.abs(Az[:, d:]).sum(axis=0) > 0]
            dz = np.zeros(d + l)
            try:
                with warnings.catch_warnings():
                    # badly scaled X: the step is only a guess, the QP and
                    # the check below decide
                    warnings.simplefilter("ignore", sla.LinAlgWarning)
                    dz[move] = -sla.solve(H[np.ix_(move, move)], g[move], assume_a="pos",
                                          check_finite=False)
            except (np.linalg.LinAlgError, ValueError):
                return z
            dec = -float(g @ dz)
            if not dec > _NEWTON_DEC * max(1.0, abs(f0)):
                break
            t = 1.0
            while t > 1e-8:
                f1 = _smoothed(z + t * dz, A, c, d, mu)
                if f1 <= f0 - 1e-4 * t * dec:
                    break
                t *= 0.5
            else:
                break
            z, f0 = z + t * dz, f1
    return z


def _exact_thresholds(z, A, c, d, l, center=False):
    """Each p_j set to a minimiser of the unsmoothed objective with w fixed:
    a sum of hinges in p_j whose slope, -(the c_t of the rows above their
    margin's upper side) at -inf, rises by c_t at each row's kink, so the
    minimiser is the kink where it turns >= 0 (a weighted median).  With it,
    no p_j can run off in the reduced QP: along +p_j or -p_j the rows fixed
    at c_t never outweigh those of the band and of the other side."""
    z = z.copy()
    f = A[:, :d] @ z[:d]                         # a_t^w . w: f_i, or -f_i (upper)
    for j in range(l):
        col = A[:, d + j]
        rows = np.flatnonzero(col)
        if rows.size == 0:
            continue
        # u_t = 1 - f[t] - col_t p_j: a lower row (col = -1) has its kink at
        # p_j = f_i - 1, an upper row (col = +1, f[t] = -f_i) at f_i + 1
        kinks = (1.0 - f[rows]) * col[rows]
        order = np.argsort(kinks, kind="stable")
        slope = np.cumsum(c[rows][order]) - c[rows][col[rows] > 0].sum()
        k = int(np.searchsorted(slope, 0.0))
        if k >= rows.size:
            continue
        z[d + j] = kinks[order[k]]
        if center:
            # slope 0 after kink k (to rounding): every point up to the next
            # kink is a minimiser too; take the middle of that stretch
            flat = np.flatnonzero(np.abs(slope) <= 1e-12 * c[rows].sum())
            if flat.size and flat[-1] + 1 < rows.size:
                z[d + j] = 0.5 * (kinks[order[flat[0]]] + kinks[order[flat[-1] + 1]])
    return z


def _reduced_qp(A, c, d, l, band, fixed, p_box, qp_tol):
    """Clarabel on the rows of ``band`` with the rows of ``fixed`` at their
    bound c_t (the others dropped) and |p_j| <= ``p_box``; returns (z, the
    margin rows' multipliers, the QP's optimum plus the fixed rows'
    constant, whether a bound on p is active)."""
    rows = np.flatnonzero(band)
    m = rows.size
    Ab = sp.csr_matrix(A[rows])
    P = sp.diags(np.r_[np.full(d, 2.0), np.zeros(l + m)], format="csc")
    q = np.r_[-(A[fixed].T @ c[fixed]), c[rows]]
    eye = sp.identity(m, format="csr")
    box = sp.hstack([sp.csr_matrix((l, d)), sp.identity(l), sp.csr_matrix((l, m))])
    G = sp.vstack([sp.hstack([-Ab, -eye]),
                   sp.hstack([sp.csr_matrix((m, d + l)), -eye]), box, -box], format="csc")
    h = np.r_[-np.ones(m), np.zeros(m), np.full(2 * l, p_box)]
    res = solve_qp(P, q, G=G, h=h, tol=qp_tol, max_iter=500)
    z = res.x[:d + l]
    at_box = bool(np.any(np.abs(z[d:]) > (1.0 - 1e-6) * p_box))
    return z, res.dual["ineq"][:m], res.primal_objective + float(c[fixed].sum()), at_box


def solve_soft_primal(A_rows, labels_rows, l: int, c, qp_tol: float):
    """Solve the soft margin primal (S) over the objects ``A_rows`` exactly,
    as a QP over the rows near the margin only (see the module docstring).

    Parameters
    ----------
    A_rows : ndarray, shape (r, d)
        The objects' attribute vectors (dense).
    labels_rows : ndarray of int64, shape (r,)
        Their labels in 0..l.
    l : int
        The number of thresholds (l >= 1).
    c : ndarray, shape (r,)
        Each object's slack penalty c_i > 0 (c times its sample weight).
    qp_tol : float
        Clarabel's tolerances for the reduced QPs.

    Returns
    -------
    tuple or None
        (w (d,), p (l,), multipliers of the lower and upper constraints
        (r,) each, the optimum, seconds); None when the check still fails after
        :data:`_MAX_ROUNDS` QPs or a reduced QP has no solution (an
        unbounded direction the fixed rows' linear terms open): the caller
        then solves the whole problem.

    Notes
    -----
    The returned point satisfies the whole problem's KKT conditions to
    Clarabel's ``qp_tol``: the rows left out were checked against it (a
    row fixed at c_t keeps u_t >= 0, a dropped row u_t <= 0), so its
    objective is the whole problem's optimum.
    """
    t0 = time.perf_counter()
    d = A_rows.shape[1]
    A, lo, up = constraint_rows(A_rows, labels_rows, l)
    cc = np.r_[c[lo], c[up]]
    z = _newton(A, cc, d, l)
    z = _exact_thresholds(z, A, cc, d, l)
    u0 = 1.0 - A @ z
    # |p_j| <= max_i ||x_i|| ||w*|| + 1 at the optimum (p_j lies among its
    # rows' f_i -+ 1), and ||w*||^2 <= the objective at the Newton point
    u = np.maximum(u0, 0.0)
    p_box = 2.0 * (float(np.sqrt((A_rows * A_rows).sum(axis=1).max(initial=0.0)))
                   * np.sqrt(float(z[:d] @ z[:d] + cc @ u)) + 1.0)
    grown = np.zeros(u0.size, dtype=bool)          # rows the check moved into the QP
    widths = iter(_BANDS)
    width = next(widths)
    for _ in range(_MAX_ROUNDS):
        band = (np.abs(u0) < width) | grown
        fixed = (u0 >= width) & ~grown
        try:
            z, mult, opt, at_box = _reduced_qp(A, cc, d, l, band, fixed, p_box, qp_tol)
        except RuntimeError:
            return None
        u = 1.0 - A @ z
        wrong = (fixed & (u < -_SIDE_TOL)) | (~fixed & ~band & (u > _SIDE_TOL))
        if at_box and not wrong.any():
            # the fixed rows' linear terms outweigh the band's hinges along
            # some p_j (a thin class) and no row says which: widen the band
            width = next(widths, None)
            if width is None:
                return None
            continue
        if not wrong.any():
            # p_j is unique only where its rows' kinks pin it; on a flat
            # stretch take the middle, as an interior-point solver of the
            # whole problem does (near enough), not an end of it
            z = _exact_thresholds(z, A, cc, d, l, center=True)
            alpha = np.where(fixed, cc, 0.0)
            alpha[band] = mult
            y_lo = np.zeros(A_rows.shape[0])
            y_up = np.zeros(A_rows.shape[0])
            y_lo[lo] = alpha[:lo.size]
            y_up[up] = alpha[lo.size:]
            return z[:d].copy(), z[d:].copy(), y_lo, y_up, opt, time.perf_counter() - t0
        grown |= wrong
    return None
