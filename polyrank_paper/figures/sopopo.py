"""The figures of the ``sopopo`` experiments (``sopopo-label-ranking.txt``): one
function per experiment, drawing its :class:`~polyrank_paper.ExperimentResult`
(compute in :mod:`polyrank_paper`, draw here).

Every builder takes the :class:`~polyrank_paper.ExperimentResult` of
its experiment and returns a new ``plotly.graph_objects.Figure``; it reads
``rows``, ``summary``, ``table_rows`` or ``data`` and computes nothing.
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

_BLUE = "#1f77b4"
_RED = "#d62728"

__all__ = ["fig6", "fig7", "fig8"]


def _paper_layout(fig, title: str, width: int = 1150, height: int = 500, legend=None,
                  margin=None) -> go.Figure:
    """The layout of the three SOPOPO figures: centred title, white template,
    the legend centred below the plot (``legend`` overrides its anchor)."""
    fig.update_layout(
        title={"text": title, "x": 0.5}, template="plotly_white", width=width, height=height,
        legend={"orientation": "h", "yanchor": "bottom", "y": -0.28, "x": 0.5,
                "xanchor": "center", **(legend or {})},
        margin=margin or {"t": 90, "b": 110})
    return fig


def fig6(res) -> go.Figure:
    """Fig. 6: time of one soft projection against k, SOPOPO vs Clarabel (two log-log panels).

    Draws the result of ``sopopo-fig6`` (``sopopo-label-ranking.txt``).
    """
    rows, summary = res.rows, res.summary
    budget = summary.budget_s
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.09, subplot_titles=(
        "Original problem (Eq. 7): soft_project vs Clarabel",
        "Reduced problem (Eq. 19): Fig. 3 vs Clarabel"))
    for col, p in ((1, "eq7"), (2, "eq19")):
        sub = [r for r in rows if r.problem == p]
        done = [r for r in sub if r.clarabel_s is not None]
        fig.add_trace(go.Scatter(
            x=[r.k for r in sub], y=[r.sopopo_s for r in sub],
            error_y={"type": "data", "array": [r.sopopo_sd_s for r in sub]},
            mode="lines+markers", name="SOPOPO", legendgroup="sopopo",
            showlegend=col == 1, line={"color": _BLUE},
            hovertemplate="k=%{x}<br>SOPOPO %{y:.3s}s<extra></extra>"), row=1, col=col)
        fig.add_trace(go.Scatter(
            x=[r.k for r in done], y=[r.clarabel_s for r in done],
            error_y={"type": "data", "array": [r.clarabel_sd_s for r in done]},
            mode="lines+markers", name="Clarabel (interior point)",
            legendgroup="clarabel", showlegend=col == 1,
            line={"color": _RED, "dash": "dash"},
            customdata=[r.ratio for r in done],
            hovertemplate="k=%{x}<br>Clarabel %{y:.3s}s<br>%{customdata:.0f}x SOPOPO"
                          "<extra></extra>"), row=1, col=col)
        stopped = [r for r in sub if r.clarabel_status == "stopped at budget"]
        if stopped and budget is not None:
            fig.add_trace(go.Scatter(
                x=[r.k for r in stopped], y=[budget] * len(stopped),
                mode="markers", name=f"Clarabel stopped at the {budget:g} s budget",
                legendgroup="stopped", showlegend=True,
                marker={"symbol": "triangle-up-open", "size": 12, "color": _RED},
                hovertemplate="k=%{x}<br>Clarabel > %{y:.3s}s (stopped)<extra></extra>"),
                row=1, col=col)
        if budget is not None and any(r.clarabel_status != "ok" for r in sub):
            skipped = [r.k for r in sub if r.clarabel_status.startswith("skipped")]
            fig.add_trace(go.Scatter(
                x=[sub[0].k, sub[-1].k], y=[budget, budget], mode="lines",
                name=(f"time budget {budget:g} s" + (f" (Clarabel not run for k >= "
                                                     f"{skipped[0]})" if skipped else "")),
                line={"color": "grey", "dash": "dot", "width": 1}, hoverinfo="skip"),
                row=1, col=col)
        fig.update_xaxes(type="log", title_text="number of labels k",
                         tickvals=[r.k for r in sub], row=1, col=col)
        fig.update_yaxes(type="log", title_text="time per solve (s, log scale)",
                         exponentformat="power", dtick=1, row=1, col=col)
    return _paper_layout(fig, f"Fig. 6 reproduced: one soft projection, mean ± sd over "
                              f"{summary.trials} trials (n = {summary.n}, C = "
                              f"{summary.C:g}, single-threaded)")


def fig7(res) -> go.Figure:
    """Fig. 7: time of batch label ranking against k, SOPOPO vs Clarabel (log y).

    Draws the result of ``sopopo-fig7`` (``sopopo-label-ranking.txt``).
    """
    rows, summary = res.rows, res.summary
    budget = summary.budget_s
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=[r.k for r in rows], y=[r.sopopo_s for r in rows],
        mode="lines+markers", name="SOPOPO, Fig. 5 (until duality gap <= 0.01)",
        line={"color": _BLUE}, customdata=[r.sopopo_passes for r in rows],
        hovertemplate="k=%{x}<br>SOPOPO %{y:.3s}s, %{customdata} passes<extra></extra>"))
    done = [r for r in rows if r.clarabel_s is not None]
    fig.add_trace(go.Scatter(
        x=[r.k for r in done], y=[r.clarabel_s for r in done],
        mode="lines+markers", name="Clarabel on Eq. 38 (to its tolerance 1e-10)",
        line={"color": _RED, "dash": "dash"}, customdata=[r.ratio for r in done],
        hovertemplate="k=%{x}<br>Clarabel %{y:.3s}s<br>%{customdata:.0f}x SOPOPO"
                      "<extra></extra>"))
    extra = summary.clarabel_extrapolated_s or {}
    if extra and done:
        fig.add_trace(go.Scatter(
            x=[done[-1].k] + [int(k) for k in extra],
            y=[done[-1].clarabel_s] + list(extra.values()), mode="lines",
            name=(f"Clarabel extrapolated, ~k^{summary.clarabel_slope_vs_k:.1f} "
                  "(not measured)"),
            line={"color": _RED, "dash": "dot", "width": 1},
            hovertemplate="k=%{x}<br>Clarabel about %{y:.3s}s (extrapolated)<extra></extra>"))
    stopped = [r for r in rows if r.clarabel_status == "stopped at budget"]
    if stopped and budget is not None:
        fig.add_trace(go.Scatter(
            x=[r.k for r in stopped], y=[budget] * len(stopped), mode="markers",
            name=f"Clarabel stopped at the {budget:g} s budget",
            marker={"symbol": "triangle-up-open", "size": 13, "color": _RED},
            hovertemplate="k=%{x}<br>Clarabel > %{y:.3s}s (stopped)<extra></extra>"))
    skipped = [r.k for r in rows if (r.clarabel_status or "").startswith("skipped")]
    if budget is not None:
        # a trace, not add_hline: a shape's annotation on a log axis is placed
        # in log units and would stretch the axis to 10^budget
        fig.add_trace(go.Scatter(
            x=[rows[0].k, rows[-1].k], y=[budget, budget], mode="lines",
            name=(f"Clarabel's time budget, {budget:g} s"
                  + (f" (not run for k = {', '.join(map(str, skipped))})" if skipped else "")),
            line={"color": "grey", "dash": "dot", "width": 1}, hoverinfo="skip"))
    fig.update_xaxes(title_text=f"number of labels k (m = {rows[0].m // rows[0].k} k "
                     "examples)", tickvals=[r.k for r in rows])
    fig.update_yaxes(type="log", title_text="time to reach the optimum (s, log scale)",
                     exponentformat="power", dtick=1)
    return _paper_layout(fig, f"Fig. 7 reproduced: batch label ranking, n = {summary.n}, "
                              "C = 1/m, single-threaded", width=800, height=520,
                         legend={"yanchor": "top", "y": -0.18}, margin={"t": 70, "b": 140})


def fig8(res) -> go.Figure:
    """Fig. 8: dual increase per update and duality gap against the iteration.

    Draws the result of ``sopopo-fig8`` (``sopopo-label-ranking.txt``).
    """
    rows, summary = res.rows, res.summary
    m = summary.m
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1, subplot_titles=(
        "Increase of the dual objective per update", "Primal-dual gap P - D"))
    its = [r.iteration for r in rows[1:]]
    incs = [r.dual_increase for r in rows[1:]]
    fig.add_trace(go.Scatter(
        x=its, y=incs, mode="markers", name="dual increase of one update",
        marker={"size": 3, "color": _BLUE, "opacity": 0.6},
        hovertemplate="iteration %{x}<br>increase %{y:.3e}<extra></extra>"), row=1, col=1)
    ev = [r for r in rows if r.gap is not None and r.gap > 0]
    fig.add_trace(go.Scatter(
        x=[r.iteration for r in ev], y=[r.gap for r in ev], mode="lines",
        name=f"duality gap (every {summary.gap_every} updates)",
        line={"color": _RED},
        hovertemplate="iteration %{x}<br>gap %{y:.3e}<extra></extra>"), row=1, col=2)
    for col in (1, 2):
        fig.add_vline(x=m, line={"color": "grey", "dash": "dot", "width": 1}, row=1, col=col)
        fig.update_xaxes(title_text="iteration (one example's soft projection)",
                         row=1, col=col)
        fig.update_yaxes(type="log", exponentformat="power", dtick=1, row=1, col=col)
    fig.update_yaxes(title_text="dual increase D(t) - D(t-1) (log scale)", row=1, col=1)
    fig.update_yaxes(title_text="duality gap P - D (log scale)", row=1, col=2)
    fig.add_annotation(x=m, y=1, yref="paper", xref="x", showarrow=False,
                       text=f"  end of pass 1 (m = {m})", xanchor="left", yanchor="top",
                       font={"size": 11, "color": "grey"})
    return _paper_layout(fig, f"Fig. 8 reproduced: SOPOPO batch, k = {summary.k}, m = {m}, "
                              f"n = {summary.n}, C = 1/m")


#: experiment name -> figure builder
FIGURES = {"sopopo-fig6": fig6, "sopopo-fig7": fig7, "sopopo-fig8": fig8}
