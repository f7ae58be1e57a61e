"""Headless tests of polyrank_widgets: assertions on ``fig.data`` arrays,
layout shapes and widget values, never on pixels.

The reference values come from ``sopopo-label-ranking.txt``, Sec. 3.4 and
Fig. 4: mu = (3, -1, 2), nu = (1, 1, 2); the minimum of g(z; mu) + g(z; nu)
lies just below 5, between the 2nd and 3rd knots of the union.
"""

import numpy as np
import pytest

from polyrank.result import CallbackRunner, IterInfo, Trace
from polyrank.sopopo import knots
from polyrank_widgets import GapMonitor, KnotExplorer

MU4 = np.array([3.0, -1.0, 2.0])
NU4 = np.array([1.0, 1.0, 2.0])


def g_ref(z, mu):
    """Slow reference for Eq. 20: alpha = (mu - theta)_+ with sum(alpha) = z,
    theta found by bisection; returns 1/2 ||alpha - mu||^2 for each z."""
    z = np.atleast_1d(np.asarray(z, float))[:, None]
    lo = np.full_like(z, mu.min() - z.max() - 1.0)
    hi = np.full_like(z, mu.max())
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        too_much = np.maximum(mu - mid, 0.0).sum(axis=1, keepdims=True) > z
        lo = np.where(too_much, mid, lo)
        hi = np.where(too_much, hi, mid)
    alpha = np.maximum(mu - 0.5 * (lo + hi), 0.0)
    return 0.5 * ((alpha - mu) ** 2).sum(axis=1)


def trace(fig, name):
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, f"expected one trace named {name!r}"
    return matches[0]


def shape(fig, name):
    matches = [s for s in fig.layout.shapes if s.name == name]
    assert len(matches) == 1, f"expected one shape named {name!r}"
    return matches[0]


@pytest.fixture
def fig4():
    return KnotExplorer.paper_fig4(C=10.0)


# ---------------------------------------------------------------- KnotExplorer
def test_paper_fig4_builds_the_papers_vectors(fig4):
    np.testing.assert_allclose(fig4.mu, MU4)
    np.testing.assert_allclose(fig4.nu, NU4)
    assert fig4.C == 10.0


@pytest.mark.slow
def test_fig4_minimiser_matches_brute_force_and_paper(fig4):
    grid = np.linspace(0.0, fig4.C, 200_001)
    z_brute = grid[np.argmin(g_ref(grid, MU4) + g_ref(grid, NU4))]
    star = trace(fig4.fig, "z*")
    assert len(star.x) == 1
    assert abs(star.x[0] - z_brute) < 1e-3
    assert star.x[0] == pytest.approx(fig4.z_star)
    assert 4.5 < star.x[0] < 5.0                       # "just below 5"
    union = np.unique(np.concatenate([knots(MU4), knots(NU4)]))
    assert union[1] < star.x[0] < union[2]             # between 2nd and 3rd knot
    bracket = shape(fig4.fig, "bracket")
    assert (bracket.x0, bracket.x1) == pytest.approx((union[1], union[2]))
    assert star.y[0] == pytest.approx(g_ref(star.x, MU4)[0] + g_ref(star.x, NU4)[0])
    assert "z* = 4.6" in fig4.fig.layout.title.text


def test_curves_are_g_and_their_sum(fig4):
    g_mu, g_nu, total = (trace(fig4.fig, n) for n in ("g(z; μ)", "g(z; ν)", "sum"))
    z = np.asarray(g_mu.x)
    assert z[0] == 0.0 and z[-1] >= 1.15 * max(7.0, fig4.C) - 1e-9
    np.testing.assert_allclose(g_mu.y, g_ref(z, MU4), atol=1e-9)
    np.testing.assert_allclose(g_nu.y, g_ref(z, NU4), atol=1e-9)
    np.testing.assert_allclose(total.y, np.asarray(g_mu.y) + np.asarray(g_nu.y))


def test_knot_markers_are_the_knots_on_their_curves(fig4):
    z_max = fig4.fig.layout.xaxis.range[1]
    for name, vec, expected in (("μ", MU4, [0.0, 1.0, 7.0]),
                                ("ν", NU4, [0.0, 1.0, 1.0])):
        mark = trace(fig4.fig, f"knots of {name}")
        k = knots(vec)
        np.testing.assert_allclose(k, expected)
        np.testing.assert_allclose(mark.x, k[k < z_max])
        np.testing.assert_allclose(mark.y, g_ref(mark.x, vec), atol=1e-9)


