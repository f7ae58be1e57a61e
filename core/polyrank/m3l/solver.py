"""Drivers of the M3L solvers: kernelised SMO, kernelised example-major
coordinate ascent on the whole Gram matrix (both behind :func:`m3l_smo`)
and linear dual coordinate ascent with shrinkage.

Both solve the M3L primal P2 (Eq. 11-14 of ``m3l-multilabel-zero-shot.txt``)
with the Hamming loss (Eq. 6) and labels in {-1, +1}::

    P(Z) = 1/2 sum_{l,k} (R^-1)_lk z_l'z_k
           + C sum_{i,l} max(0, 2 - 2 y_il z_l'phi(x_i))

through its dual D2 (Eq. 25)::

    D(alpha) = 2 sum_{i,l} alpha_il - 2 sum_{l,k} R_lk alpha_l' Y_l K Y_k alpha_k,
    0 <= alpha <= C,

with Z = 2 phi(X)' (Y * alpha) R at the optimum (Eq. 23). Writing
G = 2 - 2 Y * F for the dual gradient (F the training decisions), both
objectives and the gap follow from (alpha, G) alone::

    P = sum alpha (1 - G/2) + C sum max(0, G),
    D = sum alpha (1 + G/2),
    P - D = sum [C max(0, G) - alpha G] >= 0.

With R = I the problem splits into L binary SVMs without bias with
penalty 2C (Sec. 3.1, Eq. 15-18).

Sample weights w_i make the bound per example, C_i = C w_i: the box
0 <= alpha_il <= C becomes 0 <= alpha_il <= C_i and C max(0, G) becomes
C_i max(0, G) above (an integer weight is the example repeated; 0 removes
it).

The public drivers :func:`m3l_smo` and :func:`m3l_dca` validate their input
and delegate to :func:`smo` and :func:`dca`, which trust it (the entries of
:class:`~polyrank.M3LClassifier`, whose input ``validate_data`` checked).
"""

from __future__ import annotations

import math
import mmap
import time
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._csr import row_arrays
from .._memory import check_allocation, format_bytes, memory_budget
from .._progress import note, progress
from ..kernels import check_kernel_params, kernel_matrix
from ..result import (
    STATUS_CALLBACK,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    STATUS_NUMERICAL,
    CallbackRunner,
    SolverResult,
    finish,
)
from ..result import numerical_failure as _failed
from ..validation import as_float_array, check_design, check_int, check_positive
from . import _kernels
from .priors import check_R, labels_pm1

__all__ = ["m3l_smo", "m3l_dca", "smo", "dca", "m3l_objectives", "projected_gradient",
           "dual_gradient", "label_gaps", "cache_megabytes", "SMO_KERNELS", "SMO_METHODS",
           "DCA_METHODS", "STOPPING_RULES", "GRAM_DTYPES", "AUTO_CACHE_FRACTION",
           "AUTO_CACHE_MAX_MB", "AUTO_CACHE_MIN_MB"]

#: kernels of the SMO solver
SMO_KERNELS = ("linear", "rbf", "poly")
#: methods of :func:`m3l_smo`: "smo" (Alg. 1), "cd" (example-major coordinate
#: ascent on the whole Gram matrix), "auto" (cd when the Gram matrix fits the cache)
SMO_METHODS = ("auto", "smo", "cd")
#: methods of :func:`m3l_dca`: "joint" (Sec. 6, any R), "per-label" (LIBLINEAR's
#: dual coordinate descent per label, diagonal R), "auto" (per-label when R is diagonal)
DCA_METHODS = ("auto", "joint", "per-label")
#: stopping rules of :func:`m3l_dca`: "pg" (every projected gradient below tol,
#: the paper's Appendix B) and "gap" (duality gap below tol times the primal
#: objective, per label or group of labels)
STOPPING_RULES = ("pg", "gap")
_KIND = {"linear": _kernels.KIND_LINEAR, "rbf": _kernels.KIND_RBF,
         "poly": _kernels.KIND_POLY}


