"""The regularisation path as a figure (issue 45, item 4): the model's leading
coefficients (or dual variables) and the test metric along C, the current C
marked.

:class:`PathDisplay` follows scikit-learn's ``*Display`` classes (as
:mod:`polyrank_widgets.display` does): ``from_estimator`` fits the path
(warm-started along the grid, :mod:`polyrank.path`'s contract) and scores
every point on a test split; ``from_path`` draws a
:class:`~polyrank.path.PathResult` the path functions returned
(``polyrank.sopopo.label_ranking_path`` ...); ``plot()`` draws ``figure_``.
:class:`~polyrank_widgets.SolverLab` draws the same figure
(:func:`path_figure`) from the fits it holds, as its cache fills.
"""

from __future__ import annotations

import math
import threading
import time

import ipywidgets as ipw
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from sklearn.base import clone

from polyrank.path import PathResult, check_grid, default_grid

from ._estimators import (
    _metric,
    _start_value,
    last_step,
    penalty_name,
    score_on_test,
)
from ._layout import fluid
from ._plotly import FigureWidget
from ._text import escape

__all__ = ["PathDisplay", "LabPathView", "path_figure", "path_traces", "leading_lines",
           "model_of", "MAX_LINES"]

#: the most coefficient (or dual variable) lines drawn: those largest in
#: magnitude somewhere along the path
MAX_LINES = 12

_CURRENT = "current "


def model_of(est) -> np.ndarray:
    """The fitted model's coefficients (a Pipeline: its last step's):
    ``coef_`` if any, else ``dual_coef_`` (a copy, float64)."""
    final = last_step(est)[1]
    coef = getattr(final, "coef_", None)
    if coef is None:
        coef = getattr(final, "dual_coef_", np.empty(0))
    return np.array(coef, dtype=np.float64, copy=True)


def leading_lines(coefs, max_lines: int = MAX_LINES, *, dual: bool = False):
    """The lines a path figure draws: (values, labels).

    Parameters
    ----------
    coefs : list of ndarray
        The model at each grid point (``PathResult.coefs``).
    max_lines : int
        The most lines: the entries largest in magnitude anywhere on the path.
    dual : bool
        Name the entries dual variables (``alpha[i]``) instead of ``w[j]``.

    Returns
    -------
    values : ndarray, shape (n_grid, n_lines)
    labels : list of str
        ``w[j]`` (``w[k, j]`` for a matrix), or one line ``||model||`` when
        the model's shape changes along the grid (a working set).

    Examples
    --------
    >>> v, names = leading_lines([np.array([0.1, -2.0, 0.0]), np.array([0.2, -3.0, 0.5])], 2)
    >>> names, v[:, 0].tolist()
    (['w[1]', 'w[2]'], [-2.0, -3.0])
    """
    arrays = [np.asarray(c, dtype=np.float64) for c in coefs]
    if not arrays:
        return np.empty((0, 0)), []
    if len({a.shape for a in arrays}) != 1:
        return np.array([[np.linalg.norm(a)] for a in arrays]), ["‖model‖"]
    shape = arrays[0].shape
    M = np.stack([a.ravel() for a in arrays])
    if M.shape[1] == 0:
        return M, []
    order = np.argsort(-np.abs(M).max(0), kind="stable")[:max_lines]
    order = np.sort(order)
    letter = "alpha" if dual else "w"
    labels = [f"{letter}[{', '.join(str(int(i)) for i in np.unravel_index(j, shape))}]"
              if len(shape) > 1 else f"{letter}[{int(j)}]" for j in order]
    return M[:, order], labels


def _current_trace(x: float, y: np.ndarray, param: str, axes: str) -> go.Scatter:
    """A dashed vertical line at the current penalty, over the range of ``y``."""
    finite = y[np.isfinite(y)] if y.size else y
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    name = _CURRENT + param + ("" if axes == "x" else " (metric panel)")
    return go.Scatter(x=[x, x], y=[lo, hi], mode="lines", name=name,
                      line=dict(color="#d62728", dash="dash", width=1.5),
                      showlegend=axes == "x", xaxis=axes, yaxis=axes.replace("x", "y"),
                      hovertemplate=f"{escape(param)} = %{{x:.4g}}<extra></extra>")


