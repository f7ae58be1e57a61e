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

Along the regularisation slider the lab answers at once (issue 45, item 3;
:mod:`polyrank_widgets.lab_cache`): a move to a value it holds redraws from
its cache, any other move fits warm-started from the nearest solution it
holds, and while the person reads a background thread precomputes the
slider's positions around the current value; a path panel
(:class:`~polyrank_widgets.path_display.LabPathView`) draws the coefficients
and the test metric of those fits along the penalty, the current value marked.

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
graph edges (or :data:`~polyrank_widgets.lab_views.MAX_CURVES` threshold
curves) and the view shows a summary with the reason instead of the figure;
the ordinal scatter draws at most ``MAX_DRAWN`` objects. Whatever a fit, its scoring or its drawing
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
from IPython import get_ipython
from sklearn.base import clone
from sklearn.metrics import get_scorer
from sklearn.pipeline import Pipeline

from polyrank.compiling import CompileNotice, package_of

from ._display import WidgetDisplay
from ._estimators import (
    _describe,
    _metric_text,
    _start_value,
    last_step,
    penalty_name,
    score_on_test,
)
from ._layout import wrap_row
from ._text import escape, traceback_html
from .gap import GapMonitor
from .lab_cache import (
    SPAWN_DECADES,
    Precomputer,
    Solution,
    SolutionCache,
    WarmPool,
    canonical_data,
    settings_key,
    slider_positions,
    snapshot,
)
from .lab_views import make_view
from .path_display import LabPathView as _PathView

__all__ = ["SolverLab", "last_step"]


_DEFAULT_RANGES = {"C": (1e-3, 1e2), "c": (1e-2, 1e3), "lam": (1e-6, 1e-1)}


