"""``polyrank datasets``: the bundled sets listed with their sources, and
``polyrank datasets copy NAME [DEST]`` putting their files where the user
works (issue 43, item 1), byte for byte, never over an existing file
unless ``--force``."""

from __future__ import annotations

import os

import pytest

from polyrank.cli import CORE_COMMANDS, main
from polyrank.datasets import DATASETS, copy_dataset, data_path, find_dataset
from polyrank.io import read_arff, read_csv, read_svmlight


def test_every_listed_file_is_bundled_and_every_bundled_folder_listed():
    folders = {p.name for p in data_path().iterdir() if p.is_dir()}
    assert folders == set(DATASETS)
    for d in DATASETS.values():
        bundled = {p.name for p in data_path(d.name).iterdir()}
        assert set(d.files) == bundled, d.name
        assert d.description and d.read and d.source


def test_list_names_every_set_its_files_and_the_provenance(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert main(["datasets", "list"]) == 0
    assert capsys.readouterr().out == out
    for d in DATASETS.values():
        assert f"{d.name}: {d.description}" in out
        assert " ".join(d.files) in out and d.source in out
    provenance = out.rsplit(": ", 1)[1].strip()
    assert os.path.isfile(provenance) and provenance.endswith("PROVENANCE.md")


def test_datasets_is_a_core_command():
    assert "datasets" in CORE_COMMANDS


def test_copy_to_the_current_folder_is_byte_for_byte(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["datasets", "copy", "yeast"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == list(DATASETS["yeast"].files)
    for name in DATASETS["yeast"].files:
        assert (tmp_path / name).read_bytes() == data_path("yeast", name).read_bytes()
    assert sorted(os.listdir(tmp_path)) == sorted(DATASETS["yeast"].files)   # no temp files


def test_copied_files_are_read_by_the_documented_readers(tmp_path):
    copy_dataset("winequality", tmp_path)
    copy_dataset("mq2008", tmp_path / "letor")            # names are case-insensitive
    copy_dataset("yeast", tmp_path)
    wine = read_csv(tmp_path / "winequality-red.csv", "quality")
    assert wine.X.shape == (1599, 11) and set(wine.y) == {3, 4, 5, 6, 7, 8}
    letor = read_svmlight(tmp_path / "letor" / "test.txt", query_id=True)
    assert letor.X.shape[0] == 2874 and len(set(letor.qid)) == 156
    yeast = read_arff(tmp_path / "yeast-test.arff", 14)
    assert yeast.X.shape == (917, 103) and yeast.y.shape == (917, 14)


def test_copy_into_a_new_folder_creates_it(tmp_path, capsys):
    dest = tmp_path / "a" / "b"
    assert main(["datasets", "copy", "w8a", str(dest)]) == 0
    assert capsys.readouterr().out.split() == [str(dest / "w8a.gz")]
    assert (dest / "w8a.gz").read_bytes() == data_path("w8a", "w8a.gz").read_bytes()


def test_an_existing_file_is_refused_and_nothing_is_copied(tmp_path, capsys):
    (tmp_path / "vali.txt").write_text("mine\n")
    assert main(["datasets", "copy", "MQ2008", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "vali.txt" in err and "--force" in err and len(err.splitlines()) == 1
    assert (tmp_path / "vali.txt").read_text() == "mine\n"
    assert sorted(os.listdir(tmp_path)) == ["vali.txt"]
    with pytest.raises(FileExistsError, match="nothing copied"):
        copy_dataset("MQ2008", tmp_path)


def test_force_replaces_the_existing_files(tmp_path, capsys):
    (tmp_path / "winequality.names").write_text("mine\n")
    assert main(["datasets", "copy", "winequality", str(tmp_path), "--force"]) == 0
    assert ((tmp_path / "winequality.names").read_bytes()
            == data_path("winequality", "winequality.names").read_bytes())


def test_an_unknown_name_is_one_line_naming_the_sets(tmp_path, capsys):
    assert main(["datasets", "copy", "emotions", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "emotions" in err
    assert all(name in err for name in DATASETS)
    assert os.listdir(tmp_path) == []


def test_bad_arguments_of_the_python_api():
    with pytest.raises(TypeError, match="name"):
        find_dataset(3)
    with pytest.raises(TypeError, match="dest"):
        copy_dataset("yeast", 3)
    with pytest.raises(ValueError, match="name"):
        copy_dataset("nope")


def test_a_folder_that_cannot_be_made_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["datasets", "copy", "w8a", str(tmp_path / "file" / "sub")]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
