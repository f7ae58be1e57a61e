"""The figures of the ``ordinal`` experiments (``row-column-generation-ordinal.txt``): one
function per experiment, drawing its :class:`~polyrank_paper.ExperimentResult`
(compute in :mod:`polyrank_paper`, draw here).

Every builder takes the :class:`~polyrank_paper.ExperimentResult` of
its experiment and returns a new ``plotly.graph_objects.Figure``; it reads
``rows``, ``summary``, ``table_rows`` or ``data`` and computes nothing but
the drawing's geometry (the contour lines of ``curves``, by contourpy).
"""

from __future__ import annotations

import contourpy
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from polyrank_widgets.utils import escape

#: colours of the quality labels 3..8 (labels 0..5)
_QUALITY_COLORS = ("#7f3b08", "#d95f02", "#e6ab02", "#66a61e", "#1b9e77", "#386cb0")

__all__ = ["fig4", "table1", "table2", "curves"]


def fig4(res) -> go.Figure:
    """Fig. 4: stacked time per sub-problem (generation, solve, violated search).

    Draws the result of ``ordinal-fig4`` (``row-column-generation-ordinal.txt``).
    """
    rows, name = res.rows, escape(res.summary.instance)
    x = [r.iteration for r in rows]
    fig = go.Figure()
    for key, label, color in (("gen_s", "GenTime (generate)", "#1f77b4"),
                              ("solve_s", "RunTime (solve)", "#ff7f0e"),
                              ("feas_s", "FeasTime (violated search)", "#2ca02c")):
        fig.add_trace(go.Bar(x=x, y=[getattr(r, key) for r in rows], name=label,
                             marker={"color": color}))
    fig.update_layout(barmode="stack", title=f"Breakdown of the time per sub-problem, {name} "
                      "(Fig. 4)", xaxis_title="sub-problem", yaxis_title="seconds",
                      template="plotly_white", width=900, height=420,
                      legend={"orientation": "h", "y": -0.2})
    return fig


def table1(res) -> go.Figure:
    """Table 1: mean time against n, row and column generation vs whole QP vs PRank.

    Draws the result of ``ordinal-table1`` (``row-column-generation-ordinal.txt``).
    """
    table = res.table_rows
    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "S.n.q: RC(H~) vs whole QP vs PRank", "NS.n.q: RC(S~), c = 10"))
    colors = {"time_s": "#1f77b4", "full_time_s": "#d62728", "prank_time_s": "#2ca02c"}
    names = {"time_s": "row and column generation", "full_time_s": "whole QP (Clarabel)",
             "prank_time_s": "PRank (one pass)"}
    for col, typ in ((1, "S"), (2, "NS")):
        sel = [t for t in table if t.type == typ]
        for key in ("time_s", "full_time_s", "prank_time_s"):
            pts = [(t.n, getattr(t, key + "_mean")) for t in sel
                   if getattr(t, key + "_mean") is not None]
            if not pts:
                continue
            fig.add_trace(go.Scatter(x=[p[0] for p in pts], y=[p[1] for p in pts],
                                     mode="lines+markers", name=names[key],
                                     line={"color": colors[key]}, showlegend=col == 1),
                          row=1, col=col)
        fig.update_xaxes(type="log", title_text="n", row=1, col=col)
        fig.update_yaxes(type="log", title_text="seconds (mean)", row=1, col=col)
    fig.update_layout(title="Table 1 of Izunaga et al. (2015): time against n",
                      template="plotly_white", height=420, width=950)
    return fig


def table2(res) -> go.Figure:
    """Table 2: average rank loss against n, ours vs PRank.

    Draws the result of ``ordinal-table2`` (``row-column-generation-ordinal.txt``).
    """
    table = res.table_rows
    fig = go.Figure()
    for typ, dash in (("S", "solid"), ("NS", "dot")):
        sel = [t for t in table if t.type == typ]
        for key, name, color in (("rank_loss", "RC(H~) / RC(S~)", "#1f77b4"),
                                 ("prank_rank_loss", "PRank", "#2ca02c")):
            fig.add_trace(go.Scatter(
                x=[t.n for t in sel], y=[getattr(t, key + "_mean") for t in sel],
                error_y={"type": "data", "array": [getattr(t, key + "_sd") for t in sel]},
                mode="lines+markers", name=f"{name}, {typ}",
                line={"color": color, "dash": dash}))
    fig.update_xaxes(type="log", title_text="n")
    fig.update_yaxes(title_text="average rank loss (1/n) sum |l^ - l|")
    fig.update_layout(title="Table 2 of Izunaga et al. (2015)", template="plotly_white",
                      height=420, width=750)
    return fig


