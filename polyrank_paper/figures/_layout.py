"""Layout shared by the figures of convergence panels (one panel per data set)."""

from __future__ import annotations

import plotly.graph_objects as go


def finish_panels(fig: go.Figure, n_panels: int, *, x_title: str, y_title: str, title: str,
                  width: int, x_log: bool = False) -> go.Figure:
    """Finish a 1 x ``n_panels`` figure of gaps against time or epochs.

    Every panel gets ``x_title`` (a log x axis if ``x_log``) and a log y
    axis with powers of ten; the first panel gets ``y_title``; then the
    title, the white template, height 450 px (a top margin of 130 px for a
    two-line title over two-line panel titles, 14 px), ``width`` px and the
    legend in a row below.  Returns ``fig``.
    """
    x_axis = {"type": "log"} if x_log else {}
    for c in range(1, n_panels + 1):
        fig.update_xaxes(title_text=x_title, row=1, col=c, **x_axis)
        fig.update_yaxes(type="log", exponentformat="power", row=1, col=c)
    fig.update_yaxes(title_text=y_title, row=1, col=1)
    # room for a two-line title above two-line panel titles: drawn at the width of
    # a 600 px notebook panel (FluidFigure), the panels' titles wrap
    fig.update_annotations(font_size=14)
    fig.update_layout(title=title, template="plotly_white", width=width, height=450,
                      margin={"t": 130}, legend={"orientation": "h", "y": -0.2})
    return fig
