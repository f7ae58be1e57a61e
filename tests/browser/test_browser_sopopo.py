"""The SOPOPO widgets in a real browser: each notebook is opened in
JupyterLab, all its cells are run, a control is moved as a person would, and
the rendered plotly figure (read back from the page, ``gd._fullData``) must
change as the widget promises.  One screenshot per state is saved under
``test-artifacts/browser/``.

Reference values: ``sopopo-label-ranking.txt``, Sec. 3.4 and Fig. 4
(mu = (3, -1, 2), nu = (1, 1, 2): knots 0, 1, 7; z* = 4.6 for C >= 4.6, and
z* = C below); Fig. 1-2 (γ = (-1, 0, 2, 0, -1) and its decompositions).
"""

from __future__ import annotations

import re
from functools import partial

import pytest

from .lab import poll, record_timing
from .test_browser_labs import check_tour_lab_bias_dropdown_refits_label_ranker

_poll = partial(poll, timeout_s=15.0)

KNOT_TITLE = "Minimiser of g(z; μ) + g(z; ν)"


def knot_state(fig) -> dict:
    """What the KnotExplorer shows: z* marker, C line, bracket, title."""
    shapes = {s["name"]: s for s in fig.shapes()}
    star = fig.trace("z*")
    return {"z_star": star["x"][0], "C": shapes["C"]["x0"],
            "bracket": (shapes["bracket"]["x0"], shapes["bracket"]["x1"]),
            "title": fig.title()}


def assert_knot_explorer_drawn(fig) -> None:
    """The curves and knots carry data and are drawn as SVG paths."""
    for name in ("g(z; μ)", "g(z; ν)", "sum"):
        assert len(fig.trace(name)["x"]) > 100, name
    assert fig.trace("knots of μ")["x"] == pytest.approx([0.0, 1.0, 7.0])
    assert fig.trace("knots of ν")["x"] == pytest.approx([0.0, 1.0, 1.0])
    assert fig.svg_path_count() >= 6


def test_tour_knot_explorer_and_lab(lab, page, artifacts):
    nb = lab.open(page, "00_tour.ipynb").run_all()
    record_timing(artifacts, "run_all/00_tour", nb.run_all_s)
    fig = nb.figure(KNOT_TITLE + ": z* = 4.6")         # the Fig. 4 explorer, not the lab's
    assert_knot_explorer_drawn(fig)
    s = knot_state(fig)
    assert s["z_star"] == pytest.approx(4.6) and s["C"] == pytest.approx(10.0)
    assert s["bracket"] == pytest.approx((1.0, 7.0))
    assert "z* = 4.6" in s["title"] and "C = 10" in s["title"]
    nb.screenshot(artifacts / "tour_knot_explorer_C10.png", fig.widget)

    # 40 key presses on the log slider (step 0.01 decades): C = 10^0.6 < 4.6,
    # so the bound is active and the minimiser sits on it, z* = C
    slider = nb.slider("C", within=fig.widget)
    slider.press("ArrowLeft", 40)
    fig.wait_for_trace("z*", lambda t: t["x"][0] < 4.5)
    s = knot_state(fig)
    assert s["C"] == pytest.approx(10 ** 0.6, rel=1e-6)
    assert s["z_star"] == pytest.approx(s["C"])
    assert float(slider.value_text()) == pytest.approx(s["C"], abs=0.01)
    assert f"C = {s['C']:.4g}" in s["title"] and f"z* = {s['z_star']:.4g}" in s["title"]
    # the bracket is the knot interval containing z*, cut at the bound C
    assert s["bracket"] == pytest.approx((1.0, s["C"]))

    # typed below the knot at z = 1: z* follows C into the first knot
    # interval, the bracket [0, C]
    slider.type_value("0.5")
    fig.wait_for_trace("z*", lambda t: t["x"][0] < 0.9)
    s = knot_state(fig)
    # the log slider snaps to its step of 0.01 decades: C = 10^-0.3 = 0.5012
    assert s["C"] == pytest.approx(0.5, rel=0.01)
    assert s["z_star"] == pytest.approx(s["C"])
    assert s["bracket"] == pytest.approx((0.0, s["C"]))
    assert f"bracket [0, {s['C']:.4g}]" in fig.title()
    nb.screenshot(artifacts / "tour_knot_explorer_C0.5.png", fig.widget)

    # the tour's SolverLab (LabelRanker on yeast), in the same page
    check_tour_lab_bias_dropdown_refits_label_ranker(nb, artifacts)

    nb.check_layout(artifacts, "tour")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()


