"""Layouts that fit the panel: figures that shrink with it, controls that wrap
under the figure when figure and controls do not fit side by side.

JupyterLab's notebook panel is as narrow as 600 px (a 1,024 px window with
the file browser open); the widgets are designed for about 1,200 px.  Each
figure is drawn at the width of its box (plotly's autosize: the
FigureWidget's view resizes with the panel), at most its design width and at
least :data:`MIN_FIGURE_PX`; the widget's top row wraps (CSS ``flex-wrap``),
so that the controls go under the figure instead of being cut off at the
panel's right edge.  Issue 34, item 2; the browser tests
(``tests/browser``) check that nothing is clipped at 1,024 px with the
sidebar open.
"""

from __future__ import annotations

import ipywidgets as ipw
import plotly.graph_objects as go

__all__ = ["MIN_FIGURE_PX", "fluid", "wrap_row", "design_width", "FluidFigure", "MAX_DRAWN",
           "too_many"]

#: the narrowest a figure is drawn (px): below it, the panel scrolls
MIN_FIGURE_PX = 360

#: attribute of a FigureWidget holding its design width (px), the width of
#: its static image (``figure_png``)
_WIDTH_ATTR = "_polyrank_design_width"


def fluid(fig, width: int | None = None) -> ipw.Box:
    """Put a FigureWidget in a box that follows the panel's width.

    Parameters
    ----------
    fig : plotly.graph_objects.FigureWidget
        The figure; its layout's ``width`` is cleared (plotly then draws it
        at the width of its box) after it has been read as the design width.
    width : int, optional
        The design width in px (default: the figure's layout width, else
        700): the widest the figure is drawn, and the width of its static
        PNG.

    Returns
    -------
    ipywidgets.Box
        A block box (``display: block``, so that the figure's view fills
        it), ``width`` px wide where there is room, as wide as its container
        (down to :data:`MIN_FIGURE_PX`) where there is not, and as high as
        the figure.
    """
    if width is None:
        width = int(fig.layout.width or 700)
    object.__setattr__(fig, _WIDTH_ATTR, int(width))
    fig.layout.width = None
    fig.layout.autosize = True
    # flex-basis "auto": the preferred size is the width in a row (wrap_row) and
    # the figure's own height in a column (a VBox; a basis of "{width}px" would be
    # its height there, leaving hundreds of px blank under the figure)
    return ipw.Box([fig], layout=ipw.Layout(
        display="block", flex="1 1 auto", width=f"{width}px",
        max_width=f"min({width}px, 100%)", min_width=f"{MIN_FIGURE_PX}px",
        overflow="visible"))


def design_width(fig) -> int | None:
    """The design width (px) given to :func:`fluid`, else the figure's
    layout width (None if neither)."""
    width = getattr(fig, _WIDTH_ATTR, None)
    if width is None:
        width = fig.layout.width
    return None if width is None else int(width)


def wrap_row(*children, gap: str = "4px 16px") -> ipw.HBox:
    """A row of widgets that wraps onto the next line when the panel is too
    narrow (CSS ``flex-flow: row wrap``), aligned at the top.

    Parameters
    ----------
    *children : ipywidgets.Widget
        The widgets, left to right (typically :func:`fluid` and a controls
        box).
    gap : str, optional
        CSS ``gap`` between the rows and the columns.

    Returns
    -------
    ipywidgets.HBox
    """
    return ipw.HBox(list(children), layout=ipw.Layout(
        flex_flow="row wrap", align_items="flex-start", width="100%", grid_gap=gap))


class FluidFigure(go.Figure):
    """A plotly figure drawn at the width of the output area when a notebook
    shows it, and at its layout width everywhere else.

    The figures of the papers' experiments are designed 750-1,250 px wide;
    in JupyterLab's panel (as narrow as 600 px) a fixed width makes the
    output area scroll sideways. Shown in a notebook (``_repr_mimebundle_``,
    what ``display(fig)`` and a cell's last expression use), the figure's
    JSON is sent without its width and with ``autosize=True``, so plotly
    draws it as wide as the output area and redraws it when the panel
    resizes; its layout ``width`` is kept as the design width, the width of
    its static PNG (:func:`~polyrank_widgets._display.static_images`; sent as
    an HTML ``<img>`` at most as wide as the output area, which JupyterLab's
    plotly renderer ignores) and of ``write_image`` / ``write_html`` exports.
    Issue 34, item 2.

    Parameters
    ----------
    data, layout, frames, skip_invalid, **kwargs
        As :class:`plotly.graph_objects.Figure`; typically one figure,
        ``FluidFigure(fig)``.
    """

    def _shown(self, validate: bool = True) -> tuple[dict, dict]:
        """The figure as sent to the page (no width, autosize) and the
        keyword arguments of plotly's renderers (the image's ``width``)."""
        from plotly.io._utils import validate_coerce_fig_to_dict

        fig_dict = validate_coerce_fig_to_dict(self, validate)
        layout = dict(fig_dict.get("layout", {}))
        width = layout.pop("width", None)
        layout["autosize"] = True
        # the static image (static_images): the design width, as HTML that fits
        kwargs = {"fluid": True} if width is None else {"width": width, "fluid": True}
        return {**fig_dict, "layout": layout}, kwargs

    def _repr_mimebundle_(self, include=None, exclude=None, validate=True, **kwargs):
        import plotly.io as pio

        fig_dict, image = self._shown(validate)
        return pio.renderers._build_mime_bundle(fig_dict, None, **{**image, **kwargs})

    def _ipython_display_(self):
        # IPython prefers this to _repr_mimebundle_ (plotly's BaseFigure defines it)
        import plotly.io as pio

        if pio.renderers.render_on_display and pio.renderers.default:
            fig_dict, image = self._shown()
            pio.show(fig_dict, **image)
        else:
            print(repr(self))


#: the most items a view draws: labels of a heat map's side, bars and sign
#: toggles, edges of a preference graph, knots, objects of a scatter.  Beyond
#: it the view shows a summary instead (issue 44, item 5: SolverLab on M3L
#: with 10,000 labels built a 10,000 x 10,000 heat map until MemoryError)
MAX_DRAWN = 2000


def too_many(n: int, what: str, limit: int = MAX_DRAWN) -> str | None:
    """The size guard of every view: None when ``n`` items can be drawn,
    else the message a summary view shows in place of the figure.

    Parameters
    ----------
    n : int
        How many ``what`` the figure would draw.
    what : str
        What they are, e.g. ``"labels (heat map rows)"``.
    limit : int, default :data:`MAX_DRAWN`

    Returns
    -------
    str or None

    Examples
    --------
    >>> too_many(10, "labels") is None
    True
    >>> too_many(10_000, "labels")
    '10,000 labels: not drawn (a view draws at most 2,000); a summary instead'
    """
    if n <= limit:
        return None
    return f"{n:,} {what}: not drawn (a view draws at most {limit:,}); a summary instead"
