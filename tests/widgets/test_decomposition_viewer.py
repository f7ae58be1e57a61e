"""Headless tests of DecompositionViewer: assertions on ``fig.data``, layout
annotations and widget values, never on pixels.

Reference: ``sopopo-label-ranking.txt``, Sec. 2. Fig. 1 is the feedback graph
of y = (-1, 0, 2, 0, -1) (8 edges; the edge (3, 1) has weight 3); Fig. 2
decomposes it into all pairs (8 pieces), adjacent layers (2 pieces:
{3} x {2, 4} and {2, 4} x {1, 5}) and top layer vs the rest (1 piece,
{3} x {1, 2, 4, 5}). Labels are 1-based in the figure, 0-based in the API.
"""

import html

import numpy as np
import pytest
from conftest import brute_piece_loss

from polyrank_widgets import DecompositionViewer

FIG1 = (-1.0, 0.0, 2.0, 0.0, -1.0)
BLACK = "#111111"
NODE_TRACES = ("A (open circles)", "B (filled circles)", "not in piece (gray)")


def trace(fig, name):
    matches = [t for t in fig.data if t.name == name]
    assert len(matches) == 1, f"expected one trace named {name!r}"
    return matches[0]


def edge_traces(fig):
    return [t for t in fig.data if t.name.startswith("edge ")]


def black_edges(fig):
    """1-based (r, s) of the edges drawn black (the selected piece)."""
    out = set()
    for t in edge_traces(fig):
        if t.line.color == BLACK:
            r, s = t.name.removeprefix("edge ").split("→")
            out.add((int(r), int(s)))
    return out


def drawn_edges(fig):
    return {tuple(int(v) for v in t.name.removeprefix("edge ").split("→"))
            for t in edge_traces(fig)}


def labels_of(fig, name):
    return sorted(int(v) for v in trace(fig, name).text)


def brute_pairs(y):
    """1-based (r, s) with y_r > y_s, by a double loop."""
    k = len(y)
    return {(r + 1, s + 1) for r in range(k) for s in range(k) if y[r] > y[s]}


def random_y(rng):
    """k in 2..8 integer targets in 0..3 (many ties), at least two distinct
    (at most MATRIX_ABOVE labels: the graph is drawn with arrows)."""
    while True:
        y = rng.integers(0, 4, size=int(rng.integers(2, 9))).astype(float)
        if np.unique(y).size > 1:
            return y


@pytest.fixture
def fig1():
    return DecompositionViewer(FIG1, "adjacent_layers")


# ---------------------------------------------------------------- Fig. 1 and 2
def test_fig1_graph_is_the_papers(fig1):
    assert fig1.n_nodes == 5 and fig1.n_edges == 8
    assert drawn_edges(fig1.fig) == {(3, 1), (3, 2), (3, 4), (3, 5),
                                     (2, 1), (2, 5), (4, 1), (4, 5)}
    weights = {a.name: a.text for a in fig1.fig.layout.annotations
               if a.name.startswith("weight ")}
    assert len(weights) == 8
    assert weights["weight 3→1"] == "3"                # the paper's example edge
    assert weights["weight 3→2"] == "2" and weights["weight 2→1"] == "1"
    # every edge runs from its tail's node to its head's node and ends in an
    # arrowhead marker turned along its last segment
    bg = trace(fig1.fig, "label background")
    for t in edge_traces(fig1.fig):
        r, s = (int(v) - 1 for v in t.name.removeprefix("edge ").split("→"))
        assert (t.x[0], t.y[0]) == pytest.approx((bg.x[r], bg.y[r]))
        assert (t.x[-1], t.y[-1]) == pytest.approx((bg.x[s], bg.y[s]))
        assert t.marker.symbol == "arrow" and t.marker.angleref == "previous"
        assert t.marker.size[-1] > 0 and not any(t.marker.size[:-1])
    # columns by y: 3 leftmost, {2, 4} in the middle, {1, 5} on the right
    assert bg.x[2] < bg.x[1] == bg.x[3] < bg.x[0] == bg.x[4]
    assert bg.y[1] != bg.y[3] and bg.y[0] != bg.y[4]
    assert list(fig1.fig.layout.xaxis.ticktext) == ["γ = 2", "γ = 0", "γ = -1"]


