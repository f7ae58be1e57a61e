"""The slow tier is declared one way and nothing drops out of it silently
(issue 46, item 1).

A slow test carries the ``slow`` marker in its own file (``@pytest.mark.slow``,
or ``pytestmark`` for a whole module; the slow doctests, which cannot carry a
marker, are named in ``tests/conftest.py``'s ``SLOW_DOCTESTS``).  What "slow"
means is written once, in the ``slow`` marker of pyproject.toml.  The tier is
listed in :data:`TIER` (``tests/architecture/slow_tier.txt``), one line per test
function, and this gate compares that list with what the session collected:

- a test marked slow that the list does not name fails (a new slow test is
  added to the list on purpose, in the same diff);
- a listed id that was not collected (renamed, moved, deleted), or that is
  collected but no longer marked, fails: a rename, or a marker removed by
  mistake, shows up at once instead of silently moving a test between the
  inner loop and CI.

Only the files the session collected are compared (``pytest tests/core/sign``
checks the lines of that folder); the fast tier and CI collect everything.
``python tests/architecture/test_slow_tier.py`` writes the list again from
the markers (a ``pytest --collect-only -m slow`` in a subprocess).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the slow tier, one test function per line (its node id without parameters)
TIER = Path(__file__).with_name("slow_tier.txt")
HEADER = """\
# The slow tier: every test function with an item marked ``slow`` (the threshold is the
# ``slow`` marker's text in pyproject.toml), one node id per line without parameters.
# Checked against the markers by tests/architecture/test_slow_tier.py; rewrite it from
# the markers with: python tests/architecture/test_slow_tier.py
"""
FIX = ("(mark a test in its file: @pytest.mark.slow; then rewrite the list: "
       "python tests/architecture/test_slow_tier.py)")


def _function(nodeid: str) -> str:
    """The node id of the test function an item belongs to (parameters cut)."""
    return nodeid.split("[", 1)[0]


def _relative(path: str) -> str:
    """``path`` (absolute, or relative to the working directory) relative to the
    repository, as node ids write it."""
    full = Path(path).resolve()
    return full.relative_to(ROOT).as_posix() if full.is_relative_to(ROOT) else path


def _listed() -> list[str]:
    """The ids of :data:`TIER`, comments and blank lines left out."""
    lines = (line.strip() for line in TIER.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def test_the_list_is_sorted_unique_and_names_files_that_exist():
    listed = _listed()
    assert listed == sorted(set(listed)), f"{TIER.name}: keep it sorted, one line per test {FIX}"
    gone = [e for e in listed if not (ROOT / e.split("::")[0]).is_file()]
    assert not gone, f"{TIER.name} names files that do not exist: {gone} {FIX}"


def test_the_marked_tests_are_the_listed_tests(request):
    from conftest import COLLECTED  # here: the module also runs as a script

    collected = request.config.stash.get(COLLECTED, [])
    # a file named with a node id on the command line is collected only in part
    partial = {_relative(arg.split("::")[0]) for arg in request.config.args if "::" in arg}
    files = {nodeid.split("::")[0] for nodeid, _ in collected} - partial
    present = {_function(nodeid) for nodeid, _ in collected if nodeid.split("::")[0] in files}
    marked = {_function(nodeid) for nodeid, slow in collected
              if slow and nodeid.split("::")[0] in files}
    listed = {e for e in _listed() if e.split("::")[0] in files}
    problems = []
    missing = sorted(marked - listed)
    if missing:
        problems.append(f"marked slow but not in {TIER.name}: {missing}. Slow (the threshold of "
                        f"the slow marker, pyproject.toml)? Add them; else drop the marker")
    gone = sorted(listed - present)
    if gone:
        problems.append(f"{TIER.name} names tests that were not collected (renamed, moved or "
                        f"deleted?): {gone}. Keep the marker on the new name and update the list")
    unmarked = sorted(listed - marked - set(gone))
    if unmarked:
        problems.append(f"listed in {TIER.name} but no longer marked slow: {unmarked}. Mark "
                        f"them again, or drop their lines if they are fast now")
    assert not problems, "\n".join(problems + [FIX])


def test_no_test_is_made_slow_at_collection_time():
    # one way to declare the tier: a marker in the test's file, not a list of
    # ids added by a hook (the list that used to live in conftest.py went
    # stale silently); only the doctests' modules are named in conftest.py
    hooks = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_marker"
                    and "slow" in ast.unparse(node)):
                hooks.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert len(hooks) == 1 and hooks[0].startswith("tests/conftest.py:"), (
        f"the slow marker is added at collection time here: {hooks}; mark the tests in their "
        f"files instead {FIX}")


def write_tier() -> int:
    """Write :data:`TIER` from the markers: the test functions a
    ``pytest --collect-only -m slow`` of the whole suite selects.  Returns
    the number of lines written."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow",
                          "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    ids = sorted({_function(line) for line in out.stdout.splitlines() if "::" in line})
    tmp = TIER.with_suffix(".tmp")
    tmp.write_text(HEADER + "\n".join(ids) + "\n", encoding="utf-8")
    os.replace(tmp, TIER)
    return len(ids)


if __name__ == "__main__":
    print(f"{TIER}: {write_tier()} test functions")
