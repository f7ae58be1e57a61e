"""``polyrank train`` / ``polyrank predict`` on users' files (issue 14, item 6).

Tiny files written to tmp_path (by scikit-learn's ``dump_svmlight_file``,
:mod:`csv` and plain ARFF text); every round trip compares the CLI's
predictions with the estimator fitted directly in Python and the printed
metrics with :mod:`polyrank.metrics` / :mod:`sklearn.metrics` computed
directly.  One end-to-end run on the bundled MQ2008 files.
"""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from sklearn.metrics import (
    accuracy_score,
    hamming_loss,
    label_ranking_loss,
    mean_absolute_error,
    mean_squared_error,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
)
from polyrank.cli import main
from polyrank.datasets import data_path, load_mq2008
from polyrank.io import load_model, read_arff, read_csv, read_svmlight, save_model
from polyrank.metrics import mean_ndcg, pairwise_accuracy


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``polyrank argv``."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def predict_json(capsys, data, model, out, *extra):
    rc, text, err = run(capsys, "predict", data, model, out, "--json", *extra)
    assert rc == 0, err
    return json.loads(text)


def read_out(path, dtype=float):
    return np.array([line.split() for line in path.read_text().splitlines()], dtype=dtype)


# ------------------------------------------------------------------ files

@pytest.fixture
def rank_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 4))
    qid = np.repeat([3, 7, 9], 8)
    y = np.clip(np.round(X @ [1.0, -0.5, 0.3, 0.0] + rng.normal(0, 0.3, 24) + 1), 0, 3)
    path = tmp_path / "rank.txt"
    dump_svmlight_file(X, y, str(path), query_id=qid, zero_based=False)
    return path, X, y, qid


@pytest.fixture
def binary_file(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ [1.0, -1.0, 0.5] > 0, 1, -1)
    path = tmp_path / "binary.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path, X, y


def write_csv(path, header, rows, delimiter=","):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, delimiter=delimiter)
        w.writerow(header)
        w.writerows(rows)
    return path


