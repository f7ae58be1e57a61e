"""The command line speaks its own language (issue 43, item 4): warnings in
full with their advice as the command's options, and ``polyrank train
--validation FILE`` printing the held-out metrics, checked against the same
metrics computed in Python on the same split."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file
from sklearn.metrics import accuracy_score, hamming_loss, label_ranking_loss, mean_absolute_error

from polyrank import LabelRanker, OrdinalMarginRanker, RankSVM, SignConstrainedClassifier
from polyrank._text import command_line_advice, param, scale_advice
from polyrank.cli import MESSAGE_CHARS, main
from polyrank.exceptions import FeatureScaleWarning
from polyrank.io import load_model
from polyrank.metrics import mean_ndcg, pairwise_accuracy


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``polyrank argv``."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def printed(out: str, path) -> dict:
    """{metric line's name: value} of the ``validation PATH: NAME = VALUE`` lines."""
    got = {}
    for name, value in re.findall(rf"^validation {re.escape(str(path))}: (.+?) = ([^%\s]+)",
                                  out, flags=re.M):
        got[name] = float(value)
    return got


def arff(path, X, Y):
    head = ["@relation raw"] + [f"@attribute f{j} numeric" for j in range(X.shape[1])]
    head += [f"@attribute L{k} {{0,1}}" for k in range(Y.shape[1])]
    rows = [",".join([*(repr(float(v)) for v in x), *(str(int(t)) for t in y)])
            for x, y in zip(X, Y)]
    path.write_text("\n".join(head + ["@data"] + rows) + "\n")
    return path


def raw_multilabel(n=90, seed=0):
    """Features on scales 1, 1e3 and 1e5 with large offsets (raw units), three
    labels that follow them: what FeatureScaleWarning is for."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 3))
    S = Z @ rng.normal(size=(3, 3))
    Y = (S > 0).astype(int)
    rows = np.arange(n)
    Y[rows, S.argmax(1)], Y[rows, S.argmin(1)] = 1, 0
    X = Z * np.array([1.0, 1e3, 1e5]) + np.array([5.0, 4e4, 3e6])
    return X, Y


# --------------------------------------------------------------- warnings

def test_scale_warning_in_full_with_the_option_as_advice(tmp_path, capsys):
    X, Y = raw_multilabel()
    data = arff(tmp_path / "raw.arff", X, Y)
    rc, _, err = run(capsys, "train", "labelranker", data, tmp_path / "m", "--labels", 3)
    assert rc == 0, err
    line, = [t for t in err.splitlines() if "FeatureScaleWarning" in t]
    assert line.startswith("polyrank train: FeatureScaleWarning: LabelRanker: X does not "
                           "look standardised: ")
    # in full: nothing cut, the advice at its end, and that advice is the option
    assert "characters)" not in line and len(line) > MESSAGE_CHARS
    assert line.endswith("standardise X: rerun with --standardize")
    assert "make_pipeline" not in err and "sklearn." not in err
    # the advice works: with --standardize the warning is gone
    rc, _, err = run(capsys, "train", "labelranker", data, tmp_path / "m2", "--labels", 3,
                     "--standardize")
    assert rc == 0 and "FeatureScaleWarning" not in err, err


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_the_same_warning_in_python_names_make_pipeline():
    X, Y = raw_multilabel()
    with pytest.warns(FeatureScaleWarning) as rec:
        LabelRanker(max_iter=5).fit(X, Y)
    text = str(rec[0].message)
    assert text.endswith("standardise X: make_pipeline(StandardScaler(), LabelRanker()) "
                         "(sklearn.pipeline, sklearn.preprocessing)")


def test_convergence_advice_names_the_options(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.where(X @ [1.0, -1.0, 0.5] > 0, 1, -1)
    data = tmp_path / "b.svm"
    dump_svmlight_file(X, y, str(data), zero_based=False)
    rc, _, err = run(capsys, "train", "sign", data, tmp_path / "m", "--max-iter", 1,
                     "--tol", 1e-12, "--seed", 0)
    assert rc == 0
    line, = [t for t in err.splitlines() if "Warning" in t]
    assert line.startswith("polyrank train: ConvergenceWarning: ")
    assert "increase --max-iter or --tol, or standardise X: rerun with --standardize" in line
    assert "max_iter or" not in line
    # the same fit in Python keeps Python's names
    with pytest.warns(Warning, match=r"increase max_iter or tol, or standardise X: "
                                     r"make_pipeline\(StandardScaler\(\), "):
        SignConstrainedClassifier(max_iter=1, tol=1e-12, random_state=0).fit(X, y)


def test_advice_helpers_switch_language_inside_the_block_only():
    assert param("max_iter") == "max_iter"
    with command_line_advice({"max_iter": "--max-iter", "standardize": "--standardize"}):
        assert param("max_iter") == "--max-iter"
        assert param("shrinking") == "--param shrinking=VALUE"
        assert scale_advice("RankSVM") == "standardise X: rerun with --standardize"
    assert scale_advice("RankSVM", sparse=True).startswith(
        "standardise X: make_pipeline(StandardScaler(with_mean=False), RankSVM())")
    with pytest.raises(TypeError, match="options"):
        with command_line_advice(["--max-iter"]):       # type: ignore[arg-type]
            pass


# ------------------------------------------------------------- validation

def _rank_split(tmp_path):
    rng = np.random.default_rng(0)
    w = np.array([1.0, -0.5, 0.3, 0.0])
    files = {}
    for name, n_q, seed in (("train", 5, 1), ("vali", 3, 2)):
        r = np.random.default_rng(seed)
        X = r.normal(size=(8 * n_q, 4))
        qid = np.repeat(np.arange(n_q) + 10 * seed, 8)
        y = np.clip(np.round(X @ w + rng.normal(0, 0.3, len(X)) + 1), 0, 3)
        path = tmp_path / f"{name}.txt"
        dump_svmlight_file(X, y, str(path), query_id=qid, zero_based=False)
        files[name] = (path, X, y, qid)
    return files


def test_validation_ranksvm_prints_the_held_out_metrics(tmp_path, capsys):
    files = _rank_split(tmp_path)
    (tr, Xt, yt, qt), (va, Xv, yv, qv) = files["train"], files["vali"]
    rc, out, err = run(capsys, "train", "ranksvm", tr, tmp_path / "r.model", "-C", 0.5,
                       "--validation", va)
    assert rc == 0, err
    got = printed(out, va)
    scores = RankSVM(C=0.5).fit(Xt, yt, qid=qt).decision_function(Xv)
    assert got["Pairwise Accuracy"] == pytest.approx(
        100 * pairwise_accuracy(yv, scores, qv), rel=1e-5)
    assert got["Mean NDCG"] == pytest.approx(mean_ndcg(yv, scores, qv), rel=1e-5)
    # predict on the same file prints the same numbers
    rc, text, err = run(capsys, "predict", va, tmp_path / "r.model", tmp_path / "s.txt")
    assert rc == 0, err
    assert [f"validation {va}: {t}" for t in text.splitlines()] == \
        [t for t in out.splitlines() if t.startswith("validation ")]


def test_validation_ordinal_csv_with_standardize(tmp_path, capsys):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 2)) * [1.0, 50.0]
    y = np.digitize(X @ [1.0, 0.02], [-0.5, 0.5]) + 3
    for name, sl in (("tr", slice(0, 60)), ("va", slice(60, 90))):
        with open(tmp_path / f"{name}.csv", "w") as fh:
            fh.write("a;b;grade\n")
            fh.writelines(f"{float(a)!r};{float(b)!r};{int(t)}\n"
                          for (a, b), t in zip(X[sl], y[sl]))
    rc, out, err = run(capsys, "train", "ordinal", tmp_path / "tr.csv", tmp_path / "o.model",
                       "--target", "grade", "--standardize", "--validation",
                       tmp_path / "va.csv")
    assert rc == 0, err
    got = printed(out, tmp_path / "va.csv")
    model, _ = load_model(tmp_path / "o.model")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    direct = make_pipeline(StandardScaler(), OrdinalMarginRanker()).fit(X[:60], y[:60])
    pred = direct.predict(X[60:])
    np.testing.assert_array_equal(model.predict(X[60:]), pred)
    assert got["Mean absolute error"] == pytest.approx(mean_absolute_error(y[60:], pred),
                                                       rel=1e-5)
    assert got["Accuracy"] == pytest.approx(100 * accuracy_score(y[60:], pred), rel=1e-5)


def test_validation_multilabel_arff(tmp_path, capsys):
    X, Y = raw_multilabel(120, seed=4)
    Xs = (X - X[:80].mean(0)) / X[:80].std(0)
    tr, va = arff(tmp_path / "tr.arff", Xs[:80], Y[:80]), arff(tmp_path / "va.arff",
                                                                Xs[80:], Y[80:])
    rc, out, err = run(capsys, "train", "labelranker", tr, tmp_path / "l.model",
                       "--labels", 3, "--validation", va)
    assert rc == 0, err
    got = printed(out, va)
    direct = LabelRanker().fit(Xs[:80], Y[:80])
    assert got["Hamming loss"] == pytest.approx(hamming_loss(Y[80:], direct.predict(Xs[80:])),
                                                rel=1e-5)
    assert got["Ranking loss"] == pytest.approx(
        label_ranking_loss(Y[80:], direct.decision_function(Xs[80:])), rel=1e-5, abs=1e-12)


def test_validation_file_mistakes_are_one_line(tmp_path, capsys):
    files = _rank_split(tmp_path)
    tr = files["train"][0]
    missing = tmp_path / "nope.txt"
    rc, out, err = run(capsys, "train", "ranksvm", tr, tmp_path / "m", "--validation", missing)
    assert rc == 2 and not (tmp_path / "m").exists()
    assert err.count("\n") == 1 and f"--validation {str(missing)!r}" in err
    # a held-out file with other features than DATA: refused before the fit
    bad = tmp_path / "wide.txt"
    dump_svmlight_file(np.ones((4, 9)), np.zeros(4), str(bad), query_id=np.zeros(4, dtype=np.int64),
                       zero_based=False)
    rc, out, err = run(capsys, "train", "ranksvm", tr, tmp_path / "m", "--validation", bad)
    assert rc == 2 and "--validation" in err and not (tmp_path / "m").exists(), err
    # the model file may not overwrite the held-out file
    rc, out, err = run(capsys, "train", "ranksvm", tr, files["vali"][0], "--validation",
                       files["vali"][0])
    assert rc == 2 and "same file as --validation" in err
