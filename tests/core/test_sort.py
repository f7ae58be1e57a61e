"""polyrank._sort against numpy: the same permutation, the same sorted values."""

from __future__ import annotations

import numpy as np
import pytest

from polyrank._sort import argsort_stable, heapsort_prefix

SIZES = [0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 4097]


def _arrays(n, rng):
    yield rng.normal(size=n)                              # distinct floats
    yield rng.integers(0, 5, n).astype(float)             # many ties
    yield rng.integers(-3, 3, n)                          # ints with ties
    a = rng.integers(0, 4, n).astype(float)
    a[rng.random(n) < 0.2] = np.nan                       # NaNs among ties
    yield a
    yield np.sort(rng.normal(size=n))[::-1].copy()        # reversed runs
    yield np.full(n, 2.5)                                 # all equal


@pytest.mark.parametrize("n", SIZES)
def test_argsort_stable_is_numpys_mergesort(n):
    rng = np.random.default_rng(n)
    for a in _arrays(n, rng):
        got = argsort_stable(a)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.argsort(a, kind="mergesort"))


def test_argsort_stable_on_a_non_contiguous_view():
    a = np.random.default_rng(0).integers(0, 3, 200).astype(float)
    view = a[::3]
    np.testing.assert_array_equal(argsort_stable(view), np.argsort(view, kind="mergesort"))


@pytest.mark.parametrize("n", SIZES)
def test_heapsort_prefix_sorts_only_the_prefix(n):
    rng = np.random.default_rng(n + 1)
    for a in _arrays(n, rng):
        if a.dtype.kind == "f" and np.isnan(a).any():
            continue                                      # NaN order: not defined for the heap
        b = a.copy()
        k = n // 2
        heapsort_prefix(b, k)
        np.testing.assert_array_equal(b[:k], np.sort(a[:k]))
        np.testing.assert_array_equal(b[k:], a[k:])       # the rest untouched