@pytest.fixture
def ordinal_csv(tmp_path):
    """Three ordered levels 0, 1, 2 of a score with a ';' delimiter (as the
    UCI wine file)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = np.digitize(X @ [1.0, 0.5], [-0.5, 0.5])
    path = write_csv(tmp_path / "ord.csv", ["x one", "x2", "grade"],
                     [[*x, int(t)] for x, t in zip(X, y)], delimiter=";")
    return path, X, y


def arff_text(X, Y, label_names=("L1", "L2", "L3")):
    head = ["@relation tiny"]
    head += [f"@attribute f{j} numeric" for j in range(X.shape[1])]
    head += [f"@attribute {n} {{0,1}}" for n in label_names]
    rows = [",".join([*(f"{v:.6f}" for v in x), *(str(int(t)) for t in yy)])
            for x, yy in zip(X, Y)]
    return "\n".join(head + ["@data"] + rows) + "\n"


@pytest.fixture
def multilabel(tmp_path):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    S = X @ rng.normal(size=(3, 3))
    Y = (S > 0).astype(int)
    rows = np.arange(30)                      # every row has a relevant and an irrelevant label
    Y[rows, S.argmax(axis=1)], Y[rows, S.argmin(axis=1)] = 1, 0
    X = np.round(X, 6)                        # what the ARFF file holds
    path = tmp_path / "ml.arff"
    path.write_text(arff_text(X, Y))
    return path, X, Y


# ------------------------------------------------------------ round trips

def test_ranksvm_round_trip_scores_and_liblinear_metrics(tmp_path, capsys, rank_file):
    path, X, y, qid = rank_file
    model, out = tmp_path / "rank.model", tmp_path / "scores.txt"
    rc, text, err = run(capsys, "train", "ranksvm", path, model, "-C", 0.5, "--tol", 1e-6)
    assert rc == 0, err
    assert "24 rows x 4 features, 3 queries" in text
    direct = RankSVM(C=0.5, tol=1e-6).fit(X, y, qid=qid).decision_function(X)
    rc, text, err = run(capsys, "predict", path, model, out)
    assert rc == 0, err
    scores = read_out(out)[:, 0]
    np.testing.assert_allclose(scores, direct, rtol=1e-12, atol=1e-12)
    # liblinear-ranksvm's predict lines, with its conventions (pooled pairs,
    # tied scores correct; LETOR mean NDCG)
    lines = text.splitlines()
    assert re.fullmatch(r"Pairwise Accuracy = [0-9.]+%", lines[0])
    assert re.fullmatch(r"Mean NDCG = [0-9.]+", lines[1])
    pa, ndcg = pairwise_accuracy(y, scores, qid), mean_ndcg(y, scores, qid)
    assert float(lines[0].split("= ")[1][:-1]) == pytest.approx(100 * pa, rel=1e-5)
    assert float(lines[1].split("= ")[1]) == pytest.approx(ndcg, rel=1e-5)
    got = predict_json(capsys, path, model, out)
    assert got == {"pairwise_accuracy": pa, "mean_ndcg": ndcg}


def test_ranksvm_standardize_is_a_pipeline(tmp_path, capsys, rank_file):
    path, X, y, qid = rank_file
    model, out = tmp_path / "rank.model", tmp_path / "scores.txt"
    assert run(capsys, "train", "ranksvm", path, model, "--standardize")[0] == 0
    est, meta = load_model(model)
    # sparse input that the estimator takes as it is: scaled, not centred
    assert meta["standardize"] and est[0].with_mean is meta["dense"]
    pipe = make_pipeline(StandardScaler(with_mean=meta["dense"]), RankSVM())
    direct = pipe.fit(X, y, ranksvm__qid=qid).decision_function(X)
    predict_json(capsys, path, model, out)
    np.testing.assert_allclose(read_out(out)[:, 0], direct, rtol=1e-10, atol=1e-12)


def test_ranksvm_without_qid_is_one_query(tmp_path, capsys):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.5], [0.5, 0.5]])
    y = np.array([0, 1, 2, 0])
    path = tmp_path / "noqid.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    model, out = tmp_path / "m", tmp_path / "o"
    assert run(capsys, "train", "ranksvm", path, model)[0] == 0
    got = predict_json(capsys, path, model, out)
    scores = read_out(out)[:, 0]
    assert got["mean_ndcg"] == mean_ndcg(y, scores, np.zeros(4, dtype=int))
    # a file without preference pairs: pairwise accuracy is undefined, said so
    flat = tmp_path / "flat.svm"
    dump_svmlight_file(X, np.ones(4), str(flat), zero_based=False)
    assert predict_json(capsys, flat, model, out)["pairwise_accuracy"] is None
    rc, text, _ = run(capsys, "predict", flat, model, out)
    assert rc == 0 and text.splitlines()[0] == ("Pairwise Accuracy = n/a (no preference "
                                                "pair in DATA)")


def test_sign_classifier_labels_signs_and_accuracy(tmp_path, capsys, binary_file):
    path, X, y = binary_file
    model, out = tmp_path / "sign.model", tmp_path / "labels.txt"
    rc, _, err = run(capsys, "train", "sign", path, model, "--lam", 0.01, "--signs",
                     "1,-1,0", "--bias", 1, "--seed", 0, "--tol", 1e-8)
    assert rc == 0, err
    est, meta = load_model(model)
    assert meta["method"] == "sign" and meta["n_features"] == 3
    assert est.coef_[0, 0] >= 0 and est.coef_[0, 1] <= 0
    direct = SignConstrainedClassifier(lam=0.01, signs=[1, -1, 0], bias=1.0,
                                       random_state=0, tol=1e-8).fit(X, y)
    got = predict_json(capsys, path, model, out)
    labels = out.read_text().split()
    assert set(labels) <= {"1", "-1"}                    # integer labels, as in the file
    pred = np.array(labels, dtype=int)
    np.testing.assert_array_equal(pred, direct.predict(X))
    assert got == {"accuracy": accuracy_score(y, pred)}
    rc, text, _ = run(capsys, "predict", path, model, out)
    correct = int((pred == y).sum())
    assert text.strip() == f"Accuracy = {100 * correct / 40:g}% ({correct}/40)"
    # --scores: the decision values
    predict_json(capsys, path, model, out, "--scores")
    np.testing.assert_allclose(read_out(out)[:, 0], direct.decision_function(X),
                               rtol=1e-9, atol=1e-12)


def test_sign_signs_by_feature_index_and_from_file(tmp_path, capsys, binary_file):
    path, X, y = binary_file
    model = tmp_path / "m"
    # FEATURE:SIGN with SVMlight's one-based indices: feature 2 is column 1
    assert run(capsys, "train", "sign", path, model, "--signs", "2:1", "--seed", 0)[0] == 0
    est, _ = load_model(model)
    np.testing.assert_array_equal(est.signs_, [0, 1, 0])
    assert est.coef_[0, 1] >= 0
    signs = tmp_path / "signs.txt"
    signs.write_text("-1\n0\n1\n")
    assert run(capsys, "train", "sign", path, model, "--signs", signs, "--seed", 0)[0] == 0
    np.testing.assert_array_equal(load_model(model)[0].signs_, [-1, 0, 1])


def test_sign_regression_from_csv(tmp_path, capsys):
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(25, 3))
    y = X @ [2.0, 0.0, 1.0] + rng.normal(0, 0.05, 25)
    path = write_csv(tmp_path / "reg.csv", ["a", "b", "c", "y"],
                     [[*map(float, x), float(t)] for x, t in zip(X, y)])
    model, out = tmp_path / "reg.model", tmp_path / "pred.txt"
    rc, _, err = run(capsys, "train", "sign", path, model, "--target", "y", "--regression",
                     "--signs", "a:1,c:1", "--lam", 1e-3, "--seed", 0, "--tol", 1e-10)
    assert rc == 0, err
    direct = SignConstrainedRegressor(lam=1e-3, signs={0: 1, 2: 1}, random_state=0,
                                      tol=1e-10).fit(X, y)
    got = predict_json(capsys, path, model, out)
    pred = read_out(out)[:, 0]
    np.testing.assert_allclose(pred, direct.predict(X), rtol=1e-9)
    assert got["mean_squared_error"] == mean_squared_error(y, pred)
    assert got["squared_correlation"] == pytest.approx(np.corrcoef(y, pred)[0, 1] ** 2)
    rc, text, _ = run(capsys, "predict", path, model, out)
    assert text.startswith("Mean squared error = ") and "(regression)" in text


def test_ordinal_csv_round_trip_mae(tmp_path, capsys, ordinal_csv):
    path, X, y = ordinal_csv
    model, out = tmp_path / "ord.model", tmp_path / "pred.txt"
    rc, _, err = run(capsys, "train", "ordinal", path, model, "--target", "grade",
                     "--c", 5)
    assert rc == 0, err
    _, meta = load_model(model)
    assert meta["feature_names"] == ["x one", "x2"] and meta["target"] == "grade"
    direct = OrdinalMarginRanker(c=5.0).fit(X, y)
    got = predict_json(capsys, path, model, out)
    pred = read_out(out, dtype=int)[:, 0]
    np.testing.assert_array_equal(pred, direct.predict(X))
    assert got == {"mean_absolute_error": mean_absolute_error(y, pred),
                   "accuracy": accuracy_score(y, pred)}


def test_ordinal_labels_as_users_have_them(tmp_path, capsys, ordinal_csv):
    """Grades 3..5 (as wine quality 3..8) come back as 3..5.  Needs the
    ordinal estimator that accepts any ordered labels (branch est-ordsign)."""
    path, X, y = ordinal_csv
    shifted = write_csv(tmp_path / "ord35.csv", ["x one", "x2", "grade"],
                        [[*x, int(t) + 3] for x, t in zip(X, y)])
    model, out = tmp_path / "ord.model", tmp_path / "pred.txt"
    rc, _, err = run(capsys, "train", "ordinal", shifted, model, "--target", "grade")
    assert rc == 0, err
    got = predict_json(capsys, shifted, model, out)
    pred = read_out(out, dtype=int)[:, 0]
    assert set(pred) <= {3, 4, 5}
    assert got["mean_absolute_error"] == mean_absolute_error(y + 3, pred)


def test_predict_without_targets_writes_only(tmp_path, capsys, ordinal_csv):
    path, X, y = ordinal_csv
    model, out = tmp_path / "ord.model", tmp_path / "pred.txt"
    assert run(capsys, "train", "ordinal", path, model, "--target", "grade")[0] == 0
    # the features in another column order, no target column
    unlabeled = write_csv(tmp_path / "new.csv", ["x2", "x one"], [[b, a] for a, b in X])
    rc, text, err = run(capsys, "predict", unlabeled, model, out)
    assert rc == 0 and text == "" and err == ""
    np.testing.assert_array_equal(read_out(out, dtype=int)[:, 0],
                                  load_model(model)[0].predict(X))


def test_m3l_arff_round_trip_hamming_and_ranking_loss(tmp_path, capsys, multilabel):
    path, X, Y = multilabel
    model, out = tmp_path / "m3l.model", tmp_path / "pred.txt"
    rc, _, err = run(capsys, "train", "m3l", path, model, "--labels", 3, "-C", 2,
                     "--seed", 0)
    assert rc == 0, err
    _, meta = load_model(model)
    assert meta["label_names"] == ["L1", "L2", "L3"] and meta["data_format"] == "arff"
    direct = M3LClassifier(C=2.0, random_state=0).fit(X, Y)
    got = predict_json(capsys, path, model, out)
    P = read_out(out, dtype=int)
    np.testing.assert_array_equal(P, direct.predict(X))
    assert got == {"hamming_loss": hamming_loss(Y, P),
                   "ranking_loss": label_ranking_loss(Y, direct.decision_function(X))}
    predict_json(capsys, path, model, out, "--scores")
    np.testing.assert_allclose(read_out(out), direct.decision_function(X), rtol=1e-9,
                               atol=1e-12)


def test_m3l_svmlight_multilabel(tmp_path, capsys, multilabel):
    _, X, Y = multilabel
    path = tmp_path / "ml.svm"
    dump_svmlight_file(X, Y, str(path), multilabel=True, zero_based=False)
    model, out = tmp_path / "m", tmp_path / "o"
    rc, _, err = run(capsys, "train", "m3l", path, model, "--seed", 0)
    assert rc == 0, err
    _, meta = load_model(model)
    assert meta["data_format"] == "svmlight" and meta["label_names"] == [0, 1, 2]
    got = predict_json(capsys, path, model, out)
    direct = M3LClassifier(random_state=0).fit(X, Y)
    np.testing.assert_array_equal(read_out(out, dtype=int), direct.predict(X))
    assert got["hamming_loss"] == hamming_loss(Y, direct.predict(X))


def test_labelranker_arff_round_trip(tmp_path, capsys, multilabel):
    """Needs ``LabelRanker.predict`` on 0/1 indicator targets (branch
    est-multilabel)."""
    path, X, Y = multilabel
    model, out = tmp_path / "lr.model", tmp_path / "pred.txt"
    rc, _, err = run(capsys, "train", "labelranker", path, model, "--labels", 3, "-C", 1,
                     "--seed", 0, "--bias", 1)
    assert rc == 0, err
    direct = LabelRanker(C=1.0, random_state=0, bias=1.0).fit(X, Y)
    got = predict_json(capsys, path, model, out)
    P = read_out(out, dtype=int)
    np.testing.assert_array_equal(P, direct.predict(X))
    assert got == {"hamming_loss": hamming_loss(Y, P),
                   "ranking_loss": label_ranking_loss(Y, direct.decision_function(X))}


def test_verbose_logs_iterations(tmp_path, capsys, rank_file):
    """``-v``: one line per solver iteration (the estimators' ``verbose``
    parameter, landing with the estimator branches)."""
    path = rank_file[0]
    rc, text, err = run(capsys, "train", "ranksvm", path, tmp_path / "m", "-v")
    assert rc == 0, err
    assert re.search(r"^RankSVM iter +1 ", text, flags=re.M)


def test_convergence_warning_is_one_line(tmp_path, capsys, binary_file):
    rc, _, err = run(capsys, "train", "sign", binary_file[0], tmp_path / "m",
                     "--max-iter", 1, "--tol", 1e-12, "--seed", 0)
    assert rc == 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("polyrank train: ConvergenceWarning: ")


@pytest.mark.slow
def test_bundled_mq2008_end_to_end(tmp_path, capsys):
    """LETOR files as they come: train on MQ2008 Fold1 train, predict test;
    the scores are the Python estimator's and the printed metrics
    polyrank.metrics' on them."""
    model, out = tmp_path / "mq.model", tmp_path / "scores.txt"
    rc, text, err = run(capsys, "train", "ranksvm", data_path("MQ2008", "train.txt"), model,
                        "-C", 0.1)
    assert rc == 0, err
    assert "9630 rows x 46 features, 471 queries" in text
    got = predict_json(capsys, data_path("MQ2008", "test.txt"), model, out)
    d = load_mq2008()
    direct = RankSVM(C=0.1).fit(d.X_train, d.y_train, qid=d.qid_train)
    scores = read_out(out)[:, 0]
    np.testing.assert_allclose(scores, direct.decision_function(d.X_test), rtol=1e-9,
                               atol=1e-12)
    assert got == {"pairwise_accuracy": pairwise_accuracy(d.y_test, scores, d.qid_test),
                   "mean_ndcg": mean_ndcg(d.y_test, scores, d.qid_test)}
    assert 0.75 < got["pairwise_accuracy"] < 0.9 and 0.4 < got["mean_ndcg"] < 0.55


