"""A user's mistakes on the ``polyrank`` command line: every one ends with a
one-line message on stderr and exit status 2, never a traceback (issue 14).

Unwritable paths are made with a missing directory or a directory in place
of the file, which fail for root too (permission bits do not)."""

from __future__ import annotations

import subprocess
import sys

import joblib
import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from polyrank import SignConstrainedClassifier
from polyrank.cli import main
from polyrank.io import save_model


def fails(capsys, *argv, match: str):
    """Run ``polyrank argv``; assert exit status 2 and one stderr line
    containing ``match``; return that line."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and match in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tiny ranking file, a binary file, a CSV file, an ARFF file and
    models trained on them."""
    d = tmp_path_factory.mktemp("files")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    y = np.array([0, 1, 2, 0] * 3)
    dump_svmlight_file(X, y, str(d / "rank.txt"), query_id=np.repeat([1, 2, 3], 4),
                       zero_based=False)
    dump_svmlight_file(X, np.where(X[:, 0] > 0, 1, -1), str(d / "binary.svm"),
                       zero_based=False)
    dump_svmlight_file(np.hstack([X, X]), y, str(d / "wide.svm"), query_id=np.repeat(
        [1, 2, 3], 4), zero_based=False)
    (d / "data.csv").write_text("a,b,grade\n" + "".join(
        f"{u:.4f},{v:.4f},{g}\n" for (u, v, _), g in zip(X, y)))
    (d / "bad.csv").write_text("a,b,grade\n1,2,0\n3,oops,1\n")
    (d / "other.csv").write_text("a,c,grade\n1,2,0\n3,4,1\n")
    (d / "data.arff").write_text(
        "@relation r\n@attribute f numeric\n@attribute L1 {0,1}\n@attribute L2 {0,1}\n"
        "@data\n" + "".join(f"{u:.3f},{int(u > 0)},{int(u <= 0)}\n" for u in X[:, 0]))
    assert main(["train", "ranksvm", str(d / "rank.txt"), str(d / "rank.model")]) == 0
    assert main(["train", "ordinal", str(d / "data.csv"), str(d / "ord.model"),
                 "--target", "grade"]) == 0
    return d


# ------------------------------------------------------------ the command

def test_unknown_command_method_and_option(capsys, files):
    fails(capsys, "fly", match="invalid choice: 'fly'")
    fails(capsys, "train", "svm", files / "rank.txt", files / "m", match="invalid choice: 'svm'")
    fails(capsys, "train", "ranksvm", files / "rank.txt", files / "m", "--frobnicate",
          match="unrecognized arguments: --frobnicate")
    fails(capsys, "train", "ranksvm", files / "rank.txt", match="required: MODEL")
    fails(capsys, "predict", files / "rank.txt", files / "rank.model",
          match="required: OUT")


@pytest.mark.parametrize("argv, match", [
    (["-C", "abc"], "argument -C/--C: invalid float value: 'abc'"),
    (["-C", "-1"], "C"),                                  # the estimator's own check
    (["--max-iter", "1.5"], "invalid int value"),
    (["--lam", "0.1"], "--lam does not apply to method 'ranksvm'"),
    (["--kernel", "rbf"], "--kernel does not apply to method 'ranksvm'"),
    (["--smoothing", "0.1"], "--smoothing does not apply to method 'ranksvm'"),
    (["--param", "nonsense=1"], "--param 'nonsense=1': expected NAME=VALUE"),
    (["--param", "loss=l3"], "loss"),
    (["--regression"], "--regression applies to method 'sign' only"),
    (["--target", "y"], "method 'ranksvm' reads svmlight data, not csv (--target)"),
    (["--labels", "3"], "method 'ranksvm' reads svmlight data, not arff (--labels)"),
    (["--format", "csv"], "method 'ranksvm' reads svmlight data, not csv (--format)"),
])
def test_bad_option_values(capsys, files, tmp_path, argv, match):
    line = fails(capsys, "train", "ranksvm", files / "rank.txt", tmp_path / "m", *argv,
                 match=match)
    assert line.startswith("polyrank train")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("method, data, argv, match", [
    ("m3l", "data.arff", ["--labels", "2", "--kernel", "nonsense"], "kernel"),
    ("sign", "binary.svm", ["--signs", "1,x"], "--signs"),
    ("sign", "binary.svm", ["--gamma", "0.1"], "--gamma does not apply to method 'sign'"),
    ("sign", "binary.svm", ["--signs", "9:1"], "feature index 9 outside 1..3"),
    ("sign", "data.csv", ["--target", "grade", "--signs", "zzz:1"],
     "'zzz' is not a feature column"),
])
def test_bad_option_values_of_other_methods(capsys, files, tmp_path, method, data, argv,
                                            match):
    fails(capsys, "train", method, files / data, tmp_path / "m", *argv, match=match)


# ----------------------------------------------------------------- DATA

def test_missing_data_file(capsys, files, tmp_path):
    fails(capsys, "train", "ranksvm", tmp_path / "nope.txt", tmp_path / "m",
          match="No such file or directory")
    fails(capsys, "predict", tmp_path / "nope.txt", files / "rank.model", tmp_path / "o",
          match="No such file or directory")


