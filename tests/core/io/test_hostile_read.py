"""Hostile input, second round (issue 44, items 1 and 3): a data file is
opened and read once, through the right decompressor, whatever it is (a
FIFO, a pipe); its errors name the file and the line from what was read;
NUL bytes and lines over :data:`polyrank.io.MAX_LINE_BYTES` are refused;
a model file's members are bounded (zip bombs, lying array headers) before
any is read.
"""

from __future__ import annotations

import gzip
import io
import lzma
import os
import shutil
import subprocess
import sys
import threading
import zipfile

import numpy as np
import pytest

import polyrank.io as pio
from polyrank import _memory
from polyrank.cli import MESSAGE_CHARS, main
from polyrank.io import (
    load_letor_dask,
    load_model,
    read_arff,
    read_csv,
    read_query,
    read_svmlight,
    save_model,
)

pytestmark = pytest.mark.hostile


def letor_lines(n=60, bad=None):
    """``n`` LETOR lines (6 queries); line ``bad`` (1-based) spoiled."""
    rng = np.random.default_rng(0)
    lines = [f"{i % 3} qid:{i // 10} " + " ".join(f"{j}:{rng.normal():.4f}" for j in range(1, 6))
             for i in range(n)]
    if bad is not None:
        lines[bad - 1] = "2 qid:5 1:0.5 2:abc 3:1"
    return ("\n".join(lines) + "\n").encode()


def fails(capsys, *argv, match=(), status=2):
    """``polyrank argv`` ends with ``status`` and one stderr line holding
    every string of ``match``."""
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert rc == status, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and len(lines[0]) <= MESSAGE_CHARS, err
    for m in (match,) if isinstance(match, str) else match:
        assert m in lines[0], lines[0]
    return lines[0]


class Feeder(threading.Thread):
    """Write ``chunks`` (an iterable of bytes) into the FIFO or pipe ``target``
    (a path or a write file descriptor), counting the bytes written, until
    the reader leaves."""

    def __init__(self, target, chunks):
        super().__init__(daemon=True)
        self.target, self.chunks, self.written, self.opened = target, chunks, 0, 0

    def run(self):
        fd = self.target if isinstance(self.target, int) else os.open(self.target, os.O_WRONLY)
        self.opened += 1
        try:
            for chunk in self.chunks:
                view = memoryview(chunk)
                while view:
                    n = os.write(fd, view)
                    self.written += n
                    view = view[n:]
        except BrokenPipeError:
            pass                                 # the reader has gone: stop
        finally:
            os.close(fd)


# --------------------------------------------------- compressed data files

def test_a_gz_file_is_read_through_its_decompressor(tmp_path):
    plain, packed = tmp_path / "a.txt", tmp_path / "a.txt.gz"
    plain.write_bytes(letor_lines())
    packed.write_bytes(gzip.compress(letor_lines()))
    xz = tmp_path / "no-suffix"                  # told by its first bytes, not its name
    xz.write_bytes(lzma.compress(letor_lines()))
    a = read_svmlight(plain, query_id=True)
    for other in (packed, xz):
        b = read_svmlight(other, query_id=True)
        assert (a.X != b.X).nnz == 0 and np.array_equal(a.y, b.y)
        assert np.array_equal(a.qid, b.qid)


