"""Widgets that never freeze (issue 44, item 5), headless.

- Whatever a SolverLab fit, its scoring or its drawing raises ends in the
  readout: "<stage> failed", the message, the traceback folded in a
  ``<details>`` block; never a frozen "fitting …" (a test set that cannot be
  scored left it so: the exception died in the thread). The sliders of
  CorrelationSlider and KnotExplorer do the same.
- Every view has a size guard: M3L with 10,000 labels gets a summary, not a
  10,000 x 10,000 heat map (it ran into MemoryError); likewise thousands of
  sign toggles, ordinal curves, preference-graph edges, knots.
- Widget inputs are checked with the argument's name
  (``KnotExplorer([1e308, -1e308], [1.0], 1.0)`` blamed an internal ``z``).
"""

from __future__ import annotations

import numpy as np
import pytest

import polyrank as pr
from polyrank_widgets import CorrelationSlider, DecompositionViewer, KnotExplorer, SolverLab
from polyrank_widgets._layout import MAX_DRAWN

T = 300      # seconds: the first fit of a solver may compile its kernels
RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
Y2 = (X[:, :2] > 0).astype(int)
y_bin = (X[:, 0] > 0).astype(int)


def failed(lab, stage):
    """The readout says "<stage> failed", with a folded traceback."""
    html = lab.readout.value
    return f"{stage} failed" in html and "<details>" in html and "fitting" not in html


# ------------------------------------------------------------ the readout


def test_a_test_set_that_cannot_be_scored_ends_in_the_readout():
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), X, y_bin,
                    test=(X[:, :2], y_bin))                      # 2 features, fitted on 3
    assert lab.wait(T)
    assert failed(lab, "scoring"), lab.readout.value
    assert "X has 2 features" in lab.error_ and "Traceback" in lab.traceback_
    assert lab.estimator_ is None and lab.n_fits_ == 0


def test_a_failing_fit_ends_in_the_readout():
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), X, np.zeros(60))
    assert lab.wait(T)
    assert failed(lab, "fit") and lab.error_ is not None


def test_a_failing_drawing_keeps_the_fit_and_says_so(monkeypatch):
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), X, y_bin, fit=False)

    def broken(est):
        raise RuntimeError("the view could not draw")

    monkeypatch.setattr(lab.view, "update", broken)
    lab.refit()
    assert lab.wait(T)
    assert failed(lab, "drawing") and "the view could not draw" in lab.view_error_
    assert lab.estimator_ is not None and lab.error_ is None


def test_a_correlation_slider_fit_failure_is_shown(monkeypatch):
    s = CorrelationSlider(X, Y2, X, Y2, curve=([0.0, 0.5], [10.0, 12.0]))

    def broken(*args, **kwargs):
        raise RuntimeError("no fit today")

    monkeypatch.setattr(s.model, "fit", broken)
    s.slider.value = 0.5
    assert "fit failed" in s.readout.value and "no fit today" in s.readout.value
    assert "<details>" in s.readout.value


def test_a_knot_slider_failure_is_shown(monkeypatch):
    ex = KnotExplorer.paper_fig4()

    def broken(C):
        raise RuntimeError("no update today")

    monkeypatch.setattr(ex, "set_C", broken)
    ex.C_slider.value = 5.0
    assert "update failed" in ex.readout.value and "no update today" in ex.readout.value


# ------------------------------------------------------------ size guards


def test_m3l_with_10000_labels_gets_a_summary_not_a_heat_map():
    Y = np.zeros((60, 10_000), dtype=int)
    Y[:, :2] = Y2
    lab = SolverLab(pr.M3LClassifier(), X, Y, fit=False)
    assert lab.view.fig is None and lab.view.R is None and lab.view.figures() == []
    assert "10,000 labels" in lab.view.widget.value and "not drawn" in lab.view.widget.value


def test_thousands_of_features_get_a_coefficient_summary():
    Xw = RNG.normal(size=(40, MAX_DRAWN + 1))
    lab = SolverLab(pr.SignConstrainedClassifier(random_state=0), Xw, (Xw[:, 0] > 0) * 1)
    assert lab.wait(T) and lab.error_ is None, lab.error_
    assert lab.view.fig is None and lab.view.toggles == []
    assert "2,001 features" in lab.view.summary.value
    assert "coefficients non-zero" in lab.view.summary.value


def test_many_ordered_labels_get_a_summary_and_objects_are_thinned():
    Xo = RNG.normal(size=(5000, 2))
    many = SolverLab(pr.PRank(), Xo, np.arange(5000) % 60, fit=False)
    assert many.view.fig is None and "59 threshold curves" in many.view.widget.value
    few = SolverLab(pr.PRank(), Xo, (Xo[:, 0] > 0) * 1, fit=False)
    assert 0 < len(few.view.fig.data[-1].x) <= MAX_DRAWN


