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
from sklearn.utils.estimator_checks import parametrize_with_checks

from polyrank import (LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM,
                      SignConstrainedClassifier, SignConstrainedRegressor)

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
    "LabelRanker": {
        "check_sample_weight_equivalence_on_dense_data": "the solver stops at relative duality gap tol=1e-3, so weighted and repeated fits agree to ~1e-3, not 1e-7 (same optimum: tests/test_sopopo_weights.py)",
        "check_sample_weight_equivalence_on_sparse_data": "the solver stops at relative duality gap tol=1e-3, so weighted and repeated fits agree to ~1e-3, not 1e-7 (same optimum: tests/test_sopopo_weights.py)",
    },
    "RankSVM": {},
    "SignConstrainedClassifier": {},
    "SignConstrainedRegressor": {},
    "OrdinalMarginRanker": {},
    "PRank": {},
    "M3LClassifier": {
        "check_sample_weight_equivalence_on_dense_data": "the solver stops when projected gradients are below tau=1e-3, so weighted and repeated fits agree to ~1e-3, not 1e-7 (same optimum: tests/test_m3l_weights.py)",
        "check_sample_weight_equivalence_on_sparse_data": "the solver stops when projected gradients are below tau=1e-3, so weighted and repeated fits agree to ~1e-3, not 1e-7 (same optimum: tests/test_m3l_weights.py)",
    },
}

#: the most expected failures an estimator may declare
MAX_EXPECTED = {"LabelRanker": 4, "M3LClassifier": 4, "RankSVM": 4}


def _expected(estimator):
    return EXPECTED_FAILED_CHECKS[type(estimator).__name__]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected, xfail_strict=True)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILED_CHECKS))
def test_expected_failures_are_few_and_explained(name):
    reasons = EXPECTED_FAILED_CHECKS[name]
    assert len(reasons) <= MAX_EXPECTED.get(name, 0)
    for check, why in reasons.items():
        assert check.startswith("check_") and why.strip() and "\n" not in why