def test_notebook01_gap_monitor_and_knot_entries(lab, page, artifacts):
    # Run All Cells, as a reader does: the KnotExplorer's and the GapMonitor's
    # figures in this notebook were once drawn empty (plotly's default empty
    # axes) when the next cell started a numba-heavy fit at once (issues 8,
    # 17); every figure of the notebook must now be drawn
    nb = lab.open(page, "01_sopopo_label_ranking.ipynb").run_all()
    record_timing(artifacts, "run_all/01_sopopo_label_ranking", nb.run_all_s)
    assert nb.assert_all_figures_drawn() >= 5

    # --- GapMonitor: one point per SOPOPO pass, as many as the table reports
    gap_fig = nb.figure("all pairs, bias = 1)")
    table = nb.stdout(nb.find_cell("table = {  # name: (rank loss, coverage, LRAP)"))
    passes = int(re.search(r"SOPOPO LabelRanker, bias=1\s+\S+\s+\S+\s+\S+\s+(\d+)",
                           table).group(1))
    gap, primal, dual = (gap_fig.trace(n) for n in ("gap", "primal", "dual"))
    assert len(gap["x"]) == len(primal["x"]) == passes >= 2
    assert gap["x"] == list(range(1, passes + 1))
    assert all(p >= d for p, d in zip(primal["y"], dual["y"]))       # weak duality
    assert gap["y"][-1] < gap["y"][0]
    assert f"iteration {passes}" in gap_fig.title()
    nb.screenshot(artifacts / "nb01_gap_monitor.png", gap_fig.widget)

    # run the fit cell again, as a person would: the monitor gains the new
    # passes one redraw at a time while the solver runs
    gap_fig.record("gap")
    nb.run_cell(nb.find_cell("_ = model.fit(data.X_train, data.Y_train, callback=monitor)"))
    gap_fig.wait_for_trace("gap", lambda t: len(t["x"]) == 2 * passes)
    counts = gap_fig.recorded()
    assert counts[0] == passes and counts[-1] == 2 * passes
    assert counts == sorted(counts)                       # never loses points
    assert any(passes < c < 2 * passes for c in counts), counts   # live, not at the end
    nb.screenshot(artifacts / "nb01_gap_monitor_refit.png", gap_fig.widget)

    # --- KnotExplorer: choose nu[2] in the dropdown, move its value slider
    knot_fig = nb.figure(KNOT_TITLE + ": z* = 4.6")     # Fig. 4's, not the lab's
    assert_knot_explorer_drawn(knot_fig)
    before = knot_fig.trace("sum")["y"]
    nb.select("entry", "nu[2]", within=knot_fig.widget)
    value = nb.slider("value", within=knot_fig.widget)
    _poll(lambda: float(value.value_text()), lambda v: v == 2.0, "nu[2] readout")
    value.press("ArrowRight", 25)           # nu[2] = 2 + 25 steps

    def expected(nu2):
        # Thm. 4, computed here independently: with nu sorted decreasingly,
        # z_i = sum_{r <= i} nu_(r) - i nu_(i)
        srt = sorted([1.0, 1.0, nu2], reverse=True)
        return sorted(sum(srt[:i + 1]) - (i + 1) * srt[i] for i in range(3))

    def consistent(_):
        nu2 = float(value.value_text())          # shown with 3 significant digits
        got = sorted(knot_fig.trace("knots of ν")["x"])
        return nu2 > 2.0 and got == pytest.approx(expected(nu2), abs=0.02)
    _poll(lambda: None, consistent, "knots of ν following the slider")
    assert knot_fig.trace("sum")["y"] != before
    assert "nu[2]" in nb.html_text(knot_fig.widget)
    nb.screenshot(artifacts / "nb01_knot_explorer_nu2.png", knot_fig.widget)

    nb.check_layout(artifacts, "nb01")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()


