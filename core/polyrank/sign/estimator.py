"""scikit-learn estimators for sign-constrained learning (SC-SDCA / SC-Pegasos)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..result import STATUS_MAX_ITER
from ..validation import check_positive, check_signs
from .losses import BINARY_LOSSES, MULTICLASS_LOSSES, REGRESSION_LOSSES
from .solvers import _as_csr, sc_pegasos, sc_sdca

__all__ = ["SignConstrainedClassifier", "SignConstrainedRegressor"]

_SOLVERS = ("sdca", "pegasos")
#: the multiclass generalisation used when a binary loss name is given with
#: more than two classes (Sec. 5)
_MULTICLASS_OF = {"hinge": "max_hinge", "logistic": "softmax"}


def _feature_names(X):
    cols = getattr(X, "columns", None)
    return None if cols is None else [str(c) for c in cols]


def _feature_index(key, names, d: int) -> int:
    if isinstance(key, (numbers.Integral, np.integer)) and not isinstance(key, bool):
        if not 0 <= key < d:
            raise ValueError(f"signs: feature index {key} out of range [0, {d})")
        return int(key)
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


class _SignConstrainedBase(BaseEstimator):
    """Shared fitting logic; see the two public estimators."""

    def _solve(self, X, y, loss, c, callback, callback_every):
        if self.solver not in _SOLVERS:
            raise ValueError(f"solver: expected one of {_SOLVERS}, got {self.solver!r}")
        bias = check_positive(self.bias, "bias", strict=False)
        Xc = _as_csr(X)
        if bias > 0:
            Xc = sp.hstack([Xc, sp.csr_matrix(np.full((Xc.shape[0], 1), bias))],
                           format="csr")
            c = np.concatenate([c, np.zeros((1,) + c.shape[1:])])
        common = dict(gamma=self.gamma, top_k=self.top_k, callback=callback,
                      callback_every=callback_every, random_state=self.random_state)
        if self.solver == "sdca":
            res = sc_sdca(Xc, y, loss, self.lam, c, tol=self.tol,
                          max_epochs=self.max_epochs, average_from=self.average_from,
                          shrinking=self.shrinking, **common)
            if res.status == STATUS_MAX_ITER:
                warnings.warn(f"{type(self).__name__}: {res.message}; increase "
                              "max_epochs or tol", ConvergenceWarning, stacklevel=3)
        else:
            res = sc_pegasos(Xc, y, loss, self.lam, c, batch_size=self.batch_size,
                             n_iter=self.n_iter, **common)
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

    def _scores(self, X):
        check_is_fitted(self, "result_")
        Xc = _as_csr(X)
        if Xc.shape[1] != self.n_features_in_:
            raise ValueError(f"X: expected {self.n_features_in_} features as in fit, "
                             f"got {Xc.shape[1]}")
        return np.asarray(Xc @ self.coef_.T) + self.intercept_


_PARAMS_DOC = """
    lam : float, default=1e-3
        Regularisation lambda > 0 of Eq. 1.
    signs : array_like, dict or None, default=None
        The sign constraints: an array c in {-1, 0, +1}^d (Eq. 4) or a dict
        ``{feature: +1 or -1}`` keyed by column index or (for a pandas
        DataFrame) column name; unlisted features are unconstrained."""


class SignConstrainedClassifier(ClassifierMixin, _SignConstrainedBase):
    """Linear classifier with sign constraints on its weights (SC-SVM,
    sign-constrained logistic regression, multiclass SC-SVM).

    Minimises Eq. 5 of ``sign-constrained-sdca-pegasos.txt``::

        lam/2 ||w||^2 + 1/n sum_i phi(y_i <w, x_i>)   s.t.  c * w >= 0

    with a loss of Table 1 for two classes (labels mapped to -1 for
    ``classes_[0]``, +1 for ``classes_[1]``), or Eq. 23 + 27 with a loss of
    Sec. 5 and a sign matrix C (d, m) for more classes, by SC-SDCA (Alg. 2,
    4) or SC-Pegasos (Alg. 1, 3).

    Parameters
    ----------""" + _PARAMS_DOC + """  For more than two classes: an array
        (d, m) (columns in the order of ``classes_``) or a dict
        ``{(feature, class label): +1 or -1}``.
    loss : str, default="hinge"
        Two classes: ``"hinge"``, ``"smoothed_hinge"``, ``"logistic"``.
        More classes: ``"max_hinge"``, ``"softmax"``, ``"top_k_hinge"``;
        ``"hinge"`` and ``"logistic"`` then mean ``"max_hinge"`` and
        ``"softmax"``.  A multiclass loss may be used with two classes.
    solver : {"sdca", "pegasos"}, default="sdca"
    gamma : float, default=0.01
        Smoothing of the smoothed hinge (Table 1).
    top_k : int, default=1
        k of the top-k hinge (Eq. 22).
    tol : float, default=1e-6
        SDCA: stop when the duality gap P - D <= tol.
    max_epochs : int, default=1000
        SDCA: maximum number of epochs.
    average_from : int or None, default=None
        SDCA: T0 (epochs) of Alg. 2 step 8; None returns the last iterate.
    shrinking : bool, default=False
        SDCA: LIBLINEAR-style shrinking of the rows whose dual variable sits
        at a bound (not in the paper; same duality-gap stopping rule); see
        :func:`polyrank.sign.sc_sdca`.  Binary and regression losses only.
    batch_size : int, default=1
        Pegasos: mini-batch size k.
    n_iter : int or None, default=None
        Pegasos: iterations T (default 20 epochs).
    bias : float, default=0.0
        If > 0, a constant feature of this value is appended (unconstrained,
        regularised like the other weights), giving ``intercept_``.
    random_state : int or None, default=None

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
        solver, a bad ``signs`` dict, fewer than two classes, or
        ``"smoothed_hinge"`` with more than two classes.

    See Also
    --------
    polyrank.sign.sc_sdca, polyrank.sign.sc_pegasos : the solvers.

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

    def __init__(self, lam=1e-3, signs=None, loss="hinge", solver="sdca", gamma=0.01,
                 top_k=1, tol=1e-6, max_epochs=1000, average_from=None, shrinking=False,
                 batch_size=1, n_iter=None, bias=0.0, random_state=None):
        self.lam = lam
        self.signs = signs
        self.loss = loss
        self.solver = solver
        self.gamma = gamma
        self.top_k = top_k
        self.tol = tol
        self.max_epochs = max_epochs
        self.average_from = average_from
        self.shrinking = shrinking
        self.batch_size = batch_size
        self.n_iter = n_iter
        self.bias = bias
        self.random_state = random_state

    def fit(self, X, y, callback=None, callback_every=1):
        """Fit the classifier.

        Parameters
        ----------
        X : array_like, pandas DataFrame or scipy.sparse, shape (n, d)
        y : array_like, shape (n,)
            Class labels (any values; at least two distinct).
        callback : callable, optional
            ``callback(info: IterInfo)`` per epoch (e.g. a
            :class:`polyrank_widgets.GapMonitor`); StopIteration stops.
        callback_every : int, default=1

        Returns
        -------
        self

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If SDCA used all ``max_epochs`` before the gap reached ``tol``.
        """
        names = _feature_names(X)
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y: expected a 1-d array of labels, got shape {y.shape}")
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError("y: contains NaN or infinity")
        classes, yi = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"y: needs at least two classes, got {classes.size}")
        if not isinstance(self.loss, str):
            raise TypeError(f"loss: expected a str, got {type(self.loss).__name__}")
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
        d = _as_csr(X).shape[1] if names is None else len(names)
        Xv = X.to_numpy() if names is not None else X
        if multiclass:
            c = _resolve_signs(self.signs, names, d, classes)
            coef, intercept = self._solve(Xv, yi, loss, c, callback, callback_every)
            self.coef_ = np.ascontiguousarray(coef.T)
            self.intercept_ = np.asarray(intercept, dtype=float).reshape(-1)
        else:
            c = _resolve_signs(self.signs, names, d)
            ypm = np.where(yi == 1, 1.0, -1.0)
            coef, intercept = self._solve(Xv, ypm, loss, c, callback, callback_every)
            self.coef_ = coef.reshape(1, -1)
            self.intercept_ = np.asarray(intercept, dtype=float).reshape(1)
        self.classes_ = classes
        self.loss_ = loss
        self.n_features_in_ = d
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores: shape (n,) for two classes (> 0 means ``classes_[1]``),
        else (n, n_classes).

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``.
        """
        X = X.to_numpy() if _feature_names(X) is not None else X
        s = self._scores(X)
        return s[:, 0] if self.coef_.shape[0] == 1 else s

    def predict(self, X) -> np.ndarray:
        """Predicted class labels, shape (n,)."""
        s = self.decision_function(X)
        if s.ndim == 1:
            return self.classes_[(s > 0).astype(int)]
        return self.classes_[np.argmax(s, axis=1)]


class SignConstrainedRegressor(RegressorMixin, _SignConstrainedBase):
    """Linear regression with sign constraints on the weights (e.g.
    non-negative ridge regression).

    Minimises Eq. 5 of ``sign-constrained-sdca-pegasos.txt`` with the square
    error loss 0.5 (s - y)^2 (ridge regression) or the absolute error loss
    |s - y| (Table 1) by SC-SDCA (Alg. 2) or SC-Pegasos (Alg. 1).  With
    ``loss="square"`` and ``signs`` all +1 it equals scikit-learn's
    ``Ridge(alpha=lam * n, positive=True, fit_intercept=False)``.

    Parameters
    ----------""" + _PARAMS_DOC + """
    loss : {"square", "absolute"}, default="square"
    solver, tol, max_epochs, average_from, shrinking, batch_size, n_iter, bias, random_state
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

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> reg = SignConstrainedRegressor(lam=1e-3, signs=[1, 1], tol=1e-12).fit(
    ...     X, [1.0, -1.0, 0.0])
    >>> np.round(reg.coef_, 3).tolist()
    [0.4, 0.0]
    """

    def __init__(self, lam=1e-3, signs=None, loss="square", solver="sdca", tol=1e-6,
                 max_epochs=1000, average_from=None, shrinking=False, batch_size=1,
                 n_iter=None, bias=0.0, random_state=None):
        self.lam = lam
        self.signs = signs
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.max_epochs = max_epochs
        self.average_from = average_from
        self.shrinking = shrinking
        self.batch_size = batch_size
        self.n_iter = n_iter
        self.bias = bias
        self.random_state = random_state

    gamma = 0.01        # not used by the regression losses
    top_k = 1

    def fit(self, X, y, callback=None, callback_every=1):
        """Fit the regressor (see :meth:`SignConstrainedClassifier.fit`).

        Returns
        -------
        self
        """
        if self.loss not in REGRESSION_LOSSES:
            raise ValueError(f"loss: expected one of {sorted(REGRESSION_LOSSES)}, "
                             f"got {self.loss!r}")
        names = _feature_names(X)
        Xv = X.to_numpy() if names is not None else X
        d = _as_csr(Xv).shape[1]
        c = _resolve_signs(self.signs, names, d)
        coef, intercept = self._solve(Xv, y, self.loss, c, callback, callback_every)
        self.coef_ = coef
        self.intercept_ = float(intercept)
        self.n_features_in_ = d
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        return self

    def predict(self, X) -> np.ndarray:
        """Predictions <w, x> + intercept, shape (n,)."""
        X = X.to_numpy() if _feature_names(X) is not None else X
        return self._scores(X)
