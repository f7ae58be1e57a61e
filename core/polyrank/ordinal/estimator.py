"""scikit-learn estimators for ordinal ranking: :class:`OrdinalMarginRanker`
(minimum-margin maximisation, ``row-column-generation-ordinal.txt``) and
:class:`PRank` (its baseline, Crammer & Singer 2001)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..kernels import kernel_matrix
from ..result import STATUS_MAX_ITER
from ..validation import as_float_array
from .generation import predict_labels, solve_ordinal
from .instances import rank_loss
from .prank import prank, prank_decision

__all__ = ["OrdinalMarginRanker", "PRank"]


class OrdinalMarginRanker(BaseEstimator):
    """Ordinal ranking by minimum-margin maximisation (Izunaga et al. 2015).

    Learns a score f(x) = w . phi(x) = sum_j lambda_j kappa(x^j, x) and
    thresholds p_1 < ... < p_l; an object gets the label max {k | f(x) >
    p_k} (p_0 = -inf, Sec. 10).  Minimises ``row-column-generation-ordinal.txt``
    (H~) of Sec. 5 (``margin="hard"``)::

        lambda' K~ lambda  s.t.  p_{l_i} + 1 <= (k~^i)' lambda <= p_{l_i+1} - 1,

    or (S~) of Sec. 8 (``margin="soft"``), which adds c 1'(xi_- + xi_+) and
    relaxes the constraints by the slacks; with ``kernel="linear"`` these
    are (H-bar) and (S-bar) (Sec. 3.2, 6.2); ``nonneg=True`` adds lambda >=
    0 (H~+, Appendix A).  ``method="generation"`` runs RC(H~) / RC(S~) (Sec.
    5, 8, 10), ``method="full"`` solves the whole QP with Clarabel.

    Parameters
    ----------
    margin : {"hard", "soft"}, default="soft"
    c : float, default=10.0
        Slack penalty c > 0 (soft margin; the paper's experiments: 10).
    kernel : {"linear", "rbf", "poly"}, default="linear"
    gamma : float or None, default=None
        rbf: exp(-gamma ||x - y||^2) (the paper's sigma: gamma = 1 / (2
        sigma^2)); poly: (gamma x.y + coef0)^degree.  None: 1 / n_features.
    degree : int, default=3
    coef0 : float, default=1.0
    nonneg : bool, default=False
        lambda >= 0: monotone contours for nondecreasing kernels on
        nonnegative data (Appendix A, Lemma A.1).
    method : {"generation", "full"}, default="generation"
    representation : {"dual", "primal"}, default="dual"
        "primal" solves (H) / (S) for w by row generation (RH / RS; linear
        kernel only).
    add_per_iter : int, default=2
        Objects added per iteration (Sec. 10).
    tol : float, default=1e-7
        Violations up to tol count as satisfied.
    max_iter : int, default=10000
        Maximum number of QP sub-problems.

    Attributes
    ----------
    dual_coef_ : ndarray, shape (n_support,)
        lambda_j of the objects in ``support_`` (the working set; dual
        representation).
    support_ : ndarray of int64, shape (n_support,)
        Indices of the training objects in the final working set W.
    support_vectors_ : ndarray, shape (n_support, n_features)
    coef_ : ndarray, shape (n_features,)
        w (linear kernel only: w = X' lambda, or (H)/(S)'s w).
    thresholds_ : ndarray, shape (l,)
        p_1..p_l.
    classes_ : ndarray, shape (l + 1,)
        0..l.
    result_ : SolverResult
        From :func:`polyrank.ordinal.solve_ordinal` (trace: |W|, objective
        bounds and violations per sub-problem).
    n_iter_ : int
        Sub-problems solved.
    n_features_in_ : int

    See Also
    --------
    polyrank.ordinal.solve_ordinal : the solver.
    PRank : the perceptron baseline of Sec. 10.

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import OrdinalMarginRanker
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0], [7.0]])
    >>> model = OrdinalMarginRanker(margin="hard").fit(X, [0, 0, 1, 1, 2, 2])
    >>> model.predict([[0.5], [3.5], [9.0]]).tolist()
    [0, 1, 2]
    """

    def __init__(self, margin="soft", c=10.0, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, nonneg=False, method="generation", representation="dual",
                 add_per_iter=2, tol=1e-7, max_iter=10000):
        self.margin = margin
        self.c = c
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.nonneg = nonneg
        self.method = method
        self.representation = representation
        self.add_per_iter = add_per_iter
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, labels, callback=None, callback_every=1):
        """Fit on attribute vectors X (n, m) and labels 0..l (n,).

        Parameters
        ----------
        X : array_like, shape (n, n_features)
        labels : array_like of int, shape (n,)
            Every label 0..l must occur.
        callback : callable, optional
            ``callback(info: IterInfo)`` after each sub-problem (e.g. a
            :class:`polyrank_widgets.GapMonitor`).
        callback_every : int, default=1

        Returns
        -------
        self

        Raises
        ------
        InfeasibleError (ValueError)
            ``margin="hard"`` on data the model cannot separate.
        ValueError, TypeError
            See :func:`polyrank.ordinal.solve_ordinal`.

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` sub-problems end with violations left.
        """
        X = as_float_array(X, "X", ndim=2)
        res = solve_ordinal(X, labels, margin=self.margin, c=self.c,
                            representation=self.representation, kernel=self.kernel,
                            gamma=self.gamma, degree=self.degree, coef0=self.coef0,
                            nonneg=self.nonneg, method=self.method,
                            add_per_iter=self.add_per_iter, tol=self.tol,
                            max_iter=self.max_iter, callback=callback,
                            callback_every=callback_every)
        if res.status == STATUS_MAX_ITER:
            warnings.warn(f"OrdinalMarginRanker: {res.message}; increase max_iter",
                          ConvergenceWarning, stacklevel=2)
        self.result_ = res
        self.n_iter_ = res.nit
        self.n_features_in_ = X.shape[1]
        self.thresholds_ = res.thresholds
        self.classes_ = np.arange(res.thresholds.size + 1)
        self._params = res.kernel_params
        if self.representation == "primal":
            self.coef_ = res.x
            self.support_ = res.working_set
        else:
            self.support_ = np.sort(res.working_set)
            self.dual_coef_ = res.x[self.support_]
            self.support_vectors_ = X[self.support_]
            if self.kernel == "linear":
                self.coef_ = self.support_vectors_.T @ self.dual_coef_
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores f(x) = sum_j lambda_j kappa(x^j, x) (or w . x), shape (n_test,).

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``, or NaN/inf.
        """
        check_is_fitted(self, "result_")
        X = as_float_array(X, "X", ndim=2, shape=(None, self.n_features_in_))
        if hasattr(self, "coef_"):
            return X @ self.coef_
        return kernel_matrix(X, self.support_vectors_, kernel=self.kernel,
                             **self._params) @ self.dual_coef_

    def predict(self, X) -> np.ndarray:
        """Labels max {k | f(x) > p_k}, int64 (n_test,) (Sec. 10)."""
        return predict_labels(self.decision_function(X), self.thresholds_)

    def score(self, X, labels) -> float:
        """Minus the average rank loss (1/n) sum |l^_i - l_i| (Table 2), so
        that larger is better as scikit-learn expects."""
        return -rank_loss(labels, self.predict(X))


class PRank(BaseEstimator):
    """PRank, the perceptron ranking algorithm (Crammer & Singer, NIPS 2001),
    kernelised: the baseline of Sec. 10 of ``row-column-generation-ordinal.txt``.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default="linear"
    gamma, degree, coef0 : see :class:`OrdinalMarginRanker`.
    n_epochs : int, default=1
        Passes over the data (on-line PRank: 1).
    shuffle : bool, default=False
    random_state : int or None, default=None

    Attributes
    ----------
    dual_coef_ : ndarray (n_support,)
        alpha_j of the objects in ``support_``.
    support_ : ndarray of int64
    support_vectors_ : ndarray (n_support, n_features)
    thresholds_ : ndarray (l,)
        b_1..b_l.
    result_ : SolverResult
    n_iter_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import PRank
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> PRank(n_epochs=10).fit(X, [0, 0, 1, 1]).predict(X).tolist()
    [0, 0, 1, 1]
    """

    def __init__(self, kernel="linear", gamma=None, degree=3, coef0=1.0, n_epochs=1,
                 shuffle=False, random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, labels, callback=None, callback_every=1):
        """Run PRank on (X, labels); see :func:`polyrank.ordinal.prank`.

        Raises
        ------
        ValueError, TypeError
            Bad input (see :func:`polyrank.ordinal.check_labels`).
        """
        X = as_float_array(X, "X", ndim=2)
        res = prank(X, labels, kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                    coef0=self.coef0, n_epochs=self.n_epochs, shuffle=self.shuffle,
                    random_state=self.random_state, callback=callback,
                    callback_every=callback_every)
        self.result_ = res
        self.n_iter_ = res.nit
        self.n_features_in_ = X.shape[1]
        self.thresholds_ = res.thresholds
        self.classes_ = np.arange(res.thresholds.size + 1)
        self.support_ = res.support
        self.dual_coef_ = res.x[res.support]
        self.support_vectors_ = X[res.support]
        self._params = res.kernel_params
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores f(x) = sum_j alpha_j kappa(x^j, x), shape (n_test,)."""
        check_is_fitted(self, "result_")
        X = as_float_array(X, "X", ndim=2, shape=(None, self.n_features_in_))
        alpha = np.zeros(self.support_.size) if self.dual_coef_.size == 0 else self.dual_coef_
        return prank_decision(self.support_vectors_, alpha, X, self.kernel, self._params)

    def predict(self, X) -> np.ndarray:
        """PRank's rule: the smallest r with f(x) < b_{r+1}, int64 (n_test,)."""
        f = self.decision_function(X)
        return np.searchsorted(self.thresholds_, f, side="right").astype(np.int64)

    def score(self, X, labels) -> float:
        """Minus the average rank loss (Table 2)."""
        return -rank_loss(labels, self.predict(X))
