"""scikit-learn estimators for sign-constrained learning (SC-SDCA / SC-Pegasos)."""

from __future__ import annotations

import numbers
import zlib
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._repr import FitReprMixin
from .._sklearn import (
    fit_context,
    fitted_param,
    log_callback,
    solver_seed,
    warn_if_not_converged,
    warn_if_trivial,
    warn_if_unscaled,
)
from .._text import param, scale_advice
from .._warm import fingerprint, keep, prepared, previous
from ..path import N_GRID, PathResult, estimator_path, reject_grid_params
from ..validation import check_sample_weight, check_signs, validate_X
from .data import kernel_form, trusted_data
from .losses import BINARY_LOSSES, MULTICLASS_LOSSES, REGRESSION_LOSSES
from .pegasos import sc_pegasos_trusted
from .sdca import sc_sdca_trusted

__all__ = ["SignConstrainedClassifier", "SignConstrainedRegressor", "sign_path"]

_SOLVERS = ("sdca", "pegasos")
#: the multiclass generalisation used when a binary loss name is given with
#: more than two classes (Sec. 5)
_MULTICLASS_OF = {"hinge": "max_hinge", "logistic": "softmax"}
#: the losses that are negative log-likelihoods, hence give probabilities
_PROBABILISTIC = ("logistic", "softmax")


def _feature_index(key, names, d: int) -> int:
    if isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, bool):
        index = int(key)
        if not 0 <= index < d:
            raise ValueError(f"signs: feature index {index} out of range [0, {d})")
        return index
    if isinstance(key, str):
        if names is None:
            raise ValueError(f"signs: feature name {key!r} given but X has no column "
                             "names (pass a pandas DataFrame or use indices)")
        if key not in names:
            raise ValueError(f"signs: unknown feature name {key!r}")
        return names.index(key)
    raise TypeError(f"signs: keys must be feature indices or names, got "
                    f"{type(key).__name__}")


def _check_sign_value(v, key):
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or v not in (-1, 0, 1):
        raise ValueError(f"signs: the sign of {key!r} must be -1, 0 or +1, got {v!r}")
    return float(v)


def _resolve_signs(signs, names, d: int, classes=None) -> np.ndarray:
    """signs (array or dict) -> c (d,) or, with ``classes``, C (d, m)."""
    m = None if classes is None else len(classes)
    shape = (d,) if m is None else (d, m)
    if not isinstance(signs, dict):
        return check_signs(signs, "signs", shape)
    c = np.zeros(shape)
    for key, v in signs.items():
        if m is None:
            c[_feature_index(key, names, d)] = _check_sign_value(v, key)
        else:
            if not (isinstance(key, tuple) and len(key) == 2):
                raise ValueError("signs: for a multiclass model the dict keys are "
                                 f"(feature, class) pairs, got {key!r}")
            cls = np.flatnonzero(classes == key[1])
            if cls.size != 1:
                raise ValueError(f"signs: unknown class {key[1]!r} in key {key!r}")
            c[_feature_index(key[0], names, d), cls[0]] = _check_sign_value(v, key)
    return c


def _crc_of(X) -> int:
    """CRC-32 of every stored value of X (dense or CSR: data, indices, indptr)."""
    if sp.issparse(X):
        crc = zlib.crc32(np.ascontiguousarray(X.data).view(np.uint8).ravel().data)
        crc = zlib.crc32(np.ascontiguousarray(X.indices).view(np.uint8).ravel().data, crc)
        return zlib.crc32(np.ascontiguousarray(X.indptr).view(np.uint8).ravel().data, crc)
    return zlib.crc32(np.ascontiguousarray(X).view(np.uint8).ravel().data)


