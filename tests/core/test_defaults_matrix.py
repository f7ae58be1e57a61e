"""The defaults matrix (issue 42, item 4): every estimator, every kernel it
offers, raw and standardised features, on every bundled real data set whose
task it fits, against the peer a user would pick, with the peer's defaults.

=========================  =========  ==========================  =================================
estimator                  kernels    data (metric)               peer (scikit-learn / mord)
=========================  =========  ==========================  =================================
LabelRanker                linear,    yeast (label ranking        one-vs-rest LinearSVC; for rbf
                           rbf, poly, loss), red-wine grades      and poly one-vs-rest SVC with
                           precomp-   (accuracy); phishing, w8a   the same kernel (gamma, coef0),
                           uted       (accuracy, linear: sparse)  SVC(kernel="precomputed") on
                                                                  the Gram X X' + 1 (LinearGram);
                                                                  LinearSVC on the binary sets
M3LClassifier              linear,    the same (Hamming loss on   the same
                           rbf, poly  yeast; no precomputed)
SignConstrainedClassifier  linear     phishing, w8a, red wine     LinearSVC
                                      quality >= 6 (accuracy)
SignConstrainedRegressor   linear     red-wine quality, MQ2008    Ridge
                                      relevance (R^2)
RankSVM                    linear     MQ2008, red wine as one     pointwise Ridge
                                      query (mean NDCG)
OrdinalMarginRanker,       linear,    red-wine grades, MQ2008     mord.LogisticAT; for rbf and
PRank                      rbf, poly  grades 0..2 (MAE)           poly SVC with the same kernel
=========================  =========  ==========================  =================================

Subsamples keep the tier's runtime reasonable, drawn deterministically
(stratified, ``random_state=0``): 2,000 of MQ2008's 9,630 training rows for
the ordinal estimators (``MQ2K_ROWS``), 10,000 of w8a's 49,749 rows for the
label-column estimators (``W8A_ROWS``, then split 70/30 as w8a).  :data:`SETS`
lists the sets each estimator's task fits and why the others do not.

Every row fits the estimator with its defaults (``random_state=0``, and
``kernel`` when not linear) and the peer with its own defaults (for a kernel
peer, our kernel with its default parameters as the multi-label estimators
have them: gamma = 1 / n_features, which is SVC's ``gamma="scale"`` on
standardised X, coef0 = 1, degree 3; the ordinal estimators' poly default
gamma = 1 / max_i ||x_i||^2 is not given to the peer, whose gamma =
1 / n_features scores better on red wine) on the same rows
with the same preprocessing: the estimator itself ("raw") or
``make_pipeline(StandardScaler(), ...)`` ("std"; ``with_mean=False`` on the
sparse phishing and w8a).  What a row asserts is its expectation:

* ``"quiet"``: no warning at all, a converged solve (PRank: its pass done),
  and a test score no worse than the peer's by more than the tolerance of
  :data:`TOLERANCE`, which is the tolerance the estimator's docstring states
  (``test_docstrings_state_the_tolerances``);
* ``"scale"``: raw red wine (feature standard deviations from 0.0019 to 33)
  for the estimators whose solvers crawl or whose kernel sees one feature on
  it: the :class:`~polyrank.exceptions.FeatureScaleWarning` naming the
  pipeline before the first iteration (the fit is stopped there; the
  standardised row is the one whose score counts).

* ``"advice"``: a default that stops at ``max_iter`` on data where the
  peer does no better (:data:`ADVICE`): the fit's one ConvergenceWarning
  gives the advice that fits the cause (MaxAbsScaler for sparse X
  standardised without centring; a Gram matrix computed from standardised
  features), and the fit that follows it converges without a warning and
  scores within the tolerance of the row's peer.

Rows whose default does not hold are strict xfails carrying the measured
numbers (:data:`KNOWN`, empty today): a fix turns them into failures to
remove from it.
The measured numbers are in every estimator's docstring ("Defaults,
measured" in its Notes). Marked ``realdata``; the rows of more than about
5 s are marked ``slow`` too.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import pytest
from conftest import warns_before_the_solve
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.metrics import (
    accuracy_score,
    hamming_loss,
    label_ranking_loss,
    mean_absolute_error,
    r2_score,
)
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.svm import SVC, LinearSVC

import polyrank
from polyrank.datasets import load_mq2008, load_phishing, load_w8a, load_winequality_red, load_yeast
from polyrank.exceptions import FeatureScaleWarning
from polyrank.metrics import mean_ndcg
from polyrank.result import STATUS_COMPLETED, STATUS_CONVERGED, STATUS_MAX_ITER

pytestmark = pytest.mark.realdata

#: how much worse than its peer a default model may score, per estimator and
#: metric (in the metric's units; every metric here lies in [0, 1] except
#: MAE, in grades).  Each estimator's docstring states its own.
TOLERANCE = {
    ("LabelRanker", "label ranking loss"): 0.01,
    ("LabelRanker", "accuracy"): 0.01,
    ("M3LClassifier", "Hamming loss"): 0.005,
    ("M3LClassifier", "accuracy"): 0.01,
    ("SignConstrainedClassifier", "accuracy"): 0.01,
    ("SignConstrainedRegressor", "R^2"): 0.01,
    ("RankSVM", "mean NDCG"): 0.01,
    ("OrdinalMarginRanker", "MAE"): 0.02,
    ("PRank", "MAE"): 0.02,
}

#: metric name -> (function(y_true, output), higher is better)
METRICS = {
    "label ranking loss": (label_ranking_loss, False),
    "Hamming loss": (hamming_loss, False),
    "accuracy": (accuracy_score, True),
    "R^2": (r2_score, True),
    "MAE": (mean_absolute_error, False),
}


# ------------------------------------------------------------------ data

@dataclass(frozen=True)
class Data:
    """One bundled set: train and test rows, the metric, the estimator
    output the metric reads, whether X is sparse."""

    X: object
    y: object
    Xt: object
    yt: object
    metric: str
    sparse: bool = False
    qid: object = None
    qid_t: object = None


#: deterministic subsamples (stratified, ``random_state=0``) that keep the
#: tier's runtime reasonable: MQ2008's 9,630 training rows for the ordinal
#: estimators (a kernel's Gram matrix and SVOR's dual over them), w8a's
#: 49,749 rows for the multi-label estimators (a 0/1 target as one label)
MQ2K_ROWS = 2000
W8A_ROWS = 10000


def _wine():
    d = load_winequality_red()
    return train_test_split(d.X, d.quality, test_size=1 / 3, random_state=0,
                            stratify=d.quality)


def _split(X, y):
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


@cache
def dataset(name: str, metric: str) -> Data:
    """The bundled set ``name`` for the task its ``metric`` names."""
    if name == "yeast":
        d = load_yeast()
        return Data(d.X_train, d.Y_train, d.X_test, d.Y_test, metric)
    if name == "wine":
        X, Xt, q, qt = _wine()
        if metric == "accuracy":           # quality >= 6, a binary task
            return Data(X, (q >= 6).astype(int), Xt, (qt >= 6).astype(int), metric)
        if metric == "R^2":
            return Data(X, q.astype(float), Xt, qt.astype(float), metric)
        return Data(X, q, Xt, qt, metric)
    if name == "wine grades":
        X, Xt, q, qt = _wine()
        return Data(X, q, Xt, qt, metric)
    if name == "mq2008":
        d = load_mq2008()
        if metric == "R^2":                # the relevance grades as a regression target
            return Data(d.X_train, d.y_train, d.X_test, d.y_test, metric)
        return Data(d.X_train, d.y_train, d.X_test, d.y_test, metric, qid=d.qid_train,
                    qid_t=d.qid_test)
    if name == "mq2008 grades":            # ordinal 0 < 1 < 2, MQ2K_ROWS training rows
        d = load_mq2008()
        X, _, y, _ = train_test_split(d.X_train, d.y_train.astype(int), train_size=MQ2K_ROWS,
                                      random_state=0, stratify=d.y_train)
        return Data(X, y, d.X_test, d.y_test.astype(int), metric)
    if name == "wine ranking":             # quality as relevance, the whole set one query
        X, Xt, q, qt = _wine()
        return Data(X, q.astype(float), Xt, qt.astype(float), metric,
                    qid=np.zeros(len(q), dtype=np.int64), qid_t=np.zeros(len(qt), dtype=np.int64))
    if name == "w8a sample":               # W8A_ROWS rows of w8a, then split as w8a
        X, y = load_w8a()
        X, _, y, _ = train_test_split(X, y, train_size=W8A_ROWS, random_state=0, stratify=y)
        X, Xt, y, yt = _split(X, y)
        return Data(X, y, Xt, yt, metric, sparse=True)
    X, Xt, y, yt = _split(*(load_phishing() if name == "phishing" else load_w8a()))
    return Data(X, y, Xt, yt, metric, sparse=True)


# ------------------------------------------------------------------ rows

@dataclass(frozen=True)
class Row:
    """One row of the matrix; ``known`` names a default that does not hold
    (the row is a strict xfail with the measured numbers)."""

    estimator: str
    kernel: str
    data: str
    metric: str
    scaled: bool
    expect: str = "quiet"
    slow: bool = False
    known: str = ""

    @property
    def id(self) -> str:
        return (f"{self.estimator}-{self.kernel}-{self.data.replace(' ', '_')}-"
                f"{'std' if self.scaled else 'raw'}")


def _kernel_rows(estimator, data, metric, raw, slow=(), known=None):
    """linear, rbf, poly x raw, std of one kernel estimator on one set;
    ``raw`` lists the kernels whose raw row is a ``"scale"`` row; ``slow``
    and ``known`` are keyed by row id."""
    rows = []
    for kernel in ("linear", "rbf", "poly"):
        for scaled in (False, True):
            expect = "scale" if kernel in raw and not scaled else "quiet"
            row = Row(estimator, kernel, data, metric, scaled, expect)
            rows.append(Row(estimator, kernel, data, metric, scaled, expect,
                            slow=row.id in slow, known=(known or {}).get(row.id, "")))
    return rows


#: rows whose default does not hold (strict xfails with the measured
#: numbers, 2026-12-07).  The two poly rows of the ordinal estimators left
#: it with their gamma default 1 / max_i ||x_i||^2 (OrdinalMarginRanker poly
#: had stopped at max_iter after 566 s with MAE 0.4240, PRank poly scored
#: 0.5272, against SVC(poly)'s 0.3902); LabelRanker's three max_iter rows
#: are ``"advice"`` rows now (:data:`ADVICE`)
KNOWN: dict[str, str] = {}

#: rows whose default stops at max_iter on data where the peer does no
#: better, and the advice its ConvergenceWarning must give (an ``"advice"``
#: row: following it gives a converged model within the tolerance of the
#: row's peer).  Measured 2026-12-07: standardised phishing ends at a
#: relative gap of 2.2e-3 after 1,000 passes (1,153 reach tol; accuracy
#: 0.9430 against LinearSVC 0.9442), standardised w8a at 3.9e-2 (squared
#: row norms up to 64,373, median 141; LinearSVC does not converge either);
#: with MaxAbsScaler both converge (phishing 0.9445, w8a 0.9847 in 198
#: passes).  The Gram matrix of raw red wine stops after over a minute
#: (accuracy 0.5553 against SVC(precomputed) 0.5741); from standardised
#: features it converges (0.5929 against 0.5760).
ADVICE = {
    "LabelRanker-linear-phishing-std": "make_pipeline(MaxAbsScaler(), LabelRanker())",
    "LabelRanker-linear-w8a_sample-std": "make_pipeline(MaxAbsScaler(), LabelRanker())",
    "LabelRanker-precomputed-wine_grades-raw": "compute the Gram matrix from standardised "
                                               "features",
}

ALL = ("linear", "rbf", "poly")


def _rows() -> list[Row]:
    rows = []
    for est, metric in (("LabelRanker", "label ranking loss"), ("M3LClassifier", "Hamming loss")):
        rows += _kernel_rows(est, "yeast", metric, raw=(),
                             slow={f"{est}-{k}-yeast-{f}" for k in ("rbf", "poly")
                                   for f in ("raw", "std")})
        rows += _kernel_rows(est, "wine grades", "accuracy", raw=ALL)
    for name in ("phishing", "w8a"):
        rows += [Row("SignConstrainedClassifier", "linear", name, "accuracy", s,
                     slow=name == "w8a" or not s) for s in (False, True)]
    rows += [Row("SignConstrainedClassifier", "linear", "wine", "accuracy", s,
                 "quiet" if s else "scale") for s in (False, True)]
    rows += [Row("SignConstrainedRegressor", "linear", "wine", "R^2", s,
                 "quiet" if s else "scale") for s in (False, True)]
    rows += [Row("RankSVM", "linear", "mq2008", "mean NDCG", s, slow=not s) for s in (False, True)]
    rows += _kernel_rows("OrdinalMarginRanker", "wine", "MAE", raw=("rbf", "poly"),
                         slow={"OrdinalMarginRanker-linear-wine-raw",
                               "OrdinalMarginRanker-rbf-wine-std"}, known=KNOWN)
    rows += _kernel_rows("PRank", "wine", "MAE", raw=ALL, known=KNOWN)
    return rows + _rows_more()


def _rows_more() -> list[Row]:
    """The sets a task fits beyond each estimator's first: binary
    phishing and w8a for the label-column estimators (sparse: linear
    only), MQ2008's grades for the ordinal ones and as a regression target,
    red wine as one ranked query."""
    rows = [Row("LabelRanker", "precomputed", name, metric, s, slow=True,
                known=KNOWN.get(f"LabelRanker-precomputed-{name.replace(' ', '_')}-"
                                f"{'std' if s else 'raw'}", ""))
            for name, metric in (("yeast", "label ranking loss"), ("wine grades", "accuracy"))
            for s in (False, True)]
    for est in ("LabelRanker", "M3LClassifier"):
        rows += [Row(est, "linear", name, "accuracy", s,
                     slow=name != "phishing" or (est == "M3LClassifier" and not s),
                     known=KNOWN.get(f"{est}-linear-{name.replace(' ', '_')}-"
                                     f"{'std' if s else 'raw'}", ""))
                 for name in ("phishing", "w8a sample") for s in (False, True)]
    rows += [Row("SignConstrainedRegressor", "linear", "mq2008", "R^2", s) for s in (False, True)]
    rows += [Row("RankSVM", "linear", "wine ranking", "mean NDCG", s) for s in (False, True)]
    rows += _kernel_rows("OrdinalMarginRanker", "mq2008 grades", "MAE", raw=(),
                         slow={f"OrdinalMarginRanker-{k}-mq2008_grades-{f}" for k in ALL
                               for f in ("raw", "std")})
    rows += _kernel_rows("PRank", "mq2008 grades", "MAE", raw=(),
                         slow={"PRank-linear-mq2008_grades-std"})
    return rows


ROWS = [replace(r, expect="advice") if r.id in ADVICE else r for r in _rows()]


# ------------------------------------------------------------------ models

def _estimator(row: Row):
    kw = {} if row.kernel == "linear" else {"kernel": row.kernel}
    if row.estimator not in ("OrdinalMarginRanker",):
        kw["random_state"] = 0
    return getattr(polyrank, row.estimator)(**kw)


def _peer(row: Row, n_features: int):
    """The peer a user would pick, with its defaults (and our kernel)."""
    if row.kernel != "linear":
        svc = SVC(kernel=row.kernel, gamma=1.0 / n_features, coef0=1.0)
        label_columns = row.estimator in ("LabelRanker", "M3LClassifier")
        return OneVsRestClassifier(svc) if label_columns else svc
    if row.estimator in ("OrdinalMarginRanker", "PRank"):
        mord = pytest.importorskip("mord")
        return mord.LogisticAT()
    if row.estimator in ("SignConstrainedRegressor", "RankSVM"):
        return Ridge()
    return OneVsRestClassifier(LinearSVC()) if row.data == "yeast" else LinearSVC()


class LinearGram(TransformerMixin, BaseEstimator):
    """X -> X X_fit' + 1 (the linear kernel's Gram matrix against the
    training rows, plus the constant that LabelRanker's docstring tells a
    user to add for a bias, ``bias`` being 0 with a precomputed kernel):
    the input of ``kernel="precomputed"`` in a pipeline."""

    def fit(self, X, y=None):
        self.X_fit_ = np.asarray(X, dtype=float)
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float) @ self.X_fit_.T + 1.0


def _prep(model, row: Row, sparse: bool, follow: str = ""):
    """``model`` behind the row's preprocessing, or behind what the advice
    ``follow`` (a value of :data:`ADVICE`) says instead."""
    steps = [LinearGram(), model] if row.kernel == "precomputed" else [model]
    if "MaxAbsScaler" in follow:
        steps.insert(0, MaxAbsScaler())
    elif row.scaled or "standardised features" in follow:
        steps.insert(0, StandardScaler(with_mean=not sparse))
    return make_pipeline(*steps) if len(steps) > 1 else model


def _score(row: Row, model, d: Data) -> float:
    if row.metric == "mean NDCG":
        return mean_ndcg(d.yt, model.predict(d.Xt), d.qid_t)
    metric = METRICS[row.metric][0]
    out = model.decision_function(d.Xt) if row.metric == "label ranking loss" \
        else model.predict(d.Xt)
    return float(metric(d.yt, out))


@dataclass
class Outcome:
    """What one row measured."""

    ours: float
    peer: float
    status: str
    warnings: list


def measure(row: Row, follow: str = "") -> Outcome:
    """Fit the estimator (every warning recorded; preprocessed as the advice
    ``follow`` says, if given) and the peer (as the row says) on ``row``."""
    d = dataset(row.data, row.metric)
    model = _prep(_estimator(row), row, d.sparse, follow)
    fit_params = {}
    if d.qid is not None:
        fit_params["ranksvm__qid" if row.scaled else "qid"] = d.qid
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model.fit(d.X, d.y, **fit_params)
    est = model[-1] if hasattr(model, "steps") else model
    peer = _prep(_peer(row, d.X.shape[1]), row, d.sparse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer.fit(d.X, d.y)
    return Outcome(_score(row, model, d), _score(row, peer, d), est.result_.status,
                   list(record))


def _params():
    out = []
    for r in ROWS:
        marks = [pytest.mark.slow] if r.slow else []
        if r.known:
            marks.append(pytest.mark.xfail(strict=True, reason=r.known))
        out.append(pytest.param(r, id=r.id, marks=marks))
    return out


# ------------------------------------------------------------------ tests

def _assert_within(row: Row, out: Outcome) -> None:
    higher = row.metric == "mean NDCG" or METRICS.get(row.metric, (None, True))[1]
    slack = out.ours - out.peer if higher else out.peer - out.ours
    tol = TOLERANCE[(row.estimator, row.metric)]
    assert slack >= -tol, (f"{row.id}: {row.metric} ours {out.ours:.4f}, peer {out.peer:.4f}, "
                           f"tolerance {tol:g} ({'higher' if higher else 'lower'} is better)")


def _assert_the_advice_works(row: Row) -> None:
    """The default stops at max_iter with one ConvergenceWarning that gives
    the row's advice (:data:`ADVICE`); following it gives a converged,
    quiet model within the tolerance of the row's peer."""
    out = measure(row)
    print(f"{row.id}: ours {out.ours:.4f} peer {out.peer:.4f} {out.status}")
    assert out.status == STATUS_MAX_ITER
    seen = [str(w.message) for w in out.warnings]
    assert len(seen) == 1 and out.warnings[0].category is ConvergenceWarning, seen
    assert ADVICE[row.id] in seen[0], seen[0]
    followed = measure(row, follow=ADVICE[row.id])
    print(f"{row.id} advice followed: ours {followed.ours:.4f} {followed.status}")
    assert followed.status == STATUS_CONVERGED
    assert not followed.warnings, [str(w.message) for w in followed.warnings]
    _assert_within(row, Outcome(followed.ours, out.peer, followed.status, []))


