"""Sorting kernels that run without numba's reference counting.

numba's ``ndarray.sort`` and ``np.argsort`` allocate (so they cannot be
called from a ``_nrt=False`` kernel) and each call site compiles numba's
generic quicksort or merge sort, about a second of compile time a site
(1.6 s for ``np.argsort(kind="mergesort")`` in a fresh process, against
0.1 s for :func:`argsort_stable`).  The kernels here sort or select with
plain loops: in place (:func:`heapsort_prefix`), or into an index array
(:func:`argsort_stable`, the permutation of ``np.argsort(a,
kind="mergesort")`` exactly: a stable sort has only one result).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["heapsort_prefix", "sift_down", "argsort_stable"]

_RUN = 16        # runs sorted by insertion before the bottom-up merges


@njit(cache=True, nogil=True, inline="always")
def _after(x, y):
    """x sorts strictly after y: x > y, NaN after every number (numpy's order)."""
    return x > y or (x != x and y == y)


@njit(cache=True, nogil=True)
def argsort_stable(a):
    """Indices that sort the 1-D array ``a`` ascending, equal elements in
    their original order, NaNs last: the result of ``np.argsort(a,
    kind="mergesort")``.  Insertion sort on runs of 16, then bottom-up
    merges; O(n log n) time, n int64 of extra memory.  Returns int64 (n,)."""
    n = a.shape[0]
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        idx[i] = i
    for lo in range(0, n, _RUN):
        hi = min(lo + _RUN, n)
        for i in range(lo + 1, hi):
            t = idx[i]
            v = a[t]
            j = i - 1
            while j >= lo and _after(a[idx[j]], v):
                idx[j + 1] = idx[j]
                j -= 1
            idx[j + 1] = t
    src = idx
    dst = np.empty(n, dtype=np.int64)
    width = _RUN
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if _after(a[src[i]], a[src[j]]):     # only a strictly smaller right goes first
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        width *= 2
    return src


@njit(cache=True, nogil=True, _nrt=False)
def heapsort_prefix(a, n):
    """Sort a[:n] ascending in place by heapsort (no allocation, so that it
    runs without numba's reference counting; O(n log n))."""
    for start in range(n // 2 - 1, -1, -1):
        sift_down(a, start, n)
    for end in range(n - 1, 0, -1):
        t = a[0]
        a[0] = a[end]
        a[end] = t
        sift_down(a, np.int64(0), end)     # not a literal 0: one specialisation


@njit(cache=True, nogil=True, _nrt=False)
def sift_down(a, root, n):
    """Restore the max-heap a[:n] below root."""
    v = a[root]
    while True:
        c = 2 * root + 1
        if c >= n:
            break
        if c + 1 < n and a[c + 1] > a[c]:
            c += 1
        if a[c] <= v:
            break
        a[root] = a[c]
        root = c
    a[root] = v