class _SignConstrainedBase(FitReprMixin, BaseEstimator):
    """Shared fitting logic; see the two public estimators."""

    _parameter_constraints: dict = {
        "lam": [Interval(Real, 0, np.inf, closed="neither")],
        "signs": ["array-like", dict, None],
        "solver": [StrOptions(set(_SOLVERS))],
        "tol": [Interval(Real, 0, np.inf, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "average_from": [Interval(Integral, 0, None, closed="left"), None],
        "shrinking": ["boolean", StrOptions({"auto"})],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "bias": [Interval(Real, 0, np.inf, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
    }

    #: SDCA epochs of max_iter=None
    _sdca_epochs = 1000

    def __init__(self, lam, signs, loss, solver, tol, max_iter, average_from, shrinking,
                 batch_size, bias, random_state, verbose, warm_start=False):
        """Keep the parameters both estimators take (unchecked, as scikit-learn's
        convention; ``fit`` validates them)."""
        self.lam = lam
        self.signs = signs
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.average_from = average_from
        self.shrinking = shrinking
        self.batch_size = batch_size
        self.bias = bias
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _names(self):
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [str(c) for c in names]

    def _validate_fit(self, X, y, sample_weight, **kw):
        self.__dict__.pop("feature_names_in_", None)
        X, y = validate_X(self, X, y, accept_sparse="csr", dtype=np.float64, **kw)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
            if not sample_weight.sum() > 0:
                raise ValueError("sample_weight: all weights are zero")
        warn_if_unscaled(self, X)
        return X, y, sample_weight

    def _form(self, X, bias: float, multiclass: bool):
        """X in the kernels' form (:func:`polyrank.sign.data.kernel_form`, one
        copy of X), built once per fit, and with ``warm_start=True`` once per
        path: kept beside the estimator (:func:`polyrank._warm.prepared`)
        while the data's fingerprint, the CRC-32 of all of X (about 1 ms for
        3 MB: a form built from other values of X is never reused), the bias
        and the storage stay."""
        layout = "auto" if self.solver == "sdca" and not multiclass else "csr"
        key = fingerprint(X) + (_crc_of(X), "kernel_form", bias, layout, multiclass)
        form, _ = prepared(self, key, lambda: kernel_form(X, bias=bias, layout=layout,
                                                          multiclass=multiclass))
        return form

    def _solve(self, X, y, loss, c, callback, callback_every, multiclass=False,
               sample_weight=None):
        bias = float(self.bias)
        if bias > 0:
            c = np.concatenate([c, np.zeros((1,) + c.shape[1:])])
        # X validated by fit: the trusted path from here on
        data = trusted_data(None, y, loss, c, self.top_k, sample_weight,
                            form=self._form(X, bias, multiclass))
        common = dict(smoothing=self.smoothing, top_k=self.top_k,
                      callback=log_callback(callback, self.verbose, type(self).__name__),
                      callback_every=callback_every,
                      random_state=solver_seed(self.random_state), tol=self.tol)
        key = fingerprint(X, y, sample_weight) + (self.solver, loss, bias, self.smoothing,
                                                  self.top_k)
        alpha0, how = self._alpha0(key)
        if self.solver == "sdca":
            shrinking = (not multiclass) if self.shrinking == "auto" else bool(self.shrinking)
            max_iter = self._sdca_epochs if self.max_iter is None else self.max_iter
            res = sc_sdca_trusted(data, loss, self.lam, max_iter=max_iter,
                                  average_from=self.average_from, shrinking=shrinking,
                                  alpha0=alpha0, **common)
            warn_if_not_converged(self, res, f"increase {param('max_iter')} or "
                                  f"{param('tol')}, or "
                                  f"{scale_advice(type(self).__name__)}")
        else:
            res = sc_pegasos_trusted(data, loss, self.lam, batch_size=self.batch_size,
                                     max_iter=self.max_iter, weighted=sample_weight is not None,
                                     **common)
            warn_if_not_converged(self, res, f"SC-Pegasos stops after {param('max_iter')} steps: "
                                  f"increase {param('max_iter')} or {param('tol')}, or "
                                  f"use {param('solver')}=sdca")
        res.warm_start = how
        keep(self, key, self.lam, alpha=res.dual)
        W = res.x
        if bias > 0:
            coef, intercept = W[:-1], W[-1] * bias
        else:
            coef, intercept = W, np.zeros(W.shape[1:])
        self.result_ = res
        self.n_iter_ = res.nit
        self.dual_coef_ = res.dual
        self.signs_ = c[:-1] if bias > 0 else c
        return coef, intercept

    def _alpha0(self, key):
        """(alpha0 or None, ``result_.warm_start``): SC-SDCA's previous dual
        point, feasible for every ``lam`` and every ``signs`` (its box is
        the conjugate loss's domain); SC-Pegasos always starts cold."""
        state, how = previous(self, key)
        if state is not None and self.solver != "sdca":
            return None, ("cold: SC-Pegasos cannot start from a given w (its first step, "
                          "eta_1 = 1 / lam, multiplies w by 1 - eta_1 lam = 0, Alg. 1); "
                          "use solver='sdca'")
        return (None if state is None else state.point["alpha"]), how

    def _warn_if_trivial(self, X, y, sample_weight, classes=None) -> None:
        """TrivialModelWarning when every weight is 0 (the signs may contradict
        the data, or lam is too large) or, for a classifier (``classes``
        given), every training row of positive weight gets the same class
        although ``y`` holds several."""
        pred = target = None
        if classes is not None:
            keep = slice(None) if sample_weight is None else sample_weight > 0
            s = np.asarray(X @ self.coef_.T) + self.intercept_
            pred = (s[:, 0] > 0) if s.shape[1] == 1 else np.argmax(s, axis=1)
            pred, target = classes[np.asarray(pred, dtype=np.intp)][keep], np.asarray(y)[keep]
        warn_if_trivial(self, coef=self.coef_, train_pred=pred, y=target,
                        remedy=f"lower {param('lam')} (now {self.lam:g}), check that the signs "
                               "do not contradict the data, or "
                               f"{scale_advice(type(self).__name__)}")

    def _scores(self, X):
        check_is_fitted(self, "result_")
        X = validate_X(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_.T) + self.intercept_


class SignConstrainedClassifier(ClassifierMixin, _SignConstrainedBase):
    """Linear classifier with sign constraints on its weights (SC-SVM,
    sign-constrained logistic regression, multiclass SC-SVM).

    Minimises Eq. 5 of ``sign-constrained-sdca-pegasos.txt``::

        lam/2 ||w||^2 + 1/n sum_i phi(y_i <w, x_i>)   s.t.  c * w >= 0

    with a loss of Table 1 for two classes (labels mapped to -1 for
    ``classes_[0]``, +1 for ``classes_[1]``), or Eq. 23 + 27 with a loss of
    Sec. 5 and a sign matrix C (d, m) for more classes, by SC-SDCA (Alg. 2,
    4) or SC-Pegasos (Alg. 1, 3).  The losses ``"logistic"`` and
    ``"softmax"`` are negative log-likelihoods and give
    :meth:`predict_proba`.

    Without signs the default model is a hinge-loss SVM with a regularised
    intercept; its simple peer is :class:`~sklearn.svm.LinearSVC`: test
    accuracy 0.9427 on phishing and 0.9814 on w8a (LinearSVC 0.9433, 0.9859)
    and 0.743 on red wine (quality >= 6, after a StandardScaler; 0.749)
    (``tests/core/test_defaults_matrix.py``).

    Parameters
    ----------
    lam : float, default=1e-3
        Regularisation lambda > 0 of Eq. 1.
    signs : array_like, dict or None, default=None
        The sign constraints: an array c in {-1, 0, +1}^d (Eq. 4) or a dict
        ``{feature: +1 or -1}`` keyed by column index or (for a pandas
        DataFrame) column name; unlisted features are unconstrained.  For
        more than two classes: an array (d, m) (columns in the order of
        ``classes_``) or a dict ``{(feature, class label): +1 or -1}``.
    loss : str, default="hinge"
        Two classes: ``"hinge"``, ``"smoothed_hinge"``, ``"logistic"``.
        More classes: ``"max_hinge"``, ``"softmax"``, ``"top_k_hinge"``;
        ``"hinge"`` and ``"logistic"`` then mean ``"max_hinge"`` and
        ``"softmax"``.  A multiclass loss may be used with two classes.
    solver : {"sdca", "pegasos"}, default="sdca"
    smoothing : float, default=0.01
        Smoothing of the smoothed hinge (the paper's γ, Table 1).
    top_k : int, default=1
        k of the top-k hinge (Eq. 22).
    tol : float, default=1e-6
        Stop when the duality gap P - D <= tol * max(1, P(0)) (checked
        after every epoch, both solvers), P(0) the primal objective at
        w = 0.  For the classification losses that is the absolute gap
        (P(0) <= 1), which bounds the primal objective gap that the paper's
        Theorems 1-2 drive below its epsilon; for a regression on targets
        of any magnitude it is relative to P(0) = 0.5 mean(y^2) (square
        loss) or mean |y| (absolute loss), so the units of y do not matter.
    max_iter : int or None, default=None
        Maximum number of iterations.  SDCA: one iteration is one epoch
        (None: 1000 epochs); Pegasos: one iteration is one mini-batch step,
        T of Alg. 1 (None: 20 epochs, 20 * max(1, n // batch_size) steps).
    average_from : int or None, default=None
        SDCA: T0 (epochs) of Alg. 2 step 8; None returns the last iterate.
    shrinking : bool or "auto", default="auto"
        SDCA: LIBLINEAR-style shrinking of the rows whose dual variable sits
        at a bound (not in the paper; same duality-gap stopping rule, checked
        on all rows); see :func:`polyrank.sign.sc_sdca`.  Binary and
        regression losses only; "auto": on for them, off for the multiclass
        losses.  ``False`` is the paper's plain Alg. 2.
    batch_size : int, default=1
        Pegasos: mini-batch size k.
    bias : float, default=1.0
        If > 0, a constant feature of this value is appended (unconstrained,
        regularised like the other weights, LIBLINEAR's ``-B``), giving
        ``intercept_``; 0 fits the paper's model without intercept.  The
        default gives the model an intercept, as scikit-learn's linear
        models have: without one, a model after a StandardScaler predicts
        scores centred on 0 (on red wine, SignConstrainedRegressor's test
        R^2 is -48 with ``bias=0`` and 0.373 with ``bias=1``, Ridge's 0.373).
    random_state : int, RandomState or None, default=None
    verbose : int, default=0
        ``v >= 1``: a log line (primal, dual, gap) every v epochs/steps.
    warm_start : bool, default=False
        If True, a ``fit`` on the same data (X, y, weights; same loss and
        ``bias``) starts SC-SDCA from the previous fit's dual variables:
        their feasible set does not depend on ``lam`` nor ``signs``, so
        they stay feasible as either changes (``result_.warm_start`` says
        "used" or "cold: <reason>").  SC-Pegasos always starts cold (its
        first step, of size 1 / lam, forgets any initial w).  See
        :func:`polyrank.sign.sign_path`.

    Attributes
    ----------
    coef_ : ndarray, shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray, shape (1,) or (n_classes,)
    classes_ : ndarray, shape (n_classes,)
    signs_ : ndarray, shape (n_features,) or (n_features, n_classes)
        The resolved sign vector / matrix.
    dual_coef_ : ndarray, shape (n,) or (n, n_classes)
        SDCA's alpha (Pegasos: alpha(w~) = -phi'(<w~, x_i>)).
    result_ : SolverResult
        With the trace of primal, dual and gap per epoch.
    n_iter_ : int
    n_features_in_ : int
    loss_ : str
        The loss actually used.

    Raises
    ------
    ValueError, TypeError
        In ``fit``: see :func:`polyrank.sign.sc_sdca`; also an unknown
        solver, a bad ``signs`` dict, fewer than two classes, a continuous
        y, ``"smoothed_hinge"`` with more than two classes, or
        ``shrinking=True`` with a multiclass loss.

    Warns
    -----
    polyrank.exceptions.FeatureScaleWarning
        Before the solve, if X does not look standardised (feature standard
        deviations spanning more than 1e3, or rows dominated by their common
        mean; raw red wine: SC-SDCA ends 1,000 epochs without converging).
        The fix: ``make_pipeline(StandardScaler(), SignConstrainedClassifier())``
        (a positive scaling keeps the signs of the weights; centring moves
        the intercept only).
    sklearn.exceptions.ConvergenceWarning
        SDCA: ``max_iter`` epochs used before the duality gap reached
        ``tol``; Pegasos: ``max_iter`` steps done with the gap above ``tol``.
    polyrank.exceptions.TrivialModelWarning
        After a converged fit whose weights are all 0 (e.g. signs that
        contradict the data) or that predicts one class for every training
        row of positive weight although ``y`` holds several.

    See Also
    --------
    polyrank.sign.sc_sdca, polyrank.sign.sc_pegasos : the solvers.

    Notes
    -----
    **Defaults, measured** (``tests/core/test_defaults_matrix.py``: raw X and
    after a StandardScaler, ``with_mean=False`` on sparse X;
    ``random_state=0``).  The tolerance the matrix holds the defaults to:
    test accuracy within 0.01 of ``LinearSVC()``'s.  Ours / peer, raw and
    standardised: phishing 0.9427 / 0.9433 and 0.9436 / 0.9442, w8a
    0.9814 / 0.9859 and 0.9858 / 0.9861, red wine quality >= 6 (standardised)
    0.7430 / 0.7486; raw red wine gives the
    :class:`~polyrank.exceptions.FeatureScaleWarning` before the solve.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, 0.5], [-2.0, -1.0]])
    >>> y = np.array(["spam", "spam", "ham", "ham"])
    >>> clf = SignConstrainedClassifier(lam=0.1, signs={1: -1}, tol=1e-8,
    ...                                 random_state=0).fit(X, y)
    >>> clf.predict(X).tolist(), bool(clf.coef_[0, 1] <= 0)
    (['spam', 'spam', 'ham', 'ham'], True)
    """

    #: the parameter prediction reads (predict_proba's availability): its value
    #: as fitted is kept (:func:`polyrank._sklearn.remember_fitted_params`)
    _predict_params = ("loss",)

    _parameter_constraints: dict = {
        **_SignConstrainedBase._parameter_constraints,
        "loss": [StrOptions(set(BINARY_LOSSES) | set(MULTICLASS_LOSSES))],
        "smoothing": [Interval(Real, 0, np.inf, closed="neither")],
        "top_k": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, lam=1e-3, signs=None, loss="hinge", solver="sdca",
                 smoothing=0.01, top_k=1, tol=1e-6, max_iter=None, average_from=None,
                 shrinking="auto", batch_size=1, bias=1.0, random_state=None, verbose=0,
                 warm_start=False):
        super().__init__(lam, signs, loss, solver, tol, max_iter, average_from, shrinking,
                         batch_size, bias, random_state, verbose, warm_start)
        self.smoothing = smoothing
        self.top_k = top_k

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit the classifier.

        Parameters
        ----------
        X : array_like, pandas DataFrame or scipy.sparse, shape (n, d)
        y : array_like, shape (n,)
            Class labels (any values; at least two distinct).
        sample_weight : array_like, shape (n,), optional
            Example weights s_i >= 0: the loss term of Eq. 5 becomes
            ``1/sum(s) sum_i s_i phi_i`` (an integer weight equals repeating
            the row, 0 removing it).
        callback : callable, optional
            ``callback(info: IterInfo)`` per epoch (e.g. a
            :class:`polyrank_widgets.GapMonitor`); StopIteration stops.
        callback_every : int, default=1
            Call ``callback`` only on the epochs divisible by this (both
            solvers record once per epoch).

        Returns
        -------
        self : SignConstrainedClassifier
            The fitted classifier.

        Warns
        -----
        polyrank.exceptions.FeatureScaleWarning
            See the class docstring (also for the two below).
        sklearn.exceptions.ConvergenceWarning
        polyrank.exceptions.TrivialModelWarning
        """
        X, y, sample_weight = self._validate_fit(X, y, sample_weight)
        check_classification_targets(y)
        names = self._names()
        classes, yi = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"y: needs at least two classes, got 1 class ({classes.tolist()})")
        if sample_weight is not None and np.unique(yi[sample_weight > 0]).size < 2:
            raise ValueError("sample_weight: the rows of positive weight hold a single "
                             "class; at least two are needed")
        loss = self.loss
        multiclass = classes.size > 2 or loss in MULTICLASS_LOSSES
        if multiclass:
            loss = _MULTICLASS_OF.get(loss, loss)
            if loss not in MULTICLASS_LOSSES:
                raise ValueError(f"loss: {self.loss!r} has no multiclass form; use one of "
                                 f"{sorted(MULTICLASS_LOSSES)} or 'hinge'/'logistic'")
        elif loss not in BINARY_LOSSES:
            raise ValueError(f"loss: expected one of {sorted(BINARY_LOSSES)} or "
                             f"{sorted(MULTICLASS_LOSSES)}, got {loss!r}")
        if multiclass and self.shrinking is True:
            raise ValueError("shrinking: implemented for the binary and regression losses "
                             "only; use shrinking='auto' or False with a multiclass loss")
        d = X.shape[1]
        Xv = X
        if multiclass:
            c = _resolve_signs(self.signs, names, d, classes)
            coef, intercept = self._solve(Xv, yi, loss, c, callback, callback_every,
                                          multiclass=True, sample_weight=sample_weight)
            self.coef_ = np.ascontiguousarray(coef.T)
            self.intercept_ = np.asarray(intercept, dtype=float).reshape(-1)
        else:
            c = _resolve_signs(self.signs, names, d)
            ypm = np.where(yi == 1, 1.0, -1.0)
            coef, intercept = self._solve(Xv, ypm, loss, c, callback, callback_every,
                                          sample_weight=sample_weight)
            self.coef_ = coef.reshape(1, -1)
            self.intercept_ = np.asarray(intercept, dtype=float).reshape(1)
        self.classes_ = classes
        self.loss_ = loss
        if self.result_.success:    # an unfinished solve has its ConvergenceWarning
            self._warn_if_trivial(X, y, sample_weight, classes)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores: shape (n,) for two classes (> 0 means ``classes_[1]``),
        else (n, n_classes).

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``.
        """
        s = self._scores(X)
        return s[:, 0] if self.coef_.shape[0] == 1 else s

    def predict(self, X) -> np.ndarray:
        """Predicted class labels, shape (n,)."""
        s = self.decision_function(X)
        if s.ndim == 1:
            return self.classes_[(s > 0).astype(int)]
        return self.classes_[np.argmax(s, axis=1)]

    def _has_proba(self) -> bool:
        """``predict_proba`` exists for the likelihood losses only (as
        :func:`sklearn.utils.metaestimators.available_if` would say)."""
        loss = fitted_param(self, "loss")
        if loss not in _PROBABILISTIC:
            raise AttributeError(f"predict_proba: only with loss='logistic' or 'softmax' "
                                 f"(negative log-likelihoods), not loss={loss!r}")
        return True

    @available_if(_has_proba)
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of the logistic and softmax losses.

        ``loss="logistic"`` with two classes: P(classes_[1] | x) =
        1 / (1 + exp(-s(x))), s the decision function (the logistic loss
        log(1 + exp(-y s)) of Table 1 of
        ``sign-constrained-sdca-pegasos.txt`` is its negative
        log-likelihood); ``"softmax"`` (or ``"logistic"`` with more
        classes): P(c | x) = exp(s_c) / sum_j exp(s_j) (the soft-max loss
        of Sec. 5, Eq. 20).  Computed without overflow for any finite
        scores.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (n, n_features)

        Returns
        -------
        ndarray, shape (n, n_classes)
            Columns in the order of ``classes_``; rows sum to 1.

        Raises
        ------
        AttributeError
            For a loss without probabilities (``hasattr(clf,
            "predict_proba")`` is False then).
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            If the number of features differs from ``fit``.
        """
        s = self._scores(X)
        if s.shape[1] == 1:
            return np.column_stack([expit(-s[:, 0]), expit(s[:, 0])])
        return softmax(s, axis=1)

    @available_if(_has_proba)
    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithms of :meth:`predict_proba`, computed directly (finite
        where the probability underflows to 0).

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (n, n_features)

        Returns
        -------
        ndarray, shape (n, n_classes)
            Columns in the order of ``classes_``.

        Raises
        ------
        AttributeError, sklearn.exceptions.NotFittedError, ValueError
            As :meth:`predict_proba`.
        """
        s = self._scores(X)
        if s.shape[1] == 1:
            # log sigmoid(+-s) = -log(1 + exp(-+s))
            return np.column_stack([-np.logaddexp(0.0, s[:, 0]), -np.logaddexp(0.0, -s[:, 0])])
        return log_softmax(s, axis=1)


class SignConstrainedRegressor(RegressorMixin, _SignConstrainedBase):
    """Linear regression with sign constraints on the weights (e.g.
    non-negative ridge regression).

    Minimises Eq. 5 of ``sign-constrained-sdca-pegasos.txt`` with the square
    error loss 0.5 (s - y)^2 (ridge regression) or the absolute error loss
    |s - y| (Table 1) by SC-SDCA (Alg. 2) or SC-Pegasos (Alg. 1).  With
    ``loss="square"``, ``bias=0`` and ``signs`` all +1 it equals
    scikit-learn's ``Ridge(alpha=lam * n, positive=True,
    fit_intercept=False)``; with the default ``bias=1`` the intercept is a
    weight of a constant feature, regularised by lam/2 like the others (it
    shrinks the intercept by a factor 1 / (1 + lam), negligible at the
    default lam = 1e-3).  Its simple peer is :class:`~sklearn.linear_model.Ridge`:
    test R^2 0.368 on red wine after a StandardScaler (Ridge 0.368;
    ``tests/core/test_defaults_matrix.py``).

    Parameters
    ----------
    lam, signs
        As in :class:`SignConstrainedClassifier` (``signs`` as for two
        classes: an array c in {-1, 0, +1}^d or a dict ``{feature: +1 or -1}``).
    loss : {"square", "absolute"}, default="square"
    solver : {"sdca", "pegasos"}, default="sdca"
    tol : float, default=1e-10
        Stop when the duality gap P - D <= tol * max(1, P(0)) (checked
        after every epoch, both solvers), P(0) = 0.5 mean(y^2) (square loss)
        or mean |y| (absolute loss) the primal objective at w = 0: a gap
        relative to the targets' scale, so the units of y do not matter.
        The default is tighter than the classifier's 1e-6 because the
        weights of the square loss converge as the square root of the gap:
        measured with ``signs`` all +1 and ``bias=0`` against the exact
        ``scipy.optimize.nnls`` solution of Ridge(alpha=lam n, positive=True)
        after a StandardScaler, the largest weight error relative to the
        largest weight is 0.7e-3 to 2.4e-3 at tol = 1e-6 and 0.6e-5 to
        2.6e-5 at tol = 1e-10 (red wine, diabetes, MQ2008 as a regression;
        ``tests/core/sign/test_sign_estimator.py`` holds it to 1e-4); the fit takes
        2.2-2.9x the epochs of tol = 1e-6 (0.1-0.5 s on those sets).
    max_iter : int or None, default=None
        As in :class:`SignConstrainedClassifier`, except that None means
        2000 epochs for SDCA (red wine at the default tol takes 850-940).
    average_from, shrinking, batch_size, bias, random_state, verbose, warm_start
        As in :class:`SignConstrainedClassifier`.

    Attributes
    ----------
    coef_ : ndarray, shape (n_features,)
    intercept_ : float
    signs_, dual_coef_, result_, n_iter_, n_features_in_
        As in :class:`SignConstrainedClassifier`.

    Raises
    ------
    ValueError, TypeError
        In ``fit``: see :func:`polyrank.sign.sc_sdca`.

    Warns
    -----
    polyrank.exceptions.FeatureScaleWarning
        As :class:`SignConstrainedClassifier` (also for the two below).
    sklearn.exceptions.ConvergenceWarning
    polyrank.exceptions.TrivialModelWarning
        After a converged fit whose weights are all 0.

    Notes
    -----
    **Defaults, measured** (``tests/core/test_defaults_matrix.py``,
    ``random_state=0``).  The tolerance the matrix holds the defaults to:
    test R^2 within 0.01 of ``Ridge()``'s.  Red-wine quality after a
    StandardScaler: 0.3683 against 0.3676; raw red wine gives the
    :class:`~polyrank.exceptions.FeatureScaleWarning` before the solve.
    MQ2008's relevance grades (Fold 1) as the target: 0.1462 / 0.1477 raw,
    0.1478 / 0.1484 standardised.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> reg = SignConstrainedRegressor(lam=1e-3, signs=[1, 1], bias=0.0, tol=1e-10,
    ...                                max_iter=10000).fit(X, [1.0, -1.0, 0.0])
    >>> np.round(reg.coef_, 4).tolist()      # Ridge(alpha=0.003, positive=True): 1/2.003, 0
    [0.4993, 0.0]
    """

    _parameter_constraints: dict = {
        **_SignConstrainedBase._parameter_constraints,
        "loss": [StrOptions(set(REGRESSION_LOSSES))],
    }

    def __init__(self, lam=1e-3, signs=None, loss="square", solver="sdca", tol=1e-10,
                 max_iter=None, average_from=None, shrinking="auto", batch_size=1,
                 bias=1.0, random_state=None, verbose=0, warm_start=False):
        super().__init__(lam, signs, loss, solver, tol, max_iter, average_from, shrinking,
                         batch_size, bias, random_state, verbose, warm_start)

    #: SDCA epochs of max_iter=None (tol = 1e-10 takes up to about 940 on red wine)
    _sdca_epochs = 2000
    smoothing = 0.01    # not used by the regression losses
    top_k = 1

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit the regressor (see :meth:`SignConstrainedClassifier.fit`).

        Parameters
        ----------
        X : {array_like, sparse matrix, pandas DataFrame}, shape (n, d)
        y : array_like, shape (n,)
            Real targets.
        sample_weight : array_like, shape (n,), optional
            Example weights, as in :meth:`SignConstrainedClassifier.fit`.
        callback : callable, optional
        callback_every : int, default=1
            As in :meth:`SignConstrainedClassifier.fit`.

        Returns
        -------
        self : SignConstrainedRegressor
            The fitted regressor.
        """
        X, y, sample_weight = self._validate_fit(X, y, sample_weight, y_numeric=True)
        c = _resolve_signs(self.signs, self._names(), X.shape[1])
        coef, intercept = self._solve(X, y, self.loss, c, callback, callback_every,
                                      sample_weight=sample_weight)
        self.coef_ = coef
        self.intercept_ = float(intercept)
        if self.result_.success:    # an unfinished solve has its ConvergenceWarning
            self._warn_if_trivial(X, y, sample_weight)
        return self

    def predict(self, X) -> np.ndarray:
        """Predictions <w, x> + intercept, shape (n,)."""
        return self._scores(X)


def sign_path(X, y, *, lams=None, n_lams: int = N_GRID, regression: bool = False,
              sample_weight=None, warm: bool = True, **params) -> PathResult:
    """A sign-constrained model fitted along a grid of lam, warm-started.

    In the manner of :func:`sklearn.linear_model.lasso_path`: the grid is
    solved from the largest lam (the strongest regularisation) down, SC-SDCA
    (Alg. 2 of ``sign-constrained-sdca-pegasos.txt``) starting from the
    previous dual variables, whose feasible set (the domain of the
    conjugate loss, Table 1) does not depend on lam: the primal point
    follows as Pi_S(X' alpha / (lam n)) (Eq. 11, 49).  (SC-Pegasos cannot
    start from a given point: every fit of ``solver="pegasos"`` is cold.)

    Parameters
    ----------
    X : {array_like, sparse matrix}, shape (n, d)
    y : array_like, shape (n,)
        Class labels, or real targets with ``regression=True``.
    lams : array_like of shape (n_grid,), optional
        The grid of lam (> 0, finite; solved in decreasing order).
        Default: ``n_lams`` values log-spaced from 1e-2 to 1e-4 (the
        default lam = 1e-3 times 10^[1, -1]).
    n_lams : int, default=20
        Points of the default grid.
    regression : bool, default=False
        Fit :class:`SignConstrainedRegressor` (else
        :class:`SignConstrainedClassifier`).
    sample_weight : array_like, shape (n,), optional
    warm : bool, default=True
        False fits every point cold.
    **params
        Other parameters of the estimator (``signs``, ``loss``, ``tol`` ...;
        not ``lam`` nor ``warm_start``).

    Returns
    -------
    PathResult
        ``param`` is ``"lam"`` and ``Cs`` the grid of lam (decreasing);
        ``coefs`` are ``coef_`` per lam; ``min_C`` = 0.0: the optimality
        of w = 0 (Pi_S(-grad of the loss at 0) = 0) does not involve lam,
        so the model is 0 either for every lam or for none: there is no
        closed-form threshold as :func:`sklearn.svm.l1_min_c`'s.

    Raises
    ------
    ValueError
        ``lams`` empty, not 1-d, with NaN/inf or values <= 0 (the message
        names ``lams``); as the estimator's ``fit``.
    TypeError
        ``lam`` or ``warm_start`` in ``params``, or an unknown parameter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> path = sign_path(X, [1, -1, 1, -1], lams=[1e-3, 1e-1], signs=[1, 0])
    >>> path.Cs.tolist(), bool(np.all(path.coefs[-1][:, 0] >= 0))
    ([0.1, 0.001], True)
    """
    reject_grid_params(params, ("lam",))
    est = SignConstrainedRegressor(**params) if regression \
        else SignConstrainedClassifier(**params)
    return estimator_path(est, X, y, lams, n=n_lams, param="lam", center=float(est.lam),
                          name="lams", descending=True, warm=warm,
                          fit_params={"sample_weight": sample_weight})