@pytest.mark.parametrize("kind, d", [("all_pairs", 8), ("adjacent_layers", 2),
                                     ("top_vs_rest", 1)])
def test_fig2_piece_counts(kind, d):
    v = DecompositionViewer(FIG1, kind)
    assert len(v.pieces) == d == v.piece_slider.max
    assert f"of d = {d}" in v.fig.layout.title.text
    assert f"<b>d</b> = {d} pieces" in v.readout.value


def test_fig2_middle_piece_symbols(fig1):
    # piece 1: A = {3} (open circles), B = {2, 4} (filled), {1, 5} gray
    assert labels_of(fig1.fig, "A (open circles)") == [3]
    assert labels_of(fig1.fig, "B (filled circles)") == [2, 4]
    assert labels_of(fig1.fig, "not in piece (gray)") == [1, 5]
    a, b = trace(fig1.fig, "A (open circles)"), trace(fig1.fig, "B (filled circles)")
    assert a.marker.symbol == "circle-open" and a.marker.color == BLACK
    assert b.marker.symbol == "circle" and b.marker.color == BLACK
    assert trace(fig1.fig, "not in piece (gray)").marker.color != BLACK
    assert black_edges(fig1.fig) == {(3, 2), (3, 4)}
    fig1.select_piece(1)                               # {2, 4} x {1, 5}
    assert labels_of(fig1.fig, "A (open circles)") == [2, 4]
    assert labels_of(fig1.fig, "B (filled circles)") == [1, 5]
    assert labels_of(fig1.fig, "not in piece (gray)") == [3]
    assert black_edges(fig1.fig) == {(2, 1), (2, 5), (4, 1), (4, 5)}
    assert fig1.piece_index == 1 and fig1.piece_slider.value == 2
    assert "piece 2 of d = 2" in fig1.fig.layout.title.text
    assert "σ = 1" in fig1.fig.layout.title.text.split("<br>")[1]


def test_fig2_bottom_piece_is_everything():
    v = DecompositionViewer(FIG1, "top_vs_rest")
    assert labels_of(v.fig, "A (open circles)") == [3]
    assert labels_of(v.fig, "B (filled circles)") == [1, 2, 4, 5]
    assert len(trace(v.fig, "not in piece (gray)").x) == 0
    assert black_edges(v.fig) == {(3, 1), (3, 2), (3, 4), (3, 5)}


# ---------------------------------------------------------------- random y
@pytest.mark.parametrize("seed", range(12))
def test_random_y_graph_and_pieces(seed):
    rng = np.random.default_rng(seed)
    y = random_y(rng)
    k, pairs = y.size, brute_pairs(y)
    n_distinct = np.unique(y).size
    expected_d = {"all_pairs": len(pairs), "adjacent_layers": n_distinct - 1,
                  "top_vs_rest": 1}
    v = DecompositionViewer(y, "all_pairs")
    assert v.n_nodes == k == sum(len(trace(v.fig, n).x) for n in NODE_TRACES)
    assert sorted(int(t) for n in NODE_TRACES for t in trace(v.fig, n).text) \
        == list(range(1, k + 1))
    assert len(edge_traces(v.fig)) == v.n_edges == len(pairs)
    assert drawn_edges(v.fig) == pairs
    pos = {(x, y) for x, y in zip(trace(v.fig, "label background").x,
                                  trace(v.fig, "label background").y)}
    assert len(pos) == k                                # no two labels on one spot
    for kind, d in expected_d.items():
        v.set_decomposition(kind)
        assert len(v.pieces) == d, kind
        union = set()
        for j, p in enumerate(v.pieces):
            v.select_piece(j)
            black = black_edges(v.fig)
            assert len(black) == p.A.size * p.B.size == p.n_edges
            assert black == {(a + 1, b + 1) for a in p.A for b in p.B}
            assert labels_of(v.fig, "A (open circles)") == sorted(p.A + 1)
            assert labels_of(v.fig, "B (filled circles)") == sorted(p.B + 1)
            union |= black
        if kind == "all_pairs":                        # one piece per edge
            assert union == pairs
        elif kind == "adjacent_layers":                # edges between neighbouring layers
            rank = {g: i for i, g in enumerate(np.unique(y)[::-1])}
            assert union == {(r, s) for r, s in pairs
                             if rank[y[s - 1]] == rank[y[r - 1]] + 1}


