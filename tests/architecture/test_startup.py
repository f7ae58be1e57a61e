"""Start-up: what ``import polyrank`` and the ``polyrank`` command load
(issue 41, item 2).

``import polyrank`` reads the version and nothing else; the public names
load their subpackage on first use (PEP 562 ``__getattr__``).  ``polyrank
--version`` and ``polyrank train --help`` import no numpy, SciPy,
scikit-learn, numba, solver or plugin; ``polyrank train METHOD`` imports
METHOD's subpackage and no other solver.  Each check runs in a fresh
interpreter and looks at ``sys.modules``: properties, not times.
"""

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import polyrank
import polyrank.cli as cli
from polyrank.cli import _parser, _train

INIT = Path(polyrank.__file__)
#: the solver subpackages, one per paper
SOLVERS = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")
#: what a command that only parses its arguments must not load
HEAVY = ("numpy", "scipy", "sklearn", "numba", "pandas", "skops", "clarabel", "joblib",
         "polyrank_paper", "polyrank_widgets")


def _loaded(code: str, tmp_path) -> dict:
    """Run ``code`` in a fresh interpreter; return ``{"modules": its sorted
    sys.modules at the end, "stdout": what it printed, **what the code put in OUT}``."""
    script = textwrap.dedent("""
        import json, os, sys
        OUT = {}
    """) + textwrap.dedent(code) + textwrap.dedent("""
        OUT["modules"] = sorted(sys.modules)
        with open(os.environ["STARTUP_OUT"], "w") as fh:
            json.dump(OUT, fh)
    """)
    out_file = tmp_path / "startup.json"
    env = {**os.environ, "STARTUP_OUT": str(out_file)}
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out_file.read_text())
    result["stdout"] = proc.stdout
    return result


def _heavy(modules) -> list:
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


def _solvers(modules) -> list:
    return sorted({m.split(".")[1] for m in modules
                   if m.startswith("polyrank.") and m.split(".")[1] in SOLVERS})


def _kernel_modules(modules) -> list:
    return [m for m in modules if m.startswith("polyrank.") and m.rsplit(".", 1)[-1]
            in ("_kernels", "_ranking_kernels", "_csr", "_sort", "_dcd")]


@pytest.mark.parametrize("argv", [["--version"], ["train", "--help"], ["predict", "--help"],
                                  ["warmup", "--help"], ["lab", "--help"],
                                  ["--debug", "train", "--help"]],
                         ids=" ".join)
def test_parsing_a_core_command_loads_nothing_heavy(argv, tmp_path):
    out = _loaded(f"""
        from polyrank.cli import main
        OUT["status"] = main({argv!r})
    """, tmp_path)
    assert out["status"] == 0
    assert _heavy(out["modules"]) == []
    assert _solvers(out["modules"]) == [] and _kernel_modules(out["modules"]) == []
    if argv == ["--version"]:
        assert out["stdout"].strip() == f"polyrank {polyrank.__version__}"
    if "train" in argv:              # the declarative table still lists every method
        assert all(f"  {name}" in out["stdout"] for name in _train._METHODS)


def test_import_polyrank_loads_no_solver_until_a_name_is_used(tmp_path):
    out = _loaded("""
        import polyrank
        OUT["version"] = polyrank.__version__
        OUT["before"] = sorted(sys.modules)
        from polyrank import RankSVM
        OUT["class"] = RankSVM.__module__
    """, tmp_path)
    before = out["before"]
    assert out["version"] == polyrank.__version__
    assert _heavy(before) == [] and _solvers(before) == [] and _kernel_modules(before) == []
    # an estimator loads its own solver (and numba), no other paper's
    assert out["class"] == "polyrank.ranksvm.estimator"
    assert _solvers(out["modules"]) == ["ranksvm"]
    assert "numba" in {m.split(".")[0] for m in out["modules"]}


@pytest.mark.parametrize("method, regression, package", [
    ("ranksvm", False, "ranksvm"), ("sign", False, "sign"), ("sign", True, "sign"),
    ("ordinal", False, "ordinal"), ("m3l", False, "m3l"), ("labelranker", False, "sopopo")])
def test_a_train_method_imports_its_solver_only(method, regression, package, tmp_path):
    out = _loaded(f"""
        from polyrank.cli._train import _estimator_class
        OUT["name"] = _estimator_class({method!r}, {regression!r}).__name__
    """, tmp_path)
    assert _solvers(out["modules"]) == [package]
    expected = "SignConstrainedRegressor" if regression else _train._METHODS[method].estimator
    assert out["name"] == expected


@pytest.mark.slow
def test_train_ranksvm_imports_ranksvm_and_no_other_solver(tmp_path):
    rows = "\n".join(f"{r % 3} qid:{1 + r // 6} 1:{(r * 7) % 5 / 4} 2:{(r * 3) % 4 / 3}"
                     for r in range(18))
    (tmp_path / "train.txt").write_text(rows + "\n")
    out = _loaded("""
        from polyrank.cli import main
        OUT["status"] = main(["train", "ranksvm", "train.txt", "m.model"])
    """, tmp_path)
    assert out["status"] == 0 and (tmp_path / "m.model").is_file()
    assert _solvers(out["modules"]) == ["ranksvm"]
    assert "polyrank_paper" not in {m.split(".")[0] for m in out["modules"]}


