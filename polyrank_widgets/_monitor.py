"""The base of the live monitors: widgets that are a solver's callback.

Every polyrank driver hands ``callback(info)`` an
:class:`polyrank.result.IterInfo` once per iteration and keeps the same rows
in a :class:`polyrank.result.Trace` (``DESIGN.md``, "The callback contract").
A monitor records what it receives into a :class:`~polyrank.result.Trace`
of its own (the same structure, not a parallel list of dicts), replays a
finished trace, and exposes the raw values as ``history`` (one Python list
per column) for code that reads them.  Subclasses say which columns they
keep, turn one callback argument into an :class:`~polyrank.result.IterInfo`
and draw.
"""

from __future__ import annotations

import math

import ipywidgets as ipw
import numpy as np

from polyrank.result import IterInfo, Trace

from ._display import WidgetDisplay
from ._layout import fluid
from ._plotly import FigureWidget

__all__ = ["TraceMonitor"]


def _as_bool(v) -> bool:
    return bool(v > 0)


#: the most points a monitor draws per line (see :meth:`TraceMonitor._drawn`)
MAX_POINTS = 20_000


class TraceMonitor(WidgetDisplay):
    """Base class of the widgets that record a solver's callback stream
    into a :class:`polyrank.result.Trace` (``GapMonitor``, ``TronMonitor``).

    Source: the callback contract of :mod:`polyrank.result` (``DESIGN.md``).

    Subclasses set ``HISTORY`` (the columns of ``history`` and the Python
    type of their values) and :attr:`EXTRAS` (the solver extras kept beside
    the five base columns), and implement ``_render()``; ``__call__`` turns
    its argument into an :class:`~polyrank.result.IterInfo` and calls
    :meth:`_record`, ``replay`` checks a finished trace and calls
    :meth:`_load`.

    Attributes
    ----------
    trace : polyrank.result.Trace
        Every recorded iteration: columns ``iteration``, ``time_s``,
        ``primal``, ``dual``, ``gap`` and the subclass's :attr:`EXTRAS`.
    history : dict of str to list
        The columns of ``HISTORY`` as Python lists (built from
        ``trace`` on access).
    """

    #: column -> Python type of its values in ``history`` (``bool`` means
    #: "> 0"); the keys of ``history``, in order
    HISTORY: dict = {"iteration": int, "time_s": float, "primal": float,
                     "dual": float, "gap": float}
    #: solver extras (``IterInfo`` attributes beyond the base five) kept in
    #: ``trace``
    EXTRAS: tuple = ()

    trace: Trace

    def _set_title(self, title) -> None:
        """Check and keep the figure's title (a str)."""
        if not isinstance(title, str):
            raise TypeError(f"title: expected a str, got {type(title).__name__}")
        self.title = title

    def _open(self) -> None:
        """Start with an empty ``trace`` and build ``fig`` and ``widget``
        (the subclass's ``_build_figure()`` and ``_render()``)."""
        self.trace = Trace()
        # drawn on a plain Figure first; the FigureWidget is built from it, so
        # that its construction state is what the browser draws (see
        # KnotExplorer.__init__)
        self.fig = self._build_figure()
        self._render()
        self.fig = FigureWidget(self.fig)
        self.widget = ipw.VBox([fluid(self.fig)])

    def _record(self, info: IterInfo) -> None:
        """Append one iteration to ``trace`` (only the base columns and
        :attr:`EXTRAS`, so that the trace's columns never change)."""
        if set(info.extras) != set(self.EXTRAS):
            info = IterInfo(info.iteration, info.time_s, info.primal, info.dual,
                            info.gap, **{c: info.extras[c] for c in self.EXTRAS})
        self.trace.append(info)

    def _load(self, columns: dict) -> None:
        """Replace ``trace`` by the given columns (each shape (m,)):
        ``iteration``, ``primal`` and :attr:`EXTRAS` are required;
        ``time_s``, ``dual`` and ``gap`` default to NaN."""
        m = len(columns["iteration"])
        cols = {c: np.asarray(columns.get(c, np.full(m, math.nan)),
                              dtype=np.int64 if c == "iteration" else float)
                for c in Trace.BASE + tuple(self.EXTRAS)}
        self.trace = Trace(cols)

    @property
    def history(self) -> dict[str, list]:
        """Raw values per recorded iteration: one list per column of
        ``HISTORY`` (Python ints, floats or bools), built from
        ``trace``."""
        if not len(self.trace):
            return {c: [] for c in self.HISTORY}
        out = {}
        for c, kind in self.HISTORY.items():
            values = self.trace[c].tolist()
            out[c] = [_as_bool(v) for v in values] if kind is bool else \
                [kind(v) for v in values]
        return out

    def _drawn(self, n: int) -> slice | np.ndarray:
        """The size guard of the monitors: which of the last ``n`` recorded
        points are drawn, all of them up to :data:`MAX_POINTS`, else every
        k-th (the last one kept), so that a replay of a million-iteration
        trace draws at most ``MAX_POINTS`` per line."""
        if n <= MAX_POINTS:
            return slice(None)
        step = -(-n // MAX_POINTS)                  # ceil(n / MAX_POINTS)
        return np.arange(n - 1, -1, -step)[::-1]

    def _column(self, name: str) -> np.ndarray:
        """Column ``name`` of ``trace`` (empty if nothing is recorded)."""
        if not len(self.trace):
            return np.empty(0, dtype=np.int64 if name == "iteration" else float)
        return self.trace[name]

    def _render(self) -> None:
        """Redraw the figure from ``trace``: each monitor draws its own
        panels (GapMonitor: objectives and gap; TronMonitor: also the
        gradient norm and trust region), so the base class has no drawing."""
        raise NotImplementedError(f"{type(self).__name__} must define _render()")

    def reset(self) -> None:
        """Forget every recorded iteration and clear the figure (a new fit
        starts)."""
        self.trace = Trace()
        self._render()

    def __len__(self) -> int:
        return len(self.trace)