def _handoff(fn) -> None:
    """Run ``fn`` on the kernel's own thread (its IOLoop's ``add_callback``
    is thread-safe): how the background precompute hands its results to the
    widgets; outside a kernel (a script, the tests), at once."""
    kernel = getattr(get_ipython(), "kernel", None)
    loop = getattr(kernel, "io_loop", None)
    if loop is None:
        fn()
    else:
        loop.add_callback(fn)


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
    precompute : bool, optional
        Along a penalty slider (``C``, ``c`` or ``lam`` of an estimator with
        ``warm_start``), fit the slider's positions around the current value
        in a background thread while nobody moves a control, nearest first
        (default True; see :mod:`polyrank_widgets.lab_cache`).
    warm : bool, optional
        Cache and warm-start along the penalty (default True); False: every
        move a cold fit, no cache, no precompute, no path panel (the lab
        before issue 45, which ``polyrank bench slider`` compares with).

    Notes
    -----
    Along a penalty slider every fit keeps its model in ``cache``: a move
    to a value the lab holds redraws from it with no fit ("start: from the
    cache" in the readout, ``last_move_["fits"] == 0``); any other move fits
    warm-started from the nearest solution the lab holds
    (``warm_start=True``, issue 45).  X and the test split are converted
    once, and a pipeline's leading steps fitted and applied once (when no
    fit parameter goes to them): every refit reads the same arrays
    (issue 46, item 4).  Given a DataFrame, the models are fitted on its
    values (no ``feature_names_in_``).

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
        Foreground fits that ran to their end (a move redrawn from the cache
        adds none).
    n_cached_ : int
        Moves redrawn from the cache, with no fit.
    fits_run_ : int
        Fits started, in the foreground and the background.
    last_move_ : dict or None
        The last move along the penalty: ``value``, ``source`` (``"cache"``,
        ``"warm"`` or ``"cold"``), ``fits`` (0 or 1) and ``seconds`` from the
        move to the model stored (a fit) or drawn (the cache).
    penalty_ : str or None
        The penalty the lab caches and warm-starts along (None: every fit
        cold, as for ``PRank``'s ``max_iter``).
    cache : SolutionCache
        The fits the lab holds, by setting and penalty value.
    path_view : LabPathView or None
        The path panel: the leading coefficients and the test metric of the
        cached fits along the penalty, the current value marked.
    readout : ipywidgets.HTML
        Status, iterations, time, training objective, test metric.
    stop_button : ipywidgets.Button
        Stops the running fit (its result is kept as a stopped fit); disabled
        while no fit runs.
    widget : ipywidgets.VBox
        What Jupyter shows.

    Raises
    ------
    TypeError
        If ``params`` is not a dict or a spec has the wrong type, or
        ``fit_params`` is not a dict, or ``test`` is not a tuple, ``X`` or
        ``y`` is not an array, ``views``, ``fit``, ``precompute`` or
        ``warm`` not a bool.
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
                 scoring=None, views: bool = True, fit: bool = True,
                 precompute: bool = True, warm: bool = True) -> None:
        if not hasattr(estimator, "get_params") or not hasattr(estimator, "fit"):
            raise TypeError(f"estimator: expected a scikit-learn estimator, got "
                            f"{type(estimator).__name__}")
        _check_inputs(X, y, views=views, fit=fit, precompute=precompute, warm=warm)
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
        self._setup_state()
        self._setup_data()
        self._setup_warm(precompute and warm, warm)
        self._setup_widgets(views)
        self._set_readout("not fitted yet")
        if fit:
            self.refit()

    def _setup_state(self) -> None:
        self.monitor = GapMonitor(title=f"{_describe(self.estimator)}: duality gap",
                                  max_points=2000, min_redraw_s=0.25)
        self.estimator_ = None
        self.score_ = None
        self.error_ = None
        self.view_error_: str | None = None
        self.traceback_: str | None = None
        self.n_fits_ = 0
        self.n_cached_ = 0
        self.fits_run_ = 0
        self.last_move_: dict | None = None
        self._extra_params: dict = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._flag: _Cancelled | None = None

    def _setup_data(self) -> None:
        """X and the test split validated and converted once (a pipeline's
        leading steps fitted and applied once): every refit reads the same
        arrays (issue 46, item 4).  A leading step that fails here is left
        to the fits, whose readout reports it."""
        try:
            self._head, self._X, self._test = canonical_data(
                self.estimator, self.X, self.test, self.fit_params, self._prefix)
        except Exception:  # the first fit shows the error in the readout
            self._head, self._X, self._test = None, self.X, self.test
        self._fit_kwargs = (self.fit_params if self._head is None and self._prefix
                            else {k[len(self._prefix):]: v for k, v in
                                  self.fit_params.items()})

    def _setup_warm(self, precompute: bool, warm: bool) -> None:
        """The penalty control (a log slider of C, c or lam) along which the
        lab caches, warm-starts and precomputes; none: every fit cold."""
        name = penalty_name(self.estimator)
        ok = warm and name in self.controls \
            and isinstance(self.controls[name], ipw.FloatLogSlider)
        self.penalty_ = name if ok else None
        self.cache = SolutionCache()
        self._pool = WarmPool(self._new_fitter)
        self._pre = (Precomputer(self._fit_background, self._busy)
                     if self.penalty_ is not None and precompute else None)

    def _setup_widgets(self, views: bool) -> None:
        self.readout = ipw.HTML("")
        self.stop_button = ipw.Button(description="Stop", icon="stop", disabled=True,
                                      tooltip="stop the running fit")
        self.stop_button.on_click(lambda _: self.stop())
        for c in self.controls.values():
            c.observe(self._on_control, names="value")
        self.view = make_view(self) if views else None
        self.path_view = (_PathView(self.penalty_, self.metric_) if self.penalty_ is not None
                          else None)
        top = wrap_row(ipw.VBox(list(self.controls.values()) + [self.stop_button]),
                       self.readout)
        parts = [top, self.monitor.widget]
        if self.path_view is not None:
            parts.append(self.path_view.widget)
        if self.view is not None:
            parts.append(self.view.widget)
        self.widget = ipw.VBox(parts)

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
        """Cancel the running fit (if any) and show the model at the current
        :meth:`values`: from the cache if the lab holds it (no fit), else
        fitted in a background thread, warm-started from the nearest
        solution the lab holds."""
        values = self.values()
        key = settings_key(values, self.penalty_)
        t0 = time.perf_counter()
        with self._lock:
            if self._flag is not None:
                self._flag.event.set()
            if self._pre is not None:
                self._pre.cancel()
            sol = (self.cache.get(key, values[self.penalty_]) if self.penalty_ is not None
                   else None)
            if sol is None:
                flag = self._flag = _Cancelled()
                # the readout first: the browser applies messages in order, and
                # redrawing the monitors' figures takes it a while
                self._set_readout("fitting …")
                self.stop_button.disabled = False
                self.monitor.reset()
                if self.view is not None and hasattr(self.view, "start"):
                    self.view.start()
            else:
                self._flag = None
        if sol is not None:
            self._show_cached(sol, key, t0)
            return
        thread = threading.Thread(target=self._run, args=(values, key, flag), daemon=True)
        self._thread = thread
        thread.start()

    def stop(self) -> None:
        """Stop the running fit at its next iteration (its result is kept,
        with status "stopped by callback")."""
        with self._lock:
            if self._flag is not None:
                self._flag.stopped_by_user = True
                self._flag.event.set()

    def close(self) -> None:
        """Stop the running fit and the background precompute, close the widget."""
        self.stop()
        if self._pre is not None:
            self._pre.close()
        self.widget.close()

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

    def wait_cached(self, value: float, timeout: float = 60.0) -> bool:
        """Block until the lab holds a solution at penalty ``value`` (the
        background precompute's or a fit's), for the current settings.

        Parameters
        ----------
        value : float
            A penalty (compared to 1e-6 in log10).
        timeout : float
            Seconds to wait at most.

        Returns
        -------
        bool
            True if the solution is there.
        """
        if self.penalty_ is None:
            return False
        deadline = time.monotonic() + float(timeout)
        key = settings_key(self.values(), self.penalty_)
        while self.cache.get(key, float(value)) is None:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def path(self):
        """The fits the lab holds for the current settings as a
        :class:`PathDisplay` (their coefficients and test metric along the
        penalty, the current value marked), or None without a penalty
        control."""
        if self.penalty_ is None:
            return None
        sols = self.cache.solutions(settings_key(self.values(), self.penalty_))
        return _PathView.display(sols, self.penalty_, self.metric_, self._sign,
                                 self.controls[self.penalty_].value)

    # ------------------------------------------------------------ internals
    def _on_control(self, change) -> None:
        self.refit()

    def _busy(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def _new_fitter(self):
        """A cold estimator to fit: the last step alone when the pipeline's
        leading steps were applied once (or there is no pipeline), else a
        clone of the whole pipeline; ``warm_start=True`` along a penalty."""
        fitter = clone(self.final if (self._head is not None or not self._prefix)
                       else self.estimator)
        if self.penalty_ is not None:
            fitter.set_params(**{self._route_of(fitter) + "warm_start": True})
        return fitter

    def _route_of(self, fitter) -> str:
        return self._prefix if isinstance(fitter, Pipeline) else ""

    def _take(self, values: dict, key: tuple, background: bool = False):
        """(estimator, its warm start's value or None) for a fit at ``values``."""
        if self.penalty_ is None:
            fitter, start = self._new_fitter(), None
        else:
            fitter, start = self._pool.take(
                key, values[self.penalty_],
                spawn_beyond=SPAWN_DECADES if background else math.inf)
        return fitter.set_params(**_route(values, self._route_of(fitter))), start

    def _give(self, values: dict, key: tuple, fitter, start, fitted: bool) -> None:
        if self.penalty_ is not None and (fitted or start is not None):
            self._pool.give(key, values[self.penalty_] if fitted else start, fitter)

    def _shown(self, fitter):
        """The fitted model the lab shows and caches: a snapshot that later
        fits of ``fitter`` leave as it is (a pipeline: the leading steps
        fitted once, the last step's snapshot)."""
        if self._head is not None:
            return Pipeline(self._head.steps + [(self.estimator.steps[-1][0],
                                                 snapshot(fitter, self._X))])
        if isinstance(fitter, Pipeline):
            return Pipeline([(n, snapshot(s)) for n, s in fitter.steps])
        return snapshot(fitter, self._X)

    def _fit(self, fitter, callback) -> None:
        """``fitter.fit`` on the canonical data with ``callback``."""
        fitter.fit(self._X, self.y, **{self._route_of(fitter) + "callback": callback},
                   **self._fit_kwargs)

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

    def _run(self, values: dict, key: tuple, flag: _Cancelled) -> None:
        """The background fit of :meth:`refit`: fit, score, draw.  Any
        exception of the three ends in the readout ("fit failed", "scoring
        failed" or "drawing failed", the message, the traceback in a
        collapsible area), never in a frozen "fitting …"; a fit superseded by
        a newer one stays silent."""
        stage: dict = {"name": "fit"}
        try:
            self._fit_score_draw(values, key, flag, stage)
        except Exception as exc:  # shown in the readout, kept in error_ / view_error_
            if flag.event.is_set() and not flag.stopped_by_user:
                return
            self._show_failure(stage, exc)
        finally:
            if self._flag is flag or self._flag is None:
                self.stop_button.disabled = True

    def _fit_score_draw(self, values: dict, key: tuple, flag: _Cancelled,
                        stage: dict) -> None:
        """:meth:`_run`'s work; ``stage["name"]`` says which step runs (and,
        once fitted, ``stage["shown"]`` what the readout shows of the fit)."""
        fitter, start = self._take(values, key)
        self.fits_run_ += 1
        t0 = time.perf_counter()
        fitted = False
        try:
            # a cold numba cache: say "compiling ... (first use only)" with progress
            # a superseded fit stays silent: its notices must not cover the
            # readout of the newer fit (or its "fit failed")
            with CompileNotice(package_of(last_step(fitter)[1]),
                               lambda msg: None if flag.event.is_set()
                               else self._set_readout(msg)) as notice:
                self._fit(fitter, self._callback(flag))
            fitted = True
        finally:
            self._give(values, key, fitter, start, fitted)
        seconds = time.perf_counter() - t0
        with self._lock:
            if flag.event.is_set() and not flag.stopped_by_user:
                return          # superseded by a newer fit: drop it
            self.monitor.flush()
        stage["name"] = "scoring"
        est = self._shown(fitter)
        score = self._score(est)
        with self._lock:
            if flag.event.is_set() and not flag.stopped_by_user:
                return          # superseded while it was scored: the newer fit reports
            self._keep(est, score, seconds, values, key, start, flag)
        self._draw(est, stage, seconds=seconds, compiled=notice.compiling,
                   start=self._start_text(start, last_step(est)[1]))

    def _keep(self, est, score, seconds, values, key, start, flag) -> None:
        """Store a finished foreground fit (under the lock): the lab's
        model, the cache (unless stopped by the user), the last move."""
        self.estimator_, self.score_, self.error_ = est, score, None
        # the fitted targets decide the metric (LabelRanker: accuracy on labels)
        self.metric_, self._sign = _metric_text(last_step(est)[1], self._scoring)
        self.n_fits_ += 1
        source = "cold" if start is None else "warm"
        if self.penalty_ is not None:
            value = values[self.penalty_]
            if not flag.stopped_by_user:
                self.cache.put(key, Solution(value, est, score, seconds,
                                             self._start_text(start, None)))
            self.last_move_ = dict(value=value, source=source, fits=1,
                                   seconds=time.perf_counter() - flag.started)

    def _start_text(self, start, final) -> str:
        """The readout's "start" row: cold, or warm from which value."""
        if start is None:
            return "cold (from zero)"
        how = str(getattr(getattr(final, "result_", None), "get", lambda *_: "")(
            "warm_start", "") or "")
        note = "" if how in ("", "used") else f" ({how})"
        return f"warm from {self.penalty_} = {start:.3g}{note}"

    def _draw(self, est, stage: dict, **shown) -> None:
        """The readout, the paper view and the path view of the shown model;
        then the background precompute restarts around it."""
        res = getattr(last_step(est)[1], "result_", None)
        status = getattr(res, "status", "fitted") if res is not None else "fitted"
        stage.update(name="drawing", shown=dict(est=est, **shown))
        self.view_error_ = None
        if self.view is not None:
            self.view.update(est)
        self._set_readout(status, **stage["shown"])
        self._redraw_path()
        self._plan()

    def _show_cached(self, sol: Solution, key: tuple, t0: float) -> None:
        """A move to a value the lab holds: redraw from it, no fit."""
        stage: dict = {"name": "drawing"}
        try:
            with self._lock:
                self.estimator_, self.score_, self.error_ = sol.estimator, sol.score, None
                self.n_cached_ += 1
            trace = getattr(getattr(last_step(sol.estimator)[1], "result_", None),
                            "trace", None)
            if trace is not None and len(trace):
                self.monitor.replay(trace)
            self.stop_button.disabled = True
            self._draw(sol.estimator, stage, seconds=sol.seconds,
                       start=f"from the cache (no fit; {sol.start})")
        except Exception as exc:  # shown in the readout, as a fit's drawing failure
            self._show_failure(stage, exc)
        self.last_move_ = dict(value=sol.value, source="cache", fits=0,
                               seconds=time.perf_counter() - t0)

    def _plan(self) -> None:
        """Restart the background precompute around the current value."""
        if self._pre is None:
            return
        c = self.controls[self.penalty_]
        self._pre.restart(slider_positions(c.value, c.min, c.max, c.step))

    def _fit_background(self, value: float, cancelled) -> bool:
        """One background fit at penalty ``value`` (see :class:`Precomputer`):
        True if its solution was kept."""
        values = {**self.values(), self.penalty_: value}
        key = settings_key(values, self.penalty_)
        if self.cache.get(key, value) is not None or self.estimator_ is None:
            return False
        fitter, start = self._take(values, key, background=True)
        self.fits_run_ += 1

        def callback(info):
            if cancelled():
                raise StopIteration("cancelled: a control moved")

        t0 = time.perf_counter()
        fitted = False
        try:
            self._fit(fitter, callback)
            fitted = True
        finally:
            self._give(values, key, fitter, start, fitted)
        if cancelled() or not fitted:
            return False
        est = self._shown(fitter)
        score = self._score(est)
        if cancelled():
            return False
        self.cache.put(key, Solution(value, est, score, time.perf_counter() - t0,
                                     self._start_text(start, None), background=True))
        _handoff(self._redraw_path)
        return True

    def _redraw_path(self) -> None:
        if self.path_view is not None:
            sols = self.cache.solutions(settings_key(self.values(), self.penalty_))
            self.path_view.update(sols, self.controls[self.penalty_].value, self._sign,
                                  self.metric_)

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
        """The test metric of the fitted ``est`` (:func:`score_on_test` on the
        test split prepared once; a scorer gets the raw test X)."""
        if self.test is None:
            return None
        if self._scorer is not None:
            return score_on_test(est, self.test[0], tuple(self.test[1:]), self._scorer)
        return score_on_test(est, self._test[0], tuple(self._test[1:]),
                             transformed=self._head is not None)

    def _set_readout(self, status: str, est=None, seconds=None, error=None,
                     compiled: bool = False, details: str | None = None,
                     start: str | None = None) -> None:
        color = "#2ca02c" if status == "converged" else (
            "#d62728" if error or "maximum" in status or "failure" in status else "#333")
        rows = [("status", f"<b style='color:{color}'>{escape(status)}</b>")]
        if error:
            rows.append(("error", f"<span style='color:#d62728'>{escape(error)}</span>"))
        if details:
            rows.append(("", traceback_html(details)))
        if start:
            rows.append(("start", escape(start)))
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
        if self.path_view is not None:
            figs.append(self.path_view.fig)
        if self.view is not None:
            figs += self.view.figures()
        return figs

    def __repr__(self) -> str:
        return (f"SolverLab({_describe(self.estimator)}, controls="
                f"{sorted(self.controls)}, n_fits_={self.n_fits_})")


