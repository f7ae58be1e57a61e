"""The asv suite (``benchmarks/``, ``asv.conf.json``; issue 42 items 1-2) and the two
commands around it: ``polyrank bench compare REV`` (asv continuous) and ``polyrank
bench first-run`` (issue 41 item 6).  Nothing here is timed: the tests check that the
suite is well formed, that the commands run what they say, and that the tour is
executed from a copy."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import polyrank_paper.bench.compare as cmp
import polyrank_paper.bench.first_run as fr
from polyrank.cli import main

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:          # benchmarks/ is a package at the root, not installed
    sys.path.insert(0, str(ROOT))


def _asv(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "asv", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


# ------------------------------------------------------------------ the suite

def test_asv_conf_is_json_with_comments_asv_reads():
    """asv.conf.json is asv's JSON-with-comments: the suite is in benchmarks/, its
    environments and results under the ignored .asv/, the peers in the matrix."""
    pytest.importorskip("asv")
    from asv.util import load_json

    conf = load_json(str(ROOT / "asv.conf.json"), js_comments=True)
    assert conf["repo"] == "." and conf["branches"] == ["main"]
    assert conf["environment_type"] == "virtualenv"
    assert conf["benchmark_dir"] == "benchmarks"
    assert all(conf[k].startswith(".asv/") for k in ("env_dir", "results_dir", "html_dir"))
    assert ".asv/" in (ROOT / ".gitignore").read_text().splitlines()
    assert "mord" in conf["matrix"]["req"]


@pytest.mark.slow        # asv imports the suite (polyrank, scikit-learn) in a subprocess
def test_asv_check_finds_no_problem():
    """``asv check``: every benchmark module imports, every benchmark is well formed."""
    pytest.importorskip("asv")
    _asv("machine", "--yes")
    out = _asv("check", "--python=same")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No problems found" in out.stdout


def test_every_estimator_has_a_fit_with_its_peer_and_its_quality():
    """Issue 42 item 1: for every estimator, time and peak memory of its fit, its
    peer's beside it, its test metric, iterations and relative gap."""
    import benchmarks.fit as fit

    classes = {name: c for name, c in vars(fit).items()
               if isinstance(c, type) and hasattr(c, "time_fit") and not name.startswith("_")}
    covered = " ".join(c.__doc__ for c in classes.values())
    for estimator in ("LabelRanker", "SignConstrainedClassifier", "SignConstrainedRegressor",
                      "RankSVM()", 'RankSVM(loss="l1")', "OrdinalMarginRanker", "PRank",
                      "M3LClassifier()", 'M3LClassifier(kernel="rbf")'):
        assert estimator in covered, estimator
    for name, c in classes.items():
        for method in ("time_fit", "time_fit_peer", "peakmem_fit", "peakmem_fit_peer",
                       "track_test_error", "track_test_error_peer", "track_iterations",
                       "track_relative_gap"):
            assert callable(getattr(c, method, None)), f"{name}.{method}"
        # asv keys setup_cache by its source line: each class needs its own
        assert "setup_cache" in vars(c), name


@pytest.mark.slow        # compiles the ordinal kernels on an empty cache
def test_a_fit_benchmark_runs_and_tracks_lower_is_better_numbers():
    """One class end to end without asv: the cache's numbers, the timed calls."""
    import benchmarks.fit as fit

    bench = fit.OrdinalMarginRankerWine()
    cache = bench.setup_cache()
    bench.setup(cache)
    bench.time_fit(cache)
    bench.time_fit_peer(cache)
    assert 0 < bench.track_test_error(cache) < 1          # MAE in grades
    assert 0 < bench.track_test_error_peer(cache) < 1
    assert bench.track_iterations(cache) >= 1


def test_soft_project_benchmark_solves_the_same_problem_as_clarabel():
    import benchmarks.projection as proj

    b = proj.SoftProject()
    b.setup(10)
    ours, ref = b.reduced(), b.clarabel()
    assert abs(float(ours.z) - float(ref.z)) < 1e-6
    assert 0 < b.track_solve_reduced_over_clarabel(10) < 1


# ------------------------------------------------------------------ polyrank bench compare

def test_compare_command_is_asv_continuous():
    cmd = cmp.asv_continuous_command("main", benches=["fit.RankSVM", "startup"], factor=1.2)
    assert cmd[:4] == [sys.executable, "-m", "asv", "continuous"]
    assert cmd[4:6] == ["-f", "1.2"]
    assert cmd[-2:] == ["main", "HEAD"]
    assert cmd.count("--bench") == 2


@pytest.mark.parametrize("kwargs, match", [({"rev": ""}, "rev"), ({"rev": "--x"}, "rev"),
                                           ({"rev": "main", "factor": 1.0}, "factor")])
def test_compare_refuses_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cmp.asv_continuous_command(**kwargs)


def test_checkout_root_is_where_asv_conf_is(tmp_path):
    assert cmp.checkout_root(ROOT / "benchmarks") == ROOT
    with pytest.raises(FileNotFoundError, match="asv.conf.json"):
        cmp.checkout_root(tmp_path)


