"""A small harness for real-browser tests of the widgets in JupyterLab.

Debian's Chromium (``/usr/bin/chromium``) driven by Playwright; a JupyterLab
server started by the test session on a free localhost port and stopped by
its PID (recipe in ``RECIPES.md``, "A real browser test of a widget in
JupyterLab").  A test for a new widget is a few lines::

    def test_my_widget(lab, page, artifacts):
        nb = lab.open(page, "03_my_paper.ipynb")      # opens, waits for the kernel
        nb.run_all()                                  # Run -> Run All Cells, waits for idle
        fig = nb.figure("My widget title")            # the plotly figure by its title
        before = fig.trace("z*")["x"]
        nb.slider("C", within=fig.widget).press("ArrowLeft", 10)
        fig.wait_for_title(lambda t: "C = 3" in t)
        nb.screenshot(artifacts / "my_widget.png", fig.widget)

Only this module and ``conftest.py`` know JupyterLab's and ipywidgets' CSS
classes.  Playwright is imported lazily (``--doctest-modules`` imports this
module on machines without it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

#: Arguments for a headless Chromium in a container (no sandbox, no GPU, no
#: background traffic).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]

#: Default timeout of one browser step (milliseconds).
STEP_MS = 30_000

#: How long a figure may take to be drawn (milliseconds): plotly draws a
#: widget's figure some seconds after its cell ran when the two cores are
#: busy (a kernel fitting, the notebooks tier beside the browser tests); a
#: figure never drawn still fails, only later.
DRAW_MS = 90_000


def find_chromium() -> str | None:
    """The Chromium executable: ``$POLYRANK_CHROMIUM``, else ``chromium`` or
    ``chromium-browser`` on PATH, else ``/usr/bin/chromium``; None if none."""
    env = os.environ.get("POLYRANK_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    import shutil
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """A JupyterLab server on 127.0.0.1 serving ``root_dir``.

    Started with the interpreter running the tests (``sys.executable -m
    jupyterlab``), so its ``python3`` kernel is that same interpreter
    (jupyter_client replaces the kernelspec's ``python`` with the server's
    ``sys.executable``).  Jupyter's config, data and runtime folders are
    private to ``state_dir``, so a user's settings or kernelspecs do not leak
    in.  Stopped by its PID (:meth:`stop`).
    """

    def __init__(self, root_dir: Path, state_dir: Path, log_path: Path) -> None:
        self.root_dir = Path(root_dir)
        self.state_dir = Path(state_dir)
        self.log_path = Path(log_path)
        self.port = free_port()
        self.token = os.urandom(16).hex()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout_s: float = 90.0) -> LabServer:
        env = dict(os.environ)
        for sub in ("config", "data", "runtime"):
            (self.state_dir / sub).mkdir(parents=True, exist_ok=True)
        env.update(JUPYTER_CONFIG_DIR=str(self.state_dir / "config"),
                   JUPYTER_DATA_DIR=str(self.state_dir / "data"),
                   JUPYTER_RUNTIME_DIR=str(self.state_dir / "runtime"),
                   JUPYTERLAB_WORKSPACES_DIR=str(self.state_dir / "workspaces"),
                   JUPYTERLAB_SETTINGS_DIR=str(self.state_dir / "settings"),
                   JUPYTER_PLATFORM_DIRS="1", PYTHONUNBUFFERED="1")
        env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
        self._write_settings(self.state_dir / "settings")
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
               f"--port={self.port}", "--ServerApp.port_retries=0",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={self.root_dir}", "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                     env=env, cwd=self.root_dir, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {self.proc.returncode}; "
                                   f"log:\n{self.log_text()}")
            try:
                self.api("GET", "/api/status")
                return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"JupyterLab did not answer within {timeout_s} s; "
                           f"log:\n{self.log_text()}")

    @staticmethod
    def _write_settings(settings_dir: Path) -> None:
        """User settings of the test server: every cell rendered (no
        windowing, so off-screen outputs exist in the DOM), no news or
        update notifications over the notebook."""
        files = {
            "@jupyterlab/notebook-extension/tracker.jupyterlab-settings":
                {"windowingMode": "none"},
            "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
                {"fetchNews": "false", "checkForUpdates": False},
        }
        for rel, content in files.items():
            path = settings_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(content))

    def api(self, method: str, path: str, timeout: float = 10.0):
        """Call the server's REST API; returns the decoded JSON (or None)."""
        req = urllib.request.Request(self.url + path, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """Shut down every running kernel (frees CPU and memory between tests)."""
        for k in self.api("GET", "/api/kernels") or []:
            self.api("DELETE", f"/api/kernels/{k['id']}")

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop the server by its PID (SIGTERM to its process group, then
        SIGKILL after 10 s); kernels it started are in the same group."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.shutdown_kernels()
            except OSError:
                pass
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self._log.close()
        self.proc = None

    def open(self, page, name: str) -> Notebook:
        """Open notebook ``name`` (relative to ``root_dir``) in ``page`` and
        wait until its kernel is idle; returns a :class:`Notebook`."""
        return Notebook(page, self).open(name)


class Slider:
    """An ipywidgets slider (noUiSlider) moved with the keyboard or typed into."""

    def __init__(self, locator) -> None:
        self.locator = locator

    def value_text(self) -> str:
        """The slider's readout, as shown."""
        return self.locator.locator(".widget-readout").inner_text().strip()

    def press(self, key: str, times: int = 1, *, settle_ms: int = 40) -> str:
        """Focus the handle and press ``key`` (``"ArrowLeft"``, ``"Home"`` ...)
        ``times`` times, as a person would; returns the readout."""
        handle = self.locator.locator(".noUi-handle")
        handle.focus()
        page = self.locator.page
        for _ in range(times):
            page.keyboard.press(key)
            page.wait_for_timeout(settle_ms)
        return self.value_text()

    def type_value(self, text: str) -> str:
        """Type ``text`` into the editable readout and press Enter; returns
        the readout."""
        readout = self.locator.locator(".widget-readout")
        readout.click()
        self.locator.page.keyboard.press("Control+A")
        self.locator.page.keyboard.type(text)
        self.locator.page.keyboard.press("Enter")
        return self.value_text()


class Figure:
    """A rendered plotly figure (a ``.js-plotly-plot`` graph div)."""

    def __init__(self, locator, widget=None) -> None:
        self.locator = locator
        #: the nearest enclosing ipywidgets box (figure + its controls)
        self.widget = widget if widget is not None else locator

    def title(self) -> str:
        """The figure title (and subtitle) as rendered in the SVG, its lines
        (``<br>``) joined by a space."""
        return " ".join(t.strip() for t in self.locator.locator(".gtitle, .gtitle-subtitle")
                        .evaluate_all(f"els => els.map({TITLE_TEXT_JS})"))

    def traces(self) -> list[dict]:
        """Every trace as plotly.js holds it after decoding:
        ``[{"name", "x", "y", "z", "text", "visible", "line_color"}, ...]``
        with plain lists (``z``: rows of a heat map or contour, [] if none;
        ``text`` is [] when the trace has none)."""
        return self.locator.evaluate(
            """gd => (gd._fullData || []).map(t => ({
                   name: t.name, visible: t.visible,
                   x: t.x ? Array.from(t.x) : [], y: t.y ? Array.from(t.y) : [],
                   z: t.z ? Array.from(t.z, row => Array.from(row)) : [],
                   text: Array.isArray(t.text) ? t.text : (t.text ? [t.text] : []),
                   line_color: t.line ? t.line.color : null}))""")

    def trace(self, name: str) -> dict:
        """The trace called ``name`` (see :meth:`traces`); AssertionError if
        there is not exactly one."""
        found = [t for t in self.traces() if t["name"] == name]
        assert len(found) == 1, (f"expected one trace {name!r}, found "
                                 f"{[t['name'] for t in self.traces()]}")
        return found[0]

    def shapes(self) -> list[dict]:
        """The layout shapes as plotly.js holds them (name, x0, x1 ...)."""
        return self.locator.evaluate(
            "gd => (gd._fullLayout.shapes || []).map(s => ({name: s.name, "
            "type: s.type, x0: s.x0, x1: s.x1, y0: s.y0, y1: s.y1}))")

    def svg_path_count(self, css: str = ".scatterlayer .trace path") -> int:
        """How many SVG paths plotly drew (a figure with data draws some)."""
        return self.locator.locator(css).count()

    def wait_for_title(self, predicate: Callable[[str], bool],
                       timeout_ms: int = STEP_MS) -> str:
        """Poll the title until ``predicate(title)`` holds; returns it."""
        return _poll(self.title, predicate, timeout_ms, "figure title")

    def wait_for_trace(self, name: str, predicate: Callable[[dict], bool],
                       timeout_ms: int = STEP_MS) -> dict:
        """Poll trace ``name`` until ``predicate(trace)`` holds; returns it."""
        return _poll(lambda: self.trace(name), predicate, timeout_ms, f"trace {name!r}")

    def record(self, name: str) -> None:
        """Start recording the number of points of trace ``name`` at every
        redraw (plotly's ``plotly_afterplot`` event); read with
        :meth:`recorded`."""
        self.locator.evaluate(
            """(gd, name) => {
                 gd.__counts = [];
                 const count = () => {
                   const t = (gd._fullData || []).find(t => t.name === name);
                   gd.__counts.push(t && t.x ? t.x.length : 0);
                 };
                 count();
                 gd.on('plotly_afterplot', count);
               }""", name)

    def recorded(self) -> list[int]:
        """The point counts recorded since :meth:`record`, in order."""
        return self.locator.evaluate("gd => gd.__counts || []")


#: the parts of a widget output that must fit its output area, and the
#: labels whose text must fit their box (Notebook.layout_problems)
#: the text of a plotly title element, its lines (``<br>``: ``tspan.line``)
#: joined by a space (``textContent`` would glue them together), without the
#: zero-width spaces plotly puts around ``<sup>`` text
TITLE_TEXT_JS = r"""t => {
  const lines = Array.from(t.querySelectorAll('tspan.line'));
  const text = lines.length ? lines.map(l => l.textContent).join(' ') : t.textContent;
  return text.replace(/\u200b/g, '');
}"""

LAYOUT_JS = """() => {
  const clipped = [], truncated = [];
  for (const area of document.querySelectorAll('.jp-OutputArea-output')) {
    const edge = area.getBoundingClientRect().right;
    // .svg-container: a figure as plotly drew it: a widget's figure wider than
    // its box when it did not follow a resize of the box, a static plotly
    // output (the papers' figures) wider than the output area when it kept a
    // fixed width (then the output area scrolls sideways); img: a stored
    // figure's picture, shown until the figure is drawn
    for (const el of area.querySelectorAll('.js-plotly-plot, .svg-container, img, '
                                           + '.widget-slider, .widget-dropdown, '
                                           + '.widget-text, .widget-html, .widget-button, '
                                           + '.widget-checkbox')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > edge + 1)
        clipped.push(`${el.className.split(' ').pop()} right ${Math.round(r.right)}`
                     + ` > ${Math.round(edge)}: ${(el.textContent || '').trim().slice(0, 30)}`);
    }
    for (const el of area.querySelectorAll('.widget-label, select')) {
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
        truncated.push((el.textContent || el.value || '').trim().slice(0, 40));
    }
  }
  return {clipped: clipped.slice(0, 20), truncated: truncated.slice(0, 20)};
}"""


def console_errors(page) -> list[str]:
    """The console errors and uncaught page errors of ``page`` since it
    opened (recorded by the ``page`` fixture)."""
    return list(getattr(page, "polyrank_console_errors", []))


def poll(get, predicate, what, timeout_s: float = 30.0):
    """Wait until ``predicate(get())`` holds (checked every 0.1 s) and return
    that value; after ``timeout_s`` seconds an AssertionError names ``what``."""
    return _poll(get, predicate, int(1000 * timeout_s), what)


def _poll(get, predicate, timeout_ms, what):
    deadline = time.monotonic() + timeout_ms / 1000
    value = get()
    while not predicate(value):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last value: {value!r}")
        time.sleep(0.1)
        value = get()
    return value


def record_timing(artifacts: Path, key: str, seconds: float) -> dict:
    """Add ``key: seconds`` to ``artifacts/timings.json`` (what a person
    waited: Run All, a control's first reaction), print it and return the
    whole record. Recorded, never asserted: timings depend on the machine."""
    path = Path(artifacts) / "timings.json"
    record = json.loads(path.read_text()) if path.is_file() else {}
    record[key] = round(float(seconds), 3)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)
    print(f"timing: {key} = {seconds:.3f} s")
    return record


