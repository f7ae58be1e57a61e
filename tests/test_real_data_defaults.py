"""The "real data, defaults" tier (issue 29, item 6).

Every estimator with its default parameters, inside
``make_pipeline(StandardScaler(), ...)`` and without the scaler, on every
bundled real data set whose task it fits, against the simple peer named in
its docstring, fitted on the same rows with the same preprocessing:

=========================  ======================  ===============================
estimator                  data (task)             peer (score)
=========================  ======================  ===============================
LabelRanker                yeast (label sets),     one-vs-rest LinearSVC (test
                           red wine (6 grades)     label ranking loss; accuracy)
M3LClassifier              yeast, red wine         one-vs-rest LinearSVC (test
                                                   Hamming loss; accuracy)
RankSVM                    MQ2008 (queries)        pointwise Ridge (test mean NDCG)
SignConstrainedClassifier  phishing, w8a, red      LinearSVC (test accuracy)
                           wine (quality >= 6)
SignConstrainedRegressor   red wine (quality)      Ridge (test R^2)
OrdinalMarginRanker, PRank red wine (grades)       mord LogisticAT (test MAE)
=========================  ======================  ===============================

Each case asserts: no warning at all (warnings are errors), a converged
solve (``result_.status``), and a test score no worse than the peer's by
more than :data:`MARGIN` (0.01 on losses, accuracies, NDCG and R^2 alike).
Sparse sets (phishing, w8a) use ``StandardScaler(with_mean=False)``.

Raw data that is not standardised (red wine: feature standard deviations
from 0.0019 to 33; yeast with columns scaled by 10^U(-3, 3), a
reproducible stand-in for features in arbitrary units) must instead give
the :class:`~polyrank.exceptions.FeatureScaleWarning` before the first
iteration, for the estimators whose dual solvers crawl on such data; the
pipeline is the fix the warning names.  The bundled yeast, MQ2008,
phishing and w8a are already on comparable scales, so their raw fits must
be quiet and as good as the peer.

Marked ``realdata`` (``pytest -m "not realdata"`` skips it); it runs in the
default suite (about 35 s on 2 cores).
"""

from __future__ import annotations

import warnings

import pytest
from conftest import random_scales, warns_before_the_solve
from sklearn.linear_model import Ridge
from sklearn.metrics import hamming_loss, label_ranking_loss, r2_score
from sklearn.model_selection import StratifiedKFold, cross_validate, train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    PRank,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
)
from polyrank.datasets import load_mq2008, load_phishing, load_w8a, load_winequality_red, load_yeast
from polyrank.exceptions import FeatureScaleWarning
from polyrank.metrics import mean_ndcg
from polyrank.result import STATUS_COMPLETED, STATUS_CONVERGED

pytestmark = pytest.mark.realdata

#: how much worse than its peer a default model may score (in the units of
#: the score: losses, accuracies, NDCG and R^2 all lie in [0, 1] here)
MARGIN = 0.01


# ------------------------------------------------------------------ data

@pytest.fixture(scope="module")
def yeast():
    d = load_yeast()
    return d.X_train, d.Y_train, d.X_test, d.Y_test


@pytest.fixture(scope="module")
def wine():
    """Red wine, a stratified third held out: X, quality (3..8)."""
    d = load_winequality_red()
    return train_test_split(d.X, d.quality, test_size=1 / 3, random_state=0,
                            stratify=d.quality)


def _split(X, y):
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


@pytest.fixture(scope="module")
def phishing():
    return _split(*load_phishing())


@pytest.fixture(scope="module")
def w8a():
    return _split(*load_w8a())


@pytest.fixture(scope="module")
def mq2008():
    return load_mq2008()


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
@pytest.mark.parametrize("units, scaled", [("bundled", False), ("bundled", True),
                                           ("arbitrary", True)])
def test_label_columns_on_yeast_score_as_well_as_one_vs_rest(yeast, estimator, units, scaled):
    """yeast as bundled (rows of norm 1) raw and standardised, and yeast in
    arbitrary units (:func:`random_scales`) standardised."""
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


@pytest.mark.parametrize("estimator", [LabelRanker, M3LClassifier])
def test_label_columns_on_wine_grades_classify_as_well_as_linear_svc(wine, estimator):
    X, Xt, y, yt = wine
    model = _prep(estimator(random_state=0), True)
    _quiet_fit(model, X, y)
    peer = _prep(LinearSVC(), True).fit(X, y)
    _no_worse(model.score(Xt, yt), peer.score(Xt, yt), True,
              f"{estimator.__name__} test accuracy on red wine grades")
    _warns_before_the_solve(estimator(random_state=0), X, y)


# ------------------------------------------------------------------ RankSVM

@pytest.mark.parametrize("scaled", [False, True], ids=["raw", "scaled"])
def test_ranksvm_on_mq2008_ranks_better_than_pointwise_ridge(mq2008, scaled):
    d = mq2008
    model = _prep(RankSVM(), scaled)
    _quiet_fit(model, d.X_train, d.y_train,
               **{"ranksvm__qid" if scaled else "qid": d.qid_train})
    peer = _prep(Ridge(), scaled).fit(d.X_train, d.y_train)
    _no_worse(mean_ndcg(d.y_test, model.predict(d.X_test), d.qid_test),
              mean_ndcg(d.y_test, peer.predict(d.X_test), d.qid_test), True,
              "RankSVM test mean NDCG on MQ2008")


# ------------------------------------------------------------------ sign constraints

@pytest.mark.parametrize("name", ["phishing", "w8a"])
@pytest.mark.parametrize("scaled", [False, True], ids=["raw", "scaled"])
def test_sign_classifier_on_sparse_sets_classifies_as_well_as_linear_svc(request, name,
                                                                        scaled):
    X, Xt, y, yt = request.getfixturevalue(name)
    model = _prep(SignConstrainedClassifier(random_state=0), scaled, sparse=True)
    _quiet_fit(model, X, y)
    peer = _prep(LinearSVC(), scaled, sparse=True).fit(X, y)
    _no_worse(model.score(Xt, yt), peer.score(Xt, yt), True,
              f"SignConstrainedClassifier test accuracy on {name}")


def test_sign_estimators_on_wine(wine):
    X, Xt, q, qt = wine
    good, good_t = (q >= 6).astype(int), (qt >= 6).astype(int)
    clf = _prep(SignConstrainedClassifier(random_state=0), True)
    _quiet_fit(clf, X, good)
    peer = _prep(LinearSVC(), True).fit(X, good)
    _no_worse(clf.score(Xt, good_t), peer.score(Xt, good_t), True,
              "SignConstrainedClassifier test accuracy on red wine (quality >= 6)")
    reg = _prep(SignConstrainedRegressor(random_state=0), True)
    _quiet_fit(reg, X, q.astype(float))
    ridge = _prep(Ridge(), True).fit(X, q)
    _no_worse(r2_score(qt, reg.predict(Xt)), r2_score(qt, ridge.predict(Xt)), True,
              "SignConstrainedRegressor test R^2 on red wine")
    _warns_before_the_solve(SignConstrainedClassifier(random_state=0), X, good)
    _warns_before_the_solve(SignConstrainedRegressor(random_state=0), X, q.astype(float))


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