@pytest.mark.parametrize("method, data, argv, match", [
    ("ranksvm", "data.csv", [], "not csv (the name of DATA)"),
    ("ranksvm", "data.csv", ["--format", "svmlight"], "not an SVMlight/LIBSVM file"),
    ("m3l", "data.csv", ["--labels", "1"], "not an ARFF file"),
    ("m3l", "data.arff", [], "ARFF data need --labels N"),
    ("m3l", "data.arff", ["--format", "svmlight"], "not an SVMlight/LIBSVM file"),
    ("ordinal", "bad.csv", ["--target", "grade"], "line 3, column 'b': 'oops' is not a number"),
    # the CSV and ARFF options
    ("ordinal", "data.csv", [], "CSV data need --target NAME"),
    ("ordinal", "data.csv", ["--target", "quality"],
     "no column 'quality' (the target); columns: a, b, grade"),
    ("m3l", "data.arff", ["--labels", "3"], "the number of labels must be 1..2"),
])
def test_unreadable_formats_and_bad_csv_arff_options(capsys, files, tmp_path, method, data,
                                                     argv, match):
    fails(capsys, "train", method, files / data, tmp_path / "m", *argv, match=match)


def test_unreadable_files(capsys, files, tmp_path):
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    fails(capsys, "train", "sign", garbage, tmp_path / "m", match="garbage.bin")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    fails(capsys, "train", "ordinal", empty, tmp_path / "m", "--target", "grade",
          match="no header line and data lines")
    fails(capsys, "train", "m3l", files / "data.arff", tmp_path / "m", "--labels",
          tmp_path / "none.xml", match="No such file or directory")


# ---------------------------------------------------------- MODEL / OUT

def test_unwritable_model_path(capsys, files, tmp_path):
    fails(capsys, "train", "ranksvm", files / "rank.txt", tmp_path / "no" / "m",
          match="does not exist")
    fails(capsys, "train", "ranksvm", files / "rank.txt", tmp_path,
          match="is a directory")


def test_unwritable_out_path(capsys, files, tmp_path):
    fails(capsys, "predict", files / "rank.txt", files / "rank.model",
          tmp_path / "no" / "out.txt", match="OUT")
    fails(capsys, "predict", files / "rank.txt", files / "rank.model", tmp_path,
          match="is a directory")


def test_missing_and_corrupt_model_files(capsys, files, tmp_path):
    data, out = files / "rank.txt", tmp_path / "out"
    fails(capsys, "predict", data, tmp_path / "nope.model", out,
          match="No such file or directory")
    junk = tmp_path / "junk.model"
    junk.write_bytes(b"solver_type L2R_L2LOSS_RANKSVM\nnr_feature 3\nw\n0.1\n")
    fails(capsys, "predict", data, junk, out, match="not a polyrank model file")
    truncated = tmp_path / "truncated.model"
    truncated.write_bytes((files / "rank.model").read_bytes()[:200])
    fails(capsys, "predict", data, truncated, out, match="not a polyrank model file")
    other = tmp_path / "other.model"
    joblib.dump({"weights": [1, 2]}, other)
    fails(capsys, "predict", data, other, out, match="this is a pickle (joblib) file")
    fails(capsys, "predict", data, other, out, "--trust-pickle",
          match="without polyrank's metadata")
    assert not out.exists()


def test_model_from_another_method(capsys, files, tmp_path):
    """Metadata that say ranksvm around a sign classifier: refused."""
    est = SignConstrainedClassifier().fit(np.eye(3), [0, 1, 1])
    path = tmp_path / "swapped.model"
    save_model(path, est, method="ranksvm", task="ranking", data_format="svmlight",
               n_features=3, feature_names=None, label_names=None, target=None,
               zero_based=False, dense=True)
    fails(capsys, "predict", files / "rank.txt", path, tmp_path / "o",
          match="say method 'ranksvm' but it holds a SignConstrainedClassifier")


def test_data_that_do_not_match_the_model(capsys, files, tmp_path):
    out = tmp_path / "o"
    fails(capsys, "predict", files / "wide.svm", files / "rank.model", out,
          match="has 6 features, expected at most 3")
    fails(capsys, "predict", files / "other.csv", files / "ord.model", out,
          match="missing ['b']; unexpected ['c']")
    fails(capsys, "predict", files / "data.csv", files / "rank.model", out,
          match="not an SVMlight/LIBSVM file")            # a CSV file for a ranksvm model


def test_predict_scores_of_a_regressor(capsys, files, tmp_path):
    csv_path = files / "data.csv"
    assert main(["train", "sign", str(csv_path), str(tmp_path / "reg"), "--target", "grade",
                 "--regression"]) == 0
    capsys.readouterr()
    fails(capsys, "predict", csv_path, tmp_path / "reg", tmp_path / "o", "--scores",
          match="--scores: a regression model predicts real values already")


# ------------------------------------------------------------ reproduce

def test_reproduce_unwritable_out(capsys, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    fails(capsys, "reproduce", "sopopo-fig8", "--quick", "--out", blocker,
          match="exists and is not a directory")
    fails(capsys, "reproduce", "sopopo-fig8", "--quick", "--out", blocker / "sub",
          match="cannot write there")


@pytest.mark.slow
def test_console_script_errors_without_traceback(files, tmp_path):
    """The real process: exit status 2 and one stderr line."""
    res = subprocess.run([sys.executable, "-m", "polyrank", "predict",
                          str(files / "rank.txt"), str(tmp_path / "missing.model"),
                          str(tmp_path / "o")], capture_output=True, text=True,
                         cwd=tmp_path)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith("polyrank predict: MODEL ")
