"""Pieces shared by the scikit-learn estimators of every paper.

The estimators are thin layers (``DESIGN.md``, "The pattern every solver
follows"): declarative ``_parameter_constraints``, one
:func:`sklearn.utils.validation.validate_data` at the boundary, then a call
to the paper's driver.  What they have in common lives here:

- :func:`log_callback`: the ``verbose`` log (one line per solver iteration,
  like LIBLINEAR's), chained in front of the user's ``callback``;
- :func:`warn_if_not_converged`: one :class:`~sklearn.exceptions.ConvergenceWarning`
  whenever a solver ends on an iteration cap or stalls, never a silent
  "converged";
- :func:`solver_seed`: the seed a driver gets from ``random_state``;
  :func:`forget_fitted`: a refit drops the fitted attributes it may not set;
- :class:`LabelColumnsMixin`: what the two estimators of label columns
  (:class:`~polyrank.M3LClassifier`, :class:`~polyrank.LabelRanker`) share:
  the bias feature, the targets' coding, the kernel expansion.
"""

from __future__ import annotations

import functools
import math
import os
import sys
import types
import warnings
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.sparsefuncs import mean_variance_axis

from ._compile_notice import compile_guard
from ._progress import verbosity
from ._text import scale_advice
from .exceptions import FeatureScaleWarning, NumericalError, TrivialModelWarning
from .kernels import check_kernel_params, kernel_matrix
from .result import (
    STATUS_CALLBACK,
    STATUS_COMPLETED,
    STATUS_CONVERGED,
    STATUS_NUMERICAL,
    IterInfo,
    all_finite,
)
from .validation import check_dense_unless_linear

__all__ = ["log_callback", "warn_if_not_converged", "warn_if_trivial", "warn_if_unscaled",
           "feature_scale_issue", "kernel_width_hint", "format_iter_line",
           "solver_seed", "forget_fitted", "fitted_attributes", "fit_context", "raise_numerical",
           "remember_fitted_params", "fitted_param", "FITTED_PARAMS",
           "LabelColumnsMixin", "SparseIfLinearMixin"]


def format_iter_line(name: str, info: IterInfo) -> str:
    """One log line for an iteration, e.g.
    ``LabelRanker iter    3  primal 1.2345e+02  dual 1.2000e+02  gap 3.45e+00  0.01 s``
    followed by the solver's extras (``name value``).

    Examples
    --------
    >>> format_iter_line("RankSVM", IterInfo(2, 0.5, 3.0, 1.0, 2.0, delta=0.25))
    'RankSVM iter     2  primal 3.0000e+00  dual 1.0000e+00  gap 2.00e+00  delta 0.25  0.50 s'
    """
    parts = [f"{name} iter {info.iteration:5d}"]
    for key, fmt in (("primal", ".4e"), ("dual", ".4e"), ("gap", ".2e")):
        value = getattr(info, key)
        if not math.isnan(value):
            parts.append(f"{key} {value:{fmt}}")
    parts += [f"{k} {v:.4g}" for k, v in info.extras.items()]
    parts.append(f"{info.time_s:.2f} s")
    return "  ".join(parts)


def log_callback(callback, verbose, name: str, file=None):
    """The callback a fit hands to its driver: the ``verbose`` log, then the
    user's ``callback``.

    Parameters
    ----------
    callback : callable or None
        The user's ``callback(info: IterInfo)``; may raise StopIteration.
    verbose : int or bool
        0/False: no log (``callback`` is returned unchanged).  ``v >= 1``:
        one line (:func:`format_iter_line`) for every ``v``-th iteration.
    name : str
        The estimator's name at the start of each line.
    file : file-like, optional
        Where the lines go (default ``sys.stdout``, as LIBLINEAR's and
        scikit-learn's logs).

    Returns
    -------
    callable or None
    """
    if not verbose:
        return callback
    every = int(verbose)

    def log(info):
        if info.iteration % every == 0:
            print(format_iter_line(name, info), file=file or sys.stdout, flush=True)
        if callback is not None:
            callback(info)

    return log


