"""The kernel side of the M3L kernel solvers (Sec. 5.1.3): the whole Gram
matrix by blocks of BLAS products (:func:`gram`, kept across the fits of a
path by :func:`stored_gram`), the LRU cache of kernel rows of the SMO, the
exact gradient by rows, and the cache size ``cache_mb="auto"``."""

from __future__ import annotations

import math
import mmap
import time

import numpy as np

from .._memory import check_allocation, format_bytes, memory_budget
from .._progress import note, progress
from ..kernels import kernel_matrix
from ..validation import check_positive
from . import _kernels

__all__ = ["GRAM_DTYPES", "AUTO_CACHE_FRACTION", "AUTO_CACHE_MAX_MB", "AUTO_CACHE_MIN_MB",
           "cache_megabytes", "gram", "stored_gram", "gradient_by_rows", "expansion"]

_KIND = {"linear": _kernels.KIND_LINEAR, "rbf": _kernels.KIND_RBF,
         "poly": _kernels.KIND_POLY}
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