# ---------------------------------------------------------------- loss readout
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["all_pairs", "adjacent_layers", "top_vs_rest"])
def test_loss_matches_brute_force(seed, kind):
    rng = np.random.default_rng(100 + seed)
    y = random_y(rng)
    W, x = rng.normal(size=(y.size, 4)), rng.normal(size=4)
    f = W @ x
    v = DecompositionViewer(y, kind, W, x)
    np.testing.assert_allclose(v.scores, f)
    total = 0.0
    for j, p in enumerate(v.pieces):
        want = brute_piece_loss(y, f, p)
        assert v.piece_loss(j) == pytest.approx(want, abs=1e-12)
        r, s = v.worst_edge(j)
        assert r in p.A and s in p.B
        attained = p.sigma * max((y[r] - y[s]) - (f[r] - f[s]), 0.0)
        assert attained == pytest.approx(want, abs=1e-12)
        total += want
    assert v.total_loss() == pytest.approx(total, abs=1e-12)
    v.select_piece(len(v.pieces) - 1)
    j = v.piece_index
    assert f"<b>{v.piece_loss(j):.4g}</b>" in v.readout.value
    assert f"<b>{total:.4g}</b>" in v.readout.value
    r, s = v.worst_edge(j)
    assert f"at edge {r + 1}→{s + 1}" in v.readout.value
    halo = trace(v.fig, "max-loss edge")
    worst = trace(v.fig, f"edge {r + 1}→{s + 1}")
    if v.piece_loss(j) > 0:                   # the halo follows the violated max-loss edge
        np.testing.assert_allclose(halo.x, worst.x)
        np.testing.assert_allclose(halo.y, worst.y)
    else:                                     # every pair of the piece satisfied: no halo
        assert len(halo.x) == 0
    # set_scores changes the readout, and sigma_j = 1/d scales every piece
    v.set_scores(np.zeros(y.size))
    v.set_normalize(True)
    d = len(v.pieces)
    for j, p in enumerate(v.pieces):
        assert p.sigma == pytest.approx(1.0 / d)
        assert v.piece_loss(j) == pytest.approx(brute_piece_loss(y, np.zeros_like(f), p))


def test_default_scores_give_sigma_times_max_weight(fig1):
    np.testing.assert_array_equal(fig1.scores, 0.0)
    assert [fig1.piece_loss(j) for j in range(2)] == [2.0, 1.0]
    assert fig1.total_loss() == 3.0
    v = DecompositionViewer(FIG1, "all_pairs")
    assert v.total_loss() == 3 + 2 + 2 + 3 + 1 + 1 + 1 + 1
    assert DecompositionViewer(FIG1, "top_vs_rest").total_loss() == 3.0


def test_scores_text_box_and_set_scores(fig1):
    fig1.scores_text.value = "0, 0, 5, 1, 0"           # f_3 - f_2 = 5 >= 2
    np.testing.assert_allclose(fig1.scores, [0, 0, 5, 1, 0])
    assert fig1.piece_loss(0) == 0.0
    assert "every pair satisfied" in fig1.readout.value
    assert len(trace(fig1.fig, "max-loss edge").x) == 0   # nothing violated
    assert fig1.piece_loss(1) == pytest.approx(1.0)    # edge 2 -> 1: 1 - 0
    fig1.select_piece(1)
    assert len(trace(fig1.fig, "max-loss edge").x) > 0
    fig1.scores_text.value = "1, 2"
    assert "scores" in fig1.status.value and "(5,)" in fig1.status.value
    np.testing.assert_allclose(fig1.scores, [0, 0, 5, 1, 0])
    with pytest.raises(ValueError, match="^W:"):
        fig1.set_scores(W=np.ones((4, 2)), x=np.ones(2))
    with pytest.raises(ValueError, match="^x:"):
        fig1.set_scores(W=np.ones((5, 2)), x=np.ones(3))
    with pytest.raises(ValueError, match="^scores:"):
        fig1.set_scores([0, 0, np.nan, 0, 0])
    with pytest.raises(ValueError, match="^scores:"):
        DecompositionViewer(FIG1, scores=np.zeros(5), W=np.ones((5, 1)), x=[1.0])


