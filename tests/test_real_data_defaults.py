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
default suite (about a minute on 2 cores).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.metrics import hamming_loss, label_ranking_loss, r2_score
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from polyrank import (LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM,
                      SignConstrainedClassifier, SignConstrainedRegressor)
from polyrank.datasets import (load_mq2008, load_phishing, load_w8a, load_winequality_red,
                               load_yeast)
from polyrank.exceptions import FeatureScaleWarning
from polyrank.metrics import mean_ndcg
from polyrank.result import STATUS_CONVERGED

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


def random_scales(X, seed=0):
    """X with every column multiplied by 10^U(-3, 3)."""
    return X * 10.0 ** np.random.default_rng(seed).uniform(-3, 3, X.shape[1])


# ------------------------------------------------------------------ helpers

def _prep(estimator, scaled: bool, sparse: bool = False):
    if not scaled:
        return estimator
    return make_pipeline(StandardScaler(with_mean=not sparse), estimator)


def _quiet_fit(model, X, y, **fit_params):
    """Fit with every warning an error; return the fitted polyrank estimator."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, y, **fit_params)
    est = model[-1] if hasattr(model, "steps") else model
    assert est.result_.status == STATUS_CONVERGED, est.result_.message
    return est


def _no_worse(ours: float, peer: float, higher_is_better: bool, what: str) -> None:
    slack = ours - peer if higher_is_better else peer - ours
    assert slack >= -MARGIN, (f"{what}: ours {ours:.4f}, peer {peer:.4f} "
                              f"({'higher' if higher_is_better else 'lower'} is better)")


def _warns_before_the_solve(estimator, X, y):
    """The FeatureScaleWarning comes before the first iteration (the fit is
    stopped there: the point is the early warning, not the crawl)."""
    seen = []

    def first(info):
        seen.append(any(w.category is FeatureScaleWarning for w in record))
        raise StopIteration

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        estimator.fit(X, y, callback=first)
    assert seen == [True], [str(w.message) for w in record]
    text = next(str(w.message) for w in record if w.category is FeatureScaleWarning)
    assert f"make_pipeline(StandardScaler(), {type(estimator).__name__}())" in text


# ------------------------------------------------------------------ label columns

@pytest.mark.parametrize("scaled", [False, True], ids=["raw", "scaled"])
def test_label_ranker_on_yeast_ranks_labels_as_well_as_one_vs_rest(yeast, scaled):
    X, Y, Xt, Yt = yeast
    model = _prep(LabelRanker(random_state=0), scaled)
    _quiet_fit(model, X, Y)
    peer = _prep(OneVsRestClassifier(LinearSVC()), scaled).fit(X, Y)
    _no_worse(label_ranking_loss(Yt, model.decision_function(Xt)),
              label_ranking_loss(Yt, peer.decision_function(Xt)), False,
              "LabelRanker test label ranking loss on yeast")


@pytest.mark.parametrize("scaled", [False, True], ids=["raw", "scaled"])
def test_m3l_on_yeast_has_the_hamming_loss_of_one_vs_rest(yeast, scaled):
    X, Y, Xt, Yt = yeast
    model = _prep(M3LClassifier(random_state=0), scaled)
    _quiet_fit(model, X, Y)
    peer = _prep(OneVsRestClassifier(LinearSVC()), scaled).fit(X, Y)
    _no_worse(hamming_loss(Yt, model.predict(Xt)), hamming_loss(Yt, peer.predict(Xt)), False,
              "M3LClassifier test Hamming loss on yeast")


@pytest.mark.parametrize("estimator", [LabelRanker, M3LClassifier])
def test_yeast_in_arbitrary_units_warns_first_and_the_pipeline_fixes_it(yeast, estimator):
    X, Y, Xt, Yt = yeast
    Xs, Xts = random_scales(X), random_scales(Xt)
    _warns_before_the_solve(estimator(random_state=0), Xs, Y)
    model = _prep(estimator(random_state=0), True)
    _quiet_fit(model, Xs, Y)
    peer = _prep(OneVsRestClassifier(LinearSVC()), True).fit(Xs, Y)
    if estimator is LabelRanker:
        ours = label_ranking_loss(Yt, model.decision_function(Xts))
        theirs = label_ranking_loss(Yt, peer.decision_function(Xts))
    else:
        ours, theirs = hamming_loss(Yt, model.predict(Xts)), hamming_loss(Yt, peer.predict(Xts))
    _no_worse(ours, theirs, False, f"{estimator.__name__} on yeast in arbitrary units")


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

#: their defaults are being changed on another branch (issue 29, item 2; issue
#: 28 for PRank's silent cap); measured here on 2026-11-28: OrdinalMarginRanker
#: test MAE 0.4165 against mord's 0.3977, PRank() ends its single default pass
#: with status "maximum number of iterations reached"
_ORDINAL_TODAY = pytest.mark.xfail(strict=False, reason="ordinal defaults are being changed "
                                   "on another branch (issue 29 item 2, issue 28)")


@pytest.mark.parametrize("estimator", [pytest.param(OrdinalMarginRanker, marks=_ORDINAL_TODAY),
                                       pytest.param(PRank, marks=_ORDINAL_TODAY)])
def test_ordinal_rankers_on_wine_have_the_mae_of_mord(wine, estimator):
    mord = pytest.importorskip("mord")
    X, Xt, q, qt = wine
    model = _prep(estimator(), True)
    _quiet_fit(model, X, q)
    peer = _prep(mord.LogisticAT(), True).fit(X, q)
    _no_worse(np.abs(model.predict(Xt) - qt).mean(), np.abs(peer.predict(Xt) - qt).mean(),
              False, f"{estimator.__name__} test MAE on red wine")
