"""The documentation site in a real browser: the built HTML (``make -C docs
html``, i.e. ``docs/_build/html``) served over HTTP on localhost, opened in
Chromium with the network cut off (the site needs nothing from outside to
show its pages, figures and search).

The home page, an API page, a user-guide page and a gallery page are opened;
each figure must have loaded (a decoded image of non-zero size), and the
search box must find an estimator.  The gallery's cards show their thumbnails
and their downloads (notebook and script) are served.  Every page of the site
is opened at 1280 px: the page never scrolls sideways (a wide display
equation scrolls inside itself, a long command wraps), and no code block of
Getting started scrolls either.  ``.ci/test`` builds the site before these
tests (beside the notebooks' nbval run); without a build the fixture builds
it itself, so ``pytest -m browser tests/browser/test_browser_docs.py`` also
works alone.
"""

from __future__ import annotations

import functools
import http.server
import re
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


def _wait_for_math(page) -> None:
    """Wait until MathJax (if the page loads it) has typeset the page."""
    page.wait_for_load_state("load")
    page.evaluate("() => (window.MathJax && MathJax.startup && MathJax.startup.promise)"
                  " ? MathJax.startup.promise.then(() => true) : true")


#: JavaScript: the page's scroll width beside the window's, and the elements that stick out
#: to the right of the window (tag, classes, right edge), at most 8
_OVERFLOW_JS = """() => {
  const width = window.innerWidth;
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 1 && r.width > 0 && wide.length < 8) {
      wide.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} right=${r.right|0}`);
    }
  }
  return {scroll: document.documentElement.scrollWidth, inner: width, wide: wide};
}"""


def _site_pages(api: bool) -> list[str]:
    """The HTML pages of the built site (relative paths), the API pages or the others."""
    pages = sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
                   if not p.relative_to(HTML).parts[0].startswith("_"))
    return [p for p in pages if p.startswith("api/generated/") == api]


def _page_fits(page, url: str) -> dict:
    """Open ``url`` and measure its width once the math is typeset."""
    page.goto(url)
    _wait_for_math(page)
    return page.evaluate(_OVERFLOW_JS)


def _shot_name(rel: str) -> str:
    return "docs-1280-" + re.sub(r"[^A-Za-z0-9]+", "-", rel.removesuffix(".html")) + ".png"


def test_every_page_fits_1280_px(site, docs_url, artifacts):
    pages = _site_pages(api=False)
    assert len(pages) > 20, pages
    too_wide = {}
    for rel in pages:
        sizes = _page_fits(site, f"{docs_url}/{rel}")
        # the top of each page; the whole of a page that is too wide
        site.screenshot(path=str(artifacts / _shot_name(rel)),
                        full_page=sizes["scroll"] > sizes["inner"])
        if sizes["scroll"] > sizes["inner"]:
            too_wide[rel] = sizes
    assert not too_wide, f"pages wider than the 1280 px window: {too_wide}"


def _api_sample(pages: list[str]) -> list[str]:
    """Every class page (the widest signatures: the constructors') and every
    eighth of the other API pages (functions, methods, attributes share their
    layout): about 210 of 620 pages, 2 minutes of browser time instead of 6."""
    def is_class(rel: str) -> bool:
        return rel.removesuffix(".html").rpartition(".")[2][:1].isupper()
    others = [p for p in pages if not is_class(p)]
    return [p for p in pages if is_class(p)] + others[::8]


def test_the_api_sample_holds_every_estimator_and_some_functions():
    pages = ["api/generated/polyrank.RankSVM.html", "api/generated/polyrank.RankSVM.fit.html",
             *(f"api/generated/polyrank.f{i}.html" for i in range(16))]
    sample = _api_sample(pages)
    assert "api/generated/polyrank.RankSVM.html" in sample and len(sample) == 1 + 3


def test_api_pages_fit_1280_px(site, docs_url, artifacts):
    pages = _api_sample(_site_pages(api=True))
    assert len(pages) > 100, len(pages)
    too_wide = {}
    for rel in pages:           # about 0.6 s a page on a busy 2-core machine
        sizes = _page_fits(site, f"{docs_url}/{rel}")
        if sizes["scroll"] > sizes["inner"]:
            too_wide[rel] = sizes
            site.screenshot(path=str(artifacts / _shot_name(rel)), full_page=True)
    site.screenshot(path=str(artifacts / _shot_name(pages[-1])))
    assert not too_wide, f"API pages wider than the 1280 px window: {too_wide}"


