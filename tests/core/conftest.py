"""Fixtures of the core's tests (polyrank's top-level modules and, below,
one folder per subpackage), and the core alone.

The problems and tolerances several floors share are in tests/conftest.py.

The core alone: ``pytest tests/core`` also runs where only the core is
installed (``pip install polyrank``, no polyrank-widgets, no polyrank-paper).
A file that imports a missing floor at its top is not collected (the header
of the run names it), and a test that imports one inside is skipped, naming
the distribution to install; with the three installed nothing changes.
"""

import ast
import importlib.util
from pathlib import Path

import pytest
from conftest import Logistic, binary_problem

#: the floors above the core, by import name, and the distribution that carries each
FLOORS = {"polyrank_widgets": "polyrank-widgets", "polyrank_paper": "polyrank-paper"}


def _installed(name: str) -> bool:
    """Whether the package ``name`` can be found (a blocked finder counts as absent)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


#: the floors above the core that this environment lacks
MISSING = {name: dist for name, dist in FLOORS.items() if not _installed(name)}
#: the test files left out because they import a missing floor at their top
_LEFT_OUT = pytest.StashKey[list]()


def _top_imports(path: Path) -> set[str]:
    """The top-level package names the module ``path`` imports outside any
    function or class (what importing the module needs)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Import):
                names.update(a.name.split(".")[0] for a in sub.names)
            elif isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                names.add(sub.module.split(".")[0])
    return names


def pytest_ignore_collect(collection_path, config):
    if MISSING and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        if _top_imports(collection_path) & MISSING.keys():
            config.stash.setdefault(_LEFT_OUT, []).append(collection_path.name)
            return True
    return None



def pytest_report_collectionfinish(config, start_path, items):
    left = config.stash.get(_LEFT_OUT, [])
    if left:
        return (f"the core alone ({', '.join(sorted(MISSING.values()))} not installed): "
                f"{len(left)} files left out: {', '.join(sorted(left))}")
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top in MISSING:
            pytest.skip(f"needs {MISSING[top]} (pip install {MISSING[top]})")
        raise


@pytest.fixture
def logistic():
    """A 200 x 8 :class:`Logistic` problem at C = 2 (polyrank.tron's test
    function)."""
    X, y = binary_problem(0, n=200, d=8)
    return Logistic(X, y, C=2.0)
