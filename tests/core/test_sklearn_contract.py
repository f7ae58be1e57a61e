"""scikit-learn's estimator checks over all seven estimators.

``parametrize_with_checks`` runs every check of the installed scikit-learn
on each estimator with its default parameters (plus a fixed seed).  The
only checks allowed to fail are listed in ``EXPECTED_FAILED_CHECKS``, each
with a one-line reason why passing is impossible by design; they run as
strict xfails, so a listed check that starts passing fails this suite and
must be removed from the list.  ``MAX_EXPECTED`` caps each list (issue 14).
"""

from __future__ import annotations

import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    PRank,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
)

ESTIMATORS = [
    LabelRanker(random_state=0),
    RankSVM(),
    SignConstrainedClassifier(random_state=0),
    SignConstrainedRegressor(random_state=0),
    OrdinalMarginRanker(),
    PRank(random_state=0),
    M3LClassifier(random_state=0),
]

#: check name -> one-line reason, per estimator class
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "LabelRanker": {},
    "RankSVM": {},
    "SignConstrainedClassifier": {},
    "SignConstrainedRegressor": {},
    "OrdinalMarginRanker": {},
    "PRank": {},
    "M3LClassifier": {},
}

#: The sample-weight equivalence checks compare a weighted fit with a fit on
#: repeated rows to rtol 1e-7.  The iterative solvers stop at a duality gap
#: (relative 1e-3 for SOPOPO, absolute 1e-6 for SC-SDCA) or at projected
#: gradients below tol = 1e-3 (M3L), so at their defaults two fits of the same
#: optimum agree to ~1e-3 only; these checks therefore run at a tolerance that
#: resolves 1e-7 (as scikit-learn's own ``PER_ESTIMATOR_CHECK_PARAMS`` do for
#: its iterative solvers).  The regressor's ridge problem with lam=1e-3 on
#: 15 rows x 30 features is so ill-conditioned that a gap at float precision
#: still leaves w off by ~1e-6, hence lam=1 there.
_WEIGHT_CHECKS = ("check_sample_weight_equivalence_on_dense_data",
                  "check_sample_weight_equivalence_on_sparse_data")
CHECK_PARAMS: dict[str, dict] = {
    "LabelRanker": dict(tol=1e-12, max_iter=100_000),
    "SignConstrainedClassifier": dict(tol=1e-12, max_iter=100_000),
    "SignConstrainedRegressor": dict(tol=1e-15, lam=1.0, max_iter=100_000),
    "M3LClassifier": dict(tol=1e-10, max_iter=1_000_000),
}

#: the most expected failures an estimator may declare
MAX_EXPECTED = {"LabelRanker": 4, "M3LClassifier": 4, "RankSVM": 4}


def _expected(estimator):
    return EXPECTED_FAILED_CHECKS[type(estimator).__name__]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_compatible_estimator(estimator, check):
    name = getattr(check, "func", check).__name__
    params = CHECK_PARAMS.get(type(estimator).__name__)
    if name in _WEIGHT_CHECKS and params:
        estimator = clone(estimator).set_params(**params)
    check(estimator)


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILED_CHECKS))
def test_expected_failures_are_few_and_explained(name):
    reasons = EXPECTED_FAILED_CHECKS[name]
    assert len(reasons) <= MAX_EXPECTED.get(name, 0)
    for check, why in reasons.items():
        assert check.startswith("check_") and why.strip() and "\n" not in why
