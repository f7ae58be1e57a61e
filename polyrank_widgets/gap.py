"""GapMonitor: live primal objective, dual objective and duality gap of any
polyrank solver.

Every polyrank driver calls ``callback(info)`` with an
:class:`polyrank.result.IterInfo` (``DESIGN.md``, "The callback contract");
a :class:`GapMonitor` is such a callable. Weak duality makes the gap
``P - D >= 0`` a certificate of sub-optimality: for SOPOPO see
``sopopo-label-ranking.txt``, Sec. 4 (the dual Eq. 30 of the batch problem
Eq. 26 and the convergence analysis of Sec. 4.3).
"""

from __future__ import annotations

import math
import time

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from polyrank.result import IterInfo
from polyrank.validation import check_int, check_positive

from ._monitor import TraceMonitor
from ._text import escape

__all__ = ["GapMonitor"]

_COLORS = {"primal": "#1f77b4", "dual": "#e07b00", "gap": "#2ca02c",
           "clipped": "#d62728"}


def _plot_gaps(gap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gaps as drawn on a log axis: non-positive values are lifted to a floor
    one decade below the smallest positive gap (1e-16 if there is none); NaN
    stays NaN. Returns (values to draw, mask of lifted points)."""
    positive = gap[gap > 0]
    floor = 0.1 * positive.min() if positive.size else 1e-16
    lifted = gap <= 0
    return np.where(lifted, floor, gap), lifted


def _objective_range(primal: np.ndarray, dual: np.ndarray):
    """(range or None, note or None) of the objective panel: when the first
    iterations are far outside the values of the rest (a cutting-plane or
    dual method whose first dual is -1e8 next to a primal of 30), the axis
    covers the last 90 % of the iterations and the note says what lies off
    it; else None (plotly's autorange)."""
    m = primal.shape[0]
    if m < 5:
        return None, None
    k0 = max(1, m // 10)
    tail = np.concatenate([primal[k0:], dual[k0:]])
    tail = tail[np.isfinite(tail)]
    head = np.concatenate([primal[:k0], dual[:k0]])
    head = head[np.isfinite(head)]
    if tail.size == 0 or head.size == 0:
        return None, None
    lo, hi = float(tail.min()), float(tail.max())
    span = max(hi - lo, 1e-12 * max(abs(lo), abs(hi), 1.0))
    off = head[(head < lo - 3 * span) | (head > hi + 3 * span)]
    if off.size == 0:
        return None, None
    worst = off[np.argmax(np.abs(off - (lo + hi) / 2))]
    return ([lo - 0.08 * span, hi + 0.08 * span],
            f"first iterations off the axis (down to {worst:.3g})" if worst < lo
            else f"first iterations off the axis (up to {worst:.3g})")


#: the most labelled ticks on a log axis of the gap (about 40 px apart on
#: the 230 px high lower panel: labels never overlap)
MAX_LOG_TICKS = 6


def _log_dtick(values: np.ndarray) -> str | int | None:
    """Tick spacing of the log gap axis: 1, 2 and 5 of each decade when the
    gaps span fewer than three decades (plotly would label every digit),
    else every k-th decade with k the smallest that keeps at most
    :data:`MAX_LOG_TICKS` labels (plotly labels every decade: 17 overlapping
    labels from 1e9 to 1e-8); None without a finite positive value."""
    v = values[np.isfinite(values) & (values > 0)]
    if not v.size:
        return None
    span = np.log10(v.max() / v.min())
    if span < 3:
        return "D2"
    return max(1, int(np.ceil((np.ceil(span) + 1) / MAX_LOG_TICKS)))


class GapMonitor(TraceMonitor):
    """Solver callback drawing primal and dual objectives and the duality gap
    against the iteration number.

    Source: the callback contract of ``polyrank.result`` (``DESIGN.md``);
    the gap P - D of SOPOPO is that of ``sopopo-label-ranking.txt``, Sec. 4
    (primal Eq. 26, dual Eq. 30).

    Parameters
    ----------
    title : str, optional
        Figure title, shown as literal text (escaped: no markup); the
        latest iteration, gap P - D and relative gap (P - D) / |P| are
        appended to it.
    log_y : bool, optional
        Draw the gap on a log axis (default). Gaps <= 0 (rounding at
        convergence) are drawn one decade below the smallest positive gap, in
        red; ``history`` keeps the raw values.
    max_points : int or None, optional
        If set (>= 1), only the most recent ``max_points`` iterations are
        drawn, which bounds the cost of each redraw; ``history`` keeps all.
    stop_at_gap : float or None, optional
        If set (>= 0), calling the monitor with ``info.gap <= stop_at_gap``
        raises :class:`StopIteration` after the point is recorded and drawn,
        which stops the solve with ``status="stopped by callback"``. By
        default the monitor never raises :class:`StopIteration`.
    min_redraw_s : float, optional
        Seconds between two redraws (default 0: every call redraws). Every
        call is recorded in ``history``; with a positive value a fast solver
        is not slowed by the figure (thousands of passes per second), and
        :meth:`flush` draws the points not yet drawn.

    Attributes
    ----------
    fig : plotly.graph_objects.FigureWidget
        Two rows sharing the x axis (iteration): top, traces ``"primal"`` and
        ``"dual"`` (objective values); bottom, trace ``"gap"`` (P - D).
    widget : ipywidgets.VBox
        The container Jupyter displays.
    trace : polyrank.result.Trace
        Every recorded iteration (columns ``iteration``, ``time_s``,
        ``primal``, ``dual``, ``gap``), as the solver's own trace holds them;
        ``GapMonitor().replay(mon.trace)`` draws the same picture.
    history : dict of str to list
        Raw values per call, keys ``"iteration"``, ``"time_s"`` (seconds,
        NaN if the info has none), ``"primal"``, ``"dual"``, ``"gap"``
        (built from ``trace``).

    Raises
    ------
    TypeError
        If ``title`` is not a str, ``log_y`` not a bool, ``max_points`` not an
        int or ``stop_at_gap`` not a real number.
    ValueError
        If ``max_points < 1`` or ``stop_at_gap`` is negative or not finite.

    Examples
    --------
    >>> from polyrank.result import IterInfo
    >>> mon = GapMonitor()
    >>> mon(IterInfo(1, 0.01, 2.0, 1.0, 1.0))
    >>> mon(IterInfo(2, 0.02, 1.5, 1.4, 0.1))
    >>> mon.history["gap"]
    [1.0, 0.1]
    """

    def __init__(self, title: str = "Duality gap", log_y: bool = True,
                 max_points: int | None = None,
                 stop_at_gap: float | None = None, min_redraw_s: float = 0.0) -> None:
        self._set_title(title)
        if not isinstance(log_y, (bool, np.bool_)):
            raise TypeError(f"log_y: expected a bool, got {type(log_y).__name__}")
        self.log_y = bool(log_y)
        self.max_points = (None if max_points is None
                           else check_int(max_points, "max_points", minimum=1))
        self.stop_at_gap = (None if stop_at_gap is None
                            else check_positive(stop_at_gap, "stop_at_gap", strict=False))
        self.min_redraw_s = check_positive(min_redraw_s, "min_redraw_s", strict=False)
        self._last_draw = -math.inf
        self._open()

    def _build_figure(self) -> go.Figure:
        fig = make_subplots(rows=2, cols=1, shared_xaxes=True,
                            vertical_spacing=0.09, row_heights=[0.5, 0.5])
        hover = "iteration %{x}<br>%{fullData.name} = %{y:.6g}<extra></extra>"
        for name in ("primal", "dual"):
            fig.add_trace(go.Scatter(
                name=name, mode="lines+markers", hovertemplate=hover,
                line=dict(color=_COLORS[name], width=2),
                marker=dict(size=5)), row=1, col=1)
        fig.add_trace(go.Scatter(
            name="gap", mode="lines+markers",
            hovertemplate="iteration %{x}<br>gap = %{customdata:.6g}<extra></extra>",
            line=dict(color=_COLORS["gap"], width=2), marker=dict(size=5)),
            row=2, col=1)
        fig.update_layout(
            template="plotly_white", width=820, height=560,
            margin=dict(l=80, r=20, t=80, b=60), hovermode="x unified",
            legend=dict(orientation="h", yanchor="bottom", y=1.02,
                        xanchor="right", x=1.0))
        fig.update_yaxes(title_text="objective value", row=1, col=1)
        fig.update_yaxes(title_text="gap P − D" + (" (log)" if self.log_y else ""),
                         type="log" if self.log_y else "linear",
                         exponentformat="power", row=2, col=1)
        fig.update_xaxes(title_text="iteration (solver pass, epoch or step)",
                         row=2, col=1)
        return fig

    def __call__(self, info) -> None:
        """Record one iteration and redraw.

        Parameters
        ----------
        info : polyrank.result.IterInfo
            Or any object with numeric attributes ``iteration``, ``primal``,
            ``dual``, ``gap`` (``time_s`` optional).

        Raises
        ------
        TypeError
            If ``info`` lacks one of the required attributes.
        StopIteration
            Only if ``stop_at_gap`` is set and ``info.gap <= stop_at_gap``.
        """
        try:
            row = {f: getattr(info, f) for f in ("iteration", "primal", "dual", "gap")}
        except AttributeError as exc:
            raise TypeError(f"info: expected an IterInfo (attributes iteration, "
                            f"primal, dual, gap), got {type(info).__name__}") from exc
        row["time_s"] = getattr(info, "time_s", math.nan)
        self._record(IterInfo(row["iteration"], row["time_s"], row["primal"],
                              row["dual"], row["gap"]))
        now = time.perf_counter()
        if now - self._last_draw >= self.min_redraw_s:
            self._last_draw = now
            self._render()
        if self.stop_at_gap is not None and row["gap"] <= self.stop_at_gap:
            raise StopIteration(f"gap {row['gap']:.3g} <= stop_at_gap "
                                f"{self.stop_at_gap:.3g}")

    def replay(self, trace) -> GapMonitor:
        """Clear the monitor and draw a finished trace.

        Parameters
        ----------
        trace : polyrank.result.Trace
            Or any object of length m with array attributes ``iteration``,
            ``primal``, ``dual``, ``gap`` (``time_s`` optional), each (m,).

        Returns
        -------
        GapMonitor
            ``self``, so that ``GapMonitor().replay(result.trace)`` displays.

        Raises
        ------
        TypeError
            If ``trace`` lacks one of the required columns.
        ValueError
            If the columns' lengths differ from ``len(trace)``.
        """
        try:
            m = len(trace)
            cols = {f: np.asarray(getattr(trace, f), dtype=float)
                    for f in ("iteration", "primal", "dual", "gap")}
        except (AttributeError, TypeError) as exc:
            raise TypeError(f"trace: expected a Trace (columns iteration, primal, "
                            f"dual, gap), got {type(trace).__name__}") from exc
        cols["time_s"] = np.asarray(getattr(trace, "time_s", np.full(m, np.nan)),
                                    dtype=float)
        for f, v in cols.items():
            if v.shape != (m,):
                raise ValueError(f"trace: column {f!r} has shape {v.shape}, "
                                 f"expected ({m},)")
        self._load(cols)
        self._render()
        return self

    def flush(self) -> None:
        """Draw every recorded point (after a solve, with ``min_redraw_s``)."""
        self._last_draw = time.perf_counter()
        self._render()

    def _render(self) -> None:
        sl = slice(-self.max_points, None) if self.max_points else slice(None)
        it = self._column("iteration")[sl]
        keep = self._drawn(it.size)             # the size guard: thinned past MAX_POINTS
        it = it[keep]
        primal = self._column("primal")[sl][keep]
        dual = self._column("dual")[sl][keep]
        gap = self._column("gap")[sl][keep]
        if self.log_y:
            drawn, lifted = _plot_gaps(gap)
        else:
            drawn, lifted = gap, np.zeros(gap.shape, bool)
        colors = np.where(lifted, _COLORS["clipped"], _COLORS["gap"])
        title = escape(self.title)
        if it.size:         # a second, smaller line: the title fits a 600 px panel
            title += f"<br><sup>iteration {int(it[-1])},  gap = {gap[-1]:.3g}"
            if primal[-1] != 0.0 and np.isfinite(primal[-1]):
                title += f" (relative {gap[-1] / abs(primal[-1]):.2g})"
            title += "</sup>"
        note = [dict(text=f"red: gap ≤ 0, drawn at {drawn[lifted][0]:.1e}",
                     xref="x2 domain", yref="y2 domain", x=1.0, y=1.0,
                     xanchor="right", yanchor="top", showarrow=False,
                     font=dict(color=_COLORS["clipped"], size=12))] if lifted.any() else []
        yrange, off = _objective_range(primal, dual)
        if off is not None:
            note.append(dict(text=off, xref="x domain", yref="y domain", x=1.0, y=1.0,
                             xanchor="right", yanchor="top", showarrow=False,
                             font=dict(color=_COLORS["clipped"], size=12)))
        with self.fig.batch_update():
            if yrange is None:
                self.fig.layout.yaxis.update(autorange=True, range=None)
            else:
                self.fig.layout.yaxis.update(autorange=False, range=yrange)
            p, d, gp = self.fig.data
            p.update(x=it, y=primal)
            d.update(x=it, y=dual)
            gp.update(x=it, y=drawn, customdata=gap, marker_color=colors)
            self.fig.layout.annotations = note
            if self.log_y:
                self.fig.layout.yaxis2.dtick = _log_dtick(drawn)
            # iterations are whole numbers: no 1.5, 2.5 ticks on a short fit
            dtick = 1 if it.size and it[-1] - it[0] < 10 else None
            for axis in (self.fig.layout.xaxis, self.fig.layout.xaxis2):
                axis.update(dtick=dtick, tickformat=",d")
            self.fig.layout.title = dict(text=title, x=0.0, xanchor="left",
                                         xref="paper")

    def __repr__(self) -> str:
        return f"GapMonitor({len(self)} points, log_y={self.log_y})"
