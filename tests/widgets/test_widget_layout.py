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


def test_fluid_figure_is_shown_at_the_panel_width_and_keeps_its_design_width(monkeypatch):
    """A paper figure (FluidFigure) reaches the page without its width and
    with autosize, on both of IPython's paths (``_ipython_display_``, which
    IPython prefers, and ``_repr_mimebundle_``); the figure keeps its width,
    and the static PNG is drawn at that design width."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from polyrank_widgets import _display
    from polyrank_widgets._layout import FluidFigure

    fig = FluidFigure(go.Figure(go.Scatter(x=[0, 1], y=[1, 0]),
                                layout={"width": 1250, "height": 430,
                                        "title": 'a "q" & b<br><sup>it 2</sup>'}))
    drawn = []

    def fake_png(figure, scale=1.0, width=None):
        drawn.append(width)
        return b"png"

    monkeypatch.setattr(_display, "figure_png", fake_png)
    monkeypatch.setattr(_display, "compact_png", lambda png: png)
    pio.renderers[_display.PNG_RENDERER] = _display._CompactPngRenderer()
    monkeypatch.setattr(pio.renderers, "default", f"plotly_mimetype+{_display.PNG_RENDERER}")
    shown = []
    monkeypatch.setattr("plotly.io._renderers.ipython_display.display",
                        lambda bundle, raw: shown.append(bundle))
    fig._ipython_display_()
    bundles = shown + [fig._repr_mimebundle_()]
    for bundle in bundles:
        layout = bundle["application/vnd.plotly.v1+json"]["layout"]
        assert "width" not in layout and layout["autosize"] is True
        # the picture as an <img> that fits the output area, not image/png (which
        # JupyterLab's plotly renderer would show at its natural width)
        assert "image/png" not in bundle
        assert bundle["text/html"].startswith('<img src="data:image/png;base64,cG5n"')
        assert "max-width: 100%" in bundle["text/html"]
    assert drawn == [1250, 1250]
    # the title as plain, escaped text: plotly's markup is not shown as text
    assert 'alt="a &quot;q&quot; &amp; b it 2"' in bundles[0]["text/html"]
    assert fig.layout.width == 1250 and fig.layout.autosize is None
    # a plain figure keeps plotly's behaviour: its width goes to the page
    plain = go.Figure(fig)._repr_mimebundle_()
    assert plain["application/vnd.plotly.v1+json"]["layout"]["width"] == 1250
    assert "image/png" in plain and drawn[-1] is None


def test_paper_figures_are_fluid(monkeypatch):
    """Every figure of the paper wing is a FluidFigure (registry._draw), its
    builder's width kept as the design width."""
    import plotly.graph_objects as go

    from polyrank_paper import registry
    from polyrank_widgets._layout import FluidFigure

    class Result:
        name = "sopopo-fig6"

    monkeypatch.setitem(registry.figure_builders(), "sopopo-fig6",
                        lambda result: go.Figure(layout={"width": 900}))
    fig = registry._draw(Result())
    assert isinstance(fig, FluidFigure) and fig.layout.width == 900