def test_a_truncated_gz_names_the_line_it_ends_in(tmp_path, capsys):
    packed = gzip.compress(letor_lines())
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(packed[:len(packed) // 2])
    with pytest.raises(ValueError, match=r"cut\.txt\.gz, line \d+: damaged or truncated gzip"):
        read_svmlight(path, query_id=True)
    line = fails(capsys, "train", "ranksvm", path, tmp_path / "m",
                 match=(f"DATA {path}, line", "truncated gzip"))
    assert "\\x1f" not in line and "AssertionError" not in line


def test_a_bad_value_on_line_51_of_a_gz_is_quoted_decompressed(tmp_path, capsys):
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(gzip.compress(letor_lines(bad=51)))
    with pytest.raises(ValueError, match=r"bad\.txt\.gz, line 51: not an SVMlight/LIBSVM "
                                         r"file \(.*\): '2 qid:5 1:0\.5 2:abc 3:1'$"):
        read_svmlight(path, query_id=True)
    line = fails(capsys, "train", "ranksvm", path, tmp_path / "m",
                 match=("line 51", "2:abc"))
    assert "\\x" not in line


def test_a_damaged_compressed_file_is_a_value_error(tmp_path):
    packed = bytearray(gzip.compress(letor_lines()))
    packed[40:60] = b"\xff" * 20
    path = tmp_path / "spoiled.gz"
    path.write_bytes(bytes(packed))
    for read in (lambda: read_svmlight(path), lambda: read_csv(path, target="y"),
                 lambda: read_query(path, 5), lambda: read_arff(path, 1)):
        with pytest.raises(ValueError, match=r"spoiled\.gz"):
            read()


# --------------------------------------------------------- FIFOs and pipes

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
def test_a_named_fifo_is_read_once(tmp_path):
    fifo = tmp_path / "data.fifo"
    os.mkfifo(fifo)
    feeder = Feeder(fifo, [letor_lines()])
    feeder.start()
    d = read_svmlight(fifo, query_id=True)
    feeder.join(10)
    assert d.X.shape == (60, 5) and np.unique(d.qid).size == 6 and feeder.opened == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
def test_a_bad_line_in_a_fifo_is_named_without_reopening_it(tmp_path):
    """The error path used to open the file again (by name): on a FIFO
    whose writer has finished that blocks for ever.  Also a non-finite
    value, whose line is found after the parse."""
    for bad, expect in ((letor_lines(bad=51), "line 51: not an SVMlight"),
                        (letor_lines().replace(b"-0.5443", b"nan"), "line 4: a feature "
                                                                     "value is nan")):
        fifo = tmp_path / f"data{len(expect)}.fifo"
        os.mkfifo(fifo)
        feeder = Feeder(fifo, [bad])
        feeder.start()
        with pytest.raises(ValueError, match=expect):
            read_svmlight(fifo, query_id=True)
        feeder.join(10)
        assert not feeder.is_alive()


def test_a_pipe_by_its_dev_fd_name(tmp_path):
    r, w = os.pipe()
    feeder = Feeder(w, [letor_lines(bad=7)])
    feeder.start()
    try:
        with pytest.raises(ValueError, match=rf"/dev/fd/{r}, line 7: .*'2 qid:5 1:0.5 2:abc"):
            read_svmlight(f"/dev/fd/{r}", query_id=True)
    finally:
        os.close(r)
        feeder.join(10)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None or not os.path.exists("/dev/fd"),
                    reason="needs bash's process substitution")
def test_train_from_a_process_substitution(tmp_path):
    """``polyrank train ranksvm <(sed ... file)``: the good file trains, the
    spoiled one ends in a one-line error naming /dev/fd/N and the line.
    Slow: three commands in new processes, one fit (a compile on an empty
    numba cache); test_a_pipe_by_its_dev_fd_name is the quick one."""
    data = tmp_path / "a.txt"
    data.write_bytes(letor_lines())
    cmd = (f"{sys.executable} -m polyrank train ranksvm <(sed 's/-0.5443/{{}}/' {data}) "
           f"{tmp_path}/m")
    ok = subprocess.run(["bash", "-c", cmd.format("-0.5")], capture_output=True, text=True,
                        timeout=600)
    assert ok.returncode == 0, ok.stderr
    assert "60 rows x 5 features, 6 queries" in ok.stdout
    for junk, expect in (("abc", "line 4: not an SVMlight"), ("nan", "line 4: a feature")):
        bad = subprocess.run(["bash", "-c", cmd.format(junk)], capture_output=True,
                             text=True, timeout=600)
        err = [e for e in bad.stderr.splitlines() if not e.startswith("compiling")]
        assert bad.returncode == 2 and len(err) == 1, bad.stderr
        assert "DATA /dev/fd/" in err[0] and expect in err[0], err


# ------------------------------------------------ long lines and NUL bytes

@pytest.mark.parametrize("reader", ["svmlight", "csv", "arff", "query"])
def test_a_line_over_the_cap_is_refused_with_its_line(tmp_path, monkeypatch, reader):
    monkeypatch.setattr(pio, "MAX_LINE_BYTES", 100)
    path = tmp_path / "long"
    head = {"svmlight": "1 1:0.5\n", "csv": "a,y\n1,2\n",
            "arff": "@relation r\n@attribute a numeric\n@data\n", "query": "2\n"}[reader]
    path.write_text(head + "1" * 101 + "\n")
    read = {"svmlight": lambda: read_svmlight(path), "csv": lambda: read_csv(path, "y"),
            "arff": lambda: read_arff(path, 1), "query": lambda: read_query(path, 2)}[reader]
    line = head.count("\n") + 1
    with pytest.raises(ValueError, match=rf"long, line {line}: .*longer than 100 "
                                         r"(bytes|characters).*MAX_LINE_BYTES"):
        read()
    path.write_text(head + "1" * 100 + "\n")       # at the cap: not refused for its length
    try:
        read()
    except ValueError as exc:
        assert "longer than" not in str(exc)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
def test_a_line_just_over_the_real_cap_stops_the_reading(tmp_path):
    """A line of MAX_LINE_BYTES + 1 bytes, then an endless stream: refused
    after about the cap was read (nothing written to disk, the memory
    bounded), with its file and line."""
    fifo = tmp_path / "endless.fifo"
    os.mkfifo(fifo)
    cap = pio.MAX_LINE_BYTES
    block = b"1" * (1 << 20)

    def endless():
        yield b"1 qid:1 1:0.5\n2 qid:1 1:"
        while True:
            yield block

    feeder = Feeder(fifo, endless())
    feeder.start()
    with pytest.raises(ValueError, match=rf"endless\.fifo, line 2: .*longer than {cap:,} "
                                         "bytes"):
        read_svmlight(fifo, query_id=True)
    feeder.join(30)
    assert not feeder.is_alive()
    assert cap < feeder.written < cap + (8 << 20)       # the rest was never read


@pytest.mark.parametrize("reader", ["svmlight", "csv", "arff", "query"])
def test_nul_bytes_are_refused_with_file_and_line(tmp_path, reader):
    path = tmp_path / "nul"
    text = {"svmlight": b"1 1:0.5\n1 1:0\x005\n", "csv": b"a,y\n1,2\n3,\x00\n",
            "arff": b"@relation r\n@attribute a numeric\n@data\n1\n\x00\n",
            "query": b"2\n\x003\n"}[reader]
    path.write_bytes(text)
    read = {"svmlight": lambda: read_svmlight(path), "csv": lambda: read_csv(path, "y"),
            "arff": lambda: read_arff(path, 1), "query": lambda: read_query(path, 5)}[reader]
    line = text[:text.index(b"\0")].count(b"\n") + 1
    with pytest.raises(ValueError, match=rf"nul, line {line}: .*a NUL byte"):
        read()


# ------------------------------------------------------------- CSV targets

def test_a_text_cell_in_a_numeric_target_is_named(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("a,b,grade\n1,2,0\n3,4,1\n5,6,x\n7,8,2\n")
    with pytest.raises(ValueError, match=r"t\.csv, line 4, column 'grade': 'x' is not a "
                                         "number"):
        read_csv(path, target="grade", numeric_target=True)
    assert read_csv(path, target="grade").y.tolist() == ["0", "1", "x", "2"]
    fails(capsys, "train", "ordinal", path, tmp_path / "m", "--target", "grade",
          match=(f"DATA {path}, line 4, column 'grade': 'x' is not a number",))


# ------------------------------------------------------------ Dask loader

def test_load_letor_dask_refuses_byte_ranges_of_compressed_files(tmp_path):
    pytest.importorskip("dask")
    path = tmp_path / "a.txt.gz"
    path.write_bytes(gzip.compress(letor_lines()))
    with pytest.raises(ValueError, match=r"a\.txt\.gz: a gzip-compressed file cannot be "
                                         r"read in byte ranges .*set blocksize=None"):
        load_letor_dask([path], n_features=5, blocksize=1000)
    d = load_letor_dask([path], n_features=5)            # whole: through the decompressor
    assert d.X.compute().shape == (60, 5)


# ------------------------------------------------------------- model files

@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    from polyrank import RankSVM

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 4)), np.arange(30) % 3
    path = tmp_path_factory.mktemp("model") / "rank.model"
    save_model(path, RankSVM().fit(X, y, qid=np.zeros(30)), method="ranksvm")
    return path


