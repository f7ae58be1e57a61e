"""KnotExplorer: the reduced SOPOPO problem g(z; mu) + g(z; nu), its knots
and its minimiser, live.

Paper file ``sopopo-label-ranking.txt``, Sec. 3.3-3.4: the soft projection
(Eq. 7) reduces to ``min_{z in [0, C]} g(z; mu) + g(z; nu)`` with ``g`` of
Eq. 20/21. By Thm. 4, ``g`` is convex and piecewise quadratic between the
knots ``z_i = sum_{r<=i} mu_r - i mu_i``; Fig. 3 finds the minimiser by
sweeping the union of the knots, and Fig. 4 draws the picture this widget
reproduces.

The model is a pure function of ``(mu, nu, C)`` (:func:`_compute_scene`); the
view only copies its arrays into a plotly ``FigureWidget``.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

import ipywidgets as ipw
import numpy as np
import plotly.graph_objects as go

from polyrank.sopopo import g, knots, margins, solve_reduced
from polyrank.validation import as_float_array, check_int, check_positive

from ._display import WidgetDisplay
from ._layout import MAX_DRAWN, fluid, wrap_row
from ._plotly import FigureWidget
from ._text import failure_html

__all__ = ["KnotExplorer"]

_SOURCE = "SOPOPO, Sec. 3.4, Fig. 4"
_COLORS = {"mu": "#1f77b4", "nu": "#e07b00", "sum": "#222222",
           "star": "#d62728", "bracket": "rgba(255, 200, 0, 0.28)",
           "C": "#555555", "infeasible": "rgba(0, 0, 0, 0.06)"}


@dataclass(frozen=True)
class _Scene:
    """Everything the view draws, computed from (mu, nu, C) alone."""

    z: np.ndarray            # (n_grid,) plotting grid on [0, z_max]
    g_mu: np.ndarray         # (n_grid,) g(z; mu)
    g_nu: np.ndarray         # (n_grid,) g(z; nu)
    knots_mu: np.ndarray     # (p,) knots of mu, non-decreasing
    knots_nu: np.ndarray     # (q,) knots of nu, non-decreasing
    z_star: float
    f_star: float            # g(z*; mu) + g(z*; nu)
    interval: tuple          # bracketing interval (lo, hi)
    z_max: float
    solution: Any            # the object returned by solve_reduced


def _compute_scene(mu: np.ndarray, nu: np.ndarray, C: float,
                   n_grid: int) -> _Scene:
    sol = solve_reduced(mu, nu, C)
    km, kn = knots(mu), knots(nu)
    z_star = float(sol.z)
    z_max = 1.15 * max(km[-1], kn[-1], C, z_star)
    z = np.union1d(np.linspace(0.0, z_max, n_grid),
                   np.concatenate([km, kn, [C, z_star]]))
    zs = np.array([z_star])
    f_star = float(g(zs, mu)[0] + g(zs, nu)[0])
    lo, hi = (float(v) for v in sol.interval)
    return _Scene(z=z, g_mu=g(z, mu), g_nu=g(z, nu), knots_mu=km, knots_nu=kn,
                  z_star=z_star, f_star=f_star, interval=(lo, hi),
                  z_max=z_max, solution=sol)


#: the largest scale the explorer accepts: |entry| * (entries + 1) of mu and
#: nu, and C. g(z; .) squares sums of entries (and z up to about C), which
#: overflow float64 past about 1e154
MAX_SCALE = 1e150

#: the most grid points of the curves (``n_grid``)
MAX_GRID = 100_000


def _check_vector(vec: np.ndarray, name: str) -> np.ndarray:
    """``vec`` (mu or nu, finite, 1-d) unless it has more entries than a
    figure draws knots (:data:`MAX_DRAWN`) or a scale whose squared sums
    overflow (:data:`MAX_SCALE`): a ValueError naming ``name`` (it blamed an
    internal ``z`` full of inf)."""
    if vec.size > MAX_DRAWN:
        raise ValueError(f"{name}: {vec.size:,} entries; the explorer draws one knot per "
                         f"entry, at most {MAX_DRAWN:,}")
    big = float(np.max(np.abs(vec), initial=0.0))
    if big * (vec.size + 1) > MAX_SCALE:
        raise ValueError(f"{name}: an entry of magnitude {big:.3g} overflows g(z; {name}), "
                         f"which squares sums of the entries (at most {MAX_SCALE:g} / "
                         f"(len({name}) + 1) = {MAX_SCALE / (vec.size + 1):.3g}): divide "
                         "mu, nu and C by the same factor (z* scales with them)")
    return vec


def _check_C(C, name: str = "C") -> float:
    """C > 0, finite and at most :data:`MAX_SCALE` (ValueError naming it)."""
    C = check_positive(C, name)
    if C > MAX_SCALE:
        raise ValueError(f"{name}: {C:.3g} overflows g(z; .) on [0, C] (at most "
                         f"{MAX_SCALE:g}): divide mu, nu and C by the same factor")
    return C


def _fmt(v: float) -> str:
    return f"{v:.4g}"


class KnotExplorer(WidgetDisplay):
    """Interactive plot of g(z; mu), g(z; nu), their sum, the knots and the
    minimiser z* over [0, C].

    Source: ``sopopo-label-ranking.txt``, Sec. 3.3 (Eq. 19-21, Thm. 4) and
    Sec. 3.4 (Fig. 3, Fig. 4).

    Parameters
    ----------
    mu : array_like, shape (p,)
        Margins of the labels in A, ``(y_a - u_a.x) / ||x||^2``
        (Eq. 19; units of y divided by ||x||^2). Any order.
    nu : array_like, shape (q,)
        Margins of the labels in B, ``(u_b.x - y_b) / ||x||^2``.
    C : float
        Upper bound on z = sum(alpha) = sum(beta) (Eq. 19), > 0.
    n_grid : int, optional
        Number of evenly spaced plotting points (>= 2); the knots, C and z*
        are always added to the grid, so every kink is drawn exactly.

    Attributes
    ----------
    fig : plotly.graph_objects.FigureWidget
        Line traces ``"g(z; μ)"``, ``"g(z; ν)"``, ``"sum"``; marker traces
        ``"knots of μ"``, ``"knots of ν"`` (on their curves) and ``"z*"``
        (on the sum); layout shapes named ``"bracket"`` (the interval between
        consecutive knots of the union that contains z*), ``"C"`` (vertical
        line) and ``"z > C"`` (the infeasible region).
    widget : ipywidgets.HBox
        The figure next to the controls and the readout; what Jupyter shows.
    C_slider : ipywidgets.FloatLogSlider
        Sets ``C`` (calls :meth:`set_C`).
    entry_dropdown : ipywidgets.Dropdown
        Chooses the entry ``"mu[0]"``, ..., ``"nu[q-1]"`` that
        ``entry_slider`` edits; its values are ``("mu", i)`` / ``("nu", j)``.
    entry_slider : ipywidgets.FloatSlider
        Sets the chosen entry (calls :meth:`set_entry`).
    readout : ipywidgets.HTML
        z*, C, the bracket, theta_alpha, theta_beta and every alpha, beta.

    Raises
    ------
    TypeError
        If ``mu``, ``nu`` are not real arrays, ``C`` is not a real number or
        ``n_grid`` is not an int.
    ValueError
        If ``mu`` or ``nu`` is empty, not 1-d or not finite, has more than
        :data:`~polyrank_widgets._layout.MAX_DRAWN` entries or entries so
        large that g overflows (abs(entry) * (len + 1) > :data:`MAX_SCALE`,
        e.g. 1e308), if ``C <= 0``, not finite or above ``MAX_SCALE``, or if
        ``n_grid`` is not in [2, :data:`MAX_GRID`].

    See Also
    --------
    polyrank.sopopo.solve_reduced : the solver each update calls.

    Examples
    --------
    >>> ex = KnotExplorer.paper_fig4(C=10.0)
    >>> round(ex.z_star, 6)
    4.6
    >>> ex.set_C(3.0)
    >>> ex.z_star
    3.0
    """

    def __init__(self, mu, nu, C, *, n_grid: int = 401) -> None:
        self._mu = _check_vector(as_float_array(mu, "mu", ndim=1), "mu")
        self._nu = _check_vector(as_float_array(nu, "nu", ndim=1), "nu")
        self._C = _check_C(C)
        self._n_grid = check_int(n_grid, "n_grid", minimum=2)
        if self._n_grid > MAX_GRID:
            raise ValueError(f"n_grid: at most {MAX_GRID:,} grid points, got {self._n_grid:,}")
        self._syncing = False
        self._scene = _compute_scene(self._mu, self._nu, self._C, self._n_grid)
        # the first picture is drawn on a plain Figure and the FigureWidget is
        # built from it: its construction state is what the browser draws
        # (edits sent before the widget is shown are not reliably applied in
        # JupyterLab; tests/browser)
        self.fig = self._build_figure()
        self._build_controls()
        self._render()
        self.fig = FigureWidget(self.fig)
        self.widget = wrap_row(fluid(self.fig), self._controls)

    # ------------------------------------------------------------ builders
    @classmethod
    def from_projection(cls, x, y, U, A, B, C, **kwargs) -> KnotExplorer:
        """Build the explorer for one soft projection (Eq. 7).

        Source: ``sopopo-label-ranking.txt``, Sec. 3.2 (definition of mu and
        nu before Eq. 19) and Fig. 3 (MARGINS).

        Parameters
        ----------
        x, y, U, A, B : array_like
            The instance (non-zero), target ranking, prototypes (rows) and
            the bipartite piece E = A x B, as in :func:`polyrank.sopopo.margins`.
        C : float
            Upper bound of Eq. 7, > 0.
        **kwargs
            Passed to the constructor (``n_grid``).

        Returns
        -------
        KnotExplorer
            With ``mu``, ``nu`` from :func:`polyrank.sopopo.margins`.

        Raises
        ------
        TypeError, ValueError
            As raised by :func:`polyrank.sopopo.margins` (naming the
            argument) or by the constructor.
        """
        check_positive(C, "C")
        mu, nu = margins(x, y, U, A, B)
        return cls(mu, nu, C, **kwargs)

    @classmethod
    def paper_fig4(cls, C: float = 10.0, **kwargs) -> KnotExplorer:
        """The example of Fig. 4 of the paper.

        y = (1, ..., 6), u.x = (2, 3, 5, 1, 6, 4), A = {4, 5, 6},
        B = {1, 2, 3} (1-based) and ||x|| = 1, so mu = (3, -1, 2) and
        nu = (1, 1, 2). The minimum, z* = 4.6 for C >= 4.6, lies "just below
        5 at the interval defined by the second and third knots" (Sec. 3.4).

        Source: ``sopopo-label-ranking.txt``, Fig. 4 and Sec. 3.4.

        Parameters
        ----------
        C : float, optional
            Upper bound on z, > 0 (the paper discusses 10 and 3).
        **kwargs
            Passed to the constructor (``n_grid``).

        Returns
        -------
        KnotExplorer

        Raises
        ------
        TypeError, ValueError
            If ``C`` is not a finite real number > 0.
        """
        x = np.array([1.0])
        y = np.arange(1.0, 7.0)
        U = np.array([[2.0], [3.0], [5.0], [1.0], [6.0], [4.0]])
        return cls.from_projection(x, y, U, np.array([3, 4, 5]),
                                   np.array([0, 1, 2]), C, **kwargs)

    def _build_figure(self) -> go.Figure:
        c = _COLORS
        line_hover = "z = %{x:.4g}<br>%{fullData.name} = %{y:.4g}<extra></extra>"
        knot_hover = "knot z = %{x:.4g}<br>g = %{y:.4g}<extra>%{fullData.name}</extra>"
        traces = [
            go.Scatter(name="g(z; μ)", mode="lines", hovertemplate=line_hover,
                       line=dict(color=c["mu"], width=2)),
            go.Scatter(name="g(z; ν)", mode="lines", hovertemplate=line_hover,
                       line=dict(color=c["nu"], width=2.5, dash="dot")),
            go.Scatter(name="sum", mode="lines", hovertemplate=line_hover,
                       line=dict(color=c["sum"], width=3.5)),
            go.Scatter(name="knots of μ", mode="markers", hovertemplate=knot_hover,
                       marker=dict(color=c["mu"], size=10, symbol="diamond",
                                   line=dict(color="white", width=1))),
            go.Scatter(name="knots of ν", mode="markers", hovertemplate=knot_hover,
                       marker=dict(color=c["nu"], size=10, symbol="diamond",
                                   line=dict(color="white", width=1))),
            go.Scatter(name="z*", mode="markers+text", textposition="top center",
                       textfont=dict(color=c["star"], size=14),
                       hovertemplate="z* = %{x:.6g}<br>min = %{y:.6g}<extra></extra>",
                       marker=dict(color=c["star"], size=18, symbol="star",
                                   line=dict(color="white", width=1))),
        ]
        layout = go.Layout(
            template="plotly_white", width=820, height=510,
            margin=dict(l=70, r=20, t=108, b=60),
            xaxis=dict(title=dict(text="z = Σ α = Σ β   (total dual mass; feasible for 0 ≤ z ≤ C)"),
                       zeroline=False),
            yaxis=dict(title=dict(text="g(z; ·) = min { ½‖α − μ‖² : Σα = z, α ≥ 0 }"),
                       rangemode="tozero"),
            legend=dict(orientation="h", yanchor="bottom", y=1.02, xanchor="left",
                        x=0.0),
            hovermode="closest",
        )
        return go.Figure(data=traces, layout=layout)

    def _build_controls(self) -> None:
        e = np.log10(self._C)
        self.C_slider = ipw.FloatLogSlider(
            value=self._C, base=10, min=float(np.floor(e) - 2),
            max=float(np.ceil(e) + 2),
            step=0.01, description="C", readout_format=".3g",
            continuous_update=True, layout=ipw.Layout(width="320px"))
        options = ([(f"mu[{i}]", ("mu", i)) for i in range(self._mu.size)]
                   + [(f"nu[{j}]", ("nu", j)) for j in range(self._nu.size)])
        self.entry_dropdown = ipw.Dropdown(options=options, value=("mu", 0),
                                           description="entry",
                                           layout=ipw.Layout(width="320px"))
        self.entry_slider = ipw.FloatSlider(
            value=float(self._mu[0]), description="value", readout_format=".3g",
            continuous_update=True, layout=ipw.Layout(width="320px"))
        self._fit_entry_range(float(self._mu[0]))
        self.readout = ipw.HTML(layout=ipw.Layout(width="320px"))
        self.C_slider.observe(self._on_C, names="value")
        self.entry_dropdown.observe(self._on_entry_choice, names="value")
        self.entry_slider.observe(self._on_entry_value, names="value")
        self._controls = ipw.VBox([self.C_slider, self.entry_dropdown,
                                   self.entry_slider, self.readout])

    # ------------------------------------------------------------ state
    @property
    def mu(self) -> np.ndarray:
        """Current mu, shape (p,), in the given (unsorted) order (a copy)."""
        return self._mu.copy()

    @property
    def nu(self) -> np.ndarray:
        """Current nu, shape (q,), in the given order (a copy)."""
        return self._nu.copy()

    @property
    def C(self) -> float:
        """Current upper bound C on z (> 0)."""
        return self._C

    @property
    def z_star(self) -> float:
        """The minimiser z* of g(z; mu) + g(z; nu) over [0, C] (Fig. 3)."""
        return self._scene.z_star

    @property
    def alpha(self) -> np.ndarray:
        """Optimal alpha of Eq. 19, shape (p,), in the order of mu (a copy)."""
        return np.array(self._scene.solution.alpha, dtype=float)

    @property
    def beta(self) -> np.ndarray:
        """Optimal beta of Eq. 19, shape (q,), in the order of nu (a copy)."""
        return np.array(self._scene.solution.beta, dtype=float)

    @property
    def solution(self):
        """The full :class:`polyrank.sopopo.ReducedSolution` at the current
        (mu, nu, C): z*, alpha, beta, theta_alpha, theta_beta, the bracketing
        ``interval``, R, S and the objective."""
        return self._scene.solution

    @property
    def knots_mu(self) -> np.ndarray:
        """The knots of g(z; mu) (Thm. 4), shape (p,)."""
        return knots(self._mu)

    @property
    def knots_nu(self) -> np.ndarray:
        """The knots of g(z; nu) (Thm. 4), shape (q,)."""
        return knots(self._nu)

    def set_C(self, C) -> None:
        """Set the upper bound C and redraw (what ``C_slider`` calls).

        Parameters
        ----------
        C : float
            New bound, > 0. The slider's range widens if needed.

        Raises
        ------
        TypeError
            If ``C`` is not a real number.
        ValueError
            If ``C`` is not finite or ``C <= 0``.
        """
        self._C = _check_C(C)
        self._update()
        with self._sync():
            e = np.log10(self._C)
            self.C_slider.min = float(min(self.C_slider.min, np.floor(e) - 1))
            self.C_slider.max = float(max(self.C_slider.max, np.ceil(e) + 1))
            self.C_slider.value = self._C

    def set_entry(self, which: str, index: int, value) -> None:
        """Set ``mu[index]`` or ``nu[index]`` to ``value`` and redraw (what
        ``entry_slider`` calls). The dropdown and slider follow the entry.

        Parameters
        ----------
        which : {"mu", "nu"}
            Which vector to edit.
        index : int
            0-based position in that vector, ``0 <= index < len``.
        value : float
            New finite value.

        Raises
        ------
        TypeError
            If ``index`` is not an int or ``value`` not a real number.
        ValueError
            If ``which`` is not "mu" or "nu", ``index`` is out of range or
            ``value`` is not finite.
        """
        if which not in ("mu", "nu"):
            raise ValueError(f"which: expected 'mu' or 'nu', got {which!r}")
        vec = self._mu if which == "mu" else self._nu
        index = check_int(index, "index", minimum=0)
        if index >= vec.size:
            raise ValueError(f"index: must be < len({which}) = {vec.size}, got {index}")
        value = float(as_float_array(value, "value", ndim=0))
        trial = vec.copy()
        trial[index] = value
        _check_vector(trial, "value")
        vec[index] = value
        self._update()
        with self._sync():
            self.entry_dropdown.value = (which, index)
            self._fit_entry_range(value)
            self.entry_slider.value = value

    # ------------------------------------------------------------ plumbing
    def _update(self) -> None:
        self._scene = _compute_scene(self._mu, self._nu, self._C, self._n_grid)
        self._render()

    def _fit_entry_range(self, value: float) -> None:
        r = max(1.0, 2.0 * float(np.max(np.abs(np.concatenate(
            [self._mu, self._nu])))), 1.5 * abs(value))
        r = float(np.ceil(r))
        s = self.entry_slider
        if r > s.max or -r < s.min:
            s.max, s.min = r, -r   # max first: min may not exceed max
            s.step = r / 500.0

    def _on_C(self, change) -> None:
        if not self._syncing:
            self._shown(self.set_C, change["new"])

    def _on_entry_choice(self, change) -> None:
        which, i = change["new"]
        value = float((self._mu if which == "mu" else self._nu)[i])
        with self._sync():
            self._fit_entry_range(value)
            self.entry_slider.value = value

    def _on_entry_value(self, change) -> None:
        if not self._syncing:
            self._shown(self.set_entry, *self.entry_dropdown.value, change["new"])

    def _shown(self, action, *args) -> None:
        """``action(*args)`` for a control; an exception is shown in the
        readout ("update failed", the message, the traceback folded)
        instead of dying in the widget's event handler."""
        try:
            action(*args)
        except Exception as exc:  # the readout says why; the last picture stays
            self.readout.value = failure_html("update", exc, traceback.format_exc())

    def _render(self) -> None:
        s, c = self._scene, _COLORS
        lo, hi = s.interval
        g_km = g(s.knots_mu, self._mu)
        g_kn = g(s.knots_nu, self._nu)
        shapes = [
            dict(type="rect", name="z > C", layer="below", xref="x", yref="paper",
                 x0=self._C, x1=max(s.z_max, self._C), y0=0, y1=1,
                 fillcolor=c["infeasible"], line_width=0,
                 label=dict(text="z > C", textposition="bottom center",
                            font=dict(color=c["C"], size=12))),
            dict(type="rect", name="bracket", showlegend=True, layer="below",
                 xref="x", yref="paper", x0=lo, x1=hi, y0=0, y1=1,
                 fillcolor=c["bracket"], line_width=0),
            dict(type="line", name="C", showlegend=True, xref="x", yref="paper",
                 x0=self._C, x1=self._C, y0=0, y1=1,
                 line=dict(color=c["C"], width=2, dash="dash"),
                 label=dict(text=f"C = {_fmt(self._C)} ", textposition="end",
                            textangle=0, xanchor="right", yanchor="top",
                            font=dict(color=c["C"], size=13))),
        ]
        with self.fig.batch_update():
            t = {tr.name: tr for tr in self.fig.data}
            t["g(z; μ)"].update(x=s.z, y=s.g_mu)
            t["g(z; ν)"].update(x=s.z, y=s.g_nu)
            t["sum"].update(x=s.z, y=s.g_mu + s.g_nu)
            t["knots of μ"].update(x=s.knots_mu, y=g_km)
            t["knots of ν"].update(x=s.knots_nu, y=g_kn)
            t["z*"].update(x=[s.z_star], y=[s.f_star],
                           text=[f"z* = {_fmt(s.z_star)}"])
            self.fig.layout.shapes = shapes
            # a small margin left of 0 keeps the knot markers at z = 0 whole
            self.fig.layout.xaxis.range = [-0.02 * s.z_max, s.z_max]
            # the second line is part of the title text, not a plotly
            # subtitle: a subtitle is placed by measuring the title, which
            # reads 0 in a widget drawn before it is attached to the page
            # (the two overlapped in JupyterLab; tests/browser)
            self.fig.layout.title = dict(
                text=(f"Minimiser of g(z; μ) + g(z; ν):  z* = {_fmt(s.z_star)},  "
                      f"C = {_fmt(self._C)}<br><span style='font-size:13px'>"
                      f"z* lies in the bracket [{_fmt(lo)}, {_fmt(hi)}] "
                      f"between consecutive knots  ·  {_SOURCE}</span>"),
                x=0.0, xanchor="left", xref="paper", y=0.97, yanchor="top",
                yref="container")
        self.readout.value = self._readout_html()

    def _readout_html(self) -> str:
        s = self._scene
        sol = s.solution
        lo, hi = s.interval

        def table(name, greek, vec, dual, dual_name):
            td = "style='padding:1px 10px 1px 0;text-align:right'"
            rows = "".join(f"<tr><td {td}>{name}[{i}]</td><td {td}>{_fmt(v)}</td>"
                           f"<td {td}>{_fmt(a)}</td></tr>" for i, (v, a) in
                           enumerate(zip(vec, dual)))
            return (f"<table style='border-collapse:collapse;margin-right:16px'>"
                    f"<tr><th {td}></th><th {td}>{greek}</th><th {td}>{dual_name}</th></tr>"
                    f"{rows}</table>")

        return (
            "<div style='font-family:monospace;line-height:1.4'>"
            f"<b>z*</b> = {_fmt(s.z_star)} &nbsp; <b>C</b> = {_fmt(self._C)}<br>"
            f"bracket [{_fmt(lo)}, {_fmt(hi)}]<br>"
            f"min g(z;μ)+g(z;ν) = {_fmt(s.f_star)}<br>"
            f"θ<sub>α</sub> = {_fmt(float(sol.theta_alpha))} &nbsp; "
            f"θ<sub>β</sub> = {_fmt(float(sol.theta_beta))}<br>"
            "<div style='display:flex'>"
            + table("mu", "μ", self._mu, self.alpha, "α")
            + table("nu", "ν", self._nu, self.beta, "β")
            + "</div></div>")

    def __repr__(self) -> str:
        return (f"KnotExplorer(p={self._mu.size}, q={self._nu.size}, "
                f"C={_fmt(self._C)}, z*={_fmt(self.z_star)})")
