"""scikit-learn estimator for linear RankSVM (``large-scale-linear-ranksvm.txt``)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..result import STATUS_MAX_ITER
from ..tron import STATUS_NO_PROGRESS
from .objective import METHODS, _as_design
from .solvers import ranksvm_cutting_plane, ranksvm_tron

__all__ = ["RankSVM"]

LOSSES = ("l2", "l1")


class RankSVM(BaseEstimator):
    """Linear RankSVM: w minimising a pairwise hinge loss inside each query.

    With ``loss="l2"`` (default) minimises Eq. 1.3 of
    ``large-scale-linear-ranksvm.txt``::

        1/2 w'w + C sum_{(i,j) in P} max(0, 1 - w'(x_i - x_j))^2,
        P = {(i, j) : q_i = q_j, y_i > y_j}

    by Tree-TRON (TRON, Sec. 4.1, with the selection tree of Sec. 2.4); with
    ``loss="l1"`` minimises Eq. 1.2 (the plain hinge) by the cutting-plane
    method of Sec. 3.2.  No pair is ever formed: the loss, gradient and
    Hessian-vector products go through l_i^+, l_i^-, gamma_i^+, gamma_i^-
    (Eq. 2.11-2.13).  The model has no intercept (it cancels in x_i - x_j).

    Parameters
    ----------
    C : float, default=1.0
        Loss weight (> 0).
    loss : {"l2", "l1"}, default="l2"
    eps : float, default=1e-3
        L2: the relative gradient tolerance of Eq. 4.4; L1: the relative
        gap between the best objective and the bundle's lower bound.
    method : {"selection_tree", "y_tree", "direct", "prsvm_plus"}, default="selection_tree"
        The counting method (Sec. 2.2-2.4, 3.1); the solution does not
        depend on it, the run time does.
    max_iter : int, default=1000
        Newton steps (L2) or cutting planes (L1).
    partial_pairs : bool, default=False
        Train on the pairs of adjacent relevance levels only (Sec. 5);
        L2 loss only.

    Attributes
    ----------
    coef_ : ndarray, shape (n_features,)
        w.
    result_ : SolverResult
        The solver's result; ``result_.trace`` has f, the dual bound and
        gap (L2: the L2-SVM dual at alpha(w)), ||grad f||, delta and CG
        iterations per trust-region step.
    n_iter_ : int
        Newton steps (L2) or cutting planes (L1).
    n_pairs_ : int
        Number of training preference pairs p.
    n_features_in_ : int

    See Also
    --------
    polyrank.ranksvm.ranksvm_tron : the L2 driver.
    polyrank.ranksvm.ranksvm_cutting_plane : the L1 driver.
    polyrank.metrics.mean_ndcg, polyrank.metrics.pairwise_accuracy

    Notes
    -----
    ``fit`` needs ``qid``, so the estimator cannot pass scikit-learn's
    ``check_estimator`` (whose checks call ``fit(X, y)``).

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import RankSVM
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.5], [0.5, 0.5], [1.5, 0.0]])
    >>> y = np.array([0, 1, 2, 0, 1]); qid = np.array([1, 1, 1, 2, 2])
    >>> model = RankSVM(C=1.0).fit(X, y, qid)
    >>> model.n_pairs_, model.decision_function(X).argmax()
    (4, np.int64(2))
    >>> model.score(X, y, qid)
    1.0
    """

    def __init__(self, C=1.0, loss="l2", eps=1e-3, method="selection_tree",
                 max_iter=1000, partial_pairs=False):
        self.C = C
        self.loss = loss
        self.eps = eps
        self.method = method
        self.max_iter = max_iter
        self.partial_pairs = partial_pairs

    def fit(self, X, y, qid, callback=None, callback_every=1):
        """Fit w.

        Parameters
        ----------
        X : array_like or scipy.sparse matrix, shape (l, n_features)
            Dense or CSR (other sparse formats are converted).
        y : array_like, shape (l,)
            Relevance labels.
        qid : array_like of int, shape (l,)
            Query ids.
        callback : callable, optional
            ``callback(info: IterInfo)`` per solver iteration (e.g. a
            :class:`polyrank_widgets.GapMonitor`); StopIteration stops.
        callback_every : int, default=1

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Shape/length mismatch, NaN/inf, C <= 0, unknown loss/method,
            ``partial_pairs`` with L1, or data without any preference pair
            (e.g. a single query with one document).
        TypeError
            Non-numeric input or non-integer qid.

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If the solver stops before its tolerance.
        """
        if self.loss not in LOSSES:
            raise ValueError(f"loss: expected one of {LOSSES}, got {self.loss!r}")
        if self.method not in METHODS:
            raise ValueError(f"method: expected one of {sorted(METHODS)}, got {self.method!r}")
        if self.partial_pairs and self.loss != "l2":
            raise ValueError("partial_pairs: only with loss='l2'")
        X = _as_design(X)
        if self.loss == "l2":
            res = ranksvm_tron(X, y, qid, self.C, method=self.method, eps=self.eps,
                               max_iter=self.max_iter, partial_pairs=self.partial_pairs,
                               callback=callback, callback_every=callback_every)
        else:
            res = ranksvm_cutting_plane(X, y, qid, self.C, method=self.method,
                                        eps=self.eps, max_iter=self.max_iter,
                                        callback=callback, callback_every=callback_every)
        if res.status in (STATUS_MAX_ITER, STATUS_NO_PROGRESS):
            warnings.warn(f"RankSVM: {res.message}", ConvergenceWarning, stacklevel=2)
        self.result_ = res
        self.coef_ = res.x
        self.n_iter_ = res.nit
        self.n_pairs_ = res.n_pairs
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores w'x (larger = ranked higher).

        Parameters
        ----------
        X : array_like or sparse, shape (m, n_features)

        Returns
        -------
        ndarray, shape (m,)

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``.
        """
        check_is_fitted(self, "coef_")
        X = _as_design(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X: expected {self.n_features_in_} features, got {X.shape[1]}")
        return np.asarray(X @ self.coef_, dtype=np.float64).ravel()

    def score(self, X, y, qid) -> float:
        """Mean NDCG (LETOR 4.0 definition, Sec. 4.4, Eq. 4.5) of the
        predicted ranking; see :func:`polyrank.metrics.mean_ndcg`."""
        from ..metrics import mean_ndcg

        return mean_ndcg(y, self.decision_function(X), qid)
