"""Numba kernels release the GIL (issue 14 item 7), so threads help.

Every ``numba`` dispatcher defined in the listed solver modules must be
compiled with ``nogil=True``; and fits run in threads (joblib's threading
backend, as ``GridSearchCV(n_jobs=2)`` with ``parallel_backend("threading")``
does) equal the serial fits.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest
from joblib import Parallel, delayed
from numba.core.registry import CPUDispatcher
from sklearn.exceptions import ConvergenceWarning

from polyrank import LabelRanker, M3LClassifier, PRank, RankSVM, SignConstrainedClassifier

#: modules whose kernels must release the GIL
NOGIL_MODULES = [
    "polyrank._csr",
    "polyrank._ranking_kernels",
    "polyrank.m3l._kernels_base",
    "polyrank.m3l._kernels_cd",
    "polyrank.m3l._kernels_dca",
    "polyrank.m3l._kernels_ovr",
    "polyrank.m3l._kernels_smo",
    "polyrank.ordinal._kernels",
    "polyrank.ordinal._svor_kernels",
    "polyrank.ranksvm._kernels",
    "polyrank.sign._kernels",
    "polyrank.sign._loss_kernels",
    "polyrank.sign._multiclass_kernels",
    "polyrank.sign._pegasos_kernels",
    "polyrank.sopopo._kernels",
    "polyrank.sopopo._pass_kernels",
    "polyrank.sopopo._projection_kernels",
    "polyrank.sopopo._shrink_kernels",
]


def _dispatchers(module_name):
    module = importlib.import_module(module_name)
    return {name: obj for name, obj in vars(module).items()
            if isinstance(obj, CPUDispatcher) and obj.__module__ == module_name}


@pytest.mark.parametrize("module_name", NOGIL_MODULES)
def test_every_kernel_releases_the_gil(module_name):
    kernels = _dispatchers(module_name)
    assert kernels, f"{module_name} defines no numba kernels"
    holding = sorted(name for name, k in kernels.items() if not k.targetoptions.get("nogil"))
    assert holding == [], f"{module_name}: kernels without nogil=True: {holding}"


def test_threaded_fits_equal_serial_fits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8))
    y = (X @ rng.normal(size=8) + 0.3 * rng.normal(size=300) > 0).astype(int) \
        + (X[:, 0] > 1).astype(int)
    qid = np.repeat(np.arange(10), 30)
    grid = [0.01, 0.1, 1.0, 10.0]

    def fit(C):
        return RankSVM(C=C).fit(X, y, qid=qid).coef_

    serial = [fit(C) for C in grid]
    threaded = Parallel(n_jobs=2, backend="threading")(delayed(fit)(C) for C in grid)
    for a, b in zip(serial, threaded):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda C: LabelRanker(C=C, random_state=0),
    lambda C: M3LClassifier(C=C, random_state=0),
    lambda C: SignConstrainedClassifier(lam=C / 100, random_state=0),
    lambda C: PRank(max_iter=2, shuffle=True, random_state=int(10 * C)),
], ids=["LabelRanker", "M3LClassifier", "SignConstrainedClassifier", "PRank"])
def test_threaded_fits_of_the_other_solvers_equal_serial_fits(make):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 5))
    Y = (X @ rng.normal(size=(5, 3)) + 0.5 * rng.normal(size=(120, 3)) > 0).astype(int)
    y = Y[:, 0] if not isinstance(make(1.0), (LabelRanker, M3LClassifier)) else Y
    if isinstance(make(1.0), PRank):
        y = Y.sum(1)
    grid = [0.1, 0.3, 1.0, 3.0]

    def fit(C):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return make(C).fit(X, y).decision_function(X)

    serial = [fit(C) for C in grid]
    threaded = Parallel(n_jobs=2, backend="threading")(delayed(fit)(C) for C in grid)
    for a, b in zip(serial, threaded):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
