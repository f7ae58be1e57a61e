"""The lean install (``pip install polyrank``, no extra, neither
``polyrank-widgets`` nor ``polyrank-paper``): the core floor, its estimators
and the ``polyrank`` command work without the dependencies of the other two
distributions and of the ``dask`` extra (the base install is what a Dask
worker or a production pipeline needs); ``import polyrank_widgets`` and
``import polyrank_paper`` without their dependencies say which distribution
to install, and so do the paper wing's commands (``polyrank reproduce /
bench / demo``) when the wing cannot be loaded (issue 17, item 7; issue 32,
items 1-2).

A fresh venv per test costs a download (tests/architecture/test_dists.py does it once, in
the slow tier, from the three wheels); here the packages are made
unimportable in a child process (a meta-path finder that refuses them),
which is what a lean environment looks like to the code.
"""

import subprocess
import sys
import textwrap

import pytest

import polyrank.cli as cli

pytestmark = pytest.mark.slow

#: the dependencies of polyrank-widgets and polyrank-paper (dists/*/pyproject.toml) and
#: of the ``dask`` extra (pyproject.toml)
EXTRA = ("plotly", "ipywidgets", "anywidget", "jupyterlab", "ipykernel", "kaleido", "pandas",
         "PIL", "contourpy", "mord", "dask", "distributed")
#: what the paper wing's commands say without it (cli.PAPER_INSTALL, written out)
PAPER_DIST = ("pip install polyrank-paper (from a clone: "
              "pip install -e dists/polyrank-widgets -e dists/polyrank-paper)")


def _block(names) -> str:
    return textwrap.dedent(f"""
        import sys
        class _Lean:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in {tuple(names)!r}:
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        sys.meta_path.insert(0, _Lean())
    """)


def _run(code, tmp_path, blocked=EXTRA):
    return subprocess.run([sys.executable, "-c", _block(blocked) + textwrap.dedent(code)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_every_estimator_fits_predicts_saves_and_loads_without_an_extra(tmp_path):
    out = _run(f"""
        import numpy as np
        from polyrank import (LabelRanker, M3LClassifier, OrdinalMarginRanker, PRank, RankSVM,
                              SignConstrainedClassifier, SignConstrainedRegressor)
        from polyrank.io import load_model, save_model
        rng = np.random.default_rng(0)
        X = rng.normal(size=(60, 3))
        y = (X[:, 0] > 0).astype(int)
        Y = np.column_stack([y, (X[:, 1] > 0).astype(int), 1 - y])
        ordinal = np.digitize(X[:, 0], [-0.5, 0.5])
        cases = [(SignConstrainedClassifier(signs=[1, 0, 0]), y),
                 (SignConstrainedRegressor(signs=[1, 0, 0]), X[:, 0]),
                 (RankSVM(), ordinal), (OrdinalMarginRanker(), ordinal),
                 (PRank(), ordinal), (M3LClassifier(), Y), (LabelRanker(), Y)]
        for est, target in cases:
            est.fit(X, target)
            path = f"{{type(est).__name__}}.model"
            save_model(path, est)
            loaded, _ = load_model(path)
            same = np.array_equal(loaded.predict(X), est.predict(X))
            if hasattr(est, "decision_function"):
                same &= np.array_equal(loaded.decision_function(X), est.decision_function(X))
            print(type(est).__name__, same, np.isfinite(est.score(X, target)))
        print("modules:", sorted({{m.split(".")[0] for m in sys.modules}} & set({EXTRA!r})))
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 8 and all(line.endswith(" True True") for line in lines[:7]), lines
    assert lines[-1] == "modules: []"


def test_the_command_trains_and_predicts_without_an_extra(tmp_path):
    out = _run(f"""
        import numpy as np
        from polyrank.cli import main
        from sklearn.datasets import dump_svmlight_file
        rng = np.random.default_rng(0)
        X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
        dump_svmlight_file(X, np.where(y == 1, 1, -1), "d.svm")
        assert main(["train", "sign", "d.svm", "m.model"]) == 0
        assert main(["predict", "d.svm", "m.model", "p.txt"]) == 0
        print("modules:", sorted({{m.split(".")[0] for m in sys.modules}}
                                 & set({EXTRA!r} + ("polyrank_widgets", "polyrank_paper"))))
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "modules: []"
    assert (tmp_path / "p.txt").read_text().count("\n") == 60


def test_widgets_without_their_dependencies_name_the_dist(tmp_path):
    out = _run("import polyrank_widgets", tmp_path)
    assert out.returncode != 0
    assert ("pip install polyrank-widgets (from a clone: pip install -e dists/polyrank-widgets)"
            in out.stderr)


def test_paper_wing_without_its_dependencies_names_the_dist(tmp_path):
    out = _run("import polyrank_paper", tmp_path)
    assert out.returncode != 0
    assert PAPER_DIST in out.stderr


@pytest.mark.parametrize("blocked", [EXTRA, ("polyrank_paper",)],
                         ids=["base-install", "wing-hidden"])
def test_paper_commands_without_the_wing_name_the_dist(tmp_path, blocked):
    # a base install (the wing's dependencies missing) or no wing at all: each of
    # the wing's commands is a stand-in that says what to install, exit status 2
    out = _run("""
        from polyrank.cli import main
        for argv in (["reproduce", "sign-fig2", "--quick", "--out", "o"], ["reproduce", "--list"],
                     ["bench", "sopopo", "--quick"], ["demo", "--help"]):
            print("rc", main(argv))
    """, tmp_path, blocked)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["rc", "2"] * 4
    lines = out.stderr.splitlines()
    assert len(lines) == 4 and all(PAPER_DIST in line for line in lines), lines
    assert lines[0].startswith("polyrank reproduce needs the paper wing: ")
    assert lines[2].startswith("polyrank bench needs the paper wing: ")
    assert not (tmp_path / "o").exists()


def test_a_plugin_found_twice_registers_once(monkeypatch, capsys):
    # e.g. a stale polyrank.egg-info of the one-distribution layout (which
    # named the paper entry point) in the working directory, beside the
    # installed polyrank-paper: argparse would refuse the second `reproduce`
    plugins = list(cli._parser.entry_points(group=cli.COMMANDS_GROUP))
    if not any(ep.name == "paper" for ep in plugins):
        pytest.skip("polyrank-paper is not installed")
    monkeypatch.setattr(cli._parser, "entry_points", lambda group: plugins + plugins)
    assert cli.main(["reproduce", "--list"]) == 0
    assert "sopopo-fig6" in capsys.readouterr().out


def test_an_empty_entry_point_group_leaves_the_stand_ins(monkeypatch, capsys):
    # no plugin registered in polyrank.commands (e.g. an install without the
    # wing's entry point): the same stand-ins, and the core's commands work
    monkeypatch.setattr(cli._parser, "entry_points", lambda group: [])
    assert cli.main(["reproduce", "--list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"polyrank reproduce needs the paper wing: {PAPER_DIST}")
    assert err.count("\n") == 1
    assert cli.main(["warmup", "--help"]) == 0
