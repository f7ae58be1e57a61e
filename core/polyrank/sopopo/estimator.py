"""scikit-learn estimator for SOPOPO label ranking."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..kernels import check_kernel_params, kernel_matrix
from ..validation import as_float_array, check_positive
from ..result import STATUS_MAX_ITER
from .batch import STATUS_STALLED, sopopo_batch

__all__ = ["LabelRanker"]


class LabelRanker(BaseEstimator):
    """Max-margin label ranking from preference graphs (SOPOPO, JMLR 2006).

    Learns f_r(x) = w_r . phi(x), r = 1..k, by minimising Eq. 6 of
    ``sopopo-label-ranking.txt``::

        1/2 sum_r ||w_r||^2 + C sum_i sum_{E_j in E(gamma^i)} sigma_j xi^i_j
        s.t. f_r(x_i) - f_s(x_i) >= gamma^i_r - gamma^i_s - xi^i_j  for (r, s) in E_j,

    i.e. the hinge loss of each complete bipartite piece of the feedback
    graph (Eq. 3), with the batch soft-projection procedure of Fig. 5.
    The paper's model has no bias term; ``bias > 0`` adds one through a
    constant feature.  Special cases (Sec. 2): one-hot targets with
    ``decomposition="top_vs_rest"`` are the Crammer-Singer multiclass SVM,
    with ``"all_pairs"`` the Weston-Watkins one; 0/1 multilabel targets with
    ``"all_pairs"`` are Elisseeff-Weston's ranking SVM.

    Parameters
    ----------
    C : float, default=1.0
        Slack penalty (> 0).
    decomposition : str or callable, default="all_pairs"
        ``"all_pairs"``, ``"adjacent_layers"``, ``"top_vs_rest"`` or a
        callable ``gamma -> [(A, B[, sigma]), ...]`` (Sec. 2, Fig. 2).
    normalize : bool, default=False
        sigma_j = 1/d (average loss over an example's d pieces) instead of 1.
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        Mercer kernel; with ``"precomputed"`` pass Gram matrices as X
        ((m, m) in ``fit``, (m_test, m) in ``decision_function``).
    gamma : float or None, default=None
        Width of the rbf / poly kernel (None means 1 / n_features).  Not the
        target ranking: targets are the rows of ``Y``.
    degree : int, default=3
        Degree of the poly kernel.
    coef0 : float, default=1.0
        Constant of the poly kernel.
    order : {"shuffle", "cyclic", "greedy"}, default="shuffle"
        Order of the pieces in each pass (see :func:`sopopo_batch`).
    tol : float, default=1e-3
        Relative duality-gap tolerance: stop when P - D <= tol * P.
    max_iter : int, default=1000
        Maximum number of passes over the pieces.
    random_state : int or None, default=None
        Seed of the piece order.
    bias : float, default=0.0
        If > 0, append a constant feature of this value to every instance
        (LIBLINEAR's ``-B``), so that each label gets an intercept
        ``intercept_[r] = bias * w_r,bias`` that is regularised like the
        other weights.  0 keeps the paper's model without bias.  Not allowed
        with ``kernel="precomputed"``.

    Attributes
    ----------
    coef_ : ndarray, shape (k, n_features)
        w_1..w_k (linear kernel only), without the bias weight.
    intercept_ : ndarray, shape (k,)
        Per-label intercepts (zeros when ``bias=0``; linear kernel only).
    dual_coef_ : ndarray, shape (m, k)
        Kernel expansion w_r = sum_i dual_coef_[i, r] phi(x_i) (non-linear
        kernels, or ``order="greedy"``).
    result_ : SolverResult
        The solver's result with its trace (primal, dual, gap per pass).
    n_iter_ : int
        Number of passes.
    n_labels_ : int
        k.
    n_features_in_ : int

    See Also
    --------
    polyrank.sopopo.sopopo_batch : the solver.
    polyrank.sopopo.soft_project : one soft projection (Fig. 3).

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import LabelRanker
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> Y = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 2.0], [1.0, 2.0, 0.0]])
    >>> model = LabelRanker(C=10.0, tol=1e-6, random_state=0).fit(X, Y)
    >>> model.decision_function(X).argmax(axis=1).tolist()
    [0, 2, 1]
    """

    def __init__(self, C=1.0, decomposition="all_pairs", normalize=False,
                 kernel="linear", gamma=None, degree=3, coef0=1.0,
                 order="shuffle", tol=1e-3, max_iter=1000, random_state=None,
                 bias=0.0):
        self.C = C
        self.decomposition = decomposition
        self.normalize = normalize
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.order = order
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.bias = bias

    def fit(self, X, Y, callback=None, callback_every=1):
        """Fit the ranker.

        Parameters
        ----------
        X : array_like, shape (m, n_features)
            Instances (the Gram matrix (m, m) for ``kernel="precomputed"``).
        Y : array_like, shape (m, k)
            Target rankings gamma^i; 0/1 multilabel indicators and one-hot
            classes are accepted as they are.
        callback : callable, optional
            ``callback(info: IterInfo)`` after each pass (e.g. a
            :class:`polyrank_widgets.GapMonitor`); raising StopIteration stops.
        callback_every : int, default=1

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            See :func:`polyrank.sopopo.sopopo_batch`.

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` passes end before the duality-gap tolerance is
            met, or the solve stalls at rounding level.
        """
        X = as_float_array(X, "X", ndim=2)
        n_features = X.shape[1]
        bias = check_positive(self.bias, "bias", strict=False)
        if bias > 0 and self.kernel == "precomputed":
            raise ValueError("bias: must be 0 with kernel='precomputed' (add the "
                             "constant to the Gram matrix instead)")
        X = self._augment(X)
        res = sopopo_batch(X, Y, self.C, decomposition=self.decomposition,
                           normalize=self.normalize, kernel=self.kernel,
                           gamma=self.gamma, degree=self.degree, coef0=self.coef0,
                           order=self.order, tol=self.tol, max_iter=self.max_iter,
                           callback=callback, callback_every=callback_every,
                           random_state=self.random_state)
        if res.status == STATUS_MAX_ITER:
            warnings.warn(f"LabelRanker: {res.message}; increase max_iter or tol",
                          ConvergenceWarning, stacklevel=2)
        elif res.status == STATUS_STALLED:
            warnings.warn(f"LabelRanker: {res.message}", ConvergenceWarning, stacklevel=2)
        self.result_ = res
        self.n_iter_ = res.nit
        self.n_labels_ = res.x.shape[1] if res.coef_form == "dual" else res.x.shape[0]
        self.n_features_in_ = n_features
        if res.coef_form == "dual":
            self.dual_coef_ = res.x
            if self.kernel != "precomputed":
                self.X_fit_ = X
        if self.kernel == "linear":
            W = res.x if res.coef_form == "primal" else res.x.T @ X
            self.coef_ = W[:, :n_features]
            self.intercept_ = (W[:, n_features] * bias if bias > 0
                               else np.zeros(W.shape[0]))
        return self

    def _augment(self, X):
        if self.bias > 0:
            return np.hstack([X, np.full((X.shape[0], 1), float(self.bias))])
        return X

    def decision_function(self, X) -> np.ndarray:
        """Scores f_r(x) = w_r . phi(x) for every label.

        Parameters
        ----------
        X : array_like, shape (m_test, n_features)
            (m_test, m_train) kernel values for ``kernel="precomputed"``.

        Returns
        -------
        ndarray, shape (m_test, k)
            Larger means more relevant (the predicted ranking).

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``.
        """
        check_is_fitted(self, "result_")
        X = as_float_array(X, "X", ndim=2, shape=(None, self.n_features_in_))
        if self.kernel == "linear":
            return X @ self.coef_.T + self.intercept_
        if self.kernel == "precomputed":
            return X @ self.dual_coef_
        X = self._augment(X)
        params = check_kernel_params(self.kernel, self.gamma, self.degree,
                                     self.coef0, X.shape[1])
        return kernel_matrix(X, self.X_fit_, kernel=self.kernel, **params) @ self.dual_coef_

    def score(self, X, Y) -> float:
        """Label ranking average precision (scikit-learn's
        :func:`~sklearn.metrics.label_ranking_average_precision_score`) of the
        predicted scores against the labels with Y > 0 (binary relevance).

        Returns
        -------
        float in [0, 1]
        """
        from sklearn.metrics import label_ranking_average_precision_score

        Y = as_float_array(Y, "Y", ndim=2)
        return float(label_ranking_average_precision_score(Y > 0, self.decision_function(X)))
