"""Names with markup in a real browser (issue 28, item 8): a notebook builds
CorrelationSlider, GapMonitor and two SolverLabs (a sign-constrained
classifier on columns named with markup, whose failed fit echoes a parameter
value with markup; an ordinal ranker whose classes and columns carry markup)
and JupyterLab draws them.  No ``<img onerror>`` or ``<script>`` element may
be created from a name, no dialog (``alert``) may open, and the names must be
on the page as literal text (in the HTML readouts and the plotly titles).

Without the escaping (polyrank_widgets._text.escape) the readout of the
CorrelationSlider put ``<img src=x onerror=alert(1)>`` into the page as an
element and the alert fired.
"""

from __future__ import annotations

import nbformat

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(2)</script>"

CELLS = [
    f"""\
import numpy as np
import pandas as pd
from IPython.display import display
from sklearn.datasets import make_classification

from polyrank import OrdinalMarginRanker, SignConstrainedClassifier
from polyrank.result import IterInfo
from polyrank_widgets import CorrelationSlider, GapMonitor, SolverLab

IMG, SCRIPT = {IMG!r}, {SCRIPT!r}
rng = np.random.default_rng(0)""",
    """\
X = rng.normal(size=(40, 3)); Y = (X[:, :2] > 0).astype(int)
slider = CorrelationSlider(X, Y, X, Y, curve=([0.0, 0.5], [10.0, 12.0]),
                           label_names=(IMG, SCRIPT))
display(slider)""",
    """\
gap = GapMonitor(title="monitor " + IMG)
gap(IterInfo(1, 0.1, 2.0, 1.0, 1.0)); gap(IterInfo(2, 0.2, 1.5, 1.2, 0.3))
display(gap)""",
    """\
Xc, yc = make_classification(80, 3, n_informative=2, n_redundant=0, random_state=0)
Xc = pd.DataFrame(Xc, columns=[IMG, SCRIPT, "x & 'y'"])
sign_lab = SolverLab(SignConstrainedClassifier(random_state=0), Xc, yc,
                     params={"lam": (1e-3, 1e-1), "loss": ["hinge", IMG]}, test=(Xc, yc))
display(sign_lab)
sign_lab.wait(300)
sign_lab.controls["loss"].value = IMG       # the fit fails; its message names the value
sign_lab.wait(300)
print("error shown:", sign_lab.error_ is not None)""",
    """\
Xo = rng.normal(size=(60, 2))
classes = ["low", IMG, SCRIPT]
yo = np.array(classes, dtype=object)[np.digitize(Xo @ [1.0, 0.5], [-0.5, 0.5])]
Xo = pd.DataFrame(Xo, columns=[SCRIPT, IMG])
ord_lab = SolverLab(OrdinalMarginRanker(classes=classes), Xo, yo, params={"c": (0.1, 10.0)},
                    test=(Xo, yo))
display(ord_lab)
ord_lab.wait(300)
print("ordinal fitted:", ord_lab.estimator_ is not None)""",
]


def test_names_with_markup_are_shown_as_text(lab, page, artifacts):
    nb_path = lab.root_dir / "escaping.ipynb"
    # a markdown cell first, as in every notebook of the project (Run All
    # clicks the first cell to focus the notebook)
    nb_doc = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Names with markup are shown as text")]
        + [nbformat.v4.new_code_cell(c) for c in CELLS])
    nb_doc.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
    nbformat.write(nb_doc, nb_path)
    dialogs = []

    def on_dialog(dialog):
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    nb = lab.open(page, nb_path.name)
    for i in range(1, len(CELLS) + 1):       # cell by cell, as a person reads it
        nb.run_cell(i, timeout_ms=600_000)
    # each figure drawn, found by its title (scrolled into view as a person would)
    figures = {"slider": nb.figure(f"{IMG} / {SCRIPT}: r ="),
               "gap": nb.figure(f"monitor {IMG} iteration 2"),
               "sign": nb.figure("coefficients w_h"),
               "curves": nb.figure("separating curves")}
    assert "error shown: True" in nb.stdout(4)
    assert "ordinal fitted: True" in nb.stdout(5)
    page.wait_for_timeout(1000)            # an onerror fires once the image fails to load

    # no element was made from a name: nothing with onerror, no script in the outputs
    made = page.evaluate("""() => ({
        onerror: document.querySelectorAll('[onerror]').length,
        img_x: document.querySelectorAll('.jp-OutputArea img[src="x"]').length,
        scripts: document.querySelectorAll('.jp-OutputArea script').length})""")
    assert made == {"onerror": 0, "img_x": 0, "scripts": 0}, made
    assert dialogs == []

    # ... and the names are on the page as the characters they are made of
    readouts = page.locator(".jp-Notebook .widget-html-content").all_inner_texts()
    assert any(f"corr({IMG}, {SCRIPT})" in t for t in readouts), readouts
    failed = [t for t in readouts if "fit failed" in t]   # the sign lab's message
    assert len(failed) == 1 and IMG in failed[0], readouts

    def texts(fig, css):
        return " ".join(fig.locator.locator(css).all_text_contents())

    ticks = texts(figures["sign"], ".xtick text")          # the sign view's bars
    assert IMG in ticks and SCRIPT in ticks, ticks
    axes = texts(figures["curves"], ".xtitle, .ytitle")    # the ordinal view's columns
    assert SCRIPT in axes and IMG in axes, axes
    colorbar = texts(figures["curves"], ".colorbar .tick text, .colorbar text")
    assert IMG in colorbar and SCRIPT in colorbar, colorbar  # its classes
    nb.screenshot(artifacts / "escaping_slider.png", figures["slider"].widget)
    nb.screenshot(artifacts / "escaping_ordinal.png", figures["curves"].widget)
    assert dialogs == []