def warn_if_not_converged(estimator, res, hint: str = "") -> None:
    """Issue a ConvergenceWarning unless ``res`` converged, completed its
    fixed passes (an online algorithm) or was stopped by the callback on
    purpose; raise if the solve left no finite model.

    Called by every ``fit`` right after its driver, before any fitted
    attribute is set.

    Parameters
    ----------
    estimator : object
        Its class name starts the message.
    res : SolverResult
        The driver's result (``status``, ``message`` and ``x`` are read).
    hint : str
        What the user can do, e.g. ``"increase max_iter or tol"``.

    Raises
    ------
    polyrank.exceptions.NumericalError
        If ``res.status`` is ``"numerical failure"`` and ``res.x`` holds a
        NaN or infinity: the fitted attributes of ``estimator`` (of this or
        an earlier fit) are removed, so that it is unfitted.

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        For every other status than converged or stopped by the callback
        (iteration cap, stall, a numerical failure with a finite model).
    """
    if res.status in (STATUS_CONVERGED, STATUS_COMPLETED, STATUS_CALLBACK):
        return
    text = f"{type(estimator).__name__}: {res.message}"
    if hint:
        text += f"; {hint}"
    if res.status == STATUS_NUMERICAL and not all_finite(res.x):
        raise_numerical(estimator, res, hint)
    warnings.warn(text, ConvergenceWarning, stacklevel=_user_stacklevel())


def raise_numerical(estimator, res, hint: str = ""):
    """Leave ``estimator`` unfitted and raise NumericalError for a solve that
    ended in ``"numerical failure"``.

    Parameters
    ----------
    estimator : object
        Its fitted attributes (of this or an earlier fit) are removed.
    res : SolverResult
        The failed solve (its message starts the error's).
    hint : str
        What the user can do.

    Raises
    ------
    polyrank.exceptions.NumericalError
        Always.
    """
    forget_fitted(estimator, fitted_attributes(estimator))
    text = f"{type(estimator).__name__}: {res.message}" + (f"; {hint}" if hint else "")
    state = "NaN or infinity" if not all_finite(res.x) else "no trustworthy solution"
    raise NumericalError(f"{text} (the model holds {state}: the estimator is left "
                         "unfitted)", res)


def fit_context(fit):
    """The decorator of every estimator's ``fit``: scikit-learn's
    ``_fit_context`` (parameter validation), progress bars of the long
    phases when ``self.verbose`` is set (:func:`polyrank._progress.verbosity`),
    numba's first compile of the kernels waited for and reported
    (:func:`polyrank.compiling.compile_guard`: a background worker's, or
    this fit's own), and an interrupted fit left unfitted.

    A fit stopped by Ctrl-C (:class:`KeyboardInterrupt`, raised when the
    running numba kernel returns: a pass, an epoch, a block of a Gram matrix)
    removes every fitted attribute, of this fit or an earlier one, before the
    interrupt propagates: the estimator is then unfitted (``predict`` raises
    :class:`~sklearn.exceptions.NotFittedError`) rather than half-fitted.

    Parameters
    ----------
    fit : callable
        ``fit(self, X, y, ...)``.

    Returns
    -------
    callable
    """
    checked = _fit_context(prefer_skip_nested_validation=True)(fit)

    @functools.wraps(fit)
    def guarded(self, *args, **kwargs):
        with verbosity(getattr(self, "verbose", 0)), compile_guard(self):
            try:
                self.__dict__.pop(FITTED_PARAMS, None)     # this fit reads the parameters
                fitted = checked(self, *args, **kwargs)
            except KeyboardInterrupt:
                forget_fitted(self, fitted_attributes(self))
                raise
            remember_fitted_params(self)
            return fitted

    return guarded


#: the attribute holding the parameters a fit used that ``predict`` reads
#: (:func:`remember_fitted_params`, :func:`fitted_param`)
FITTED_PARAMS = "_fitted_params"


def remember_fitted_params(estimator) -> None:
    """Keep the values of the parameters that ``estimator``'s prediction
    reads (its class's ``_predict_params``, e.g. ``("kernel", "gamma")``) as
    fitted when ``fit`` returns (:func:`fit_context` calls it), so that a
    later ``set_params`` does not change what the fitted model predicts:
    scikit-learn's practice, ``predict`` uses the fitted state (and
    ``M3LClassifier(kernel="rbf").fit(...).set_params(kernel="linear")``
    still predicts with its rbf expansion, not an absent ``coef_``).  The
    new value is used by the next ``fit``.

    Parameters
    ----------
    estimator : object
        A fitted estimator.
    """
    names = getattr(type(estimator), "_predict_params", ())
    estimator.__dict__[FITTED_PARAMS] = {name: getattr(estimator, name) for name in names}


