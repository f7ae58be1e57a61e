"""Outputs that respect what they are (issue 44, item 2).

Only a regular file (or a new path) is replaced by a temporary file and a
rename; a device, a named FIFO, a pipe or ``/dev/stdout`` is opened and
written through, and a write error (ENOSPC) is a one-line error naming OUT
(or MODEL) with a non-zero exit; OUT ``-`` is standard output.

The devices are made by ``os.mknod`` under ``tmp_path`` (a character device
with the numbers of ``/dev/null`` (1, 3) and ``/dev/full`` (1, 7)), never
the machine's own ``/dev/null`` or ``/dev/full``: the old code replaced the
node it wrote to.  Without the right to make a device node those cases are
skipped.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from polyrank._files import atomic_open, atomic_path, write_bytes, write_text, writes_through
from polyrank.cli import main

pytestmark = pytest.mark.hostile


def make_device(path, minor: int):
    """A character device at ``path`` with the numbers of /dev/null (minor 3)
    or /dev/full (minor 7); the test is skipped where mknod is not allowed."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return path


def is_char_device(path) -> bool:
    return stat.S_ISCHR(os.lstat(path).st_mode)


class FifoReader(threading.Thread):
    """Reads a named FIFO to its end in a thread (a writer's open blocks until
    a reader has opened it)."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.data = path, b""

    def run(self):
        with open(self.path, "rb") as fh:
            self.data = fh.read()


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "out.fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def ranking(tmp_path, capsys):
    """(DATA, MODEL) of a small ranking problem fitted by ``polyrank train``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 4))
    y = np.clip(np.round(X @ [1.0, -0.5, 0.3, 0.0] + 1), 0, 3)
    data = tmp_path / "rank.txt"
    dump_svmlight_file(X, y, str(data), query_id=np.repeat([3, 7, 9], 8), zero_based=False)
    model = tmp_path / "rank.model"
    assert main(["train", "ranksvm", str(data), str(model)]) == 0
    capsys.readouterr()
    return data, model


# ------------------------------------------------------------ the writer


def test_what_is_written_through(tmp_path, fifo):
    regular = tmp_path / "f.txt"
    regular.write_text("x")
    assert not writes_through(regular) and not writes_through(tmp_path / "new.txt")
    assert not writes_through(tmp_path)                 # a directory: refused elsewhere
    assert writes_through(fifo)
    assert writes_through("/dev/stdout") and writes_through("/dev/fd/1")
    link = tmp_path / "link"
    link.symlink_to(fifo)
    assert writes_through(link)                        # a link to a FIFO: the FIFO


@pytest.mark.parametrize("writer", ["atomic_open", "write_text", "atomic_path"])
def test_a_named_fifo_is_written_through_not_replaced(fifo, writer):
    reader = FifoReader(fifo)
    reader.start()
    if writer == "atomic_open":
        with atomic_open(fifo, "w") as fh:
            fh.write("1.5\n2.5\n")
    elif writer == "write_text":
        write_text(fifo, "1.5\n2.5\n")
    else:
        with atomic_path(fifo) as tmp:
            assert tmp.parent != fifo.parent         # no temporary beside the FIFO
            tmp.write_text("1.5\n2.5\n")
    reader.join(timeout=60)
    assert reader.data == b"1.5\n2.5\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in fifo.parent.iterdir()) == ["out.fifo"]


def test_a_pipe_through_proc_fd_is_written_through():
    r, w = os.pipe()
    try:
        write_bytes(f"/proc/self/fd/{w}", b"through the pipe\n")
    finally:
        os.close(w)
    with os.fdopen(r, "rb") as fh:
        assert fh.read() == b"through the pipe\n"


def test_a_null_device_stays_a_device(tmp_path):
    null = make_device(tmp_path / "null", 3)
    write_text(null, "gone\n")
    with atomic_open(null, "wb") as fh:
        fh.write(b"gone too")
    assert is_char_device(null) and os.listdir(tmp_path) == ["null"]


def test_a_full_device_raises_enospc_naming_it(tmp_path):
    full = make_device(tmp_path / "full", 7)
    with pytest.raises(OSError) as info:
        write_text(full, "x" * 100_000)
    assert info.value.errno == 28 and info.value.filename == str(full)
    assert is_char_device(full) and os.listdir(tmp_path) == ["full"]


# --------------------------------------------------------------- the CLI


def test_predict_into_a_null_device_keeps_it(tmp_path, capsys, ranking):
    data, model = ranking
    null = make_device(tmp_path / "null", 3)
    assert main(["predict", str(data), str(model), str(null)]) == 0
    assert "Pairwise Accuracy" in capsys.readouterr().out
    assert is_char_device(null)


def test_predict_into_a_full_device_is_a_one_line_enospc(tmp_path, capsys, ranking):
    data, model = ranking
    full = make_device(tmp_path / "full", 7)
    assert main(["predict", str(data), str(model), str(full)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OUT" in err and str(full) in err
    assert "No space left on device" in err and "internal error" not in err
    assert is_char_device(full)


def test_train_into_a_full_device_names_model(tmp_path, capsys, ranking):
    data, _ = ranking
    full = make_device(tmp_path / "full", 7)
    assert main(["train", "ranksvm", str(data), str(full)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polyrank train: MODEL")
    assert "No space left on device" in err and is_char_device(full)


def test_predict_into_a_named_fifo(capsys, ranking, fifo):
    data, model = ranking
    reader = FifoReader(fifo)
    reader.start()
    assert main(["predict", str(data), str(model), str(fifo)]) == 0
    reader.join(timeout=60)
    assert len(reader.data.decode().splitlines()) == 24
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_dash_is_standard_output_and_metrics_go_to_stderr(capsys, ranking):
    data, model = ranking
    assert main(["predict", str(data), str(model), "-"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 24 and all(float(v) == float(v) for v in out.split())
    assert "Pairwise Accuracy" in err and "Pairwise" not in out
    assert not os.path.exists("-")


@pytest.mark.slow
def test_dev_stdout_into_a_pipe(ranking):
    """``polyrank predict ... /dev/stdout | reader``: the lines arrive (it
    failed with a path under /proc)."""
    data, model = ranking
    proc = subprocess.run([sys.executable, "-m", "polyrank", "predict", str(data), str(model),
                           "/dev/stdout"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len([v for v in lines if not v.startswith(("Pairwise", "Mean"))]) == 24
