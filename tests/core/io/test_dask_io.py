"""``polyrank.io.load_letor_dask`` (issue 31, item 3) and the core without
dask (item 7): LETOR files read lazily into dask arrays, one partition per
file or per byte range cut at query boundaries, equal to
:func:`polyrank.io.read_svmlight`; errors name the file and its line; the
core imports and says which extra to install when dask is missing."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from polyrank.datasets import data_path
from polyrank.io import read_svmlight

dask = pytest.importorskip("dask")

from polyrank.io import load_letor_dask  # noqa: E402


def _compute(d):
    return dask.compute(d.X, d.y, d.qid, scheduler="sync")


def _parts(d):
    return dask.compute(*d.qid.to_delayed().ravel(), scheduler="sync")


@pytest.mark.parametrize("blocksize", [None, 150_000, 700_000])
def test_files_and_byte_ranges_equal_read_svmlight(blocksize):
    paths = [data_path("MQ2008", "vali.txt"), data_path("MQ2008", "test.txt")]
    refs = [read_svmlight(p, query_id=True, n_features=46) for p in paths]
    d = load_letor_dask(paths, n_features=46, blocksize=blocksize)
    X, y, qid = _compute(d)
    np.testing.assert_array_equal(X.toarray(), np.vstack([r.X.toarray() for r in refs]))
    np.testing.assert_array_equal(y, np.concatenate([r.y for r in refs]))
    np.testing.assert_array_equal(qid, np.concatenate([r.qid for r in refs]))
    parts = _parts(d)
    if blocksize is None:
        assert len(parts) == 2
    else:
        assert len(parts) > 2
    # a query never lies in two partitions (LETOR files keep a query's lines together)
    seen = np.concatenate([np.unique(p) for p in parts])
    assert np.unique(seen).size == seen.size


def _write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_long_query_leaves_empty_ranges_and_stays_whole(tmp_path):
    lines = [f"{i % 3} qid:{1 if i < 40 else 2} 1:{i} 3:0.5 # doc {i}" for i in range(60)]
    path = _write(tmp_path, "long.txt", ["# a comment line first"] + lines)
    d = load_letor_dask(path, n_features=3, blocksize=64)
    parts = _parts(d)
    assert sum(p.size for p in parts) == 60
    assert sum(p.size == 0 for p in parts) > 0
    assert [np.unique(p).tolist() for p in parts if p.size] == [[1], [2]]


def test_a_bad_line_in_a_later_range_is_named_with_its_file_line(tmp_path):
    lines = [f"{i % 3} qid:{i // 10} 1:0.{i} 2:1" for i in range(200)]
    lines[157] = "1 qid:15 1:0.5 2:abc"
    path = _write(tmp_path, "bad.txt", lines)
    d = load_letor_dask(path, n_features=2, blocksize=1000)
    with pytest.raises(ValueError, match=r"bad\.txt, line 158: not an SVMlight.*2:abc"):
        _compute(d)


def test_nan_labels_wide_rows_and_missing_qid_name_their_lines(tmp_path):
    ok = [f"1 qid:{i // 5} 1:0.5" for i in range(40)]
    nan = ok[:33] + ["nan qid:6 1:0.5"] + ok[34:]
    d = load_letor_dask(_write(tmp_path, "nan.txt", nan), n_features=1, blocksize=200)
    with pytest.raises(ValueError, match=r"nan\.txt, line 34: a label is nan"):
        _compute(d)
    wide = ok[:25] + ["1 qid:5 1:0.5 4:1"] + ok[26:]
    d = load_letor_dask(_write(tmp_path, "wide.txt", wide), n_features=2, blocksize=200)
    with pytest.raises(ValueError, match=r"wide\.txt: has 4 features, expected at most 2 "
                                         r"\(line 26 has feature index 4\)"):
        _compute(d)
    noq = ok[:30] + ["1 1:0.5"] + ok[31:]
    d = load_letor_dask(_write(tmp_path, "noq.txt", noq), n_features=1, blocksize=200)
    with pytest.raises(ValueError, match=r"noq\.txt, line 31: no qid: field"):
        _compute(d)
    d = load_letor_dask(_write(tmp_path, "plain.txt", ["1 1:0.5", "0 1:1"]), n_features=1)
    with pytest.raises(ValueError, match=r"plain\.txt: no line has a qid: field"):
        _compute(d)


def test_reading_waits_for_compute_and_arguments_are_checked(tmp_path):
    path = _write(tmp_path, "lazy.txt", [f"1 qid:{i} 1:0.5" for i in range(10)])
    d = load_letor_dask(path, n_features=1)
    path.unlink()                              # nothing was read yet
    with pytest.raises(FileNotFoundError):
        _compute(d)
    with pytest.raises(FileNotFoundError):
        load_letor_dask(path, n_features=1)    # the sizes are needed now
    with pytest.raises(ValueError, match="paths: no file given"):
        load_letor_dask([], n_features=1)
    with pytest.raises(ValueError, match="n_features: expected an integer >= 1"):
        load_letor_dask(data_path("MQ2008", "vali.txt"), n_features=0)
    with pytest.raises(ValueError, match="blocksize: expected None or an integer >= 1"):
        load_letor_dask(data_path("MQ2008", "vali.txt"), n_features=46, blocksize=0)


_NO_DASK = textwrap.dedent("""
    import sys
    class _NoDask:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("dask", "distributed"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, _NoDask())
""")


@pytest.mark.slow
def test_the_core_works_without_dask_and_names_the_extra(tmp_path):
    code = _NO_DASK + textwrap.dedent("""
        import numpy as np
        import polyrank, polyrank.dask, polyrank.io
        from polyrank.dask import DaskRankSVM, DaskSignConstrainedClassifier
        X = np.eye(4); y = np.array([0, 1, 2, 1.0]); q = np.array([1, 1, 2, 2])
        print(polyrank.RankSVM().fit(X, y, qid=q).n_pairs_)
        for fit in (lambda: DaskRankSVM().fit(X, y, qid=q),
                    lambda: DaskSignConstrainedClassifier().fit(X, y),
                    lambda: polyrank.dask.make_ranking(100),
                    lambda: polyrank.io.load_letor_dask("x.txt", n_features=3)):
            try:
                fit()
            except ImportError as exc:
                print("ImportError:", exc)
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed")))
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "2"
    errors = [ln for ln in lines if ln.startswith("ImportError:")]
    assert len(errors) == 4 and all("pip install 'polyrank[dask]'" in e for e in errors)
    assert lines[-1] == "[]"
