"""Query sizes from LightGBM / SVMlight ``.query`` files (issue 29, item 4):
``polyrank train/predict --query FILE``, and ``DATA.query`` beside DATA used
automatically, as LightGBM does; ``qid:`` fields in DATA win over an
automatic ``DATA.query`` (LightGBM: "Using query id in data file, ignoring
the additional query file"), and ``--query`` with ``qid:`` is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from polyrank import RankSVM
from polyrank.cli import main
from polyrank.io import read_query
from polyrank.metrics import mean_ndcg, pairwise_accuracy

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 3))
y = np.clip(np.round(X @ [1.0, -0.5, 0.2] + rng.normal(0, 0.3, 30) + 1), 0, 3)
SIZES = [8, 12, 10]
QID = np.repeat([0, 1, 2], SIZES)


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def plain(tmp_path):
    """The ranking data without qid: fields."""
    path = tmp_path / "train.txt"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def test_read_query_file(tmp_path):
    q = tmp_path / "a.query"
    q.write_text("8\n12\n\n10\n")
    np.testing.assert_array_equal(read_query(q, 30), QID)
    for text, match in [("8\n12\nten\n", "line 3: expected the size of a query"),
                        ("8\n0\n22\n", "line 2"), ("8\n-2\n24\n", "line 2"),
                        ("8.0\n22\n", "line 1"), ("8\n12\n", "add up to 20 rows, the data "
                                                            "have 30"), ("", "no query size")]:
        q.write_text(text)
        with pytest.raises(ValueError, match=match) as info:
            read_query(q, 30)
        assert str(info.value).startswith(str(q))


def test_explicit_query_file_equals_qid_fields(tmp_path, capsys, plain):
    q = tmp_path / "sizes.txt"
    q.write_text("".join(f"{s}\n" for s in SIZES))
    model = tmp_path / "m"
    rc, out, err = run(capsys, "train", "ranksvm", plain, model, "--query", q, "--tol", 1e-8)
    assert rc == 0, err
    assert f"3 queries (queries from {q})" in out
    direct = RankSVM(tol=1e-8).fit(X, y, qid=QID)
    rc, out, err = run(capsys, "predict", plain, model, tmp_path / "o", "--query", q, "--json")
    assert rc == 0, err
    scores = np.loadtxt(tmp_path / "o")
    np.testing.assert_allclose(scores, direct.decision_function(X), rtol=1e-9, atol=1e-12)
    assert json.loads(out) == {"pairwise_accuracy": pairwise_accuracy(y, scores, QID),
                               "mean_ndcg": mean_ndcg(y, scores, QID)}


def test_data_query_beside_data_is_used_and_said(tmp_path, capsys, plain):
    (tmp_path / "train.txt.query").write_text("8\n12\n10\n")
    rc, out, err = run(capsys, "train", "ranksvm", plain, tmp_path / "m")
    assert rc == 0, err
    assert "3 queries" in out and "train.txt.query" in out
    assert "query sizes from" in err and "as LightGBM does" in err
    (tmp_path / "train.txt.query").unlink()                               # without it
    rc, out, err = run(capsys, "train", "ranksvm", plain, tmp_path / "m2")
    assert rc == 0 and "1 queries (one query" in out
    (tmp_path / "train.txt.query").write_text("8\n12\n")                    # wrong sum
    rc, out, err = run(capsys, "train", "ranksvm", plain, tmp_path / "m3")
    assert rc == 2 and "train.txt.query" in err and "add up to 20 rows" in err


def test_qid_fields_win_over_data_query_and_conflict_with_option(tmp_path, capsys):
    data = tmp_path / "letor.txt"
    dump_svmlight_file(X, y, str(data), query_id=np.repeat([1, 2], 15), zero_based=False)
    (tmp_path / "letor.txt.query").write_text("8\n12\n10\n")
    rc, out, err = run(capsys, "train", "ranksvm", data, tmp_path / "m")
    assert rc == 0 and "2 queries (queries from qid:)" in out
    assert "ignoring" in err and "letor.txt.query" in err
    rc, out, err = run(capsys, "train", "ranksvm", data, tmp_path / "m",
                       "--query", tmp_path / "letor.txt.query")
    assert rc == 2 and "has qid: fields already" in err and err.count("\n") == 1


def test_query_option_of_other_methods(tmp_path, capsys, plain):
    q = tmp_path / "q"
    q.write_text("30\n")
    rc, _, err = run(capsys, "train", "sign", plain, tmp_path / "m", "--query", q)
    assert rc == 2 and "--query applies to ranking data" in err
