"""The documentation runs exactly as written: the README's ten-line example,
the "Your own data" section of docs/sklearn.md and the command-line section
of docs/getting_started.md.

The Python blocks of "Your own data" are executed in order in one namespace,
and every ``polyrank ...`` line of the first shell block of "The command
line" is run through the CLI's ``main``,
in a temporary directory holding the files the commands name (copied from the
data bundled with the package: LETOR MQ2008 Fold1, MULAN yeast, UCI red wine).
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from polyrank.cli import main
from polyrank.datasets import data_path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SKLEARN_PAGE = REPO / "docs" / "sklearn.md"
START_PAGE = REPO / "docs" / "getting_started.md"

FILES = {
    "train.txt": ("MQ2008", "train.txt"),
    "test.txt": ("MQ2008", "test.txt"),
    "yeast-train.arff": ("yeast", "yeast-train.arff"),
    "yeast-test.arff": ("yeast", "yeast-test.arff"),
    "winequality-red.csv": ("winequality", "winequality-red.csv"),
}


def _blocks(path, heading, lang):
    """The ``lang`` code blocks of the section ``heading`` of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{lang}\n(.*?)```", section, flags=re.S)


def _section_blocks(lang):
    if lang == "python":
        return _blocks(SKLEARN_PAGE, "Your own data", "python")
    return _blocks(START_PAGE, "The command line", lang)[:1]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    for name, parts in FILES.items():
        shutil.copy(data_path(*parts), tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_section_exists_with_its_blocks():
    assert len(_section_blocks("python")) == 2
    assert len(_section_blocks("bash")) == 1


def test_the_readme_example_runs_as_written(capsys):
    """The README's ten-line example (its one Python block) runs and prints
    the test ranking loss it promises."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1 and len(blocks[0].strip().splitlines()) <= 12
    exec(compile(blocks[0], str(README), "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "0.18", out


@pytest.mark.slow
def test_python_blocks_run_as_written(workdir, capsys):
    pytest.importorskip("distributed")
    namespace: dict = {"__name__": "__main__"}      # as a script: the Dask block guards
    for block in _section_blocks("python"):
        exec(compile(block, str(SKLEARN_PAGE), "exec"), namespace)
    search = namespace["search"]
    out = capsys.readouterr().out.splitlines()
    # the Dask grid printed the same choice and score as the serial one
    assert len(out) == 2 and out[0] == out[1], out
    assert search.best_params_["C"] in (0.01, 0.1, 1.0)
    assert 0.4 < search.best_score_ < 0.6          # mean NDCG on MQ2008 folds


def test_cli_lines_run_as_written(workdir, capsys):
    lines = [ln.split("#", 1)[0].strip() for ln in _section_blocks("bash")[0].splitlines()]
    # the files are in workdir already: leave out the lines that copy them there
    lines = [ln for ln in lines if ln.startswith("polyrank ")
             and not ln.startswith("polyrank datasets ")]
    assert len(lines) == 6
    for line in lines:
        rc = main(shlex.split(line)[1:])
        captured = capsys.readouterr()
        assert rc == 0, f"{line}: {captured.err}"
    assert len((workdir / "scores.txt").read_text().splitlines()) == 2874
    assert len((workdir / "labels.txt").read_text().splitlines()) == 917
    grades = {int(float(v)) for v in (workdir / "quality.txt").read_text().split()}
    assert grades <= set(range(3, 9)) and len(grades) >= 2
