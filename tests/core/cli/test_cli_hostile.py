"""Hostile input to the ``polyrank`` command and the readers (issue 28,
items 6 and 9): malformed data files, outputs that are inputs, unwritable
outputs, crafted README tables.  Every case ends with exit status 2 and one
line of at most 300 characters on stderr naming the file (and the line),
and no input file changes.  Random bytes fed to the readers give a
ValueError with a bounded message, never another exception (hypothesis).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import dump_svmlight_file

from polyrank.cli import MESSAGE_CHARS, main
from polyrank.io import read_arff, read_csv, read_query, read_svmlight
from polyrank_paper.readme import (
    README_BENCH_END,
    README_BENCH_START,
    README_PAPER_END,
    README_PAPER_START,
)


def digest(*paths):
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


def fails(capsys, *argv, match=(), status=2):
    """Run ``polyrank argv``: assert ``status``, one stderr line of at most
    MESSAGE_CHARS characters containing every string of ``match``."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert rc == status, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and len(lines[0]) <= MESSAGE_CHARS, err
    assert "Traceback" not in err
    for m in (match,) if isinstance(match, str) else match:
        assert m in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def good(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    path = tmp_path / "rank.txt"
    dump_svmlight_file(X, np.arange(12) % 3, str(path), query_id=np.repeat([1, 2, 3], 4),
                       zero_based=False)
    return path


# ------------------------------------------------------------ data files

SVMLIGHT = {
    "bad token": (b"1 qid:1 1:0.5\n0 qid:1 1:0.25 2:abc\n", "line 2", "2:abc"),
    "unsorted indices": (b"1 qid:1 1:0.5\n0 qid:1 3:1 2:1\n", "line 2", "sorted and unique"),
    "binary garbage": (bytes(range(256)) * 8, "line 1", "not an SVMlight"),
    "empty": (b"", "no data lines", ""),
    "nan feature": (b"1 qid:1 1:0.5\n# a comment\n\n0 qid:1 1:nan\n", "line 4", "nan"),
    "index beyond C long": (b"1 qid:1 99999999999999999999:1\n", "line 1", "not an SVMlight"),
    "qid on some lines": (b"1 qid:1 1:0.5\n0 1:0.25\n", "line 2", "no qid: field"),
}


@pytest.mark.parametrize("name", list(SVMLIGHT))
def test_malformed_svmlight_files(capsys, tmp_path, name):
    content, where, what = SVMLIGHT[name]
    data = tmp_path / "data.txt"
    data.write_bytes(content)
    line = fails(capsys, "train", "ranksvm", data, tmp_path / "m",
                 match=(f"DATA {data}", where, what))
    assert line.startswith("polyrank train: DATA ")
    assert data.read_bytes() == content and not (tmp_path / "m").exists()


def test_a_30_mb_garbage_line_is_not_echoed(capsys, tmp_path):
    data = tmp_path / "huge.txt"
    data.write_bytes(b"1 qid:1 1:0.5\n" + b"2 " + b"\xfe#z" * 10_000_000 + b"\n")
    line = fails(capsys, "train", "ranksvm", data, tmp_path / "m",
                 match=("line 2", "30,000,002 characters"))
    assert line.count("z") <= 2 * 80                 # a quote, not the line


ARFF_HEAD = ("@relation r\n@attribute f numeric\n@attribute g numeric\n"
             "@attribute L1 {0,1}\n@attribute L2 {0,1}\n@data\n")
ARFF = {
    "truncated in the data": (ARFF_HEAD + "1,2,0,1\n3,4,1", "line 8", "3 values"),
    "truncated in the header": (ARFF_HEAD[:40], "no @data line", ""),
    "a bad number": (ARFF_HEAD + "1,2,0,1\n3,x,1,0\n", "line 8", "'x'"),
    "a missing value": (ARFF_HEAD + "1,?,0,1\n", "line 7", "'?' is a missing value"),
    "a label that is no 0/1": (ARFF_HEAD + "1,2,0,1\n3,4,7,0\n", "line 8", "7"),
    "too many values": (ARFF_HEAD + "1,2,0,1,5\n", "line 7", "5 values"),
    "sparse rows": (ARFF_HEAD + "{0 1, 2 1}\n", "line 7", "sparse ARFF"),
    "no data rows": (ARFF_HEAD, "no data lines", ""),
    "an unknown type": ("@relation r\n@attribute f blah\n@data\n1\n", "ARFF header", "blah"),
}


@pytest.mark.parametrize("name", list(ARFF))
def test_malformed_arff_files(capsys, tmp_path, name):
    content, where, what = ARFF[name]
    data = tmp_path / "data.arff"
    data.write_text(content)
    fails(capsys, "train", "m3l", data, tmp_path / "m", "--labels", 2,
          match=(f"DATA {data}", where, what))
    assert data.read_text() == content and not (tmp_path / "m").exists()


CSV = {
    "not a number": ("a,b,grade\n1,2,0\n3,oops,1\n", "line 3, column 'b'"),
    "ragged": ("a,b,grade\n1,2,0\n3,1\n", "line 3: 2 fields"),
    "inf": ("a,b,grade\n1,2,0\n3,inf,1\n", "line 3: column 'b' is inf"),
    "nan target": ("a,b,grade\n1,2,0\n3,1,nan\n", "line 3: the target 'grade' is nan"),
    "NUL byte": ("a,b,grade\n1,2,0\n3,\x00,1\n", "line 3"),
    "empty": ("", "no header line"),
    "repeated names": ("a,a,grade\n1,2,0\n", "line 1: repeated column names 'a'"),
}


@pytest.mark.parametrize("name", list(CSV))
def test_malformed_csv_files(capsys, tmp_path, name):
    content, where = CSV[name]
    data = tmp_path / "data.csv"
    data.write_text(content)
    fails(capsys, "train", "ordinal", data, tmp_path / "m", "--target", "grade",
          match=(f"DATA {data}", where))
    assert data.read_text() == content


def test_non_monotone_qid_groups_by_value_as_svmlight(capsys, tmp_path):
    """Rows of a query need not be consecutive (SVMlight and liblinear group
    by the qid value): interleaving the rows gives the same model."""
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(30, 3)), rng.integers(0, 3, 30)
    q = np.repeat([5, 1, 3], 10)
    order = rng.permutation(30)
    a, b = tmp_path / "sorted.txt", tmp_path / "mixed.txt"
    dump_svmlight_file(X, y, str(a), query_id=q, zero_based=False)
    dump_svmlight_file(X[order], y[order], str(b), query_id=q[order], zero_based=False)
    for f in (a, b):
        assert main(["train", "ranksvm", str(f), str(f) + ".model", "--tol", "1e-8"]) == 0
        assert main(["predict", str(a), str(f) + ".model", str(f) + ".out"]) == 0
    assert "3 queries" in capsys.readouterr().out
    sa, sb = (np.loadtxt(str(f) + ".out") for f in (a, b))
    np.testing.assert_allclose(sa, sb, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------- outputs

def test_an_output_that_is_an_input_is_refused(capsys, tmp_path, good):
    before = digest(good)
    fails(capsys, "train", "ranksvm", good, good, match=("MODEL", "same file as DATA"))
    (tmp_path / "sym.txt").symlink_to(good)
    os.link(good, tmp_path / "hard.txt")
    fails(capsys, "train", "ranksvm", good, tmp_path / "sym.txt", match="same file as DATA")
    fails(capsys, "train", "ranksvm", good, tmp_path / "hard.txt", match="same file as DATA")
    assert digest(good) == before
    model = tmp_path / "rank.model"
    assert main(["train", "ranksvm", str(good), str(model)]) == 0
    capsys.readouterr()
    model_before = digest(model)
    fails(capsys, "predict", good, model, good, match=("OUT", "same file as DATA"))
    fails(capsys, "predict", good, model, model, match=("OUT", "same file as MODEL"))
    fails(capsys, "predict", good, model, tmp_path / "sym.txt", match="same file as DATA")
    query = tmp_path / "q.query"
    query.write_text("12\n")
    fails(capsys, "predict", good, model, query, "--query", query,
          match="same file as --query")
    assert digest(good) == before and digest(model) == model_before


@pytest.mark.slow
def test_the_real_command_refuses_to_overwrite_its_data(tmp_path, good):
    before = digest(good)
    res = subprocess.run([sys.executable, "-m", "polyrank", "train", "ranksvm", str(good),
                          str(good)], capture_output=True, text=True)
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "same file as DATA" in res.stderr and digest(good) == before


def test_unwritable_outputs(capsys, tmp_path, good):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    fails(capsys, "train", "ranksvm", good, blocker / "m", match="does not exist")
    fails(capsys, "train", "ranksvm", good, tmp_path, match="is a directory")
    if os.geteuid() != 0:                            # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        os.chmod(ro, 0o500)
        fails(capsys, "train", "ranksvm", good, ro / "m", match="permission denied")
    left = sorted(set(os.listdir(tmp_path)) - {"ro"})
    assert left == ["a-file", "rank.txt"]                 # nothing half-written


# ------------------------------------------------------------ the command

def test_debug_shows_the_traceback(capsys, tmp_path, good):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1:x\n")
    rc = main(["train", "ranksvm", str(bad), str(tmp_path / "m"), "--debug"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" in err and err.strip().splitlines()[-1].startswith(
        "polyrank train: DATA")
    rc = main(["--debug", "train", "ranksvm", str(bad), str(tmp_path / "m")])
    assert rc == 2 and "Traceback" in capsys.readouterr().err


def test_an_internal_error_is_one_line(capsys, tmp_path, good, monkeypatch):
    import polyrank.io

    def broken(*args, **kwargs):
        raise IndexError("list index out of range")

    # the command imports its readers when it runs (polyrank.cli loads no numpy at its top)
    monkeypatch.setattr(polyrank.io, "read_svmlight", broken)
    fails(capsys, "train", "ranksvm", good, tmp_path / "m", status=1,
          match=("internal error: IndexError", "--debug"))


def test_a_long_option_value_is_cut(capsys, tmp_path, good):
    fails(capsys, "train", "ranksvm", good, tmp_path / "m", "-C", "x" * 5000,
          match="invalid float value")


def _readme(tmp_path, rows_bench, rows_paper):
    path = tmp_path / "README.md"
    path.write_text(f"intro\n{README_PAPER_START}\n| h |\n| --- |\n{rows_paper}\n"
                    f"{README_PAPER_END}\n\n{README_BENCH_START}\n| h |\n| --- |\n{rows_bench}\n"
                    f"{README_BENCH_END}\nend\n")
    return path


def test_a_quick_run_never_replaces_a_full_runs_row(capsys, tmp_path):
    """Refused up front, before the (long) run; the README is unchanged."""
    readme = _readme(
        tmp_path, "| `polyrank bench sopopo` | t | r | 2026-01-01 |",
        "| `sopopo-fig8` | Fig. 8 | a | b | d | 2026-01-01, `polyrank reproduce sopopo-fig8` |")
    before = digest(readme)
    fails(capsys, "bench", "sopopo", "--quick", "--k", 10, "--readme", readme,
          match=("--readme", "come from full runs", "polyrank bench sopopo"))
    fails(capsys, "reproduce", "sopopo-fig8", "--quick", "--no-progress", "--out",
          tmp_path / "out", "--readme", readme, match=("come from full runs", "sopopo-fig8"))
    fails(capsys, "reproduce", "all", "--quick", "--no-progress", "--out", tmp_path / "out",
          "--readme", readme, match="sopopo-fig8")
    assert digest(readme) == before and not (tmp_path / "out" / "sopopo-fig8.csv").exists()


def test_a_quick_run_replaces_a_quick_row(capsys, tmp_path):
    readme = _readme(
        tmp_path, "| `polyrank bench sopopo --quick` | t | old | 2026-01-01 |",
        "| `sopopo-fig8` | Fig. 8 | a | OLD | d | 2026-01-01, "
        "`polyrank reproduce sopopo-fig8 --quick` |")
    assert main(["reproduce", "sopopo-fig8", "--quick", "--no-progress", "--out",
                 str(tmp_path / "out"), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "OLD" not in text and "`polyrank reproduce sopopo-fig8 --quick`" in text
    assert text.startswith("intro\n") and text.endswith("end\n")


# ------------------------------------------------ the readers, fuzzed

def _bounded(exc: ValueError, path) -> None:
    msg = str(exc)
    assert msg.startswith(str(path)) and len(msg) <= 400, msg
    assert "\n" not in msg


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(
    st.binary(max_size=2000),
    st.lists(st.sampled_from([b"1", b" ", b"qid:", b":", b"2", b"-", b"0.5", b"\n", b"#",
                              b"nan", b"e9", b",", b"\x00", b"9" * 30]),
             max_size=60).map(b"".join)))
def test_random_bytes_into_the_svmlight_reader(tmp_path, content):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(content)
    for kw in ({}, {"query_id": True}, {"multilabel": True}):
        try:
            d = read_svmlight(path, **kw)
        except ValueError as exc:
            _bounded(exc, path)
        else:
            assert np.all(np.isfinite(d.X.data)) and d.X.shape[0] >= 1


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 200), junk=st.binary(max_size=50), pos=st.integers(0, 200))
def test_truncated_and_spoiled_arff(tmp_path, cut, junk, pos):
    """A valid file cut anywhere, with bytes spliced in anywhere."""
    text = (ARFF_HEAD + "1,2,0,1\n3,4,1,0\n% comment\n5,6,1,1\n").encode()
    content = text[:pos] + junk + text[pos:]
    content = content[:len(content) - cut]
    path = tmp_path / "fuzz.arff"
    path.write_bytes(content)
    try:
        d = read_arff(path, 2)
    except ValueError as exc:
        _bounded(exc, path)
    else:
        assert np.all(np.isfinite(d.X)) and set(np.unique(d.y)) <= {0, 1}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=500))
def test_random_bytes_into_the_csv_and_query_readers(tmp_path, content):
    path = tmp_path / "fuzz.csv"
    path.write_bytes(content)
    for read in (lambda: read_csv(path, target="y"), lambda: read_query(path, 5)):
        try:
            read()
        except ValueError as exc:
            _bounded(exc, path)
