"""The paper views of :class:`~polyrank_widgets.SolverLab`, one per
estimator (see the lab's module docstring): TRON's log, the sign toggles and
coefficient bars, the ordinal curves, the M3L prior editor and the LabelRanker
example's projection.  Each takes the lab and has ``widget``, ``figures()``
and ``update(fitted_estimator)``."""

from __future__ import annotations

import ipywidgets as ipw
import numpy as np
import plotly.graph_objects as go
from sklearn.pipeline import Pipeline

from ._estimators import last_step
from ._layout import MAX_DRAWN, fluid, too_many, wrap_row
from ._plotly import FigureWidget
from ._text import escape
from .decomposition import DecompositionViewer
from .knots import KnotExplorer
from .tron import TronMonitor

__all__ = ["make_view", "MAX_CURVES"]

#: the most threshold curves f(x) = p_k the ordinal view draws (one contour
#: trace on a 120 x 120 grid each); more ordered labels: a summary
MAX_CURVES = 50

def make_view(lab):
    """The paper view of ``lab.final`` (see the module docstring), or None.

    Parameters
    ----------
    lab : SolverLab
        Its ``final`` estimator picks the view; ``X`` and ``y`` size it.

    Returns
    -------
    object or None
        A view with ``widget``, ``figures()`` and ``update(estimator)``; None
        for an estimator without one (a kernel LabelRanker, an ordinal model
        on more than two features).
    """
    from polyrank import (
        LabelRanker,
        M3LClassifier,
        OrdinalMarginRanker,
        PRank,
        RankSVM,
        SignConstrainedClassifier,
        SignConstrainedRegressor,
    )

    est = lab.final
    if isinstance(est, RankSVM):
        return _TronView()
    if isinstance(est, (SignConstrainedClassifier, SignConstrainedRegressor)):
        return _SignView(lab)
    if isinstance(est, (OrdinalMarginRanker, PRank)):
        return _CurvesView(lab) if np.shape(lab.X)[1] == 2 else None
    if isinstance(est, M3LClassifier):
        return _RView(lab)
    if isinstance(est, LabelRanker):
        return _ProjectionView(lab) if est.kernel == "linear" else None
    return None


class _TronView:
    """TRON's log of the running RankSVM fit."""

    def __init__(self) -> None:
        self.monitor = TronMonitor(title="RankSVM: TRON steps")
        self.widget = self.monitor.widget

    def start(self) -> None:
        self.monitor.reset()

    def figures(self) -> list:
        return [self.monitor.fig]

    def callback(self, info) -> None:
        if hasattr(info, "grad_norm"):
            self.monitor(info)

    def update(self, est) -> None:
        est = last_step(est)[1]
        self.monitor.grad_norm0 = est.result_.get("grad_norm0")
        self.monitor.tol = float(est.tol)
        self.monitor._render()


