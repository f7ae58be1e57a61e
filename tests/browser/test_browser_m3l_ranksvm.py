"""CorrelationSlider (notebook 06) and TronMonitor / GapMonitor (notebook 04)
in a real browser: the cells that build the widgets are run in turn, as a
person reading the notebook would, a control is moved, and the rendered
plotly figure (read back from the page, ``gd._fullData``) must show the
data the widget promises.  One screenshot per state is saved under
``test-artifacts/browser/``.

Reference values: ``m3l-multilabel-zero-shot.txt``, Sec. 7.2.1, Fig. 5 (the
test Hamming loss of two labels under R = [[1, r], [r, 1]]), recomputed here
by a cold M3L fit outside the browser; ``large-scale-linear-ranksvm.txt``,
Sec. 4.1 (the TRON log printed by notebook 04, one line per Newton step).

Both widgets now build their FigureWidget from a finished plain Figure, as
KnotExplorer, GapMonitor and DecompositionViewer do.  Note: with the earlier
construction (traces added to / updated on the FigureWidget before display)
these two tests passed as well, run cell by cell and with Run All, so here
they guard the behaviour rather than reproduce a failure seen on them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from .lab import poll as _poll
from .lab import record_timing
from .test_browser_labs import check_notebook06_r_editor_refits_m3l

SLIDER_TITLE = "Class2 / Class4: r ="


def run_cells(nb, *sources: str) -> None:
    """Run, in order, the cells whose source contains each of ``sources``."""
    for text in sources:
        nb.run_cell(nb.find_cell(text))


def cold_hamming_pct(r: float) -> float:
    """Test Hamming loss (%) of a cold M3L fit at r on the slider's data
    (``CorrelationSlider.from_yeast`` defaults: rbf, gamma = 1, C = 1,
    tol = 1e-3, bias 1), computed in this process, not in the notebook."""
    from sklearn.metrics import hamming_loss

    from polyrank import M3LClassifier
    from polyrank.m3l import fig5_setup, two_label_prior

    s = fig5_setup(200, 0.6, 0)
    m = M3LClassifier(R=two_label_prior(r), kernel="rbf", gamma=1.0, C=1.0, tol=1e-3,
                      bias=1.0).fit(s["X"], s["Y2"])
    return 100.0 * hamming_loss(s["Y2_test"], m.predict(s["X_test"]))


def slider_state(nb, fig) -> dict:
    cur = fig.trace("current")
    return {"r": cur["x"][0], "loss": cur["y"][0], "title": " ".join(fig.title().split()),
            "readout": nb.html_text(fig.widget)}


def assert_consistent(s: dict, r: float) -> None:
    """Marker, title and readout all show r and the same loss."""
    assert s["r"] == pytest.approx(r, abs=1e-9)
    assert f"r = {r:+.2f}" in s["title"] and f"test Hamming loss {s['loss']:.2f} %" in s["title"]
    assert f"r = {r:+.2f}: test Hamming loss {s['loss']:.2f} %" in s["readout"]


def test_notebook06_correlation_slider(lab, page, artifacts):
    nb = lab.open(page, "06_m3l_zero_shot.ipynb")
    # the cells up to the slider (Table 3 and the AwA prior are not needed)
    run_cells(nb, "from polyrank_widgets import CorrelationSlider", "yeast = load_yeast()",
              "fig5 = m3l_fig5(",
              "slider = CorrelationSlider.from_yeast(")
    fig = nb.figure(SLIDER_TITLE)
    curve = fig.trace("curve")
    # the precomputed Fig. 5 curve (quick: rbf rows of m3l_fig5) is drawn
    assert len(curve["x"]) == len(curve["y"]) >= 5 and fig.svg_path_count() >= 2
    assert all(-1 < x < 1 for x in curve["x"]) and all(0 < y < 100 for y in curve["y"])
    s0 = slider_state(nb, fig)
    assert_consistent(s0, 0.0)
    assert "train +0.60, test -0.36" in s0["readout"]
    nb.screenshot(artifacts / "nb06_correlation_slider_r0.png", fig.widget)

    # the kernel moves r (the notebook's next cell): the shown widget follows
    # (the loss is printed by the cell after, marked NBVAL_IGNORE_OUTPUT: its
    # last digit varies with the CPU)
    run_cells(nb, "slider.set_r(-0.75)", "(r = 0: {slider.history[0]")
    printed = nb.stdout(nb.find_cell("(r = 0: {slider.history[0]"))
    fig.wait_for_trace("current", lambda t: t["x"][0] == pytest.approx(-0.75))
    s1 = slider_state(nb, fig)
    assert_consistent(s1, -0.75)
    assert f"test Hamming loss {s1['loss']:.2f} %" in printed
    # the curve point at r = -0.75 is a cold fit at the same r
    i = int(np.argmin(np.abs(np.asarray(curve["x"]) + 0.75)))
    assert curve["x"][i] == pytest.approx(-0.75) and s1["loss"] == pytest.approx(
        curve["y"][i], abs=0.3)

    # five key presses to the right (step 0.05): r = -0.50, one refit per
    # change; the marker moves there and the loss is a fresh fit at r = -0.5
    slider = nb.slider("r", within=fig.widget)
    slider.press("ArrowRight", 5, settle_ms=100)
    fig.wait_for_trace("current", lambda t: t["x"][0] == pytest.approx(-0.5), 60_000)
    _poll(lambda: slider_state(nb, fig), lambda s: "r = -0.50:" in s["readout"]
          and "r = -0.50" in s["title"], "title and readout at r = -0.50")
    s2 = slider_state(nb, fig)
    assert_consistent(s2, -0.5)
    # d3-format writes a Unicode minus
    assert float(slider.value_text().replace("\u2212", "-")) == pytest.approx(-0.5)
    assert s2["loss"] == pytest.approx(cold_hamming_pct(-0.5), abs=0.3)
    nb.screenshot(artifacts / "nb06_correlation_slider_r-0.50.png", fig.widget)

    # a value typed into the readout: r = +0.60, positive correlation forced
    # on negatively correlated test labels costs (Fig. 5's right half)
    slider.type_value("0.6")
    fig.wait_for_trace("current", lambda t: t["x"][0] == pytest.approx(0.6), 60_000)
    _poll(lambda: slider_state(nb, fig), lambda s: "r = +0.60:" in s["readout"]
          and "r = +0.60" in s["title"], "title and readout at r = +0.60")
    s3 = slider_state(nb, fig)
    assert_consistent(s3, 0.6)
    assert s3["loss"] == pytest.approx(cold_hamming_pct(0.6), abs=0.3)
    assert s3["loss"] > s2["loss"]
    nb.screenshot(artifacts / "nb06_correlation_slider_r+0.60.png", fig.widget)

    # the GapMonitor of Sec. 2 (replayed from a finished SMO trace before it
    # was shown): its first and last gaps are the ones the notebook prints
    run_cells(nb, "res = m3l_smo(", "monitor = GapMonitor(title=\"M3L SMO")
    printed = nb.stdout(nb.find_cell("monitor = GapMonitor(title=\"M3L SMO"))
    first, last = (float(v) for v in re.search(
        r"gap: first sweep (\S+), last (\S+)", printed).groups())
    gap_fig = nb.figure("M3L SMO (Alg. 1), dense R")
    gap = gap_fig.trace("gap")
    assert len(gap["x"]) >= 2 and gap["x"] == list(range(1, len(gap["x"]) + 1))
    assert gap["y"][0] == pytest.approx(first, abs=0.05)
    assert gap["y"][-1] == pytest.approx(last, rel=0.05)
    assert f"iteration {len(gap['x'])}" in gap_fig.title()
    nb.screenshot(artifacts / "nb06_gap_monitor_smo.png", gap_fig.widget)

    # the SolverLab of Sec. 3 and its R editor, in the same page
    check_notebook06_r_editor_refits_m3l(nb, artifacts)

    nb.check_layout(artifacts, "nb06")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()


def parse_tron_log(text: str) -> list[tuple]:
    """(step, f, ||grad f||, delta, CG) of every line of the printed log."""
    rows = re.findall(r"^\s*(\d+)\s+([\d.]+)\s+([\d.e+-]+)\s+([\d.]+)\s+(\d+)\s*$", text, re.M)
    return [(int(a), float(b), float(c), float(d), int(e)) for a, b, c, d, e in rows]


def test_notebook04_solver_lab_tron_and_gap_monitors(lab, page, artifacts):
    # Run All (the reproductions of Figs. 4-7 and Tables 3-5 are loaded from
    # the package's stored results)
    nb = lab.open(page, "04_ranksvm.ipynb").run_all()
    record_timing(artifacts, "run_all/04_ranksvm", nb.run_all_s)
    log = parse_tron_log(nb.stdout(nb.find_cell("res = model.result_")))
    steps = len(log)
    assert steps >= 5 and [row[0] for row in log] == list(range(1, steps + 1))

    # the lab's TronMonitor drew the fit live: one point per printed Newton
    # step in every panel, the printed values
    tron = nb.figure("RankSVM: TRON steps")
    f, g, d, cg = (tron.trace(n) for n in ("f", "grad_norm", "delta", "cg_iter"))
    for t in (f, g, d, cg):
        assert t["x"] == list(range(1, steps + 1)) and len(t["y"]) == steps
    assert f["y"] == pytest.approx([row[1] for row in log], abs=1e-4)
    assert g["y"] == pytest.approx([row[2] for row in log], rel=1e-3)
    assert d["y"] == pytest.approx([row[3] for row in log], abs=1e-3)
    assert cg["y"] == [row[4] for row in log]
    assert f"step {steps}" in tron.title()
    assert tron.svg_path_count(".scatterlayer .trace path") >= 3
    assert tron.locator.locator(".barlayer .point").count() == steps
    nb.screenshot(artifacts / "nb04_tron_monitor.png", tron.widget)

    # its GapMonitor: the same steps, f above the dual bound, the gap shrinking
    gap_fig = nb.figure("RankSVM: duality gap")
    primal, dual, gap = (gap_fig.trace(n) for n in ("primal", "dual", "gap"))
    assert primal["x"] == dual["x"] == gap["x"] == list(range(1, steps + 1))
    assert primal["y"] == pytest.approx([row[1] for row in log], abs=1e-4)
    # the dual is not drawn (null) where it is below 0 beyond rounding, far
    # from the optimum (RankSVMObjective.dual); from there on: weak duality
    # and a gap that shrinks by six decades
    def drawn(values):                     # null or NaN: not drawn
        return [i for i, v in enumerate(values) if v is not None and v == v]

    shown = drawn(dual["y"])
    assert shown and shown[-1] == steps - 1 and shown == list(range(shown[0], steps))
    assert all(primal["y"][i] >= dual["y"][i] for i in shown)          # weak duality
    assert drawn(gap["y"]) == shown
    assert gap["y"][-1] < 1e-6 * gap["y"][shown[0]]
    assert f"iteration {steps}" in gap_fig.title()
    nb.screenshot(artifacts / "nb04_gap_monitor.png", gap_fig.widget)

    # move the tol slider as a person would (keyboard; released at once): the
    # lab refits with a looser tolerance, so the gap curve restarts with fewer
    # steps, TRON's panel is redrawn and the readout changes
    box = gap_fig.widget                                 # the lab: controls, readout, monitors
    before = nb.html_text(box)
    assert "test mean NDCG" in before and "converged" in before
    tol = nb.slider("tol", within=box)
    # the first key press shows "fitting …" (recorded: what a person waits)
    waited = nb.latency(lambda: tol.press("ArrowRight", times=20), box, "fitting")  # 1e-7 -> 1e-6
    record_timing(artifacts, "latency/04_solver_lab_tol_to_fitting", waited)
    gap_fig.wait_for_title(lambda t: "iteration" in t and f"iteration {steps}" not in t)
    tron.wait_for_title(lambda t: f"step {steps}" not in t and "step" in t)
    new_steps = len(gap_fig.trace("gap")["x"])
    assert 1 <= new_steps < steps
    _poll(lambda: nb.html_text(box), lambda t: t != before and "converged" in t,
          "the lab's readout after the refit")
    nb.screenshot(artifacts / "nb04_solver_lab_after_tol.png", box)

    # a stored reproduction recomputed in place: the button says "computing …"
    # at once, then the status says where the shown result comes from
    fig7 = nb.figure("every method at the same C (Fig. 7)")
    status = fig7.widget
    assert "Stored result: computed" in nb.html_text(status)
    button = status.get_by_role("button", name="Recompute")
    waited = nb.latency(button.click, status, "computing")
    record_timing(artifacts, "latency/04_recompute_to_computing", waited)
    _poll(lambda: nb.html_text(status), lambda t: "Recomputed here in" in t,
          "the recompute of ranksvm-fig7 to end", timeout_s=180.0)
    assert button.is_enabled() and fig7.traces() and fig7.svg_path_count() > 0
    assert "Hv / passes / planes" in nb.html_text(status)     # this run's table
    nb.screenshot(artifacts / "nb04_result_view_recomputed.png", status)

    nb.check_layout(artifacts, "nb04")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()