# ---------------------------------------------------------------- custom
def test_custom_text_box_valid(fig1):
    fig1.select_piece(1)
    fig1.set_decomposition("all_pairs")
    fig1.custom_text.value = "[([3], [2, 4]), ([2, 4], [1, 5], 0.5)]"
    assert fig1.status.value == ""
    assert fig1.decomposition == "custom" == fig1.decomposition_dropdown.value
    assert [(p.A.tolist(), p.B.tolist(), p.sigma) for p in fig1.pieces] == \
        [([2], [1, 3], 1.0), ([1, 3], [0, 4], 0.5)]
    assert black_edges(fig1.fig) == {(2, 1), (2, 5), (4, 1), (4, 5)}
    assert fig1.piece_loss(1) == 0.5
    fig1.decomposition_dropdown.value = "top_vs_rest"
    assert len(fig1.pieces) == 1
    fig1.decomposition_dropdown.value = "custom"       # the stored custom returns
    assert len(fig1.pieces) == 2


@pytest.mark.parametrize("text, condition", [
    ("[([1], [3])]", "condition 1"),                   # y_1 = -1 < y_3 = 2
    ("[([3], [2, 4]), ([3], [2])]", "condition 2"),     # edge (3, 2) twice
    ("[([3, 2], [2])]", "condition 3"),                 # A and B overlap
    ("[([3], [])]", "condition 3"),                     # B empty
])
def test_custom_violations_are_shown_not_raised(fig1, text, condition):
    before = [(p.A.tolist(), p.B.tolist()) for p in fig1.pieces]
    picture = [t.line.color for t in edge_traces(fig1.fig)]
    fig1.custom_text.value = text                      # must not raise
    assert condition in fig1.status.value
    assert "Sec. 2" in fig1.status.value
    assert [(p.A.tolist(), p.B.tolist()) for p in fig1.pieces] == before
    assert [t.line.color for t in edge_traces(fig1.fig)] == picture
    assert fig1.decomposition == "adjacent_layers" == fig1.decomposition_dropdown.value
    with pytest.raises(ValueError, match=condition):   # the API raises
        fig1.set_decomposition(DecompositionViewer._parse_custom(text), one_based=True)


@pytest.mark.parametrize("text, needle", [
    ("[([3], [2]", "could not read"),
    ("__import__('os')", "could not read"),
    ("[3]", "TypeError"),
    ("[([6], [1])]", "1..5"),
    ("[([0], [1])]", "1-based"),
])
def test_custom_garbage_is_shown(fig1, text, needle):
    fig1.custom_text.value = text
    assert needle in fig1.status.value
    assert len(fig1.pieces) == 2


def test_custom_in_constructor_and_api():
    v = DecompositionViewer(FIG1, custom=[([2], [1, 3]), ([1, 3], [0, 4])])
    assert v.decomposition == "custom" and len(v.pieces) == 2
    assert v.custom_text.value == "[([3], [2, 4]), ([2, 4], [1, 5])]"
    w = DecompositionViewer(FIG1, custom=[([3], [1, 2, 4, 5])], one_based=True)
    assert w.pieces[0].B.tolist() == [0, 1, 3, 4]
    with pytest.raises(ValueError, match="condition 1"):
        DecompositionViewer(FIG1, custom=[([0], [2])])
    with pytest.raises(ValueError, match="^decomposition:"):
        DecompositionViewer(FIG1, "custom")             # nothing stored
    with pytest.raises(ValueError, match="^decomposition:"):
        DecompositionViewer(FIG1, "layers")


def test_custom_dropdown_without_custom_reverts(fig1):
    fig1.decomposition_dropdown.value = "custom"
    assert "custom" in fig1.status.value
    assert fig1.decomposition_dropdown.value == "adjacent_layers"
    assert fig1.decomposition == "adjacent_layers"


