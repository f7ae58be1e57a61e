"""DecompositionViewer: a preference (feedback) graph, its decomposition into
complete bipartite pieces, and the loss of Eq. 3 piece by piece.

Paper file ``sopopo-label-ranking.txt``, Sec. 2: a target ranking y (k,)
induces the directed graph with an edge r -> s of weight y_r - y_s
whenever y_r > y_s (Fig. 1). A decomposition E(y) = {E_1, ...,
E_d} into complete bipartite pieces E_j = A_j x B_j must satisfy the three
conditions of Sec. 2; Fig. 2 draws three of them (all pairs, adjacent layers,
top layer vs the rest) with the piece in black, the rest in gray, A nodes as
open circles and B nodes as filled circles. The loss of a prediction f (k,)
is ``sum_j sigma_j max_{(r, s) in E_j} l_rs`` (Eq. 3) with the pair hinge
loss ``l_rs = ((y_r - y_s) - (f_r - f_s))_+`` (Eq. 1).

The state (y, the pieces, the selected piece, the scores) and the losses
live in :class:`~polyrank_widgets.decomposition_model.DecompositionModel`,
which asks the core for every piece's loss
(:func:`polyrank.sopopo.piece_loss`); this module is the view: the picture's
geometry is a pure function of y (:func:`_layout_graph`: layers, node
positions, edge routes) and :class:`DecompositionViewer` copies the model's
arrays into a plotly ``FigureWidget`` and its controls. Labels are 0-based in
the Python API (as in :func:`polyrank.sopopo.decompose` and
:class:`polyrank.sopopo.Piece`) and 1-based in the picture and the text
boxes (as in the paper).
"""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as ipw
import numpy as np
import plotly.graph_objects as go
from scipy.spatial import cKDTree

from polyrank.sopopo import feedback_graph, layers

from ._display import WidgetDisplay
from ._layout import fluid, wrap_row
from ._plotly import FigureWidget
from ._text import escape
from .decomposition_model import (
    CUSTOM_EXAMPLE,
    KINDS,
    DecompositionModel,
    _fmt,
    parse_decomposition,
    parse_numbers,
)

__all__ = ["DecompositionViewer"]

_SOURCE = "SOPOPO, Sec. 2, Eq. 1-3, Fig. 1-2"
_TITLES = {"all_pairs": "all pairs", "adjacent_layers": "adjacent layers",
           "top_vs_rest": "top layer vs the rest", "custom": "custom"}
_COLORS = {"black": "#111111", "gray": "#b8b8b8", "gray_text": "#8c8c8c",
           "halo": "rgba(214, 39, 40, 0.30)", "error": "#c62828",
           "weight_bg": "rgba(255, 255, 255, 0.9)"}
#: Figure size (pixels) and margins; node routing is computed in pixels.
_WIDTH, _MARGIN = 820, dict(l=30, r=30, t=128, b=70)
_NODE_SIZE = 30            # marker diameter, pixels
#: beyond this many labels the feedback graph is drawn as its adjacency
#: matrix (k(k-1)/2 arrows between a few columns are a thicket: the 14
#: labels of yeast give up to 49)
MATRIX_ABOVE = 8
_X_TITLE = "layers of equal γ, most preferred (largest γ) on the left"
#: cell values of the matrix view: no edge, edge outside the piece, edge of
#: the piece (white, gray, black)
_CELL_COLORS = [[0.0, "#ffffff"], [0.33, "#ffffff"], [0.33, "#c8c8c8"],
                [0.67, "#c8c8c8"], [0.67, "#111111"], [1.0, "#111111"]]
_CLEARANCE = 26.0          # least distance of an edge from a node it skips, pixels
_N_CURVE = 17              # points per drawn edge


# ---------------------------------------------------------------- model
@dataclass(frozen=True)
class _Graph:
    """Everything the picture needs that depends on y alone."""

    y: np.ndarray            # (k,)
    layers: list             # list of int64 arrays, most preferred first
    pos: np.ndarray          # (k, 2) node positions in data units
    edges: np.ndarray        # (E, 2) 0-based (r, s) with y_r > y_s
    weights: np.ndarray      # (E,) y_r - y_s
    curves: np.ndarray       # (E, _N_CURVE, 2) drawn route of each edge
    label_at: np.ndarray     # (E, 2) where each edge's weight is written
    height: int              # figure height, pixels
    y_range: tuple           # (lo, hi) data units


