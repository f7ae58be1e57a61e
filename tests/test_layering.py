"""The import layers of ``core/polyrank`` (DESIGN.md, "Layout").

The shared modules (results, validation, metrics, kernels, the QP adapter,
TRON, the data loaders) sit below the five paper subpackages: they import
none of them, so a paper subpackage may import any shared module without a
cycle.  Inside the package, imports sit at module level: an import inside a
function that dodges a cycle hides the cycle instead of fixing it.
"""

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "core" / "polyrank"
PAPERS = {"sopopo", "sign", "ranksvm", "ordinal", "m3l"}
SHARED = ["result.py", "validation.py", "metrics.py", "kernels.py", "qp.py", "tron.py",
          "_ranking_kernels.py", "_csr.py", "_sort.py", "_jit.py", "_sklearn.py", "_multilabel.py",
          "io.py", "datasets"]

#: function-level imports of polyrank modules that are not cycle dodges
LAZY_ALLOWED = {
    # the command line is the top floor: it loads the experiments (and
    # through them every subpackage) only for the subcommands that need them,
    # so that `polyrank --help` and `polyrank train` start fast
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
                if len(parts) > 1 and parts[1] in PAPERS | {"experiments", "cli"}:
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


#: the view layer's libraries: polyrank_widgets draws, the core computes
VIEW_LIBRARIES = {"plotly", "ipywidgets", "anywidget", "polyrank_widgets"}


def test_core_imports_no_view_library():
    # DESIGN.md: the core never imports ipywidgets or plotly; the experiments'
    # figures are found through the entry-point group "polyrank.figures"
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            offenders += [f"{path.relative_to(CORE)}:{node.lineno} {n}" for n in names
                          if n.split(".")[0] in VIEW_LIBRARIES]
    assert not offenders, offenders
