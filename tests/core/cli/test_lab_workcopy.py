"""``polyrank lab`` opens a working copy of the notebooks (issue 41, item 4):
running the tour never changes the repository's notebooks, and a user's
changes to the copy are never overwritten silently."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from polyrank import _workcopy, cli
from polyrank._workcopy import MANIFEST, source_files, sync_working_copy

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "notebooks"
    (src / "figures").mkdir(parents=True)
    (src / "00_tour.ipynb").write_text('{"tour": 1}')
    (src / "01_a.ipynb").write_text('{"a": 1}')
    (src / "figures" / "f.png").write_bytes(b"\x89PNG1")
    for junk in ("conftest.py", "__init__.py", "sanitize.cfg"):
        (src / junk).write_text("# tests only")
    (src / ".ipynb_checkpoints").mkdir()
    (src / ".ipynb_checkpoints" / "00_tour-checkpoint.ipynb").write_text("{}")
    return src


def test_a_first_sync_copies_the_notebooks_with_their_layout(source, tmp_path):
    work = tmp_path / "home" / "polyrank-notebooks"
    report = sync_working_copy(source, work)
    assert report.copied == ["00_tour.ipynb", "01_a.ipynb", "figures/f.png"]
    assert source_files(work) == report.copied          # nothing else, same layout
    assert (work / "figures" / "f.png").read_bytes() == b"\x89PNG1"
    manifest = json.loads((work / MANIFEST).read_text())
    assert manifest["source"] == str(source) and set(manifest["files"]) == set(report.copied)
    again = sync_working_copy(source, work)
    assert again.current == report.copied and not (again.copied or again.updated or again.kept)


def test_a_copy_left_alone_follows_the_repository(source, tmp_path):
    work = tmp_path / "work"
    sync_working_copy(source, work)
    (source / "01_a.ipynb").write_text('{"a": 2}')          # a newer version (git pull)
    (source / "02_new.ipynb").write_text('{"new": 1}')
    report = sync_working_copy(source, work)
    assert report.updated == ["01_a.ipynb"] and report.copied == ["02_new.ipynb"]
    assert (work / "01_a.ipynb").read_text() == '{"a": 2}'
    assert "updated from the repository: 01_a.ipynb" in report.summary()


def test_a_copy_the_user_changed_is_kept_and_said_so(source, tmp_path):
    work = tmp_path / "work"
    sync_working_copy(source, work)
    (work / "00_tour.ipynb").write_text('{"tour": "run by the user"}')
    report = sync_working_copy(source, work)
    assert report.kept == ["00_tour.ipynb"] and report.kept_newer == []
    assert "kept (changed since they were copied): 00_tour.ipynb" in report.summary()
    (source / "00_tour.ipynb").write_text('{"tour": 2}')      # and the repository moves on
    for _ in range(2):                                        # said every time, never copied
        report = sync_working_copy(source, work)
        assert report.kept_newer == ["00_tour.ipynb"]
        assert (work / "00_tour.ipynb").read_text() == '{"tour": "run by the user"}'
    assert "newer version (remove your copy to get it): 00_tour.ipynb" in report.summary()
    (work / "00_tour.ipynb").unlink()                         # the user asks for it
    assert sync_working_copy(source, work).copied == ["00_tour.ipynb"]
    assert (work / "00_tour.ipynb").read_text() == '{"tour": 2}'


def test_files_of_a_folder_polyrank_never_copied_to_are_kept(source, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "00_tour.ipynb").write_text("mine")
    (work / MANIFEST).write_text("not json")                  # a broken manifest: no record
    report = sync_working_copy(source, work)
    assert report.kept == ["00_tour.ipynb"] and (work / "00_tour.ipynb").read_text() == "mine"
    assert "01_a.ipynb" in report.copied


def test_an_interrupted_sync_leaves_whole_files_and_recovers(source, tmp_path, monkeypatch):
    work = tmp_path / "work"
    calls = []

    def failing(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(path, data)

    real = _workcopy.write_bytes
    monkeypatch.setattr(_workcopy, "write_bytes", failing)
    with pytest.raises(OSError, match="disk full"):
        sync_working_copy(source, work)
    monkeypatch.setattr(_workcopy, "write_bytes", real)
    assert not (work / "01_a.ipynb").exists() and not (work / MANIFEST).exists()
    report = sync_working_copy(source, work)       # the first file: current, not "kept"
    assert report.current == ["00_tour.ipynb"] and not report.kept
    assert report.copied == ["01_a.ipynb", "figures/f.png"]


def test_bad_folders_are_refused(source, tmp_path):
    with pytest.raises(ValueError, match="source"):
        sync_working_copy(tmp_path / "missing", tmp_path / "work")
    with pytest.raises(ValueError, match="workdir"):
        sync_working_copy(source, source)
    with pytest.raises(ValueError, match="workdir"):
        sync_working_copy(source, source / "work")


def test_the_default_working_copy(monkeypatch, tmp_path):
    monkeypatch.delenv("POLYRANK_LAB_DIR", raising=False)
    assert _workcopy.default_workdir() == Path.home() / "polyrank-notebooks"
    monkeypatch.setenv("POLYRANK_LAB_DIR", str(tmp_path / "x"))
    assert _workcopy.default_workdir() == tmp_path / "x"


# ---------------------------------------------------------------- the command
def _run_lab(monkeypatch, args):
    """``polyrank lab ARGS`` with JupyterLab replaced by a recorder; returns
    (exit status, the command it would run)."""
    ran = []
    monkeypatch.setattr("subprocess.call", lambda cmd: ran.append(cmd) or 0)
    status = cli.main(["lab", *args])
    return status, ran[0] if ran else None


def test_the_command_copies_then_opens_the_copy(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(REPO)
    tour = (REPO / "notebooks" / "00_tour.ipynb").read_bytes()
    work = tmp_path / "work"
    status, cmd = _run_lab(monkeypatch, ["--workdir", str(work)])
    assert status == 0 and f"--ServerApp.root_dir={work}" in cmd
    assert "--LabApp.default_url=/lab/tree/00_tour.ipynb" in cmd
    assert (work / "00_tour.ipynb").read_bytes() == tour
    assert sorted(p.name for p in work.glob("*.ipynb")) == sorted(
        p.name for p in (REPO / "notebooks").glob("*.ipynb"))
    err = capsys.readouterr().err
    assert f"working copy of the notebooks: {work}" in err and "copied: 00_tour.ipynb" in err
    (work / "00_tour.ipynb").write_text("run")             # JupyterLab's autosave
    status, _ = _run_lab(monkeypatch, ["--workdir", str(work)])
    assert "kept (changed since they were copied): 00_tour.ipynb" in capsys.readouterr().err
    assert (REPO / "notebooks" / "00_tour.ipynb").read_bytes() == tour


def test_a_repository_notebook_opens_in_the_copy_from_anywhere(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)          # not a clone: the installed clone's notebooks
    monkeypatch.setenv("POLYRANK_LAB_DIR", str(tmp_path / "w"))
    assert cli.main(["lab", "--print-command", str(REPO / "notebooks" / "04_ranksvm.ipynb")]) == 0
    cmd = shlex.split(capsys.readouterr().out)
    assert f"--ServerApp.root_dir={tmp_path / 'w'}" in cmd
    assert "--LabApp.default_url=/lab/tree/04_ranksvm.ipynb" in cmd


def test_a_notebook_outside_the_repository_opens_where_it_is(monkeypatch, tmp_path, capsys):
    mine = tmp_path / "my notes" / "x.ipynb"
    mine.parent.mkdir()
    mine.write_text("{}")
    status, cmd = _run_lab(monkeypatch, [str(mine), "--workdir", str(tmp_path / "w")])
    assert status == 0 and f"--ServerApp.root_dir={mine.parent}" in cmd
    assert "--LabApp.default_url=/lab/tree/x.ipynb" in cmd
    assert not (tmp_path / "w").exists() and "working copy" not in capsys.readouterr().err