def rewrite(src, dst, replace):
    """Copy the zip archive ``src`` to ``dst``, member ``name`` replaced by
    ``replace[name]`` (bytes) when given, deflated."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
        for info in a.infolist():
            b.writestr(info.filename, replace.get(info.filename, a.read(info)))


def npy_members(path):
    with zipfile.ZipFile(path) as a:
        return [i.filename for i in a.infolist() if i.filename.endswith(".npy")]


def npy_bytes(array):
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def test_a_zip_bomb_member_is_refused_before_it_is_read(model_file, tmp_path):
    """A member inflating 1000 times to 24 MB (above MODEL_RATIO_FLOOR) is
    refused from the archive's directory, naming the member."""
    member = npy_members(model_file)[0]
    bomb = tmp_path / "bomb.model"
    rewrite(model_file, bomb, {member: npy_bytes(np.zeros(3 * 2 ** 20))})
    assert bomb.stat().st_size < 200_000
    with pytest.raises(ValueError, match=rf"bomb\.model: member '{member}' inflates .* to "
                                         r"25,165,952 \(.* times, more than max_ratio=200\)"):
        load_model(bomb)


def test_a_member_inflating_50_times_above_a_lowered_bound(model_file, tmp_path,
                                                           monkeypatch):
    monkeypatch.setattr(pio, "MODEL_RATIO_FLOOR", 1000)
    member = npy_members(model_file)[0]
    fifty = tmp_path / "fifty.model"
    rewrite(model_file, fifty, {member: npy_bytes(np.repeat(np.arange(500.0), 40))})
    with zipfile.ZipFile(fifty) as a:
        info = a.getinfo(member)
        assert 30 < info.file_size / info.compress_size < 300
    with pytest.raises(ValueError, match=rf"member '{member}' inflates .* more than "
                                         r"max_ratio=10\)"):
        load_model(fifty, max_ratio=10)
    with zipfile.ZipFile(fifty) as a:                  # no bound: the check passes
        pio.model_files._check_members(str(fifty), a, None, None)