class _SignView:
    """Coefficient bars and one sign toggle per feature (c_h in {-1, 0, +1})."""

    _CHOICES = [("+", 1), ("free", 0), ("−", -1)]

    def __init__(self, lab) -> None:
        self.lab = lab
        d = np.shape(lab.X)[1]
        self.guard = too_many(d, "features (coefficient bars and sign toggles)")
        if self.guard is not None:
            self.fig, self.toggles = None, []
            self.summary = ipw.HTML(f"<i>{escape(self.guard)}</i>")
            self.widget = self.summary
            return
        names = getattr(lab.X, "columns", None)
        self.names = [str(c) for c in names] if names is not None else [f"x{h}" for h in range(d)]
        signs = lab.final.signs
        start = (np.zeros(d, int) if signs is None or isinstance(signs, dict)
                 else np.asarray(signs, dtype=int).reshape(-1)[:d])
        self.toggles = []
        for h in range(d):
            t = ipw.ToggleButtons(options=self._CHOICES, value=int(start[h]),
                                  description=self.names[h],
                                  style={"button_width": "44px", "description_width": "110px"})
            t.observe(self._on_toggle, names="value")
            self.toggles.append(t)
        # the names as plotly shows them: escaped (a name is text, not markup)
        self._shown = np.array([escape(n) for n in self.names], dtype=object)
        fig = go.Figure(go.Bar(x=self._shown.tolist(), y=np.zeros(d), name="coef",
                               marker_color="#1f77b4"))
        fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="held at 0 by its sign",
                                 marker=dict(symbol="x", size=9, color="#d62728")))
        fig.update_layout(template="plotly_white", width=620, height=360,
                          title="coefficients w_h (red x: held at 0 by its sign)",
                          legend=dict(orientation="h", y=1.08, x=1.0, xanchor="right"),
                          margin=dict(l=60, r=20, t=60, b=80), yaxis_title="w_h")
        self.fig = FigureWidget(fig)
        box = ipw.VBox(self.toggles,
                       layout=ipw.Layout(max_height="360px", overflow="auto"))
        self.widget = wrap_row(fluid(self.fig), box)

    def figures(self) -> list:
        return [] if self.fig is None else [self.fig]

    def signs(self) -> np.ndarray:
        """The signs the toggles set, shape (n_features,)."""
        return np.array([t.value for t in self.toggles], dtype=float)

    def _on_toggle(self, change) -> None:
        self.lab.set_params(signs=self.signs())

    def update(self, est) -> None:
        coef = np.asarray(last_step(est)[1].coef_, dtype=float)
        w = coef[0] if coef.ndim == 2 and coef.shape[0] == 1 else coef
        if w.ndim == 2:            # multiclass: the norm over classes, signed by the sum
            w = np.sign(w.sum(0)) * np.linalg.norm(w, axis=0)
        if self.fig is None:
            self.summary.value = _coef_summary(self.guard, w)
            return
        c = self.signs()
        held = (c != 0) & (np.abs(w) <= 1e-12)
        with self.fig.batch_update():
            self.fig.data[0].y = w
            self.fig.data[1].x = self._shown[held].tolist()
            self.fig.data[1].y = np.zeros(int(held.sum())).tolist()


def _coef_summary(guard: str, w: np.ndarray, top: int = 10) -> str:
    """The summary view of many coefficients: the guard's message, how many
    are non-zero, and the ``top`` largest in magnitude."""
    order = np.argsort(-np.abs(w), kind="stable")[:top]
    cells = "".join(f"<tr><td>x{int(h)}</td><td>{w[h]:+.4g}</td></tr>" for h in order)
    return (f"<i>{escape(guard)}</i><br>{int(np.count_nonzero(w)):,} of {w.size:,} "
            f"coefficients non-zero; the {order.size} largest:"
            f"<table style='font-size:12px'>{cells}</table>")