def test_getting_started_code_does_not_scroll(site, docs_url, artifacts):
    site.goto(f"{docs_url}/getting_started.html")
    _wait_for_math(site)
    # the code blocks, and the boxes of the tables (the install table: commands in cells)
    blocks = site.eval_on_selector_all(
        "article pre, article .pst-scrollable-table-container",
        "els => els.map(e => ({text: e.innerText.slice(0, 60), "
        "scroll: e.scrollWidth, client: e.clientWidth}))")
    assert len(blocks) >= 4, blocks
    scrolling = [b for b in blocks if b["scroll"] > b["client"]]
    assert not scrolling, f"code blocks or tables that scroll sideways at 1280 px: {scrolling}"
    # the install command is shown whole: its last word is inside the visible box
    install = site.locator("article pre", has_text="requirements.txt").first
    box = install.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    install.screenshot(path=str(artifacts / "docs-install-command.png"))


#: JavaScript: every display equation of the page: its right edge beside the article's, its
#: content width beside its box, whether it scrolls sideways, and how far it scrolled when told
#: to go to its end
_EQUATIONS_JS = """() => {
  const article = document.querySelector('article').getBoundingClientRect();
  return [...document.querySelectorAll('article mjx-container[display="true"]')].map(e => {
    e.scrollLeft = e.scrollWidth;
    return {right: e.getBoundingClientRect().right, column: article.right,
            content: e.scrollWidth, box: e.clientWidth, scrolled: e.scrollLeft,
            overflow: getComputedStyle(e).overflowX};
  });
}"""


def test_wide_equations_scroll_inside_themselves(site, docs_url, artifacts):
    checked = wide = 0
    for rel in _site_pages(api=False):
        if not rel.startswith(("user_guide/", "gallery/0")):
            continue
        site.goto(f"{docs_url}/{rel}")
        _wait_for_math(site)
        for eq in site.evaluate(_EQUATIONS_JS):
            checked += 1
            # the equation's box stays in the column ...
            assert eq["right"] <= eq["column"] + 1, (rel, eq)
            if eq["content"] > eq["box"]:
                # ... and what does not fit is reached by scrolling the equation alone
                wide += 1
                assert eq["overflow"] in ("auto", "scroll") and eq["scrolled"] > 0, (rel, eq)
                site.screenshot(path=str(artifacts / _shot_name(f"equations-{rel}")))
    assert checked >= 10, checked
    print(f"{checked} display equations, {wide} of them wider than the column (scrolling)")


def test_gallery_cards_have_thumbnails_and_downloads(site, docs_url, artifacts):
    site.goto(f"{docs_url}/gallery/index.html")
    cards = site.locator("article .sd-card")
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert cards.count() == len(names)
    _assert_figures(site, "article .sd-card img", len(names))
    hrefs = site.eval_on_selector_all("article .sd-card-footer a",
                                      "els => els.map(e => e.href)")
    for name in names:
        for suffix in (".ipynb", ".py"):
            link = [h for h in hrefs if h.endswith(f"/{name}{suffix}")]
            assert len(link) == 1, (name, suffix, hrefs)
            response = site.request.get(link[0])
            assert response.ok and len(response.body()) > 1000, (link[0], response.status)
    site.screenshot(path=str(artifacts / "docs-gallery-index.png"), full_page=True)
    # the examples: one page per script, each with its thumbnail and its two downloads
    site.goto(f"{docs_url}/gallery/examples/index.html")
    scripts = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))
    _assert_figures(site, "article .sphx-glr-thumbcontainer img", len(scripts))
    for name in scripts:
        site.goto(f"{docs_url}/gallery/examples/{name}.html")
        links = site.eval_on_selector_all("article a.download", "els => els.map(e => e.href)")
        for suffix in (".ipynb", ".py"):
            assert any(h.endswith(f"/{name}{suffix}") for h in links), (name, links)
    site.screenshot(path=str(artifacts / "docs-example.png"), full_page=True)