@pytest.mark.parametrize("row", _params())
def test_defaults_hold_against_the_peer(row):
    if row.expect == "scale":
        d = dataset(row.data, row.metric)
        early = warns_before_the_solve(_estimator(row), d.X, d.y, FeatureScaleWarning)
        assert len(early) == 1
        assert f"make_pipeline(StandardScaler(), {row.estimator}())" in str(early[0].message)
        return
    if row.expect == "advice":
        _assert_the_advice_works(row)
        return
    out = measure(row)
    print(f"{row.id}: ours {out.ours:.4f} peer {out.peer:.4f} {out.status}")
    done = (STATUS_CONVERGED, STATUS_COMPLETED) if row.estimator == "PRank" \
        else (STATUS_CONVERGED,)
    assert out.status in done
    seen = [(w.category, str(w.message)) for w in out.warnings]
    assert not seen, seen
    _assert_within(row, out)


@pytest.mark.parametrize("estimator, metric", sorted(TOLERANCE))
def test_docstrings_state_the_tolerances(estimator, metric):
    """The docstring's "Defaults, measured" names the matrix and the
    tolerance of each of its metrics."""
    doc = " ".join(getattr(polyrank, estimator).__doc__.split())
    assert "Defaults, measured" in doc
    assert "test_defaults_matrix.py" in doc           # tests/core/ since issue 46
    tol = TOLERANCE[(estimator, metric)]
    assert f"{metric} within {tol:g} of" in doc, (estimator, metric, tol)


