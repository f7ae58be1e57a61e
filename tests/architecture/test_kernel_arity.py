"""No numba kernel takes more than :data:`MAX_POSITIONAL` positional arguments.

Issue 32, item 5: a kernel that would take more than about ten arrays takes a
``typing.NamedTuple`` of them instead (``CONTRIBUTING.md``, "The solver
pattern"; e.g. :class:`polyrank.sign._kernels.CsrExamples`,
:class:`polyrank.ranksvm._kernels.PairCounts`); numba types the tuple field
by field, so the kernel is as fast and is cached as before.

This test reads the source of every module of ``core/polyrank`` (no
compiling): every function decorated with numba's ``njit`` or ``jit`` (bare
or called, ``numba.njit`` or ``njit``, nested ones included) must have at
most :data:`MAX_POSITIONAL` positional parameters, unless it is listed in
:data:`ALLOWED`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "core" / "polyrank"
MAX_POSITIONAL = 12

#: kernels allowed above the limit, as ``path relative to core/polyrank::name``
#: with their positional arguments today (none: issue 32 item 5 converted the
#: last, the M3L kernels; an entry whose kernel is back within the limit fails
#: the stale-entry test)
ALLOWED: dict[str, int] = {}


def _is_numba_jit(decorator: ast.expr) -> bool:
    """Whether ``decorator`` is ``njit``/``jit`` (``numba.`` or not, called or bare)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr in ("njit", "jit")
    return isinstance(target, ast.Name) and target.id in ("njit", "jit")


def kernel_arities(source: str):
    """(name, positional parameters) of every numba-jitted function in ``source``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any(
                _is_numba_jit(d) for d in node.decorator_list):
            yield node.name, len(node.args.posonlyargs) + len(node.args.args)


def _all_kernels() -> dict[str, int]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, n in kernel_arities(path.read_text(encoding="utf-8")):
            out[f"{rel}::{name}"] = n
    return out


def test_the_scan_finds_the_kernels():
    """The scan is not vacuous: it sees kernels of every solver package,
    both decorator spellings, and the NamedTuple kernels of issue 32."""
    kernels = _all_kernels()
    for key in ("sign/_kernels.py::sdca_epoch_dense",          # @njit(...)
                "ranksvm/_kernels.py::count_pairs",            # @numba.njit(...)
                "ranksvm/_kernels.py::_direct_query",
                "ranksvm/_dcd.py::dcd_epoch",
                "ordinal/_kernels.py::prank_epoch",
                "ordinal/_kernels.py::prank_epoch_csr",
                "sopopo/_shrink_kernels.py::_example_sweep",
                "m3l/_kernels_smo.py::smo_pass",
                "_csr.py::row_dot"):
        assert key in kernels, key
    assert len(kernels) > 100


def test_no_kernel_takes_more_than_the_limit():
    offenders = {k: n for k, n in _all_kernels().items()
                 if n > MAX_POSITIONAL and k not in ALLOWED}
    assert not offenders, (
        f"numba kernels with more than {MAX_POSITIONAL} positional arguments (pass the "
        f"arrays as a typing.NamedTuple, see CONTRIBUTING.md): {offenders}")


def test_the_allow_list_has_no_stale_entry():
    """Every allowed kernel still exists and is still above the limit (an
    entry left behind after a conversion would let the kernel grow again)."""
    kernels = _all_kernels()
    stale = {k: kernels.get(k) for k in ALLOWED
             if kernels.get(k) is None or kernels[k] <= MAX_POSITIONAL}
    assert not stale, f"remove from ALLOWED (converted or gone): {stale}"


_ARGS = ", ".join(f"a{i}" for i in range(MAX_POSITIONAL + 1))


@pytest.mark.parametrize("src, expected", [
    (f"@numba.njit(cache=True)\ndef f({_ARGS}):\n    pass\n", [("f", MAX_POSITIONAL + 1)]),
    (f"@njit\ndef f({_ARGS}, /):\n    pass\n", [("f", MAX_POSITIONAL + 1)]),
    (f"@numba.jit(nopython=True)\ndef f({_ARGS}):\n    pass\n", [("f", MAX_POSITIONAL + 1)]),
    ("def g():\n    @njit(cache=True)\n    def h(a, b, *, c):\n        pass\n", [("h", 2)]),
    (f"def f({_ARGS}):\n    pass\n", []),                       # not a kernel
    (f"@functools.cache\ndef f({_ARGS}):\n    pass\n", []),
])
def test_the_scan_on_small_sources(src, expected):
    assert list(kernel_arities(src)) == expected