def test_stored_custom_that_no_longer_fits_is_refused():
    v = DecompositionViewer(FIG1, "all_pairs", custom=[([2], [1, 3])])
    v.set_y([-1, 0, -2, 0, -1])                        # label 3 drops to the bottom
    v.decomposition_dropdown.value = "custom"
    assert "condition 1" in v.status.value
    assert v.decomposition == "all_pairs" == v.decomposition_dropdown.value
    assert len(v.pieces) == len(brute_pairs([-1, 0, -2, 0, -1]))


# ---------------------------------------------------------------- y
@pytest.mark.parametrize("bad", [
    [1.0, 1.0, 1.0], [2.0], [0.0, np.nan, 1.0], [0.0, np.inf], "1, 2, 3",
    ["a", "b"], [], [[1.0, 2.0]], np.arange(40.0),
])
def test_hostile_y_raises_naming_y(fig1, bad):
    edges = drawn_edges(fig1.fig)
    with pytest.raises(ValueError, match="^y:"):
        fig1.set_y(bad)
    np.testing.assert_array_equal(fig1.y, FIG1)
    assert drawn_edges(fig1.fig) == edges
    with pytest.raises(ValueError, match="^y:"):
        DecompositionViewer(bad)


@pytest.mark.parametrize("text, needle", [
    ("1, 1, 1", "all 3 entries are equal"),
    ("1, nan, 2", "NaN"),
    ("1, two, 3", "'two'"),
    ("", "expected comma-separated numbers"),
])
def test_y_text_box_shows_errors(fig1, text, needle):
    edges, title = drawn_edges(fig1.fig), fig1.fig.layout.title.text
    fig1.y_text.value = text                           # must not raise
    shown = html.unescape(fig1.status.value)           # the message as the page shows it
    assert "y:" in shown and needle in shown
    np.testing.assert_array_equal(fig1.y, FIG1)
    assert drawn_edges(fig1.fig) == edges and fig1.fig.layout.title.text == title
    fig1.y_text.value = "3, 1, 2"                      # a good value clears it
    assert fig1.status.value == ""


def test_y_text_box_redraws_everything(fig1):
    fig1.select_piece(1)
    fig1.y_text.value = "1, 2, 3, 3"
    np.testing.assert_array_equal(fig1.y, [1, 2, 3, 3])
    assert fig1.n_nodes == 4 and fig1.n_edges == 5
    assert drawn_edges(fig1.fig) == brute_pairs([1, 2, 3, 3])
    assert len(fig1.pieces) == 2                        # adjacent layers: 3 values
    assert fig1.piece_index == 1 and fig1.piece_slider.max == 2
    assert black_edges(fig1.fig) == {(2, 1)}
    fig1.set_y(np.array([0.0, 5.0]))                   # fewer pieces: last one shown
    assert len(fig1.pieces) == 1 and fig1.piece_index == 0
    assert fig1.y_text.value == "0, 5"
    assert "(0, 5)" in fig1.fig.layout.title.text


