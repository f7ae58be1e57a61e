"""Every numba helper is compiled once: no literal-int specialisations.

numba types an integer constant as ``Literal[int](0)``.  A kernel that
passes a literal (``f(x, 0)``), or a variable that starts as one
(``o = 0`` ... ``f(x, o)`` ... ``o += n``), to another kernel makes numba
compile the callee for the literal besides ``int64``: a second
specialisation, seconds of cold compile time for the large kernels
(``_example_sweep`` of SOPOPO, M3L's ``_push_row``; issue 15, ``polyrank
warmup`` <= 25 s).  The kernels write ``np.int64(0)`` instead.

This test reads the kernel modules' source (no compiling): in every
``@njit`` function it finds the calls of other ``@njit`` functions of the
package (not those declared ``inline="always"``, which are compiled into
their callers) and fails on

- a name passed as an argument that the function assigns an int literal
  and also changes elsewhere (the loop counter case), and
- an int literal passed where another call of the same kernel passes a
  non-literal (two specialisations).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import polyrank

PACKAGE = Path(polyrank.__file__).parent


def _kernel_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py")
                  if "experiments" not in p.parts and "njit" in p.read_text(encoding="utf-8"))


def _jit_options(fn: ast.FunctionDef):
    """(is jitted, is inline="always") from the decorators of ``fn``."""
    for dec in fn.decorator_list:
        call = dec if isinstance(dec, ast.Call) else None
        target = call.func if call else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "njit":
            inline = any(kw.arg == "inline" and isinstance(kw.value, ast.Constant)
                         and kw.value.value == "always" for kw in (call.keywords if call else []))
            return True, inline
    return False, False


def _jitted_functions():
    """{name: (module path, FunctionDef, inline)} of every top-level njit function."""
    out = {}
    for path in _kernel_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                jitted, inline = _jit_options(node)
                if jitted:
                    out[node.name] = (path, node, inline)
    return out


def _is_int_literal(node) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, int)
            and not isinstance(node.value, bool))


def _literal_then_changed(fn: ast.FunctionDef) -> set[str]:
    """Names that ``fn`` assigns an int literal and also assigns otherwise."""
    literal, other = set(), set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    (literal if _is_int_literal(node.value) else other).add(t.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            other.add(node.target.id)
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            other.add(node.target.id)
    return literal & other


def _calls():
    """(caller, callee, position, arg node, path) for every call of a
    separately compiled kernel from a kernel."""
    kernels = _jitted_functions()
    for path, fn, _ in kernels.values():
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                callee = kernels.get(node.func.id)
                if callee is None or callee[2]:           # not a kernel, or inlined
                    continue
                for pos, arg in enumerate(node.args):
                    yield fn, node.func.id, pos, arg, path


def test_the_scan_finds_the_kernels():
    """The scan is not vacuous: it sees the helpers the fix was about."""
    kernels = _jitted_functions()
    for name in ("_example_sweep", "_push_row", "_daxpy", "_top", "count_pairs",
                 "argsort_stable"):
        assert name in kernels
    callees = {callee for _, callee, _, _, _ in _calls()}
    assert {"_example_sweep", "_push_row", "_daxpy", "_top"} <= callees


def test_no_literal_counter_is_passed_to_a_kernel():
    bad = []
    for fn, callee, _pos, arg, path in _calls():
        if isinstance(arg, ast.Name) and arg.id in _literal_then_changed(fn):
            bad.append(f"{path.name}:{arg.lineno} {fn.name} passes {arg.id!r} (starts as an "
                       f"int literal) to {callee}: write {arg.id} = np.int64(...)")
    assert not bad, "\n".join(bad)


def test_no_kernel_gets_both_a_literal_and_a_variable():
    seen = defaultdict(lambda: [[], []])           # (callee, pos) -> [literal sites, other]
    for _fn, callee, pos, arg, path in _calls():
        seen[(callee, pos)][0 if _is_int_literal(arg) else 1].append(
            f"{path.name}:{arg.lineno}")
    bad = [f"{callee} argument {pos}: int literal at {lit}, variable at {var}"
           for (callee, pos), (lit, var) in seen.items() if lit and var]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("src, expected", [
    ("o = 0\nwhile o < n:\n    f(o)\n    o += 1\n", {"o"}),
    ("o = np.int64(0)\nwhile o < n:\n    f(o)\n    o += 1\n", set()),
    ("k = 3\nf(k)\n", set()),
])
def test_the_counter_rule_on_small_sources(src, expected):
    fn = ast.parse("def g(n):\n" + "".join("    " + line + "\n"
                                           for line in src.splitlines())).body[0]
    assert _literal_then_changed(fn) == expected