def fitted_param(estimator, name: str):
    """The value of parameter ``name`` that ``estimator`` was fitted with
    (:func:`remember_fitted_params`); during ``fit``, or for a model saved
    before polyrank kept them, the current value.

    Parameters
    ----------
    estimator : object
    name : str
        One of the class's ``_predict_params``.

    Returns
    -------
    object
        The parameter's value.

    Examples
    --------
    >>> import types
    >>> est = types.SimpleNamespace(kernel="linear", _fitted_params={"kernel": "rbf"})
    >>> fitted_param(est, "kernel")
    'rbf'
    """
    fitted = getattr(estimator, FITTED_PARAMS, None)
    if fitted is not None and name in fitted:
        return fitted[name]
    return getattr(estimator, name)


def fitted_attributes(estimator) -> list[str]:
    """The names of ``estimator``'s fitted attributes: those ending in one
    underscore (scikit-learn's convention: ``coef_``, ``n_features_in_``),
    and the private state of a fit (``_coding``).

    Examples
    --------
    >>> class E: pass
    >>> e = E(); e.C = 1.0; e.coef_ = 0; e._coding = None
    >>> fitted_attributes(e)
    ['coef_', '_coding']
    """
    return [k for k in vars(estimator)
            if (k.endswith("_") and not k.endswith("__"))
            or k in ("_coding", "_params", FITTED_PARAMS)]


def warn_if_trivial(estimator, *, coef=None, train_pred=None, y=None,
                    remedy: str = "") -> bool:
    """Warn (:class:`~polyrank.exceptions.TrivialModelWarning`) when a fit
    gave a trivial model: every weight zero, or one predicted value for
    every training row although the training targets hold several.

    Parameters
    ----------
    estimator : object
        Its class name starts the message.
    coef : array_like, optional
        The fitted weights (any shape); trivial when every entry is 0.
    train_pred : array_like, shape (n_samples,) or (n_samples, k), optional
        The model's predictions on its training rows.
    y : array_like, shape (n_samples,) or (n_samples, k), optional
        The training targets (required with ``train_pred``).
    remedy : str
        What the user can change, e.g. ``"lower C or standardise X"``.

    Returns
    -------
    bool
        Whether the warning was issued.

    Warns
    -----
    polyrank.exceptions.TrivialModelWarning
        With the reason (zero weights / one predicted value and how many the
        targets hold) and ``remedy``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_if_trivial(object(), train_pred=[1, 1, 1], y=[0, 1, 1])
    True
    >>> str(w[0].message)
    'object: the model predicts 1 for every training row although y holds 2 distinct values'
    """
    reason = None
    if coef is not None and not np.any(np.asarray(coef)):
        reason = "every weight is zero"
    elif train_pred is not None:
        pred, target = np.asarray(train_pred), np.asarray(y)
        # one O(n k) comparison; the targets' distinct rows (a sort) only when
        # every prediction is the same (np.unique(pred, axis=0) cost 5 ms a fit)
        one = pred.shape[0] > 0 and bool((pred == pred[:1]).all())
        rows_y = (() if not one else np.unique(target, axis=0) if target.ndim > 1
                  else np.unique(target))
        if one and len(rows_y) > 1:
            shown = pred[0].tolist() if pred.ndim > 1 else pred[0].item()
            what = "rows" if target.ndim > 1 else "values"
            reason = (f"the model predicts {shown} for every training row although y "
                      f"holds {len(rows_y)} distinct {what}")
    if reason is None:
        return False
    text = f"{type(estimator).__name__}: {reason}"
    if remedy:
        text += f"; {remedy}"
    warnings.warn(text, TrivialModelWarning, stacklevel=_user_stacklevel())
    return True


