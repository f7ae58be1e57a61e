"""The Display classes of polyrank_widgets.display (issue 43, item 3): the
numbers they hold equal the metrics computed independently (scikit-learn's,
or by brute force here) on fitted estimators and bundled data;
``from_estimator`` equals ``from_predictions`` on the same predictions;
Pipelines are accepted; bad input is refused naming the argument."""

import itertools
import math
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.metrics import (
    average_precision_score,
    confusion_matrix,
    label_ranking_loss,
    ndcg_score,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from polyrank import LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM
from polyrank.datasets import load_mq2008, load_winequality_red, load_yeast
from polyrank_widgets import GapDisplay, LabelRankingDisplay, OrdinalDisplay, RankingDisplay

RTOL = 1e-12        # the same metric computed two ways: rounding only


# ------------------------------------------------------------------ data and fits
@pytest.fixture(scope="module")
def mq():
    """MQ2008: 60 training and 40 test queries, a fitted RankSVM."""
    d = load_mq2008()
    train = np.isin(d.qid_train, np.unique(d.qid_train)[:60])
    test = np.isin(d.qid_test, np.unique(d.qid_test)[:40])
    X, y, q = d.X_test[test], d.y_test[test], d.qid_test[test]
    est = RankSVM().fit(d.X_train[train], d.y_train[train], qid=d.qid_train[train])
    return est, X, y, q


@pytest.fixture(scope="module")
def wine():
    """Red wine: 600 training and 400 test wines (quality 3..8)."""
    d = load_winequality_red()
    idx = np.random.default_rng(0).permutation(d.quality.size)
    tr, te = idx[:600], idx[600:1000]
    est = make_pipeline(StandardScaler(), OrdinalMarginRanker()).fit(d.X[tr], d.quality[tr])
    return est, d.X[te], d.quality[te], d.X[tr], d.quality[tr]


@pytest.fixture(scope="module")
def yeast():
    """Yeast: 400 training and 300 test examples, 14 labels."""
    d = load_yeast()
    est = make_pipeline(StandardScaler(), LabelRanker()).fit(d.X_train[:400], d.Y_train[:400])
    return est, d.X_test[:300], d.Y_test[:300], d


# ------------------------------------------------------------------ ranking
def _dcg(gains, discount):
    return sum(g * d for g, d in zip(gains, discount))


def _brute_ndcg(y, s, k):
    """NDCG@min(k, l) of one query with the LETOR discount 1 / log2(max(2, i));
    documents of equal score share their mean gain (the expected DCG over the
    tie's orders, the convention of polyrank.metrics and sklearn's ndcg_score)."""
    m = min(k, y.size)
    discount = [1.0 / math.log2(max(2, i)) for i in range(1, m + 1)]
    order = np.argsort(-s, kind="stable")
    gains, ranked = 2.0 ** y[order] - 1, s[order]
    shared = np.array([gains[ranked == v].mean() for v in ranked])
    got = _dcg(shared[:m], discount)
    ideal = _dcg((2.0 ** np.sort(y)[::-1] - 1)[:m], discount)
    return got / ideal if ideal > 0 else 0.0


def _brute_pairs(y, s):
    """(pairs, correct) of one query: pairs y_i > y_j, correct when s_i >= s_j."""
    pairs = correct = 0
    for i, j in itertools.permutations(range(y.size), 2):
        if y[i] > y[j]:
            pairs += 1
            correct += s[i] >= s[j]
    return pairs, correct


def test_ranking_numbers_equal_brute_force_and_sklearn(mq):
    est, X, y, q = mq
    disp = RankingDisplay.from_estimator(est, X, y, qid=q, k=10)
    s = est.decision_function(X)
    assert np.unique(s).size < s.size              # a tie (duplicate documents) to share
    np.testing.assert_array_equal(disp.query_ids, np.unique(q))
    pairs_all = correct_all = 0
    for query, ndcg, acc in zip(disp.query_ids, disp.ndcg, disp.pairwise_accuracy):
        rows = q == query
        assert ndcg == pytest.approx(_brute_ndcg(y[rows], s[rows], 10), rel=RTOL, abs=1e-15)
        pairs, correct = _brute_pairs(y[rows], s[rows])
        pairs_all, correct_all = pairs_all + pairs, correct_all + correct
        if pairs:
            assert acc == pytest.approx(correct / pairs, rel=RTOL)
        else:
            assert math.isnan(acc)
    assert disp.pooled_pairwise_accuracy == pytest.approx(correct_all / pairs_all, rel=RTOL)
    assert disp.ndcg_at_k == pytest.approx(np.mean(disp.ndcg), rel=RTOL)
    assert np.isnan(disp.pairwise_accuracy).any()        # MQ2008 has one-level queries
    assert 0.3 < disp.ndcg_at_k < 1.0 and 0.6 < disp.pooled_pairwise_accuracy < 1.0


def test_ranking_yahoo_discount_equals_sklearn_ndcg_score(mq):
    est, X, y, q = mq
    disp = RankingDisplay.from_estimator(est, X, y, qid=q, k=5, discount="yahoo")
    s = est.decision_function(X)
    for query, ndcg in zip(disp.query_ids, disp.ndcg):
        rows = q == query
        if y[rows].max() == 0:
            assert ndcg == 0.0          # the LETOR script's convention for no relevant doc
            continue
        ref = ndcg_score([2.0 ** y[rows] - 1], [s[rows]], k=5)
        assert ndcg == pytest.approx(ref, rel=RTOL)


def test_ranking_from_estimator_equals_from_predictions_and_the_figure_holds_them(mq):
    est, X, y, q = mq
    a = RankingDisplay.from_estimator(est, X, y, qid=q)
    b = RankingDisplay.from_predictions(y, est.decision_function(X), qid=q)
    for name in ("query_ids", "ndcg", "pairwise_accuracy"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (a.ndcg_at_k, a.pooled_pairwise_accuracy) == (b.ndcg_at_k, b.pooled_pairwise_accuracy)
    assert a.name == "RankSVM" and b.name is None
    assert isinstance(a.figure_, go.Figure)
    bars = a.figure_.data[0]
    np.testing.assert_array_equal(np.sort(bars.y), np.sort(a.ndcg))
    assert set(bars.customdata) == set(a.query_ids)
    assert "NDCG@10" in a.figure_.layout.title.text


def test_ranking_accepts_a_pipeline(mq):
    est, X, y, q = mq
    d = load_mq2008()
    train = np.isin(d.qid_train, np.unique(d.qid_train)[:60])
    pipe = make_pipeline(StandardScaler(), RankSVM()).fit(
        d.X_train[train], d.y_train[train], ranksvm__qid=d.qid_train[train])
    disp = RankingDisplay.from_estimator(pipe, X, y, qid=q)
    ref = RankingDisplay.from_predictions(y, pipe.decision_function(X), qid=q)
    np.testing.assert_array_equal(disp.ndcg, ref.ndcg)
    assert disp.name == "RankSVM"


def test_ranking_bad_input(mq):
    est, X, y, q = mq
    with pytest.raises(ValueError, match="qid"):
        RankingDisplay.from_estimator(est, X, y)
    with pytest.raises(ValueError, match="qid"):
        RankingDisplay.from_predictions(y, y)
    with pytest.raises(ValueError, match="k"):
        RankingDisplay.from_predictions(y, y, qid=q, k=0)
    with pytest.raises(ValueError, match="y_true"):
        RankingDisplay.from_predictions(y[:-1], y, qid=q)
    with pytest.raises(TypeError, match="estimator"):
        RankingDisplay.from_estimator("RankSVM", X, y, qid=q)
    with pytest.raises(NotFittedError):
        RankingDisplay.from_estimator(RankSVM(), X, y, qid=q)
    with pytest.raises(TypeError, match="name"):
        RankingDisplay.from_predictions(y, y, qid=q, name=3)


# ------------------------------------------------------------------ ordinal
def test_ordinal_numbers_equal_sklearn_and_brute_force(wine):
    est, X, y, _, _ = wine
    disp = OrdinalDisplay.from_estimator(est, X, y)
    pred = est.predict(X)
    classes = est[-1].classes_
    np.testing.assert_array_equal(disp.display_labels, classes)
    np.testing.assert_array_equal(disp.confusion_matrix,
                                  confusion_matrix(y, pred, labels=classes))
    for g, grade in enumerate(classes):
        rows = y == grade
        assert disp.support[g] == rows.sum()
        if rows.any():
            assert disp.mae_by_grade[g] == pytest.approx(
                np.abs(pred[rows] - grade).mean(), rel=RTOL)
        else:
            assert math.isnan(disp.mae_by_grade[g])
    assert disp.mae == pytest.approx(-est.score(X, y), rel=RTOL)   # score: minus the MAE
    heat, bars = disp.figure_.data
    np.testing.assert_array_equal(heat.z, disp.confusion_matrix)
    np.testing.assert_array_equal(bars.y, disp.mae_by_grade)


def test_ordinal_from_estimator_equals_from_predictions_and_prank(wine):
    est, X, y, Xtr, ytr = wine
    a = OrdinalDisplay.from_estimator(est, X, y)
    b = OrdinalDisplay.from_predictions(y, est.predict(X), labels=est[-1].classes_)
    np.testing.assert_array_equal(a.confusion_matrix, b.confusion_matrix)
    np.testing.assert_array_equal(a.mae_by_grade, b.mae_by_grade)
    assert a.mae == b.mae
    prank = make_pipeline(StandardScaler(), PRank()).fit(Xtr, ytr)
    c = OrdinalDisplay.from_estimator(prank, X, y)
    assert c.name == "PRank" and c.mae == pytest.approx(-prank.score(X, y), rel=RTOL)


def test_ordinal_weights_and_named_grades():
    y = np.array(["low", "mid", "high", "high", "mid"])
    p = np.array(["low", "high", "high", "mid", "mid"])
    disp = OrdinalDisplay.from_predictions(y, p, labels=["low", "mid", "high"],
                                           sample_weight=[1, 1, 1, 3, 1])
    # errors in grade steps: mid->high 1 (w 1), high->mid 1 (w 3)
    np.testing.assert_allclose(disp.mae_by_grade, [0.0, 0.5, 0.75], rtol=RTOL)
    assert disp.mae == pytest.approx((1 + 3) / 7, rel=RTOL)
    np.testing.assert_array_equal(disp.confusion_matrix, [[1, 0, 0], [0, 1, 1], [0, 3, 1]])


def test_ordinal_bad_input(wine):
    est, X, y, _, _ = wine
    with pytest.raises(ValueError, match="labels"):
        OrdinalDisplay.from_predictions(["a", "b"], ["b", "a"])
    with pytest.raises(ValueError, match="y_true"):
        OrdinalDisplay.from_predictions([3, 9], [3, 4], labels=[3, 4, 5])
    with pytest.raises(ValueError, match="y_pred"):
        OrdinalDisplay.from_predictions([3, 4], [3, 9], labels=[3, 4, 5])
    with pytest.raises(ValueError, match="y_true, y_pred"):
        OrdinalDisplay.from_predictions([3, 4, 5], [3, 4])
    with pytest.raises(NotFittedError):
        OrdinalDisplay.from_estimator(OrdinalMarginRanker(), X, y)
    with pytest.raises(TypeError, match="estimator"):
        OrdinalDisplay.from_estimator(None, X, y)


# ------------------------------------------------------------------ label ranking
def test_label_ranking_numbers_equal_sklearn_and_counts(yeast):
    est, X, Y, d = yeast
    disp = LabelRankingDisplay.from_estimator(est, X, Y, label_names=d.label_names)
    scores, pred = est.decision_function(X), est.predict(X) > 0
    rel = Y > 0
    for j in range(Y.shape[1]):
        predicted = pred[:, j]
        if predicted.any():
            assert disp.precision[j] == pytest.approx(
                (predicted & rel[:, j]).sum() / predicted.sum(), rel=RTOL)
        else:
            assert math.isnan(disp.precision[j])
        assert disp.support[j] == rel[:, j].sum()
        if rel[:, j].any():
            assert disp.average_precision[j] == pytest.approx(
                average_precision_score(rel[:, j], scores[:, j]), rel=RTOL)
        else:           # no example has it: undefined (sklearn warns and says 0)
            assert math.isnan(disp.average_precision[j])
    assert disp.ranking_loss == pytest.approx(label_ranking_loss(rel, scores), rel=RTOL)
    assert disp.label_ranking_average_precision == pytest.approx(est.score(X, Y), rel=RTOL)
    assert disp.label_names == list(d.label_names)
    b = LabelRankingDisplay.from_predictions(Y, scores, y_pred=est.predict(X))
    np.testing.assert_array_equal(disp.precision, b.precision)
    np.testing.assert_array_equal(disp.average_precision, b.average_precision)
    assert disp.ranking_loss == b.ranking_loss
    np.testing.assert_array_equal(disp.figure_.data[0].y, disp.precision)


def test_label_ranking_m3l_and_signed_coding(yeast):
    _, X, Y, d = yeast
    Ys = np.where(d.Y_train[:300] > 0, 1, -1)          # the -1/+1 coding
    m3l = make_pipeline(StandardScaler(), M3LClassifier()).fit(d.X_train[:300], Ys)
    disp = LabelRankingDisplay.from_estimator(m3l, X, np.where(Y > 0, 1, -1))
    ref = LabelRankingDisplay.from_predictions(Y, m3l.decision_function(X))
    np.testing.assert_array_equal(disp.precision, ref.precision)   # y_pred = score > 0
    assert disp.ranking_loss == ref.ranking_loss and disp.name == "M3LClassifier"


def test_label_ranking_bad_input(yeast):
    est, X, Y, d = yeast
    classes = LabelRanker().fit(d.X_train[:100], np.argmax(d.Y_train[:100], axis=1))
    with pytest.raises(ValueError, match="estimator.*label sets"):
        LabelRankingDisplay.from_estimator(classes, X, Y)
    with pytest.raises(ValueError, match="y_true, y_score"):
        LabelRankingDisplay.from_predictions(Y[:, 0], Y[:, 0])
    with pytest.raises(ValueError, match="y_pred"):
        LabelRankingDisplay.from_predictions(Y, Y, y_pred=Y[:, :3])
    with pytest.raises(ValueError, match="label_names"):
        LabelRankingDisplay.from_estimator(est, X, Y, label_names=["a"])
    with pytest.raises(TypeError, match="decision_function"):
        LabelRankingDisplay.from_estimator(make_pipeline(StandardScaler()).fit(X), X, Y)


def test_label_names_are_escaped_in_the_figure():
    disp = LabelRankingDisplay.from_predictions(
        [[1, 0], [0, 1]], [[1.0, -1.0], [-1.0, 1.0]],
        label_names=["<img src=x onerror=alert(1)>", "b"], name="<b>m</b>")
    assert disp.figure_.data[0].x[0] == "&lt;img src=x onerror=alert(1)&gt;"
    assert "<b>m</b>" not in disp.figure_.layout.title.text


# ------------------------------------------------------------------ duality gap
@pytest.mark.parametrize("which", ["ordinal", "label"])
def test_gap_display_holds_the_result_trace(which, wine, yeast):
    est = wine[0] if which == "ordinal" else yeast[0]
    res = est[-1].result_
    disp = GapDisplay.from_estimator(est)
    for name in ("iteration", "primal", "dual", "gap"):
        np.testing.assert_array_equal(getattr(disp, name), getattr(res.trace, name))
    assert (disp.n_iter, disp.unit, disp.status) == (res.nit, res.unit, res.status)
    assert disp.name == type(est[-1]).__name__
    primal, dual, gap = disp.figure_.data
    np.testing.assert_array_equal(primal.y, res.trace.primal)
    np.testing.assert_array_equal(gap.customdata, res.trace.gap)
    assert res.status in disp.figure_.layout.title.text
    same = GapDisplay.from_result(res)
    np.testing.assert_array_equal(same.gap, disp.gap)
    assert same.name == res.solver


def test_gap_display_of_a_solver_without_objectives_says_so(wine):
    _, _, _, Xtr, ytr = wine
    prank = make_pipeline(StandardScaler(), PRank()).fit(Xtr, ytr)
    disp = GapDisplay.from_estimator(prank)
    assert np.isnan(disp.gap).all() and disp.status == prank[-1].result_.status
    assert "no duality gap" in disp.figure_.layout.annotations[-1].text


def test_gap_display_bad_input(wine):
    est, X, y, _, _ = wine
    with pytest.raises(TypeError, match="result_"):
        GapDisplay.from_estimator(LinearSVC().fit(X, y > 5))
    with pytest.raises(NotFittedError):
        GapDisplay.from_estimator(OrdinalMarginRanker())
    with pytest.raises(TypeError, match="result"):
        GapDisplay.from_result({"trace": None})
    with pytest.raises(ValueError, match="iteration, primal, dual, gap"):
        GapDisplay(iteration=[1, 2], primal=[1.0], dual=[0.0], gap=[1.0])


def test_a_display_shows_its_figure_in_jupyter(wine, monkeypatch):
    est, X, y, _, _ = wine
    monkeypatch.setattr(pio.renderers, "default", "plotly_mimetype")    # as in JupyterLab
    disp = OrdinalDisplay.from_estimator(est, X, y)
    bundle = disp._repr_mimebundle_()
    assert bundle["application/vnd.plotly.v1+json"]["data"][0]["type"] == "heatmap"
    unplotted = OrdinalDisplay(confusion_matrix=[[1]], mae_by_grade=[0.0], support=[1],
                               display_labels=[3], mae=0.0)
    assert list(unplotted._repr_mimebundle_()) == ["text/plain"]


@pytest.mark.slow
def test_the_widgets_page_block_runs_as_written(tmp_path, monkeypatch):
    """The Python block of docs/widgets.md's "Looking at results" runs as
    written (bundled data, default estimators), in an empty directory."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "widgets.md").read_text()
    section = text.split("## Looking at results", 1)[1].split("\n## ", 1)[0]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "docs/widgets.md", "exec"), namespace)
    assert isinstance(namespace["ranking"], RankingDisplay)
    assert namespace["gap"].status == namespace["labels"][-1].result_.status
    assert list(tmp_path.iterdir()) == []           # it writes nothing where the user stands


def test_ordinal_display_ticks_float_grades_as_a_reader_writes_them():
    """Grades read from a CSV are floats: the ticks say "3", not "3.0"."""
    y = np.array([3.0, 4.0, 5.0, 4.0, 8.0])
    disp = OrdinalDisplay.from_predictions(y, y[::-1])
    heat = disp.figure_.data[0]
    assert list(heat.x) == ["3", "4", "5", "8"]
    assert list(disp.figure_.data[1].x) == list(heat.x)
    assert disp.mae == pytest.approx(np.abs(y - y[::-1]).mean())
