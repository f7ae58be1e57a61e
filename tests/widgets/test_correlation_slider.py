"""Headless tests of CorrelationSlider (m3l-multilabel-zero-shot.txt,
Sec. 7.2.1, Fig. 5): figure data, widget values, refits."""

import numpy as np
import pytest
from sklearn.metrics import hamming_loss

from polyrank import M3LClassifier
from polyrank.m3l import two_label_prior
from polyrank_widgets import CorrelationSlider


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(80, 3))
    Y = (X[:, :2] + 0.5 * rng.normal(size=(80, 2)) > 0).astype(int)
    Xt = rng.normal(size=(60, 3))
    Yt = (Xt[:, :2] > 0).astype(int)
    return X, Y, Xt, Yt


@pytest.fixture
def slider():
    X, Y, Xt, Yt = _data()
    return CorrelationSlider(X, Y, Xt, Yt, curve=([-0.5, 0.0, 0.5], [30.0, 20.0, 25.0]),
                             label_names=("a", "b"), gamma=0.5)


def test_initial_state_matches_a_cold_fit(slider):
    X, Y, Xt, Yt = _data()
    cold = M3LClassifier(R=two_label_prior(0.0), C=1.0, kernel="rbf", gamma=0.5).fit(X, Y)
    assert slider.r == 0.0 and slider.slider.value == 0.0
    assert slider.hamming_pct == pytest.approx(100 * hamming_loss(Yt, cold.predict(Xt)))
    curve, current = slider.fig.data
    assert list(curve.x) == [-0.5, 0.0, 0.5] and list(curve.y) == [30.0, 20.0, 25.0]
    assert list(current.x) == [0.0] and list(current.y) == [slider.hamming_pct]
    assert "r = +0.00" in slider.fig.layout.title.text
    assert f"{slider.hamming_pct:.2f} %" in slider.fig.layout.title.text
    assert f"train {np.corrcoef(Y.T)[0, 1]:+.2f}" in slider.readout.value
    assert f"test {np.corrcoef(Yt.T)[0, 1]:+.2f}" in slider.readout.value


def test_slider_refits_warm_started_and_updates_the_view(slider):
    X, Y, Xt, Yt = _data()
    slider.slider.value = -0.6
    assert slider.r == -0.6 and len(slider.history) == 2
    cold = M3LClassifier(R=two_label_prior(-0.6), C=1.0, kernel="rbf", gamma=0.5,
                         tol=1e-3).fit(X, Y)
    np.testing.assert_allclose(slider.model.decision_function(Xt),
                               cold.decision_function(Xt), atol=0.05)
    assert slider.model.result_.trace.dual[0] > cold.result_.trace.dual[0]   # warm start
    assert list(slider.fig.data[1].x) == [-0.6]
    assert slider.fig.data[1].y[0] == pytest.approx(slider.hamming_pct)
    assert "r = -0.60" in slider.fig.layout.title.text
    assert "r = -0.60" in slider.readout.value


def test_set_r_moves_the_slider_and_rejects_bad_r(slider):
    slider.set_r(0.3)
    assert slider.slider.value == 0.3
    slider.set_r(0.97)                       # outside the slider's range, inside (-1, 1)
    assert slider.r == 0.97 and slider.slider.value == 0.3
    for bad in (1.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="r"):
            slider.set_r(bad)
    with pytest.raises(TypeError, match="r"):
        slider.set_r("0.2")


def test_default_curve_and_bad_input():
    X, Y, Xt, Yt = _data(1)
    s = CorrelationSlider(X[:40], Y[:40], Xt, Yt, kernel="linear", C=0.5)
    assert len(s.fig.data[0].x) == 13 and np.all(np.isfinite(s.fig.data[0].y))
    assert s.curve[1][6] == pytest.approx(s.hamming_pct, abs=5.0)
    with pytest.raises(ValueError, match="labels"):
        CorrelationSlider(X, Y, Xt, Yt, labels=(0, 0), curve=([0.0], [1.0]))
    with pytest.raises(ValueError, match="Y_test"):
        CorrelationSlider(X, Y, Xt, Yt[:, :1], curve=([0.0], [1.0]))
    with pytest.raises(ValueError, match="curve"):
        CorrelationSlider(X, Y, Xt, Yt, curve=([0.0, 0.1], [1.0]))
    with pytest.raises(ValueError, match="X_test"):
        CorrelationSlider(X, Y, Xt[:, :2], Yt, curve=([0.0], [1.0]))


def test_display_protocol(slider):
    bundle = slider._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "CorrelationSlider" in repr(slider)


def test_the_browser_gets_the_finished_figure_at_construction(slider):
    """The FigureWidget is built from the finished first picture, so the
    state the browser draws from (``_widget_data`` / ``_widget_layout``, set
    at construction) holds the curve, the marker at r and the title, as for
    the other widgets (traces changed on their FigureWidget before display
    reached JupyterLab without coordinates; tests/browser)."""
    sent = slider.fig._widget_data
    assert [t["name"] for t in sent] == ["curve", "current"]
    assert list(sent[0]["x"]) == [-0.5, 0.0, 0.5] and list(sent[0]["y"]) == [30.0, 20.0, 25.0]
    assert list(sent[1]["x"]) == [0.0] and list(sent[1]["y"]) == [slider.hamming_pct]
    assert "r = +0.00" in slider.fig._widget_layout["title"]["text"]
    assert slider.fig in slider.widget.children[0].children    # the widget is what is shown
    slider.slider.value = 0.25                                 # updates still reach it
    assert list(slider.fig.data[1].x) == [0.25] and "r = +0.25" in slider.fig.layout.title.text