#: :meth:`Notebook.latency`: records the first keydown/mousedown (t0) and the
#: first DOM change after it that makes the element's text contain ``text`` (t1)
LATENCY_JS = """(el, text) => {
    const rec = window.__polyrankLatency = {t0: null, t1: null};
    const start = () => { if (rec.t0 === null) rec.t0 = performance.now(); };
    document.addEventListener('keydown', start, {capture: true, once: true});
    document.addEventListener('mousedown', start, {capture: true, once: true});
    const obs = new MutationObserver(() => {
        if (rec.t0 !== null && rec.t1 === null && el.innerText.includes(text)) {
            rec.t1 = performance.now(); obs.disconnect(); }
    });
    obs.observe(el, {subtree: true, childList: true, characterData: true});
}"""


class Notebook:
    """A notebook open in JupyterLab, driven like a person would."""

    def __init__(self, page, server: LabServer) -> None:
        self.page = page
        self.server = server

    # ------------------------------------------------------------ open, run
    def open(self, name: str, timeout_ms: int = 90_000) -> Notebook:
        page = self.page
        page.goto(self.server.notebook_url(name), timeout=timeout_ms)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout_ms)
        self.settle(timeout_ms)
        return self

    def settle(self, timeout_ms: int = 90_000, quiet_s: float = 2.0) -> None:
        """Accept any dialog JupyterLab shows (the kernel choice may come a
        few seconds after the page) until the kernel has been idle, with no
        dialog, for ``quiet_s`` seconds."""
        dialog = self.page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept")
        deadline = time.monotonic() + timeout_ms / 1000
        quiet_since = None
        while True:
            now = time.monotonic()
            if now > deadline:
                raise AssertionError(f"kernel not idle after {timeout_ms} ms "
                                     f"(status {self.kernel_status()!r})")
            if dialog.count() and dialog.first.is_visible():
                dialog.first.click()
                quiet_since = None
            elif self.kernel_status() == "idle":
                quiet_since = quiet_since or now
                if now - quiet_since >= quiet_s:
                    return
            else:
                quiet_since = None
            time.sleep(0.2)

    def kernel_status(self) -> str | None:
        return self.page.locator(".jp-Notebook-ExecutionIndicator").first.get_attribute(
            "data-status")

    def wait_idle(self, timeout_ms: int = 120_000) -> None:
        """Wait until the kernel is idle and no cell shows ``[*]``."""
        self.page.wait_for_selector(
            '.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=timeout_ms)
        _poll(self._n_queued, lambda n: n == 0, timeout_ms, "queued cells")
        self.page.wait_for_selector(
            '.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=timeout_ms)

    def _n_queued(self) -> int:
        prompts = self.page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
        return sum("*" in p for p in prompts)

    def run_all(self, timeout_ms: int = 300_000) -> Notebook:
        """Run -> Run All Cells from the menu bar, wait until every code cell
        has run and the kernel is idle, and fail on any error output; the
        seconds it took are kept in ``run_all_s``."""
        started = self.start_run_all()
        self.wait_idle(timeout_ms)
        #: seconds from the menu click to an idle kernel (what a reader waits)
        self.run_all_s = time.perf_counter() - started
        _poll(self._unrun_code_cells, lambda n: n == 0, 10_000, "cells without a count")
        self.assert_no_errors(stderr=True)
        return self

    def start_run_all(self) -> float:
        """Run -> Run All Cells from the menu bar; returns (``perf_counter``)
        when the menu item was clicked, once some cell has started."""
        page = self.page
        for _attempt in range(3):
            self.settle(30_000, quiet_s=0.5)
            # the Run menu acts on the active notebook: give it the focus first
            self.cell(0).click(position={"x": 5, "y": 5})
            page.locator("#jp-MainMenu .lm-MenuBar-itemLabel",
                         has_text=re.compile(r"^Run$")).first.click()
            item = page.locator(".lm-Menu-item:not(.lm-mod-disabled)").filter(
                has=page.locator(".lm-Menu-itemLabel",
                                 has_text=re.compile(r"^Run All Cells$")))
            started = time.perf_counter()
            item.first.click()
            try:     # started: some prompt shows [*] or a count
                _poll(self._n_started, lambda n: n > 0, 10_000, "a cell to start")
                break
            except AssertionError:
                page.keyboard.press("Escape")
        else:
            raise AssertionError("Run All Cells did not start any cell (3 attempts)")
        return started

    def run_cells_in_turn(self, timeout_ms: int = 300_000) -> Notebook:
        """Run the cells one at a time with Shift+Enter, as a person reading
        the notebook does: after each cell wait for the kernel to be idle
        and for the figures it displayed to be drawn, then go on; fail on
        any error output."""
        n = self.page.locator(".jp-Notebook .jp-Cell").count()
        self.settle(30_000, quiet_s=0.5)
        self.cell(0).click(position={"x": 5, "y": 5})
        self.page.keyboard.press("Escape")                # command mode
        for i in range(n):
            self.page.keyboard.press("Shift+Enter")
            self.page.wait_for_timeout(200)
            self.wait_idle(timeout_ms)
            plots = self.cell(i).locator(".js-plotly-plot")
            _poll(lambda plots=plots: plots.evaluate_all(
                "gds => gds.every(g => g._fullLayout && g.querySelector('.gtitle') "
                "&& g.querySelector('.gtitle').textContent)"),
                  bool, DRAW_MS, f"the figures of cell {i} to be drawn")
        self.assert_no_errors()
        return self

    def _n_started(self) -> int:
        prompts = self.page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
        return sum(bool(re.search(r"\[(\*|\d+)\]", p)) for p in prompts)

    def _unrun_code_cells(self) -> int:
        prompts = self.page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
        return sum(not re.search(r"\[\d+\]", p) for p in prompts)

    def run_cell(self, index: int, timeout_ms: int = 120_000) -> Notebook:
        """Click cell ``index`` (0-based, all cells) and press Shift+Enter.

        The click is repeated until that cell is the active one (a click
        while the notebook scrolls after the previous Shift+Enter can land
        on another cell), and the cell must then show a new execution count.
        """
        cell = self.cell(index)
        prompt = cell.locator(".jp-InputPrompt").first
        before = prompt.inner_text().strip()
        for _ in range(5):
            cell.locator(".jp-InputArea-editor").click()
            self.page.wait_for_timeout(200)
            if cell.evaluate("c => c.classList.contains('jp-mod-active')"):
                break
        else:
            raise AssertionError(f"cell {index} does not become active when clicked")
        self.page.keyboard.press("Shift+Enter")
        try:     # [*] or a new count: this cell was queued
            _poll(lambda: prompt.inner_text().strip(), lambda t: t != before, 5_000,
                  f"cell {index} to start")
        except AssertionError:
            pass     # ran and finished within a poll, with the same count as before
        self.page.wait_for_timeout(100)
        self.wait_idle(timeout_ms)
        assert re.search(r"\[\d+\]", prompt.inner_text()), (
            f"cell {index} has no execution count: {prompt.inner_text()!r}")
        self.assert_no_errors()
        return self

    def assert_no_errors(self, stderr: bool = False) -> None:
        """No cell shows an error output (nor, with ``stderr``, any text on
        standard error: warnings, tracebacks of background threads), and
        the browser logged no console error and no uncaught page error
        since the page opened (issue 34, item 3)."""
        errors = self.page.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"], '
            '.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]')
        if errors.count():
            raise AssertionError("a cell raised:\n" + "\n".join(errors.all_inner_texts()))
        if stderr:
            err = self.page.locator(
                '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]')
            if err.count():
                raise AssertionError("a cell wrote to stderr:\n"
                                     + "\n".join(t[:500] for t in err.all_inner_texts()))
        console = console_errors(self.page)
        if console:
            raise AssertionError("the browser logged errors:\n" + "\n".join(console[:20]))

    # ------------------------------------------------------------ layout
    def set_sidebar(self, open_: bool) -> int:
        """Open or close JupyterLab's left sidebar (the file browser) as a
        person does, with Ctrl+B in command mode; returns its width (px)."""
        def width() -> int:
            return self.page.evaluate(
                "() => Math.round(document.querySelector('#jp-left-stack')"
                ".getBoundingClientRect().width)")
        for _ in range(10):
            if (width() > 0) == open_:
                break
            # command mode of the notebook (not a text box of a widget)
            self.cell(0).click(position={"x": 5, "y": 5})
            self.page.keyboard.press("Escape")
            self.page.keyboard.press("Control+b")
            self.page.wait_for_timeout(700)
        assert (width() > 0) == open_, f"the left sidebar did not {'open' if open_ else 'close'}"
        return width()

    def layout_problems(self) -> dict:
        """What a person would see cut off: widget parts (figures, sliders,
        dropdowns, text boxes, readouts) whose right edge passes the right
        edge of their output area, and labels or dropdowns whose text does
        not fit (``scrollWidth > clientWidth``)."""
        return self.page.evaluate(LAYOUT_JS)

    def check_layout(self, artifacts: Path, stem: str) -> dict:
        """Issue 34, items 2 and 6: at 1,024 px with the file browser open
        nothing is clipped and no label is cut, then at 1,600 px (sidebar
        closed) the same; a screenshot of every widget output at both
        widths (``{stem}-1024-<cell>.png``, ``{stem}-1600-<cell>.png``).
        Returns the widths of the notebook panel."""
        widths = {}
        for width, sidebar in ((1024, True), (1600, False)):
            self.page.set_viewport_size({"width": width, "height": 1000})
            self.set_sidebar(sidebar)
            self.page.wait_for_timeout(1500)       # plotly's resize is debounced (100 ms)
            widths[width] = self.page.evaluate(
                "() => Math.round(document.querySelector('.jp-NotebookPanel')"
                ".getBoundingClientRect().width)")
            problems = self.layout_problems()
            assert not problems["clipped"] and not problems["truncated"], (
                f"at {width} px (notebook panel {widths[width]} px): {problems}")
            self.screenshot_widgets(artifacts, f"{stem}-{width}")
        return widths

    def screenshot_widgets(self, artifacts: Path, stem: str) -> list[Path]:
        """One PNG per output that holds a widget or a figure (``{stem}-cell<i>.png``),
        taken with a viewport tall enough for the whole output."""
        page = self.page
        size = page.viewport_size
        out = []
        cells = page.locator(".jp-Notebook .jp-Cell")
        for i in range(cells.count()):
            outputs = cells.nth(i).locator(".jp-OutputArea-output").filter(
                has=page.locator(".widget-box, .js-plotly-plot, .svg-container"))
            for j in range(outputs.count()):
                h = outputs.nth(j).evaluate("e => e.getBoundingClientRect().height")
                page.set_viewport_size({"width": size["width"],
                                        "height": int(min(max(size["height"], h + 200), 4000))})
                suffix = f"cell{i}" + (f"-{j}" if j else "")
                out.append(self.screenshot(Path(artifacts) / f"{stem}-{suffix}.png",
                                           outputs.nth(j)))
        page.set_viewport_size(size)
        return out

    def assert_all_figures_drawn(self, timeout_ms: int = DRAW_MS) -> int:
        """Scroll to every cell and check that each plotly figure it shows is
        drawn (a layout with a non-empty title, at least one trace); the
        Run-All race of issue 17 drew some figures empty.  Returns the number
        of figures checked."""
        n_cells = self.page.locator(".jp-Notebook .jp-Cell").count()
        checked = 0
        for i in range(n_cells):
            cell = self.cell(i)
            cell.scroll_into_view_if_needed()
            plots = cell.locator(".jp-OutputArea .js-plotly-plot")
            if plots.count() == 0:
                continue
            _poll(lambda plots=plots: plots.evaluate_all(
                "gds => gds.every(g => g._fullLayout && g.data && g.data.length > 0 "
                "&& g.querySelector('.gtitle') && g.querySelector('.gtitle').textContent)"),
                  bool, timeout_ms, f"the figures of cell {i} to be drawn")
            checked += plots.count()
        return checked

    # ------------------------------------------------------------ find things
    def cell(self, index: int):
        """Cell ``index`` (0-based, counting markdown cells too)."""
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def find_cell(self, text: str) -> int:
        """Index of the first cell whose source contains ``text``."""
        sources = self.page.locator(".jp-Notebook .jp-Cell").evaluate_all(
            "cells => cells.map(c => (c.querySelector('.jp-InputArea-editor') || "
            "{textContent: ''}).textContent)")
        for i, src in enumerate(sources):
            if text in src:
                return i
        raise AssertionError(f"no cell contains {text!r}")

    def stdout(self, index: int) -> str:
        """The printed text of cell ``index``."""
        return "\n".join(self.cell(index).locator(
            '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stdout"]'
        ).all_inner_texts())

    def figure(self, title_contains: str, timeout_ms: int = DRAW_MS) -> Figure:
        """The rendered plotly figure whose title contains ``title_contains``
        (whitespace-normalised), with ``.widget`` the ipywidgets box holding
        it and its controls.  AssertionError, listing the titles on the
        page, if not exactly one figure matches within ``timeout_ms``."""
        plots = self.page.locator(".js-plotly-plot")
        want = " ".join(title_contains.split())

        cells = self.page.locator(".jp-Notebook .jp-Cell")
        step = [0]

        def matches():
            # a figure scrolled out of sight may not be drawn yet (plotly's
            # renderer draws an output once it is shown): scroll through the
            # notebook one cell per poll, as a person would, and scroll the
            # undrawn plots into view
            n_cells = cells.count()
            if n_cells:
                cells.nth(step[0] % n_cells).evaluate("c => c.scrollIntoView({block: 'start'})")
                step[0] += 1
            # a figure stored with its static PNG (polyrank_widgets.static_images)
            # shows the PNG until the pointer enters it; then plotly's renderer
            # draws the interactive graph, as for a person moving the mouse over it
            self.page.locator(".jp-RenderedPlotly img.plot-img").evaluate_all(
                "imgs => imgs.forEach(i => { if (!i.parentNode.querySelector('.plot-container'))"
                " i.dispatchEvent(new MouseEvent('mouseenter')); })")
            titles = plots.evaluate_all(
                "gds => gds.map(g => {"
                "  const t = g.querySelector('.gtitle');"
                "  if (!t || !t.textContent) g.scrollIntoView({block: 'center'});"
                "  return t ? (" + TITLE_TEXT_JS + ")(t) : ''; })")
            return [i for i, t in enumerate(titles) if want in " ".join(t.split())], titles

        found = _poll(matches, lambda m: len(m[0]) >= 1, timeout_ms,
                      f"a figure titled ...{want}...")
        assert len(found[0]) == 1, f"{len(found[0])} figures match {want!r}: {found[1]}"
        loc = plots.nth(found[0][0])
        # the outermost widget box around the figure: the widget's HBox/VBox
        box = loc.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), "
                          "' widget-box ')][last()]")
        widget = box if box.count() else loc
        return Figure(loc, widget)

    def slider(self, description: str, within=None) -> Slider:
        """The slider whose label is ``description`` (inside ``within``, a
        locator, if given)."""
        scope = within if within is not None else self.page
        loc = scope.locator(".widget-slider").filter(
            has=self.page.locator(".widget-label", has_text=re.compile(
                rf"^\s*{re.escape(description)}\s*$")))
        assert loc.count() == 1, f"{loc.count()} sliders labelled {description!r}"
        return Slider(loc)

    def dropdown(self, description: str, within=None):
        """The ``<select>`` of the dropdown labelled ``description``."""
        scope = within if within is not None else self.page
        loc = scope.locator(".widget-dropdown").filter(
            has=self.page.locator(".widget-label", has_text=re.compile(
                rf"^\s*{re.escape(description)}\s*$")))
        assert loc.count() == 1, f"{loc.count()} dropdowns labelled {description!r}"
        return loc.locator("select")

    def select(self, description: str, label: str, within=None) -> None:
        """Choose option ``label`` of the dropdown ``description``."""
        self.dropdown(description, within).select_option(label=label)

    def type_text(self, description: str, text: str, within=None) -> None:
        """Replace the content of the text box labelled ``description`` by
        ``text`` and press Enter (``continuous_update=False`` boxes send
        their value then)."""
        scope = within if within is not None else self.page
        loc = scope.locator(".widget-text").filter(
            has=self.page.locator(".widget-label", has_text=re.compile(
                rf"^\s*{re.escape(description)}\s*$")))
        assert loc.count() == 1, f"{loc.count()} text boxes labelled {description!r}"
        box = loc.locator("input")
        box.click()
        self.page.keyboard.press("Control+A")
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")

    def html_text(self, within) -> str:
        """The text of the ipywidgets HTML readouts inside ``within``."""
        return "\n".join(within.locator(".widget-html-content").all_inner_texts())

    # ------------------------------------------------------------ evidence
    def latency(self, act: Callable[[], object], within, text: str,
                timeout_ms: int = 30_000) -> float:
        """Seconds from the first key press or click of ``act()`` to the
        moment ``text`` appears in ``within`` (a locator), measured in the
        page (``performance.now()`` in a keydown/mousedown listener and a
        MutationObserver): what a person waits between moving a control
        and seeing the widget react, kernel round trip included."""
        within.evaluate(LATENCY_JS, text)
        act()
        got = _poll(lambda: self.page.evaluate("() => window.__polyrankLatency"),
                    lambda r: r is not None and r.get("t1") is not None, timeout_ms,
                    f"{text!r} to appear after the action")
        assert got.get("t0") is not None, "the action sent no key press or click"
        return (got["t1"] - got["t0"]) / 1000.0

    def screenshot(self, path: Path, locator=None) -> Path:
        """Save a PNG of ``locator`` (scrolled into view) or of the page."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if locator is None:
            self.page.screenshot(path=str(path), full_page=False)
        else:
            locator.scroll_into_view_if_needed()
            self.page.wait_for_timeout(300)      # let plotly finish its transition
            locator.screenshot(path=str(path))
        return path
