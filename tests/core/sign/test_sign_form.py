"""The sign solvers' data form, built once (issue 46, item 4), and what the
warm path keeps of it (issue 45, item 2).

A fit used to copy X four times in three forms (dense -> CSR -> CSR with the
bias column -> a CSR copy -> a dense copy).  ``polyrank.sign.data.kernel_form``
writes the storage the kernels read once; with ``warm_start=True`` it is
kept beside the estimator while the data's fingerprint, the bias and the
storage stay (``polyrank._warm.prepared``).
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank import SignConstrainedClassifier, SignConstrainedRegressor
from polyrank._warm import _PREPARED
from polyrank.sign import _kernels as K
from polyrank.sign.data import kernel_form, prepare_data
from polyrank.sign.sdca import sc_sdca_trusted


def _data(n=300, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.3] = 0.0
    y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _peak_ratio(est, X, y) -> float:
    """Peak bytes numpy allocates during ``est.fit(X, y)`` over the bytes of X."""
    est.fit(X, y)                               # compiled, caches warm
    tracemalloc.start()
    try:
        est.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = X.nbytes if not sp.issparse(X) else (X.data.nbytes + X.indices.nbytes
                                                + X.indptr.nbytes)
    return peak / size


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_dense_kernels_equal_the_csr_kernels_bit_for_bit():
    """The dense form's sums are the CSR form's (zeros add exact zeros)."""
    X, y = _data()
    Xc = sp.csr_matrix(X)
    indptr, indices = Xc.indptr.astype(np.int64), Xc.indices.astype(np.int64)
    n, d = X.shape
    rng = np.random.default_rng(1)
    alpha = rng.uniform(0, 1, n) * np.where(y == 1, 1.0, -1.0)
    w = rng.normal(size=d)
    ypm, sw = np.where(y == 1, 1.0, -1.0), np.ones(n)
    assert np.array_equal(K.dense_sqnorms(X), K.row_sqnorms(indptr, Xc.data))
    a, b = np.empty(d), np.empty((d, 1))
    K.dense_xt_alpha(X, alpha, 0.3, a)
    K.xt_alpha(indptr, indices, Xc.data, alpha.reshape(n, 1), 0.3, b)
    assert np.array_equal(a, b[:, 0])
    for code in (K.HINGE, K.SMOOTH_HINGE, K.LOGISTIC):
        assert K.dense_objectives(X, ypm, sw, code, 0.01, 0.1, w, alpha, a) == \
            K.objectives(indptr, indices, Xc.data, ypm, sw, code, 0.01, 0.1, w, alpha, a)
    dense = np.zeros((n, d + 1))
    K.csr_into_dense(Xc.indptr, Xc.indices, Xc.data, dense)
    assert np.array_equal(dense[:, :d], X) and not dense[:, d].any()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("bias", [0.0, 2.5])
def test_kernel_form_is_x_with_its_bias_column(sparse, layout, bias):
    X, _ = _data()
    Xin = sp.csr_matrix(X) if sparse else X
    form = kernel_form(Xin, bias=bias, layout=layout)
    expected = np.hstack([X, np.full((X.shape[0], 1), bias)]) if bias else X
    assert form.layout == layout
    got = form.X if layout == "dense" else form.X.toarray()
    assert np.array_equal(got, expected)
    if layout == "csr":
        assert form.X.indices.dtype == np.int64 and form.X.indptr.dtype == np.int64
        assert form.X.has_sorted_indices
    else:
        assert form.X.flags.c_contiguous
    assert np.allclose(form.sqnorm, (expected ** 2).sum(axis=1))


def test_the_kernel_reads_a_dense_x_without_a_copy():
    """A C-contiguous float64 X without bias is the dense form itself."""
    X, _ = _data(n=400, d=30)
    X[X == 0] = 0.5                             # dense enough for layout "auto"
    form = kernel_form(X, layout="auto")
    assert form.layout == "dense" and np.shares_memory(form.X, X)


@pytest.mark.parametrize("kind", ["dense", "csr", "csr to dense"])
def test_a_fit_makes_at_most_one_copy_of_x(kind):
    """tracemalloc's peak during a fit: one copy of X (with its bias column)
    and O(n) vectors; main copied X four times (peak 6.6, 5.3 and 4.6 times
    the bytes of X for these three)."""
    rng = np.random.default_rng(0)
    if kind == "dense":
        X = rng.normal(size=(20000, 100))
        limit = 1.5                                  # the dense form with bias: 1.01 X
    elif kind == "csr":
        X = sp.random(4000, 500, density=0.05, random_state=0, format="csr")
        limit = 2.5                                  # int64 indices: 4/3 of X, + O(n)
    else:
        X = sp.random(8000, 60, density=0.5, random_state=0, format="csr")
        limit = 2.0                                  # the dense form: 1.34 X here
    y = (X @ rng.normal(size=X.shape[1]) > 0).astype(int)
    assert _peak_ratio(SignConstrainedClassifier(max_iter=2), X, y) < limit


def test_a_warm_path_builds_the_form_once_and_rebuilds_on_change():
    X, y = _data()
    est = SignConstrainedClassifier(warm_start=True, random_state=0)
    est.fit(X, y)
    form = _PREPARED[est][1]
    est.set_params(lam=3e-3).fit(X, y)
    assert _PREPARED[est][1] is form                           # same data: reused
    est.fit(X.copy(), y)
    assert _PREPARED[est][1] is form                           # equal data: reused
    X[1, 0] += 1.0                    # in place, a row the fingerprint does not sample
    est.fit(X, y)
    assert _PREPARED[est][1] is not form                       # values changed: rebuilt
    assert np.array_equal(_PREPARED[est][1].X[:, :-1], X)
    form = _PREPARED[est][1]
    X2 = X.copy()
    X2[0, 0] += 1.0
    est.fit(X2, y)
    assert _PREPARED[est][1] is not form                       # X changed: rebuilt
    assert np.array_equal(_PREPARED[est][1].X[:, :-1], X2)
    form2 = _PREPARED[est][1]
    est.set_params(bias=2.0).fit(X2, y)
    assert _PREPARED[est][1] is not form2                      # bias changed: rebuilt
    assert np.all(_PREPARED[est][1].X[:, -1] == 2.0)
    est.set_params(solver="pegasos").fit(X2, y)
    assert _PREPARED[est][1].layout == "csr"                   # storage changed
    est.set_params(warm_start=False).fit(X2, y)
    assert est not in _PREPARED                                # nothing kept cold


def test_a_reused_form_with_new_targets_fits_as_a_cold_fit():
    """y changed, X the same: the form is reused, the start is cold, and the
    fit equals a fresh cold fit bit for bit."""
    X, y = _data()
    rng = np.random.default_rng(5)
    y2 = rng.integers(0, 2, y.shape[0])
    est = SignConstrainedClassifier(warm_start=True, random_state=0).fit(X, y)
    form = _PREPARED[est][1]
    est.fit(X, y2)
    assert _PREPARED[est][1] is form and est.result_.warm_start.startswith("cold")
    cold = SignConstrainedClassifier(random_state=0).fit(X, y2)
    assert np.array_equal(est.coef_, cold.coef_)
    assert np.array_equal(est.dual_coef_, cold.dual_coef_)


def test_warm_fits_reach_the_cold_objective():
    """The warm schedule (longer shrinking epochs, same gap rule) ends
    within the tolerance of the cold fit's objective, along a grid."""
    X, y = _data(n=600, d=10)
    warm = SignConstrainedRegressor(warm_start=True, random_state=0, tol=1e-8)
    for lam in np.logspace(-2, -4, 6):
        warm.set_params(lam=lam).fit(X, X[:, 0] - X[:, 1])
        cold = SignConstrainedRegressor(lam=lam, random_state=0, tol=1e-8).fit(
            X, X[:, 0] - X[:, 1])
        scale = max(1.0, 0.5 * np.mean((X[:, 0] - X[:, 1]) ** 2))
        assert abs(warm.result_.primal_objective - cold.result_.primal_objective) \
            <= 2e-8 * scale
    clf = SignConstrainedClassifier(warm_start=True, random_state=0)
    for lam in np.logspace(-2, -4, 6):
        clf.set_params(lam=lam).fit(X, y)
        cold = SignConstrainedClassifier(lam=lam, random_state=0).fit(X, y)
        assert clf.result_.warm_start == "used" or lam == 1e-2
        assert clf.result_.gap <= 1e-6 and cold.result_.gap <= 1e-6
        assert abs(clf.result_.primal_objective - cold.result_.primal_objective) <= 2e-6


class _NoJump(np.random.PCG64):
    """PCG64 without ``advance``: the shrinking epochs then draw their
    uniforms one epoch per call."""

    @property
    def advance(self):
        raise AttributeError("advance")


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("warm", [False, True])
def test_one_block_of_uniforms_is_the_stream_of_one_draw_per_epoch(warm, layout):
    """The shrinking epochs draw k |A| uniforms at once and set the generator
    back to where the epochs done would have left it: the fit equals the one
    that draws |A| per epoch, bit for bit."""
    X, y = _data(n=500, d=6)
    ypm = np.where(y == 1, 1.0, -1.0)
    data = prepare_data(X, ypm, "hinge", None, layout=layout)
    alpha0 = sc_sdca_trusted(data, "hinge", 1e-3, shrinking=True, random_state=0).dual \
        if warm else None
    fits = [sc_sdca_trusted(data, "hinge", 5e-4, shrinking=True, alpha0=alpha0,
                            random_state=np.random.Generator(bitgen))
            for bitgen in (np.random.PCG64(7), _NoJump(7))]
    assert fits[0].nit == fits[1].nit
    assert np.array_equal(fits[0].x, fits[1].x) and np.array_equal(fits[0].dual, fits[1].dual)