def black_edges(fig) -> set:
    """Edges drawn black (the current piece), as 1-based (r, s)."""
    out = set()
    for t in fig.traces():
        m = re.fullmatch(r"edge (\d+)→(\d+)", t["name"] or "")
        if m and t["line_color"] == "#111111":
            assert len(t["x"]) > 1                         # the edge has its curve
            out.add((int(m.group(1)), int(m.group(2))))
    return out


def labels(fig, name) -> list:
    return sorted(int(v) for v in fig.trace(name)["text"])


def test_notebook02_decomposition_viewer(lab, page, artifacts):
    # Run All: Figs. 6 and 7 (half a minute each to compute) are loaded from
    # the package's stored results, each shown by a ResultView that says so
    nb = lab.open(page, "02_sopopo_reproduction.ipynb").run_all()
    record_timing(artifacts, "run_all/02_sopopo_reproduction", nb.run_all_s)
    for title in ("Fig. 6 reproduced", "Fig. 7 reproduced"):
        view = nb.figure(title)
        assert view.traces() and view.svg_path_count() > 0
        assert "Stored result: computed" in nb.html_text(view.widget)
        assert view.widget.get_by_role("button", name="Recompute").is_enabled()
    fig = nb.figure("Feedback graph of γ")
    # Fig. 2 (middle): adjacent layers, piece 1 = {3} x {2, 4}
    assert "adjacent layers, piece 1 of d = 2" in fig.title()
    edges = [t for t in fig.traces() if (t["name"] or "").startswith("edge ")]
    assert len(edges) == 8 and all(len(t["x"]) > 1 for t in edges)   # 8 edges of Fig. 1
    assert black_edges(fig) == {(3, 2), (3, 4)}
    assert labels(fig, "A (open circles)") == [3]
    assert labels(fig, "B (filled circles)") == [2, 4]
    nb.screenshot(artifacts / "nb02_decomposition_adjacent.png", fig.widget)

    # the dropdown: all pairs, one piece per edge (d = 8); the slider steps
    # from piece 1 = {2} x {1} to piece 2 = {2} x {5} (1-based labels)
    nb.select("decomposition", "all pairs", within=fig.widget)
    fig.wait_for_title(lambda t: "all pairs, piece 1 of d = 8" in t)
    assert black_edges(fig) == {(2, 1)}
    nb.slider("piece j", within=fig.widget).press("ArrowRight")
    fig.wait_for_title(lambda t: "piece 2 of d = 8" in t)
    assert black_edges(fig) == {(2, 5)}
    assert labels(fig, "A (open circles)") == [2]
    assert labels(fig, "B (filled circles)") == [5]
    assert "total loss (Eq. 3)" in nb.html_text(fig.widget)
    nb.screenshot(artifacts / "nb02_decomposition_all_pairs_piece2.png", fig.widget)

    # a new target y typed into its γ box: the graph is rebuilt in the page (its
    # traces are replaced after display); all pairs of (2, 1, 0, 0, -1): the
    # 9 edges r -> s with y_r > y_s, piece 2 = {1} x {3}
    nb.type_text("γ", "2, 1, 0, 0, -1", within=fig.widget)
    _poll(lambda: nb.html_text(fig.widget), lambda t: "d = 9 pieces" in t,
          "the readout of the new y")                      # the kernel took it
    fig.wait_for_title(lambda t: "Feedback graph of γ = (2, 1, 0, 0, -1): all pairs, "
                       "piece 2 of d = 9" in " ".join(t.split()))
    edges = [t for t in fig.traces() if (t["name"] or "").startswith("edge ")]
    assert sorted(t["name"] for t in edges) == [
        "edge 1→2", "edge 1→3", "edge 1→4", "edge 1→5", "edge 2→3", "edge 2→4",
        "edge 2→5", "edge 3→5", "edge 4→5"]
    assert all(len(t["x"]) > 1 and len(t["y"]) == len(t["x"]) for t in edges)
    assert black_edges(fig) == {(1, 3)}
    nb.screenshot(artifacts / "nb02_decomposition_new_gamma.png", fig.widget)

    # the figure of the paper's Fig. 8 is drawn with data too
    f = nb.figure("Fig. 8")
    assert sum(len(t["x"]) for t in f.traces()) > 0 and f.svg_path_count() > 0
    nb.screenshot(artifacts / "nb02_fig8.png", nb.figure("Fig. 8").locator)

    nb.check_layout(artifacts, "nb02")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()
