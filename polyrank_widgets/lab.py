"""SolverLab: sliders that refit a polyrank estimator, with a live duality gap,
a test-metric readout and the paper's own view of the fitted model.

One widget for every estimator (``LabelRanker``, ``M3LClassifier``,
``RankSVM``, ``SignConstrainedClassifier``/``Regressor``,
``OrdinalMarginRanker``, ``PRank``), alone or as the last step of a
scikit-learn :class:`~sklearn.pipeline.Pipeline` (the controls drive that
step, the data pass through the earlier ones). Each control is one parameter; releasing
it refits the estimator in a background thread while a :class:`GapMonitor`
draws the running fit; a newer change cancels the running fit through the
callback contract (``StopIteration``, ``DESIGN.md``).

The paper views attached per estimator:

- ``LabelRanker`` (linear): pick an example; its preference graph and pieces
  with the fitted scores (:class:`DecompositionViewer`, Sec. 2, Fig. 1-2 of
  ``sopopo-label-ranking.txt``) and the soft projection of that example onto
  the selected piece at the fitted prototypes (:class:`KnotExplorer`,
  Sec. 3.3-3.4, Fig. 3-4).
- ``RankSVM``: :class:`TronMonitor` (``large-scale-linear-ranksvm.txt``,
  Sec. 4.1).
- sign-constrained estimators: the coefficients as bars, one toggle per
  feature's sign (``sign-constrained-pegasos-sdca.txt``, Sec. 2: c_h in
  {-1, 0, +1}).
- ``OrdinalMarginRanker`` / ``PRank`` on two features: the scatter of the
  objects and the separating curves f(x) = p_k (``row-column-generation-
  ordinal.txt``, Sec. 10 figures).
- ``M3LClassifier``: an L x L editor of the prior R (click a cell, set r),
  the zero-shot experiment's 2 x 2 slider generalised
  (``m3l-multilabel-zero-shot.txt``, Sec. 3, Sec. 7.2.1, Fig. 5).

Every view has a size guard (:func:`polyrank_widgets._layout.too_many`): more
than :data:`~polyrank_widgets._layout.MAX_DRAWN` labels of R, features,
graph edges (or :data:`MAX_CURVES` threshold curves) and the view shows a
summary with the reason instead of the figure; the ordinal scatter draws
at most ``MAX_DRAWN`` objects. Whatever a fit, its scoring or its drawing
raises ends in the readout: "fit failed", "scoring failed" or "drawing
failed", the message and the traceback folded (issue 44, item 5).
"""

from __future__ import annotations

import math
import threading
import time
import traceback

import ipywidgets as ipw
import numpy as np
import plotly.graph_objects as go
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.metrics import get_scorer
from sklearn.pipeline import Pipeline

from polyrank.compiling import CompileNotice, package_of

from ._display import WidgetDisplay
from ._layout import MAX_DRAWN, fluid, too_many, wrap_row
from ._plotly import FigureWidget
from ._text import escape, traceback_html
from .decomposition import DecompositionViewer
from .gap import GapMonitor
from .knots import KnotExplorer
from .tron import TronMonitor

__all__ = ["SolverLab"]

#: regularisation parameters offered when ``params`` is not given, by name
#: the most threshold curves f(x) = p_k the ordinal view draws (one contour
#: trace on a 120 x 120 grid each); more ordered labels: a summary
MAX_CURVES = 50

_DEFAULT_RANGES = {"C": (1e-3, 1e2), "c": (1e-2, 1e3), "lam": (1e-6, 1e-1)}

#: the estimators' own methods that resolve a parameter left None (``C=None``:
#: the kernel's default) to the value the fit uses (the fitted ``C_`` / ``c_``)
_RESOLVERS = {"C": "_C", "c": "_penalty"}


def last_step(estimator) -> tuple[str, object]:
    """The routing prefix and the estimator the controls drive: for a
    :class:`~sklearn.pipeline.Pipeline` its last step's ``"name__"`` and that
    step (scikit-learn's own parameter routing: ``set_params(name__C=...)``,
    ``fit(X, y, name__callback=...)``), else ``""`` and the estimator itself.

    Parameters
    ----------
    estimator : estimator or Pipeline

    Returns
    -------
    (str, estimator)
    """
    if isinstance(estimator, Pipeline):
        name, step = estimator.steps[-1]
        return f"{name}__", step
    return "", estimator