def path_traces(Cs, values, labels, metric=None, *, param: str = "C", current=None,
                metric_name: str = "test metric") -> list:
    """The traces of :func:`path_figure` (same parameters): one line per
    column of ``values`` on the axes ``x``/``y``, the metric on ``x2``/``y2``,
    then the two "current" lines (if ``current`` is given)."""
    Cs = np.asarray(Cs, dtype=float)
    values = np.asarray(values, dtype=float).reshape(Cs.size, len(labels))
    out = [go.Scatter(x=Cs, y=values[:, j], mode="lines+markers", name=label,
                      marker=dict(size=4), line=dict(width=1.5), legendgroup="coef",
                      xaxis="x", yaxis="y") for j, label in enumerate(labels)]
    m = np.full(Cs.size, np.nan) if metric is None else np.asarray(metric, dtype=float)
    out.append(go.Scatter(x=Cs, y=m, mode="lines+markers", name=escape(metric_name),
                          line=dict(color="#111", width=2), marker=dict(size=6),
                          showlegend=False, xaxis="x2", yaxis="y2"))
    if current is not None and current > 0:
        out.append(_current_trace(float(current), values.ravel(), param, "x"))
        out.append(_current_trace(float(current), m, param, "x2"))
    return out


def path_figure(Cs, values, labels, metric=None, *, param: str = "C", current=None,
                metric_name: str = "test metric", title: str = "",
                dual: bool = False) -> go.Figure:
    """The path figure: lines of ``values`` along ``Cs`` (log x) on the left,
    the test ``metric`` along ``Cs`` on the right, ``current`` marked in both.

    Parameters
    ----------
    Cs : array_like, shape (n,)
        Penalties (> 0).
    values : ndarray, shape (n, k)
        From :func:`leading_lines`; ``labels`` names the k columns.
    labels : list of str
    metric : array_like, shape (n,), optional
        The test metric at each penalty (NaN: not scored).
    param : str
        The penalty's name (the x axes' title).
    current : float, optional
        The penalty marked: a dashed line in each panel, named ``"current
        <param>"`` and ``"current <param> (metric panel)"``.
    metric_name, title : str
        The right panel's y title and the figure's title.
    dual : bool
        The left panel shows dual variables.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=(
        "leading dual variables" if dual else "leading coefficients",
        escape(metric_name)))
    fig.add_traces(path_traces(Cs, values, labels, metric, param=param, current=current,
                               metric_name=metric_name))
    fig.update_xaxes(type="log", title_text=escape(param), exponentformat="none",
                     minorloglabels="complete")
    fig.update_layout(template="plotly_white", width=980, height=420,
                      title=dict(text=title, x=0.0, xanchor="left", xref="paper"),
                      margin=dict(l=60, r=20, t=90, b=60),
                      legend=dict(orientation="v", x=1.02, font=dict(size=10)))
    return fig


class PathDisplay:
    """The coefficients (or leading dual variables) and the test metric of an
    estimator along a grid of penalties, the current penalty marked.

    Use :meth:`from_estimator` or :meth:`from_path` to create one; every
    parameter is stored as an attribute.  Source: the regularisation paths of
    :mod:`polyrank.path` (glmnet's pathwise warm starts, Friedman, Hastie and
    Tibshirani, J. Stat. Softw. 33(1), 2010).

    Parameters
    ----------
    Cs : ndarray, shape (n_grid,)
        The penalties, increasing.
    coefs : ndarray, shape (n_grid, n_lines)
        The drawn entries of the model at each penalty (:func:`leading_lines`).
    labels : list of str, length n_lines
        Their names (``w[j]``, ``w[k, j]``, ``alpha[i]`` or ``||model||``).
    metric : ndarray, shape (n_grid,), optional
        The test metric at each penalty, as the lab's readout shows it (a
        loss as itself: the mean absolute error, lower is better).
    param : str, default="C"
        The penalty's name.
    current : float, optional
        The penalty marked.
    metric_name : str, default="test metric"
        The metric's name and direction.
    dual : bool, default=False
        The lines are dual variables (a kernel model).
    path : PathResult, optional
        The path the numbers come from.
    name : str, optional
        Shown in the title.

    Attributes
    ----------
    figure_ : plotly.graph_objects.Figure
        Set by :meth:`plot`.

    See Also
    --------
    polyrank.path.regularisation_path, SolverLab

    Examples
    --------
    >>> from polyrank.path import PathResult
    >>> path = PathResult("C", np.array([0.1, 1.0]), [np.array([0.5]), np.array([0.9])],
    ...                   *(np.zeros(2),) * 3, np.zeros(2, int), np.zeros(2),
    ...                   np.ones(2, bool))
    >>> disp = PathDisplay.from_path(path, metric=[0.6, 0.8], current=1.0)
    >>> disp.coefs[:, 0].tolist(), disp.labels, len(disp.figure_.data)
    ([0.5, 0.9], ['w[0]'], 4)
    """

    def __init__(self, *, Cs, coefs, labels, metric=None, param="C", current=None,
                 metric_name="test metric", dual=False, path=None, name=None):
        self.Cs = np.asarray(Cs, dtype=float)
        self.labels = list(labels)
        self.coefs = np.asarray(coefs, dtype=float).reshape(self.Cs.size, -1) \
            if self.Cs.size else np.empty((0, len(self.labels)))
        if self.coefs.shape[1] != len(self.labels):
            raise ValueError(f"labels: expected {self.coefs.shape[1]} names (one per "
                             f"column of coefs), got {len(self.labels)}")
        self.metric = None if metric is None else np.asarray(metric, dtype=float)
        if self.metric is not None and self.metric.shape != self.Cs.shape:
            raise ValueError(f"metric: expected shape {self.Cs.shape}, got "
                             f"{self.metric.shape}")
        if not isinstance(param, str):
            raise TypeError(f"param: expected a str, got {type(param).__name__}")
        self.param, self.metric_name, self.dual = param, str(metric_name), bool(dual)
        self.current = None if current is None else float(current)
        self.path, self.name = path, name

    @classmethod
    def from_path(cls, path, *, metric=None, metric_name="test metric", current=None,
                  max_lines: int = MAX_LINES, name=None):
        """Draw a :class:`~polyrank.path.PathResult`.

        Parameters
        ----------
        path : PathResult
            From a path function (``ranksvm_path`` ...).
        metric : array_like, shape (n_grid,), optional
            The test metric at each of ``path.Cs``.
        metric_name : str
        current : float, optional
            The penalty to mark.
        max_lines : int, default=12
            The most coefficient lines (the largest in magnitude).
        name : str, optional

        Returns
        -------
        PathDisplay
            Plotted (``figure_`` set).

        Raises
        ------
        TypeError
            If ``path`` is not a PathResult.
        """
        if not isinstance(path, PathResult):
            raise TypeError(f"path: expected a polyrank.path.PathResult, got "
                            f"{type(path).__name__}")
        Cs = np.asarray(path.Cs, dtype=float)
        order = np.argsort(Cs, kind="stable")        # a lam path is solved decreasing
        coefs = [path.coefs[i] for i in order]
        est = path.estimator
        dual = est is not None and getattr(last_step(est)[1], "coef_", None) is None
        values, labels = leading_lines(coefs, max_lines, dual=dual)
        m = None if metric is None else np.asarray(metric, dtype=float)[order]
        return cls(Cs=Cs[order], coefs=values, labels=labels, metric=m, param=path.param,
                   current=current, metric_name=metric_name, dual=dual, path=path,
                   name=name).plot()

    @classmethod
    def from_estimator(cls, estimator, X, y, *, Cs=None, test=None, fit_params=None,
                       current=None, max_lines: int = MAX_LINES, name=None):
        """Fit ``estimator`` along a grid (warm-started) and score each point.

        Parameters
        ----------
        estimator : polyrank estimator or Pipeline
            Unfitted or fitted (it is cloned, never modified); its last step
            takes ``warm_start`` and one of ``C``, ``c``, ``lam``.
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like
            As the estimator's ``fit`` takes them.
        Cs : array_like, optional
            The grid; default: :func:`polyrank.path.default_grid` (20 values
            over two decades) around the estimator's value.
        test : tuple, optional
            ``(X_test, y_test)`` or ``(X_test, y_test, qid_test)``: the metric
            is the last step's ``score`` there (as SolverLab's readout).
        fit_params : dict, optional
            Further arguments of ``fit`` (``{"qid": qid}`` for RankSVM; a
            pipeline: routed names ``step__qid``).
        current : float, optional
            The penalty to mark (default: the estimator's own).
        max_lines : int, default=12
        name : str, optional

        Returns
        -------
        PathDisplay
            Plotted; ``path`` holds the :class:`~polyrank.path.PathResult`.

        Raises
        ------
        TypeError
            If the estimator has no warm-started penalty (``PRank``) or is
            not an estimator.
        ValueError
            A bad grid (naming ``Cs``), or as the estimator's ``fit``.
        """
        if not hasattr(estimator, "get_params") or not hasattr(estimator, "fit"):
            raise TypeError(f"estimator: expected a polyrank estimator or Pipeline, got "
                            f"{type(estimator).__name__}")
        param = penalty_name(estimator)
        if param is None:
            raise TypeError(f"estimator: {type(last_step(estimator)[1]).__name__} has no "
                            f"penalty with a warm start (C, c or lam)")
        prefix, final = last_step(estimator)
        own = _start_value(final, param, final.get_params(deep=False)[param])
        center = float(own) if own is not None else 1.0
        lam = param == "lam"
        grid = default_grid(center, descending=lam) if Cs is None else check_grid(
            Cs, "Cs", descending=lam)
        path, scores = _fit_path(estimator, X, y, grid, param, prefix, test, fit_params)
        mname, higher, sign = _metric(final, None)
        metric = None if scores is None else sign * scores
        return cls.from_path(path, metric=metric,
                             metric_name=f"test {mname} ({'higher' if higher else 'lower'} "
                             "is better)", current=center if current is None else current,
                             max_lines=max_lines, name=name)

    def plot(self):
        """Draw ``figure_`` (see :func:`path_figure`) and return the display."""
        head = f"{escape(self.name)}: " if self.name else ""
        title = (f"{head}regularisation path along {escape(self.param)}"
                 + (f" (current {escape(self.param)} = {self.current:.3g})"
                    if self.current is not None else ""))
        self.figure_ = path_figure(self.Cs, self.coefs, self.labels, self.metric,
                                   param=self.param, current=self.current,
                                   metric_name=self.metric_name, title=title, dual=self.dual)
        return self

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The figure in Jupyter once plotted (else the text repr)."""
        fig = getattr(self, "figure_", None)
        if fig is None:
            return {"text/plain": repr(self)}
        return fig._repr_mimebundle_(include=include, exclude=exclude)

    def __repr__(self) -> str:
        return f"PathDisplay({self.param}: {self.Cs.size} points, {len(self.labels)} lines)"


def _fit_path(estimator, X, y, grid, param, prefix, test, fit_params):
    """(PathResult, test scores or None): ``estimator`` cloned with
    ``warm_start=True`` and fitted at each value of ``grid`` in order."""
    est = clone(estimator).set_params(**{prefix + "warm_start": True})
    rows: dict[str, list] = {k: [] for k in ("coef", "P", "D", "gap", "nit", "t", "ok",
                                             "ws", "score")}
    for value in grid:
        est.set_params(**{prefix + param: float(value)})
        t0 = time.perf_counter()
        est.fit(X, y, **(fit_params or {}))
        rows["t"].append(time.perf_counter() - t0)
        res = last_step(est)[1].result_
        rows["coef"].append(model_of(est))
        rows["P"].append(float(res.primal_objective))
        rows["D"].append(float(res.get("dual_objective", math.nan)))
        rows["gap"].append(float(res.get("gap", math.nan)))
        rows["nit"].append(int(np.max(last_step(est)[1].n_iter_)))
        rows["ok"].append(bool(res.success))
        rows["ws"].append(str(res.get("warm_start", "")))
        if test is not None:
            rows["score"].append(score_on_test(est, test[0], tuple(test[1:])))
    path = PathResult(param=param, Cs=np.asarray(grid, dtype=np.float64).copy(),
                      coefs=rows["coef"], objectives=np.array(rows["P"]),
                      dual_objectives=np.array(rows["D"]), gaps=np.array(rows["gap"]),
                      n_iter=np.array(rows["nit"], dtype=np.int64),
                      fit_times=np.array(rows["t"]), success=np.array(rows["ok"]),
                      warm_start=rows["ws"], min_C=0.0, estimator=est)
    return path, (np.array(rows["score"]) if test is not None else None)


class LabPathView:
    """SolverLab's path panel: :func:`path_figure` of the fits the lab
    holds for its current settings, redrawn as its cache fills, the current
    penalty marked.

    Parameters
    ----------
    param : str
        The penalty's name.
    metric_name : str
        The readout's test metric name and direction.
    """

    def __init__(self, param: str, metric_name: str) -> None:
        self.param = param
        self.fig = FigureWidget(path_figure([], np.empty((0, 0)), [], param=param,
                                            metric_name=metric_name,
                                            title=self._title(0, None)))
        self.n_points = 0
        self._lock = threading.Lock()
        self.widget = ipw.VBox([fluid(self.fig)])

    def _title(self, n: int, current) -> str:
        at = "" if current is None else f"; current {escape(self.param)} = {current:.3g}"
        return (f"regularisation path: the {n} fits the lab holds (warm-started, "
                f"precomputed around the slider){at}")

    @staticmethod
    def numbers(solutions, sign: float):
        """(Cs, values, labels, metric, dual) of ``solutions`` (the lab's
        :class:`~polyrank_widgets.lab_cache.Solution` list, by increasing
        penalty): what :class:`PathDisplay` takes."""
        Cs = np.array([s.value for s in solutions], dtype=float)
        coefs = [model_of(s.estimator) for s in solutions]
        dual = bool(solutions) and getattr(last_step(solutions[0].estimator)[1], "coef_",
                                           None) is None
        values, labels = leading_lines(coefs, dual=dual)
        metric = np.array([np.nan if s.score is None else sign * s.score for s in solutions])
        return Cs, values, labels, metric, dual

    @classmethod
    def display(cls, solutions, param: str, metric_name: str, sign: float,
                current) -> PathDisplay:
        """A :class:`PathDisplay` of ``solutions``, plotted."""
        Cs, values, labels, metric, dual = cls.numbers(solutions, sign)
        return PathDisplay(Cs=Cs, coefs=values, labels=labels, metric=metric, param=param,
                           current=current, metric_name=f"test {metric_name}",
                           dual=dual).plot()

    def update(self, solutions, current, sign: float, metric_name: str) -> None:
        """Redraw from ``solutions`` with ``current`` marked: the traces'
        data in place while the drawn lines stay the same, else new traces."""
        Cs, values, labels, metric, _ = self.numbers(solutions, sign)
        traces = path_traces(Cs, values, labels, metric, param=self.param, current=current,
                             metric_name=f"test {metric_name}")
        with self._lock, self.fig.batch_update():
            if [t.name for t in self.fig.data] == [t.name for t in traces]:
                for old, new in zip(self.fig.data, traces):
                    old.update(x=new.x, y=new.y)
            else:
                self.fig.data = ()
                self.fig.add_traces(traces)
            self.fig.layout.title.text = self._title(len(solutions), current)
            if len(self.fig.layout.annotations) == 2:
                self.fig.layout.annotations[1].text = escape(f"test {metric_name}")
        self.n_points = len(solutions)