def test_bundled_wine_subset_end_to_end(tmp_path, capsys):
    """The UCI red wine CSV as it comes (';', quoted header, quality 3..8),
    first 120 wines.  Needs ordinal labels 3..8 (branch est-ordsign)."""
    lines = data_path("winequality", "winequality-red.csv").read_text().splitlines()
    path = tmp_path / "wine.csv"
    path.write_text("\n".join(lines[:121]) + "\n")
    model, out = tmp_path / "wine.model", tmp_path / "pred.txt"
    rc, _, err = run(capsys, "train", "ordinal", path, model, "--target", "quality",
                     "--standardize")
    assert rc == 0, err
    got = predict_json(capsys, path, model, out)
    d = read_csv(path, target="quality")
    pred = read_out(out, dtype=int)[:, 0]
    assert set(pred) <= set(d.y.astype(int))
    assert got["mean_absolute_error"] == mean_absolute_error(d.y, pred) < 1.0


# -------------------------------------------------------------- readers

def test_readers_check_against_the_model(tmp_path, rank_file):
    path = rank_file[0]
    d = read_svmlight(path, query_id=True)
    assert d.X.shape == (24, 4) and d.zero_based is False
    assert read_svmlight(path, query_id=True, n_features=6).X.shape == (24, 6)
    with pytest.raises(ValueError, match="has 4 features, expected at most 3"):
        read_svmlight(path, n_features=3)
    zero = tmp_path / "zero.svm"
    zero.write_text("1 0:1.5 2:1\n-1 1:2\n")
    d = read_svmlight(zero)
    assert d.zero_based is True and d.X.toarray().tolist() == [[1.5, 0, 1], [0, 2, 0]]
    mixed = tmp_path / "mixed.svm"
    mixed.write_text("1 qid:1 1:1\n0 1:2\n")
    with pytest.raises(ValueError, match="line 2: no qid: field, but 1 of 2 lines have one"):
        read_svmlight(mixed, query_id=True)