def _describe(estimator) -> str:
    """``"LabelRanker"`` or ``"StandardScaler → LabelRanker"`` for a pipeline."""
    if isinstance(estimator, Pipeline):
        return " → ".join(type(step).__name__ for _, step in estimator.steps)
    return type(estimator).__name__


def _start_value(estimator, name: str, value):
    """The value the estimator uses for ``name``: ``value``, or for None the
    default its fit resolves it to (``C=None`` -> the kernel's default C)."""
    method = getattr(estimator, _RESOLVERS.get(name, ""), None) if value is None else None
    if callable(method):
        try:
            return float(method())
        except (TypeError, ValueError, KeyError, AttributeError):
            return value
    return value


def _metric_text(final, scoring) -> tuple[str, float]:
    """The readout's "NAME (higher is better)" and the sign of the shown value."""
    name, higher, sign = _metric(final, scoring)
    return f"{name} ({'higher' if higher else 'lower'} is better)", sign


def _metric(final, scoring) -> tuple[str, bool, float]:
    """(name, higher is better, sign) of the readout's test metric: the
    scorer's name (scikit-learn's convention: higher is better), else what
    the estimator's ``score`` computes, shown as the metric itself (sign -1
    turns a ``score`` of minus the MAE into the MAE, lower is better)."""
    from polyrank import (
        LabelRanker,
        M3LClassifier,
        OrdinalMarginRanker,
        PRank,
        RankSVM,
        SignConstrainedRegressor,
    )

    if scoring is not None:
        name = scoring if isinstance(scoring, str) else getattr(
            scoring, "__name__", type(scoring).__name__)
        return str(name), True, 1.0
    labels = getattr(final, "target_type_", None) in ("binary", "multiclass")
    if isinstance(final, RankSVM):
        return "mean NDCG over queries (LETOR)", True, 1.0
    if isinstance(final, (OrdinalMarginRanker, PRank)):
        return "mean absolute error", False, -1.0
    if isinstance(final, M3LClassifier) and not labels:
        return "1 − Hamming loss", True, 1.0
    if isinstance(final, LabelRanker) and not labels:
        return "label ranking average precision", True, 1.0
    if isinstance(final, SignConstrainedRegressor) or is_regressor(final):
        return "R²", True, 1.0
    if is_classifier(final):
        return "accuracy", True, 1.0
    return "score", True, 1.0


#: seconds between two progress lines of the readout while a fit runs
PROGRESS_S = 0.25


class _Cancelled:
    """A flag shared by one fit's callback and the lab (set = stop)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.stopped_by_user = False
        self.started = time.perf_counter()


def _progress_text(info, seconds: float) -> str:
    """The readout's status while a fit runs: "fitting …" with the
    callback's iteration, the gap and the time so far."""
    gap = getattr(info, "gap", math.nan)
    gap_text = f", gap {gap:.3g}" if np.isfinite(gap) else ""
    return f"fitting … iteration {int(info.iteration):,}{gap_text}, {seconds:.1f} s"


def _control(name: str, spec, value):
    """One ipywidget for a parameter: a log slider for a (lo, hi) range of
    positive numbers, an int slider for a (lo, hi) range of ints, a dropdown for
    a list of choices."""
    if isinstance(spec, tuple):
        if len(spec) != 2 or not all(isinstance(v, (int, float, np.integer, np.floating))
                                     and not isinstance(v, bool) for v in spec):
            raise TypeError(f"params[{name!r}]: a range must be a tuple (lo, hi) of "
                            f"two numbers, got {spec!r}")
        lo, hi = spec
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ValueError(f"params[{name!r}]: need finite lo < hi, got {spec!r}")
        style = {"description_width": "initial"}
        number = (isinstance(value, (int, float, np.integer, np.floating))
                  and not isinstance(value, bool) and np.isfinite(value))
        if all(isinstance(v, (int, np.integer)) for v in spec):
            v = int(value) if number and float(value).is_integer() else lo
            return ipw.IntSlider(value=v, min=int(min(lo, v)), max=int(max(hi, v)),
                                 description=name, continuous_update=False, style=style)
        if lo <= 0:
            raise ValueError(f"params[{name!r}]: a float range is drawn on a log slider "
                             f"and needs lo > 0, got {spec!r}")
        # the slider starts at the estimator's value, the range widened to hold it
        v = float(value) if number and value > 0 else float(np.sqrt(lo * hi))
        return ipw.FloatLogSlider(value=v, base=10, min=np.log10(min(lo, v)),
                                  max=np.log10(max(hi, v)), step=0.05, description=name,
                                  readout_format=".3g", continuous_update=False, style=style)
    if isinstance(spec, list):
        if not spec:
            raise ValueError(f"params[{name!r}]: the list of choices is empty")
        options = [(str(o), o) for o in spec]
        v = value if any(value is o or (type(value) is type(o) and value == o)
                         for o in spec) else spec[0]
        return ipw.Dropdown(options=options, value=v, description=name,
                            style={"description_width": "initial"})
    raise TypeError(f"params[{name!r}]: expected a (lo, hi) tuple or a list of choices, "
                    f"got {type(spec).__name__}")


