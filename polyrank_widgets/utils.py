"""Building blocks of polyrank's widgets that the paper wing and extensions
reuse: their public home (each is defined in a private module of
``polyrank_widgets`` and re-exported here; code outside the distribution
imports it from here, never from the private module: ``tests/architecture/test_layering.py``).

- :func:`escape`: a user string made safe to show as HTML;
- :class:`FluidFigure`, :func:`fluid`, :func:`wrap_row`: figures and rows
  that follow the width of the notebook's column;
- :class:`WidgetDisplay`: the mixin that shows an object's ``widget`` as the
  value of a cell;
- :class:`FigureWidget`: plotly's ``FigureWidget`` with polyrank's small loader.
"""

from __future__ import annotations

from ._display import WidgetDisplay
from ._layout import FluidFigure, fluid, wrap_row
from ._plotly import FigureWidget
from ._text import escape

__all__ = ["escape", "FluidFigure", "fluid", "wrap_row", "WidgetDisplay", "FigureWidget"]
