"""Validate once (``CONTRIBUTING.md``, issue 32 item 5): an estimator checks
its X in ``fit`` and calls the driver's trusted path, which does not check
it again; the public driver checks it exactly once too."""

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank import OrdinalMarginRanker, PRank, SignConstrainedClassifier, SignConstrainedRegressor
from polyrank.ordinal import make_instance, prank, solve_ordinal, solve_svor
from polyrank.sign import sc_pegasos, sc_sdca
from polyrank.validation import _arrays


@pytest.fixture
def x_checks(monkeypatch):
    """The number of full checks of a design matrix (every one of them ends
    in ``check_magnitude``: ``validate_X`` and ``check_design``)."""
    calls = []
    real = _arrays.check_magnitude

    def counted(X, name="X"):
        calls.append(name)
        return real(X, name)

    monkeypatch.setattr(_arrays, "check_magnitude", counted)
    return calls


def _ordinal(sparse=False):
    X, labels = make_instance(40, separable=False, seed=0)
    return (sp.csr_matrix(X) if sparse else X), labels


@pytest.mark.parametrize("make", [
    lambda: OrdinalMarginRanker(),
    lambda: OrdinalMarginRanker(loss="hinge"),
    lambda: OrdinalMarginRanker(formulation="paper"),
    lambda: OrdinalMarginRanker(formulation="paper", representation="dual", c=1.0),
    lambda: PRank(max_iter=2),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_ordinal_estimators_check_x_once(x_checks, make, sparse):
    X, labels = _ordinal(sparse)
    make().fit(X, labels, **({} if isinstance(make(), PRank) else
                             {"sample_weight": np.ones(labels.size)}))
    assert x_checks == ["X"]


@pytest.mark.parametrize("driver", [
    lambda X, y: solve_ordinal(X, y, margin="soft"),
    lambda X, y: solve_svor(X, y),
    lambda X, y: prank(X, y),
])
def test_ordinal_drivers_check_x_once(x_checks, driver):
    driver(*_ordinal())
    assert x_checks == ["X"]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("solver", ["sdca", "pegasos"])
@pytest.mark.parametrize("sparse", [False, True])
def test_sign_estimators_check_x_once(x_checks, solver, sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=60)
    Xf = sp.csr_matrix(X) if sparse else X
    kw = dict(solver=solver, max_iter=None if solver == "sdca" else 200, random_state=0)
    SignConstrainedRegressor(**kw).fit(Xf, y, sample_weight=np.ones(60))
    SignConstrainedClassifier(**kw).fit(Xf, y > 0)
    assert x_checks == ["X", "X"]


@pytest.mark.parametrize("driver", [sc_sdca, sc_pegasos])
def test_sign_drivers_check_x_once(x_checks, driver):
    X = np.array([[1.0, 2.0], [2.0, -1.0], [-1.0, -1.0], [-2.0, 1.0]])
    driver(X, np.array([1.0, 1.0, -1.0, -1.0]), "hinge", 0.1, [1, -1], random_state=0)
    assert x_checks == ["X"]
