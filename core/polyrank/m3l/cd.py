"""Kernelised M3L by example-major coordinate ascent on the whole Gram
matrix (``m3l_smo(method="cd")``, :func:`polyrank.m3l._kernels.cd_epoch`)."""

from __future__ import annotations

import numpy as np

from ..result import SolverResult
from . import _kernels
from .common import _ending, _finish, _start
from .gram import expansion

__all__ = []


#: over-relaxation of the coordinate steps (projected SOR; 1 = exact coordinate steps)
_CD_OMEGA = 1.3
_CD_SKIP = 0.1
_CD_SKIP_EXAMPLE = 0.3


def _cd(K, Kdiag, Y, R, Cv, *, tol, max_iter, alpha0, callback, callback_every, shrinking,
        random_state) -> SolverResult:
    """Example-major dual coordinate ascent of :func:`m3l_smo` (``method="cd"``)
    on the whole Gram matrix ``K`` (N, N), float64 or float32 (then the
    maintained expansion is float32 too); see :func:`_kernels.cd_epoch`.

    One iteration (one trace row) is one epoch over the active examples.
    After every epoch G, P2, D2 and the largest projected gradient are
    formed over *all* N L variables from the maintained expansion
    U = K (Y alpha) (every update reaches every example, shrunk or not);
    when that largest projected gradient is below ``tol``, U is recomputed
    exactly (one BLAS product) and the solve converges only if the exact
    check passes too. When the active examples look solved but the whole
    problem does not, every example becomes active again.
    """
    rng = np.random.default_rng(random_state)
    N, L = Y.shape
    rdiag = bool(np.count_nonzero(R - np.diag(np.diag(R))) == 0)
    alpha = np.zeros((N, L)) if alpha0 is None else np.array(alpha0, dtype=float, order="C")
    Y = np.ascontiguousarray(Y, dtype=float)
    # Ut = (Y alpha)' K: row i of K serves as its column i, as in the updates
    Ut = np.zeros((L, N), dtype=K.dtype)
    if alpha0 is not None:
        Ut[...] = expansion(K, (Y * alpha).T)
    G = np.empty((N, L))
    active = np.arange(N, dtype=np.int64)
    n_active = np.array([N], dtype=np.int64)
    lb = np.full(L, -np.inf)
    ub = np.full(L, np.inf)
    prob = _kernels.GramProblem(K, Kdiag, Y, R, Cv)
    cd_it = _kernels.CdIterate(alpha, Ut, active, n_active, lb, ub)
    runner, status, max_pg, it = _start(callback, callback_every)
    steps_total = pushes_total = 0
    pg_active = 2.0
    for it in range(1, max_iter + 1):
        pg_active, steps, pushes = _kernels.cd_epoch(
            prob, cd_it, rdiag, int(rng.integers(0, 2**31 - 1)), shrinking, _CD_OMEGA,
            _CD_SKIP * pg_active, _CD_SKIP_EXAMPLE * pg_active)
        steps_total += steps
        pushes_total += pushes
        # G, P2, D2 and the largest projected gradient over all variables
        primal, dual, max_pg = _kernels.cd_state(Ut, Y, R, rdiag, alpha, Cv, G)
        if max_pg < tol:
            # the exact check: U from alpha by one product in float64 (no drift)
            exact = expansion(K, (Y * alpha).T)
            primal, dual, max_pg = _kernels.cd_state(exact, Y, R, rdiag, alpha, Cv, G)
            Ut[...] = exact
        stop = runner.record(it, primal, dual, max_pg=max_pg, steps=steps_total,
                             rounds=pushes_total,
                             cache_hits=pushes_total, cache_misses=N)
        ending = _ending(primal, dual, max_pg < tol, stop)
        if ending is not None:
            status = ending
            break
        if pg_active < tol or n_active[0] == 0 or steps == 0:
            # the shrunk problem looks solved, the whole one is not: visit all again
            active[:] = np.arange(N)
            n_active[0] = N
            lb[:] = -np.inf
            ub[:] = np.inf
    extra = {"x": 2.0 * (Y * alpha) @ R, "cache_hits": pushes_total,
             "cache_misses": N, "cache_rows": N, "R": R, "epochs": it,
             "gram_dtype": K.dtype.name}
    return _finish(runner, status, it, alpha, G, Cv, max_pg, tol, "m3l-cd", extra)
