"""The "real data, defaults" tier (issue 29, item 6): what the defaults
matrix (``tests/core/test_defaults_matrix.py``, issue 42 item 4: every
estimator, kernel, raw and standardised features, bundled set, against its
peer) does not cover.

* yeast in arbitrary units (every column scaled by 10^U(-3, 3), a
  reproducible stand-in for features in units nobody chose): LabelRanker
  and M3LClassifier give the
  :class:`~polyrank.exceptions.FeatureScaleWarning` before the solve, and
  inside ``make_pipeline(StandardScaler(), ...)`` score as well as
  one-vs-rest LinearSVC (test label ranking loss; Hamming loss), within
  :data:`MARGIN`;
* OrdinalMarginRanker and PRank: 3-fold CV test MAE on red wine within
  :data:`MARGIN` of mord's LogisticAT, every fold quiet and converged.

Marked ``realdata`` (``pytest -m "not realdata"`` skips it).
"""

from __future__ import annotations

import warnings

import pytest
from conftest import random_scales, warns_before_the_solve
from sklearn.metrics import hamming_loss, label_ranking_loss
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    PRank,
)
from polyrank.datasets import load_winequality_red, load_yeast
from polyrank.exceptions import FeatureScaleWarning
from polyrank.result import STATUS_COMPLETED, STATUS_CONVERGED

pytestmark = [pytest.mark.realdata, pytest.mark.slow]

#: how much worse than its peer a default model may score (in the units of
#: the score: losses, accuracies, NDCG and R^2 all lie in [0, 1] here)
MARGIN = 0.01


# ------------------------------------------------------------------ data

@pytest.fixture(scope="module")
def yeast():
    d = load_yeast()
    return d.X_train, d.Y_train, d.X_test, d.Y_test


# ------------------------------------------------------------------ helpers

def _prep(estimator, scaled: bool, sparse: bool = False):
    if not scaled:
        return estimator
    return make_pipeline(StandardScaler(with_mean=not sparse), estimator)


def _ends_well(est) -> None:
    """Converged; or, for an online algorithm (PRank), its passes done."""
    ok = (STATUS_CONVERGED, STATUS_COMPLETED) if isinstance(est, PRank) else (STATUS_CONVERGED,)
    assert est.result_.status in ok, est.result_.message


def _quiet_fit(model, X, y, **fit_params):
    """Fit with every warning an error; return the fitted polyrank estimator."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, y, **fit_params)
    est = model[-1] if hasattr(model, "steps") else model
    _ends_well(est)
    return est


def _no_worse(ours: float, peer: float, higher_is_better: bool, what: str) -> None:
    slack = ours - peer if higher_is_better else peer - ours
    assert slack >= -MARGIN, (f"{what}: ours {ours:.4f}, peer {peer:.4f} "
                              f"({'higher' if higher_is_better else 'lower'} is better)")


def _warns_before_the_solve(estimator, X, y):
    """The FeatureScaleWarning, naming the pipeline, comes before the first
    iteration (the fit is stopped there: the point is the early warning,
    not the crawl)."""
    early = warns_before_the_solve(estimator, X, y, FeatureScaleWarning)
    assert len(early) == 1
    fix = f"make_pipeline(StandardScaler(), {type(estimator).__name__}())"
    assert fix in str(early[0].message)


# ------------------------------------------------------------------ label columns

#: the score each label-column estimator is compared on, and the method giving
#: its input: LabelRanker ranks labels, M3LClassifier predicts label sets
_YEAST_SCORE = {LabelRanker: (label_ranking_loss, "decision_function"),
                M3LClassifier: (hamming_loss, "predict")}


@pytest.mark.parametrize("estimator", [LabelRanker, M3LClassifier])
@pytest.mark.parametrize("units, scaled", [("arbitrary", True)])
def test_label_columns_on_yeast_score_as_well_as_one_vs_rest(yeast, estimator, units, scaled):
    """yeast in arbitrary units (:func:`random_scales`) standardised (as
    bundled, raw and standardised: the defaults matrix)."""
    X, Y, Xt, Yt = yeast
    if units == "arbitrary":
        X, Xt = random_scales(X), random_scales(Xt)
    model = _prep(estimator(random_state=0), scaled)
    _quiet_fit(model, X, Y)
    peer = _prep(OneVsRestClassifier(LinearSVC()), scaled).fit(X, Y)
    loss, method = _YEAST_SCORE[estimator]
    _no_worse(loss(Yt, getattr(model, method)(Xt)), loss(Yt, getattr(peer, method)(Xt)), False,
              f"{estimator.__name__} test {loss.__name__} on yeast ({units} units)")


@pytest.mark.parametrize("estimator", [LabelRanker, M3LClassifier])
def test_yeast_in_arbitrary_units_warns_before_the_solve(yeast, estimator):
    X, Y, _, _ = yeast
    _warns_before_the_solve(estimator(random_state=0), random_scales(X), Y)


# ------------------------------------------------------------------ ordinal

@pytest.mark.parametrize("estimator", [OrdinalMarginRanker, PRank])
def test_ordinal_rankers_on_wine_have_the_mae_of_mord(estimator):
    """Issue 29's target: 3-fold CV MAE on red wine within 0.01 of mord's
    LogisticAT, every fold's fit quiet and converged (PRank: its pass done).
    Measured 2026-11-28: OrdinalMarginRanker 0.4415 (c = 10: 0.4472), LogisticAT 0.4447; the
    paper's last-iterate PRank (average=False) has a test MAE of 0.77 on one
    split, worse than predicting the most frequent grade (0.73)."""
    mord = pytest.importorskip("mord")
    d = load_winequality_red()
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    maes = {}
    for name, model in (("ours", _prep(estimator(), True)),
                        ("peer", _prep(mord.LogisticAT(), True))):
        with warnings.catch_warnings():
            warnings.simplefilter("error" if name == "ours" else "ignore")
            cv = cross_validate(model, d.X, d.quality, cv=folds, return_estimator=True,
                                scoring="neg_mean_absolute_error", error_score="raise")
        if name == "ours":
            for fitted in cv["estimator"]:
                _ends_well(fitted[-1])
        maes[name] = -cv["test_score"].mean()
    _no_worse(maes["ours"], maes["peer"], False,
              f"{estimator.__name__} 3-fold CV MAE on red wine")
