"""The figures of the ``sign`` experiments (``sign-constrained-sdca-pegasos.txt``): one
function per experiment, drawing its :class:`~polyrank_paper.ExperimentResult`
(compute in :mod:`polyrank_paper`, draw here).

Every builder takes the :class:`~polyrank_paper.ExperimentResult` of
its experiment and returns a new ``plotly.graph_objects.Figure``; it reads
``rows``, ``summary``, ``table_rows`` or ``data`` and computes nothing.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from polyrank_paper.labels import FIG2_DATA
from polyrank_widgets.utils import escape

from ._layout import finish_panels

_COLORS = {"SC-SDCA": "#d62728", "SC-Pega (k=10)": "#1f77b4",
           "SC-Pega (k=100)": "#2ca02c", "SC-SVM": "#d62728", "SVM": "#1f77b4"}

__all__ = ["convergence", "fig2", "small_sample"]


def convergence(res) -> go.Figure:
    """Fig. 2 (one panel): primal objective gap against epochs, per solver.

    Draws the result of ``sign-convergence`` (``sign-constrained-sdca-pegasos.txt``).
    """
    rows, summary = res.rows, res.summary
    fig = go.Figure()
    floor = 1e-14
    for name in summary.final_primal_gap:
        rs = [r for r in rows if r.solver == name]
        fig.add_trace(go.Scatter(
            x=[r.epoch for r in rs], y=[max(r.primal_gap, floor) for r in rs],
            mode="lines+markers", name=escape(name), marker={"size": 4},
            line={"color": _COLORS.get(name)},
            hovertemplate="epoch %{x}<br>P - P* %{y:.3e}<extra>%{fullData.name}</extra>"))
    fig.update_yaxes(type="log", exponentformat="power",
                     title_text="primal objective gap P(w) - P(w*) (log scale)")
    fig.update_xaxes(title_text="epochs")
    fig.update_layout(
        title={"text": (f"Fig. 2 ({FIG2_DATA[summary.data]}) reproduced: "
                        f"{escape(summary.data)} "
                        f"(n = {summary.n}), smoothed hinge γ = {summary.smoothing:g}, λ = 1/n"),
               "x": 0.5},
        template="plotly_white", width=800, height=480,
        legend={"x": 0.98, "xanchor": "right", "y": 0.98})
    return fig


def fig2(res) -> go.Figure:
    """Fig. 2 (b, c): one convergence panel per data set.

    Draws the result of ``sign-fig2`` (``sign-constrained-sdca-pegasos.txt``).
    """
    rows, runs = res.rows, res.summary.runs
    names = list(runs)
    fig = make_subplots(rows=1, cols=len(names), horizontal_spacing=0.07, subplot_titles=[
        f"({FIG2_DATA[runs[n].data]}) {escape(n)}<br>n = {runs[n].n}"
        for n in names])
    for c, name in enumerate(names, 1):
        for solver in runs[name].final_primal_gap:
            rs = [r for r in rows if r.data == name and r.solver == solver]
            fig.add_trace(go.Scatter(
                x=[r.epoch for r in rs], y=[max(r.primal_gap, 1e-14) for r in rs],
                mode="lines", name=escape(solver), legendgroup=escape(solver), showlegend=c == 1,
                line={"color": _COLORS.get(solver)}), row=1, col=c)
    return finish_panels(fig, len(names), x_title="epochs", y_title="P(w) - P(w*)",
                         width=1200, title="Fig. 2 reproduced: primal objective gap against "
                                           "epochs<br><sup>smoothed hinge γ = 0.01, λ = 1/n</sup>")


def small_sample(res) -> go.Figure:
    """Sec. 6.1: histograms of the per-trial PRBEP and ROC improvements.

    Draws the result of ``sign-small-sample`` (``sign-constrained-sdca-pegasos.txt``).
    """
    rows, summary = res.rows, res.summary
    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "(a) PRBEP: SC-SVM minus SVM", "(b) ROC score: SC-SVM minus SVM"))
    for col, key in ((1, "prbep_diff"), (2, "roc_diff")):
        v = [getattr(r, key) for r in rows]
        fig.add_trace(go.Histogram(x=v, nbinsx=40, marker={"color": "#1f77b4"},
                                   name=key, showlegend=False), row=1, col=col)
        fig.add_vline(x=0, line={"color": "grey", "dash": "dot"}, row=1, col=col)
        fig.update_xaxes(title_text="improvement per trial", row=1, col=col)
        fig.update_yaxes(title_text="trials", row=1, col=col)
    m = summary.mean
    fig.update_layout(
        title={"text": (f"Sign constraints from domain knowledge<br><sup>{summary.n_train} "
                        f"training examples, {summary.trials} trials: mean ROC "
                        f"{m.roc_sc:.3f} vs {m.roc_svm:.3f}, PRBEP "
                        f"{m.prbep_sc:.3f} vs {m.prbep_svm:.3f}</sup>"), "x": 0.5,
               "font": {"size": 14}},
        template="plotly_white", width=1000, height=420, bargap=0.05)
    return fig


#: experiment name -> figure builder
FIGURES = {"sign-convergence": convergence, "sign-fig2": fig2, "sign-small-sample": small_sample}
