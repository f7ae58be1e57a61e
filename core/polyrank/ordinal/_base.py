"""What the ordinal estimators share: ordered labels <-> the solver's 0..l
(:class:`_OrdinalLabels`: ``classes_``, ``predict``, ``score``), the kernel's
gamma of a fit, and the checked training data of a fit, kept across warm fits
on the same arrays (:func:`_fit_data`).  Split from
:mod:`polyrank.ordinal.estimator`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics import mean_absolute_error
from sklearn.utils.validation import check_is_fitted

from .._sklearn import SparseIfLinearMixin
from .._warm import fingerprint, prepared
from ..validation import check_sample_weight, validate_X

#: the kernels of the ordinal estimators
_KERNELS = ("linear", "rbf", "poly")


def _categories(y):
    """The category order of a pandas ordered Categorical (or a Series of
    one), else None."""
    cat = getattr(y, "cat", None)             # a Series of dtype category
    dtype = getattr(y, "dtype", None)
    if cat is not None:
        return np.asarray(cat.categories) if cat.ordered else None
    if getattr(dtype, "name", None) == "category" and hasattr(y, "categories"):
        return np.asarray(y.categories) if y.ordered else None
    return None


def _fit_gamma(kernel: str, gamma, X) -> float | None:
    """The kernel's gamma for a fit of the ordinal estimators: ``gamma``
    when given; with ``kernel="poly"`` and ``gamma=None``, 1 / max_i
    ||x_i||^2 over the training rows, so that gamma x.y lies in [-1, 1] and
    the kernel (gamma x.y + coef0)^degree is bounded (in [0, 2^degree] with
    coef0 = 1) whatever the tails of X; else None (the solvers' 1 /
    n_features).

    With gamma = 1 / n_features a standardised row far out in a heavy
    tail has a huge kernel value (red wine: ||x||^2 / 11 up to 18, so
    k(x, x) up to 7,130 against a median of 4.7): one such row decides a
    perceptron step, and dual coordinate descent crawls (SVOR stopped at
    10,000 passes).

    Parameters
    ----------
    kernel : str
    gamma : float or None
    X : ndarray, shape (n, n_features)
        The checked training rows (dense with the poly kernel).

    Returns
    -------
    float or None
    """
    if kernel != "poly" or gamma is not None:
        return gamma
    top = float(np.max(np.einsum("ij,ij->i", X, X))) if X.shape[0] else 0.0
    return 1.0 / top if top > 0.0 and np.isfinite(top) else None


class _OrdinalLabels(SparseIfLinearMixin):
    """Ordered labels <-> the solver's 0..l, ``classes_``, predict, score.

    The estimator defines ``classes``, ``decision_function`` and
    ``_predict_codes``; ``fit`` sets ``classes_``."""

    classes: ArrayLike | None
    #: the parameters prediction reads: their values as fitted are kept
    #: (:func:`polyrank._sklearn.remember_fitted_params`)
    _predict_params = ("kernel",)
    classes_: np.ndarray
    decision_function: Callable[..., np.ndarray]
    _predict_codes: Callable[[np.ndarray], np.ndarray]

    def _encode_y(self, y_raw, y):
        """Codes 0..l (int64, (n,)) and ``classes_`` of the training labels
        ``y`` (validated 1-d); ``y_raw`` is what the user passed (for the
        categories of an ordered Categorical)."""
        if self.classes is not None:
            classes = np.asarray(self.classes)
            if classes.ndim != 1 or classes.size < 2:
                raise ValueError(f"classes: expected a 1-d list of at least 2 ordered labels, "
                                 f"got shape {classes.shape}")
            if np.unique(classes).size != classes.size:
                raise ValueError("classes: labels must be distinct")
            source = "classes"
        else:
            classes = _categories(y_raw)
            source = "the ordered Categorical's categories"
        if classes is None:
            if y.dtype.kind not in "biuf":
                raise ValueError(
                    f"y: Unknown label type: labels of dtype {y.dtype} have no order; give it with "
                    f"{type(self).__name__}(classes=[lowest, ..., highest]) or pass an "
                    f"ordered pandas Categorical")
            if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
                raise ValueError("y: contains NaN or infinity")
            classes = np.unique(y)
            codes = np.searchsorted(classes, y).astype(np.int64)
        else:
            lookup = {v: k for k, v in enumerate(classes.tolist())}
            try:
                codes = np.fromiter((lookup[v] for v in y.tolist()), dtype=np.int64,
                                    count=y.shape[0])
            except KeyError as exc:
                raise ValueError(f"y: label {exc.args[0]!r} is not in {source} "
                                 f"{classes.tolist()}") from None
            present = np.bincount(codes, minlength=classes.size) > 0
            if self.classes is None:           # an ordered Categorical: the used levels
                classes = classes[present]
                codes = np.searchsorted(np.flatnonzero(present), codes).astype(np.int64)
            elif not present.all():
                raise ValueError(
                    f"y: classes {classes[~present].tolist()} have no object; every class "
                    f"needs at least one (Sec. 3.1 of the paper): drop them from classes")
        if classes.size < 2:
            raise ValueError(f"y: needs at least 2 ordered classes, got 1 class "
                             f"({classes.tolist()})")
        return codes, classes

    def predict(self, X) -> np.ndarray:
        """Predicted labels, in the training labels' coding (``classes_``):
        the class whose thresholds enclose :meth:`decision_function`.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (n_test, n_features)

        Returns
        -------
        ndarray of ``classes_.dtype``, shape (n_test,)
        """
        check_is_fitted(self, "result_")
        return self.classes_[self._predict_codes(self.decision_function(X))]

    def score(self, X, y, sample_weight=None) -> float:
        """Minus the mean absolute error of the predicted ranks: with
        numeric labels -(1/n) sum_i |l^_i - l_i| in the labels' own units (the
        paper's rank loss of Table 2 for labels 0..l; scikit-learn's
        ``neg_mean_absolute_error``), with ``classes=`` labels in positions
        0..l of ``classes_``.  Larger is better.

        Raises
        ------
        ValueError
            With ``classes=``, a label of ``y`` that is not in ``classes_``.
        """
        check_is_fitted(self, "result_")
        pred = self.predict(X)
        y = np.asarray(y)
        if self.classes_.dtype.kind in "biuf" and y.dtype.kind in "biuf":
            return -float(mean_absolute_error(y, pred, sample_weight=sample_weight))
        pos = {v: k for k, v in enumerate(self.classes_.tolist())}
        try:
            truth = np.array([pos[v] for v in y.tolist()], dtype=float)
        except KeyError as exc:
            raise ValueError(f"y: label {exc.args[0]!r} is not in classes_ "
                             f"{self.classes_.tolist()}") from None
        got = np.array([pos[v] for v in pred.tolist()], dtype=float)
        return -float(np.average(np.abs(got - truth), weights=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.single_output = True
        return tags

    def _test_data(self, X):
        """X checked for ``decision_function``: the model fitted, sparse only
        with the linear kernel, the features of ``fit`` (float64, dense or CSR)."""
        check_is_fitted(self, "result_")
        self._check_sparse(X)
        return validate_X(self, X, accept_sparse="csr", dtype=np.float64, reset=False)

@dataclass(frozen=True)
class _FitData:
    """The checked training data of one ``fit`` (see :func:`_fit_data`)."""

    X: Any                     # ndarray or canonical CSR, float64, (n, d)
    codes: np.ndarray          # int64 (n,), 0..l
    classes: np.ndarray        # (l + 1,)
    sample_weight: np.ndarray | None
    fingerprint: tuple         # polyrank._warm.fingerprint of (X, codes, weights)
    cache: dict                # the solver's data-only structures (Gram matrix ...)


def _raw_key(estimator, X, y, sample_weight) -> tuple | None:
    """The identity of a fit's input as passed, for reusing its checked form
    (:func:`_fit_data`): the shape, dtype and CRC-32 of *all* of X (not
    :func:`polyrank._warm.fingerprint`'s sampled rows: what is reused is the
    proof that X is finite), of y and of the weights, and the ``classes``
    setting; None (check afresh) unless ``warm_start`` and X, y and the
    weights are plain numeric ndarrays."""
    arrays = (X, y) if sample_weight is None else (X, y, sample_weight)
    if not getattr(estimator, "warm_start", False) or not all(
            type(a) is np.ndarray and a.dtype.kind in "biuf" for a in arrays):
        return None
    classes = None if estimator.classes is None else tuple(np.asarray(
        estimator.classes).tolist())
    return ("input", classes, sample_weight is None) + tuple(
        (a.shape, a.dtype.str, zlib.crc32(np.ascontiguousarray(a).view(np.uint8).data))
        for a in arrays)


def _fit_data(estimator, X, y, sample_weight) -> _FitData:
    """X, y and the weights checked (``validate_X``, the labels' order, the
    weights), once per data set while ``warm_start=True``: a path or a
    slider refitting on the same arrays (the same CRC-32 of every entry)
    reuses the checked form and the solver's data-only structures
    (:func:`polyrank._warm.prepared`)."""
    def build():
        Xc, yc = validate_X(estimator, X, y, accept_sparse="csr", dtype=np.float64,
                            y_numeric=False)
        codes, classes = estimator._encode_y(y, yc)
        sw = None if sample_weight is None else check_sample_weight(sample_weight, Xc)
        return _FitData(Xc, codes, classes, sw, fingerprint(Xc, codes, sw), {})

    key = _raw_key(estimator, X, y, sample_weight)
    if key is None:
        return prepared(estimator, ("unkeyed", object()), build)[0]
    return prepared(estimator, key, build)[0]


def _predicted(state, c: float) -> np.ndarray:
    """TRON's start at c from the previous solutions: theta(c_k) extrapolated
    linearly in log c through theta(c_{k-1}) (a secant predictor, as path
    following methods use) when c continues the path's step (at most twice
    the last step, in either direction), else theta(c_k) itself.  The start
    only saves Newton steps: the solve stops on the same duality gap."""
    theta = state.point["theta"]
    before = state.point.get("before")
    if theta is None or before is None or before[0] is None or not (
            c > 0 and state.penalty > 0 and before[1] > 0):
        return theta
    step = math.log(state.penalty / before[1])
    t = math.log(c / state.penalty) / step if step != 0.0 else 0.0
    if not 0.0 < abs(t) <= 2.0:
        return theta
    return theta + t * (theta - before[0])
