"""The first Run All of the tour, as a new user meets it (issue 41, items 3 and 4).

From an empty numba cache, the tour opened the way ``polyrank lab`` opens
it (its working copy, its URL), Run All: a cell below the setup cell, while
it runs, shows "compiling the numba kernels of polyrank.X (first use only;
...)"; at the end no cell raised or wrote to stderr, the working copy holds
the run, and the repository's ``notebooks/00_tour.ipynb`` is byte for byte
what it was.  Screenshots: ``test-artifacts/browser/tour-first-run-*.png``.
"""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path

from polyrank._workcopy import sync_working_copy
from polyrank.cli._lab import _lab_command

from .lab import LabServer, Notebook, _poll, record_timing

REPO = Path(__file__).resolve().parents[2]
TOUR = REPO / "notebooks" / "00_tour.ipynb"

#: every second, the compile lines shown in each cell, and whether that cell was running
RECORD_JS = r"""() => {
  const rec = window.__polyrankCompile = [];
  const seen = new Set();
  setInterval(() => {
    document.querySelectorAll('.jp-Notebook .jp-Cell').forEach((cell, i) => {
      const out = cell.querySelector('.jp-Cell-outputWrapper');
      if (!out) return;
      const text = out.innerText.replace(/[\u2007\u00a0]/g, ' ');
      const m = text.match(/compiling the numba kernels of polyrank\.\w+ \(first use only[^\n]*/);
      if (!m) return;
      const prompt = (cell.querySelector('.jp-InputPrompt') || {}).innerText || '';
      const key = i + m[0];
      if (seen.has(key)) return;
      seen.add(key);
      rec.push({cell: i, text: m[0], running: prompt.includes('*')});
    });
  }, 250);
}"""


def _start_server(tmp_path, monkeypatch) -> tuple[LabServer, str]:
    """JupyterLab over the working copy, as ``polyrank lab`` starts it, with
    an empty numba cache; returns (server, path of the URL it prints)."""
    work = tmp_path / "polyrank-notebooks"
    sync_working_copy(REPO / "notebooks", work)
    cmd = _lab_command(str(TOUR), None, str(work))
    assert f"--ServerApp.root_dir={work}" in cmd, shlex.join(cmd)
    url = next(a.split("=", 1)[1] for a in cmd if a.startswith("--LabApp.default_url="))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))   # empty
    monkeypatch.delenv("POLYRANK_PROGRESS", raising=False)
    server = LabServer(work, tmp_path / "jupyter", tmp_path / "jupyterlab.log").start()
    return server, url


def test_first_run_all_shows_compile_progress_in_the_running_cell(
        browser, artifacts, tmp_path, monkeypatch):
    before = TOUR.read_bytes()
    server, url = _start_server(tmp_path, monkeypatch)
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.polyrank_console_errors = errors
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        assert url == "/lab/tree/00_tour.ipynb"
        nb = Notebook(page, server)
        page.goto(f"{server.url}{url}?token={server.token}&reset", timeout=90_000)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        nb.settle(90_000)
        setup = nb.find_cell("compile_in_background(")
        page.evaluate(RECORD_JS)
        started = nb.start_run_all()
        seen = _poll(lambda: page.evaluate("() => window.__polyrankCompile"),
                     lambda r: any(x["running"] and x["cell"] > setup for x in r),
                     600_000, "a running cell below the setup cell to show compile progress")
        first = next(x for x in seen if x["running"] and x["cell"] > setup)
        nb.screenshot(artifacts / "tour-first-run-compiling.png", nb.cell(first["cell"]))
        nb.wait_idle(1_500_000)
        record_timing(artifacts, "tour_first_run_all_cold_cache_s", time.perf_counter() - started)
        nb.assert_no_errors(stderr=True)
        lines = page.evaluate("() => window.__polyrankCompile")
        print("\n".join(f"cell {x['cell']} running={x['running']}: {x['text']}" for x in lines))
        assert re.fullmatch(r"compiling the numba kernels of polyrank\.\w+ \(first use only; "
                            r"cached for later sessions\): .*(\d+ of \d+|waiting for a worker)"
                            r".*", first["text"]), first
        nb.screenshot(artifacts / "tour-first-run-end.png")
        # saved (as autosave would): the working copy holds the run, the repository not
        page.keyboard.press("Control+s")
        work_tour = server.root_dir / "00_tour.ipynb"
        _poll(work_tour.read_bytes, lambda b: b != before, 30_000, "the working copy saved")
        assert TOUR.read_bytes() == before
    finally:
        context.close()
        server.stop()