def test_C_below_z_star_moves_the_marker_to_C(fig4):
    fig4.set_C(3.0)                                    # the paper's "say at 3"
    assert fig4.z_star == 3.0
    assert trace(fig4.fig, "z*").x[0] == 3.0
    assert shape(fig4.fig, "C").x0 == 3.0
    assert fig4.C_slider.value == pytest.approx(3.0)
    fig4.C_slider.value = 2.0                          # through the slider
    assert fig4.C == pytest.approx(2.0)
    assert trace(fig4.fig, "z*").x[0] == pytest.approx(2.0)
    assert fig4.alpha.sum() == pytest.approx(2.0)
    assert fig4.beta.sum() == pytest.approx(2.0)
    assert "z* = 2," in fig4.fig.layout.title.text
    fig4.set_C(1e6)                                    # far beyond the slider
    assert fig4.C_slider.value == pytest.approx(1e6)
    assert fig4.z_star == pytest.approx(4.6)


def test_set_entry_changes_curves_and_readout(fig4):
    assert trace(fig4.fig, "g(z; μ)").y[0] == pytest.approx(7.0)   # 1/2 ||mu||^2
    readout_before = fig4.readout.value
    fig4.set_entry("mu", 1, 4.0)
    np.testing.assert_allclose(fig4.mu, [3.0, 4.0, 2.0])
    g_mu = trace(fig4.fig, "g(z; μ)")
    assert g_mu.y[0] == pytest.approx(14.5)
    np.testing.assert_allclose(g_mu.y, g_ref(g_mu.x, fig4.mu), atol=1e-9)
    np.testing.assert_allclose(trace(fig4.fig, "sum").y,
                               g_ref(g_mu.x, fig4.mu) + g_ref(g_mu.x, NU4), atol=1e-9)
    np.testing.assert_allclose(trace(fig4.fig, "knots of μ").x, knots([3.0, 4.0, 2.0]))
    assert fig4.readout.value != readout_before
    assert f"{fig4.z_star:.4g}" in fig4.readout.value
    assert fig4.entry_dropdown.value == ("mu", 1)
    assert fig4.entry_slider.value == pytest.approx(4.0)


@pytest.mark.slow
def test_entry_widgets_drive_the_model(fig4):
    labels = [label for label, _ in fig4.entry_dropdown.options]
    assert labels == ["mu[0]", "mu[1]", "mu[2]", "nu[0]", "nu[1]", "nu[2]"]
    fig4.entry_dropdown.value = ("nu", 2)
    assert fig4.entry_slider.value == pytest.approx(2.0)
    np.testing.assert_allclose(fig4.nu, NU4)          # choosing does not edit
    fig4.entry_slider.value = -3.0
    np.testing.assert_allclose(fig4.nu, [1.0, 1.0, -3.0])
    np.testing.assert_allclose(trace(fig4.fig, "knots of ν").x, knots([1.0, 1.0, -3.0]))
    grid = np.linspace(0.0, fig4.C, 100_001)
    z_brute = grid[np.argmin(g_ref(grid, fig4.mu) + g_ref(grid, fig4.nu))]
    assert abs(trace(fig4.fig, "z*").x[0] - z_brute) < 1e-3


def test_z_star_zero_when_all_margins_are_satisfied():
    ex = KnotExplorer([-1.0, -2.0], [-0.5], 5.0)      # derivative at 0 is >= 0
    assert ex.z_star == 0.0
    np.testing.assert_array_equal(ex.alpha, 0.0)
    np.testing.assert_array_equal(ex.beta, 0.0)
    assert trace(ex.fig, "z*").x[0] == 0.0


def test_from_projection_uses_margins():
    rng = np.random.default_rng(0)
    x, U = rng.normal(size=4), rng.normal(size=(5, 4))
    y = np.array([3.0, 2.0, 2.0, 0.0, 1.0])
    ex = KnotExplorer.from_projection(x, y, U, [0, 1], [3, 4], C=2.0)
    f, sq = U @ x, x @ x
    np.testing.assert_allclose(ex.mu, (y[[0, 1]] - f[[0, 1]]) / sq)
    np.testing.assert_allclose(ex.nu, (f[[3, 4]] - y[[3, 4]]) / sq)