#: :func:`feature_scale_issue`: the standard deviations of the non-constant
#: columns span more than this factor (a StandardScaler'd X: 1)
SCALE_SPREAD = 1e3
#: ... or (dense X) the squared norm of the column means exceeds this multiple
#: of the total variance sum_j var_j (a centred X: 0).  Measured on the bundled
#: and MULAN sets (spread, mean share): raw emotions 1.9e4, 30 and raw red wine
#: 1.7e4, 2.2 (LabelRanker and M3LClassifier crawl: 1,000 passes and 10,000
#: checks without converging); raw scene 4.1, 4.0, MQ2008 1.4, 1.1, phishing
#: 4.6, 1.8, w8a 32, 0.13, yeast 1.2, 0.0003 (all converge)
MEAN_DOMINANCE = 10.0
#: rows per block of the dense variance computation (bounded extra memory)
_MOMENT_ROWS = 4096


def _column_moments(X):
    """Column means and (population) variances of a dense or CSR X, in
    O(nnz) time and O(n_features + 4096 n_features) extra memory."""
    if sp.issparse(X):
        return mean_variance_axis(X, axis=0)
    mean = X.mean(axis=0)
    var = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], _MOMENT_ROWS):
        block = X[start:start + _MOMENT_ROWS] - mean
        var += np.einsum("ij,ij->j", block, block)
    return mean, var / max(X.shape[0], 1)


def feature_scale_issue(X, *, offset: bool = True, names=None, rms_range=None):
    """Why the feature matrix X does not look standardised, or None.

    Two signs, both cured by :class:`sklearn.preprocessing.StandardScaler`:
    the standard deviations of the non-constant columns span more than
    :data:`SCALE_SPREAD` (1e3), or (``offset`` and dense X) the squared
    norm of the column means exceeds :data:`MEAN_DOMINANCE` (10) times the
    total variance, i.e. the rows are nearly parallel.  Either makes the
    Gram matrix XX' ill-conditioned, which is what slows the dual
    coordinate solvers (LIBLINEAR's FAQ gives the same advice for its dual
    solvers).

    Parameters
    ----------
    X : ndarray or CSR matrix, shape (m, n_features)
        Checked, finite float64 features.
    offset : bool, default=True
        Also test the mean (False for translation-invariant kernels).
        Never tested for sparse X, which cannot be centred sparsely.
    names : sequence of str, optional
        Column names for the message (default ``"column j"``).
    rms_range : (float, float), optional
        Also a sign: the root mean square of X's entries (1 after a
        StandardScaler) outside this range (PRank, whose thresholds move by
        1 per mistake, needs X near unit magnitude); from the same column
        moments, mean(var + mean^2).

    Returns
    -------
    str or None
        The statistics that exceed the limits, as a phrase for a message.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> feature_scale_issue(X) is None
    True
    >>> feature_scale_issue(X * [1e-3, 1.0, 10.0])
    'feature standard deviations range from 0.00109 (column 0) to 9.55 (column 2)'
    """
    mean, var = _column_moments(X)
    sd = np.sqrt(var)
    # a constant column may get a rounding-level standard deviation
    live = np.flatnonzero(sd > 1e-9 * np.abs(mean))
    reasons = []
    if live.size:
        lo, hi = live[np.argmin(sd[live])], live[np.argmax(sd[live])]
        if sd[hi] > SCALE_SPREAD * sd[lo]:
            label = (lambda j: f"column {j}") if names is None else (lambda j: repr(str(names[j])))
            reasons.append(f"feature standard deviations range from {sd[lo]:.3g} "
                           f"({label(lo)}) to {sd[hi]:.3g} ({label(hi)})")
    total = float(var.sum())
    share = float(mean @ mean)
    if offset and not sp.issparse(X) and share > MEAN_DOMINANCE * total:
        ratio = f"{share / total:.3g} times" if total > 0 else "far above"
        reasons.append(f"the rows are dominated by their common mean (the squared norm "
                       f"of the column means is {ratio} the total variance)")
    if rms_range is not None and var.size:
        rms = float(np.mean(var + mean * mean)) ** 0.5
        if rms > 0.0 and not rms_range[0] <= rms <= rms_range[1]:
            reasons.append(f"the root mean square of its entries is {rms:.3g} "
                           "(1 after a StandardScaler)")
    return "; ".join(reasons) or None