def test_members_beyond_the_memory_available_are_refused(model_file, monkeypatch):
    monkeypatch.setattr(_memory, "available_bytes", lambda: 1000)
    with pytest.raises(MemoryError, match=r"rank\.model: (member '.*'|a model file)"):
        load_model(model_file)


def test_an_array_header_that_disagrees_with_its_member(model_file, tmp_path, capsys):
    member = npy_members(model_file)[0]
    liar = tmp_path / "liar.model"
    data = npy_bytes(np.zeros(4)).replace(b"(4,)", b"(9999,)", 1)
    end = data.index(b"\n")
    data = data[:end - 3] + data[end:]                 # the header's length kept
    rewrite(model_file, liar, {member: data})
    with pytest.raises(ValueError, match=rf"liar\.model: member '{member}': its header "
                                         r"declares a \(9999,\) float64 array \(79,992 "
                                         r"bytes\), the member holds 32 bytes"):
        load_model(liar)
    data = tmp_path / "d.txt"
    data.write_bytes(letor_lines())
    fails(capsys, "predict", data, liar, tmp_path / "out",
          match=(f"MODEL {liar}: member '{member}'",))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named FIFOs")
def test_a_model_file_from_a_fifo_is_read_once(model_file, tmp_path):
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    feeder = Feeder(fifo, [model_file.read_bytes()])
    feeder.start()
    est, meta = load_model(fifo)
    feeder.join(10)
    assert meta["method"] == "ranksvm" and feeder.opened == 1


def test_byte_ranges_bound_their_lines(tmp_path, monkeypatch):
    """Finding a query boundary reads at most MAX_LINE_BYTES of a line."""
    pytest.importorskip("dask")
    monkeypatch.setattr(pio, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "long.txt"
    path.write_bytes(letor_lines(20) + b"1 qid:9 1:" + b"1" * 5000 + b"\n" + letor_lines(20))
    with pytest.raises(ValueError, match=r"long\.txt: (a line longer than 1,000 bytes|no "
                                         r"data line ends).*MAX_LINE_BYTES"):
        load_letor_dask([path], n_features=5, blocksize=1500).X.compute()
