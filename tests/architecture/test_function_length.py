"""No function body in ``core/`` or ``polyrank_paper/`` (nor in ``polyrank_widgets/``) longer than
:data:`MAX_CODE_LINES` code lines (docstrings, comments and blank lines not
counted; a nested function counts towards its parent).  A long driver is split into named helpers; a
numba kernel only where the split does not cost speed."""

import ast
import io
import tokenize
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
WIDGETS = ROOT / "polyrank_widgets"
#: the trees whose functions :func:`_long_functions` measures, and the directory their
#: names are relative to (``polyrank/...`` and ``polyrank_paper/...``)
MEASURED = ((CORE, CORE), (ROOT / "polyrank_paper", ROOT))
MAX_CODE_LINES = 60

_NUMBA = "numba kernel: splitting the hot loop costs speed"
#: functions allowed to be longer, with the reason
ALLOWED = {
    # the hot loop of every shrinking SOPOPO pass: one piece's violation, label
    # shrinking and soft projection (Eq. 31) in one body, whose locals stay in
    # registers across the three steps
    "polyrank/sopopo/_shrink_kernels.py::_example_sweep": _NUMBA,
    # measured (pass_pairs_shrink's time, LabelRanker(C=1) on yeast, 150 passes, 2-3
    # runs interleaved with the unsplit kernel, load 14-18, bit-identical results):
    # the x_i = 0 branch and the end-of-segment axpys as helpers, 1.5-1.9x slower;
    # also the per-piece score, violation and step as helpers, 3.6-4.3x slower
    # (inline="never") or 3.3-3.6x (inline="always")
    "polyrank/sopopo/_kernels.py::pass_pairs_shrink":
        "numba kernel: split, 1.5-1.9x slower (outer helpers) to 4.3x (per-piece)",
    # split into inline="always" helpers (work arrays, the label-wise batch
    # draw, the update of Z): 1.2x slower (thread CPU seconds of the kernel,
    # yeast's first 700 rows, empirical R + 0.1 I, C = 0.1, min of 5 runs,
    # 3 alternations: 158-197 ms unsplit, 206-251 ms split); the module split
    # alone costs nothing (163-190 ms vs 167-185 ms)
    "polyrank/m3l/_kernels_dca.py::dca_run": _NUMBA,
}


def code_lines(source):
    """The set of line numbers holding code: tokens other than comments and
    line breaks, minus the docstrings of modules, classes and functions."""
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                        tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        lines.update(range(tok.start[0], tok.end[0] + 1))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                lines -= set(range(first.lineno, first.end_lineno + 1))
    return tree, lines


def function_lengths(source):
    """(name, code lines of the body) of every function in ``source``."""
    tree, lines = code_lines(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = node.body[0].lineno          # the signature is not counted
            yield node.name, sum(1 for ln in lines if start <= ln <= node.end_lineno)


def _long_functions():
    out = {}
    for tree, base in MEASURED:
        out.update(_long_in(tree, base))
    return out


def _long_in(tree, base):
    out = {}
    for path in sorted(tree.rglob("*.py")):
        rel = path.relative_to(base).as_posix()
        for name, n in function_lengths(path.read_text()):
            if n > MAX_CODE_LINES:
                out[f"{rel}::{name}"] = n
    return out


def _offenders(long):
    """The functions of ``long`` ({name: code lines}) that :data:`ALLOWED` does not list."""
    return {k: n for k, n in long.items() if k not in ALLOWED}


def test_no_function_body_over_the_limit():
    offenders = _offenders(_long_functions())
    assert not offenders, offenders


def test_no_widget_function_body_over_the_limit():
    offenders = {f"{path.name}::{name}": n for path in sorted(WIDGETS.rglob("*.py"))
                 for name, n in function_lengths(path.read_text()) if n > MAX_CODE_LINES}
    assert not offenders, offenders


def test_the_allow_list_holds_only_long_functions():
    # a function that was split must leave the list
    assert set(ALLOWED) <= set(_long_functions())


def test_a_new_unlisted_long_function_fails(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_CODE_LINES))
    (tmp_path / "new.py").write_text(
        f'def short():\n    """Docstring lines do not count."""\n{body}\n\n'
        f'def long():\n{body}    return x0\n')
    long = _long_in(tmp_path, tmp_path)
    assert long == {"new.py::long": MAX_CODE_LINES + 1}
    assert _offenders(long) == long


def test_the_count_skips_docstrings_and_comments():
    source = '''def f(x):
    """A docstring
    of three
    lines."""
    # a comment

    y = (x +
         1)
    return y
'''
    assert dict(function_lengths(source)) == {"f": 3}
