"""Kernelised M3L by SMO with delayed gradient updates and an LRU kernel
cache (Sec. 5.1, Alg. 1-2 of ``m3l-multilabel-zero-shot.txt``), with
LIBSVM's shrinking; :func:`m3l_smo` also dispatches to the coordinate
ascent on the whole Gram matrix (:mod:`polyrank.m3l.cd`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .._memory import format_bytes
from .._progress import note, progress
from ..kernels import check_kernel_params, kernel_matrix
from ..result import SolverResult
from ..validation import check_int, check_positive
from . import _kernels
from .cd import _cd
from .common import (
    _check_alpha0,
    _check_problem,
    _ending,
    _finish,
    _start,
    dual_gradient,
    m3l_objectives,
    projected_gradient,
)
from .gram import (
    _GRAM_BLOCK,
    _KIND,
    GRAM_DTYPES,
    _cd_dtype,
    _kernel_diagonal,
    _lru_cache,
    cache_megabytes,
    gradient_by_rows,
    stored_gram,
)

__all__ = ["SMO_KERNELS", "SMO_METHODS", "SmoOptions", "m3l_smo", "smo"]

#: kernels of the SMO solver
SMO_KERNELS = ("linear", "rbf", "poly")
#: methods of :func:`m3l_smo`: "smo" (Alg. 1), "cd" (example-major coordinate
#: ascent on the whole Gram matrix), "auto" (cd when the Gram matrix fits the cache)
SMO_METHODS = ("auto", "smo", "cd")


def m3l_smo(X, Y, R=None, C: float = 1.0, *, kernel: str = "rbf", gamma=None,
            degree: int = 3, coef0: float = 1.0, tol: float = 1e-3,
            cache_mb: float | str = "auto", ridge: float = 0.0, max_iter: int = 10000,
            alpha0=None, callback=None, callback_every: int = 1,
            sample_weight=None, method: str = "auto", shrinking: bool = True,
            random_state=None, gram_dtype: str = "auto",
            offset: float = 0.0) -> SolverResult:
    """Kernelised M3L: SMO with delayed gradient updates (Sec. 5.1, Alg. 1-2),
    or example-major coordinate ascent on the whole Gram matrix.

    ``method="smo"`` maximises D2 (Eq. 25) over pairs of variables of the same label: the
    first by the largest projected gradient (Eq. 32), the second by the
    second-order gain (Eq. 30 / 56), each pair solved exactly (Solve2DQP,
    Alg. 2). Updates along one label are accumulated in u and pushed to the
    other labels' gradients once per round of L updates (Eq. 34-36), which
    makes a round O(N L) apart from kernel rows. Kernel rows come from an
    LRU cache of at most ``cache_mb`` megabytes shared by all labels
    (Sec. 5.1.3): each row is computed once for every label; when the whole
    Gram matrix fits (N rows), it is computed up front by blocks of BLAS
    products (``cache_misses`` = N). Stops when every projected gradient (Eq. 31) is below
    ``tol`` (the paper's stopping rule, Appendix B).

    ``method="cd"`` computes the whole Gram matrix once (blocks of BLAS
    products; it must fit in ``cache_mb``) and runs epochs of dual
    coordinate ascent over the examples in a random order
    (:func:`polyrank.m3l._kernels.cd_epoch`): at example i every label's
    variable takes its exact 1-D step (Eq. 37-39 with the kernel; there is
    no bias, hence no equality constraint and no pairing), over-relaxed by
    1.3 (projected SOR, which keeps every step an ascent step), and the
    steps of all labels of i reach every other example through one Gram
    row (one kernel row serves every label, Sec. 5.1.3). Variables whose
    |projected gradient| is below a fifth of the previous epoch's largest
    one wait for a later epoch; with ``shrinking``, variables at a bound
    beyond the previous epoch's extreme projected gradients (coupled
    through |R|, Eq. 44-45) are skipped and examples with every variable
    skipped leave the active set. Every step reaches every example, so
    after each epoch the projected gradients of *all* N L variables are
    checked; once they are all below ``tol`` the expansion is recomputed
    exactly (one BLAS product) and the solve stops only if that exact
    check passes. Any R is handled (the example's gradient is formed as
    2 - 4 y (R u_i)). With ``gram_dtype="float32"`` (the default when
    ``tol >= 1e-4``) the Gram matrix and the maintained expansion are
    stored in single precision, as LIBSVM stores its kernel matrix
    (``Qfloat``): an epoch moves half the bytes and runs about twice as
    fast; the exact check accumulates in float64 over the stored Gram
    matrix, so the solve converges on the problem whose kernel entries are
    rounded to float32 (relative change below 6e-8, far below the accuracy
    ``tol`` asks for; the objectives and G are those of that problem).
    ``method="auto"`` (the default) uses "cd" when R is diagonal (the
    labels decouple, Sec. 3.1) and the Gram matrix fits in ``cache_mb``,
    and "smo" otherwise.

    One iteration (one trace row) is, for "smo", a sweep of at least N
    variable updates (fewer at convergence); for "cd", an epoch.

    Parameters
    ----------
    X : array_like, shape (N, D)
        Training points (append the bias feature before, as
        :class:`M3LClassifier` does).
    Y : array_like, shape (N, L)
        Labels in {0, 1} or {-1, +1}.
    R : array_like, shape (L, L), optional
        Symmetric positive-definite label prior (default I, i.e. 1-vs-All).
    C : float
        Slack penalty (> 0).
    kernel : {"linear", "rbf", "poly"}
        Mercer kernel (see :mod:`polyrank.kernels`).
    gamma, degree, coef0 : float, int, float
        Kernel parameters; ``gamma=None`` means 1 / D.
    tol : float
        Tolerance on the projected gradients (> 0): M3L's tau, the
        threshold of Sec. 5.1.3 and Appendix B, in the units of D2's
        gradient G = 2 - 2 y f (twice LIBSVM's).
    cache_mb : float or "auto"
        Size limit of the kernel cache in MB (> 0; >= 2 rows are always
        kept; at most N rows), or "auto" (the default): half of the memory
        available when the solve starts, between 200 MB and 16 GiB
        (:func:`cache_megabytes`), instead of LIBSVM's fixed
        ``cache_size``; only what is needed is allocated.
    ridge : float
        Added to R's diagonal (explicit; 0 by default).
    max_iter : int
        Maximum number of iterations, one iteration being one sweep.
    alpha0 : array_like, shape (N, L), optional
        Warm start: initial dual variables in [0, C_i] (e.g. the solution for
        a nearby R or C); the gradient is then computed exactly once,
        O(N^2 (D + L)). Default 0.
    callback : callable, optional
        ``callback(info: IterInfo)`` after each sweep (epoch); extras
        ``max_pg`` (largest projected gradient), ``steps`` (variable
        updates so far), ``rounds`` (label rounds so far, each ending with
        a delayed update; for "cd", examples whose steps were pushed with
        one Gram row), ``cache_hits`` (Gram rows used, "cd": as
        ``rounds``) and ``cache_misses`` (rows computed; N for "cd"); for
        "smo" also ``n_active``, ``n_shrunk`` and ``n_unshrink`` (see
        Returns; ``max_pg`` is then over the active examples, and while
        examples are shrunk the primal and dual are those described in
        :class:`~polyrank.m3l.smo._SmoShrinking`).
        Raising StopIteration stops.
    callback_every : int
    sample_weight : array_like, shape (N,), optional
        Per-example weights w_i >= 0: the box of example i is [0, C w_i].
    method : {"auto", "smo", "cd"}
        The algorithm (see above); "cd" raises ValueError if the Gram
        matrix (8 N^2 bytes, 4 N^2 in float32) does not fit in
        ``cache_mb``.
    shrinking : bool
        "cd": skip variables at a bound whose gradient points out of
        the box beyond the previous epoch's extremes. "smo": LIBSVM's
        shrinking (``Solver::do_shrinking`` of ``svm.cpp``): every
        min(N, 1000) steps the examples all of whose variables would stay
        at their bounds leave the active set, whose scans, gradient
        updates and kernel rows then cover the active examples only; the
        gradients of the others are rebuilt (``reconstruct_gradient``)
        once the largest active projected gradient falls below 10 tol and
        whenever the shrunk problem is solved (see
        :class:`~polyrank.m3l.smo._SmoShrinking`). False is the paper's
        plain Alg. 1. Either way the final check is on all variables: the
        stopping rule and the result's meaning do not change.
    random_state : int, Generator or None
        "cd" only: seed of the visiting order.
    gram_dtype : {"auto", "float32", "float64"}
        "cd" only: the precision in which the Gram matrix and the
        expansion U are stored ("smo" always uses float64 rows). "auto":
        float32 when ``tol >= 1e-4``, else float64 (float32 cannot resolve
        a tighter tol).
    offset : float
        A constant added to every kernel value (>= 0; default 0): the
        kernel k(x, y) + offset of phi(x) with a constant feature
        sqrt(offset) appended, i.e. M3L's bias feature (Sec. 3) in
        feature space, where a translation-invariant kernel cannot lose
        it (:class:`M3LClassifier` passes ``bias ** 2`` for the rbf and
        poly kernels). Decisions are then (k(x, X) + offset) B.

    Returns
    -------
    SolverResult
        ``solver``: ``"m3l-smo"`` or ``"m3l-cd"``;
        ``x``: the dual coefficients B = 2 (Y * alpha) R, shape (N, L), with
        decisions f(x) = k(x, X) B; ``dual``: ``{"alpha", "G"}`` (N, L);
        ``primal_objective``, ``dual_objective``, ``gap`` (P2, D2, P - D);
        ``max_projected_gradient``; ``cache_hits``, ``cache_misses``,
        ``cache_rows``; for "cd" ``epochs`` and ``gram_dtype`` ("float32"
        or "float64", the precision the Gram matrix was stored in); for
        "smo" ``shrinking`` (bool), ``n_shrunk`` (examples removed from the
        active set, summed over the shrinkings), ``n_unshrink`` (gradient
        reconstructions) and ``n_active`` (active examples at the end: N),
        per iteration also in the trace;
        ``nit``; ``status`` (never "converged" when an objective is not
        finite or the gap negative beyond rounding:
        :data:`~polyrank.result.STATUS_NUMERICAL`); ``trace``.

    Raises
    ------
    ValueError
        Bad shapes, NaN/inf, labels not in {0,1}/{-1,+1}, R not symmetric
        positive definite or of the wrong shape, C/tol/cache_mb <= 0, unknown
        kernel, method or gram_dtype, negative ``offset``, negative or all-zero
        sample weights,
        method="cd" with a Gram matrix larger than ``cache_mb``.
    TypeError
        Non-numeric input, sparse X, or wrongly typed parameters.
    """
    X, Y, R, Cv = _check_problem(X, Y, R, C, ridge, sample_weight, sparse_ok=False)
    if kernel not in SMO_KERNELS:
        raise ValueError(f"kernel: expected one of {SMO_KERNELS}, got {kernel!r}")
    params = check_kernel_params(kernel, gamma, degree, coef0, X.shape[1])
    tol = check_positive(tol, "tol")
    cache_mb = cache_megabytes(cache_mb)
    offset = check_positive(offset, "offset", strict=False)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    alpha0 = _check_alpha0(alpha0, Y.shape[0], Y.shape[1], Cv)
    if method not in SMO_METHODS:
        raise ValueError(f"method: expected one of {SMO_METHODS}, got {method!r}")
    if not isinstance(shrinking, (bool, np.bool_)):
        raise TypeError(f"shrinking: expected a bool, got {type(shrinking).__name__}")
    if not isinstance(gram_dtype, str):
        raise TypeError(f"gram_dtype: expected a str, got {type(gram_dtype).__name__}")
    if gram_dtype not in GRAM_DTYPES:
        raise ValueError(f"gram_dtype: expected one of {GRAM_DTYPES}, got {gram_dtype!r}")
    options = SmoOptions(kernel, params, tol, cache_mb, max_iter, method, bool(shrinking),
                         random_state, gram_dtype, offset)
    return smo(X, Y, R, Cv, options, alpha0=alpha0, callback=callback,
               callback_every=callback_every)


@dataclass(frozen=True)
class SmoOptions:
    """The settings of :func:`smo`, checked once (by :func:`m3l_smo` or
    :class:`~polyrank.M3LClassifier`); see :func:`m3l_smo` for each.

    Attributes
    ----------
    kernel : {"linear", "rbf", "poly"}
    kernel_params : dict
        From :func:`~polyrank.kernels.check_kernel_params` (``gamma``,
        ``degree``, ``coef0`` as the kernel takes them).
    tol : float
        > 0.
    cache_mb : float or "auto"
        > 0, or "auto" (:func:`~polyrank.m3l.solver.cache_megabytes`).
    max_iter : int
        >= 1.
    method : {"auto", "smo", "cd"}
    shrinking : bool
    random_state : int, Generator or None
    gram_dtype : {"auto", "float32", "float64"}
    offset : float
        >= 0, added to every kernel value.
    """

    kernel: str
    kernel_params: dict
    tol: float
    cache_mb: float | str = "auto"
    max_iter: int = 10000
    method: str = "auto"
    shrinking: bool = True
    random_state: Any = None
    gram_dtype: str = "auto"
    offset: float = 0.0

    def kernel_spec(self, X) -> _kernels.KernelSpec:
        """The kernel of the SMO kernels over the rows of X."""
        p = self.kernel_params
        return _kernels.KernelSpec(X, _KIND[self.kernel], float(p.get("gamma", 0.0)),
                                   float(p.get("coef0", 0.0)), int(p.get("degree", 1)),
                                   float(self.offset))


def smo(X, Y, R, Cv, options: SmoOptions, *, alpha0=None, callback=None,
        callback_every: int = 1, grams=None) -> SolverResult:
    """The solve of :func:`m3l_smo` on input it trusts: dense float64 X (N, D),
    Y (N, L) in {-1, +1}, R symmetric positive definite (L, L), per-example
    bounds Cv (N,) >= 0, checked ``options`` (:class:`SmoOptions`),
    ``alpha0`` None or in [0, Cv]; ``grams`` a dict keeping the whole Gram
    matrix of X for later solves on the same X (:func:`stored_gram`) or
    None.  Returns the :class:`SolverResult` of :func:`m3l_smo`."""
    o = options
    N = Y.shape[0]
    kern = o.kernel_spec(X)
    Kdiag = _kernel_diagonal(X, *kern[1:])
    cache_mb = cache_megabytes(o.cache_mb)
    diagonal = not np.any(R - np.diag(np.diag(R)))
    dtype = _cd_dtype(o.gram_dtype, o.tol)
    gram_mb = np.dtype(dtype).itemsize * N * N / 1e6
    if o.method == "cd" or (o.method == "auto" and gram_mb <= cache_mb and diagonal):
        if gram_mb > cache_mb:
            raise ValueError(f"method: 'cd' needs the whole Gram matrix in the cache "
                             f"({gram_mb:.1f} MB in {np.dtype(dtype).name} for N = {N}), got "
                             f"cache_mb={cache_mb:g}; raise cache_mb or use method='smo'")
        note(f"M3L: coordinate ascent on the whole Gram matrix ({format_bytes(gram_mb * 1e6)}"
             f" of a {cache_mb:,.0f} MB cache)")
        return _cd(stored_gram(grams, X, *kern[1:-1], dtype, kern.offset), Kdiag, Y, R, Cv,
                   tol=o.tol, max_iter=o.max_iter, alpha0=alpha0, callback=callback,
                   callback_every=callback_every, shrinking=o.shrinking,
                   random_state=o.random_state)
    n_slots = int(min(N, max(2, cache_mb * 1e6 // (8 * N))))
    note(f"M3L: SMO (Alg. 1) with an LRU cache of {n_slots:,} kernel rows of {N:,} "
         f"({format_bytes(8.0 * n_slots * N)}; cache_mb {cache_mb:,.0f})"
         + ("" if o.shrinking else ", no shrinking"))
    cache = _lru_cache(X, *kern[1:], n_slots, grams)
    args = _smo_args(X, Y, R, Cv, o, kern, Kdiag, cache, alpha0, grams is not None)
    shrinker = _SmoShrinking(args, o.kernel, o.kernel_params) if o.shrinking else None
    return _smo_loop(args, Y, R, Cv, tol=o.tol, max_iter=o.max_iter, callback=callback,
                     callback_every=callback_every, n_slots=n_slots, shrinker=shrinker)


def _smo_args(X, Y, R, Cv, o: SmoOptions, kern, Kdiag, cache, alpha0, kept: bool) -> _SmoArgs:
    """The arguments of :func:`_kernels.smo_pass` (:class:`_SmoArgs`) at the
    start ``alpha0`` (None: 0), whose exact gradient is formed from the kept
    whole Gram matrix by BLAS (``kept`` and every row cached) or by blocks
    of kernel rows."""
    N, L = Y.shape
    alpha = np.zeros((N, L)) if alpha0 is None else alpha0.copy()
    if alpha0 is None:
        G = np.full((N, L), 2.0)          # Delta^- - Delta^+ at alpha = 0 (Hamming)
    elif kept and cache.rows.shape[0] == N:
        G = dual_gradient(cache.rows, Y, R, alpha)     # the kept Gram matrix: BLAS
    else:
        G = gradient_by_rows(X, o.kernel, o.kernel_params, Y, R, alpha, kern.offset)
    # label-major copies for the kernel (contiguous scans along one label)
    return _SmoArgs(kern, _kernels.SmoArrays(Kdiag, np.ascontiguousarray(Y.T), R, Cv,
                                             np.ascontiguousarray(alpha.T),
                                             np.ascontiguousarray(G.T), np.zeros(N),
                                             np.arange(N, dtype=np.int64),
                                             np.array([N], dtype=np.int64)),
                    cache, o.tol)


class _SmoArgs(NamedTuple):
    """The arguments of :func:`_kernels.smo_pass` without its step budget,
    built by :func:`smo`: ``smo_pass(*args, n_steps)``."""

    kern: _kernels.KernelSpec       # X and the kernel's parameters
    arr: _kernels.SmoArrays         # the problem and the iterate, label-major
    cache: _kernels.KernelCache     # the LRU cache of kernel rows
    tol: float                      # tau: the tolerance on the projected gradients


class _SmoShrinking:
    """LIBSVM's shrinking (``Solver::do_shrinking``, ``be_shrunk``,
    ``reconstruct_gradient`` of ``svm.cpp``) for the SMO of :func:`smo`,
    over the arguments ``args`` of :func:`_kernels.smo_pass`, whose active
    examples ``act[:n_act[0]]`` it shrinks and restores.

    Every :data:`_SMO_SHRINK_EVERY` steps (``min(N, 1000)``, LIBSVM's
    counter) the thresholds are the extreme projected gradients of the
    active variables of every label, coupled across labels through R as in
    "cd" (Eq. 44-45; a step on label k moves G_l by R_lk / R_kk times what
    it moves G_k): ub_l = max_k |R_kl| / R_kk max(pg_k), lb_l = min_k
    |R_kl| / R_kk min(pg_k) (+inf / -inf when that extreme is 0). A
    variable at 0 with G < lb_l, or at C_i with G > ub_l, would stay at its
    bound ("be_shrunk"; with no bias there is no equality constraint, so a
    single projected gradient plays the part of LIBSVM's pair of maximal
    violations); an example all of whose L variables would stay leaves the
    active set (one kernel row serves all labels, Sec. 5.1.3). A shrinking
    from all N examples must remove at least :data:`_SMO_SHRINK_MIN` of
    them (the passes over a subset gather their entries); later ones
    remove any number.

    Unshrinking ("reconstruct_gradient"): the gradients of the shrunk
    examples are rebuilt exactly from the examples with a non-zero alpha
    by blocks of BLAS products (LIBSVM keeps G_bar for the variables at C
    and adds the free ones; here every support vector is added at once,
    O(N_shrunk N_sv D)), the active set becomes all N examples and the
    kernel rows computed at the active examples only are evicted. It
    happens once when the largest active projected gradient first falls
    below 10 tol (LIBSVM's ``unshrink``), and whenever the shrunk problem
    is solved (every active projected gradient below tol, or no step
    left): the solve stops only when the next check over all N L variables
    passes, so the stopping rule and the result are those of the
    unshrunk SMO.

    While examples are shrunk the trace's dual is the last exact D2 plus
    the exact increase of every step since (D2 is quadratic), and its
    primal that dual plus the duality gap of the active variables (the
    shrunk ones are taken to meet their KKT conditions, their share of
    the gap being 0 while their gradients keep their sign); both are exact
    whenever nothing is shrunk, and at the end.
    """

    def __init__(self, args, kernel: str, params: dict) -> None:
        self.args = args
        self.kernel = kernel
        self.params = params
        self.N = args.arr.At.shape[1]
        self.every = min(self.N, _SMO_SHRINK_EVERY)
        self.since = 0                  # steps since the last shrinking
        self.unshrunk_once = False      # LIBSVM's "unshrink"
        self.n_shrunk = 0               # examples removed, summed over shrinkings
        self.n_unshrink = 0             # gradient reconstructions
        self.gain = 0.0                 # D2 increase since the last exact D2 ...
        self.dual_ref = m3l_objectives(args.arr.At.T, args.arr.Gt.T,
                                       args.arr.Cv)[1]              # ... that exact D2

    @property
    def shrunk(self) -> bool:
        return int(self.args.arr.n_act[0]) < self.N

    def after_chunk(self, steps: int, max_pg: float, gain: float, tol: float) -> bool:
        """Shrink or unshrink after a call of the SMO kernel that made
        ``steps`` updates and left ``max_pg`` on the active set; True if
        the active set was restored (the next call checks every variable)."""
        self.gain += gain
        self.since += steps
        if self.shrunk and (max_pg < tol or steps == 0):
            self.unshrink()
            return True
        if max_pg < tol or steps == 0:
            return False
        if not self.unshrunk_once and max_pg <= 10.0 * tol:
            self.unshrunk_once = True
            restored = self.shrunk
            self.unshrink()
            self.shrink()
            return restored
        if self.since >= self.every:
            self.shrink()
        return False

    def shrink(self) -> None:
        """Remove from the active set the examples all of whose variables
        would stay at their bounds (the class docstring)."""
        self.since = 0
        arr = self.args.arr
        act, n_act = arr.act, arr.n_act
        idx = act[:n_act[0]]
        G = arr.Gt[:, idx]
        A = arr.At[:, idx]
        C = arr.Cv[idx]
        pg = np.where((A <= 0.0) & (G < 0.0), 0.0, G)         # Eq. 31, label-major
        pg = np.where((A >= C) & (pg > 0.0), 0.0, pg)
        R = arr.R
        W = np.abs(R) / np.diag(R)[:, None]            # W[k, l] = |R_kl| / R_kk
        hi = (W * pg.max(axis=1, initial=0.0)[:, None]).max(axis=0)
        lo = (W * pg.min(axis=1, initial=0.0)[:, None]).min(axis=0)
        ub = np.where(hi > 0.0, hi, np.inf)[:, None]
        lb = np.where(lo < 0.0, lo, -np.inf)[:, None]
        out = ((A <= 0.0) & (G < lb)) | ((A >= C) & (G > ub))
        keep = idx[~out.all(axis=0)]
        if idx.size == self.N and keep.size > (1.0 - _SMO_SHRINK_MIN) * self.N:
            return                      # too few to pay for the gathered passes
        self.n_shrunk += idx.size - keep.size
        act[:keep.size] = keep
        n_act[0] = keep.size

    def unshrink(self) -> None:
        """LIBSVM's ``reconstruct_gradient`` and ``active_size = l``: exact
        gradients of the shrunk examples, all examples active, the partial
        kernel rows evicted, D2 exact again."""
        arr = self.args.arr
        act, n_act, At, Gt = arr.act, arr.n_act, arr.At, arr.Gt
        if self.shrunk:
            self.n_unshrink += 1
            out = np.ones(self.N, dtype=bool)
            out[act[:n_act[0]]] = False
            _rebuild_gradient(self.args, np.flatnonzero(out), self.kernel, self.params)
            act[:] = np.arange(self.N)
            n_act[0] = self.N
            _evict_partial(self.args.cache)
        self.exact(m3l_objectives(At.T, Gt.T, arr.Cv)[1])

    def exact(self, dual: float) -> None:
        """The exact D2 now (the reference of the trace's dual while shrunk)."""
        self.dual_ref = dual
        self.gain = 0.0

    def objectives(self) -> tuple[float, float]:
        """(P2, D2) for the trace while examples are shrunk (the class
        docstring)."""
        arr = self.args.arr
        idx = arr.act[:arr.n_act[0]]
        primal_a, dual_a = m3l_objectives(arr.At[:, idx].T, arr.Gt[:, idx].T, arr.Cv[idx])
        dual = self.dual_ref + self.gain
        return dual + (primal_a - dual_a), dual


def _rebuild_gradient(args, idx, kernel: str, params: dict) -> None:
    """The exact gradients (Eq. 29) of the examples ``idx`` (all labels)
    in the label-major ``Gt`` of the SMO arguments ``args`` (:class:`_SmoArgs`):
    G = 2 - 2 Y F, F = 2 K(X_idx, X_sv) (Y alpha)_sv R over the examples with a non-zero
    alpha, by blocks of at most 2^22 kernel entries from
    :func:`~polyrank.kernels.kernel_matrix` (``offset`` added)."""
    X, offset, Yt, R = args.kern.X, args.kern.offset, args.arr.Yt, args.arr.R
    At, Gt = args.arr.At, args.arr.Gt
    sv = np.flatnonzero(At.any(axis=0))
    if sv.size == 0:
        Gt[:, idx] = 2.0                                # alpha = 0 (Hamming loss)
        return
    B = (Yt[:, sv] * At[:, sv]).T @ R                   # (n_sv, L)
    block = max(1, min(_GRAM_BLOCK, (1 << 22) // sv.size))
    for s in range(0, idx.size, block):
        rows = idx[s:s + block]
        Ks = kernel_matrix(X[rows], X[sv], kernel=kernel, **params)
        if offset:
            Ks += offset
        Gt[:, rows] = 2.0 - 2.0 * Yt[:, rows] * (2.0 * (Ks @ B)).T


def _evict_partial(cache: _kernels.KernelCache) -> None:
    """Drop from the LRU cache of :func:`_kernels.cache_get` the rows
    computed at the active examples only (``cache.part``): their slots
    become empty and the first the LRU scan reuses (stamp 0)."""
    slot_of, owner, stamp, part = cache.slot_of, cache.owner, cache.stamp, cache.part
    v = np.flatnonzero(part)
    own = owner[v]
    slot_of[own[own >= 0]] = -1
    owner[v] = -1
    stamp[v] = 0
    part[v] = False


def _smo_loop(args, Y, R, Cv, *, tol, max_iter, callback, callback_every,
              n_slots, shrinker=None) -> SolverResult:
    """The iterations of the SMO over the arguments ``args`` of
    :func:`_kernels.smo_pass` (without its step budget), recorded and
    stopped as every M3L driver, shrinking with ``shrinker``
    (:class:`_SmoShrinking` or None); the result of :func:`m3l_smo`."""
    At, Gt, state = args.arr.At, args.arr.Gt, args.cache.state
    N, L = Y.shape
    runner, status, max_pg, it = _start(callback, callback_every)
    steps_total = rounds_total = 0
    for it in range(1, max_iter + 1):
        steps, max_pg, rounds = _smo_iteration(args, max(N, L), it, shrinker)
        steps_total += steps
        rounds_total += rounds
        if shrinker is not None and shrinker.shrunk:
            primal, dual = shrinker.objectives()
        else:
            primal, dual = m3l_objectives(At.T, Gt.T, Cv)
            if shrinker is not None:
                shrinker.exact(dual)
        stop = runner.record(it, primal, dual, max_pg=max_pg, steps=steps_total,
                             rounds=rounds_total,
                             cache_hits=int(state[1]), cache_misses=int(state[2]),
                             **_shrink_extras(shrinker, N))
        ending = _ending(primal, dual, max_pg < tol, stop)
        if ending is not None:
            status = ending
            break
    if shrinker is not None and shrinker.shrunk:
        # stopped early (max_iter, callback): exact gradients of every example
        shrinker.unshrink()
        max_pg = _label_max_pg(At, Gt, Cv)
    alpha = np.ascontiguousarray(At.T)
    G = np.ascontiguousarray(Gt.T)
    extra = {"x": 2.0 * (Y * alpha) @ R, "cache_hits": int(state[1]),
             "cache_misses": int(state[2]), "cache_rows": n_slots, "R": R,
             "shrinking": shrinker is not None, **_shrink_extras(shrinker, N)}
    return _finish(runner, status, it, alpha, G, Cv, max_pg, tol, "m3l-smo", extra)


def _shrink_extras(shrinker, N: int) -> dict:
    """The shrinking counts of the SMO's trace rows and result: active
    examples, examples shrunk (summed over shrinkings) and gradient
    reconstructions (unshrinkings)."""
    if shrinker is None:
        return {"n_active": N, "n_shrunk": 0, "n_unshrink": 0}
    return {"n_active": int(shrinker.args.arr.n_act[0]), "n_shrunk": shrinker.n_shrunk,
            "n_unshrink": shrinker.n_unshrink}


def _label_max_pg(At, Gt, Cv) -> float:
    """The largest |projected gradient| (Eq. 31) of label-major At, Gt."""
    return float(np.abs(projected_gradient(At.T, Gt.T, Cv)).max())


#: variable updates per call of the SMO kernel: an iteration of N updates is
#: cut into calls of this many, so that Ctrl-C (raised when a call returns)
#: and the progress bar of a verbose fit act within seconds at any N
_SMO_CHUNK = 2000
#: steps between two shrinkings of the SMO (LIBSVM: min(l, 1000))
_SMO_SHRINK_EVERY = 1000
#: the first shrinking (from all N examples) happens only if it removes at
#: least this share of them: the passes over an active subset gather their
#: entries (measured on yeast rows with one example in 600 shrunk: 1.09x
#: the time of the plain SMO)
_SMO_SHRINK_MIN = 0.1


def _smo_iteration(args, n_steps: int, it: int, shrinker=None):
    """One SMO iteration: at least ``n_steps`` updates (``_kernels.smo_pass``)
    or until every projected gradient is below tol, by calls of
    :data:`_SMO_CHUNK` updates (with ``shrinker``, of at most
    ``shrinker.every``, shrinking in between: :class:`_SmoShrinking`).
    Each call stops at the end of a round and recomputes the labels'
    largest projected gradients exactly, so the rounds and iterates are
    those of one call of ``n_steps``.  When the shrinker restores the
    active set a call follows at once (with no step budget left, it only
    measures), so an iteration never ends on the shrunk problem's
    convergence.  Returns (steps, max_pg, rounds)."""
    steps = rounds = 0
    max_pg = math.inf
    tol = args.tol
    L, N = args.arr.Gt.shape
    chunk = max(_SMO_CHUNK, L) if shrinker is None else max(shrinker.every, L)
    bar = progress(None, total=n_steps, unit="update",
                   desc=f"M3L SMO iteration {it} ({N:,} examples)") \
        if N >= 10 * _SMO_CHUNK else None
    again = False
    while (steps < n_steps and max_pg >= tol) or again:
        s, max_pg, r, gain = _kernels.smo_pass(*args, max(0, min(chunk, n_steps - steps)))
        steps += s
        rounds += r
        if bar is not None:
            bar.update(s)
        again = shrinker is not None and shrinker.after_chunk(s, max_pg, gain, tol)
        if s == 0 and not again:
            break
    if bar is not None:
        bar.close()
    return steps, max_pg, rounds
