"""TronMonitor, headless: the figure's data follow TRON's trace
(large-scale-linear-ranksvm.txt, Sec. 4.1)."""

import numpy as np
import pytest

from polyrank import RankSVM
from polyrank.result import IterInfo
from polyrank_widgets import GapMonitor, TronMonitor


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 5))
    qid = np.repeat(np.arange(8), 10)
    y = np.round(X @ np.array([1.0, -1.0, 0.5, 0.0, 0.2]) + rng.normal(size=80))
    return X, y, qid


def test_live_callback_equals_trace_and_replay():
    X, y, qid = _data()
    mon = TronMonitor(title="test")
    m = RankSVM(C=1.0, tol=1e-6).fit(X, y, qid, callback=mon)
    t = m.result_.trace
    f, g, d, cg = mon.fig.data
    np.testing.assert_array_equal(f.x, t.iteration)
    np.testing.assert_allclose(f.y, t.primal)
    np.testing.assert_allclose(g.y, t.grad_norm)
    np.testing.assert_allclose(d.y, t.delta)
    np.testing.assert_array_equal(cg.y, t.cg_iter.astype(int))
    assert sum(cg.y) == m.result_.n_hv
    assert "step" in mon.fig.layout.title.text and len(mon) == len(t)
    other = TronMonitor(grad_norm0=m.result_.grad_norm0, tol=1e-6).replay(t)
    np.testing.assert_allclose(other.fig.data[1].y, g.y)
    assert other.fig.layout.shapes[0].y0 == pytest.approx(1e-6 * m.result_.grad_norm0)
    # the stopping rule Eq. 4.4 holds at the last point
    assert g.y[-1] <= other.fig.layout.shapes[0].y0
    # both monitors hold a polyrank.result.Trace with TRON's columns
    for m_ in (mon, other):
        for c in ("iteration", "primal", "grad_norm", "delta", "accepted"):
            np.testing.assert_allclose(m_.trace[c], t[c])
        np.testing.assert_array_equal(m_.trace.cg_iter, t.cg_iter.astype(int))
    np.testing.assert_array_equal(other.trace.time_s, t.time_s)
    assert mon.history == other.history
    assert all(type(v) is bool for v in mon.history["accepted"])
    assert all(type(v) is int for v in mon.history["cg_iter"])


def test_rejected_steps_are_red_and_bad_input():
    mon = TronMonitor()
    for k, acc in enumerate((1.0, 0.0, 1.0), start=1):
        mon(IterInfo(k, 0.1 * k, 10.0 - k, np.nan, np.nan, grad_norm=1.0 / k,
                     delta=1.0, cg_iter=2.0, accepted=acc))
    assert list(mon.fig.data[3].marker.color) == ["#1f77b4", "#d62728", "#1f77b4"]
    with pytest.raises(TypeError, match="TRON IterInfo"):
        mon(IterInfo(4, 0.1, 1.0, 0.5, 0.5))              # not from TRON
    with pytest.raises(TypeError, match="TRON Trace"):
        TronMonitor().replay(GapMonitor().history)
    with pytest.raises(ValueError, match="tol"):
        TronMonitor(tol=0.0)
    with pytest.raises(TypeError, match="title"):
        TronMonitor(title=3)


def test_the_browser_gets_the_finished_figure_at_construction():
    """The FigureWidget is built from the finished first picture (four named
    panels' traces, the titled layout), so the state the browser draws from
    (``_widget_data`` / ``_widget_layout``, set at construction) is complete;
    see tests/browser for what went wrong otherwise."""
    mon = TronMonitor(title="test", grad_norm0=2.0, tol=0.1)
    sent = mon.fig._widget_data
    assert [t["name"] for t in sent] == ["f", "grad_norm", "delta", "cg_iter"]
    assert [t["type"] for t in sent] == ["scatter", "scatter", "scatter", "bar"]
    assert mon.fig._widget_layout["title"]["text"] == "test"
    assert mon.fig._widget_layout["shapes"][0]["y0"] == pytest.approx(0.2)
    assert mon.fig in mon.widget.children[0].children
    mon(IterInfo(1, 0.1, 5.0, np.nan, np.nan, grad_norm=2.0, delta=1.0, cg_iter=3.0))
    assert list(mon.fig.data[3].y) == [3] and "step 1" in mon.fig.layout.title.text
