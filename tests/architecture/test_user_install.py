"""The user install (issue 41, item 5): the README's first command installs
``requirements.txt``, i.e. polyrank with its dask extra, polyrank-widgets
(JupyterLab, ipywidgets, plotly ...) and polyrank-paper (what notebooks 01-06,
linked from the tour, import), not the test and docs tools; the second keeps
installing everything (``requirements-dev.txt``).

What those two distributions pull in is read from the installed packages'
metadata (their requirements, followed recursively, markers evaluated): every
module the tour imports, and every third-party module the widgets floor and
the core import, comes from that dependency closure.  The install itself in
a fresh venv, and the tour executed with only it, is the slow
``tests/architecture/test_dists.py`` kind of check, run by hand (see the CHANGELOG).
"""

from __future__ import annotations

import ast
import functools
import json
import sys
from importlib.metadata import PackageNotFoundError, distribution, packages_distributions
from pathlib import Path

import pytest

packaging = pytest.importorskip("packaging")
from packaging.requirements import Requirement  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: the two commands of the README (and of docs/getting_started.md)
USER_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install -r requirements.txt "
                "&& .venv/bin/polyrank lab")
TEST_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install -r requirements-dev.txt "
                "&& bash .ci/test")
#: the repository's own import names and their distributions
OWN = {"polyrank": "polyrank", "polyrank_widgets": "polyrank-widgets",
       "polyrank_paper": "polyrank-paper"}
#: the core's imports that belong to an extra, imported only where that feature is used
#: (polyrank.dask: the dask extra; Trace.to_pandas: pandas of polyrank-widgets)
CORE_OPTIONAL = {"dask", "distributed", "pandas"}
#: the tools of the tests and the docs, which the user install leaves out
DEV_TOOLS = ("pytest", "nbval", "hypothesis", "playwright", "pytest-xdist", "ruff", "mypy",
             "sphinx", "pydata-sphinx-theme", "numpydoc", "myst-nb")


def _closure(roots) -> set[str]:
    """The canonical names of ``roots`` and of every distribution they
    require, recursively (markers evaluated here, extras followed)."""
    seen: set[tuple[str, frozenset]] = set()
    todo = [(canonicalize_name(req.name), frozenset(req.extras))
            for req in map(Requirement, roots)]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:     # not installed here (e.g. another platform's)
            continue
        for text in requires:
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate({"extra": e})
                                         for e in ("", *extras)):
                todo.append((canonicalize_name(req.name), frozenset(req.extras)))
    return {name for name, _ in seen}


@functools.cache
def _providers() -> dict:
    return packages_distributions()


def _distributions(module: str) -> set[str]:
    """The distributions that provide the top-level import name ``module``."""
    if module in OWN:
        return {OWN[module]}
    return {canonicalize_name(d) for d in _providers().get(module, [])}


def _third_party(modules) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names}


def _imports(tree) -> set[str]:
    """The top-level names of every absolute import in ``tree``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out


def _tour_imports(name: str = "00_tour.ipynb") -> set[str]:
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    out = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            lines = "".join(cell["source"]).splitlines()
            code = "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))
            out |= _imports(ast.parse(code))
    return out


def _tree_imports(folder: Path) -> set[str]:
    return set().union(*(_imports(ast.parse(p.read_text(encoding="utf-8")))
                         for p in folder.rglob("*.py")))


def _missing(modules, closure) -> dict:
    return {m: sorted(_distributions(m)) for m in sorted(_third_party(modules))
            if not _distributions(m) & closure}


USER = _closure(["polyrank[dask]", "polyrank-widgets", "polyrank-paper"])


def test_requirements_txt_is_the_three_floors():
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert lines == ["-e .[dask]", "-e ./dists/polyrank-widgets", "-e ./dists/polyrank-paper"]


@pytest.mark.parametrize("page", ["README.md", "docs/getting_started.md"])
def test_the_first_command_is_the_user_install_the_second_the_tests(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert USER_COMMAND in text and TEST_COMMAND in text
    assert text.index(USER_COMMAND) < text.index(TEST_COMMAND)
    assert USER_COMMAND in (ROOT / "docs" / "index.md").read_text(encoding="utf-8")


def test_the_tour_imports_only_what_the_user_install_pulls_in():
    modules = _tour_imports()
    assert {"polyrank", "polyrank_widgets", "IPython", "sklearn"} <= modules
    assert _missing(modules, USER) == {}
    assert "jupyterlab" in USER                 # polyrank lab


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "notebooks").glob("0*.ipynb")))
def test_every_notebook_imports_only_what_the_user_install_pulls_in(name):
    # the tour links to notebooks 01-06: `polyrank lab` copies them all, so they run too
    assert _missing(_tour_imports(name), USER) == {}


def test_the_widgets_and_the_core_import_only_what_their_distributions_pull_in():
    widgets = _tree_imports(ROOT / "polyrank_widgets")
    assert {"plotly", "ipywidgets", "anywidget"} <= widgets      # the check sees them
    assert _missing(widgets, _closure(["polyrank-widgets"])) == {}
    core = _tree_imports(ROOT / "core" / "polyrank") - CORE_OPTIONAL
    assert _missing(core, _closure(["polyrank"])) == {}


def test_the_user_install_leaves_out_the_test_and_docs_tools():
    assert sorted(USER & {canonicalize_name(t) for t in DEV_TOOLS}) == []
    # while the development install has them
    dev = _closure(["polyrank[dev]", "polyrank-widgets", "polyrank-paper"])
    assert {"pytest", "sphinx", "nbval"} <= dev
