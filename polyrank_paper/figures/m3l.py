"""The figures of the ``m3l`` experiments (``m3l-multilabel-zero-shot.txt``): one
function per experiment, drawing its :class:`~polyrank_paper.ExperimentResult`
(compute in :mod:`polyrank_paper`, draw here).

Every builder takes the :class:`~polyrank_paper.ExperimentResult` of
its experiment and returns a new ``plotly.graph_objects.Figure``; it reads
``rows``, ``summary``, ``table_rows`` or ``data`` and computes nothing.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from polyrank_widgets.utils import escape

__all__ = ["fig5", "table3", "table1", "awa_prior", "fig2"]


def fig5(res) -> go.Figure:
    """Fig. 5: test Hamming loss against the classifier correlation r.

    Draws the result of ``m3l-fig5`` (``m3l-multilabel-zero-shot.txt``).
    """
    rows, summary = res.rows, res.summary
    fig = go.Figure()
    for name, color in (("linear", "#1f77b4"), ("rbf", "#d62728")):
        rr = [r for r in rows if r.kernel == name]
        fig.add_scatter(x=[r.r for r in rr], y=[r.test_hamming_pct for r in rr],
                        mode="lines+markers", name=f"M3L {name}", line={"color": color})
    fig.add_vline(x=0, line_dash="dot", line_color="grey",
                  annotation_text="r = 0: 1-vs-All", annotation_position="top")
    a, b = (escape(n) for n in summary.pair)
    fig.update_layout(
        # two short lines: the title must fit a 600 px notebook panel
        title=(f"Fig. 5 on yeast: {a} / {b}<br><sup>corr. {summary.train_subset_corr:+.2f} "
               f"in training subset, {summary.test_corr:+.2f} on test</sup>"),
        xaxis_title="classifier correlation r  (R = [[1, r], [r, 1]])",
        yaxis_title="test Hamming loss (%)", template="plotly_white",
        legend={"x": 0.02, "y": 0.98})
    return fig


def table3(res) -> go.Figure:
    """Table 3: test Hamming loss per method (bars with sd).

    Draws the result of ``m3l-table3`` (``m3l-multilabel-zero-shot.txt``).
    """
    rows = res.rows
    rows = sorted(rows, key=lambda r: r.test_hamming_pct, reverse=True)
    colors = ["#d62728" if r.method.startswith("M3L") else "#7f7f7f" for r in rows]
    fig = go.Figure(go.Bar(
        x=[r.test_hamming_pct for r in rows], y=[escape(r.method) for r in rows],
        orientation="h", marker_color=colors,
        error_x={"type": "data", "array": [r.sd or 0.0 for r in rows]}))
    lo = min(r.test_hamming_pct for r in rows)
    fig.update_layout(title="Table 3 on yeast (zero-shot protocol): test Hamming loss",
                      xaxis_title="test Hamming loss (%)", template="plotly_white",
                      xaxis_range=[lo - 3, None], margin={"l": 320})
    return fig


def table1(res) -> go.Figure:
    """Table 1: training time against N (log y).

    Draws the result of ``m3l-table1`` (``m3l-multilabel-zero-shot.txt``).
    """
    rows = res.rows
    fig = go.Figure()
    N = [r.N for r in rows]
    for key, name, color, dash in (
            ("linear_m3l_s", "linear M3L (DCA)", "#1f77b4", "solid"),
            ("liblinear_1vsall_s", "1-vs-All LibLinear", "#1f77b4", "dot"),
            ("rbf_m3l_s", "rbf M3L (SMO)", "#d62728", "solid"),
            ("libsvm_1vsall_s", "1-vs-All LibSVM", "#d62728", "dot")):
        fig.add_scatter(x=N, y=[getattr(r, key) for r in rows], mode="lines+markers", name=name,
                        line={"color": color, "dash": dash})
    fig.update_layout(title="Table 1 on yeast: training time (R = I, single-threaded)",
                      xaxis_title="training points N", yaxis_title="seconds",
                      yaxis_type="log", template="plotly_white")
    return fig


def awa_prior(res) -> go.Figure:
    """Sec. 7.2.1: the AwA prior R as a heat map.

    Draws the result of ``m3l-awa-prior`` (``m3l-multilabel-zero-shot.txt``).
    """
    R, names = res.data["R"], [escape(n) for n in res.data["names"]]
    # R's entries are means of +-1 products over 10 classes: float32 keeps every one
    # to the shown 2 decimals at half the bytes of the stored figure (85 x 85 cells)
    fig = go.Figure(go.Heatmap(z=np.asarray(R, dtype=np.float32), x=names, y=names,
                               zmin=-1, zmax=1, colorscale="RdBu", reversescale=True,
                               colorbar={"title": "R"},
                               hovertemplate="%{y} / %{x}: R = %{z:.2f}<extra></extra>"))
    fig.update_layout(title="AwA prior R = Σ_c p(c) y_c y_cᵀ over the 10 test classes "
                            "(uniform p)",
                      width=1250, height=1200, template="plotly_white",
                      margin={"l": 110, "b": 110, "t": 70, "r": 40},
                      # 85 labels in ~1050 px: 12 px per row, every label at 10 px
                      xaxis={"tickfont": {"size": 10}, "dtick": 1, "tickangle": -90},
                      yaxis={"tickfont": {"size": 10}, "dtick": 1, "autorange": "reversed"})
    return fig


def fig2(res) -> go.Figure:
    """Figs. 2-3: dual progress against pair updates and CPU seconds.

    Draws the result of ``m3l-fig2`` (``m3l-multilabel-zero-shot.txt``).
    """
    rows, summary = res.rows, res.summary
    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "dual progress vs pair updates (Fig. 2)", "dual progress vs CPU seconds (Fig. 3)"))
    colors = {"M3L": "#d62728", "1-vs-All LIBSVM": "#1f77b4"}
    for method, color in colors.items():
        mine = [r for r in rows if r.method == method]
        for c, key in enumerate(("updates", "seconds"), 1):
            fig.add_trace(go.Scatter(x=[max(getattr(r, key), 1e-4) for r in mine],
                                     y=[r.dual_rel for r in mine], mode="lines+markers",
                                     name=method, legendgroup=method, showlegend=c == 1,
                                     line={"color": color}, marker={"size": 4}), row=1, col=c)
            fig.update_xaxes(type="log", title_text="pair updates" if c == 1 else "CPU seconds",
                             row=1, col=c)
    fig.update_yaxes(title_text="dual / final dual", range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(range=[0, 1.05], row=1, col=2)
    fig.update_layout(title=f"Kernel M3L vs 1-vs-All LIBSVM on yeast (N = {summary.N}, "
                      f"L = {summary.L})", template="plotly_white", width=1050, height=420,
                      legend={"orientation": "h", "y": -0.2})
    return fig


#: experiment name -> figure builder
FIGURES = {"m3l-fig5": fig5, "m3l-table3": table3, "m3l-table1": table1,
           "m3l-awa-prior": awa_prior, "m3l-fig2": fig2}