def _check_params(params, own: dict, final) -> dict:
    """``params`` checked against the driven estimator's parameters ``own``
    (default: its regularisation parameter with a standard range)."""
    if params is None:
        params = {k: v for k, v in _DEFAULT_RANGES.items() if k in own}
    if not isinstance(params, dict):
        raise TypeError(f"params: expected a dict, got {type(params).__name__}")
    for name in params:
        if name not in own:
            raise ValueError(f"params: {name!r} is not a parameter of "
                             f"{type(final).__name__} (it has {sorted(own)})")
    return params


def _check_fit_params(fit_params) -> dict:
    if fit_params is None:
        return {}
    if not isinstance(fit_params, dict):
        raise TypeError(f"fit_params: expected a dict, got {type(fit_params).__name__}")
    return dict(fit_params)


def _route(params: dict, prefix: str) -> dict:
    """Parameters of a pipeline's last step as the pipeline takes them
    (``name__`` + name); names with ``__`` already, and every name when
    there is no pipeline (``prefix`` empty), as given."""
    return {(k if "__" in k else prefix + k): v for k, v in params.items()}


def _check_test(test, scoring):
    if test is None:
        return None
    if not isinstance(test, tuple):
        raise TypeError(f"test: expected a tuple (X_test, y_test[, qid_test]), "
                        f"got {type(test).__name__}")
    if len(test) not in (2, 3):
        raise ValueError(f"test: expected 2 or 3 entries, got {len(test)}")
    if scoring is not None and len(test) == 3:
        raise ValueError("scoring: a scorer takes (estimator, X, y), not a qid_test; "
                         "leave scoring None to use the estimator's score with qid")
    return test


def _check_inputs(X, y, **flags) -> None:
    """X and y of matching rows, ``views`` and ``fit`` booleans (TypeError /
    ValueError naming the argument; the estimator's ``fit`` checks the
    rest, and its failure is shown in the readout)."""
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name}: expected a bool, got {type(value).__name__}")
    for name, value in (("X", X), ("y", y)):
        if value is None or isinstance(value, (str, bytes)) or np.ndim(value) == 0:
            raise TypeError(f"{name}: expected an array, got {type(value).__name__}")
    if np.ndim(X) != 2:
        raise ValueError(f"X: expected a 2-d array (instances x features), got shape "
                         f"{np.shape(X)}")
    if np.shape(y)[0] != np.shape(X)[0]:
        raise ValueError(f"y: expected {np.shape(X)[0]} rows (one per row of X), got "
                         f"{np.shape(y)[0]}")


def _check_scoring(scoring):
    """The scorer of ``scoring`` (a scikit-learn scorer name or a callable), or None."""
    if scoring is None or callable(scoring):
        return scoring
    if not isinstance(scoring, str):
        raise TypeError(f"scoring: expected a scorer name or a callable, got "
                        f"{type(scoring).__name__}")
    try:
        return get_scorer(scoring)
    except ValueError as exc:
        raise ValueError(f"scoring: {exc}") from None