def _bezier(p0, p1, p2, t):
    t = np.asarray(t)[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2


def _route_edges(P, pos, edges, px):
    """The control point (pixels) and the curve (data units, ``_N_CURVE``
    points) of every edge: straight, or bent as little as lets it clear the
    nodes of in-between columns by ``_CLEARANCE`` pixels (else the most
    clearing bend)."""
    tt = np.linspace(0.0, 1.0, _N_CURVE)
    fine = np.linspace(0.0, 1.0, 97)
    curves = np.empty((edges.shape[0], _N_CURVE, 2))
    ctrl = np.empty((edges.shape[0], 2))
    for e, (r, s) in enumerate(edges):
        p0, p2 = P[r], P[s]
        between = (pos[:, 0] > pos[r, 0]) & (pos[:, 0] < pos[s, 0])
        others = P[between]
        mid = 0.5 * (p0 + p2)
        d = p2 - p0
        normal = np.array([-d[1], d[0]]) / np.hypot(*d)
        best, best_clear = mid, -np.inf
        for b in [0.0] + [sgn * step for step in (0.12, 0.24, 0.36, 0.5, 0.65)
                          for sgn in (1.0, -1.0)]:
            p1 = mid + b * np.hypot(*d) * normal
            if others.shape[0] == 0:
                best = p1
                break
            pts = _bezier(p0, p1, p2, fine)
            clear = np.min(np.hypot(*(pts[:, None, :] - others[None, :, :]).T))
            if clear >= _CLEARANCE:
                best = p1
                break
            if clear > best_clear:
                best, best_clear = p1, clear
        ctrl[e] = best
        curves[e] = _bezier(p0, best, p2, tt) / px
    return ctrl, curves


def _place_weight_labels(P, ctrl, edges, px):
    """Where every edge's weight label goes (data units)."""
    # weight labels: the first candidate point clear of nodes (24 px), of the
    # labels already placed (24 px) and of every other edge (10 px); else the
    # candidate with the largest relative clearance
    n_e = edges.shape[0]
    coarse = np.linspace(0.0, 1.0, 33)
    route_pts = np.concatenate([_bezier(P[r], ctrl[e], P[s], coarse)
                                for e, (r, s) in enumerate(edges)])
    route_id = np.repeat(np.arange(n_e), coarse.size)
    tree = cKDTree(route_pts)
    n_near = min(route_pts.shape[0], 2 * coarse.size)
    placed = np.empty((n_e, 2))
    label_at = np.empty((n_e, 2))
    cands = np.array([0.5, 0.4, 0.6, 0.3, 0.7, 0.25, 0.75, 0.2, 0.8])
    for e, (r, s) in enumerate(edges):
        pts = _bezier(P[r], ctrl[e], P[s], cands)
        to_nodes = np.hypot(*(pts[:, None, :] - P[None, :, :]).T).min(axis=0)
        to_labels = (np.hypot(*(pts[:, None, :] - placed[None, :e, :]).T).min(axis=0)
                     if e else np.full(cands.size, np.inf))
        dist, idx = tree.query(pts, k=n_near)
        dist, idx = np.atleast_2d(dist), np.atleast_2d(idx)
        foreign = route_id[np.minimum(idx, route_pts.shape[0] - 1)] != e
        to_edges = np.where(foreign, dist, np.inf).min(axis=1)
        margin = np.minimum.reduce([to_nodes / 24.0, to_labels / 24.0, to_edges / 10.0])
        ok = np.flatnonzero(margin >= 1.0)
        pick = ok[0] if ok.size else int(np.argmax(margin))
        placed[e] = pts[pick]
        label_at[e] = pts[pick] / px
    return label_at


def _layout_graph(y: np.ndarray) -> _Graph:
    """Place the labels in columns of equal y (largest y on the left,
    labels of a column top to bottom in increasing order) and route every edge
    r -> s (Fig. 1). An edge that would pass through a node of an in-between
    column is bent (quadratic Bezier) until it clears every node by
    ``_CLEARANCE`` pixels; each weight label is put where it is farthest from
    nodes and earlier labels."""
    lay = layers(y)
    k, n_lay = y.size, len(lay)
    widest = max(m.size for m in lay)
    height = int(max(540, 230 + 70 * widest))
    pos = np.zeros((k, 2))
    for t, members in enumerate(lay):
        pos[members, 0] = t
        pos[members, 1] = (members.size - 1) / 2.0 - np.arange(members.size)
    y_lo, y_hi = -(widest - 1) / 2.0 - 0.55, (widest - 1) / 2.0 + 0.55
    x_lo, x_hi = -0.35, n_lay - 1 + 0.35
    # data -> pixel scale, so that clearances and label spacing are in pixels
    plot_w = _WIDTH - _MARGIN["l"] - _MARGIN["r"]
    plot_h = height - _MARGIN["t"] - _MARGIN["b"]
    px = np.array([plot_w / (x_hi - x_lo), plot_h / (y_hi - y_lo)])
    P = pos * px
    edges, weights = feedback_graph(y)
    ctrl, curves = _route_edges(P, pos, edges, px)
    label_at = _place_weight_labels(P, ctrl, edges, px)
    return _Graph(y=y, layers=lay, pos=pos, edges=edges, weights=weights,
                  curves=curves, label_at=label_at,
                  height=height, y_range=(y_lo, y_hi))


def _graph_traces(gr: _Graph) -> list:
    """The traces of the graph view: the max-loss halo, one arrow per edge
    (width by weight), the legend entries and the node layers (gray, A, B)."""
    hidden = dict(x=[None], y=[None])
    traces = [go.Scatter(name="max-loss edge", mode="lines", hoverinfo="skip",
                         line=dict(color=_COLORS["halo"], width=14),
                         showlegend=True, legendrank=3)]
    wmax = float(gr.weights.max())
    head = [0] * (_N_CURVE - 1)
    for e, ((r, s), w, c) in enumerate(zip(gr.edges, gr.weights, gr.curves)):
        width = 1.3 + 2.7 * w / wmax
        # the arrowhead is a marker on the last point, turned along the
        # last segment and pulled back to the rim of the head's circle
        traces.append(go.Scatter(
            name=f"edge {r + 1}→{s + 1}", x=c[:, 0], y=c[:, 1],
            mode="lines+markers", showlegend=False,
            meta=dict(e=e, r=int(r), s=int(s), weight=float(w)),
            line=dict(color=_COLORS["gray"], width=width),
            marker=dict(symbol="arrow", angleref="previous", color=_COLORS["gray"],
                        size=head + [10 + 2 * width], standoff=_NODE_SIZE / 2,
                        opacity=1.0, line_width=0)))
    traces += [
        go.Scatter(name="piece edges (black)", mode="lines", hoverinfo="skip",
                   line=dict(color=_COLORS["black"], width=2.5), legendrank=1,
                   **hidden),
        go.Scatter(name="other edges (gray)", mode="lines", hoverinfo="skip",
                   line=dict(color=_COLORS["gray"], width=2.5), legendrank=2,
                   **hidden),
        go.Scatter(name="label background", mode="markers", hoverinfo="skip",
                   x=gr.pos[:, 0], y=gr.pos[:, 1], showlegend=False,
                   marker=dict(color="white", size=_NODE_SIZE, line_width=0)),
        go.Scatter(name="not in piece (gray)", mode="markers+text", legendrank=6,
                   textfont=dict(color=_COLORS["gray_text"], size=14),
                   marker=dict(symbol="circle-open", color=_COLORS["gray"],
                               size=_NODE_SIZE, line=dict(width=2))),
        go.Scatter(name="A (open circles)", mode="markers+text", legendrank=4,
                   textfont=dict(color=_COLORS["black"], size=14),
                   marker=dict(symbol="circle-open", color=_COLORS["black"],
                               size=_NODE_SIZE, line=dict(width=2.5))),
        go.Scatter(name="B (filled circles)", mode="markers+text", legendrank=5,
                   textfont=dict(color="white", size=14),
                   marker=dict(symbol="circle", color=_COLORS["black"],
                               size=_NODE_SIZE, line=dict(width=0))),
    ]
    return traces


def _weight_annotations(gr: _Graph) -> list:
    """One annotation per edge: its weight, at ``gr.label_at``."""
    return [dict(name=f"weight {r + 1}→{s + 1}", x=gr.label_at[e, 0],
                 y=gr.label_at[e, 1], xref="x", yref="y", text=_fmt(w),
                 showarrow=False, bgcolor=_COLORS["weight_bg"], borderpad=1,
                 font=dict(size=12, color=_COLORS["gray_text"]))
            for e, ((r, s), w) in enumerate(zip(gr.edges, gr.weights))]


#: table cells of the readouts: padded, so that "-10" and "11.2" do not run together
_TD = "style='padding:1px 10px 1px 0;text-align:right'"


def _fmt_vec(v) -> str:
    return ", ".join(f"{float(x):.12g}" for x in v)


def _set1(labels) -> str:
    """0-based labels as the paper's 1-based set, e.g. {2, 4}."""
    return "{" + ", ".join(str(int(a) + 1) for a in labels) + "}"


# ---------------------------------------------------------------- view
def _of_model(name: str, doc: str) -> property:
    """A read-only property of the viewer that returns ``self.model.<name>``."""
    return property(lambda self: getattr(self.model, name), doc=doc)


class DecompositionViewer(WidgetDisplay):
    """The feedback graph of a target ranking y (Fig. 1), one of its
    decompositions into complete bipartite pieces A_j x B_j (Fig. 2) and the
    loss of Eq. 3, piece by piece.

    Source: ``sopopo-label-ranking.txt``, Sec. 2: Eq. 1 (pair loss), Eq. 2-3
    (pieces and the loss), the three conditions on a decomposition, Fig. 1
    (graph of y = (-1, 0, 2, 0, -1)) and Fig. 2 (all pairs, adjacent
    layers, top layer vs the rest).

    Labels are drawn with the paper's 1-based names ``"1"`` .. ``"k"`` in
    columns of equal y, the most preferred (largest y) on the left;
    every edge r -> s (y_r > y_s) is an arrow whose width grows with
    its weight y_r - y_s, written on it. The selected piece's edges
    and labels are black, the rest gray; A_j labels are open circles and B_j
    labels filled circles. The edge attaining the piece's max loss has a red
    halo (none when the piece's loss is zero because every pair is satisfied).
    With more than :data:`MATRIX_ABOVE` labels the graph is drawn as its
    adjacency matrix instead: row r, column s (labels ordered by y, most
    preferred first), a cell for every edge r -> s, black if in the piece,
    gray if not, the max-loss cell framed in red.

    Parameters
    ----------
    y, decomposition, W, x, scores, custom, one_based, normalize, piece, max_labels
        The first state shown: the parameters of
        :class:`~polyrank_widgets.decomposition_model.DecompositionModel`
        (``custom`` is offered as ``"custom"`` in the dropdown, ``piece`` is
        the piece shown first, and every edge is drawn: k(k-1)/2 at most).

    Attributes
    ----------
    model : polyrank_widgets.decomposition_model.DecompositionModel
        The state the viewer shows (y, pieces, selected piece, scores)
        and the losses, computed by :func:`polyrank.sopopo.piece_loss`; no
        widgets. The setters below change it and redraw.
    fig : plotly.graph_objects.FigureWidget
        With at most :data:`MATRIX_ABOVE` labels: one line trace per edge,
        named ``"edge r→s"`` (1-based), black
        (``"#111111"``) if in the selected piece else gray; marker traces
        ``"A (open circles)"``, ``"B (filled circles)"`` and ``"not in piece
        (gray)"`` holding the labels; ``"label background"`` (white discs
        under every label); ``"max-loss edge"`` (red halo along the edge of
        :meth:`worst_edge`, empty if that pair is satisfied); and legend-only
        traces ``"piece edges (black)"``, ``"other edges (gray)"``. Layout
        annotations named ``"weight r→s"`` (the edge weights, in the order
        of the edge traces). Each edge trace ends in an ``"arrow"`` marker.
        With more labels: a heat map ``"pairs"`` (z = 0 no edge, 1 edge not
        in the piece, 2 edge of the piece; rows r, columns s, in the order
        of :attr:`matrix_order`), a marker trace ``"max-loss edge"`` and
        the legend-only traces.
    widget : ipywidgets.HBox
        The figure next to the controls; what Jupyter shows.
    y_text : ipywidgets.Text
        Comma-separated y; Enter calls :meth:`set_y`.
    decomposition_dropdown : ipywidgets.Dropdown
        Values ``"all_pairs"``, ``"adjacent_layers"``, ``"top_vs_rest"``,
        ``"custom"``.
    custom_text : ipywidgets.Text
        A custom decomposition in 1-based labels, e.g.
        ``[([3], [2, 4]), ([2, 4], [1, 5])]``; read with
        :func:`ast.literal_eval`.
    piece_slider : ipywidgets.IntSlider
        The piece shown, 1-based (1 .. d).
    normalize_checkbox : ipywidgets.Checkbox
        sigma_j = 1/d when ticked.
    scores_text : ipywidgets.Text
        Comma-separated scores f; Enter calls :meth:`set_scores`.
    readout : ipywidgets.HTML
        d, A_j, B_j, sigma_j, the piece's loss and the edge attaining it, the
        total loss of Eq. 3 and a table of all pieces.
    status : ipywidgets.HTML
        Empty, or the message of the last rejected input from a control.

    Raises
    ------
    ValueError
        If ``y`` is invalid (the message starts with ``"y:"``), the
        decomposition is unknown or violates a condition of Sec. 2 (the
        message names the condition), or ``W``, ``x``, ``scores``, ``piece``,
        ``max_labels`` are invalid (naming the argument).
    TypeError
        If a custom piece is not a tuple of 2 or 3 entries, or ``W``, ``x``,
        ``scores`` are not real arrays.

    See Also
    --------
    polyrank.sopopo.feedback_graph, polyrank.sopopo.decompose,
    polyrank.sopopo.check_decomposition

    Examples
    --------
    >>> v = DecompositionViewer((-1, 0, 2, 0, -1), "adjacent_layers")
    >>> len(v.pieces), v.n_nodes, v.n_edges
    (2, 5, 8)
    >>> v.piece_loss(0), v.total_loss()      # f = 0: sigma_j * max weight
    (2.0, 3.0)
    >>> v.set_decomposition("all_pairs"); len(v.pieces)
    8
    """

    def __init__(self, y=(-1, 0, 2, 0, -1), decomposition=None, W=None, x=None,
                 *, scores=None, custom=None, one_based: bool = False,
                 normalize: bool = False, piece: int = 0,
                 max_labels: int = 30) -> None:
        self.model = DecompositionModel(y, decomposition, W, x, scores=scores,
                                        custom=custom, one_based=one_based,
                                        normalize=normalize, piece=piece,
                                        max_labels=max_labels)
        self._syncing = False
        self._graph = _layout_graph(self.model.y)
        # the first picture is drawn on a plain Figure and the FigureWidget is
        # built from it: its construction state is what the browser draws
        # (traces replaced before the widget is shown reached JupyterLab
        # without their coordinates; tests/browser)
        self.fig = go.Figure(layout=self._base_layout())
        self._build_controls()
        self._rebuild()
        self.fig = FigureWidget(self.fig)
        self._edge_traces = [t for t in self.fig.data if t.name.startswith("edge ")]
        self.widget = wrap_row(fluid(self.fig), self._controls)
        self._sync_controls()

    # ------------------------------------------------------------ builders
    def _base_layout(self) -> go.Layout:
        return go.Layout(
            template="plotly_white", width=_WIDTH, height=self._graph.height,
            margin=_MARGIN, hovermode="closest", showlegend=True,
            legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left",
                        x=0.0, font=dict(size=12), itemwidth=30),
            xaxis=dict(showgrid=False, zeroline=False, fixedrange=True,
                       title=dict(text=_X_TITLE, standoff=8),
                       ticks="", tickfont=dict(size=13)),
            yaxis=dict(visible=False, fixedrange=True),
        )

    def _build_controls(self) -> None:
        wide = ipw.Layout(width="360px")
        style = {"description_width": "112px"}
        self.y_text = ipw.Text(description="γ", continuous_update=False,
                               placeholder="e.g. -1, 0, 2, 0, -1",
                               layout=wide, style=style)
        self.decomposition_dropdown = ipw.Dropdown(
            options=[(_TITLES[kd], kd) for kd in KINDS], description="decomposition",
            layout=wide, style=style)
        self.custom_text = ipw.Text(description="custom (A, B)", continuous_update=False,
                                    placeholder=CUSTOM_EXAMPLE, layout=wide, style=style)
        self.piece_slider = ipw.IntSlider(min=1, max=1, value=1, description="piece j",
                                          continuous_update=True, layout=wide,
                                          style=style)
        self.piece_label = ipw.HTML(layout=ipw.Layout(width="360px"))
        self.normalize_checkbox = ipw.Checkbox(description="σ_j = 1/d (average loss)",
                                               indent=False, layout=wide)
        self.scores_text = ipw.Text(description="scores f", continuous_update=False,
                                    placeholder="comma-separated, one per label",
                                    layout=wide, style=style)
        self.readout = ipw.HTML(layout=ipw.Layout(width="360px"))
        self.status = ipw.HTML(layout=ipw.Layout(width="360px"))
        self.y_text.observe(self._on_y_text, names="value")
        self.decomposition_dropdown.observe(self._on_dropdown, names="value")
        self.custom_text.observe(self._on_custom_text, names="value")
        self.piece_slider.observe(self._on_piece, names="value")
        self.normalize_checkbox.observe(self._on_normalize, names="value")
        self.scores_text.observe(self._on_scores_text, names="value")
        self._controls = ipw.VBox([self.y_text, self.decomposition_dropdown,
                                   self.custom_text, self.normalize_checkbox,
                                   self.piece_slider, self.piece_label, self.scores_text,
                                   self.status, self.readout])

    # ------------------------------------------------------------ state
    # read-only views of the model (copies where the model gives copies)
    y = _of_model("y", "Current target ranking, shape (k,) (a copy).")
    k = _of_model("k", "Number of labels.")
    scores = _of_model("scores", "Current scores f, shape (k,) (a copy; zeros unless set).")
    decomposition = _of_model(
        "decomposition", 'Kind of the current decomposition: one of ``"all_pairs"``, '
        '``"adjacent_layers"``, ``"top_vs_rest"``, ``"custom"``.')
    normalize = _of_model("normalize",
                          'Whether sigma_j is divided by d (Sec. 2, "average" loss).')
    pieces = _of_model("pieces", "The pieces E_j = A_j x B_j, 0-based labels (copies: "
                                 "editing them does not change the viewer).")
    n_pieces = _of_model("n_pieces", "d, the number of pieces.")
    piece_index = _of_model("piece_index", "0-based index j of the selected piece (the "
                                           "slider shows j + 1).")
    edges = _of_model("edges", "Edges of the feedback graph, (E, 2) 0-based (r, s) (a copy).")

    @property
    def matrix(self) -> bool:
        """True when the graph is drawn as its adjacency matrix (more than
        :data:`MATRIX_ABOVE` labels)."""
        return self.model.k > MATRIX_ABOVE

    @property
    def matrix_order(self) -> np.ndarray:
        """0-based labels in the order of the matrix's rows and columns:
        decreasing y (most preferred first), ties by label."""
        return np.argsort(-self.model.y, kind="stable")

    @property
    def n_nodes(self) -> int:
        """Number of labels drawn (A, B and gray markers together; the
        matrix's rows)."""
        if self.matrix:
            return len(self._trace("pairs").y)
        return sum(len(self._trace(n).x) for n in
                   ("A (open circles)", "B (filled circles)", "not in piece (gray)"))

    @property
    def n_edges(self) -> int:
        """Number of feedback-graph edges drawn (traces named ``"edge ..."``;
        the non-empty cells of the matrix)."""
        if self.matrix:
            return int(np.count_nonzero(np.asarray(self._trace("pairs").z) > 0))
        return sum(1 for t in self.fig.data if t.name.startswith("edge "))

    def piece_loss(self, j: int) -> float:
        """Loss of piece j, ``sigma_j max_{(r,s) in A_j x B_j} l_rs`` (Eq. 1,
        3): :meth:`DecompositionModel.piece_loss` of ``model`` (parameters,
        return value and errors as there)."""
        return self.model.piece_loss(j)

    def worst_edge(self, j: int) -> tuple[int, int]:
        """The 0-based edge (r, s) of piece j with the largest
        ``(y_r - y_s) - (f_r - f_s)`` (it attains the max of Eq. 3;
        the first in A_j x B_j order on ties). Raises as :meth:`piece_loss`."""
        return self.model.worst_edge(j)

    def total_loss(self) -> float:
        """The loss of Eq. 3, ``sum_j sigma_j max_{(r,s) in E_j} l_rs``, over
        all d pieces (units of y)."""
        return self.model.total_loss()

    # ------------------------------------------------------------ setters
    def set_y(self, y, *, scores=None) -> None:
        """Set the target ranking and redraw; the decomposition (of the same
        kind) and the piece follow (the piece index is kept when it exists,
        else the last piece is shown).

        Parameters
        ----------
        y : array_like, shape (k,)
            Finite real numbers, at least two distinct, k <= max_labels.
        scores : array_like, shape (k,), optional
            New scores f. Needed when k changes and scores were set (by
            ``scores``, ``W`` and ``x`` or :meth:`set_scores`); default zero
            scores follow k.

        Raises
        ------
        ValueError
            As :meth:`DecompositionModel.set_y
            <polyrank_widgets.decomposition_model.DecompositionModel.set_y>`
            (naming ``y`` or ``scores``). Nothing changes on error.
        """
        self.model.set_y(y, scores=scores)
        self._graph = _layout_graph(self.model.y)
        self._rebuild()
        self._sync_controls()

    def set_decomposition(self, decomposition, *, one_based: bool = False) -> None:
        """Choose the decomposition and redraw (what the dropdown and the
        custom text box call): :meth:`DecompositionModel.set_decomposition`
        (parameters and errors as there), then the figure and the controls
        follow."""
        self.model.set_decomposition(decomposition, one_based=one_based)
        self._render()
        self._sync_controls()

    def set_normalize(self, normalize: bool) -> None:
        """Use sigma_j = 1/d or the decomposition's own sigmas, and redraw:
        :meth:`DecompositionModel.set_normalize` (errors as there)."""
        self.model.set_normalize(normalize)
        self._render()
        self._sync_controls()

    def select_piece(self, j: int) -> None:
        """Highlight piece j (0-based; the slider shows j + 1) and redraw:
        :meth:`DecompositionModel.select_piece` (errors as there)."""
        self.model.select_piece(j)
        self._render()
        self._sync_controls()

    def set_scores(self, f=None, *, W=None, x=None) -> None:
        """Set the scores f (k,), or f = W x, and update the loss readout
        (Eq. 1, 3): :meth:`DecompositionModel.set_scores` (parameters and
        errors as there)."""
        self.model.set_scores(f, W=W, x=x)
        self._render()
        self._sync_controls()


    # ------------------------------------------------------------ plumbing
    def _sync_controls(self) -> None:
        m = self.model
        d, j, custom = m.n_pieces, m.piece_index, m.custom
        with self._sync():
            self.y_text.value = _fmt_vec(m.y)
            self.decomposition_dropdown.value = m.decomposition
            if custom is not None:
                self.custom_text.value = "[" + ", ".join(
                    f"({(p.A + 1).tolist()}, {(p.B + 1).tolist()}"
                    + ("" if p.sigma == 1.0 else f", {p.sigma:.12g}") + ")"
                    for p in custom) + "]"
            self.normalize_checkbox.value = m.normalize
            self.piece_slider.max = max(d, 1)
            self.piece_slider.value = j + 1
            self.piece_slider.disabled = d == 1
            self.scores_text.value = _fmt_vec(m.scores)
        self.piece_label.value = (f"<span style='margin-left:118px'>piece {j + 1} "
                                  f"of d = {d}</span>")

    def _show_error(self, exc: Exception) -> None:
        self.status.value = (f"<div style='color:{_COLORS['error']};white-space:normal'>"
                             f"<b>{escape(type(exc).__name__)}</b>: {escape(exc)}"
                             "</div>")

    def _clear_error(self) -> None:
        self.status.value = ""

    def _guard(self, action) -> bool:
        try:
            action()
        except (ValueError, TypeError) as exc:
            self._show_error(exc)
            return False
        self._clear_error()
        return True

    def _on_y_text(self, change) -> None:
        if not self._syncing:
            self._guard(lambda: self.set_y(parse_numbers(change["new"], "y")))

    def _on_scores_text(self, change) -> None:
        if not self._syncing:
            self._guard(lambda: self.set_scores(parse_numbers(change["new"], "scores")))

    def _on_custom_text(self, change) -> None:
        if not self._syncing:
            self._guard(lambda: self.set_decomposition(
                self._parse_custom(change["new"]), one_based=True))

    def _on_dropdown(self, change) -> None:
        if self._syncing:
            return
        kind = change["new"]
        if kind == "custom" and self.model.custom is None:
            if self.custom_text.value.strip():
                ok = self._guard(lambda: self.set_decomposition(
                    self._parse_custom(self.custom_text.value), one_based=True))
            else:
                self._show_error(ValueError(
                    "decomposition: type a custom decomposition in 1-based labels "
                    f"into the box 'custom (A, B)' first, e.g. {CUSTOM_EXAMPLE}"))
                ok = False
        else:
            ok = self._guard(lambda: self.set_decomposition(kind))
        if not ok:                            # the dropdown shows the model's kind
            with self._sync():
                self.decomposition_dropdown.value = self.model.decomposition

    def _on_piece(self, change) -> None:
        if not self._syncing:
            self._guard(lambda: self.select_piece(int(change["new"]) - 1))

    def _on_normalize(self, change) -> None:
        if not self._syncing:
            self._guard(lambda: self.set_normalize(bool(change["new"])))

    @staticmethod
    @staticmethod
    def _parse_custom(text: str):
        """:func:`~polyrank_widgets.decomposition_model.parse_decomposition`."""
        return parse_decomposition(text)

    # ------------------------------------------------------------ rendering
    def _trace(self, name: str):
        for t in self.fig.data:
            if t.name == name:
                return t
        raise KeyError(name)

    def _rebuild(self) -> None:
        """Replace every trace and annotation (the graph changed) and redraw."""
        if self.matrix:
            self._rebuild_matrix()
            return
        gr = self._graph
        traces = _graph_traces(gr)
        weights = _weight_annotations(gr)
        lay = gr.layers
        with self.fig.batch_update():
            self.fig.data = ()
            self.fig.add_traces(traces)
            self.fig.layout.annotations = weights
            self.fig.layout.height = gr.height
            self.fig.layout.xaxis.update(
                type="linear", autorange=False, range=[-0.35, len(lay) - 1 + 0.35],
                tickvals=list(range(len(lay))), title=dict(text=_X_TITLE),
                ticktext=[f"γ = {_fmt(gr.y[m[0]])}" for m in lay])
            self.fig.layout.yaxis.update(type="linear", visible=False, autorange=False,
                                         range=list(gr.y_range), title=None)
            self._edge_traces = [t for t in self.fig.data if t.name.startswith("edge ")]
            self._drawn = [None] * len(self._edge_traces)   # (in piece, hover) drawn
            self._render()

    def _render(self) -> None:
        """Redraw the piece-dependent parts: edge colours (only those that
        change), label symbols, the max-loss halo, title and readout."""
        if self.matrix:
            self._render_matrix()
            return
        m, gr = self.model, self._graph
        g, f, j, kind = m.y, m.scores, m.piece_index, m.decomposition
        pieces = m.pieces
        piece, d = pieces[j], len(pieces)
        losses = m.losses()                      # polyrank.sopopo.piece_loss
        loss, (wr, ws) = losses[j].loss, losses[j].edge
        r_all, s_all = gr.edges[:, 0], gr.edges[:, 1]
        raw = m.edge_violations()
        in_piece = m.in_piece(j)
        worst = int(np.flatnonzero((r_all == wr) & (s_all == ws))[0])
        node_hover = ("label %{text}<br>γ = %{customdata[0]:.4g}<br>"
                      "f = %{customdata[1]:.4g}<extra>%{fullData.name}</extra>")

        def nodes(mask):
            idx = np.flatnonzero(mask)
            return dict(x=gr.pos[idx, 0], y=gr.pos[idx, 1],
                        text=[str(i + 1) for i in idx],
                        customdata=np.stack([g[idx], f[idx]], axis=1),
                        hovertemplate=node_hover, textposition="middle center")

        labels = np.arange(m.k)
        is_a, is_b = np.isin(labels, piece.A), np.isin(labels, piece.B)
        total = float(sum(pl.loss for pl in losses))
        with self.fig.batch_update():
            self._set_title(j, d, kind, piece, loss, wr, ws, total)
            for e, t in enumerate(self._edge_traces):
                hover = (f"edge {t.meta['r'] + 1} → {t.meta['s'] + 1}<br>"
                         f"weight γ_r − γ_s = {_fmt(t.meta['weight'])}<br>"
                         f"ℓ_rs (Eq. 1) = {_fmt(max(raw[e], 0.0))}<br>"
                         + (f"in piece {j + 1}" if in_piece[e] else "not in piece")
                         + "<extra></extra>")
                state = (bool(in_piece[e]), hover)
                if self._drawn[e] == state:
                    continue
                color = _COLORS["black"] if in_piece[e] else _COLORS["gray"]
                t.update(line_color=color, marker_color=color, hovertemplate=hover)
                self.fig.layout.annotations[e].font.color = (
                    color if in_piece[e] else _COLORS["gray_text"])
                self._drawn[e] = state
            # the halo marks a violated pair only: none when every pair of
            # the piece is satisfied
            halo = gr.curves[worst] if raw[worst] > 0 else np.empty((0, 2))
            self._trace("max-loss edge").update(x=halo[:, 0], y=halo[:, 1])
            self._trace("A (open circles)").update(**nodes(is_a))
            self._trace("B (filled circles)").update(**nodes(is_b))
            self._trace("not in piece (gray)").update(**nodes(~(is_a | is_b)))
        self.readout.value = self._readout_html(pieces, losses, total)

    def _set_title(self, j, d, kind, piece, loss, wr, ws, total) -> None:
        gam = ", ".join(_fmt(v) for v in self.model.y)
        title = (f"Feedback graph of γ = ({gam}):  {_TITLES[kind]}, "
                 f"piece {j + 1} of d = {d}")
        sets = (f"A = rows {_set1(piece.A)}, B = columns {_set1(piece.B)}" if self.matrix
                else f"A = {_set1(piece.A)} open, B = {_set1(piece.B)} filled")
        subtitle = (f"{sets}, σ = {_fmt(piece.sigma)};  loss σ·max ℓ = {_fmt(loss)} at "
                    f"{wr + 1}→{ws + 1};  Eq. 3 total = {_fmt(total)}"
                    f"  ·  {_SOURCE}")
        self.fig.layout.title = dict(
            # one title with two lines, not a plotly subtitle (see
            # KnotExplorer._render: subtitles overlap in JupyterLab)
            text=f"{title}<br><span style='font-size:12px'>{subtitle}</span>",
            x=0.0, xanchor="left", xref="paper", y=0.975, yanchor="top",
            yref="container", font=dict(size=16))

    # ------------------------------------------------------------ matrix view
    def _rebuild_matrix(self) -> None:
        """The adjacency matrix of the feedback graph (k > MATRIX_ABOVE):
        one heat map, the red frame of the max-loss cell, the legend."""
        k = self.model.k
        names = [str(i + 1) for i in self.matrix_order]
        hidden = dict(x=[None], y=[None])
        traces = [
            go.Heatmap(name="pairs", x=names, y=names, z=np.zeros((k, k)), zmin=0, zmax=2,
                       colorscale=_CELL_COLORS, showscale=False, xgap=1, ygap=1,
                       hovertemplate="%{customdata}<extra></extra>"),
            go.Scatter(name="max-loss edge", mode="markers", hoverinfo="skip",
                       marker=dict(symbol="square-open", size=max(10, 300 // k),
                                   color="#d62728", line=dict(width=3)),
                       showlegend=True, legendrank=3),
            go.Scatter(name="piece edges (black)", mode="markers", hoverinfo="skip",
                       marker=dict(symbol="square", size=12, color=_COLORS["black"]),
                       legendrank=1, **hidden),
            go.Scatter(name="other edges (gray)", mode="markers", hoverinfo="skip",
                       marker=dict(symbol="square", size=12, color="#c8c8c8"),
                       legendrank=2, **hidden),
        ]
        with self.fig.batch_update():
            self.fig.data = ()
            self.fig.add_traces(traces)
            self.fig.layout.annotations = ()
            self.fig.layout.height = int(max(540, 260 + 22 * k))
            self.fig.layout.xaxis.update(
                type="category", range=None, autorange=True, tickvals=None, ticktext=None,
                title=dict(text="s: less preferred label (γ decreasing →)"))
            self.fig.layout.yaxis.update(
                visible=True, type="category", range=None, autorange="reversed",
                title=dict(text="r: preferred label"))
            self._edge_traces, self._drawn = [], []
            self._render_matrix()

    def _render_matrix(self) -> None:
        """Cell values and hover texts of the selected piece, the red frame
        of its max-loss edge (when violated), the title and the readout."""
        m = self.model
        where = np.empty(m.k, dtype=np.int64)
        where[self.matrix_order] = np.arange(m.k)
        pieces, j = m.pieces, m.piece_index
        losses = m.losses()
        loss, (wr, ws) = losses[j].loss, losses[j].edge
        edges, raw, in_piece = m.edges, m.edge_violations(), m.in_piece(j)
        z = np.zeros((m.k, m.k))
        text = np.full((m.k, m.k), "", dtype=object)
        for r, s in np.ndindex(m.k, m.k):
            text[where[r], where[s]] = f"{r + 1} → {s + 1}: no edge (γ_r ≤ γ_s)"
        for e, (r, s) in enumerate(edges):
            z[where[r], where[s]] = 2.0 if in_piece[e] else 1.0
            text[where[r], where[s]] = (
                f"edge {r + 1} → {s + 1}<br>weight γ_r − γ_s = {_fmt(m.y[r] - m.y[s])}"
                f"<br>ℓ_rs (Eq. 1) = {_fmt(max(raw[e], 0.0))}<br>"
                + (f"in piece {j + 1}" if in_piece[e] else "not in piece"))
        worst = int(np.flatnonzero((edges[:, 0] == wr) & (edges[:, 1] == ws))[0])
        total = float(sum(pl.loss for pl in losses))
        with self.fig.batch_update():
            self._trace("pairs").update(z=z, customdata=text)
            halo = ([str(ws + 1)], [str(wr + 1)]) if raw[worst] > 0 else ([], [])
            self._trace("max-loss edge").update(x=halo[0], y=halo[1])
            self._set_title(j, len(pieces), m.decomposition, pieces[j], loss, wr, ws, total)
        self.readout.value = self._readout_html(pieces, losses, total)

    def _readout_html(self, pieces: list, losses: list, total: float) -> str:
        j, kind = self.model.piece_index, self.model.decomposition
        piece, (loss, (wr, ws), viol) = pieces[j], losses[j]
        sat = (" (every pair satisfied: f_r − f_s ≥ γ_r − γ_s)" if viol <= 0 else "")
        rows = []
        for i, (p, pl) in enumerate(zip(pieces, losses)):
            ri, si = pl.edge
            style = " style='font-weight:bold;background:#eee'" if i == j else ""
            rows.append(f"<tr{style}><td {_TD}>{i + 1}</td><td {_TD}>{_set1(p.A)}</td>"
                        f"<td {_TD}>{_set1(p.B)}</td><td {_TD}>{_fmt(p.sigma)}</td>"
                        f"<td {_TD}>{_fmt(pl.loss)}</td><td {_TD}>{ri + 1}→{si + 1}</td></tr>")
        return (
            "<div style='font-family:monospace;line-height:1.45'>"
            f"<b>d</b> = {len(pieces)} pieces ({_TITLES[kind]})<br>"
            f"<b>piece {j + 1}</b>: A = {_set1(piece.A)}, B = {_set1(piece.B)}, "
            f"|A||B| = {piece.n_edges} edges<br>"
            f"σ<sub>{j + 1}</sub> = {_fmt(piece.sigma)}<br>"
            f"loss σ·max ℓ<sub>rs</sub> = {_fmt(piece.sigma)}·{_fmt(max(viol, 0.0))} = "
            f"<b>{_fmt(loss)}</b>, at edge {wr + 1}→{ws + 1}{sat}<br>"
            f"total loss (Eq. 3) = <b>{_fmt(total)}</b><br>"
            "<div style='max-height:220px;overflow-y:auto;margin-top:4px'>"
            "<table style='border-collapse:collapse'>"
            + "<tr>" + "".join(f"<th {_TD}>{h}</th>" for h in ("j", "A", "B", "σ", "loss",
                                                                "max at")) + "</tr>"
            + "".join(rows) + "</table></div></div>")

    def __repr__(self) -> str:
        m = self.model
        return (f"DecompositionViewer(k={m.k}, decomposition={m.decomposition!r}, "
                f"d={m.n_pieces}, piece={m.piece_index})")