def test_display_protocol(fig4):
    bundle = fig4._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert fig4.fig in fig4.widget.children[0].children


@pytest.mark.parametrize("mu, nu, C, arg", [
    ([1.0, np.nan], [1.0], 1.0, "mu"),
    ([], [1.0], 1.0, "mu"),
    ([1.0], [np.inf], 1.0, "nu"),
    ([[1.0]], [1.0], 1.0, "mu"),
    ([1.0], [1.0], 0.0, "C"),
    ([1.0], [1.0], -2.0, "C"),
    ([1.0], [1.0], np.nan, "C"),
])
def test_bad_input_raises_value_error_naming_the_argument(mu, nu, C, arg):
    with pytest.raises(ValueError, match=rf"^{arg}:"):
        KnotExplorer(mu, nu, C)


def test_bad_input_type_errors_and_setters(fig4):
    with pytest.raises(TypeError, match="^mu:"):
        KnotExplorer(["a", "b"], [1.0], 1.0)
    with pytest.raises(TypeError, match="^C:"):
        KnotExplorer([1.0], [1.0], "10")
    with pytest.raises(ValueError, match="^C:"):
        fig4.set_C(0.0)
    with pytest.raises(ValueError, match="^which:"):
        fig4.set_entry("xi", 0, 1.0)
    with pytest.raises(ValueError, match="^index:"):
        fig4.set_entry("mu", 3, 1.0)
    with pytest.raises(ValueError, match="^value:"):
        fig4.set_entry("nu", 0, np.nan)
    with pytest.raises(ValueError, match="^C:"):
        KnotExplorer.paper_fig4(C=-1.0)
    assert fig4.C == 10.0                              # failed calls changed nothing
    np.testing.assert_allclose(fig4.mu, MU4)


# ---------------------------------------------------------------- GapMonitor
def infos(n, start=1):
    for i in range(start, start + n):
        yield IterInfo(i, 0.01 * i, 1.0 + 1.0 / i, 1.0 - 1.0 / i ** 2,
                       1.0 / i + 1.0 / i ** 2)


def test_gap_monitor_gains_points():
    mon = GapMonitor()
    for n, info in enumerate(infos(5), start=1):
        mon(info)
        for name in ("primal", "dual", "gap"):
            assert len(trace(mon.fig, name).x) == n
    np.testing.assert_array_equal(trace(mon.fig, "gap").x, [1, 2, 3, 4, 5])
    np.testing.assert_allclose(trace(mon.fig, "primal").y, mon.history["primal"])
    np.testing.assert_allclose(trace(mon.fig, "gap").y, mon.history["gap"])
    assert mon.fig.layout.yaxis2.type == "log"
    assert "iteration 5" in mon.fig.layout.title.text


def test_gap_monitor_replay_draws_exactly_the_trace():
    t = Trace()
    for info in infos(7):
        t.append(info)
    mon = GapMonitor()
    for info in infos(3, start=100):                   # stale points to be cleared
        mon(info)
    assert mon.replay(t) is mon
    for name in ("primal", "dual", "gap"):
        assert len(trace(mon.fig, name).x) == len(t) == 7
    np.testing.assert_array_equal(trace(mon.fig, "gap").x, t.iteration)
    np.testing.assert_allclose(trace(mon.fig, "dual").y, t.dual)
    mon.reset()
    assert len(trace(mon.fig, "gap").x) == 0 and mon.history["gap"] == []


def test_gap_monitor_records_into_a_core_trace():
    """The monitor keeps a polyrank.result.Trace (the structure every driver
    fills), not a parallel list; history is read from it."""
    mon = GapMonitor()
    runner = CallbackRunner(mon)
    for i in range(1, 5):
        runner.record(i, 1.0 + 1.0 / i, 1.0 - 1.0 / i, dual_increase=0.5 / i)
    assert isinstance(mon.trace, Trace) and len(mon.trace) == len(mon) == 4
    assert mon.trace.columns == list(Trace.BASE)       # the solver extra is not kept
    for c in Trace.BASE:
        np.testing.assert_array_equal(mon.trace[c], runner.trace[c])
    assert mon.history["iteration"] == [1, 2, 3, 4]
    assert all(type(v) is int for v in mon.history["iteration"])
    assert all(type(v) is float for v in mon.history["gap"])
    assert list(mon.history) == ["iteration", "time_s", "primal", "dual", "gap"]
    other = GapMonitor().replay(mon.trace)               # round trip
    assert other.history == mon.history
    # an info without time_s (any object with the four attributes)
    bare = GapMonitor()
    bare(type("Info", (), dict(iteration=1, primal=2.0, dual=1.0, gap=1.0))())
    assert np.isnan(bare.history["time_s"][0]) and bare.history["gap"] == [1.0]