#: why unscaled X hurts, in :func:`warn_if_unscaled`'s message (the dual solvers)
UNSCALED_DUAL = ("The dual solver converges slowly on such data and the L2 penalty weighs "
                 "the features by their units")


def warn_if_unscaled(estimator, X, kernel: str = "linear", why: str = UNSCALED_DUAL,
                     rms_range=None) -> bool:
    """Warn (:class:`~polyrank.exceptions.FeatureScaleWarning`) before a
    solve when X does not look standardised (:func:`feature_scale_issue`),
    naming the fix: ``make_pipeline(StandardScaler(), Estimator())``, or on
    the command line ``--standardize`` (:func:`polyrank._text.scale_advice`).

    Parameters
    ----------
    estimator : object
        The estimator about to fit (its class name is in the message; its
        ``feature_names_in_``, if any, name the columns).
    X : ndarray or CSR matrix, shape (m, n_features)
        The checked training features (without an appended bias feature).
    kernel : str, default="linear"
        ``"precomputed"`` skips the check (X is a Gram matrix); ``"rbf"``
        tests the spread of the scales only (the kernel is translation
        invariant).
    why : str, default=UNSCALED_DUAL
        Why such X hurts this estimator (a sentence without its full stop).
    rms_range : (float, float), optional
        Passed to :func:`feature_scale_issue`.

    Returns
    -------
    bool
        Whether the warning was issued.
    """
    if kernel == "precomputed":
        return False
    issue = feature_scale_issue(X, offset=kernel != "rbf", rms_range=rms_range,
                                names=getattr(estimator, "feature_names_in_", None))
    if issue is None:
        return False
    name = type(estimator).__name__
    warnings.warn(f"{name}: X does not look standardised: {issue}. {why}; "
                  f"{scale_advice(name, sparse=sp.issparse(X))}", FeatureScaleWarning,
                  stacklevel=_user_stacklevel())
    return True


#: training pairs :func:`kernel_width_hint` samples to judge an rbf kernel
WIDTH_PAIRS = 256


def kernel_width_hint(estimator, X=None) -> str:
    """The part of a trivial kernel model's remedy that names the kernel
    width, for the rbf and poly kernels (else ``""``).  The estimator
    defines ``kernel`` and ``gamma``.

    With the rbf kernel and the training rows ``X``, the median of
    k(x, x') over :data:`WIDTH_PAIRS` random pairs of distinct rows says
    which way gamma is off: below 0.01 the kernel is almost the identity
    (gamma too large for X's units, e.g. raw pixel values), above 0.99
    almost constant (too small).  Otherwise, and without X, the hint is the
    usual one for a small gamma.

    Parameters
    ----------
    estimator : object
        With ``kernel`` and ``gamma`` (None: 1 / n_features).
    X : ndarray, shape (n_samples, n_features), optional
        The dense training rows.

    Returns
    -------
    str
        ``", lower gamma (now ...)"``, ``", raise gamma (now ...)"`` or ``""``.

    Examples
    --------
    >>> import types, numpy as np
    >>> est = types.SimpleNamespace(kernel="rbf", gamma=None)
    >>> X = np.random.default_rng(0).normal(size=(50, 4))
    >>> kernel_width_hint(est, 100 * X)[:36]
    ', lower gamma (now 1/n_features; the'
    >>> kernel_width_hint(est, X)[:36]
    ', raise gamma (now 1/n_features; a s'
    """
    if estimator.kernel not in ("rbf", "poly"):
        return ""
    now = "1/n_features" if estimator.gamma is None else f"{estimator.gamma:g}"
    if estimator.kernel == "rbf" and X is not None and not sp.issparse(X) and X.shape[0] > 1:
        X = np.asarray(X, dtype=np.float64)
        gamma = check_kernel_params("rbf", estimator.gamma, 1, 0.0, X.shape[1])["gamma"]
        rng = np.random.default_rng(0)
        i, j = rng.integers(0, X.shape[0], size=(2, WIDTH_PAIRS))
        i, j = i[i != j], j[i != j]
        if i.size:
            k = float(np.median(np.exp(-gamma * np.sum((X[i] - X[j]) ** 2, axis=1))))
            if k < 0.01:
                return (f", lower gamma (now {now}; the median of k(x, x') over training "
                        f"pairs is {k:.2g}: the kernel is almost the identity)")
            if k > 0.99:
                return (f", raise gamma (now {now}; the median of k(x, x') over training "
                        f"pairs is {k:.4g}: the kernel is almost constant)")
    return f", raise gamma (now {now}; a small gamma makes the kernel almost constant)"