def test_y_and_set_scores_length():
    v = DecompositionViewer(FIG1, scores=[1.0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="^y:.*scores"):
        v.set_y([1.0, 2.0])
    v.set_y([1.0, 2.0], scores=[0.5, 0.0])
    np.testing.assert_allclose(v.scores, [0.5, 0.0])
    assert v.total_loss() == pytest.approx(1.5)        # (2 - 1) - (0 - 0.5)


def test_custom_that_no_longer_fits_blocks_y():
    v = DecompositionViewer(FIG1, custom=[([2], [1, 3])])
    with pytest.raises(ValueError, match="^y:.*custom.*condition 1"):
        v.set_y([-1, 0, -2, 0, -1])
    v.y_text.value = "-1, 0, -2, 0, -1"
    assert "condition 1" in v.status.value
    np.testing.assert_array_equal(v.y, FIG1)


# ---------------------------------------------------------------- controls
def test_dropdown_changes_pieces_and_picture():
    v = DecompositionViewer(FIG1, "all_pairs")
    assert len(v.pieces) == 8 and v.piece_slider.max == 8
    assert len(black_edges(v.fig)) == 1
    before = [t.line.color for t in edge_traces(v.fig)]
    v.decomposition_dropdown.value = "adjacent_layers"
    assert len(v.pieces) == 2 and v.piece_slider.max == 2
    assert [t.line.color for t in edge_traces(v.fig)] != before
    assert len(black_edges(v.fig)) == 2
    assert "adjacent layers" in v.fig.layout.title.text
    v.decomposition_dropdown.value = "top_vs_rest"
    assert len(v.pieces) == 1 and len(black_edges(v.fig)) == 4
    assert v.piece_slider.disabled


def test_piece_slider_drives_the_model():
    v = DecompositionViewer(FIG1, "all_pairs")
    v.piece_slider.value = 3                           # third edge of the sorted list
    assert v.piece_index == 2
    p = v.pieces[2]
    assert black_edges(v.fig) == {(int(p.A[0]) + 1, int(p.B[0]) + 1)}
    with pytest.raises(ValueError, match="^j:"):
        v.select_piece(8)
    with pytest.raises(TypeError, match="^j:"):
        v.select_piece(1.0)
    assert v.piece_index == 2


def test_display_protocol(fig1):
    bundle = fig1._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert fig1.fig in fig1.widget.children[0].children
    assert fig1.status in fig1.widget.children[1].children
    assert "d=2" in repr(fig1)


def test_the_browser_gets_the_finished_figure_at_construction():
    """The FigureWidget is built from the finished first picture, so the
    state the browser draws from (``_widget_data``, set at construction)
    holds every edge with its curve; the real-browser test in tests/browser
    showed the edges without coordinates when the traces were replaced on the
    FigureWidget before display."""
    v = DecompositionViewer(FIG1, "adjacent_layers")
    sent = v.fig._widget_data
    assert [t["name"] for t in sent] == [t.name for t in v.fig.data]
    edges = [t for t in sent if t["name"].startswith("edge ")]
    assert len(edges) == v.n_edges == 8
    assert all(len(t["x"]) == len(t["y"]) > 1 for t in edges)
    assert v.fig.layout.title.text.startswith("Feedback graph")
    assert v._edge_traces[0] is v.fig.data[1]             # updates reach the widget
    v.select_piece(1)
    assert {t.name for t in v._edge_traces if t.line.color == "#111111"} == {
        "edge 2→1", "edge 2→5", "edge 4→1", "edge 4→5"}


# ---------------------------------------------------------------- many labels
def test_many_labels_draw_the_adjacency_matrix():
    """Beyond MATRIX_ABOVE labels the graph is its adjacency matrix: a cell
    for exactly the pairs with y_r > y_s (brute force), black (2) for the
    selected piece's A_j x B_j, the max-loss cell framed; back to arrows
    when k shrinks (issue 34, item 2)."""
    from polyrank_widgets.decomposition import MATRIX_ABOVE

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=MATRIX_ABOVE + 6).astype(float)
    f = rng.normal(size=y.size)
    v = DecompositionViewer(y, "adjacent_layers", scores=f)
    assert v.matrix and v.n_nodes == y.size
    order = v.matrix_order
    assert np.all(np.diff(y[order]) <= 0)                   # most preferred first
    names = [str(i + 1) for i in order]
    heat = v._trace("pairs")
    assert list(heat.x) == names and list(heat.y) == names
    for j in range(v.n_pieces):
        v.select_piece(j)
        z = np.asarray(v._trace("pairs").z)
        A, B = v.pieces[j].A, v.pieces[j].B
        for a, r in enumerate(order):
            for b, s in enumerate(order):
                want = 0 if y[r] <= y[s] else (2 if r in A and s in B else 1)
                assert z[a, b] == want, (j, r, s)
        wr, ws = v.worst_edge(j)
        halo = v._trace("max-loss edge")
        violated = (y[wr] - y[ws]) - (f[wr] - f[ws]) > 0
        assert (list(halo.x), list(halo.y)) == (([str(ws + 1)], [str(wr + 1)])
                                                if violated else ([], []))
    assert v.n_edges == int(np.sum(y[:, None] > y[None, :]))
    v.set_y((-1, 0, 2, 0, -1), scores=np.zeros(5))
    assert not v.matrix and v.n_edges == 8 and v.fig.layout.xaxis.type == "linear"
