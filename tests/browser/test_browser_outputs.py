"""What ``polyrank reproduce`` writes and the README pictures, checked in
the real browser: the HTML files open offline in Chromium and draw their
figure with data; the PNG pictures are exported by kaleido through the same
Chromium and are not empty frames."""

from __future__ import annotations

import csv
import json
import runpy
import struct
from pathlib import Path

import pytest

from polyrank.cli import main

from .lab import poll

ROOT = Path(__file__).resolve().parents[2]


def test_reproduce_html_opens_in_chromium(browser, tmp_path, artifacts, capsys):
    out = tmp_path / "out"
    assert main(["reproduce", "sopopo-fig8", "--quick", "--json", "--no-progress",
                 "--out", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    with open(out / "sopopo-fig8.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == summary["iterations"] + 1

    context = browser.new_context(viewport={"width": 1300, "height": 900},
                                  offline=True)          # plotly.js is embedded
    page = context.new_page()
    try:
        page.goto((out / "sopopo-fig8.html").as_uri())
        graph = page.locator(".js-plotly-plot")
        graph.wait_for(state="visible", timeout=30_000)
        title = graph.locator(".gtitle").text_content()
        assert "Fig. 8" in title
        n_points = graph.evaluate(
            "gd => gd._fullData.map(t => t.x ? t.x.length : 0)")
        # the dual-increase trace has one point per update
        assert max(n_points) >= summary["iterations"] // 2
        assert graph.locator(".scatterlayer .trace path").count() > 0
        page.screenshot(path=str(artifacts / "reproduce_sopopo-fig8_html.png"))
    finally:
        context.close()


def png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_readme_pictures_export(chromium_path, tmp_path, monkeypatch):
    pytest.importorskip("kaleido")
    monkeypatch.setenv("BROWSER_PATH", chromium_path)     # kaleido's Chromium
    readme_figures = runpy.run_path(str(ROOT / "tools" / "readme_figures.py"))
    written = readme_figures["render_readme_figures"](tmp_path, scale=1.0)
    names = sorted(p.name for p in written)
    assert names == sorted(["knot_explorer.png", "gap_monitor_yeast.png",
                            "decomposition_viewer.png", "reproduce_sopopo_fig8.png"])
    for p in written:
        w, h = png_size(p)
        assert w >= 600 and h >= 400, (p.name, w, h)
        # a drawn figure compresses far worse than an empty white frame
        assert p.stat().st_size > 20_000, (p.name, p.stat().st_size)


# the notebooks with stored pictures of both kinds: 06 (widgets and paper figures), 03 and 05
# (paper figures; the other notebooks' widgets are checked after Run All in their own tests)
@pytest.mark.parametrize("name", ["03_sign_constraints.ipynb", "05_ordinal_rcg.ipynb",
                                  "06_m3l_zero_shot.ipynb"])
def test_stored_notebook_shows_its_pictures_before_running(lab, page, artifacts, name):
    # opened, not run: every widget's stored output is its picture (no
    # "Error displaying widget: model not found"), every plotly figure is drawn
    nb = lab.open(page, name)
    stored = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    outputs = [o.get("data", {}) for c in stored["cells"] for o in c.get("outputs", [])]
    n_widgets = sum("an interactive widget" in "".join(d.get("text/plain", "")) for d in outputs)
    n_figures = sum("application/vnd.plotly.v1+json" in d for d in outputs)
    assert n_widgets + n_figures >= 1
    area = page.locator(".jp-Notebook")
    assert "model not found" not in area.inner_text()
    images = page.locator(".jp-RenderedImage img")
    assert images.count() >= n_widgets
    sizes = images.evaluate_all("imgs => imgs.map(i => [i.naturalWidth, i.naturalHeight])")
    assert all(w > 100 and h > 100 for w, h in sizes), sizes
    # a paper figure (plotly JSON, its picture as HTML for kernel-less renderers)
    # is drawn live by JupyterLab's plotly renderer, at the panel's width
    if n_figures:
        poll(lambda: page.locator(".jp-RenderedPlotly.js-plotly-plot .main-svg").count(),
             lambda n: n >= n_figures, f"{n_figures} plotly figures drawn", timeout_s=60)
    nb.screenshot(artifacts / f"stored-{name.removesuffix('.ipynb')}.png")
    # the pictures fit the panel too (issue 34, item 2)
    nb.check_layout(artifacts, f"stored-{name.removesuffix('.ipynb')}")
    nb.assert_no_errors()