def test_the_lazy_names_are_the_type_checking_imports():
    # the names __getattr__ serves (_SUBMODULES, _OBJECTS) and the imports mypy and
    # IDEs read under `if TYPE_CHECKING:` are the same, and together they are __all__
    tree = ast.parse(INIT.read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and getattr(node.test, "id", None) == "TYPE_CHECKING")
    submodules, objects = set(), {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names:
            if node.module is None:
                submodules.add(alias.name)
            else:
                objects[alias.name] = f".{node.module}"
    assert submodules == polyrank._SUBMODULES
    assert objects == polyrank._OBJECTS
    assert submodules | set(objects) | {"__version__"} == set(polyrank.__all__)


def test_every_public_name_resolves_and_is_listed_by_dir():
    assert set(polyrank.__all__) <= set(dir(polyrank))
    for name in polyrank.__all__:
        assert getattr(polyrank, name) is not None, name
    assert polyrank.RankSVM is polyrank.ranksvm.RankSVM
    assert polyrank.warmup.__module__ == "polyrank._warmup_all"
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        polyrank.not_a_name              # noqa: B018


@pytest.mark.parametrize("argv, needed", [
    (["--version"], False), (["train", "--help"], False), (["--debug", "predict"], False),
    ([], False), (["warmup"], False), (["--help"], True), (["-h", "train"], True),
    (["bench", "sopopo"], True), (["reproduce", "--list"], True), (["nonsense"], True),
    (["--version", "--help"], False)])
def test_plugins_are_loaded_only_for_a_command_that_is_not_the_cores(argv, needed):
    # --help before any command lists every command, the plugins' too; an unknown
    # command's error lists the choices
    assert _parser._needs_plugins(argv) is needed


def test_the_core_parser_has_no_plugin_command():
    core = cli.build_parser(plugins=False)
    full = cli.build_parser()
    commands = {a.dest: a for a in core._actions if a.dest == "command"}["command"].choices
    assert set(commands) == set(cli.CORE_COMMANDS)
    full_commands = {a.dest: a for a in full._actions if a.dest == "command"}["command"].choices
    assert set(_parser.PAPER_COMMANDS) | set(cli.CORE_COMMANDS) <= set(full_commands)


#: what the paper wing's parser may load: its own package and registry, nothing that computes
PAPER_HEAVY = tuple(h for h in HEAVY if h != "polyrank_paper") + ("plotly", "ipywidgets",
                                                                  "anywidget", "tqdm")


@pytest.mark.parametrize("argv", [["--help"], ["bench", "--help"], ["reproduce", "--help"],
                                  ["demo", "--help"]], ids=" ".join)
def test_parsing_a_paper_command_loads_no_experiment(argv, tmp_path):
    # the plugins' parsers are built from polyrank_paper.registry's BENCH_CATALOG, so
    # `polyrank --help` and `polyrank bench --help` import no experiment or benchmark
    out = _loaded(f"""
        from polyrank.cli import main
        try:
            OUT["status"] = main({argv!r})
        except SystemExit as exc:        # argparse's --help of a sub-command
            OUT["status"] = exc.code
    """, tmp_path)
    mods = out["modules"]
    assert out["status"] == 0
    assert sorted({m.split(".")[0] for m in mods} & set(PAPER_HEAVY)) == []
    assert [m for m in mods if m.startswith("polyrank_paper.")] == ["polyrank_paper._requires",
                                                                   "polyrank_paper.cli",
                                                                   "polyrank_paper.readme",
                                                                   "polyrank_paper.registry"]
    if argv == ["bench", "--help"]:
        from polyrank_paper import BENCH_CATALOG
        assert all(name in out["stdout"] for name in BENCH_CATALOG)


def test_the_bench_catalog_is_the_registry_in_its_order():
    # every registered bench takes its description from the catalog, and the catalog
    # lists them in the order they register (the order of the papers)
    import polyrank_paper
    from polyrank_paper.registry import BENCH_CATALOG

    assert list(polyrank_paper.BENCHES) == list(BENCH_CATALOG)
    assert all(b.description == BENCH_CATALOG[n] for n, b in polyrank_paper.BENCHES.items())
    with pytest.raises(ValueError, match="no description in BENCH_CATALOG"):
        polyrank_paper.register_bench("not-in-the-catalog")


def test_the_paper_wings_lazy_names_are_its_type_checking_imports():
    import polyrank_paper

    tree = ast.parse(Path(polyrank_paper.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and getattr(node.test, "id", None) == "TYPE_CHECKING")
    objects, registry = {}, set()
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names:
            if node.module == "registry":
                registry.add(alias.name)
            else:
                objects[alias.name] = f".{node.module}"
    assert objects == polyrank_paper._OBJECTS
    assert registry == polyrank_paper._REGISTRY
    assert set(objects) | registry <= set(polyrank_paper.__all__) <= set(dir(polyrank_paper))
    for name in polyrank_paper.__all__:
        assert getattr(polyrank_paper, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        polyrank_paper.not_a_name        # noqa: B018


@pytest.mark.slow
def test_the_registries_keep_the_papers_order_whatever_is_imported_first(tmp_path):
    # loading a stored result imports one experiment module before the others; the
    # lists of `polyrank reproduce --list` and `polyrank bench --help` stay in order
    out = _loaded("""
        import polyrank_paper.bench.first_run, polyrank_paper.ranksvm.fig7
        import polyrank_paper as p
        OUT["benches"] = list(p.BENCHES)
        OUT["experiments"] = list(p.EXPERIMENTS)
        OUT["catalog"] = list(p.BENCH_CATALOG)
    """, tmp_path)
    assert out["benches"] == out["catalog"]
    papers = [name.split("-")[0] for name in out["experiments"]]
    assert papers == sorted(papers, key=["sopopo", "sign", "ranksvm", "ordinal", "m3l"].index)
    assert out["experiments"][:3] == ["sopopo-fig6", "sopopo-fig7", "sopopo-fig8"]
    assert out["experiments"].index("ranksvm-fig4") < out["experiments"].index("ranksvm-fig7")