#: over-relaxation of the coordinate steps (projected SOR; 1 = exact coordinate steps)
_CD_OMEGA = 1.3
_CD_SKIP = 0.1
_CD_SKIP_EXAMPLE = 0.3
#: rows per BLAS product of :func:`gram`
_GRAM_BLOCK = 128
#: "cd" with ``gram_dtype="auto"`` stores the Gram matrix and the expansion
#: it updates in float32 (as LIBSVM's ``Qfloat``) when tol is at least this:
#: their rounding (2^-24 relative) is then far below the accuracy asked for
_CD_FLOAT32_TOL = 1e-4
#: the precisions of the Gram matrix of "cd" (``gram_dtype``)
GRAM_DTYPES = ("auto", "float32", "float64")
#: ``cache_mb="auto"``: this share of the memory available when the fit starts ...
AUTO_CACHE_FRACTION = 0.5
#: ... at most this many MB (16 GiB) ...
AUTO_CACHE_MAX_MB = 16 * 1024.0
#: ... and at least this many (scikit-learn's SVC default; also the budget where
#: the platform does not say how much memory is available)
AUTO_CACHE_MIN_MB = 200.0


def cache_megabytes(cache_mb) -> float:
    """The kernel cache size in MB for ``cache_mb``: the number itself, or for
    ``"auto"`` :data:`AUTO_CACHE_FRACTION` of the memory available now
    (:func:`polyrank._memory.available_bytes`: MemAvailable, the cgroup's
    free room), between :data:`AUTO_CACHE_MIN_MB` and
    :data:`AUTO_CACHE_MAX_MB`.  Only what is needed is allocated: at most the
    whole Gram matrix (4 N^2 bytes in float32).

    Parameters
    ----------
    cache_mb : float or "auto"

    Returns
    -------
    float
        Megabytes (1e6 bytes, as LIBSVM's ``cache_size``).

    Raises
    ------
    ValueError
        A string other than "auto", or a number that is not > 0.
    TypeError
        Neither a number nor a string.

    Examples
    --------
    >>> cache_megabytes(50)
    50.0
    >>> cache_megabytes("auto") >= AUTO_CACHE_MIN_MB
    True
    """
    if isinstance(cache_mb, str):
        if cache_mb != "auto":
            raise ValueError(f"cache_mb: expected a size in MB (> 0) or 'auto', got "
                             f"{cache_mb!r}")
        mib = 1024.0 ** 2
        budget = memory_budget(AUTO_CACHE_FRACTION, AUTO_CACHE_MIN_MB * 1e6,
                               AUTO_CACHE_MAX_MB * mib)
        return budget / 1e6
    return check_positive(cache_mb, "cache_mb")




def _check_problem(X, Y, R, C, ridge, sample_weight, sparse_ok):
    """Validated (X, Y in {-1, +1}, R + ridge I, Cv = C * sample_weight)."""
    if sp.issparse(X) and not sparse_ok:
        raise TypeError("X: sparse input is only supported by m3l_dca (the linear "
                        "kernel); pass a dense array to m3l_smo")
    X = check_design(X)
    Y = labels_pm1(Y)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"Y: expected {X.shape[0]} rows (one per row of X), got "
                         f"{Y.shape[0]}")
    L = Y.shape[1]
    R = np.eye(L) + check_positive(ridge, "ridge", strict=False) * np.eye(L) \
        if R is None else check_R(R, L, ridge)
    C = check_positive(C, "C")
    if sample_weight is None:
        return X, Y, R, np.full(X.shape[0], C)
    w = as_float_array(sample_weight, "sample_weight", ndim=1, shape=(X.shape[0],))
    if w.min() < 0:
        raise ValueError(f"sample_weight: expected weights >= 0, got {w.min():.3g}")
    if not w.any():
        raise ValueError("sample_weight: every example has weight 0 (nothing to learn from)")
    return X, Y, R, C * w


def m3l_objectives(alpha, G, C) -> tuple[float, float]:
    """Primal P2 and dual D2 objectives from the dual variables and the
    dual gradient (see the module docstring for the identities).

    Parameters
    ----------
    alpha, G : ndarray, shape (N, L)
    C : float or ndarray, shape (N,)
        The bound, or the per-example bounds C_i.

    Returns
    -------
    (primal, dual) : tuple of float

    Examples
    --------
    >>> import numpy as np
    >>> m3l_objectives(np.zeros((2, 1)), np.full((2, 1), 2.0), 1.0)
    (4.0, 0.0)
    """
    C = np.reshape(C, (-1, 1)) if np.ndim(C) else C
    primal = float(np.sum(alpha * (1.0 - 0.5 * G)) + np.sum(C * np.maximum(G, 0.0)))
    dual = float(np.sum(alpha * (1.0 + 0.5 * G)))
    return primal, dual


