"""What every widget sends to the browser and how it is laid out (issue 34,
items 2-4), checked without a browser: plotly.js travels once per kernel in
one PlotlyBundle model, each figure carries the small loader and names that
model; figures follow the panel's width (no fixed width, a box between
MIN_FIGURE_PX and the design width); controls wrap under the figure;
dropdown labels are not cut; the log gap axis labels at most MAX_LOG_TICKS
decades.  The browser tests (tests/browser) check the same in Chromium."""

import json

import numpy as np
import plotly
import pytest
from sklearn.datasets import make_classification

from polyrank import SignConstrainedClassifier
from polyrank_widgets import (
    CorrelationSlider,
    DecompositionViewer,
    GapMonitor,
    KnotExplorer,
    SolverLab,
    TronMonitor,
)
from polyrank_widgets._layout import MIN_FIGURE_PX, design_width
from polyrank_widgets._plotly import LOADER_JS, FigureWidget, plotly_bundle
from polyrank_widgets.gap import MAX_LOG_TICKS, _log_dtick


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


@pytest.fixture(scope="module")
def widgets():
    X, y = make_classification(120, 4, random_state=0)
    lab = SolverLab(SignConstrainedClassifier(random_state=0), X, y,
                    params={"lam": (1e-4, 1e-1)}, test=(X, y))
    assert lab.wait(120)
    return {"knots": KnotExplorer.paper_fig4(C=10.0),
            "decomposition": DecompositionViewer(y=(-1, 0, 2, 0, -1)),
            "gap": GapMonitor(), "tron": TronMonitor(),
            "correlation": CorrelationSlider.from_yeast(), "lab": lab}


def _figures(w):
    return [x for x in _walk(w.widget) if isinstance(x, FigureWidget)]


def test_plotly_js_is_sent_once_per_kernel(widgets):
    bundle = plotly_bundle()
    assert bundle is plotly_bundle()
    assert len(bundle.code) > 1_000_000 and bundle.version == plotly.__version__
    n = 0
    for w in widgets.values():
        for fig in _figures(w):
            state = fig.get_state()
            # the loader, not plotly.js, in every figure's state
            assert state["_esm"] == LOADER_JS and len(state["_esm"]) < 4_000
            assert state["_polyrank_bundle"] == f"IPY_MODEL_{bundle.model_id}"
            n += 1
    assert n >= 7


def test_loader_replays_edits_made_while_plotly_loads():
    # the loader records every _py2js_ message plotly's FigureWidget sends
    sent = {name for name in FigureWidget.class_trait_names() if name.startswith("_py2js_")}
    assert sent and all(f'"{name}"' in LOADER_JS for name in sent)


def test_figures_follow_the_panel_width(widgets):
    for name, w in widgets.items():
        figs = _figures(w)
        assert figs, name
        for fig in figs:
            assert fig.layout.width is None, name          # plotly autosizes to its box
            box = next(b for b in _walk(w.widget) if fig in getattr(b, "children", ()))
            assert box.layout.display == "block"
            assert box.layout.min_width == f"{MIN_FIGURE_PX}px"
            assert box.layout.max_width == f"min({design_width(fig)}px, 100%)"
            # no px flex-basis: in a VBox it would be the box's height
            assert box.layout.flex == "1 1 auto"
            assert design_width(fig) >= 600, name


def test_controls_wrap_under_the_figure(widgets):
    for name in ("knots", "decomposition", "lab"):
        rows = [b for b in _walk(widgets[name].widget)
                if getattr(b.layout, "flex_flow", None) == "row wrap"]
        assert rows, name


def test_dropdown_labels_are_not_cut(widgets):
    lab = SolverLab(SignConstrainedClassifier(random_state=0),
                    *make_classification(60, 4, random_state=0),
                    params={"loss": ["hinge", "logistic"]}, fit=False)
    assert lab.controls["loss"].style.description_width == "initial"
    # "decomposition" (13 characters, ~95 px at 13 px) fits its label
    dd = widgets["decomposition"].decomposition_dropdown
    assert int(dd.style.description_width.rstrip("px")) >= 100


@pytest.mark.parametrize("lo, hi", [(1e-8, 1e9), (1e-12, 1e3), (1e-3, 1e2), (1e-1, 1e1)])
def test_log_gap_axis_labels_few_decades(lo, hi):
    gaps = np.geomspace(hi, lo, 50)
    dtick = _log_dtick(gaps)
    span = np.log10(hi / lo)
    if span < 3:
        assert dtick == "D2"
    else:
        assert isinstance(dtick, int) and dtick >= 1
        assert (np.ceil(span) + 1) / dtick <= MAX_LOG_TICKS


def test_lab_readout_names_the_units_of_its_counts():
    # SC-Pegasos counts steps; its callback (the gap plot's x) counts epochs
    X, y = make_classification(300, 5, random_state=0)
    lab = SolverLab(SignConstrainedClassifier(solver="pegasos", max_iter=3000,
                                              random_state=0), X, y,
                    params={"lam": (1e-4, 1e-1)})
    assert lab.wait(120)
    text = lab.readout.value
    assert f"{lab.estimator_.n_iter_:,} steps" in text
    assert "gap plot:" in text and f"last {int(lab.monitor.trace['iteration'][-1]):,}" in text


def test_lab_shows_progress_while_fitting():
    X, y = make_classification(2000, 20, random_state=0)
    seen = []
    lab = SolverLab(SignConstrainedClassifier(solver="sdca", tol=1e-12, max_iter=60,
                                              random_state=0), X, y,
                    params={"lam": (1e-6, 1e-1)}, fit=False)
    lab.readout.observe(lambda ch: seen.append(ch["new"]), names="value")
    lab.refit()
    assert lab.wait(120)
    assert "fitting …" in seen[0]
    assert any("iteration" in s and "gap" in s for s in seen[1:-1]), seen
    assert "fitting" not in seen[-1]
    json.dumps(seen)
