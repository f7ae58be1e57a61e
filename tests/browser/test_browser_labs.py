"""SolverLab in a real browser (issue 17, item 6): for the labs of the tour
(LabelRanker on yeast), notebook 03 (sign constraints on phishing), 05
(ordinal ranking on red wine) and 06 (M3L's R editor), the cells that build
the lab are run in turn, a control is moved as a person would, and the page
must show the refit: the gap curve restarted, the readout changed and the
attached paper view redrawn.  The tour's and notebook 06's checks are
functions called by the one test that opens that notebook (in
test_browser_sopopo and test_browser_m3l_ranksvm: each notebook is opened
once).  (Notebook 04's lab: test_browser_m3l_ranksvm.)
Screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np

from .lab import poll

#: a lab's refit in the browser may take a while on two shared cores
_poll = partial(poll, timeout_s=120.0)


def _iteration(title: str) -> int:
    m = re.search(r"iteration (\d+)", title)
    return int(m.group(1)) if m else -1


def _run(nb, *sources: str) -> None:
    for text in sources:
        nb.run_cell(nb.find_cell(text), timeout_ms=300_000)


def _settled(nb, box, before: str) -> str:
    """The lab's readout once the refit has ended (a new status line)."""
    return _poll(lambda: nb.html_text(box),
                 lambda t: t != before and "fitting" not in t and "is better)" in t,
                 "the lab's readout after the refit")


def _open_lab(lab, page, notebook: str, figure: str, *cells: str):
    """Open ``notebook``, run the cells that build its lab and wait for the
    first fit: (the notebook, the lab's figure titled ``figure``, the lab's
    widget box, its settled readout)."""
    nb = lab.open(page, notebook)
    _run(nb, *cells)
    fig = nb.figure(figure)
    box = fig.widget
    return nb, fig, box, _settled(nb, box, "")


def test_notebook03_sign_toggle_refits_with_the_new_sign(lab, page, artifacts):
    from polyrank.datasets import load_phishing
    from polyrank_paper import correlation_signs

    Xp, yp = load_phishing()
    cp = correlation_signs(Xp, yp)
    nb, bars, box, before = _open_lab(lab, page, "03_sign_constraints.ipynb",
                                      "coefficients w_h", "from polyrank.sign import Loss",
                                      "cp = correlation_signs(Xp, yp)", "sign_lab = SolverLab(")
    w = np.asarray(bars.trace("coef")["y"], dtype=float)
    # a feature constrained >= 0 with a clearly positive weight: force it <= 0
    h = int(np.argmax(np.where(cp > 0, w, -np.inf)))
    assert cp[h] > 0 and w[h] > 0.1
    toggle = box.locator(".widget-toggle-buttons").filter(
        has=page.locator(".widget-label", has_text=re.compile(rf"^\s*x{h}\s*$")))
    assert toggle.count() == 1
    toggle.locator("button", has_text="−").click()
    after = _settled(nb, box, before)
    bars.wait_for_trace("coef", lambda t: t["y"][h] <= 1e-12)
    held = bars.trace("held at 0 by its sign")["x"]
    assert f"x{h}" in held
    assert after != before
    nb.screenshot(artifacts / "lab_nb03_sign_toggled.png", box)

    nb.check_layout(artifacts, "nb03")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()


def test_notebook05_kernel_dropdown_redraws_the_curves(lab, page, artifacts):
    nb, curves, box, before = _open_lab(lab, page, "05_ordinal_rcg.ipynb",
                                        "separating curves f(x) = p_k", "POLY4 = dict(",
                                        "ord_lab = SolverLab(")
    z_before = np.asarray(curves.trace("f(x) = p_1")["z"], dtype=float)
    # linear: every separating curve is a straight line, f is affine on the grid
    assert np.allclose(np.diff(z_before, 2, axis=1), 0, atol=1e-8)
    nb.select("kernel", "rbf", within=box)
    after = _settled(nb, box, before)
    curves.wait_for_trace(
        "f(x) = p_1", lambda t: not np.allclose(np.asarray(t["z"], float), z_before))
    z_after = np.asarray(curves.trace("f(x) = p_1")["z"], dtype=float)
    assert not np.allclose(np.diff(z_after, 2, axis=1), 0, atol=1e-6)   # curved now
    gap = nb.figure("OrdinalMarginRanker: duality gap")
    assert _iteration(gap.title()) >= 1 and gap.trace("gap")["x"][0] == 1
    assert after != before
    nb.screenshot(artifacts / "lab_nb05_rbf.png", box)

    nb.check_layout(artifacts, "nb05")           # issue 34: nothing clipped, no console error
    nb.assert_no_errors()


# ------------------------------------------------------------ called by the
# tests of the tour and of notebook 06 (one notebook opened once per test)
def check_tour_lab_bias_dropdown_refits_label_ranker(nb, artifacts):
    """The tour's lab (its cells already run): the bias dropdown refits."""
    gap = nb.figure("LabelRanker: duality gap")
    box = gap.widget
    before = _settled(nb, box, "")
    n_before = _iteration(gap.title())
    graph = nb.figure("Feedback graph of γ")
    graph_before = graph.title()
    nb.screenshot(artifacts / "lab_tour_bias1.png", box)

    nb.select("bias", "0.0", within=box)
    after = _settled(nb, box, before)
    gap.wait_for_title(lambda t: _iteration(t) not in (-1, n_before))
    # the gap curve restarted: one point per pass of the new fit, from pass 1
    assert gap.trace("gap")["x"][0] == 1
    assert len(gap.trace("gap")["x"]) == _iteration(gap.title())
    assert "converged" in after and after != before
    # the example's view was redrawn with the new fit's scores
    graph.wait_for_title(lambda t: t != graph_before)
    nb.screenshot(artifacts / "lab_tour_bias0.png", box)


def check_notebook06_r_editor_refits_m3l(nb, artifacts):
    """Notebook 06's lab (yeast loaded): its R editor refits M3L."""
    _run(nb, "m3l_lab = SolverLab(")
    heat = nb.figure("prior R (click a cell)")
    box = heat.widget
    before = _settled(nb, box, "")
    assert "cell R[1, 3]" in nb.html_text(box)
    r = nb.slider("r", within=box)
    r.type_value("0.5")
    after = _settled(nb, box, before)
    _poll(lambda: heat.traces()[0]["z"][1][3], lambda v: abs(v - 0.5) < 1e-9,
          "R[1, 3] = 0.5 in the heat map")
    assert heat.traces()[0]["z"][3][1] == heat.traces()[0]["z"][1][3]
    assert after != before
    nb.screenshot(artifacts / "lab_nb06_r_editor.png", box)