def projected_gradient(alpha, G, C) -> np.ndarray:
    """Projected gradient of D2 (Eq. 31): G where 0 < alpha < C,
    min(0, G) at C, max(0, G) at 0 (0 where C = 0).  ``C`` is a float or
    the per-example bounds (N,).

    Examples
    --------
    >>> import numpy as np
    >>> projected_gradient(np.array([0.0, 1.0, 0.5]), np.array([-1.0, 2.0, 3.0]), 1.0).tolist()
    [0.0, 0.0, 3.0]
    """
    C = np.reshape(C, (-1, 1)) if np.ndim(C) else C
    pg = np.where((alpha <= 0) & (G < 0), 0.0, G)
    return np.where((alpha >= C) & (pg > 0), 0.0, pg)


def dual_gradient(K, Y, R, alpha) -> np.ndarray:
    """Exact gradient of D2 (Eq. 29) from a Gram matrix:
    G = 2 - 2 Y * (2 K (Y alpha) R).

    Parameters
    ----------
    K : ndarray, shape (N, N)
    Y : ndarray, shape (N, L), entries +-1
    R : ndarray, shape (L, L)
    alpha : ndarray, shape (N, L)

    Returns
    -------
    ndarray, shape (N, L)
    """
    return 2.0 - 2.0 * Y * (2.0 * (K @ (Y * alpha)) @ R)


def _check_alpha0(alpha0, N, L, Cv):
    if alpha0 is None:
        return None
    a = as_float_array(alpha0, "alpha0", ndim=2, shape=(N, L)).copy()
    if a.min() < 0 or np.any(a > Cv[:, None]):
        raise ValueError(f"alpha0: expected entries in [0, C_i] (C times the sample "
                         f"weight), got [{a.min():.3g}, {a.max():.3g}] with C_i up to "
                         f"{Cv.max():g}")
    return a


def _finish(runner, status, it, alpha, G, C, max_pg, tol, solver, extra, stopping="pg"):
    primal, dual = m3l_objectives(alpha, G, C)
    if _failed(primal, dual):
        status = STATUS_NUMERICAL
    gap = primal - dual
    if stopping == "gap":
        rel = gap / primal if primal > 0 else 0.0
        rule = (f"duality gap {gap:.3g} <= tol={tol:g} x primal {primal:.6g} (relative "
                f"{rel:.3g}; largest projected gradient {max_pg:.3g})")
        progress_text = f"relative duality gap {rel:.3g} > tol={tol:g}"
    else:
        rule = (f"every projected gradient below tol={tol:g} (max {max_pg:.3g}); duality "
                f"gap {gap:.3g}")
        progress_text = f"max projected gradient {max_pg:.3g} >= tol={tol:g}"
    return finish(
        runner, status, solver=solver, x=extra.pop("x"), dual={"alpha": alpha, "G": G},
        primal=primal, dual_objective=dual, nit=it, unit="iterations", rule=rule,
        progress=progress_text, limit=f"max_iter={it}",
        advice="scale X (e.g. StandardScaler) or lower C",
        max_projected_gradient=float(max_pg), **extra)


def label_gaps(alpha, G, C) -> tuple[np.ndarray, np.ndarray]:
    """Per-label duality gaps and primal objectives of P2 / D2 (with R
    diagonal the problem is a sum over the labels; see the module
    docstring): ``gap[l] = sum_i C_i max(0, G_il) - alpha_il G_il`` (>= 0)
    and ``primal[l] = sum_i alpha_il (1 - G_il / 2) + C_i max(0, G_il)``;
    their sums are P - D and P.

    Parameters
    ----------
    alpha, G : ndarray, shape (N, L)
    C : float or ndarray, shape (N,)

    Returns
    -------
    (gap, primal) : tuple of ndarray, shape (L,)

    Examples
    --------
    >>> import numpy as np
    >>> gap, primal = label_gaps(np.zeros((2, 1)), np.full((2, 1), 2.0), 1.0)
    >>> gap.tolist(), primal.tolist()
    ([4.0], [4.0])
    """
    C = np.reshape(C, (-1, 1)) if np.ndim(C) else C
    hinge = C * np.maximum(G, 0.0)
    return (hinge - alpha * G).sum(axis=0), (alpha * (1.0 - 0.5 * G) + hinge).sum(axis=0)


