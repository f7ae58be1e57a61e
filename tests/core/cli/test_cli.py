"""The ``polyrank`` command, headless, as a user runs it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from polyrank.cli import main


def test_demo_prints_test_metrics_and_gap(capsys):
    assert main(["demo", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # a converged fit that ranks yeast labels well above chance (0.5 loss)
    assert out["relative_gap"] <= 1e-3
    assert 0.0 < out["label_ranking_loss"] < 0.2
    assert out["label_ranking_average_precision"] > 0.7
    assert out["primal"] >= out["dual"]


def test_demo_text_output(capsys):
    assert main(["demo", "--decomposition", "adjacent_layers"]) == 0
    text = capsys.readouterr().out
    assert "final duality gap" in text and "label ranking loss" in text


def test_bench_small_json(capsys):
    assert main(["bench", "sopopo", "--k", "10", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["k"] == 10 and rows[0]["obj_diff"] < 1e-6


@pytest.mark.slow
def test_console_script_and_import_outside_the_repository(tmp_path):
    """After the install, ``import polyrank, polyrank_widgets`` works from any
    directory, and the bundled data are found."""
    code = ("import polyrank, polyrank_widgets; "
            "from polyrank.datasets import load_yeast; print(load_yeast().X_train.shape)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "(1500, 103)"
    exe = Path(sys.executable).with_name("polyrank")
    res = subprocess.run([str(exe), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0 and "demo" in res.stdout and "bench" in res.stdout
    # the paper wing's commands, loaded through the entry point, not their stand-ins
    assert "needs the paper wing" not in res.stdout


def test_version(capsys):
    import polyrank

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"polyrank {polyrank.__version__}"


@pytest.mark.slow
def test_python_dash_m_polyrank(tmp_path):
    """``python -m polyrank`` is the ``polyrank`` command, from any directory."""
    import polyrank

    res = subprocess.run([sys.executable, "-m", "polyrank", "--version"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == f"polyrank {polyrank.__version__}"
    res = subprocess.run([sys.executable, "-m", "polyrank", "--help"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0
    assert res.stdout.startswith("usage: polyrank ")
    assert all(cmd in res.stdout for cmd in ("train", "predict", "reproduce", "demo"))


def test_help_of_train_and_predict(capsys):
    assert main(["train", "--help"]) == 0
    text = capsys.readouterr().out
    assert all(m in text for m in ("ranksvm", "sign", "ordinal", "m3l", "labelranker"))
    assert all(opt in text for opt in ("--C", "--lam", "--c", "--kernel", "--gamma",
                                       "--smoothing", "--tol", "--max-iter", "--bias",
                                       "--signs", "--standardize", "--verbose", "--target",
                                       "--labels"))
    assert main(["predict", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Pairwise Accuracy" in text and "Mean NDCG" in text


def test_bench_rows_of_the_readme_are_generated(tmp_path):
    """``--readme`` writes one row per bench into the generated block and
    replaces that bench's row on the next run (issue 15/17: no typed numbers);
    a quick run replaces a quick row, a full run any row, and a quick run
    never a full run's row (issue 28)."""
    from polyrank_paper.readme import README_BENCH_END, README_BENCH_START, update_readme_bench

    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n\n{README_BENCH_START}\n{README_BENCH_END}\n\nafter\n")
    update_readme_bench(readme, "polyrank bench sign --quick", "SC-SDCA quick", ["q"])
    update_readme_bench(readme, "polyrank bench sign", "SC-SDCA vs L-BFGS-B", ["a | b", "c"])
    update_readme_bench(readme, "polyrank bench m3l --quick", "M3L", ["x"])
    update_readme_bench(readme, "polyrank bench m3l --quick", "M3L again", ["y"])
    before = readme.read_text()
    with pytest.raises(ValueError, match="the rows of polyrank bench sign come from full runs"):
        update_readme_bench(readme, "polyrank bench sign --quick", "SC-SDCA again", ["d"])
    text = readme.read_text()
    assert text == before
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 2
    assert rows[0].startswith("| `polyrank bench sign` | SC-SDCA vs L-BFGS-B | a \\| b<br>c |")
    assert rows[1].startswith("| `polyrank bench m3l --quick` | M3L again | y |")
    assert text.startswith("intro\n") and text.endswith("\n\nafter\n")
    bad = tmp_path / "other.md"
    bad.write_text("no block")
    with pytest.raises(ValueError, match="no generated benchmark block"):
        update_readme_bench(bad, "polyrank bench sign", "t", [])
    assert main(["bench", "sign", "--readme", str(tmp_path / "missing.md")]) == 2


