"""``polyrank reproduce all``: every registered experiment in turn, each
writing its CSV table and HTML figure, an index page linking them, the
progress on stderr, and with ``--json`` one object keyed by experiment name.

Two tiny stand-in experiments replace the registry here (the real ones are
tested in ``test_reproduce.py``; ``tests/browser`` opens a real HTML output
in Chromium)."""

from __future__ import annotations

import csv
import json

import plotly.graph_objects as go
import pytest

import polyrank_paper as experiments
from polyrank.cli import main
from polyrank_paper import registry
from polyrank_paper.registry import Experiment, ExperimentResult


def fake(name, n):
    def run(*, quick=False, seed=0, progress=False):
        rows = [{"i": i, "value": float(seed + i) / 3} for i in range(n)]
        return ExperimentResult(name, f"stand-in {name}", rows,
                                {"n": n, "quick": quick, "seed": seed},
                                notes=[f"{name} & <notes>"])
    return Experiment(name, f"stand-in experiment {name}", run)


def draw(res):
    """The stand-ins' figure builder (the real ones: polyrank_paper.figures)."""
    return go.Figure(go.Scatter(x=[r["i"] for r in res.rows], y=[r["value"] for r in res.rows]))


@pytest.fixture
def two_experiments(monkeypatch):
    reg = {"ex-a": fake("ex-a", 3), "ex-b": fake("ex-b", 5)}
    monkeypatch.setattr(registry, "EXPERIMENTS", reg)
    monkeypatch.setattr(experiments, "EXPERIMENTS", reg)
    monkeypatch.setattr(registry, "figure_builders", lambda: dict.fromkeys(reg, draw))
    return reg


def test_all_runs_every_experiment_and_writes_index(two_experiments, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["reproduce", "all", "--quick", "--json", "--no-progress",
                 "--out", str(out), "--seed", "2"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)                       # stdout: only the JSON
    assert list(doc) == ["ex-a", "ex-b"]
    assert doc["ex-b"] == {"n": 5, "quick": True, "seed": 2}
    assert "[1/2] ex-a: stand-in experiment ex-a" in captured.err
    assert "[2/2] ex-b" in captured.err and "index.html" in captured.err
    for name, n in (("ex-a", 3), ("ex-b", 5)):
        with open(out / f"{name}.csv", newline="") as fh:
            assert len(list(csv.DictReader(fh))) == n
        assert "Plotly.newPlot" in (out / f"{name}.html").read_text(encoding="utf-8")
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "href='ex-a.html'" in index and "href='ex-b.csv'" in index
    assert "ex-a &amp; &lt;notes&gt;" in index and "<notes>" not in index   # escaped
    assert "reproduce all --quick" in index
    # one shared plotly.js, each figure small; the index shows each table and links
    assert sorted(p.name for p in out.glob("*.js")) == ["plotly.min.js"]
    assert all(p.stat().st_size < 100_000 for p in out.glob("*.html"))
    assert index.count("<section") == 2 and "<style>" in index and "<pre>" in index


def test_one_experiment_writes_no_index(two_experiments, tmp_path, capsys):
    assert main(["reproduce", "ex-a", "--no-progress", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr()
    assert "[1/" not in text.err and "== ex-a: stand-in ex-a" in text.out
    assert (tmp_path / "ex-a.csv").exists() and not (tmp_path / "index.html").exists()


def test_list_shows_the_registry(two_experiments, capsys):
    assert main(["reproduce", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == ["ex-a", "ex-b"]