class SolverLab(WidgetDisplay):
    """Controls that refit an estimator, a live duality gap, a test readout and
    the paper's view of the fitted model.

    Source: the callback contract of ``polyrank.result`` (``DESIGN.md``); the
    paper views are listed in the module docstring.

    Parameters
    ----------
    estimator : polyrank estimator or sklearn.pipeline.Pipeline
        Any of the seven estimators (or a scikit-learn estimator whose ``fit``
        takes ``callback=``), or a Pipeline whose last step is one, e.g.
        ``make_pipeline(StandardScaler(), LabelRanker())``: the callback and
        the controls go to that step through scikit-learn's routing
        (``fit(X, y, step__callback=...)``, ``set_params(step__C=...)``),
        the data pass through the earlier steps. It is cloned for every fit,
        never modified.
    X : array_like or sparse matrix, shape (m, n_features)
        Training instances (raw: a pipeline transforms them).
    y : array_like, shape (m,) or (m, k)
        Training targets, as the estimator's ``fit`` takes them.
    params : dict, optional
        Parameter name (of the estimator, or of the pipeline's last step)
        -> ``(lo, hi)`` (a log slider for floats, a linear one for ints) or a
        list of choices (a dropdown). The controls start at the estimator's
        current values, a parameter left None at the value its fit resolves
        it to (``C=None``: the kernel's default, the fitted ``C_``); a range
        that does not hold that value is widened to it. Default: the
        regularisation parameter (``C``, ``c`` or ``lam``) of the estimator
        with a standard range, if it has one.
    fit_params : dict, optional
        Passed to every ``fit`` (e.g. ``{"qid": qid}`` for ``RankSVM``); with
        a pipeline a name without ``__`` goes to its last step.
    test : tuple, optional
        ``(X_test, y_test)`` or ``(X_test, y_test, qid_test)``; the readout
        names the metric and its direction, e.g. "test mean NDCG (higher is
        better) 0.51", after each fit. Without ``scoring`` it is what the
        estimator's ``score`` computes (mean NDCG for RankSVM, 1 - Hamming
        loss for M3L, label ranking average precision for LabelRanker,
        accuracy or R² for the sign-constrained models; the mean absolute
        error, lower is better, for the ordinal models, whose ``score`` is
        minus it); a pipeline's test X pass through its earlier steps.
    scoring : str or callable, optional
        A scikit-learn scorer name (:func:`sklearn.metrics.get_scorer`, e.g.
        ``"neg_mean_absolute_error"``; higher is better) or a callable
        ``scorer(estimator, X, y)``, for ``test = (X_test, y_test)``.
    views : bool, optional
        Attach the estimator's paper view (default True).
    fit : bool, optional
        Start the first fit at once (default True).

    Attributes
    ----------
    final : estimator
        The estimator the controls drive: ``estimator`` itself, or the
        pipeline's last step (the user's object, never fitted here).
    controls : dict of str to ipywidgets.Widget
        One control per entry of ``params``; setting ``.value`` refits.
    monitor : GapMonitor
        Primal, dual and gap of the running fit (reset when a fit starts).
    view : object or None
        The paper view (see the module docstring), with a ``widget``.
    estimator_ : estimator or None
        The last fit that ran to its end (converged or not), else None.
    score_ : float or None
        ``estimator_.score(*test)`` (a pipeline: its last step's score on the
        transformed test X) or the ``scoring`` scorer's value; None without
        ``test``.
    metric_ : str
        The readout's name of the test metric and its direction.
    metric_value_ : float or None
        The value the readout shows beside ``metric_``: ``score_`` as the
        metric itself (a loss positive: the mean absolute error, not
        scikit-learn's negated score); None without ``test``.
    error_ : str or None
        The message of the last fit (or its scoring on ``test``) that
        raised, else None; the readout then says "fit failed" or "scoring
        failed", the message and, folded, the traceback.
    view_error_ : str or None
        The message of the paper view's drawing of the last fit if it
        raised (the fit is kept; the readout says "drawing failed").
    traceback_ : str
        The traceback of the last failure (fit, scoring or drawing).
    n_fits_ : int
        Fits that ran to their end.
    readout : ipywidgets.HTML
        Status, iterations, time, training objective, test metric.
    stop_button : ipywidgets.Button
        Stops the running fit (its result is kept as a stopped fit).
    widget : ipywidgets.VBox
        What Jupyter shows.

    Raises
    ------
    TypeError
        If ``params`` is not a dict or a spec has the wrong type, or
        ``fit_params`` is not a dict, or ``test`` is not a tuple, ``X`` or
        ``y`` is not an array, ``views`` or ``fit`` not a bool.
    ValueError
        If ``X`` is not 2-d or ``y`` has another number of rows, a name in
        ``params`` is not a parameter of ``estimator`` (of a pipeline's
        last step), a range is empty or not positive (log
        sliders), ``test`` has the wrong length, or ``scoring`` is not a
        scorer name or is given with a ``qid_test``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from polyrank import SignConstrainedClassifier
    >>> X, y = make_classification(200, 5, random_state=0)
    >>> lab = SolverLab(SignConstrainedClassifier(random_state=0), X, y,
    ...                 params={"lam": (1e-4, 1e-1)}, test=(X, y))
    >>> lab.wait(120)
    True
    >>> lab.controls["lam"].value = 1e-2
    >>> lab.wait(120), lab.estimator_.lam
    (True, 0.01)

    On a pipeline, the controls drive its last step:

    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> lab = SolverLab(make_pipeline(StandardScaler(),
    ...                               SignConstrainedClassifier(random_state=0)), X, y,
    ...                 test=(X, y))
    >>> lab.wait(120), lab.controls["lam"].value, lab.metric_
    (True, 0.001, 'accuracy (higher is better)')
    """

    def __init__(self, estimator, X, y, *, params=None, fit_params=None, test=None,
                 scoring=None, views: bool = True, fit: bool = True) -> None:
        if not hasattr(estimator, "get_params") or not hasattr(estimator, "fit"):
            raise TypeError(f"estimator: expected a scikit-learn estimator, got "
                            f"{type(estimator).__name__}")
        _check_inputs(X, y, views=views, fit=fit)
        self._prefix, self.final = last_step(estimator)
        own = self.final.get_params(deep=False)
        params = _check_params(params, own, self.final)
        self.fit_params = _route(_check_fit_params(fit_params), self._prefix)
        self.test = _check_test(test, scoring)
        self._scorer = _check_scoring(scoring)
        self._scoring = scoring
        self.metric_, self._sign = _metric_text(self.final, scoring)
        self.estimator = estimator
        self.X, self.y = X, y
        self.controls = {name: _control(name, spec, _start_value(self.final, name, own[name]))
                         for name, spec in params.items()}
        self.monitor = GapMonitor(title=f"{_describe(estimator)}: duality gap",
                                  max_points=2000, min_redraw_s=0.25)
        self.estimator_ = None
        self.score_ = None
        self.error_ = None
        self.view_error_: str | None = None
        self.traceback_: str | None = None
        self.n_fits_ = 0
        self._extra_params: dict = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._flag: _Cancelled | None = None
        self.readout = ipw.HTML("")
        self.stop_button = ipw.Button(description="Stop", icon="stop",
                                      tooltip="stop the running fit")
        self.stop_button.on_click(lambda _: self.stop())
        for c in self.controls.values():
            c.observe(self._on_control, names="value")
        self.view = _make_view(self) if views else None
        top = wrap_row(ipw.VBox(list(self.controls.values()) + [self.stop_button]),
                       self.readout)
        parts = [top, self.monitor.widget]
        if self.view is not None:
            parts.append(self.view.widget)
        self.widget = ipw.VBox(parts)
        self._set_readout("not fitted yet")
        if fit:
            self.refit()

    # ------------------------------------------------------------ public
    def values(self) -> dict:
        """The parameters the next fit uses: the controls' values and those
        set by the paper view (e.g. ``signs``, ``R``)."""
        out = {name: c.value for name, c in self.controls.items()}
        out.update(self._extra_params)
        return out

    def set_params(self, **params) -> None:
        """Set parameters that have no control (e.g. ``signs`` or ``R``, as the
        paper views do) and refit.

        Raises
        ------
        ValueError
            If a name is not a parameter of the estimator.
        """
        own = self.final.get_params(deep=False)
        for name in params:
            if name not in own:
                raise ValueError(f"{name!r} is not a parameter of "
                                 f"{type(self.final).__name__}")
        self._extra_params.update(params)
        self.refit()

    def refit(self) -> None:
        """Cancel the running fit (if any) and start a new one in a
        background thread with the current :meth:`values`."""
        with self._lock:
            if self._flag is not None:
                self._flag.event.set()
            flag = self._flag = _Cancelled()
            # the readout first: the browser applies messages in order, and
            # redrawing the monitors' figures takes it a while
            self._set_readout("fitting …")
            self.monitor.reset()
            if self.view is not None and hasattr(self.view, "start"):
                self.view.start()
        est = clone(self.estimator).set_params(**_route(self.values(), self._prefix))
        thread = threading.Thread(target=self._run, args=(est, flag), daemon=True)
        self._thread = thread
        thread.start()

    def stop(self) -> None:
        """Stop the running fit at its next iteration (its result is kept,
        with status "stopped by callback")."""
        with self._lock:
            if self._flag is not None:
                self._flag.stopped_by_user = True
                self._flag.event.set()

    @property
    def metric_value_(self) -> float | None:
        """The test metric as the readout shows it (see the class docstring)."""
        return None if self.score_ is None else self._sign * self.score_

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the running fit ends.

        Parameters
        ----------
        timeout : float, optional
            Seconds to wait at most (default: no limit).

        Returns
        -------
        bool
            True if no fit is running any more.
        """
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    # ------------------------------------------------------------ internals
    def _on_control(self, change) -> None:
        self.refit()

    def _callback(self, flag: _Cancelled):
        view_cb = getattr(self.view, "callback", None) if self.view is not None else None

        last = [-math.inf]

        def callback(info):
            with self._lock:
                if flag.event.is_set():
                    raise StopIteration("cancelled by a newer fit or the Stop button")
                self.monitor(info)
                if view_cb is not None:
                    view_cb(info)
                now = time.perf_counter()
                if now - last[0] >= PROGRESS_S:
                    last[0] = now
                    self._set_readout(_progress_text(info, now - flag.started))

        return callback

    def _run(self, est, flag: _Cancelled) -> None:
        """The background fit of :meth:`refit`: fit, score, draw.  Any
        exception of the three ends in the readout ("fit failed", "scoring
        failed" or "drawing failed", the message, the traceback in a
        collapsible area), never in a frozen "fitting …"; a fit superseded by
        a newer one stays silent."""
        stage: dict = {"name": "fit"}
        try:
            self._fit_score_draw(est, flag, stage)
        except Exception as exc:  # shown in the readout, kept in error_ / view_error_
            if flag.event.is_set() and not flag.stopped_by_user:
                return
            self._show_failure(stage, exc)

    def _fit_score_draw(self, est, flag: _Cancelled, stage: dict) -> None:
        """:meth:`_run`'s work; ``stage["name"]`` says which step runs (and,
        once fitted, ``stage["shown"]`` what the readout shows of the fit)."""
        t0 = time.perf_counter()
        # a cold numba cache: say "compiling ... (first use only)" with progress
        # a superseded fit stays silent: its notices must not cover the
        # readout of the newer fit (or its "fit failed")
        with CompileNotice(package_of(last_step(est)[1]),
                           lambda msg: None if flag.event.is_set()
                           else self._set_readout(msg)) as notice:
            # a pipeline routes the callback to its last step (scikit-learn's
            # step__param fit parameters); the earlier steps transform X
            est.fit(self.X, self.y, **{self._prefix + "callback": self._callback(flag)},
                    **self.fit_params)
        seconds = time.perf_counter() - t0
        with self._lock:
            if flag.event.is_set() and not flag.stopped_by_user:
                return          # superseded by a newer fit: drop it
            self.monitor.flush()
        stage["name"] = "scoring"
        score = self._score(est)
        with self._lock:
            if flag.event.is_set() and not flag.stopped_by_user:
                return          # superseded while it was scored: the newer fit reports
            self.estimator_, self.score_, self.error_ = est, score, None
            # the fitted targets decide the metric (LabelRanker: accuracy on labels)
            self.metric_, self._sign = _metric_text(last_step(est)[1], self._scoring)
            self.n_fits_ += 1
        res = getattr(last_step(est)[1], "result_", None)
        status = getattr(res, "status", "fitted") if res is not None else "fitted"
        stage.update(name="drawing", shown=dict(est=est, seconds=seconds,
                                                compiled=notice.compiling))
        self.view_error_ = None
        if self.view is not None:
            self.view.update(est)
        self._set_readout(status, **stage["shown"])

    def _show_failure(self, stage: dict, exc: Exception) -> None:
        """The readout of a failed fit, scoring or drawing: status "<stage>
        failed", the message, the traceback (``traceback_``) folded; a
        drawing failure keeps the fit (``view_error_``), the others set
        ``error_``."""
        message = f"{type(exc).__name__}: {exc}"
        self.traceback_ = traceback.format_exc()
        if stage["name"] == "drawing":
            self.view_error_ = message
        else:
            self.error_ = message
        status = f"{stage['name']} failed"
        try:
            self._set_readout(status, error=message, details=self.traceback_,
                              **stage.get("shown", {}))
        except Exception:  # the readout itself failed: its plainest form
            self.readout.value = f"<b>{escape(status)}</b>: {escape(message)}"
        traceback.print_exc()

    def _score(self, est) -> float | None:
        """The test metric of the fitted ``est``: the scorer's, else the
        score of its last step on the test X passed through the earlier
        steps (so that ``qid_test`` reaches RankSVM.score)."""
        if self.test is None:
            return None
        if self._scorer is not None:
            return float(self._scorer(est, *self.test))
        X_test, *rest = self.test
        if isinstance(est, Pipeline):
            return float(est[-1].score(est[:-1].transform(X_test), *rest))
        return float(est.score(X_test, *rest))

    def _set_readout(self, status: str, est=None, seconds=None, error=None,
                     compiled: bool = False, details: str | None = None) -> None:
        color = "#2ca02c" if status == "converged" else (
            "#d62728" if error or "maximum" in status or "failure" in status else "#333")
        rows = [("status", f"<b style='color:{color}'>{escape(status)}</b>")]
        if error:
            rows.append(("error", f"<span style='color:#d62728'>{escape(error)}</span>"))
        if details:
            rows.append(("", traceback_html(details)))
        if est is not None:
            rows += self._fit_rows(last_step(est)[1], seconds, compiled)
        cells = "".join(f"<tr><td style='padding:2px 12px 2px 0'>{k}</td>"
                        f"<td style='padding:2px 0'>{v}</td></tr>" for k, v in rows)
        self.readout.value = f"<table style='font-size:13px'>{cells}</table>"

    def _fit_rows(self, final, seconds, compiled: bool) -> list:
        """Readout rows of a finished fit of the driven estimator ``final``:
        the stopping rule met, iterations, time, objective, the duality gap
        relative to the primal objective and absolute, the named test metric."""
        rows = []
        res = getattr(final, "result_", None)
        message = getattr(res, "message", "") if res is not None else ""
        if message:
            rows.append(("stopping rule", f"<span style='color:#666'>{escape(message)}</span>"))
        nit = getattr(final, "n_iter_", None)
        if nit is not None:
            rows.append(("iterations", self._iterations_text(int(np.max(nit)), res)))
        if seconds is not None:
            rows.append(("fit time", f"{seconds:.3g} s" + (
                " (with numba's compile, first use only)" if compiled else "")))
        if res is not None and "primal_objective" in res:
            primal, gap = float(res.primal_objective), float(res.gap)
            rows.append(("primal objective", f"{primal:.6g}"))
            rel = gap / abs(primal) if primal != 0 else math.nan
            rows.append(("relative duality gap", f"{rel:.2g} (gap / |primal objective|)"))
            rows.append(("duality gap", f"{gap:.3g} (absolute, in the objective's units)"))
        if self.score_ is not None:
            rows.append((f"test {escape(self.metric_)}",
                         f"<b>{self.metric_value_:.4g}</b>"))
        return rows

    def _iterations_text(self, nit: int, res) -> str:
        """The solver's iteration count in its unit (``result_.unit``), and
        the last x of the gap plot when the callback counts something else
        (SC-Pegasos: 154,760 steps, one point per epoch, 20 on the axis)."""
        unit = escape(str(getattr(res, "unit", "") or "")) if res is not None else ""
        text = f"{nit:,} {unit}".strip()
        its = self.monitor._column("iteration")
        if its.size and int(its[-1]) != nit:
            text += (f"<br><span style='color:#666'>gap plot: {len(its)} points, "
                     f"x = callback iteration (last {int(its[-1]):,})</span>")
        return text

    def _figures(self) -> list:
        figs = [self.monitor.fig]
        if self.view is not None:
            figs += self.view.figures()
        return figs

    def __repr__(self) -> str:
        return (f"SolverLab({_describe(self.estimator)}, controls="
                f"{sorted(self.controls)}, n_fits_={self.n_fits_})")


# ---------------------------------------------------------------- views
def _make_view(lab: SolverLab):
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

    def __init__(self, lab: SolverLab) -> None:
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

    def __init__(self, lab: SolverLab) -> None:
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

    def __init__(self, lab: SolverLab) -> None:
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

    def __init__(self, lab: SolverLab) -> None:
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
        self.viewer = DecompositionViewer(y, self.est.decomposition, scores=U @ x,
                                          normalize=self.est.normalize,
                                          max_labels=max(30, y.size))
        self.viewer.piece_slider.observe(lambda _: self._redraw_knots(), names="value")
        self.knots_box = ipw.VBox([])
        self.box.children = [self.viewer.widget, self.knots_box]
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