def test_an_example_with_too_many_labels_gets_no_graph():
    Y = (RNG.normal(size=(60, 70)) > 0).astype(int)
    lab = SolverLab(pr.LabelRanker(random_state=0, max_iter=5), X, Y)
    assert lab.wait(T) and lab.error_ is None, lab.error_
    html = lab.view.box.children[0].value
    assert "preference-graph edges" in html and "not drawn" in html
    assert lab.view.viewer is None


def test_the_graph_views_cap_max_labels():
    with pytest.raises(ValueError, match=r"max_labels: at most 200"):
        DecompositionViewer(y=np.arange(300.0), max_labels=10_000)


# ------------------------------------------------------------ inputs by name


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    (([1e308, -1e308], [1.0], 1.0), {}, r"^mu: an entry of magnitude 1e\+308 overflows"),
    (([1.0], [1e200], 1.0), {}, r"^nu: an entry of magnitude"),
    (([1.0], [1.0], 1e300), {}, r"^C: 1e\+300 overflows"),
    ((np.ones(MAX_DRAWN + 1), [1.0], 1.0), {}, r"^mu: 2,001 entries"),
    (([1.0], [1.0], 1.0), {"n_grid": 10 ** 9}, r"^n_grid: at most 100,000"),
])
def test_knot_explorer_inputs_are_named(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        KnotExplorer(*args, **kwargs)


def test_knot_explorer_entry_is_named():
    ex = KnotExplorer.paper_fig4()
    with pytest.raises(ValueError, match=r"^value: an entry of magnitude"):
        ex.set_entry("mu", 0, 1e300)
    assert ex.z_star == pytest.approx(4.6)                 # unchanged


CURVE = ([0.0, 0.5], [10.0, 12.0])


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"labels": "ab"}, TypeError, r"^labels: expected two label columns"),
    ({"labels": (0, 1, 2)}, TypeError, r"^labels: expected two label columns"),
    ({"labels": (0.5, 1)}, TypeError, r"^labels: expected two integer columns"),
    ({"labels": (0, 0)}, ValueError, r"^labels: expected two different columns"),
    ({"step": -1}, ValueError, r"^step: expected 0 < step"),
    ({"r_max": "a"}, TypeError, r"^r_max:"),
    ({"curve": 5}, TypeError, r"^curve: expected"),
])
def test_correlation_slider_inputs_are_named(kwargs, error, match):
    kwargs = {"curve": CURVE, **kwargs}
    with pytest.raises(error, match=match):
        CorrelationSlider(X, Y2, X, Y2, **kwargs)


def test_correlation_slider_labels_must_be_indicators():
    with pytest.raises(ValueError, match=r"^Y: contains NaN"):
        CorrelationSlider(X, Y2 * np.nan, X, Y2, curve=CURVE)
    with pytest.raises(ValueError, match=r"^Y_test: expected label indicators"):
        CorrelationSlider(X, Y2, X, Y2 + 5, curve=CURVE)


@pytest.mark.parametrize(("args", "kwargs", "error", "match"), [
    ((None, y_bin), {}, TypeError, r"^X: expected an array"),
    ((X[:, 0], y_bin), {}, ValueError, r"^X: expected a 2-d array"),
    ((X, y_bin[:10]), {}, ValueError, r"^y: expected 60 rows"),
    ((X, y_bin), {"views": "yes"}, TypeError, r"^views: expected a bool"),
    ((X, y_bin), {"fit": 1}, TypeError, r"^fit: expected a bool"),
])
def test_solver_lab_inputs_are_named(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        SolverLab(pr.SignConstrainedClassifier(), *args, fit=kwargs.pop("fit", False),
                  **kwargs)


def test_a_long_trace_is_thinned_with_its_last_point():
    from polyrank.result import Trace
    from polyrank_widgets import GapMonitor
    from polyrank_widgets._monitor import MAX_POINTS

    n = 3 * MAX_POINTS + 7
    it = np.arange(1, n + 1)
    gap = 1.0 / it
    trace = Trace({"iteration": it, "time_s": it * 1e-3, "primal": 1.0 + gap,
                   "dual": np.ones(n), "gap": gap})
    mon = GapMonitor().replay(trace)
    drawn = [np.asarray(d.x) for d in mon.fig.data if d.x is not None and len(d.x)]
    assert drawn and all(0 < x.size <= MAX_POINTS and x[-1] == n for x in drawn)
