"""Reproductions of Fig. 6-8 of sopopo-label-ranking.txt (Sec. 5), their
registry and ``polyrank reproduce``.

Tiny configurations only; no timing is asserted (DESIGN.md): the tests check
that SOPOPO and Clarabel reach the same optimum, the bookkeeping of the time
budget, the per-update dual increases of Fig. 8, and the files the CLI
writes."""

from __future__ import annotations

import csv
import json
import sys
import time

import numpy as np
import pytest

from polyrank.cli import main
from polyrank.sopopo import sopopo_batch
from polyrank_paper import (
    EXPERIMENTS,
    ExperimentResult,
    _baseline,
    fig7_data,
    get_experiment,
    registry,
    run_experiment,
    sopopo_fig6,
    sopopo_fig7,
    sopopo_fig8,
)
from polyrank_paper._baseline import BaselineError, BaselineRunner
from polyrank_paper.sopopo._common import CLARABEL_TASKS

pytestmark = pytest.mark.slow

NAMES = ("sopopo-fig6", "sopopo-fig7", "sopopo-fig8")


# ------------------------------------------------------------ registry, CLI

def test_list_names_all_three(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    listed = [line.split()[0] for line in lines]
    # other papers register their experiments after these three
    assert listed[:len(NAMES)] == list(NAMES) and len(set(listed)) == len(listed)
    assert all("Fig." in line for line in lines[:len(NAMES)])   # one-line descriptions


def test_registry_lookup():
    assert set(NAMES) <= set(EXPERIMENTS)
    assert get_experiment("sopopo-fig8").func is sopopo_fig8
    with pytest.raises(ValueError, match="unknown experiment"):
        get_experiment("fig9")
    res = run_experiment("sopopo-fig8", k=4, m=6, n=3, passes=1)
    assert isinstance(res, ExperimentResult) and len(res.rows) == 7


def test_cli_unknown_name_and_missing_name(capsys):
    assert main(["reproduce", "fig9"]) == 2
    assert main(["reproduce"]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment 'fig9'" in err and "sopopo-fig6" in err


def test_cli_writes_csv_html_and_json(tmp_path, capsys):
    out_dir = tmp_path / "out"
    assert main(["reproduce", "sopopo-fig8", "--quick", "--json", "--no-progress",
                 "--out", str(out_dir), "--seed", "3"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)                 # stdout is only the JSON
    assert summary["experiment"] == "sopopo-fig8" and summary["quick"] is True
    assert summary["seed"] == 3 and summary["m"] == 400
    assert "gap P-D" in captured.err                    # the table went to stderr
    with open(out_dir / "sopopo-fig8.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == summary["iterations"] + 1
    assert rows[0]["dual_increase"] == "" and float(rows[-1]["gap"]) == pytest.approx(
        summary["final_gap"], rel=1e-12)
    html = (out_dir / "sopopo-fig8.html").read_text(encoding="utf-8")
    # plotly.js written once next to the figures (no CDN: the page works offline)
    assert "<html" in html and "Plotly.newPlot" in html and 'src="https://cdn' not in html
    assert 'src="plotly.min.js"' in html and len(html) < 100_000
    assert (out_dir / "plotly.min.js").stat().st_size > 1_000_000


def test_cli_text_mode(tmp_path, capsys):
    assert main(["reproduce", "sopopo-fig8", "--quick", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "== sopopo-fig8 (quick)" in out and "phase transition" in out
    assert (tmp_path / "sopopo-fig8.csv").exists() and (tmp_path / "sopopo-fig8.html").exists()


def test_write_csv_roundtrip(tmp_path):
    res = ExperimentResult("x", "t", rows=[{"a": 1, "b": None}, {"a": 0.1, "c": "s"}],
                           summary={})
    path = res.write_csv(tmp_path / "x.csv")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows == [{"a": "1", "b": "", "c": ""}, {"a": "0.1", "b": "", "c": "s"}]
    with pytest.raises(ValueError, match="no figure"):
        res.write_html(tmp_path / "x.html")


def test_every_experiment_has_a_figure_builder():
    # polyrank_paper.figures draws every registered experiment
    # (ExperimentResult.figure imports it on the first figure)
    from polyrank_paper.figures import FIGURES

    assert set(FIGURES) == set(EXPERIMENTS)
    assert registry.figure_builders().keys() >= set(EXPERIMENTS)


def test_figure_without_plotly_names_the_dist(monkeypatch):
    # without the figure builders (plotly, of polyrank-widgets, not installed)
    # the error says what to install
    res = run_experiment("sopopo-fig8", k=4, m=6, n=3, passes=1)
    monkeypatch.setattr(registry, "figure_builders", lambda: {})
    with pytest.raises(ImportError, match="pip install polyrank-paper"):
        _ = res.figure                            # the property raises
    monkeypatch.undo()
    assert res.figure.data                        # drawn by polyrank_paper.figures.sopopo


def test_cli_without_plotly_writes_the_table_and_says_why_no_figure(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(registry, "figure_builders", lambda: {})
    assert main(["reproduce", "sopopo-fig8", "--quick", "--no-progress",
                 "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "could not write sopopo-fig8.html" in out and "polyrank-paper" in out
    assert (tmp_path / "sopopo-fig8.csv").exists() and not (tmp_path / "sopopo-fig8.html").exists()


# ------------------------------------------------------------ Fig. 6

def test_fig6_tiny_objectives_agree():
    res = sopopo_fig6(ks=(6, 12), trials=2, repeats=1, min_time=0.0, budget_s=120.0,
                      seed=1)
    assert [(r.problem, r.k) for r in res.rows] == [
        ("eq7", 6), ("eq19", 6), ("eq7", 12), ("eq19", 12)]
    for r in res.rows:
        assert r.clarabel_status == "ok" and r.clarabel_trials == 2
        # SOPOPO's optimum = Clarabel's, to a relative 1e-6 or, where the optimum is
        # small against the constant Clarabel drops, to Clarabel's own accuracy
        assert r.objectives_agree is True
        assert (r.max_rel_obj_diff <= 1e-6
                or r.max_abs_obj_diff <= r.clarabel_accuracy < 1e-6)
        if r.problem == "eq7":                       # SOPOPO certifies itself: P = D
            assert r.sopopo_pd_gap <= 1e-12
        assert r.sopopo_s > 0 and r.clarabel_s > 0
        assert r.ratio == pytest.approx(r.clarabel_s / r.sopopo_s)
    s = res.summary
    json.dumps(res.summary_record(), allow_nan=False)
    assert s.C == 1.0 and "does not state" in s.C_note
    assert s.objectives_agree is True and s.eq7.largest_k_within_budget == 12
    # two log-log panels, like the paper's Fig. 6
    fig = res.figure
    assert len(fig.layout.annotations) >= 2 and "Eq. 7" in fig.layout.annotations[0].text
    for ax in ("xaxis", "yaxis", "xaxis2", "yaxis2"):
        assert fig.layout[ax].type == "log"
    assert "(s" in fig.layout.yaxis.title.text


def test_fig6_budget_stops_growing_k():
    # every Clarabel solve exceeds a 0.1 ms budget: it runs once, at the first k
    res = sopopo_fig6(ks=(4, 8, 16), trials=2, repeats=1, min_time=0.0, budget_s=1e-4)
    for p in ("eq7", "eq19"):
        rows = [r for r in res.rows if r.problem == p]
        assert rows[0].clarabel_status in ("over budget", "stopped at budget")
        assert rows[0].clarabel_trials <= 1
        assert [r.clarabel_status for r in rows[1:]] == [
            "skipped (budget exceeded at k=4)"] * 2
        assert all(r.clarabel_s is None and r.ratio_lower_bound > 0 for r in rows[1:])
        assert getattr(res.summary, p).clarabel_stopped_at_k == 4
        assert all(r.sopopo_s > 0 for r in rows)      # SOPOPO runs at every k


def test_worker_budget_kill_restart_and_errors(monkeypatch):
    # the one baseline runner of every experiment, with SOPOPO's Clarabel tasks
    monkeypatch.setattr(_baseline, "_GRACE_S", 0.5)
    with BaselineRunner(CLARABEL_TASKS) as worker:
        t0 = time.perf_counter()
        assert worker.call("sleep", (0.0,), 60.0)[2] == "ok"        # started
        t1 = time.perf_counter()
        if sys.platform.startswith("linux"):
            with open(f"/proc/{worker.proc.pid}/environ", "rb") as fh:
                env = fh.read().split(b"\0")
            # Clarabel's (rayon) thread pool and BLAS get one thread
            assert b"RAYON_NUM_THREADS=1" in env and b"OPENBLAS_NUM_THREADS=1" in env
        value, dt, status = worker.call("sleep", (30.0,), 0.2)
        assert (value, dt, status) == (None, 0.2, "stopped at budget")
        assert worker.proc is None                                  # killed
        assert time.perf_counter() - t1 < 10
        # restarted on demand; a solve over budget but finished is kept
        value, dt, status = worker.call("sleep", (0.2,), 0.1)
        assert value == {} and dt >= 0.2 and status == "over budget"
        with pytest.raises(BaselineError, match="ValueError"):
            worker.call("eq19", (np.array([]), np.array([1.0]), 1.0), 60.0)
        value, dt, status = worker.call("eq19", (np.array([1.0]), np.array([1.0]), 10.0), 60.0)
        assert status == "ok" and value["objective"] == pytest.approx(0.0, abs=1e-8)
    assert worker.proc is None and t1 - t0 < 60


def test_fig6_rejects_bad_input():
    with pytest.raises(ValueError, match="ks"):
        sopopo_fig6(ks=(1,))
    with pytest.raises(ValueError, match="budget_s"):
        sopopo_fig6(ks=(4,), budget_s=0)
    with pytest.raises(ValueError, match="C"):
        sopopo_fig6(ks=(4,), C=-1.0)


# ------------------------------------------------------------ Fig. 7

def test_fig7_data_matches_the_paper():
    X, Y = fig7_data(np.random.default_rng(0), k=6, m=20, n=4)
    assert X.shape == (20, 4) and Y.shape == (20, 6)
    assert set(np.unique(Y)) == {0.0, 1.0} and np.all(Y.sum(axis=1) == 3)


def test_fig7_tiny_both_reach_the_optimum():
    res = sopopo_fig7(ks=(4, 6), m_per_k=5, n=8, repeats=1, budget_s=120.0, seed=2)
    assert [r.k for r in res.rows] == [4, 6]
    for r in res.rows:
        assert r.m == 5 * r.k and r.C == pytest.approx(1 / r.m)
        assert r.clarabel_status == "ok"
        opt = r.clarabel_dual
        tiny = abs(r.clarabel_gap) + 1e-9
        assert abs(r.clarabel_gap) < 1e-6           # Clarabel solved Eq. 38
        assert r.sopopo_dual <= opt + tiny           # weak duality
        assert r.sopopo_primal >= opt - tiny
        assert r.sopopo_primal - r.sopopo_dual <= 0.01
        assert r.optimum_check is True
        assert r.ratio == pytest.approx(r.clarabel_s / r.sopopo_s)
    s = res.summary
    json.dumps(res.summary_record(), allow_nan=False)
    assert s.all_optimum_checks_pass is True and s.all_sopopo_converged is True
    fig = res.figure
    assert fig.layout.yaxis.type == "log" and len(fig.data) >= 2
    assert "k" in fig.layout.xaxis.title.text and "(s" in fig.layout.yaxis.title.text


# ------------------------------------------------------------ Fig. 8

def test_fig8_tiny_increases_and_gap():
    k, m, n, passes, seed = 6, 30, 5, 3, 4
    res = sopopo_fig8(k=k, m=m, n=n, passes=passes, gap_every=5, seed=seed)
    rows = res.rows
    assert [r.iteration for r in rows] == list(range(passes * m + 1))
    inc = [r.dual_increase for r in rows[1:]]
    assert min(inc) >= -1e-12                          # each update is an exact block maximisation
    gaps = [r.gap for r in rows if r.gap is not None]
    assert len(gaps) >= passes * m // 5 and gaps[0] > gaps[-1]
    assert all(g >= -1e-12 for g in gaps)              # weak duality
    # the increases are the true changes of the dual
    assert res.summary.dual_drift < 1e-10
    assert rows[-1].dual == pytest.approx(rows[0].dual + sum(inc), abs=1e-12)
    # driving the kernel update by update is the solver itself: same order, same dual
    X, Y = fig7_data(np.random.default_rng(seed), k, m, n)
    ref = sopopo_batch(X, Y, C=1 / m, decomposition="top_vs_rest", tol=0.0, atol=1e-300,
                       max_iter=passes, random_state=seed, shrinking=False)
    assert ref.nit == passes
    assert rows[-1].dual == pytest.approx(ref.dual_objective, rel=1e-12)
    assert rows[-1].gap == pytest.approx(ref.gap, rel=1e-9)
    s = res.summary
    json.dumps(res.summary_record(), allow_nan=False)
    assert s.iterations == passes * m and str(passes * m) in s.gap_at_iteration
    assert len(s.median_increase_per_pass) == passes
    fig = res.figure
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert "iteration" in fig.layout.xaxis.title.text


def test_fig8_table_rows_are_a_readable_selection():
    res = sopopo_fig8(k=4, m=40, n=3, passes=2)
    its = [r.iteration for r in res.table_rows]
    assert its[0] == 0 and its[-1] == 80 and 40 in its and len(its) < 15
    assert all(r.gap is not None for r in res.table_rows)
    assert "iteration" in res.format_table().splitlines()[0]
