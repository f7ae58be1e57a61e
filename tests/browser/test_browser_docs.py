"""The documentation site in a real browser: the built HTML (``make -C docs
html``, i.e. ``docs/_build/html``) served over HTTP on localhost, opened in
Chromium with the network cut off (the site needs nothing from outside to
show its pages, figures and search).

The home page, an API page, a user-guide page and a gallery page are opened;
each figure must have loaded (a decoded image of non-zero size), and the
search box must find an estimator.  ``.ci/test`` builds the site before these
tests (beside the notebooks' nbval run); without a build the fixture builds
it itself, so ``pytest -m browser tests/browser/test_browser_docs.py`` also
works alone.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "docs" / "_build" / "html"


@pytest.fixture(scope="session")
def docs_url(chromium_path):
    """The base URL of the built site, served from a thread of this process."""
    if not (HTML / "index.html").is_file():
        pytest.importorskip("sphinx")
        subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going",
                        "-n", "-q", str(ROOT / "docs"), str(HTML)], check=True)
    handler = functools.partial(_QuietHandler, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):       # noqa: A002 (the base class's name)
        pass


@pytest.fixture
def site(browser, docs_url, artifacts):
    """A page of a context without network beyond localhost."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    context.route("**/*", lambda route: route.continue_()
                  if route.request.url.startswith(docs_url) else route.abort())
    page = context.new_page()
    yield page
    context.close()


def _loaded_images(page, selector: str) -> list[dict]:
    """The images matching ``selector``: source and decoded width."""
    page.wait_for_load_state("load")
    return page.eval_on_selector_all(
        selector, "els => els.map(e => ({src: e.getAttribute('src'), "
                  "w: e.naturalWidth, complete: e.complete}))")


def _assert_figures(page, selector: str, at_least: int) -> None:
    images = _loaded_images(page, selector)
    assert len(images) >= at_least, images
    broken = [im["src"] for im in images if not (im["complete"] and im["w"] > 0)]
    assert not broken, f"images that did not load: {broken}"


def test_home_page_figure_and_search(site, docs_url, artifacts):
    site.goto(f"{docs_url}/index.html")
    assert "polyrank" in site.title()
    _assert_figures(site, "article img", 1)
    site.screenshot(path=str(artifacts / "docs-home.png"))
    # the search box of the navbar: type a name, press Enter, read the results page
    site.locator("button.search-button, .search-button-field").first.click()
    box = site.locator("input[name='q']:visible").first
    box.fill("LabelRanker")
    box.press("Enter")
    site.wait_for_url("**/search.html?q=LabelRanker*")
    results = site.locator("#search-results li")
    results.first.wait_for(state="visible")
    assert "LabelRanker" in results.first.inner_text()
    site.screenshot(path=str(artifacts / "docs-search.png"))


def test_api_page_documents_the_estimator(site, docs_url, artifacts):
    site.goto(f"{docs_url}/api/generated/polyrank.LabelRanker.html")
    assert site.locator("dt[id='polyrank.LabelRanker']").count() == 1
    assert site.locator("dt[id='polyrank.LabelRanker.fit']").count() == 1
    # intersphinx: the parameter types link to the ecosystem's documentation
    hrefs = site.eval_on_selector_all("article a.reference.external",
                                      "els => els.map(e => e.href)")
    assert any("numpy.org" in h or "scikit-learn.org" in h for h in hrefs), hrefs[:20]
    site.screenshot(path=str(artifacts / "docs-api.png"))


def test_user_guide_page_figure_and_api_link(site, docs_url, artifacts):
    site.goto(f"{docs_url}/user_guide/sopopo.html")
    _assert_figures(site, "article img", 1)
    # the paper's notation is typeset by the MathJax the site serves (no CDN:
    # the test's page has no network), not shown as raw TeX
    site.wait_for_selector("article mjx-container", timeout=30_000)
    assert "\\min" not in site.locator("article").inner_text()
    site.screenshot(path=str(artifacts / "docs-guide.png"), full_page=False)
    site.locator("article a.reference.internal:has-text('LabelRanker')").first.click()
    site.wait_for_url("**/api/generated/polyrank.LabelRanker.html*")


def test_gallery_page_shows_the_stored_figures(site, docs_url, artifacts):
    site.goto(f"{docs_url}/gallery/01_sopopo_label_ranking.html")
    assert "SOPOPO" in site.locator("article h1").first.inner_text()
    _assert_figures(site, "article .cell_output img", 4)
    site.screenshot(path=str(artifacts / "docs-gallery.png"))
