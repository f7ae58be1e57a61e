"""TronMonitor: the TRON log (f, ||grad f||, trust-region radius, CG steps)
drawn live.

``large-scale-linear-ranksvm.txt``, Sec. 4.1: every TRON step solves the
trust-region subproblem Eq. 4.1 by conjugate gradients (one Hessian-vector
product per CG step), accepts or rejects the step by the ratio of actual to
predicted reduction (Eq. 4.2) and updates the radius delta (Eq. 4.3); it
stops at ||grad f(w)|| <= tol ||grad f(0)|| (Eq. 4.4).  LIBLINEAR prints one
line per step (``iter f |g| delta CG``); this widget draws those columns.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from polyrank.result import IterInfo
from polyrank.validation import check_positive

from ._monitor import TraceMonitor
from ._text import escape
from .gap import _log_dtick

__all__ = ["TronMonitor"]

_COLOR = "#1f77b4"
_REJECTED = "#d62728"


class TronMonitor(TraceMonitor):
    """Solver callback for :func:`polyrank.tron.tron` (and everything built
    on it, e.g. :class:`polyrank.RankSVM`) drawing f(w), ||grad f(w)||, the
    trust-region radius delta and the CG iterations of every step.

    Source: ``large-scale-linear-ranksvm.txt``, Sec. 4.1 (Eq. 4.1-4.4).

    Parameters
    ----------
    title : str, optional
        Figure title, shown as literal text (escaped: no markup); the latest
        step, f and ||grad f|| are appended.
    grad_norm0 : float or None, optional
        ||grad f(0)||; with ``tol`` it draws the stopping level of Eq. 4.4
        on the gradient panel (``result.grad_norm0`` after a solve).
    tol : float, optional
        The tolerance of Eq. 4.4, the paper's epsilon_s (default 1e-3).

    Attributes
    ----------
    fig : plotly.graph_objects.FigureWidget
        2 x 2 panels: ``"f"`` (top left), ``"grad_norm"`` (top right, log),
        ``"delta"`` (bottom left), ``"cg_iter"`` (bottom right, bars);
        rejected steps are drawn in red.
    widget : ipywidgets.VBox
    trace : polyrank.result.Trace
        Every recorded step: the base columns and TRON's extras
        ``grad_norm``, ``delta``, ``cg_iter``, ``accepted`` (1 or 0), as in
        the solver's own trace.
    history : dict of str to list
        Raw values per call (keys ``iteration``, ``primal``, ``grad_norm``,
        ``delta``, ``cg_iter``, ``accepted``), built from ``trace``.

    Raises
    ------
    TypeError
        If ``title`` is not a str.
    ValueError
        If ``grad_norm0`` or ``tol`` is not a positive finite number.

    Examples
    --------
    >>> from polyrank.result import IterInfo
    >>> mon = TronMonitor()
    >>> mon(IterInfo(1, 0.1, 5.0, float("nan"), float("nan"), grad_norm=2.0,
    ...              delta=1.0, cg_iter=3.0, accepted=1.0))
    >>> mon.history["cg_iter"]
    [3]
    """

    HISTORY = {"iteration": int, "primal": float, "grad_norm": float, "delta": float,
               "cg_iter": int, "accepted": bool}
    EXTRAS = ("grad_norm", "delta", "cg_iter", "accepted")

    def __init__(self, title: str = "TRON", grad_norm0: float | None = None,
                 tol: float = 1e-3) -> None:
        self._set_title(title)
        self.tol = check_positive(tol, "tol")
        self.grad_norm0 = None if grad_norm0 is None else check_positive(grad_norm0,
                                                                          "grad_norm0")
        self._open()

    def _build_figure(self) -> go.Figure:
        fig = make_subplots(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.12,
                            horizontal_spacing=0.12, subplot_titles=(
                                "f(w)", "||grad f(w)||", "trust-region radius delta",
                                "CG iterations (Hessian-vector products)"))
        for name, row, col in (("f", 1, 1), ("grad_norm", 1, 2), ("delta", 2, 1)):
            fig.add_trace(go.Scatter(name=name, mode="lines+markers", showlegend=False,
                                     line=dict(color=_COLOR, width=2), marker=dict(size=6)),
                          row=row, col=col)
        fig.add_trace(go.Bar(name="cg_iter", showlegend=False, marker_color=_COLOR),
                      row=2, col=2)
        fig.update_yaxes(type="log", exponentformat="power", row=1, col=2)
        fig.update_xaxes(title_text="trust-region step", row=2, col=1)
        fig.update_xaxes(title_text="trust-region step", row=2, col=2)
        fig.update_layout(template="plotly_white", width=900, height=560,
                          margin=dict(l=70, r=20, t=90, b=60))
        return fig

    def __call__(self, info) -> None:
        """Record one TRON step and redraw.

        Parameters
        ----------
        info : polyrank.result.IterInfo
            With TRON's extras ``grad_norm``, ``delta``, ``cg_iter``
            (``accepted`` optional, default 1).

        Raises
        ------
        TypeError
            If ``info`` lacks those attributes (e.g. it comes from a solver
            that is not TRON).
        """
        try:
            row = IterInfo(info.iteration, getattr(info, "time_s", np.nan), info.primal,
                           getattr(info, "dual", np.nan), getattr(info, "gap", np.nan),
                           grad_norm=float(info.grad_norm), delta=float(info.delta),
                           cg_iter=float(int(info.cg_iter)),
                           accepted=float(bool(getattr(info, "accepted", 1.0))))
        except AttributeError as exc:
            raise TypeError("info: expected a TRON IterInfo (extras grad_norm, delta, "
                            f"cg_iter), got {info!r}") from exc
        self._record(row)
        self._render()

    def replay(self, trace) -> TronMonitor:
        """Clear the monitor and draw a finished TRON trace (``result.trace``).

        Raises
        ------
        TypeError
            If ``trace`` lacks TRON's columns.
        """
        try:
            cols = {"iteration": np.asarray(trace.iteration, dtype=np.int64),
                    "primal": np.asarray(trace.primal, dtype=float),
                    "grad_norm": np.asarray(trace.grad_norm, dtype=float),
                    "delta": np.asarray(trace.delta, dtype=float),
                    "cg_iter": np.asarray(trace.cg_iter).astype(np.int64).astype(float),
                    "accepted": (np.asarray(trace.accepted) > 0).astype(float)}
        except AttributeError as exc:
            raise TypeError("trace: expected a TRON Trace (columns grad_norm, delta, "
                            "cg_iter, accepted)") from exc
        for c in ("time_s", "dual", "gap"):
            if hasattr(trace, c):
                cols[c] = np.asarray(getattr(trace, c), dtype=float)
        self._load(cols)
        self._render()
        return self

    def _render(self) -> None:
        keep = self._drawn(len(self))           # the size guard: thinned past MAX_POINTS
        h = {name: np.asarray(v)[keep].tolist() for name, v in self.history.items()}
        it = np.asarray(h["iteration"], dtype=np.int64)
        colors = [_COLOR if a else _REJECTED for a in h["accepted"]]
        title = escape(self.title)
        if len(it):
            title += (f": step {h['iteration'][-1]},  f = {h['primal'][-1]:.8g},  "
                      f"||grad f|| = {h['grad_norm'][-1]:.3g}")
        shapes = []
        if self.grad_norm0 is not None:
            level = self.tol * self.grad_norm0
            shapes = [dict(type="line", xref="x2 domain", x0=0, x1=1, yref="y2",
                           y0=level, y1=level, line=dict(dash="dot", color="grey"))]
        with self.fig.batch_update():
            f, g, d, cg = self.fig.data
            f.update(x=it, y=h["primal"], marker_color=colors)
            g.update(x=it, y=h["grad_norm"], marker_color=colors)
            d.update(x=it, y=h["delta"], marker_color=colors)
            cg.update(x=it, y=h["cg_iter"], marker_color=colors)
            self.fig.layout.shapes = shapes
            grad = np.asarray(h["grad_norm"], dtype=float)
            if self.grad_norm0 is not None:
                grad = np.append(grad, self.tol * self.grad_norm0)
            self.fig.layout.yaxis2.dtick = _log_dtick(grad)
            self.fig.layout.title = dict(text=title, x=0.0, xanchor="left", xref="paper")

    def __repr__(self) -> str:
        return f"TronMonitor({len(self)} steps)"
