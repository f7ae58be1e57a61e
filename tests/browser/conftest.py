"""Fixtures of the real-browser tests (see ``lab.py`` for the helpers).

- ``lab``: one JupyterLab server per test session, on a free localhost port,
  serving a private copy of ``notebooks/`` (the tests never modify the
  committed notebooks), stopped by its PID at the end of the session.
- ``browser``: one headless Debian Chromium per session, driven by
  Playwright (never ``playwright install``).
- ``page``: a fresh browser page per test; afterwards every kernel the test
  started is shut down.
- ``artifacts``: ``test-artifacts/browser/`` at the repository root, where
  each test saves its screenshots.

Every test in this folder is marked ``browser``.  With
``POLYRANK_BROWSER_TESTS=1`` (as ``.ci/run`` sets it) a missing Chromium or
Playwright is a test error; without it the tests are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .lab import CHROMIUM_ARGS, LabServer, find_chromium

REPO = Path(__file__).resolve().parents[2]
ENABLE = "POLYRANK_BROWSER_TESTS"
HOW = (f"install Chromium (Debian: apt-get install chromium, or set POLYRANK_CHROMIUM "
       f"to its path) and the dev extra (playwright); run with {ENABLE}=1 to make a "
       f"missing browser an error instead of a skip")


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The Chromium executable, or a skip (a failure under POLYRANK_BROWSER_TESTS=1)."""
    required = os.environ.get(ENABLE, "") not in ("", "0")
    problems = []
    path = find_chromium()
    if path is None:
        problems.append("no Chromium found")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problems.append("playwright is not installed")
    if problems:
        msg = "browser tests: " + "; ".join(problems) + f" ({HOW})"
        if required:
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="session")
def lab(chromium_path, tmp_path_factory):
    """A JupyterLab server over a private copy of ``notebooks/``."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "notebooks"
    shutil.copytree(REPO / "notebooks", root,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    server = LabServer(root, base / "jupyter", base / "jupyterlab.log").start()
    yield server
    server.stop()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    rep = yield
    if rep.when == "call":
        item.browser_failed = rep.failed
    return rep


@pytest.fixture
def page(request, browser, lab, artifacts):
    """A fresh page (1600 x 1000); on failure its screenshot is saved as
    ``test-artifacts/browser/FAILED-<test>.png``."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(30_000)
    p = context.new_page()
    errors: list[str] = []
    p.polyrank_console_errors = errors          # read by lab.console_errors
    p.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    p.on("console", lambda m: errors.append(f"console {m.type}: {m.text}")
         if m.type == "error" else None)
    yield p
    if getattr(request.node, "browser_failed", False):
        print("\n".join(["browser errors:"] + errors[-20:]))
        try:
            p.screenshot(path=str(artifacts / f"FAILED-{request.node.name}.png"))
        except Exception:
            pass
    context.close()
    lab.shutdown_kernels()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    out = REPO / "test-artifacts" / "browser"
    out.mkdir(parents=True, exist_ok=True)
    return out