def test_gap_monitor_non_positive_gaps_do_not_crash():
    mon = GapMonitor()
    gaps = [1e-2, 0.0, -1e-12, float("nan"), 1e-4]
    for i, gap in enumerate(gaps, start=1):
        mon(IterInfo(i, 0.0, 1.0, 1.0 - gap, gap))
    assert mon.history["gap"][:3] == [1e-2, 0.0, -1e-12]  # raw values kept
    y = np.asarray(trace(mon.fig, "gap").y, dtype=float)
    finite = np.isfinite(y)
    assert finite.sum() == 4 and np.isnan(y[3])
    assert np.all(y[finite] > 0)
    assert y[1] == y[2] < 1e-4                         # drawn below every real gap
    linear = GapMonitor(log_y=False)
    linear(IterInfo(1, 0.0, 1.0, 1.5, -0.5))
    assert trace(linear.fig, "gap").y[0] == -0.5
    assert linear.fig.layout.yaxis2.type == "linear"


def test_gap_monitor_max_points_keeps_history():
    mon = GapMonitor(max_points=3)
    for info in infos(10):
        mon(info)
    np.testing.assert_array_equal(trace(mon.fig, "gap").x, [8, 9, 10])
    assert len(mon.history["gap"]) == 10


def test_gap_monitor_stop_iteration_only_when_asked():
    quiet = GapMonitor()
    quiet(IterInfo(1, 0.0, 1.0, 1.0, 0.0))             # gap 0: no StopIteration
    mon = GapMonitor(stop_at_gap=0.05)
    runner = CallbackRunner(mon)
    assert runner.record(1, 2.0, 1.0) is False         # gap 1.0
    assert runner.record(2, 1.0, 0.99) is True         # gap 0.01 <= 0.05
    assert len(trace(mon.fig, "gap").x) == 2           # the stopping point is drawn


def test_gap_monitor_bad_input():
    with pytest.raises(ValueError, match="^max_points:"):
        GapMonitor(max_points=0)
    with pytest.raises(ValueError, match="^stop_at_gap:"):
        GapMonitor(stop_at_gap=-1.0)
    with pytest.raises(TypeError, match="^title:"):
        GapMonitor(title=3)
    with pytest.raises(TypeError, match="^info:"):
        GapMonitor()({"gap": 1.0})
    with pytest.raises(TypeError, match="^trace:"):
        GapMonitor().replay([1.0, 2.0])
    assert "application/vnd.jupyter.widget-view+json" in GapMonitor()._repr_mimebundle_()


def test_gap_monitor_objective_axis_ignores_a_far_first_dual():
    """Issue 17: a cutting plane's first dual of -6.5e8 next to objectives of
    ~25,000 flattened the objective panel; the axis now covers the last 90 %
    of the iterations and a note says what lies off it."""
    m = 40
    it = np.arange(1, m + 1)
    primal = 25_000 + 5_000 / it
    dual = 25_000 - 5_000 / it
    dual[0] = -6.5e8
    g = GapMonitor()
    g.replay(_Trace(it, primal, dual))
    lo, hi = g.fig.layout.yaxis.range
    assert g.fig.layout.yaxis.autorange is False
    assert lo > 15_000 and hi < 35_000 and lo <= dual[4:].min() and hi >= primal[4:].max()
    assert any("off the axis (down to -6.5e+08)" in a.text for a in g.fig.layout.annotations)
    # an ordinary run keeps plotly's autorange and no note
    g.replay(_Trace(it, 25_000 + 5_000 / it, 25_000 - 5_000 / it))
    assert g.fig.layout.yaxis.autorange is True and g.fig.layout.yaxis.range is None
    assert not any("off the axis" in a.text for a in g.fig.layout.annotations)