def test_polyrank_bench_compare_runs_asv_in_the_checkout(monkeypatch, capsys):
    seen = {}

    def fake_run(cmd, cwd=None, check=False, **kw):
        seen.setdefault("cmds", []).append((cmd, cwd))
        return subprocess.CompletedProcess(cmd, 1)

    monkeypatch.setattr(cmp.subprocess, "run", fake_run)
    monkeypatch.chdir(ROOT / "benchmarks")
    status = main(["bench", "compare", "6ead872", "--bench", "projection", "--factor", "1.5"])
    assert status == 1                                  # asv's status: a regression
    cmd, cwd = seen["cmds"][-1]
    assert cwd == ROOT and cmd[3:] == ["continuous", "-f", "1.5", "--no-only-changed",
                                       "--sort", "ratio", "--show-stderr",
                                       "--bench", "projection", "6ead872", "HEAD"]
    assert "$ asv continuous -f 1.5" in capsys.readouterr().out


def test_compare_options_belong_to_compare(capsys):
    assert main(["bench", "sopopo", "main"]) == 2
    assert "compare" in capsys.readouterr().err
    assert main(["bench", "compare", "main", "--readme", "docs/benchmarks.md"]) == 2


# ------------------------------------------------------------------ polyrank bench first-run

def _fake_seconds(log):
    """Stand-in for ``first_run._seconds``: what each process would take, a third of
    it when the same command ran before on the same numba cache (warm)."""
    def seconds(cmd, cache, cwd=None, timeout=0):
        text = " ".join(map(str, cmd))
        tour = "nbclient" in text
        warm = any(c == cache and (t == text or tour and "nbclient" in t)
                   for t, c, _ in log)
        log.append((text, cache, cwd))
        for key, s in (("packages=[", 10.0), ("import sklearn.base", 1.0), ("--version", 0.5),
                       ("warmup", 30.0), ("nbclient", 50.0), ("import polyrank", 1.2)):
            if key in text:
                return s / (3 if warm else 1)
        raise AssertionError(text)
    return seconds


def test_first_run_reports_every_step_cold_and_warm_against_the_targets(monkeypatch,
                                                                        tmp_path):
    log = []
    monkeypatch.setattr(fr, "_seconds", _fake_seconds(log))
    tour = tmp_path / "notebooks" / "00_tour.ipynb"
    tour.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), tour)
    res = fr.bench_first_run(data=str(tour), repeats=2)
    rows = {(r.what, r.cache): r for r in res.rows}
    assert rows[("import polyrank", "warm")].met is True          # 1.2/3 <= 1/1 + 0.5
    assert rows[("polyrank --version", "cold")].met is True
    assert rows[("polyrank warmup (the defaults' kernels)", "cold")].met is True   # 30 <= 40
    assert rows[("00_tour.ipynb executed by nbclient", "cold")].met is True         # 50 <= 60
    assert rows[("00_tour.ipynb executed by nbclient", "warm")].met is True
    for package in fr.PACKAGES:
        what = f"polyrank.warmup(packages=[{package!r}]) (compile its kernels)"
        assert rows[(what, "cold")].seconds > rows[(what, "warm")].seconds
    # the tour ran from a copy, never from the repository's file
    tour_runs = [t for t, _, _ in log if "nbclient" in t]
    assert len(tour_runs) == 2 and all(str(tour) not in t for t in tour_runs)
    assert sum("(issue 41: at most" in n for n in res.notes) == 7
    assert not any("target" in n.lower() or "NOT met" in n for n in res.notes)
    json.dumps(res.summary_record(), allow_nan=False)


def test_first_run_refuses_a_missing_tour(tmp_path):
    with pytest.raises(ValueError, match="data"):
        fr.bench_first_run(data=str(tmp_path / "nope.ipynb"))
    with pytest.raises(ValueError, match="repeats"):
        fr.bench_first_run(repeats=0)


@pytest.mark.slow        # starts two Jupyter kernels
def test_the_tour_copy_is_executed_and_the_original_left_alone(tmp_path):
    """nbclient executes a copy of the folder: the cell's output exists only in
    the copy (it writes a file beside the notebook), the original is unchanged."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = folder / "00_tour.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from pathlib import Path; Path('ran.txt').write_text('yes')")]), nb)
    before = nb.read_bytes()
    seconds = fr._tour_seconds(nb, str(tmp_path / "cache"))
    assert seconds > 0 and nb.read_bytes() == before
    assert not (folder / "ran.txt").exists()
    bad = folder / "bad.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 / 0")]), bad)
    with pytest.raises(RuntimeError, match="ZeroDivisionError|CellExecutionError"):
        fr._tour_seconds(bad, str(tmp_path / "cache"))


def test_first_run_is_a_registered_bench_with_a_readme_row():
    from polyrank_paper import BENCHES

    assert "first-run" in BENCHES and "first-fit" in BENCHES
    assert re.search(r"polyrank bench first-run", (ROOT / "docs" / "benchmarks.md").read_text())
