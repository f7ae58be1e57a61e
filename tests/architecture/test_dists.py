"""The three floors are three distributions built from this repository
(issue 32: "the three floors install and test separately"):

- ``polyrank`` (pyproject.toml at the root): the core, every package under
  core/, with its package data (py.typed, the bundled data sets);
- ``polyrank-widgets`` (dists/polyrank-widgets): polyrank_widgets;
- ``polyrank-paper`` (dists/polyrank-paper): polyrank_paper with its stored
  results, and the ``polyrank.commands`` entry point of the core's command.

The fast test checks that the package lists of dists/*/pyproject.toml name
every package of their floor.  The slow ones build the three wheels from a
copy of the sources, check that each holds only its floor, and install them
one by one into a fresh venv (the dependencies from pip and its cache; 250 s
on the 2-core machine at load 6-7, 2026-11-29, most of it installing
JupyterLab's dependencies, numba compiling the fit and importing plotly the
first time): the core alone fits, predicts, saves and loads an
estimator and its ``polyrank reproduce`` names the distribution to install;
with polyrank-widgets the widgets import; with polyrank-paper ``polyrank
reproduce --list`` lists the experiments and the stored results load.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: each distribution: its project directory and its floor's top package (relative to the root)
DISTS = {"polyrank": (".", "core/polyrank"),
         "polyrank-widgets": ("dists/polyrank-widgets", "polyrank_widgets"),
         "polyrank-paper": ("dists/polyrank-paper", "polyrank_paper")}
#: what a build reads: the three projects and the sources they map in
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "core", "dists", "polyrank_widgets",
           "polyrank_paper")
TIMEOUT = 600


def _packages(top: Path) -> list[str]:
    """The packages (directories with an ``__init__.py``) of the tree ``top``."""
    return sorted(".".join(p.parent.relative_to(top.parent).parts)
                  for p in top.rglob("__init__.py"))


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
@pytest.mark.parametrize("dist", ["polyrank-widgets", "polyrank-paper"])
def test_the_package_lists_name_every_package_of_the_floor(dist):
    # the list is explicit (a package-dir "" of "../.." would make an editable
    # install put the whole repository root on sys.path): a new subpackage of
    # the floor must be added to it
    import tomllib

    project_dir, top = DISTS[dist]
    setup = tomllib.loads((ROOT / project_dir / "pyproject.toml").read_text())["tool"]
    assert setup["setuptools"]["packages"] == _packages(ROOT / top)
    assert setup["setuptools"]["package-dir"] == {top: f"../../{top}"}


def _run(cmd, cwd, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                         timeout=TIMEOUT, **kw)
    assert out.returncode == 0, f"{cmd}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    """The three wheels, built with ``pip wheel --no-deps`` from a copy of the
    sources (no build/ or egg-info of a developer's tree gets in)."""
    src = tmp_path_factory.mktemp("src")
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "*.nbi", "*.nbc")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, symlinks=False, ignore=junk)
        else:
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("wheels")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out,
          *(project for project, _ in DISTS.values())], cwd=src)
    found = {dist: sorted(out.glob(f"{dist.replace('-', '_')}-*.whl")) for dist in DISTS}
    assert all(len(w) == 1 for w in found.values()), found
    return {dist: w[0] for dist, w in found.items()}


@pytest.mark.slow
def test_each_wheel_holds_only_its_floor(wheels):
    for dist, (_, top) in DISTS.items():
        with zipfile.ZipFile(wheels[dist]) as whl:
            names = whl.namelist()
            meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
            requires = [line for line in whl.read(meta).decode().splitlines()
                        if line.startswith("Requires-Dist:")]
            points = [whl.read(n).decode() for n in names if n.endswith("entry_points.txt")]
        code = {n.split("/")[0] for n in names if ".dist-info/" not in n}
        assert code == {Path(top).name}, (dist, code)
        packages = {str(Path(n).parent).replace("/", ".") for n in names
                    if n.endswith("/__init__.py")}
        assert sorted(packages) == _packages(ROOT / top), dist
        if dist == "polyrank":
            assert {f"polyrank/{f}" for f in ("py.typed", "datasets/PROVENANCE.md")} <= set(names)
            data = {str(p.relative_to(ROOT / "core")) for p in
                    (ROOT / "core/polyrank/datasets/data").glob("*/*") if p.is_file()}
            assert data <= set(names), sorted(data - set(names))
            assert "polyrank.commands" not in "".join(points)
            assert not any("polyrank-widgets" in r or "plotly" in r for r in requires)
        if dist == "polyrank-widgets":
            assert "Requires-Dist: polyrank==" in "\n".join(requires) and not points
        if dist == "polyrank-paper":
            stored = {f"polyrank_paper/stored_results/{p.name}"
                      for p in (ROOT / "polyrank_paper/stored_results").glob("*.json")}
            assert stored and stored <= set(names)
            assert "[polyrank.commands]\npaper = polyrank_paper.cli:register" in points[0]
            assert "Requires-Dist: polyrank-widgets==" in "\n".join(requires)


