"""Sorting kernels that run without numba's reference counting.

numba's ``ndarray.sort`` and ``np.argsort`` allocate (so they cannot be
called from a ``_nrt=False`` kernel) and each call site compiles numba's
generic quicksort or merge sort, about a second of compile time a site.
The kernels here sort or select in place with plain loops.
"""

from __future__ import annotations

from numba import njit

__all__ = ["heapsort_prefix", "sift_down"]


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
        sift_down(a, 0, end)


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