#: the bundled sets each estimator's task fits (issue 42, item 4: every
#: bundled real set).  Not here, with the reason: AwA
#: (:func:`~polyrank.datasets.load_awa_classes`) is a class-attribute
#: table of 50 classes, no rows to fit (it is the zero-shot M3L's R);
#: yeast's 14 label columns for the sign estimators and RankSVM (one
#: target); the label-column estimators on MQ2008 (graded relevance per
#: query, a ranking, not classes); kernels on the sparse phishing and w8a
#: (sparse X takes the linear kernel only: a TypeError by design).
SETS = {
    "LabelRanker": {"yeast", "wine grades", "phishing", "w8a sample"},
    "M3LClassifier": {"yeast", "wine grades", "phishing", "w8a sample"},
    "SignConstrainedClassifier": {"phishing", "w8a", "wine"},
    "SignConstrainedRegressor": {"wine", "mq2008"},
    "RankSVM": {"mq2008", "wine ranking"},
    "OrdinalMarginRanker": {"wine", "mq2008 grades"},
    "PRank": {"wine", "mq2008 grades"},
}


def test_every_set_an_estimator_fits_has_rows():
    for est, sets in SETS.items():
        assert {r.data for r in ROWS if r.estimator == est} == sets, est
        for name in sets:
            mine = [r for r in ROWS if r.estimator == est and r.data == name]
            kernels = {r.kernel for r in mine}
            assert {(k, s) for k in kernels for s in (False, True)} == \
                {(r.kernel, r.scaled) for r in mine}, (est, name)


def test_every_estimator_and_kernel_has_rows():
    kernels = {"LabelRanker": 4, "M3LClassifier": 3, "OrdinalMarginRanker": 3, "PRank": 3,
               "SignConstrainedClassifier": 1, "SignConstrainedRegressor": 1, "RankSVM": 1}
    for est, n in kernels.items():
        mine = [r for r in ROWS if r.estimator == est]
        assert len({r.kernel for r in mine}) == n
        for kernel in {r.kernel for r in mine}:
            assert {r.scaled for r in mine if r.kernel == kernel} == {False, True}
