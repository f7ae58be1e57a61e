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

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core" / "polyrank"
WIDGETS = ROOT / "polyrank_widgets"
PAPER = ROOT / "polyrank_paper"
PAPERS = {"sopopo", "sign", "ranksvm", "ordinal", "m3l"}
SHARED = ["result.py", "validation", "metrics.py", "kernels.py", "qp.py", "tron.py",
          "_ranking_kernels.py", "_csr.py", "_sort.py", "_jit.py", "_sklearn.py", "_multilabel.py",
          "io", "datasets", "_compile_notice.py", "_workcopy.py", "utils", "path.py",
          "_warm.py"]
#: the core's modules above the paper subpackages: they import them plainly
#: (the command; the warm-up and the background compile of all five, which
#: the subpackages join by registering with _jit when imported)
ABOVE_PAPERS = ["cli", "compiling.py", "_warmup_all.py", "__init__.py"]

#: function-level imports of polyrank modules that are not cycle dodges
LAZY_ALLOWED = {
    # the command line is the top floor of the core: it loads the modules of
    # a subcommand only when that subcommand runs, so that `polyrank --help`
    # and `polyrank train` start fast
    "cli/",
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
        if rel.startswith(tuple(LAZY_ALLOWED)) or rel.startswith(LAZY_NOT_YET):
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


# ---------------------------------------------------------------- honest arrows (issue 46, item 2)

DISTRIBUTIONS = {"polyrank": CORE, "polyrank_widgets": WIDGETS, "polyrank_paper": PAPER}


def _dist_of(path):
    return next(name for name, root in DISTRIBUTIONS.items() if root in path.parents)


def _all_imports(path):
    """(line, module, names) of every absolute import in ``path`` (module
    level or inside a function)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.lineno, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_crosses_a_distribution():
    # what one distribution uses of another is public there (polyrank.utils,
    # polyrank_widgets.utils, ...), so that a refactor of a private module
    # cannot break a floor above without a test of that floor noticing
    offenders = []
    for root in DISTRIBUTIONS.values():
        for path in sorted(root.rglob("*.py")):
            own = _dist_of(path)
            for line, module, names in _all_imports(path):
                top = module.split(".")[0]
                if top not in DISTRIBUTIONS or top == own:
                    continue
                bad = [p for p in module.split(".")[1:] if _is_private(p)]
                bad += [n for n in names if _is_private(n)]
                if bad:
                    offenders.append(f"{path.relative_to(ROOT)}:{line} {module} {bad}")
    assert not offenders, offenders


def test_the_private_import_check_sees_one():
    # guards the test above: a private name of another distribution is flagged
    code = "from polyrank._jit import x\nfrom polyrank.sopopo import _kernels\n"
    found = [(m, n) for _, m, n in _all_imports_of_source(code)]
    bad = [m for m, n in found if any(_is_private(p) for p in m.split(".")[1:] + n)]
    assert len(bad) == 2


def _all_imports_of_source(code):
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.lineno, node.module, [a.name for a in node.names]


def _module_name(path, root, top):
    rel = path.relative_to(root).with_suffix("")
    parts = [top, *rel.parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph(root, top):
    """{module: set of modules of the same distribution it imports}, every
    import counted (module level, inside a function, relative or absolute)."""
    graph = {}
    for path in sorted(root.rglob("*.py")):
        name = _module_name(path, root, top)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            deps.update(t for t in targets if t.split(".")[0] == top)
        graph[name] = deps
    # keep edges to modules (a name imported from a package is not one)
    return {m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()}


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _without_package_inits(graph):
    """The graph without the edges into a package's ``__init__`` from its own
    submodules: a package re-exports its modules' names (the edge down) and a
    submodule importing a sibling through the package is that sibling."""
    return {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}


@pytest.mark.parametrize("top", sorted(DISTRIBUTIONS))
def test_no_import_circle_inside_a_distribution(top):
    graph = _without_package_inits(_import_graph(DISTRIBUTIONS[top], top))
    assert _cycles(graph) == []


def test_the_circle_check_finds_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


#: the import_module calls that take a name from data, not a module of the
#: package's own structure: stored results name their dataclasses (checked to
#: be polyrank's), the baseline runner its worker functions
IMPORT_BY_DATA = {"polyrank_paper/stored.py", "polyrank_paper/_baseline.py"}


def test_no_module_is_imported_by_a_name_built_in_code():
    # an arrow importlib hides (``import_module(f"polyrank.{name}")``) is an
    # arrow the checks above cannot see; a package's own PEP 562 loader in
    # its __init__ (relative names of its own submodules) is the exception
    offenders = []
    for root in DISTRIBUTIONS.values():
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text())):
                if not (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(
                        node.func, "id", None)) in ("import_module", "__import__")):
                    continue
                relative_in_init = path.name == "__init__.py" and len(node.args) == 2
                if not (relative_in_init or rel in IMPORT_BY_DATA):
                    offenders.append(f"{rel}:{node.lineno}")
    assert not offenders, offenders


def test_nothing_below_imports_the_modules_above_the_paper_packages():
    # the warm-up and the background compile import the five paper packages:
    # a shared module or a paper package importing them would close a circle
    above = {f"polyrank.{m.removesuffix('.py')}" for m in ABOVE_PAPERS if m != "__init__.py"}
    below = [p for entry in SHARED for p in _files(entry)]
    below += [p for name in PAPERS for p in sorted((CORE / name).rglob("*.py"))]
    offenders = [f"{path.relative_to(CORE)}:{node.lineno} {t}"
                 for path in below
                 for node, targets in _polyrank_imports(path, _module_parts(path))
                 for t in targets if ".".join(t.split(".")[:2]) in above]
    assert len(below) > 40 and not offenders, offenders