def _labels_ok(alpha, G, Cv, tol, stopping):
    """(label_pg, ok): each label's largest |projected gradient| and whether
    it meets the stopping rule ("pg": below tol; "gap": its duality gap
    at most tol times its primal objective)."""
    label_pg = np.abs(projected_gradient(alpha, G, Cv)).max(axis=0)
    if stopping == "gap":
        gap, primal = label_gaps(alpha, G, Cv)
        return label_pg, gap <= tol * primal
    return label_pg, label_pg < tol


def _start(callback, callback_every: int):
    """The state of an M3L driver before its first iteration: the callback
    runner, the status ``max_iter`` (until something else ends the solve),
    the largest projected gradient at alpha = 0 (2, Hamming loss) and
    iteration 0."""
    return CallbackRunner(callback, callback_every), STATUS_MAX_ITER, 2.0, 0


def _ending(primal: float, dual: float, converged: bool, stop: bool):
    """The status that ends an M3L solve after a recorded iteration, or
    None to go on: a non-finite or inverted objective first, then the
    stopping rule (``converged``: for the paper's, every projected gradient
    below ``tol``), then a callback's request."""
    if _failed(primal, dual):
        return STATUS_NUMERICAL
    if converged:
        return STATUS_CONVERGED
    if stop:
        return STATUS_CALLBACK
    return None


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
        :class:`~polyrank.m3l.solver._SmoShrinking`).
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
        :class:`~polyrank.m3l.solver._SmoShrinking`). False is the paper's
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
    return smo(X, Y, R, Cv, kernel=kernel, kernel_params=params, tol=tol, cache_mb=cache_mb,
               max_iter=max_iter, alpha0=alpha0, callback=callback,
               callback_every=callback_every, method=method, shrinking=bool(shrinking),
               random_state=random_state, gram_dtype=gram_dtype, offset=offset)


