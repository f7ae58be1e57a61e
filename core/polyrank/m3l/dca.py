"""Linear M3L by dual coordinate ascent with shrinkage (Sec. 6, Eq. 37-45
of ``m3l-multilabel-zero-shot.txt``), and for a diagonal R the labels' SVMs
by LIBLINEAR's per-label dual coordinate descent."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._csr import row_arrays
from ..result import SolverResult
from ..validation import check_int, check_positive
from . import _kernels
from .common import (
    _check_alpha0,
    _check_problem,
    _ending,
    _finish,
    _labels_ok,
    _start,
    label_gaps,
    m3l_objectives,
    projected_gradient,
)

__all__ = ["DCA_METHODS", "STOPPING_RULES", "DcaOptions", "m3l_dca", "dca", "linear_rows"]

#: methods of :func:`m3l_dca`: "joint" (Sec. 6, any R), "per-label" (LIBLINEAR's
#: dual coordinate descent per label, diagonal R), "auto" (per-label when R is diagonal)
DCA_METHODS = ("auto", "joint", "per-label")
#: stopping rules of :func:`m3l_dca`: "pg" (every projected gradient below tol,
#: the paper's Appendix B) and "gap" (duality gap below tol times the primal
#: objective, per label or group of labels)
STOPPING_RULES = ("pg", "gap")


def m3l_dca(X, Y, R=None, C: float = 1.0, *, tol: float = 1e-3, switch_tol: float = 0.1,
            shrinking: bool = True, ridge: float = 0.0, max_iter: int = 1000,
            check_every: float = 10.0, alpha0=None, callback=None, callback_every: int = 1,
            random_state=None, sample_weight=None, method: str = "auto",
            stopping: str = "pg") -> SolverResult:
    """Linear M3L by dual coordinate ascent with shrinkage (Sec. 6, Eq. 37-45).

    Keeps Z = 2 X'(Y * alpha) R (D, L) and updates one dual variable at a
    time exactly (Eq. 37-39). Epochs first visit the active variables in a
    uniformly random order, updating all of Z after each step (Eq. 40);
    once every active projected gradient is below ``switch_tol`` they
    switch to batches of L updates along one random label with the
    delayed update of the other columns of Z (Eq. 41-43). Each label keeps
    its own active set; variables at a bound whose gradient lies beyond the
    extremal projected gradients of the previous epoch, coupled across
    labels through |R| (Eq. 44-45), are shrunk. A group of labels coupled
    through R (a connected component of R != 0; each label alone for
    R = I) is an independent sub-problem: when its active projected
    gradients are all below ``tol`` its active sets are reset to all its
    variables, and once an epoch over all of them finds every projected
    gradient below ``tol`` the group is no longer visited (our addition:
    with R = I each label stops on its own, as 1-vs-All LIBLINEAR does).

    The epochs, shrinking bookkeeping included, run inside one compiled
    call (:func:`polyrank.m3l._kernels.dca_run`) that returns only for a
    duality-gap check: when every group looks solved, or after
    ``check_every`` N L variable visits (the work of ``check_every``
    unshrunk epochs). One iteration (one trace row) is one such check: Z
    and G are recomputed exactly from alpha (no drift) and P2, D2, the gap
    and the largest projected gradient over *all* N L variables are
    recorded. The solve converges only on that exact, unshrunk check
    (the rule ``stopping``: every projected gradient below ``tol``, or the
    relative duality gap below ``tol``). A group that passes it on its own
    variables is done; a group that looked solved but fails it starts again
    from all its variables.

    With a diagonal R (the default R = I included) the labels are
    independent SVMs without bias and penalty 2C on sqrt(R_ll) X (Sec.
    3.1), and ``method="auto"`` solves them as LIBLINEAR does
    (``method="per-label"``: dual coordinate descent with shrinking per
    label, Hsieh et al. 2008, Alg. 3, as ``solve_l2r_l1l2_svc`` of
    LIBLINEAR's ``linear.cpp``; :func:`polyrank.m3l._kernels.ovr_run`),
    all labels in one pass over the examples per epoch, so that a row of X
    is read once for every label still active on it. Each label has its own
    active set, shrinking thresholds (its previous epoch's extreme
    projected gradients) and stopping test (every projected gradient it
    met below ``tol``; then it starts again from all its variables unless
    it already held them all, as LIBLINEAR); ``switch_tol`` plays no part.
    The checks, the exact stopping rule and the result are those of the
    joint solve: the same problem, solved to the same ``tol``.

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (N, D)
        Training points (with the bias feature appended, if any); a sparse
        matrix is used as CSR (the epochs touch only its non-zeros).
    Y : array_like, shape (N, L)
        Labels in {0, 1} or {-1, +1}.
    R : array_like, shape (L, L), optional
        Symmetric positive-definite prior (default I).
    C : float
        Slack penalty (> 0).
    tol : float
        Tolerance (> 0) of the rule ``stopping``: with "pg", on the
        projected gradients, M3L's tau (Appendix B), in the units of
        G = 2 - 2 y f (for R = I, twice LIBLINEAR's gradient y w'x - 1 in
        magnitude); with "gap", on the duality gap relative to the primal
        objective.  The epochs' own per-label tests (when to unshrink and
        to ask for a check) use ``tol`` on the projected gradients either
        way.
    switch_tol : float
        Projected-gradient level below which epochs switch from uniform
        random updates to label-wise batches (>= 0; 0 never switches).
    shrinking : bool
        Use the per-label active sets (False visits every variable).
    ridge : float
        Added to R's diagonal (explicit).
    max_iter : int
        Maximum number of iterations, one iteration ending with one
        duality-gap check.
    check_every : float
        Largest work between two checks, in unshrunk epochs (N L visits;
        > 0). The default 10 keeps the O(N D L) exact recomputation of a
        check under a tenth of the work.
    alpha0 : array_like, shape (N, L), optional
        Warm start: initial dual variables in [0, C_i] (Z is computed from
        them). Default 0.
    callback : callable, optional
        ``callback(info)`` at the duality-gap checks only (every
        ``callback_every``-th check; lower ``check_every`` for more
        frequent calls); extras ``max_pg`` (over all variables),
        ``visited`` (variables visited since the previous check),
        ``epochs`` (epochs so far) and ``labelwise`` (1.0 once batches are
        label-wise). Raising StopIteration stops.
    callback_every : int
    random_state : int, Generator or None
        Seed of the visiting order.
    sample_weight : array_like, shape (N,), optional
        Per-example weights w_i >= 0: the box of example i is [0, C w_i].
    method : {"auto", "joint", "per-label"}
        "joint": the paper's epochs over all labels (Sec. 6, any R);
        "per-label": LIBLINEAR's per-label solves (R must be diagonal);
        "auto": "per-label" when R is diagonal, else "joint".
    stopping : {"pg", "gap"}
        The stopping rule, tested at the checks on the exact gradient over
        every variable, per group of labels coupled through R (each label
        for a diagonal R); a group that meets it is done.  "pg" (the
        default, the paper's rule, Appendix B): every projected gradient
        below ``tol``.  "gap": the group's duality gap, sum over its labels
        of C_i max(0, G_il) - alpha_il G_il (:func:`label_gaps`), at most
        ``tol`` times its primal objective; the whole solve then ends with
        P - D <= tol P, so P is within a fraction ``tol`` of its minimum (a
        certificate).  With tol = 1e-3 "gap" needs about a quarter of the
        epochs of "pg" on standardised data for the same test Hamming loss
        (``polyrank bench m3l-linear``).  (LIBLINEAR's own rule, the spread
        of the projected gradients met in an epoch over all variables at
        most eps, is "pg" within a factor 2 of tol, measured in the epoch
        rather than after it.)

    Returns
    -------
    SolverResult
        ``x``: Z (D, L), decisions X @ Z; ``dual``: ``{"alpha", "G"}``;
        ``primal_objective``, ``dual_objective``, ``gap``,
        ``max_projected_gradient``, ``nit`` (checks), ``epochs``,
        ``visits``, ``method`` ("joint" or "per-label"), ``stopping``,
        ``status``, ``trace``.

    Raises
    ------
    ValueError, TypeError
        As :func:`m3l_smo` (and a negative ``switch_tol``, a
        ``check_every`` <= 0, an unknown ``method`` or ``stopping``,
        ``method="per-label"`` with an R that is not diagonal), except that a
        sparse X is accepted.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> res = m3l_dca(X, Y, None, 1.0, tol=1e-8, random_state=0)
    >>> res.status, bool(res.gap < 1e-8)
    ('converged', True)
    """
    X, Y, R, Cv = _check_problem(X, Y, R, C, ridge, sample_weight, sparse_ok=True)
    tol = check_positive(tol, "tol")
    switch_tol = check_positive(switch_tol, "switch_tol", strict=False)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    check_every = check_positive(check_every, "check_every")
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking: expected a bool, got {type(shrinking).__name__}")
    if method not in DCA_METHODS:
        raise ValueError(f"method: expected one of {DCA_METHODS}, got {method!r}")
    if stopping not in STOPPING_RULES:
        raise ValueError(f"stopping: expected one of {STOPPING_RULES}, got {stopping!r}")
    alpha0 = _check_alpha0(alpha0, Y.shape[0], Y.shape[1], Cv)
    options = DcaOptions(tol, switch_tol, bool(shrinking), max_iter, check_every, random_state,
                         method, stopping)
    return dca(X, Y, R, Cv, options, alpha0=alpha0, callback=callback,
               callback_every=callback_every)


@dataclass(frozen=True)
class DcaOptions:
    """The settings of :func:`dca`, checked once (by :func:`m3l_dca` or
    :class:`~polyrank.M3LClassifier`); see :func:`m3l_dca` for each.

    Attributes
    ----------
    tol : float
        > 0.
    switch_tol : float
        >= 0.
    shrinking : bool
    max_iter : int
        >= 1.
    check_every : float
        > 0.
    random_state : int, Generator or None
    method : {"auto", "joint", "per-label"}
    stopping : {"pg", "gap"}
    """

    tol: float
    switch_tol: float = 0.1
    shrinking: bool = True
    max_iter: int = 1000
    check_every: float = 10.0
    random_state: Any = None
    method: str = "auto"
    stopping: str = "pg"


def dca(X, Y, R, Cv, options: DcaOptions, *, alpha0=None, callback=None,
        callback_every: int = 1, xr=None) -> SolverResult:
    """The solve of :func:`m3l_dca` on input it trusts: float64 X (N, D),
    dense or CSR, Y (N, L) in {-1, +1}, R symmetric positive definite,
    per-example bounds Cv (N,) >= 0, checked ``options``
    (:class:`DcaOptions`), ``alpha0`` None or in [0, Cv]; ``xr`` the
    :func:`linear_rows` of X if built before (kept along a path), else
    None. Returns the :class:`SolverResult` of :func:`m3l_dca`."""
    tol, shrinking, max_iter, stopping = (options.tol, options.shrinking, options.max_iter,
                                          options.stopping)
    method, switch_tol = options.method, options.switch_tol
    rng = np.random.default_rng(options.random_state)
    N, L = Y.shape
    if xr is None:
        xr = linear_rows(X)
    rows = (xr.X, xr.Xdata, xr.Xind, xr.Xptr)
    alpha = np.zeros((N, L)) if alpha0 is None else alpha0.copy()
    Zt = np.zeros((L, X.shape[1]))
    G = np.full((N, L), 2.0)
    if alpha0 is not None:
        _kernels.linear_state(*rows, Y, R, alpha, Zt, G)
    diagonal = not np.any(R - np.diag(np.diag(R)))
    if method == "per-label" and not diagonal:
        raise ValueError("method: 'per-label' needs a diagonal R (independent labels); "
                         "use 'joint' or 'auto'")
    budget = max(1, int(math.ceil(options.check_every * N * L)))
    if method == "per-label" or (method == "auto" and diagonal):
        return _dca_per_label(xr, Y, R, Cv, alpha, Zt, G, rng, tol=tol,
                              shrinking=shrinking, max_iter=max_iter, budget=budget,
                              callback=callback, callback_every=callback_every,
                              stopping=stopping)
    # groups of labels coupled through R (connected components of R != 0):
    # independent sub-problems (for R = I each label, like 1-vs-All LIBLINEAR)
    n_groups, group = connected_components(R != 0, directed=False)
    group = group.astype(np.int64)
    finished = np.zeros(n_groups, dtype=np.bool_)
    active = np.tile(np.arange(N, dtype=np.int64), (L, 1))
    n_active = np.full(L, N, dtype=np.int64)
    lb = np.full(L, -np.inf)
    ub = np.full(L, np.inf)
    flags = np.zeros(1, dtype=np.int64)
    st = _kernels.DcaState(alpha, Zt, active, n_active, lb, ub, finished, flags)
    runner, status, max_pg, it = _start(callback, callback_every)
    epochs = visits = 0
    for it in range(1, max_iter + 1):
        code, visited, n_ep = _kernels.dca_run(
            xr, Y, R, Cv, group, st, int(rng.integers(0, 2**31 - 1)), shrinking, switch_tol,
            tol, budget)
        epochs += n_ep
        visits += visited
        # the check: exact Z and G from alpha over every variable, shrunk or not
        _kernels.linear_state(*rows, Y, R, alpha, Zt, G)
        group_ok, max_pg = _groups_ok(alpha, G, Cv, tol, stopping, group, n_groups)
        primal, dual = m3l_objectives(alpha, G, Cv)
        stop = runner.record(it, primal, dual, max_pg=max_pg, visited=float(visited),
                             epochs=float(epochs), labelwise=float(flags[0]))
        ending = _ending(primal, dual, bool(group_ok.all()), stop)
        if ending is not None:
            status = ending
            break
        # a group is an independent sub-problem: one that meets the stopping
        # rule on the exact gradient is done; any other starts again from
        # all its variables if it looked solved (rounding drift of Z, or
        # updates later in its confirming epoch)
        redo = finished & ~group_ok
        finished[:] = group_ok
        if redo.any():
            labels = redo[group]
            active[labels] = np.arange(N, dtype=np.int64)[None, :]
            n_active[labels] = N
            lb[labels] = -np.inf
            ub[labels] = np.inf
    return _finish(runner, status, it, alpha, G, Cv, max_pg, tol, "m3l-dca",
                   {"x": Zt.T.copy(), "R": R, "epochs": epochs, "visits": visits,
                    "method": "joint", "stopping": stopping}, stopping)


def linear_rows(X) -> _kernels.LinearRows:
    """The rows of X as the linear kernels read them
    (:class:`_kernels.LinearRows`: a C-ordered dense X, or CSR arrays, and
    the squared norms x_i'x_i); what :func:`dca` builds from X, kept by
    :class:`M3LClassifier` along a path (``warm_start=True``)."""
    if not sp.issparse(X):
        X = np.ascontiguousarray(X)       # rows contiguous: vectorised row loops
    sqnorm = (np.asarray(X.multiply(X).sum(axis=1)).ravel() if sp.issparse(X)
              else np.einsum("ij,ij->i", X, X))
    return _kernels.LinearRows(*row_arrays(X), sqnorm)


def _groups_ok(alpha, G, Cv, tol, stopping, group, n_groups):
    """(ok per group, largest |projected gradient|) at a check of the joint
    solve: a group meets "pg" when all its labels' projected gradients are
    below tol, "gap" when the sum of its labels' duality gaps is at most tol
    times the sum of their primal objectives."""
    label_pg = np.abs(projected_gradient(alpha, G, Cv)).max(axis=0)
    if stopping == "gap":
        gap, primal = label_gaps(alpha, G, Cv)
        ok = (np.bincount(group, weights=gap, minlength=n_groups)
              <= tol * np.bincount(group, weights=primal, minlength=n_groups))
    else:
        ok = np.bincount(group, weights=label_pg >= tol, minlength=n_groups) == 0
    return ok, float(label_pg.max())


def _dca_per_label(xr, Y, R, Cv, alpha, Zt, G, rng, *, tol, shrinking, max_iter,
                   budget, callback, callback_every, stopping="pg") -> SolverResult:
    """:func:`dca` for a diagonal R (``method="per-label"``): the L labels
    are independent SVMs (Sec. 3.1) solved together by LIBLINEAR's dual
    coordinate descent with shrinking (:func:`polyrank.m3l._kernels.ovr_run`,
    one pass over the examples serving every label) on the rows ``xr``
    (:class:`_kernels.LinearRows`).  ``alpha``, ``Zt`` and
    ``G`` hold the start (Zt, G exact for alpha).  As in the joint solve,
    an iteration ends with the exact check over all variables: a label
    that meets the stopping rule on the exact gradient (:func:`_labels_ok`)
    is done and no longer visited, one that looked done but fails it starts
    again from all its variables."""
    N, L = Y.shape
    rdiag = np.ascontiguousarray(np.diag(R), dtype=np.float64)
    # rows of Y contiguous: an example's labels in one cache line, not L
    Yrows = np.ascontiguousarray(Y)
    on = np.ones((N, L), dtype=np.bool_)
    n_on = np.full(L, N, dtype=np.int64)
    lb = np.full(L, -np.inf)
    ub = np.full(L, np.inf)
    done = np.zeros(L, dtype=np.bool_)
    st = _kernels.OvrState(alpha, Zt, on, n_on, lb, ub, done)
    rows = (xr.X, xr.Xdata, xr.Xind, xr.Xptr)
    runner, status, max_pg, it = _start(callback, callback_every)
    epochs = visits = 0
    for it in range(1, max_iter + 1):
        _, visited, n_ep = _kernels.ovr_run(
            xr, Yrows, rdiag, Cv, st, int(rng.integers(0, 2**31 - 1)), shrinking, tol, budget)
        epochs += n_ep
        visits += visited
        _kernels.linear_state(*rows, Y, R, alpha, Zt, G)
        label_pg, ok = _labels_ok(alpha, G, Cv, tol, stopping)
        max_pg = float(label_pg.max())
        primal, dual = m3l_objectives(alpha, G, Cv)
        stop = runner.record(it, primal, dual, max_pg=max_pg, visited=float(visited),
                             epochs=float(epochs), labelwise=0.0)
        ending = _ending(primal, dual, bool(ok.all()), stop)
        if ending is not None:
            status = ending
            break
        redo = done & ~ok
        done[:] = ok
        if redo.any():
            on[:, redo] = True
            n_on[redo] = N
            lb[redo] = -np.inf
            ub[redo] = np.inf
    return _finish(runner, status, it, alpha, G, Cv, max_pg, tol, "m3l-dca",
                   {"x": Zt.T.copy(), "R": R, "epochs": epochs, "visits": visits,
                    "method": "per-label", "stopping": stopping}, stopping)