def solver_seed(random_state):
    """The seed a driver gets from an estimator's ``random_state``.

    Parameters
    ----------
    random_state : int, RandomState, Generator or None
        The estimator's parameter.

    Returns
    -------
    int, Generator or None
        ``random_state`` itself, except that a RandomState instance draws an
        int seed (so two fits with one instance differ, as in scikit-learn).

    Examples
    --------
    >>> solver_seed(3), solver_seed(None)
    (3, None)
    """
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    return random_state


def forget_fitted(estimator, names) -> None:
    """Drop the fitted attributes ``names`` of an earlier fit (a refit sets
    only those that apply to it, e.g. ``coef_`` for the linear kernel).

    Parameters
    ----------
    estimator : object
        The estimator being refitted.
    names : iterable of str
        Attribute names; absent ones are skipped.
    """
    for name in names:
        estimator.__dict__.pop(name, None)


class SparseIfLinearMixin:
    """Sparse (CSR) X accepted with ``kernel="linear"`` only: the
    ``input_tags.sparse`` tag and the check
    (:func:`~polyrank.validation.check_dense_unless_linear`) that
    :class:`~polyrank.LabelRanker`, :class:`~polyrank.OrdinalMarginRanker`
    and :class:`~polyrank.PRank` share. The estimator defines ``kernel``.
    """

    kernel: str

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel == "linear"
        return tags

    def _check_sparse(self, X) -> None:
        check_dense_unless_linear(X, fitted_param(self, "kernel"))


class LabelColumnsMixin:
    """What :class:`~polyrank.M3LClassifier` and :class:`~polyrank.LabelRanker`
    share: a constant feature of value ``self._bias()`` appended to X, the
    coding of the targets (:func:`polyrank._multilabel.encode_targets`) and
    the kernel expansion of ``decision_function``.

    The estimator defines ``_bias()``, ``kernel``, ``gamma``, ``degree`` and
    ``coef0``; ``fit`` sets ``X_fit_`` and ``dual_coef_`` (kernel models).
    """

    kernel: str
    gamma: float | None
    degree: int
    coef0: float
    X_fit_: np.ndarray
    dual_coef_: np.ndarray
    _bias: Callable[[], float]

    def _augment(self, X):
        """X with the bias feature appended (X itself when the bias is 0)."""
        bias = self._bias()
        if bias == 0:
            return X
        column = np.full((X.shape[0], 1), bias)
        if sp.issparse(X):
            return sp.hstack([X, sp.csr_matrix(column)], format="csr")
        return np.hstack([X, column])

    def _keep_coding(self, coding) -> None:
        """Keep the targets' coding and its attributes ``classes_``,
        ``target_type_`` and ``label_values_``."""
        self._coding = coding
        self.classes_ = coding.classes
        self.target_type_ = coding.target_type
        self.label_values_ = coding.label_values

    def _kernel_decision(self, X) -> np.ndarray:
        """k(X with the bias feature, X_fit_) @ dual_coef_ (a non-linear kernel)."""
        Xa = self._augment(X)
        kernel = fitted_param(self, "kernel")
        params = check_kernel_params(kernel, fitted_param(self, "gamma"),
                                     fitted_param(self, "degree"), fitted_param(self, "coef0"),
                                     Xa.shape[1])
        return kernel_matrix(Xa, self.X_fit_, kernel=kernel, **params) @ self.dual_coef_


#: frames in these packages are not the user's line a warning should point at
_INTERNAL = tuple(os.path.dirname(str(m.__file__)) + os.sep
                  for m in (sklearn, sys.modules[__package__]))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` (called by our caller)
    that names the first frame outside polyrank and scikit-learn, i.e. the
    user's ``fit`` call rather than scikit-learn's ``_fit_context`` wrapper
    or a Pipeline step."""
    frame: types.FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level