def _small_pages(shape, dtype) -> np.ndarray:
    """An uninitialised (zero-filled) array like ``np.empty(shape, dtype)``
    whose memory the kernel maps with normal pages (``MADV_NOHUGEPAGE``,
    where the platform has it; ``np.empty`` elsewhere or below 4 MB).

    numpy asks for transparent huge pages for large arrays; for the Gram
    matrix of "cd" they brought no measurable epoch speed-up (rows are
    read whole) while their first touch cost 0.02-0.15 s for N = 4,000,
    depending on how fragmented the machine's memory was (compaction), so
    a fit's time varied by up to half. Normal pages cost a steady ~0.04 s."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    advice = getattr(mmap, "MADV_NOHUGEPAGE", None)
    if advice is None or nbytes < 1 << 22:
        return np.empty(shape, dtype=dtype)
    m = mmap.mmap(-1, nbytes)
    m.madvise(advice)
    return np.frombuffer(m, dtype=dtype).reshape(shape)


def _kernel_factors(X, kind, gamma):
    """(left, right) with K = kernel(left right') blockwise (:func:`_kernel_block`):
    X and X, or for the rbf kernel the augmented rows whose product is
    already the exponent,
    [sqrt(2 gamma) x_i, -gamma |x_i|^2, 1] . [sqrt(2 gamma) x_j, 1, -gamma |x_j|^2]
    = -gamma |x_i - x_j|^2."""
    if kind != _kernels.KIND_RBF:
        return X, X
    gsq = -gamma * np.einsum("ij,ij->i", X, X)
    one = np.ones((X.shape[0], 1))
    scaled = math.sqrt(2.0 * gamma) * X
    return np.hstack([scaled, gsq[:, None], one]), np.hstack([scaled, one, gsq[:, None]])


def _kernel_block(D, kind, gamma, coef0, degree) -> None:
    """The kernel applied in place to a block D of products of
    :func:`_kernel_factors` (numpy's vectorised exp for the rbf kernel,
    the exponent clipped at 0)."""
    if kind == _kernels.KIND_RBF:
        np.minimum(D, 0.0, out=D)
        np.exp(D, out=D)
    elif kind == _kernels.KIND_POLY:
        D *= gamma
        D += coef0
        D **= degree


def gram(X, kind, gamma, coef0, degree, dtype=np.float64, offset=0.0) -> np.ndarray:
    """The whole Gram matrix K (N, N) of the rows of X, stored as ``dtype``
    (float64 or float32), by blocks of :data:`_GRAM_BLOCK` rows: one BLAS
    product per block in float64 over the columns from the block's first
    row on (K is symmetric to the bit: the block's part below the diagonal
    is stored transposed), the kernel applied in place while the block is
    in cache (:func:`_kernel_factors`, :func:`_kernel_block`), then stored
    (rounded once for float32); the rbf diagonal is set to exactly 1.
    ``kind`` is one of the ``_kernels.KIND_*`` codes; ``offset`` is added
    to every entry (the kernel of a constant feature, see :func:`m3l_smo`)."""
    N = X.shape[0]
    check_allocation(np.dtype(dtype).itemsize * float(N) * N,
                     f"the {N:,} x {N:,} Gram matrix ({np.dtype(dtype).name})",
                     "use kernel='linear' (solver 'dca', no Gram matrix), a smaller "
                     "cache_mb (the SMO then keeps only that many MB of kernel rows) or "
                     "fewer rows")
    t0 = time.perf_counter()
    K = _small_pages((N, N), dtype)
    buf = np.empty(min(N, _GRAM_BLOCK) * N)
    left, right = _kernel_factors(X, kind, gamma)
    for s in progress(range(0, N, _GRAM_BLOCK), unit="block",
                      desc=f"M3L Gram matrix ({N:,} x {N:,})"):
        e = min(N, s + _GRAM_BLOCK)
        D = buf[:(e - s) * (N - s)].reshape(e - s, N - s)
        np.dot(left[s:e], right[s:].T, out=D)
        _kernel_block(D, kind, gamma, coef0, degree)
        if offset:
            D += offset
        # the diagonal block from its upper triangle: K symmetric to the bit
        low = np.tril_indices(e - s, -1)
        D[low] = D[:, :e - s].T[low]
        K[s:e, s:] = D
        K[e:, s:e] = D[:, e - s:].T
    if kind == _kernels.KIND_RBF:
        np.fill_diagonal(K, 1.0 + offset)
    note(f"M3L: Gram matrix {N:,} x {N:,} ({np.dtype(dtype).name}, "
         f"{format_bytes(K.nbytes)}) in {time.perf_counter() - t0:.1f} s")
    return K


def stored_gram(store, X, kind, gamma, coef0, degree, dtype=np.float64,
                offset=0.0) -> np.ndarray:
    """:func:`gram`, or the matrix ``store`` (a dict, or None: no store)
    holds for the same kernel, precision and offset.  ``store`` keeps one
    Gram matrix of the rows X (the caller keys it by the data: a path of
    :class:`M3LClassifier` with ``warm_start=True`` computes it once for
    every C); a new kernel replaces the old one (freed first)."""
    if store is None:
        return gram(X, kind, gamma, coef0, degree, dtype, offset)
    key = (int(kind), float(gamma), float(coef0), int(degree), np.dtype(dtype).str,
           float(offset))
    if store.get("key") != key:
        store.clear()
        store["K"] = gram(X, kind, gamma, coef0, degree, dtype, offset)
        store["key"] = key
    return store["K"]


def gradient_by_rows(X, kernel: str, params: dict, Y, R, alpha,
                     offset: float = 0.0) -> np.ndarray:
    """The exact dual gradient G = 2 - 2 Y * F, F = 2 K (Y alpha) R (Eq. 29),
    shape (N, L), without storing K: blocks of rows of K from
    :func:`~polyrank.kernels.kernel_matrix` (at most 2^22 entries each),
    each multiplied into Y alpha at once; O(N^2 (D + L)). The warm start of
    the SMO, whose kernel cache may hold only a few rows. ``offset`` is
    added to every kernel value (see :func:`m3l_smo`)."""
    N = X.shape[0]
    A = Y * alpha
    G = np.empty(A.shape)
    block = max(1, min(_GRAM_BLOCK, (1 << 22) // N))
    for s in progress(range(0, N, block), desc=f"M3L dual gradient ({N:,} kernel rows)",
                      unit="block"):
        e = min(N, s + block)
        Ks = kernel_matrix(X[s:e], X, kernel=kernel, **params)
        if offset:
            Ks += offset
        F = 2.0 * (Ks @ A) @ R
        G[s:e] = 2.0 - 2.0 * Y[s:e] * F
    return G


def expansion(K, Bt) -> np.ndarray:
    """Bt K in float64, shape (L, N), for Bt (L, N) float64 and the Gram
    matrix K (N, N) in float64 or float32: one BLAS product, or for float32
    one per block of :data:`_GRAM_BLOCK` rows of K raised to float64 (the
    exact expansion U' = (Y alpha)' K over the stored Gram matrix, with no
    float32 accumulation)."""
    if K.dtype == np.float64:
        return Bt @ K
    N = K.shape[0]
    out = np.zeros((Bt.shape[0], N))
    buf = np.empty((min(N, _GRAM_BLOCK), N))
    for s in range(0, N, _GRAM_BLOCK):
        e = min(N, s + _GRAM_BLOCK)
        D = buf[:e - s]
        D[...] = K[s:e]
        out += Bt[:, s:e] @ D
    return out


def _cd_dtype(gram_dtype: str, tol: float):
    """The storage precision of "cd" for ``gram_dtype`` and ``tol``."""
    if gram_dtype == "auto":
        return np.float32 if tol >= _CD_FLOAT32_TOL else np.float64
    return np.float32 if gram_dtype == "float32" else np.float64


def _kernel_diagonal(X, kind, g, c0, deg, offset) -> np.ndarray:
    """k(x_i, x_i) + offset (N,); ValueError if an entry is negative."""
    if kind == _kernels.KIND_RBF:
        Kdiag = np.ones(X.shape[0])
    else:
        s = np.einsum("ij,ij->i", X, X)
        Kdiag = s if kind == _kernels.KIND_LINEAR else (g * s + c0) ** deg
    if np.any(Kdiag < 0):
        raise ValueError("kernel: the kernel has negative diagonal entries k(x, x) "
                         "(not a Mercer kernel for these parameters)")
    return Kdiag + offset


def _lru_cache(X, kind, g, c0, deg, offset, n_slots, grams=None) -> _kernels.KernelCache:
    """The kernel-row cache of the SMO: a :class:`_kernels.KernelCache`
    (rows (n_slots, N), slot_of, owner, stamp, state, part) for
    :func:`_kernels.cache_get` (``part`` flags the rows computed at the
    active examples only).  When it holds all N rows
    the whole Gram matrix is computed up front by blocks of BLAS products
    (every row is needed once every example has been a working variable),
    with the bookkeeping the LRU cache would have after fetching rows
    0..N-1 (from ``grams``, see :func:`stored_gram`, if it holds it: every
    row present, the SMO never writes one); otherwise it starts empty."""
    N = X.shape[0]
    part = np.zeros(n_slots, dtype=np.bool_)
    if n_slots == N:
        rows = stored_gram(grams, X, kind, g, c0, deg, offset=offset)
        slot_of = np.arange(N, dtype=np.int64)
        owner = np.arange(N, dtype=np.int64)
        stamp = np.arange(1, N + 1, dtype=np.int64)
        state = np.array([N, 0, N], dtype=np.int64)        # clock, hits, misses
        return _kernels.KernelCache(rows, slot_of, owner, stamp, state, part)
    check_allocation(8.0 * n_slots * N, f"the kernel cache ({n_slots:,} rows of {N:,})",
                     "lower cache_mb")
    return _kernels.KernelCache(np.empty((n_slots, N)), np.full(N, -1, dtype=np.int64),
                                np.full(n_slots, -1, dtype=np.int64),
                                np.zeros(n_slots, dtype=np.int64), np.zeros(3, dtype=np.int64),
                                part)


def smo(X, Y, R, Cv, *, kernel: str, kernel_params: dict, tol: float,
        cache_mb: float | str, max_iter: int, alpha0=None, callback=None,
        callback_every: int = 1, method: str = "auto", shrinking: bool = True,
        random_state=None, gram_dtype: str = "auto", offset: float = 0.0,
        grams=None) -> SolverResult:
    """The solve of :func:`m3l_smo` on input it trusts: dense float64 X (N, D),
    Y (N, L) in {-1, +1}, R symmetric positive definite (L, L), per-example
    bounds Cv (N,) >= 0, kernel parameters from
    :func:`~polyrank.kernels.check_kernel_params`, ``alpha0`` None or in
    [0, Cv], ``cache_mb`` > 0 or ``"auto"`` (:func:`cache_megabytes`),
    ``offset`` >= 0; ``grams`` a dict keeping the whole Gram matrix of X
    for later solves on the same X (:func:`stored_gram`) or None.  Returns
    the :class:`SolverResult` of :func:`m3l_smo`."""
    params = kernel_params
    N, L = Y.shape
    kind = _KIND[kernel]
    g = float(params.get("gamma", 0.0))
    c0 = float(params.get("coef0", 0.0))
    deg = int(params.get("degree", 1))
    offset = float(offset)
    Kdiag = _kernel_diagonal(X, kind, g, c0, deg, offset)
    cache_mb = cache_megabytes(cache_mb)
    diagonal = not np.any(R - np.diag(np.diag(R)))
    dtype = _cd_dtype(gram_dtype, tol)
    gram_mb = np.dtype(dtype).itemsize * N * N / 1e6
    if method == "cd" or (method == "auto" and gram_mb <= cache_mb and diagonal):
        if gram_mb > cache_mb:
            raise ValueError(f"method: 'cd' needs the whole Gram matrix in the cache "
                             f"({gram_mb:.1f} MB in {np.dtype(dtype).name} for N = {N}), got "
                             f"cache_mb={cache_mb:g}; raise cache_mb or use method='smo'")
        note(f"M3L: coordinate ascent on the whole Gram matrix ({format_bytes(gram_mb * 1e6)}"
             f" of a {cache_mb:,.0f} MB cache)")
        return _cd(stored_gram(grams, X, kind, g, c0, deg, dtype, offset), Kdiag, Y, R, Cv,
                   tol=tol,
                   max_iter=max_iter, alpha0=alpha0, callback=callback,
                   callback_every=callback_every, shrinking=shrinking,
                   random_state=random_state)
    n_slots = int(min(N, max(2, cache_mb * 1e6 // (8 * N))))
    note(f"M3L: SMO (Alg. 1) with an LRU cache of {n_slots:,} kernel rows of {N:,} "
         f"({format_bytes(8.0 * n_slots * N)}; cache_mb {cache_mb:,.0f})"
         + ("" if shrinking else ", no shrinking"))
    cache = _lru_cache(X, kind, g, c0, deg, offset, n_slots, grams)
    alpha = np.zeros((N, L)) if alpha0 is None else alpha0.copy()
    if alpha0 is None:
        G = np.full((N, L), 2.0)          # Delta^- - Delta^+ at alpha = 0 (Hamming)
    elif grams is not None and n_slots == N:
        G = dual_gradient(cache.rows, Y, R, alpha)     # the kept Gram matrix: BLAS
    else:
        G = gradient_by_rows(X, kernel, params, Y, R, alpha, offset)
    # label-major copies for the kernel (contiguous scans along one label)
    args = _SmoArgs(_kernels.KernelSpec(X, kind, g, c0, deg, offset),
                    _kernels.SmoArrays(Kdiag, np.ascontiguousarray(Y.T), R, Cv,
                                       np.ascontiguousarray(alpha.T),
                                       np.ascontiguousarray(G.T), np.zeros(N),
                                       np.arange(N, dtype=np.int64),
                                       np.array([N], dtype=np.int64)),
                    cache, tol)
    shrinker = _SmoShrinking(args, kernel, params) if shrinking else None
    return _smo_loop(args, Y, R, Cv, tol=tol, max_iter=max_iter, callback=callback,
                     callback_every=callback_every, n_slots=n_slots, shrinker=shrinker)


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
    return dca(X, Y, R, Cv, tol=tol, switch_tol=switch_tol, shrinking=bool(shrinking),
               max_iter=max_iter, check_every=check_every, alpha0=alpha0, callback=callback,
               callback_every=callback_every, random_state=random_state, method=method,
               stopping=stopping)


def dca(X, Y, R, Cv, *, tol: float, switch_tol: float, shrinking: bool, max_iter: int,
        check_every: float = 10.0, alpha0=None, callback=None, callback_every: int = 1,
        random_state=None, method: str = "auto", stopping: str = "pg",
        xr=None) -> SolverResult:
    """The solve of :func:`m3l_dca` on input it trusts: float64 X (N, D),
    dense or CSR, Y (N, L) in {-1, +1}, R symmetric positive definite,
    per-example bounds Cv (N,) >= 0, ``alpha0`` None or in [0, Cv],
    ``check_every`` > 0, ``method`` one of :data:`DCA_METHODS`, ``stopping``
    one of :data:`STOPPING_RULES`; ``xr`` the :func:`linear_rows` of X if
    built before (kept along a path), else None. Returns the
    :class:`SolverResult` of :func:`m3l_dca`."""
    rng = np.random.default_rng(random_state)
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
    budget = max(1, int(math.ceil(check_every * N * L)))
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