class _Trace:
    def __init__(self, it, primal, dual):
        self.iteration, self.primal, self.dual = it, primal, dual
        self.gap = primal - dual

    def __len__(self):
        return len(self.iteration)


def test_static_image_without_a_browser_fails_at_once(monkeypatch):
    # kaleido's sync server starts Chromium in a thread that dies silently when
    # there is none; an export then waited for it forever (static_images() hung a
    # notebook on a machine without Chromium)
    import threading

    import choreographer.browsers.chromium as chromium
    import plotly.graph_objects as go

    from polyrank_widgets import _display

    monkeypatch.setattr(_display, "_KALEIDO_SERVER", None)
    monkeypatch.setattr(chromium.Chromium, "find_browser",
                        classmethod(lambda cls, **kwargs: None))
    raised = []

    def export():
        try:
            _display.figure_png(go.Figure())
        except RuntimeError as exc:
            raised.append(str(exc))

    worker = threading.Thread(target=export, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "figure_png waits for a browser that does not exist"
    assert raised and "no Chrome/Chromium found" in raised[0]
    assert "apt-get install chromium" in raised[0]


# ---------------------------------------------------------------- one output per figure
def _png(width, height, colour):
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buf, format="PNG")
    return buf.getvalue()


def test_widget_is_one_output_without_an_image_by_default(fig4):
    # an interactive session: the widget view and a short text, no PNG, no kaleido
    from polyrank_widgets import _display
    assert _display._STATIC is False
    bundle = fig4._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.jupyter.widget-view+json", "text/plain"}
    assert bundle["text/plain"].startswith("KnotExplorer: an interactive widget")


def test_static_images_put_the_png_in_the_widget_output_and_refresh_it(fig4, monkeypatch):
    """Issue 34: one output per figure. Under static_images() the widget's
    own output carries the PNG (no separate snapshot output), and after a
    cell that changed the figure the PNG is replaced in place, under the same
    display id; a cell that changed nothing sends nothing."""
    import base64

    import IPython.display

    from polyrank_widgets import _display
    shown, updated, drawn = [], [], []

    def fake_png(fig, scale=1.0):
        drawn.append(fig.layout.title.text)
        return _png(20, 10, "red")

    monkeypatch.setattr(_display, "_STATIC", True)
    monkeypatch.setattr(_display, "_SHOWN", _display.weakref.WeakValueDictionary())
    monkeypatch.setattr(_display, "figure_png", fake_png)
    monkeypatch.setattr(IPython.display, "display",
                        lambda obj, **kw: shown.append((obj, kw)))
    monkeypatch.setattr(IPython.display, "update_display",
                        lambda obj, **kw: updated.append((obj, kw)))
    fig4._ipython_display_()
    assert len(shown) == 1                          # one output
    bundle, kw = shown[0]
    assert kw["raw"] is True and kw["display_id"]
    assert {"application/vnd.jupyter.widget-view+json", "text/plain",
            "image/png"} <= set(bundle)
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n\x1a\n")
    assert _display.refresh_static_images() == 0 and updated == []   # nothing changed
    fig4.set_C(2.0)
    assert _display.refresh_static_images() == 1
    (new, kw2), = updated
    assert kw2["display_id"] == kw["display_id"] and kw2["raw"] is True
    assert "z* = 2" in drawn[-1] and "z* = 4.6" in drawn[0]   # the PNG of the new state
    assert _display.refresh_static_images() == 0
    monkeypatch.setattr(_display, "_STATIC", False)
    assert _display.refresh_static_images() == 0


def test_stack_png_stacks_a_widgets_figures_into_one_image():
    import io

    from PIL import Image

    from polyrank_widgets._display import stack_png
    one = _png(30, 10, "red")
    assert stack_png([one]) == one
    out = Image.open(io.BytesIO(stack_png([one, _png(12, 7, "blue")])))
    assert out.size == (30, 17)
    assert out.getpixel((0, 0)) == (255, 0, 0) and out.getpixel((0, 12)) == (0, 0, 255)
    assert out.getpixel((29, 16)) == (255, 255, 255)      # white beside the narrow one
    with pytest.raises(ValueError, match="images"):
        stack_png([])


def test_static_images_rejects_a_non_bool():
    from polyrank_widgets import static_images
    with pytest.raises(TypeError, match="enable"):
        static_images("yes")
