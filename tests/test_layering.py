"""The import layers: three floors, and inside the core its shared modules
below its paper subpackages (DESIGN.md, "Layout"; CONTRIBUTING.md, "Layout").

The floors, each importing only those below it: ``polyrank`` (core/polyrank:
solvers, estimators, io, metrics, datasets, the ``polyrank`` command) imports
neither ``polyrank_widgets`` nor ``polyrank_paper``; ``polyrank_widgets`` (the
widgets and their views) imports ``polyrank`` but never ``polyrank_paper``;
``polyrank_paper`` (the reproductions, their figures, the benchmarks,
``polyrank reproduce / bench / demo``) may import both.  The core's command
finds the paper wing's sub-commands through the entry-point group
``polyrank.commands``, never by importing it.

Inside the core, the shared modules (results, validation, metrics, kernels, the QP adapter,
TRON, the data loaders) sit below the five paper subpackages: they import
none of them, so a paper subpackage may import any shared module without a
cycle.  Inside the package, imports sit at module level: an import inside a
function that dodges a cycle hides the cycle instead of fixing it.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core" / "polyrank"
WIDGETS = ROOT / "polyrank_widgets"
PAPER = ROOT / "polyrank_paper"
PAPERS = {"sopopo", "sign", "ranksvm", "ordinal", "m3l"}
SHARED = ["result.py", "validation.py", "metrics.py", "kernels.py", "qp.py", "tron.py",
          "_ranking_kernels.py", "_csr.py", "_sort.py", "_jit.py", "_sklearn.py", "_multilabel.py",
          "io.py", "datasets", "compiling.py", "_workcopy.py"]

#: function-level imports of polyrank modules that are not cycle dodges
LAZY_ALLOWED = {
    # the command line is the top floor of the core: it loads the modules of
    # a subcommand only when that subcommand runs, so that `polyrank --help`
    # and `polyrank train` start fast
    "cli.py",
}
#: folders not held to the rule yet (none: every module imports at its top)
LAZY_NOT_YET = ()


def _polyrank_imports(path, module_parts):
    """(node, absolute dotted target) of every import of a polyrank module."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = module_parts[:len(module_parts) - (node.level - 1)]
                target = ".".join(["polyrank", *base] + ([node.module] if node.module else []))
                names = [f"{target}.{a.name}" for a in node.names]
                yield node, [target, *names]
            elif node.module and node.module.split(".")[0] == "polyrank":
                yield node, [node.module]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "polyrank":
                    yield node, [alias.name]


def _module_parts(path):
    rel = path.relative_to(CORE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    else:
        parts = parts[:-1]            # the package the module lives in
    return parts


def _files(entry):
    p = CORE / entry
    return sorted(p.rglob("*.py")) if p.is_dir() else [p]


@pytest.mark.parametrize("entry", SHARED)
def test_shared_modules_import_no_paper_subpackage(entry):
    offenders = []
    for path in _files(entry):
        for node, targets in _polyrank_imports(path, _module_parts(path)):
            for target in targets:
                parts = target.split(".")
                if len(parts) > 1 and parts[1] in PAPERS | {"cli"}:
                    offenders.append(f"{path.relative_to(CORE)}:{node.lineno} {target}")
    assert not offenders, offenders


def test_package_imports_sit_at_module_level():
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE).as_posix()
        if rel in LAZY_ALLOWED or rel.startswith(LAZY_NOT_YET):
            continue
        tree = ast.parse(path.read_text())
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if func.name == "_warmup" or func.name == "warmup":
                continue          # compiling kernels on request is their purpose
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and node.level:
                    offenders.append(f"{rel}:{node.lineno} in {func.name}()")
    assert not offenders, offenders


def test_the_layer_check_sees_relative_imports():
    # guards the two tests above against parsing nothing
    found = list(_polyrank_imports(CORE / "metrics.py", []))
    targets = {t for _, ts in found for t in ts}
    assert "polyrank.validation" in targets and "polyrank._ranking_kernels" in targets


#: the libraries and floors above the core: polyrank_widgets draws, polyrank_paper
#: reproduces the papers, the core computes
VIEW_LIBRARIES = {"plotly", "ipywidgets", "anywidget", "polyrank_widgets", "polyrank_paper"}


def _absolute_imports(root):
    """(file:line, top-level name) of every absolute import under ``root``
    (relative imports stay inside the package)."""
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", name.split(".")[0]


def test_core_imports_no_view_library_and_no_floor_above():
    # the core never imports ipywidgets or plotly, nor the two floors above
    # it; the paper wing's commands come through the entry-point group
    # "polyrank.commands" (polyrank.cli.COMMANDS_GROUP)
    offenders = [f"{where} {name}" for where, name in _absolute_imports(CORE)
                 if name in VIEW_LIBRARIES]
    assert not offenders, offenders


def test_widgets_never_import_the_paper_wing():
    offenders = [f"{where} {name}" for where, name in _absolute_imports(WIDGETS)
                 if name == "polyrank_paper"]
    assert not offenders, offenders


def test_the_paper_wing_stands_on_both_floors_below():
    # guards the two tests above against parsing nothing: the same check
    # sees the paper wing's imports of the core and of the widgets
    names = {name for _, name in _absolute_imports(PAPER)}
    assert {"polyrank", "polyrank_widgets", "plotly"} <= names


@pytest.mark.slow          # 14 s in CI: a fresh interpreter per floor
def test_importing_a_floor_loads_none_above_it():
    code = ("import sys, polyrank, polyrank.cli; a = 'polyrank_widgets' in sys.modules; "
            "b = 'polyrank_paper' in sys.modules; import polyrank_widgets; "
            "print(a, b, 'polyrank_paper' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False", "False"]


def test_the_command_finds_the_paper_wing_through_its_entry_point():
    from importlib.metadata import entry_points

    from polyrank.cli import COMMANDS_GROUP

    eps = {ep.name: ep.value for ep in entry_points(group=COMMANDS_GROUP)}
    assert eps.get("paper") == "polyrank_paper.cli:register"
