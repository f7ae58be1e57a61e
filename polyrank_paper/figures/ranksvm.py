"""The figures of the ``ranksvm`` experiments (``large-scale-linear-ranksvm.txt``): one
function per experiment, drawing its :class:`~polyrank_paper.ExperimentResult`
(compute in :mod:`polyrank_paper`, draw here).

Every builder takes the :class:`~polyrank_paper.ExperimentResult` of
its experiment and returns a new ``plotly.graph_objects.Figure``; it reads
``rows``, ``summary``, ``table_rows`` or ``data`` and computes nothing.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from polyrank_paper.labels import METHOD_LABELS
from polyrank_widgets.utils import escape

from ._layout import finish_panels

_COLORS = {"direct": "#d62728", "y_tree": "#ff7f0e", "selection_tree": "#1f77b4",
           "prsvm_plus": "#2ca02c", "l1_cutting_plane": "#9467bd", "l1_dcd": "#e377c2",
           "svr": "#8c564b"}

__all__ = ["fig4", "methods", "fig7", "vs_svr"]


def fig4(res) -> go.Figure:
    """Fig. 4: relative function value against training time, one panel per data set.

    Draws the result of ``ranksvm-fig4`` (``large-scale-linear-ranksvm.txt``).
    """
    rows, summary = res.rows, res.summary
    names = list(summary.datasets)
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=[escape(n) for n in names],
                        horizontal_spacing=0.1)
    for c, name in enumerate(names, start=1):
        info = summary.datasets[name]
        for method in info.methods:
            pts = [r for r in rows if r.dataset == name and r.method == method
                   and r.rel_f > 0 and r.step > 0]
            fig.add_trace(go.Scatter(
                x=[r.time_s for r in pts], y=[r.rel_f for r in pts],
                mode="lines+markers", name=escape(METHOD_LABELS.get(method, method)),
                legendgroup=escape(method), showlegend=c == 1,
                line={"color": _COLORS.get(method)}), row=1, col=c)
        fig.add_hline(y=info.default_line, line_dash="dot", line_color="grey",
                      row=1, col=c)
    return finish_panels(fig, len(names), x_title="training time (s)", x_log=True,
                         y_title="(f - f*) / f*", width=1000,
                         title="TRON with three ways to count l+, l-, gamma+, gamma- (Fig. 4); "
                               "dotted: default tol = 1e-3")


def methods(res) -> go.Figure:
    """Fig. 5 style: relative function value, test pairwise accuracy and NDCG against time.

    Draws the result of ``ranksvm-methods`` (``large-scale-linear-ranksvm.txt``).
    """
    rows = res.rows
    path = [r for r in rows if r.kind == "path"]
    solvers = list(dict.fromkeys(r.solver for r in path))
    colors = {"tree-tron": _COLORS["selection_tree"], "prsvm+": _COLORS["prsvm_plus"],
              "l1-cutting-plane": _COLORS["l1_cutting_plane"], "l1-dcd": _COLORS["l1_dcd"]}
    fig = make_subplots(rows=1, cols=3, subplot_titles=(
        "relative function value", "test pairwise accuracy", "test mean NDCG"),
        horizontal_spacing=0.08)
    for s in solvers:
        pts = [r for r in path if r.solver == s]
        x = [r.time_s for r in pts]
        for c, key in enumerate(("rel_f", "test_pairwise_accuracy", "test_mean_ndcg"), 1):
            ys = [getattr(r, key) if (key != "rel_f" or r.rel_f > 0) else None for r in pts]
            fig.add_trace(go.Scatter(x=x, y=ys, mode="lines+markers", name=escape(s),
                                     legendgroup=escape(s), showlegend=c == 1,
                                     line={"color": colors.get(s)}, marker={"size": 4}),
                          row=1, col=c)
    for c in (1, 2, 3):
        fig.update_xaxes(title_text="training time (s)", type="log", row=1, col=c)
    fig.update_yaxes(type="log", exponentformat="power", row=1, col=1)
    fig.update_layout(title="MQ2008 at the C selected by validation pairwise accuracy "
                      "(Fig. 5 style)", template="plotly_white", width=1100, height=420,
                      legend={"orientation": "h", "y": -0.22})
    return fig


def fig7(res) -> go.Figure:
    """Fig. 7: relative function value against time, every method, one panel per C.

    Draws the result of ``ranksvm-fig7`` (``large-scale-linear-ranksvm.txt``).
    """
    rows, Cs = res.rows, res.summary.C
    colors = {"tree-tron": _COLORS["selection_tree"], "prsvm+": _COLORS["prsvm_plus"],
              "l1-cutting-plane": _COLORS["l1_cutting_plane"], "l1-dcd": _COLORS["l1_dcd"]}
    fig = make_subplots(rows=1, cols=len(Cs), subplot_titles=[f"C = {C:g}" for C in Cs],
                        horizontal_spacing=0.07)
    for c, C in enumerate(Cs, 1):
        pts = [r for r in rows if r.C == C]
        for s in dict.fromkeys(r.solver for r in pts):
            mine = [r for r in pts if r.solver == s and r.rel_f > 0]
            fig.add_trace(go.Scatter(x=[r.time_s for r in mine], y=[r.rel_f for r in mine],
                                     mode="lines+markers", name=escape(s), legendgroup=escape(s),
                                     showlegend=c == 1, line={"color": colors.get(s)},
                                     marker={"size": 4}), row=1, col=c)
        fig.update_xaxes(title_text="training time (s)", type="log", row=1, col=c)
        fig.update_yaxes(type="log", exponentformat="power", row=1, col=c)
    fig.update_yaxes(title_text="(f - f*) / f*", row=1, col=1)
    fig.update_layout(title="MQ2008, every method at the same C (Fig. 7)",
                      template="plotly_white", width=1150, height=420,
                      legend={"orientation": "h", "y": -0.22})
    return fig


def vs_svr(res) -> go.Figure:
    """Table 4: validation pairwise accuracy and NDCG against log2 C, RankSVM vs SVR.

    Draws the result of ``ranksvm-vs-svr`` (``large-scale-linear-ranksvm.txt``).
    """
    rows = res.rows
    sel = [r for r in rows if r.kind == "selection"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("validation pairwise accuracy",
                                                        "validation mean NDCG"))
    for model, color, dash in (("ranksvm-l2", _COLORS["selection_tree"], None),
                               ("svr-l2", _COLORS["svr"], None),
                               ("svr-l1", _COLORS["svr"], "dot"),
                               ("ranksvm-l1", _COLORS["l1_dcd"], "dot")):
        pts = [r for r in sel if r.model == model]
        for c, key in enumerate(("val_pairwise_accuracy", "val_mean_ndcg"), 1):
            fig.add_trace(go.Scatter(x=[r.log2_C for r in pts], y=[getattr(r, key) for r in pts],
                                     mode="lines+markers", name=model, legendgroup=model,
                                     showlegend=c == 1, line={"color": color, "dash": dash}),
                          row=1, col=c)
            fig.update_xaxes(title_text="log2 C", row=1, col=c)
    fig.update_layout(title="Selecting C on MQ2008 validation (Table 4)",
                      template="plotly_white", width=950, height=400)
    return fig


#: experiment name -> figure builder
FIGURES = {"ranksvm-fig4": fig4, "ranksvm-methods": methods, "ranksvm-fig7": fig7,
           "ranksvm-vs-svr": vs_svr}
