"""Every code block of the documentation site runs as written (issue 43,
item 1).

Each page ``docs/**/*.md`` runs in a subprocess of its own (so that no state
leaks between pages), with a fresh empty temporary folder as its current
directory, as a user who pastes its blocks in order would run them: the
```` ```python ```` blocks in one namespace (with ``__name__ ==
"__main__"``, as a script: the Dask examples guard their cluster with it),
the ```` ```bash ```` / ```` ```console ```` blocks that start with a
``polyrank`` command by bash (``-e -o pipefail``), with this interpreter's
``polyrank`` first on ``PATH``.  Files a page uses come from the page
itself (``polyrank datasets copy NAME``, or a block that writes them).

A block that must not run here (an install, ``jupyter lab``, a benchmark of
minutes, a developer's tool) says so on the line before its fence::

    <!-- docs-code: skip REASON -->

(an HTML comment: the page shows nothing).  A code block that is neither run
nor skipped with a reason fails :func:`test_every_block_runs_or_is_skipped`;
a ```` ```text ```` block (a diagram, a file layout) and the MyST directives
(```` ```{image} ````, ```` ```{toctree} ````...) are not code.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
#: the marker of a block that is not run, on the line before its fence
SKIP = re.compile(r"^<!--\s*docs-code:\s*skip\b\s*(?P<reason>.*?)\s*-->\s*$")
SHELLS = ("bash", "console", "sh", "shell")
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass
class Block:
    """One fenced block of a page: its language, first line number (the
    fence's, 1-based), source, and what the test does with it."""

    lang: str
    line: int
    code: str
    action: str          # "python", "shell", "skip", "text" or "unmarked"
    reason: str = ""


def _classify(lang: str, code: str, reason: str | None) -> tuple[str, str]:
    if reason is not None:
        return "skip", reason
    if lang == "text":
        return "text", ""
    if lang == "python":
        return "python", ""
    first = next((ln.strip() for ln in code.splitlines()
                  if ln.strip() and not ln.strip().startswith("#")), "")
    if lang in SHELLS and (first == "polyrank" or first.startswith("polyrank ")):
        return "shell", ""
    return "unmarked", ""


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a MyST page, in order (directives left out)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m["fence"], m["info"].strip()
        end = next((j for j in range(i + 1, len(lines))
                    if lines[j].startswith(fence[0] * len(fence))
                    and not lines[j].strip(fence[0]).strip()), len(lines))
        if not info.startswith("{"):
            before = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
            skip = SKIP.match(before.strip())
            code = "\n".join(lines[i + 1:end]) + "\n"
            lang = info.split()[0] if info else ""
            action, reason = _classify(lang, code, skip["reason"] if skip else None)
            found.append(Block(lang, i + 1, code, action, reason))
        i = end + 1
    return found


PAGES = sorted(p for p in DOCS.rglob("*.md")
               if "_build" not in p.parts and not p.name.startswith("README"))
RUN_PAGES = [p for p in PAGES if any(b.action in ("python", "shell") for b in blocks(p))]

#: what the subprocess of a page runs: its blocks in order, stop at the first failure
DRIVER = r'''
import json, os, subprocess, sys, traceback

def main(page, blocks):
    namespace = {"__name__": "__main__"}
    for b in blocks:
        where = f"{page}, the {b['lang']} block of line {b['line']}"
        print(f"== {where}", flush=True)
        if b["action"] == "python":
            try:
                exec(compile(b["code"], where, "exec"), namespace)
            except BaseException:
                traceback.print_exc()
                print(f"FAILED: {where}", flush=True)
                return 1
        else:
            rc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", b["code"]]).returncode
            if rc:
                print(f"FAILED: {where}: exit status {rc}", flush=True)
                return 1
        sys.stdout.flush()
    return 0

if __name__ == "__main__":
    spec = json.loads(open(sys.argv[1], encoding="utf-8").read())
    sys.exit(main(spec["page"], spec["blocks"]))
'''


def test_every_block_runs_or_is_skipped():
    """A code block is run (python, or a shell block of ``polyrank``
    commands) or skipped with a reason; nothing is left out silently."""
    assert PAGES and RUN_PAGES
    unmarked = [f"{p.relative_to(REPO)}:{b.line} ({b.lang or 'no language'})"
                for p in PAGES for b in blocks(p) if b.action == "unmarked"]
    assert not unmarked, ("code blocks neither run nor marked "
                          f"'<!-- docs-code: skip REASON -->': {unmarked}")
    no_reason = [f"{p.relative_to(REPO)}:{b.line}" for p in PAGES for b in blocks(p)
                 if b.action == "skip" and not b.reason]
    assert not no_reason, f"skipped without a reason: {no_reason}"


def test_the_parser_finds_blocks_markers_and_directives(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# t\n\n```python\nx = 1\n```\n\n<!-- docs-code: skip an install -->\n"
                    "```bash\npip install x\n```\n\n```{image} a.png\n:alt: a\n```\n\n"
                    "````bash\n# a comment\npolyrank --version\n```\n````\n\n```text\nhi\n```\n"
                    "```\nno language\n```\n")
    got = [(b.lang, b.line, b.action, b.reason) for b in blocks(page)]
    assert got == [("python", 3, "python", ""), ("bash", 8, "skip", "an install"),
                   ("bash", 16, "shell", ""), ("text", 22, "text", ""),
                   ("", 25, "unmarked", "")]


def test_the_user_guide_pages_run_code():
    """Every page of the user guide (one per paper) has code that runs."""
    guide = {p.name for p in RUN_PAGES if p.parent.name == "user_guide"}
    assert guide >= {"sopopo.md", "sign.md", "ranksvm.md", "ordinal.md", "m3l.md"}


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_runs_as_written(page, tmp_path):
    pytest.importorskip("polyrank_widgets")
    spec = {"page": str(page.relative_to(REPO)),
            "blocks": [asdict(b) for b in blocks(page) if b.action in ("python", "shell")]}
    (tmp_path / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
           "MPLBACKEND": "Agg", "PYTHONPATH": ""}
    proc = subprocess.run([sys.executable, str(tmp_path / "driver.py"),
                           str(tmp_path / "spec.json")], cwd=work, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, (proc.stdout[-6000:] + proc.stderr[-6000:])