#: run by the fresh venv's python with the core alone: every floor above is absent
CORE_ALONE = """
    import contextlib, importlib.util, io, sys
    import numpy as np
    import polyrank
    from polyrank import SignConstrainedClassifier
    from polyrank.cli import main
    from polyrank.datasets import load_winequality_red
    from polyrank.io import load_model, save_model
    assert polyrank.__file__.startswith(sys.prefix), polyrank.__file__
    assert importlib.util.find_spec("polyrank_widgets") is None
    assert importlib.util.find_spec("polyrank_paper") is None
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)); y = (X[:, 0] + 0.1 * X[:, 1] > 0).astype(int)
    est = SignConstrainedClassifier(signs=[1, 0, 0]).fit(X, y)
    save_model("m.model", est)
    loaded, _ = load_model("m.model")
    assert np.array_equal(loaded.predict(X), est.predict(X))
    assert np.array_equal(loaded.decision_function(X), est.decision_function(X))
    assert est.coef_.ravel()[0] >= 0 and est.score(X, y) > 0.9
    print("data", load_winequality_red().X.shape)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        print("reproduce", main(["reproduce", "--list"]))
    print(err.getvalue().strip())
"""

#: run with the three floors installed: the paper wing's command and its stored results
PAPER = """
    import sys
    from polyrank.cli import main
    from polyrank_paper.stored import STORED_DIR, load_result
    assert str(STORED_DIR).startswith(sys.prefix), STORED_DIR
    print("stored", *sorted(load_result(p).name for p in STORED_DIR.glob("*.json")))
    print("reproduce", main(["reproduce", "--list"]))
"""


def _pip(venv_python: Path, *args) -> None:
    # this venv's pip installs into the fresh one (a venv without pip is made in
    # a second; the dependencies come from pip's cache or the index)
    _run([sys.executable, "-m", "pip", "--python", venv_python, "--disable-pip-version-check",
          *args], cwd=venv_python.parent)


@pytest.mark.slow
def test_the_floors_install_and_work_one_by_one(wheels, tmp_path):
    # a fresh venv; the scripts run in an empty directory, away from the sources
    _run([sys.executable, "-m", "venv", "--without-pip", tmp_path / "venv"], cwd=tmp_path)
    bindir = tmp_path / "venv" / ("Scripts" if sys.platform == "win32" else "bin")
    python, work = bindir / "python", tmp_path / "work"
    work.mkdir()

    _pip(python, "install", "-q", "--no-compile", wheels["polyrank"])
    assert (bindir / "polyrank").is_file()                  # the console script
    out = _run([python, "-c", textwrap.dedent(CORE_ALONE)], cwd=work).stdout.splitlines()
    assert out[:2] == ["data (1599, 11)", "reproduce 2"], out
    assert out[2].startswith("polyrank reproduce needs the paper wing: "
                             "pip install polyrank-paper"), out

    _pip(python, "install", "-q", "--no-compile", wheels["polyrank-widgets"])
    out = _run([python, "-c", "import polyrank_widgets as w, importlib.util as u; "
                "print(w.KnotExplorer.__name__, u.find_spec('polyrank_paper'))"], cwd=work)
    assert out.stdout.split() == ["KnotExplorer", "None"]

    _pip(python, "install", "-q", "--no-compile", wheels["polyrank-paper"])
    _pip(python, "check")
    out = _run([python, "-c", textwrap.dedent(PAPER)], cwd=work).stdout.splitlines()
    stored = sorted(p.stem for p in (ROOT / "polyrank_paper/stored_results").glob("*.json"))
    assert out[0].split()[1:] == stored and out[-1] == "reproduce 0", out
    listed = [line.split()[0] for line in out[1:-1]]
    assert listed[:3] == ["sopopo-fig6", "sopopo-fig7", "sopopo-fig8"], out