def _level_line(g, Z, level: float) -> tuple[np.ndarray, np.ndarray, int]:
    """The level set ``Z = level`` on the mesh ``g`` x ``g`` (``Z[i, j]`` at
    ``(g[j], g[i])``) as one polyline: x and y with NaN between pieces (the
    linear interpolation in each cell that a contour plot draws), and the
    index of the middle point of the longest piece (where its label goes;
    -1 when the level is not crossed on the mesh)."""
    pieces = contourpy.contour_generator(x=g, y=g, z=Z).lines(level)
    if not pieces:
        return np.empty(0), np.empty(0), -1
    xs, ys, label, longest, start = [], [], -1, 0, 0
    for piece in pieces:
        if len(piece) > longest:
            longest, label = len(piece), start + len(piece) // 2
        xs += [piece[:, 0], [np.nan]]
        ys += [piece[:, 1], [np.nan]]
        start += len(piece) + 1
    return np.round(np.concatenate(xs), 4), np.round(np.concatenate(ys), 4), label


def curves(res) -> go.Figure:
    """Sec. 9, Fig. 1-3: the lines f(x) = p_k of each model over the two wine features.

    Draws the result of ``ordinal-curves`` (``row-column-generation-ordinal.txt``):
    each threshold's level set of f, traced on the result's mesh by contourpy
    (one line trace a threshold, labelled with p_k: a few kB, where a contour
    trace would carry the whole mesh once per threshold).
    """
    g, Xtr, ytr = res.data["grid"], res.data["X"], res.data["y"]
    models = res.data["models"]
    fig = make_subplots(rows=1, cols=len(models),
                        subplot_titles=[escape(m[0]) for m in models], horizontal_spacing=0.05)
    for col, (_name, Z, thr) in enumerate(models, start=1):
        for k, p in enumerate(thr, start=1):
            x, y, at = _level_line(g, Z, p)
            text = [""] * len(x)
            if at >= 0:
                text[at] = f"{p:.2f}"
            fig.add_trace(go.Scatter(
                x=x, y=y, mode="lines+text", text=text, textposition="top center",
                textfont={"size": 10, "color": "#222"},
                line={"color": _QUALITY_COLORS[k], "width": 2}, connectgaps=False,
                name=f"f = p_{k} = {p:.2f}", hovertemplate=f"f(x) = p_{k} = {p:.4f}<extra></extra>",
                showlegend=False), row=1, col=col)
        for lab in range(int(ytr.max()) + 1):
            sel = ytr == lab
            fig.add_trace(go.Scatter(x=Xtr[sel, 0], y=Xtr[sel, 1], mode="markers",
                                     marker={"size": 5, "color": _QUALITY_COLORS[lab],
                                             "line": {"width": 0.5, "color": "white"}},
                                     name=f"quality {lab + 3}", legendgroup=str(lab),
                                     showlegend=col == 1), row=1, col=col)
        fig.update_xaxes(title_text="alcohol (scaled)", range=[0, 1], row=1, col=col)
        fig.update_yaxes(title_text="volatile acidity (scaled)" if col == 1 else None,
                         range=[0, 1], row=1, col=col)
    fig.update_layout(title="Sec. 9 on red wine: lines f(x) = p_k, labelled with p_k",
                      template="plotly_white", height=430, width=1250,
                      legend={"orientation": "h", "y": -0.18})
    return fig


#: experiment name -> figure builder
FIGURES = {"ordinal-fig4": fig4, "ordinal-table1": table1, "ordinal-table2": table2,
           "ordinal-curves": curves}
