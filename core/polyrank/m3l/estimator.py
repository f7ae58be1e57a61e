"""scikit-learn estimator for M3L."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..kernels import check_kernel_params, kernel_matrix
from ..result import STATUS_MAX_ITER
from ..validation import as_float_array, check_positive
from .priors import labels_pm1
from .solver import SMO_KERNELS, m3l_dca, m3l_smo

__all__ = ["M3LClassifier", "SOLVERS"]

#: solver names of :class:`M3LClassifier`
SOLVERS = ("auto", "smo", "dca")


class M3LClassifier(ClassifierMixin, BaseEstimator):
    """Max-margin multi-label classifier with a label-correlation prior R (M3L).

    Minimises the primal P2 (Eq. 11-14 of ``m3l-multilabel-zero-shot.txt``)
    with the Hamming loss::

        1/2 sum_{l,k} (R^-1)_lk z_l'z_k + C sum_{i,l} max(0, 2 - 2 y_il z_l'phi(x_i))

    by its dual D2 (Eq. 25), and predicts the labels sign(Z'phi(x))
    (Sec. 3). With R = I it is 1-vs-All: L independent SVMs without bias and
    penalty 2C (Sec. 3.1). Like the paper, there is no explicit bias: a
    constant feature of value ``bias`` is appended to every point (Sec. 3,
    "we implicitly simulate b by adding an extra dimension to the feature
    vector"), so the bias is regularised and correlated through R. It has
    no effect with the translation-invariant rbf kernel.

    Parameters
    ----------
    R : array_like, shape (L, L), optional
        Symmetric positive-definite prior (dense; negative entries allowed).
        None means the identity (1-vs-All). A matrix that is not positive
        definite raises ValueError unless ``ridge`` makes it so.
    C : float, default=1.0
        Slack penalty (> 0).
    kernel : {"linear", "rbf", "poly"}, default="linear"
        k(x, y) = x.y, exp(-gamma ||x - y||^2), (gamma x.y + coef0)^degree.
    gamma : float or None, default=None
        Kernel width (None: 1 / n_features, counting the bias feature).
    degree : int, default=3
    coef0 : float, default=1.0
    bias : float, default=1.0
        Value of the constant feature appended to X (>= 0; 0 appends none).
    tau : float, default=1e-3
        Stop when every projected gradient (Eq. 31) of D2 is below tau.
    cache_mb : float, default=200
        Size limit of the SMO kernel cache in MB (Sec. 5.1.3).
    solver : {"auto", "smo", "dca"}, default="auto"
        "smo": kernelised SMO (Alg. 1); "dca": linear dual coordinate ascent
        with shrinkage (Sec. 6, linear kernel only); "auto": dca for the
        linear kernel, smo otherwise.
    ridge : float, default=0.0
        Explicit ridge added to R's diagonal.
    switch_tol : float, default=0.1
        DCA: projected-gradient level at which updates become label-wise.
    max_iter : int, default=10000
        Maximum sweeps (SMO) or epochs (DCA).
    random_state : int or None, default=None
        Seed of the DCA visiting order.
    warm_start : bool, default=False
        If True and the model was fitted before on data of the same shape,
        start from the previous dual variables (clipped to [0, C]) instead
        of 0, e.g. when only R or C changed (the CorrelationSlider refits
        this way).

    Attributes
    ----------
    coef_ : ndarray, shape (L, n_features)
        z_1..z_L without the bias weight (linear kernel).
    intercept_ : ndarray, shape (L,)
        bias * (bias weight of z_l) (linear kernel).
    dual_coef_ : ndarray, shape (N, L)
        B = 2 (Y * alpha) R with f(x) = k(x, X_fit_) B (non-linear kernels).
    alpha_ : ndarray, shape (N, L)
        The dual variables of D2.
    R_ : ndarray, shape (L, L)
        The prior used (with ridge).
    result_ : SolverResult
        Trace with primal, dual and gap per iteration.
    n_iter_ : int
    n_labels_ : int
    n_features_in_ : int

    Notes
    -----
    A label column that is constant (all +1 or all -1) is allowed: the
    problem stays well defined (its hinge terms push all decisions to one
    side) and is solved like any other.

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import M3LClassifier
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    >>> M3LClassifier(C=10.0).fit(X, Y).predict(X).tolist()
    [[1, 0], [0, 1], [1, 1], [0, 0]]
    """

    def __init__(self, R=None, C=1.0, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 bias=1.0, tau=1e-3, cache_mb=200.0, solver="auto", ridge=0.0,
                 switch_tol=0.1, max_iter=10000, random_state=None, warm_start=False):
        self.R = R
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.bias = bias
        self.tau = tau
        self.cache_mb = cache_mb
        self.solver = solver
        self.ridge = ridge
        self.switch_tol = switch_tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.warm_start = warm_start

    def _augment(self, X):
        if self.bias > 0:
            return np.hstack([X, np.full((X.shape[0], 1), float(self.bias))])
        return X

    def _solver(self):
        if self.solver not in SOLVERS:
            raise ValueError(f"solver: expected one of {SOLVERS}, got {self.solver!r}")
        if self.kernel not in SMO_KERNELS:
            raise ValueError(f"kernel: expected one of {SMO_KERNELS}, got {self.kernel!r}")
        if self.solver == "dca" and self.kernel != "linear":
            raise ValueError(f"solver: 'dca' needs kernel='linear', got kernel="
                             f"{self.kernel!r}")
        if self.solver == "auto":
            return "dca" if self.kernel == "linear" else "smo"
        return self.solver

    def fit(self, X, Y, callback=None, callback_every=1):
        """Fit the classifier.

        Parameters
        ----------
        X : array_like, shape (N, n_features)
        Y : array_like, shape (N, L)
            Labels in {0, 1} or {-1, +1}; ``predict`` answers in the same
            coding (0/1 if Y contains a 0, else -1/+1).
        callback : callable, optional
            ``callback(info: IterInfo)`` per iteration (e.g. a
            :class:`polyrank_widgets.GapMonitor`); StopIteration stops.
        callback_every : int, default=1

        Returns
        -------
        self

        Raises
        ------
        ValueError, TypeError
            See :func:`polyrank.m3l.m3l_smo` / :func:`polyrank.m3l.m3l_dca`;
            also for an unknown solver or ``solver="dca"`` with a
            non-linear kernel.

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` ends the solve before every projected gradient
            is below ``tau``.
        """
        solver = self._solver()
        X = as_float_array(X, "X", ndim=2)
        bias = check_positive(self.bias, "bias", strict=False)
        Yarr = np.asarray(Y)
        Ypm = labels_pm1(Y)
        self.label_values_ = (0, 1) if np.any(Yarr == 0) else (-1, 1)
        n_features = X.shape[1]
        Xa = self._augment(X)
        alpha0 = None
        if self.warm_start and getattr(self, "alpha_", None) is not None \
                and self.alpha_.shape == Ypm.shape:
            alpha0 = np.clip(self.alpha_, 0.0, check_positive(self.C, "C"))
        common = dict(R=self.R, C=self.C, tau=self.tau, ridge=self.ridge,
                      max_iter=self.max_iter, callback=callback,
                      callback_every=callback_every, alpha0=alpha0)
        if solver == "dca":
            res = m3l_dca(Xa, Ypm, switch_tol=self.switch_tol,
                          random_state=self.random_state, **common)
            Z = res.x
        else:
            res = m3l_smo(Xa, Ypm, kernel=self.kernel, gamma=self.gamma,
                          degree=self.degree, coef0=self.coef0, cache_mb=self.cache_mb,
                          **common)
            Z = Xa.T @ res.x if self.kernel == "linear" else None
            self.dual_coef_ = res.x
            if self.kernel != "linear":
                self.X_fit_ = Xa
        if res.status == STATUS_MAX_ITER:
            warnings.warn(f"M3LClassifier: {res.message}; increase max_iter or tau",
                          ConvergenceWarning, stacklevel=2)
        if Z is not None:
            self.coef_ = Z[:n_features].T.copy()
            self.intercept_ = Z[n_features] * bias if bias > 0 else np.zeros(Z.shape[1])
        self.alpha_ = res.dual["alpha"]
        self.R_ = res.R
        self.result_ = res
        self.n_iter_ = res.nit
        self.n_labels_ = Ypm.shape[1]
        self.n_features_in_ = n_features
        return self

    def decision_function(self, X) -> np.ndarray:
        """Decisions f_l(x) = z_l'phi(x) for every label (Sec. 3).

        Parameters
        ----------
        X : array_like, shape (m, n_features)

        Returns
        -------
        ndarray, shape (m, L)

        Raises
        ------
        ValueError
            Wrong number of features, NaN/inf.
        """
        check_is_fitted(self, "result_")
        X = as_float_array(X, "X", ndim=2, shape=(None, self.n_features_in_))
        if self.kernel == "linear":
            return X @ self.coef_.T + self.intercept_
        Xa = self._augment(X)
        params = check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0,
                                     Xa.shape[1])
        return kernel_matrix(Xa, self.X_fit_, kernel=self.kernel, **params) @ self.dual_coef_

    def predict(self, X) -> np.ndarray:
        """Labels sign(Z'phi(x)) (a decision of exactly 0 counts as +1), in
        the coding of the ``Y`` given to ``fit``.

        Returns
        -------
        ndarray of int, shape (m, L)
        """
        F = self.decision_function(X)
        neg, pos = self.label_values_
        return np.where(F >= 0, pos, neg).astype(np.int64)

    def score(self, X, Y, sample_weight=None) -> float:
        """1 - Hamming loss (fraction of correctly predicted labels,
        :func:`sklearn.metrics.hamming_loss`).

        Parameters
        ----------
        X : array_like, shape (m, n_features)
        Y : array_like, shape (m, L), in {0, 1} or {-1, +1}

        Returns
        -------
        float in [0, 1]
        """
        from sklearn.metrics import hamming_loss

        Ypm = labels_pm1(Y)
        P = labels_pm1(self.predict(X) if self.label_values_ == (-1, 1)
                       else 2 * self.predict(X) - 1)
        return 1.0 - float(hamming_loss(Ypm, P, sample_weight=sample_weight))