def test_svmlight_multilabel_unseen_label_warns(tmp_path):
    path = tmp_path / "ml.svm"
    path.write_text("1,3 1:1\n2 2:1\n7 1:2\n")
    d = read_svmlight(path, multilabel=True)
    assert d.label_names == [1, 2, 3, 7] and d.y.tolist()[0] == [1, 0, 1, 0]
    with pytest.warns(UserWarning, match=r"labels \[7\] were not seen"):
        d = read_svmlight(path, multilabel=True, labels=[1, 2, 3])
    assert d.y.tolist() == [[1, 0, 1], [0, 1, 0], [0, 0, 0]]


def test_arff_labels_by_name_and_checks(tmp_path, multilabel):
    path, X, Y = multilabel
    d = read_arff(path, ["L3", "L1", "L2"])
    np.testing.assert_array_equal(d.y, Y[:, [2, 0, 1]])
    assert d.feature_names == ["f0", "f1", "f2"] and d.label_names == ["L3", "L1", "L2"]
    with pytest.raises(ValueError, match="not numeric"):     # L1, L2 are nominal
        read_arff(path, 1)
    with pytest.raises(ValueError, match=r"no label attribute\(s\) \['L9'\]"):
        read_arff(path, ["L1", "L9"])
    with pytest.raises(ValueError, match="must be 1..5"):
        read_arff(path, 6)
    bad = tmp_path / "bad.arff"
    bad.write_text(arff_text(X[:2], [[0, 1, 2], [1, 1, 1]]).replace("{0,1}", "numeric"))
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        read_arff(bad, 3)
    sparse = tmp_path / "sparse.arff"
    sparse.write_text("@relation s\n@attribute a numeric\n@attribute L {0,1}\n@data\n"
                      "{0 1.5, 1 1}\n")
    with pytest.raises(ValueError, match="sparse ARFF"):
        read_arff(sparse, 1)


def test_save_and_load_model(tmp_path):
    path = tmp_path / "m.joblib"
    save_model(path, RankSVM(), method="ranksvm", data_format="svmlight", n_features=3)
    est, meta = load_model(path)
    assert isinstance(est, RankSVM) and meta["method"] == "ranksvm"
    assert meta["format"] == "polyrank-model" and "estimator" not in meta