class _CurvesView:
    """Objects of two features coloured by label and the curves f(x) = p_k,
    one per threshold."""

    def __init__(self, lab) -> None:
        X = np.asarray(lab.X, dtype=float)
        y = np.asarray(lab.y)
        lo, hi = X.min(0), X.max(0)
        pad = 0.05 * (hi - lo + 1e-12)
        lo, hi = lo - pad, hi + pad
        self.g0 = np.linspace(lo[0], hi[0], 120)
        self.g1 = np.linspace(lo[1], hi[1], 120)
        classes, codes = np.unique(y, return_inverse=True)
        self.guard = too_many(classes.size - 1, "threshold curves (labels - 1)",
                              limit=MAX_CURVES)
        if self.guard is not None:
            self.fig, self.thresholds = None, np.array([])
            self.widget = ipw.HTML(f"<i>{escape(self.guard)}</i>")
            return
        # at most MAX_DRAWN objects drawn: every k-th (their order kept)
        shown = np.arange(0, X.shape[0], max(1, -(-X.shape[0] // MAX_DRAWN)))
        X, y, codes = X[shown], y[shown], codes[shown]
        fig = go.Figure()
        for k in range(classes.size - 1):
            fig.add_trace(go.Contour(
                x=self.g0, y=self.g1, z=np.zeros((120, 120)), showscale=False,
                contours=dict(coloring="none", showlabels=True, start=0.0, end=0.0, size=1.0,
                              labelfont=dict(size=12)),
                line=dict(width=2, color="#111"), name=f"f(x) = p_{k + 1}",
                showlegend=k == 0, hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=X[:, 0], y=X[:, 1], mode="markers", name="objects (colour: label)",
            marker=dict(color=codes, colorscale="Viridis", size=6, showscale=True,
                        colorbar=dict(title="label", tickvals=list(range(classes.size)),
                                      ticktext=[escape(c) for c in classes]),
                        line=dict(width=0.5, color="white")),
            text=[escape(v) for v in y], hovertemplate="label %{text}<extra></extra>"))
        names = getattr(lab.X, "columns", None)
        fig.update_layout(template="plotly_white", width=660, height=540,
                          title="separating curves f(x) = p_k (labelled with p_k)",
                          xaxis_title=escape(names[0]) if names is not None else "x1",
                          yaxis_title=escape(names[1]) if names is not None else "x2",
                          legend=dict(orientation="h", y=-0.16),
                          margin=dict(l=70, r=20, t=60, b=90))
        self.fig = FigureWidget(fig)
        self.widget = ipw.VBox([fluid(self.fig)])
        self.thresholds = np.array([])

    def figures(self) -> list:
        return [] if self.fig is None else [self.fig]

    def update(self, est) -> None:
        if self.fig is None:
            return
        G0, G1 = np.meshgrid(self.g0, self.g1)
        grid = np.c_[G0.ravel(), G1.ravel()]
        names = getattr(est, "feature_names_in_", None)
        if names is not None:
            import pandas as pd
            grid = pd.DataFrame(grid, columns=names)
        f = est.decision_function(grid).reshape(G0.shape)       # a pipeline: raw X
        p = np.asarray(last_step(est)[1].thresholds_, dtype=float)
        with self.fig.batch_update():
            for k, trace in enumerate(self.fig.data[:-1]):
                trace.z = f
                level = float(p[k]) if k < p.size else float("nan")
                trace.contours.update(start=level, end=level, size=1.0)
        self.thresholds = p


class _RView:
    """The prior R as an L x L heat map: click a cell, set r = R_ij = R_ji."""

    def __init__(self, lab) -> None:
        self.lab = lab
        L = np.shape(lab.y)[1] if np.ndim(lab.y) == 2 else 2
        self.fig = None
        self.guard = too_many(L, "labels (rows and columns of the prior R's heat map)")
        if self.guard is not None:
            # a summary: no L x L heat map (nor an L x L identity) is built
            self.R = None
            self.widget = ipw.HTML(f"<i>{escape(self.guard)}: set R with "
                                   "lab.set_params(R=...)</i>")
            return
        R = lab.final.R
        self.R = np.eye(L) if R is None else np.array(R, dtype=float)
        self.cell = (0, 1) if L > 1 else (0, 0)
        fig = go.Figure(go.Heatmap(z=self.R, zmin=-1, zmax=1, colorscale="RdBu",
                                   reversescale=True, x=list(range(L)), y=list(range(L)),
                                   colorbar=dict(title="R_ij")))
        fig.update_layout(template="plotly_white", width=520, height=480,
                          title="prior R (click a cell)", yaxis_autorange="reversed",
                          xaxis_title="label j", yaxis_title="label i",
                          font=dict(size=13), margin=dict(l=70, r=20, t=60, b=60))
        self.fig = FigureWidget(fig)
        self.fig.data[0].on_click(self._on_click)
        self.r_slider = ipw.FloatSlider(value=float(self.R[self.cell]), min=-0.99, max=0.99,
                                        step=0.01, description="r", continuous_update=False)
        self.r_slider.observe(self._on_r, names="value")
        self.cell_label = ipw.HTML("")
        self._show_cell()
        self.widget = wrap_row(fluid(self.fig), ipw.VBox([self.cell_label, self.r_slider]))

    def figures(self) -> list:
        return [] if self.fig is None else [self.fig]

    def _show_cell(self) -> None:
        i, j = self.cell
        self.cell_label.value = f"cell R[{i}, {j}] = R[{j}, {i}]"

    def _on_click(self, trace, points, state) -> None:
        if points.point_inds:
            i, j = points.point_inds[0]
            self.select(int(i), int(j))

    def select(self, i: int, j: int) -> None:
        """Select the cell (i, j) the slider edits."""
        if i == j:
            return                  # the diagonal stays 1
        self.cell = (i, j)
        self._show_cell()
        self._syncing = True
        try:
            self.r_slider.value = float(self.R[i, j])
        finally:
            self._syncing = False

    def set_r(self, i: int, j: int, r: float) -> None:
        """Set R_ij = R_ji = r and refit (the lab's readout reports an R
        that is not positive definite)."""
        R = self.R.copy()
        R[i, j] = R[j, i] = float(r)
        self.R = R
        self.fig.data[0].z = R
        self.lab.set_params(R=R)

    def _on_r(self, change) -> None:
        if getattr(self, "_syncing", False):
            return
        self.set_r(*self.cell, change["new"])

    def update(self, est) -> None:
        pass


class _ProjectionView:
    """An example's preference graph with the fitted scores and its soft
    projection onto the selected piece at the fitted prototypes."""

    def __init__(self, lab) -> None:
        self.lab = lab
        m = np.shape(lab.X)[0]
        self.example = ipw.BoundedIntText(value=0, min=0, max=m - 1, description="example",
                                          layout=ipw.Layout(width="180px"))
        self.example.observe(lambda _: self._redraw(), names="value")
        self.viewer = None
        self.knots = None
        self.box = ipw.VBox([ipw.HTML("<i>the example's view appears after the first fit</i>")])
        self.widget = ipw.VBox([self.example, self.box])

    def figures(self) -> list:
        return [w.fig for w in (self.viewer, self.knots) if w is not None]

    def update(self, est) -> None:
        # the ranker and the training X as it sees them (a pipeline's earlier
        # steps applied)
        self.est = last_step(est)[1]
        X = self.lab.X
        self.X = est[:-1].transform(X) if isinstance(est, Pipeline) else X
        self._redraw()

    def _problem(self, i: int):
        """y (k',), U (k', n'), x (n',) of example i as the solver sees
        them (the threshold label appended for indicator targets, the bias
        feature appended to x)."""
        from polyrank.sopopo.estimator import THRESHOLD_TARGET
        from polyrank.utils import INDICATOR, encode_targets

        est = self.est
        if getattr(self, "_T_for", None) is not est:
            self._T = encode_targets(self.lab.y, rankings=True, owner="LabelRanker")[1]
            self._T_for = est
        y = self._T[i].astype(float)
        if est.threshold_label and est.target_type_ == INDICATOR:
            y = np.r_[y, THRESHOLD_TARGET]
        X = self.X[i:i + 1]
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
        x = np.asarray(est._augment(X))[0]
        res = est.result_
        if res.coef_form == "primal":
            U = res.x
        else:          # w_r = sum_i alpha_ir x_i over the training set
            Xa = est._augment(np.asarray(self.X.toarray() if hasattr(self.X, "toarray")
                                         else self.X, dtype=float))
            U = np.asarray(Xa.T @ res.x).T
        return y, U, x

    def _redraw(self) -> None:
        if not hasattr(self, "est"):
            return
        y, U, x = self._problem(int(self.example.value))
        guard = too_many(y.size * (y.size - 1) // 2, "preference-graph edges (k(k-1)/2 "
                         f"of k = {y.size} labels)")
        if guard is not None:
            self.viewer = self.knots = None
            self.box.children = [ipw.HTML(f"<i>{escape(guard)}</i>")]
            return
        if np.unique(y).size < 2:
            self.box.children = [ipw.HTML("this example has no preference (one relevance "
                                          "level): no pieces")]
            return
        same = (self.viewer is not None and getattr(self, "_y", None) is not None
                and np.array_equal(self._y, y) and self._shown_for == (
                    int(self.example.value), self.est.decomposition, self.est.normalize))
        if same:        # a refit (or a cached model): the example's scores change only
            self.viewer.set_scores(U @ x)
        else:
            self.viewer = DecompositionViewer(y, self.est.decomposition, scores=U @ x,
                                              normalize=self.est.normalize,
                                              max_labels=max(30, y.size))
            self.viewer.piece_slider.observe(lambda _: self._redraw_knots(), names="value")
            self.knots_box = ipw.VBox([])
            self.box.children = [self.viewer.widget, self.knots_box]
            self._shown_for = (int(self.example.value), self.est.decomposition,
                               self.est.normalize)
        self._y, self._U, self._x = y, U, x
        self._redraw_knots()

    def _redraw_knots(self) -> None:
        piece = self.viewer.pieces[self.viewer.piece_index]
        C = float(self.est.C_) * float(piece.sigma)
        self.knots = KnotExplorer.from_projection(self._x, self._y, self._U, piece.A,
                                                  piece.B, C)
        self.knots_box.children = [ipw.HTML(
            f"<b>soft projection of example {int(self.example.value)} onto piece "
            f"{self.viewer.piece_index + 1} at the fitted prototypes</b>"), self.knots.widget]