def test_paper_rows_of_the_readme_are_generated(tmp_path):
    """Issue 19: ``reproduce NAME --readme`` writes the experiment's
    paper-vs-polyrank rows (from ``summary["paper"]``), replaces them on the
    next run and keeps the registry's order."""
    from polyrank_paper.readme import README_PAPER_END, README_PAPER_START, update_readme_paper

    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n\n{README_PAPER_START}\n{README_PAPER_END}\n\nafter\n")
    one = [{"item": "Table 5: NDCG", "paper": "0.4571", "ours": "0.4583", "data": "MQ2008"}]
    update_readme_paper(readme, "ranksvm-vs-svr", "polyrank reproduce ranksvm-vs-svr", one)
    update_readme_paper(readme, "sign-fig2", "polyrank reproduce sign-fig2 --quick",
                        [{"item": "a | b", "paper": "x", "ours": "y", "data": "d"}] * 2)
    update_readme_paper(readme, "ranksvm-vs-svr", "polyrank reproduce ranksvm-vs-svr",
                        [dict(one[0], ours="0.4600")])
    text = readme.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    # the registry's order: sign (paper 2) before ranksvm (paper 3)
    assert [r.split("`")[1] for r in rows] == ["sign-fig2", "sign-fig2", "ranksvm-vs-svr"]
    assert "| a \\| b |" in rows[0] and "| 0.4571 | 0.4600 | MQ2008 |" in rows[2]
    assert "`polyrank reproduce ranksvm-vs-svr`" in rows[2]
    assert text.startswith("intro\n") and text.endswith("\n\nafter\n")
    bad = tmp_path / "other.md"
    bad.write_text("no block")
    with pytest.raises(ValueError, match="no generated paper-vs-polyrank block"):
        update_readme_paper(bad, "sign-fig2", "c", one)
    assert main(["reproduce", "ordinal-fig4", "--readme", str(tmp_path / "missing.md")]) == 2


def _readme_rows(start, end, page):
    """The table rows of the generated block of the site's ``page``
    (docs/benchmarks.md, docs/reproductions.md) between ``start`` and
    ``end``."""
    text = (Path(__file__).parents[3] / "docs" / page).read_text(encoding="utf-8")
    block = text.split(start, 1)[1].split(end, 1)[0]
    return [line for line in block.splitlines() if line.startswith("| `")]


def test_the_readme_paper_table_is_filled_from_registered_experiments():
    from polyrank_paper import EXPERIMENTS
    from polyrank_paper.readme import README_PAPER_END, README_PAPER_START

    rows = _readme_rows(README_PAPER_START, README_PAPER_END, "reproductions.md")
    assert rows, "empty: run polyrank reproduce NAME --readme docs/reproductions.md"
    for row in rows:
        assert row.split("`")[1] in EXPERIMENTS
        assert "`polyrank reproduce " in row


def test_the_readme_bench_table_names_registered_benches():
    from polyrank_paper import BENCHES
    from polyrank_paper.readme import README_BENCH_END, README_BENCH_START

    rows = _readme_rows(README_BENCH_START, README_BENCH_END, "benchmarks.md")
    assert rows, ("the generated table is empty: run polyrank bench NAME --readme "
                  "docs/benchmarks.md")
    for row in rows:
        name = row.split("`")[1].split()[2]
        assert name == "sopopo" or name in BENCHES
        assert "NOT met" not in row and "target" not in row.lower()


# ---------------------------------------------------------------- polyrank lab
# (the working copy it opens: tests/core/cli/test_lab_workcopy.py)
def test_lab_opens_the_tour_with_allow_root_only_as_root(monkeypatch, capsys, tmp_path):
    """Issue 34, item 5: the README's first command starts JupyterLab on the
    tour for any user; as root (a container's default) JupyterLab stops with
    "Running as root is not recommended" unless given --allow-root.  Issue
    41, item 4: the URL it prints opens the tour (LabApp.default_url), in
    the working copy (its root)."""
    import shlex

    from polyrank.cli import main

    monkeypatch.chdir(Path(__file__).resolve().parents[3])
    for euid, root in ((0, True), (1000, False)):
        monkeypatch.setattr("os.geteuid", lambda euid=euid: euid)
        assert main(["lab", "--print-command", "--port", "8899",
                     "--workdir", str(tmp_path / "work")]) == 0
        cmd = shlex.split(capsys.readouterr().out)
        assert cmd[1:3] == ["-m", "jupyterlab"]
        assert f"--ServerApp.root_dir={tmp_path / 'work'}" in cmd
        assert "--LabApp.default_url=/lab/tree/00_tour.ipynb" in cmd
        assert "--port=8899" in cmd and ("--allow-root" in cmd) is root
    assert not (tmp_path / "work").exists()         # --print-command copies nothing


def test_lab_without_a_notebook_says_where_to_run_it(tmp_path, monkeypatch, capsys):
    from polyrank.cli import _lab, main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_lab, "_repo_notebooks", lambda: None)     # not a clone's install
    assert main(["lab", "--print-command"]) == 2
    err = capsys.readouterr().err
    assert "notebooks/00_tour.ipynb" in err and "clone of the repository" in err
    assert main(["lab", "missing.ipynb"]) == 2
    assert "'missing.ipynb' not found" in capsys.readouterr().err


@pytest.mark.slow
def test_a_reader_that_leaves_the_pipe_ends_the_command_quietly():
    """``polyrank reproduce --list | head -1``: the reader closes the pipe;
    the command ends with 141 (128 + SIGPIPE) or 0, and prints neither a
    traceback nor "internal error"."""
    proc = subprocess.Popen([sys.executable, "-m", "polyrank", "reproduce", "--list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()                  # the reader is gone before the first line
    err = proc.stderr.read().decode()
    rc = proc.wait(timeout=120)
    assert rc in (0, 141), (rc, err)
    assert "internal error" not in err and "Traceback" not in err and "Broken" not in err, err
