"""The row kernels of ``polyrank._csr`` against numpy, dense and CSR: the
SIMD sums (fastmath reassoc on these loops only) agree with numpy to
rounding, and the updates touch only the listed labels."""

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank._csr import label_axpy, label_dot, row_arrays, rows_axpy, rows_dot


@pytest.mark.parametrize("sparse", [False, True])
def test_row_kernels_match_numpy(sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 67))
    X[rng.random(X.shape) < 0.6] = 0.0
    W = rng.normal(size=(9, 67))
    rows = row_arrays(sp.csr_matrix(X) if sparse else X)
    for i in (0, 7, 29):
        for a in (0, 4, 8):
            assert label_dot(W, a, *rows, i) == pytest.approx(W[a] @ X[i], rel=1e-12,
                                                              abs=1e-12)
        idx = np.array([5, 1, 7], dtype=np.int64)
        f = np.full(9, np.nan)
        rows_dot(W, idx, 2, *rows, i, f)                  # only the first two labels
        np.testing.assert_allclose(f[[5, 1]], W[[5, 1]] @ X[i], rtol=1e-12, atol=1e-12)
        assert np.isnan(f[[0, 2, 3, 4, 6, 7, 8]]).all()
        dc = np.zeros(9)
        dc[[5, 7]] = [0.5, -2.0]
        expected = W.copy()
        expected[5] += 0.5 * X[i]                         # label 7 is not in idx[:2]
        rows_axpy(W, idx, 2, dc, *rows, i)
        np.testing.assert_allclose(W, expected, rtol=1e-12, atol=1e-12)
        label_axpy(W, 3, -1.5, *rows, i)
        expected[3] -= 1.5 * X[i]
        np.testing.assert_allclose(W, expected, rtol=1e-12, atol=1e-12)
