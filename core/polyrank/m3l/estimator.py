"""scikit-learn estimator for M3L."""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._multilabel import BINARY, MULTICLASS, encode_targets, writeable
from .._progress import fit_bar
from .._repr import FitReprMixin
from .._sklearn import (
    LabelColumnsMixin,
    fit_context,
    fitted_param,
    forget_fitted,
    kernel_width_hint,
    log_callback,
    solver_seed,
    warn_if_not_converged,
    warn_if_trivial,
    warn_if_unscaled,
)
from .._text import param, scale_advice
from .._warm import dual_scale, fingerprint, keep, prepared, previous
from ..kernels import check_kernel_params, kernel_matrix
from ..path import N_GRID, PathResult, estimator_path, reject_grid_params
from ..result import STATUS_MAX_ITER
from ..validation import check_sample_weight, validate_X
from .priors import check_R
from .solver import (
    GRAM_DTYPES,
    SMO_KERNELS,
    STOPPING_RULES,
    DcaOptions,
    SmoOptions,
    dca,
    linear_rows,
    smo,
)

__all__ = ["DEFAULT_C", "M3LClassifier", "SOLVERS", "STOPPINGS", "m3l_path"]

#: solver names of :class:`M3LClassifier`
SOLVERS = ("auto", "smo", "dca")
#: ``stopping`` of :class:`M3LClassifier`: "auto" ("gap" for DCA, "pg" for
#: the kernel solvers) or one of :data:`~polyrank.m3l.solver.STOPPING_RULES`
STOPPINGS = ("auto",) + STOPPING_RULES

#: what ``C=None`` (the default of :class:`M3LClassifier`) resolves to, per
#: kernel: 0.1 for the linear kernel (measured after a StandardScaler); 0.5 for
#: rbf and poly, the problem of scikit-learn's ``SVC(C=1.0)`` per label (with
#: R = I M3L is L hinge-loss SVMs of penalty 2C, Sec. 3.1)
DEFAULT_C = {"linear": 0.1, "rbf": 0.5, "poly": 0.5}



class _Prepared(NamedTuple):
    """What :meth:`M3LClassifier.fit` builds from X alone, once per data set
    along a path (``warm_start=True``, :func:`polyrank._warm.prepared`)."""

    Xa: np.ndarray                  # X as the solver reads it (bias feature appended)
    rows: Any                       # solver "dca": linear_rows(Xa), else None
    grams: dict | None              # solver "smo": the Gram matrix kept (stored_gram)


class M3LClassifier(LabelColumnsMixin, ClassifierMixin, FitReprMixin, BaseEstimator):
    """Max-margin multi-label classifier with a label-correlation prior R (M3L).

    Minimises the primal P2 (Eq. 11-14 of ``m3l-multilabel-zero-shot.txt``)
    with the Hamming loss::

        1/2 sum_{l,k} (R^-1)_lk z_l'z_k + C sum_{i,l} w_i max(0, 2 - 2 y_il z_l'phi(x_i))

    by its dual D2 (Eq. 25, box 0 <= alpha_il <= C w_i with sample weights
    w_i, 1 by default), and predicts the labels sign(Z'phi(x)) (Sec. 3).
    With R = I it is 1-vs-All: L independent SVMs without bias and penalty
    2C (Sec. 3.1). Like the paper, there is no explicit bias: a constant
    feature of value ``bias`` is appended to every feature vector (Sec. 3,
    "we implicitly simulate b by adding an extra dimension to the feature
    vector"), so the bias is regularised and correlated through R. With the
    linear kernel it is appended to x; with the rbf and poly kernels to
    phi(x), i.e. the kernel becomes k(x, y) + bias^2 (appended to x it
    would vanish from the translation-invariant rbf kernel, leaving the
    model without any bias: 0.3-1 point of test Hamming loss away from
    one-vs-rest SVC, see ``polyrank bench m3l-rows``).

    Its simple peers are one-vs-rest :class:`~sklearn.svm.LinearSVC` for the
    linear kernel and one-vs-rest :class:`~sklearn.svm.SVC` with the same
    kernel for rbf and poly: with the defaults it comes within 0.005 of
    their test Hamming loss on yeast (see "Defaults, measured" in the
    Notes).

    What ``y`` means (attribute ``target_type_``):

    * **a label indicator matrix** (N, L), the paper's setting: entries all
      in {0, 1} (``bool`` included; what
      :class:`~sklearn.preprocessing.MultiLabelBinarizer` gives) or all in
      {-1, +1}.  ``classes_`` is ``arange(L)``; ``label_values_`` the coding
      read from ``y``: (-1, 1) if it contains a -1, else (0, 1) (so a
      matrix of ones only is 0/1).  ``predict`` answers in that coding and
      in ``y``'s dtype; ``decision_function`` is (N, L), positive for
      predicted labels; ``score`` is 1 - Hamming loss.
    * **class labels** (N,): two classes are one binary label column (L = 1,
      the label "is ``classes_[1]``"), ``decision_function`` is (N,); more
      classes are one-hot label columns (L = n_classes, 1-vs-All with
      R = I) and ``predict`` is the class of largest decision.  ``score``
      is the accuracy.

    Parameters
    ----------
    R : array_like, shape (L, L), optional
        Symmetric positive-definite prior (dense; negative entries allowed).
        None means the identity (1-vs-All). A matrix that is not positive
        definite raises ValueError unless ``ridge`` makes it so.
    C : float or None, default=None
        Slack penalty (> 0).  With R = I, M3L is L hinge-loss SVMs of
        penalty 2C.  None picks it per kernel
        (``polyrank.m3l.estimator.DEFAULT_C``; the value used is the fitted
        attribute ``C_``): 0.1 for the linear kernel, 0.5 for rbf and poly,
        the per-label problem of scikit-learn's ``SVC(C=1.0)``.  One C
        does not serve both (see "Defaults, measured" in the Notes): the
        linear kernel's 0.1 is measured after a StandardScaler, where rows
        have squared norm n_features (test Hamming loss 0.2012, 0.2054,
        0.1336 on yeast, emotions and scene, MULAN splits, against 0.2031,
        0.2261, 0.1551 at C = 1, and a fit of 1.9 s instead of 36 s on
        yeast: the dual coordinate ascent slows as C ||x||^2 grows); with
        the rbf kernel 0.1 costs 1.8 to 4.2 points of test Hamming loss
        against one-vs-rest SVC on standardised yeast and generated data,
        where 0.5 matches SVC within 2e-4.  (The default was 0.1 for every
        kernel before C=None, and 1.0 before that.)
    kernel : {"linear", "rbf", "poly"}, default="linear"
        k(x, y) = x.y, exp(-gamma ||x - y||^2), (gamma x.y + coef0)^degree.
    gamma : float or None, default=None
        Kernel width (None: 1 / n_features, as SVC's ``gamma="auto"``, and
        its ``"scale"`` on standardised X).
    degree : int, default=3
    coef0 : float, default=1.0
    bias : float, default=1.0
        Value of the constant feature (>= 0; 0 appends none): appended to X
        with the linear kernel, to phi(x) with rbf and poly (the kernel
        k(x, y) + bias^2). Its weight is regularised like the others; a
        larger value regularises the bias less (approaching SVC's free
        intercept) and slows the solve.
    tol : float, default=1e-3
        The tolerance of the stopping rule ``stopping``: with "pg", stop
        when every projected gradient (Eq. 31) of D2 is below tol (M3L's
        tau: the threshold of Sec. 5.1.3 and Appendix B); with "gap", when
        the duality gap P2 - D2 is at most tol times P2 (for each label, or
        group of labels coupled through R), so that P2 is within a
        fraction tol of its minimum.
    cache_mb : float or "auto", default="auto"
        Size limit of the kernel cache in MB (> 0; Sec. 5.1.3), or "auto":
        half of the memory available when the fit starts, between 200 MB
        and 16 GiB (:func:`~polyrank.m3l.solver.cache_megabytes`; 200 MB, LIBSVM's
        fixed size in scikit-learn, before); only what is needed is
        allocated. When the
        whole Gram matrix fits (8 N^2 bytes; 4 N^2 in float32, which
        :func:`~polyrank.m3l.m3l_smo` uses when ``tol >= 1e-4``, as LIBSVM
        stores its kernel matrix) and R is diagonal, the kernel solver
        computes it once and runs coordinate ascent on it.
    solver : {"auto", "smo", "dca"}, default="auto"
        "smo": the kernelised solver :func:`~polyrank.m3l.m3l_smo` (its
        ``method="auto"``: coordinate ascent on the whole Gram matrix for a
        diagonal R when it fits in ``cache_mb``, SMO, Alg. 1, otherwise);
        "dca": linear dual coordinate ascent
        with shrinkage (Sec. 6, linear kernel only, dense or sparse X; with a
        diagonal R, the default included, the labels are independent SVMs
        solved as LIBLINEAR does, dual coordinate descent with shrinking per
        label in one shared pass over the data, see
        :func:`~polyrank.m3l.m3l_dca`);
        "auto": dca for the linear kernel, smo otherwise.
    ridge : float, default=0.0
        Explicit ridge added to R's diagonal.
    switch_tol : float, default=0.1
        DCA with an R that is not diagonal: projected-gradient level at
        which updates become label-wise.
    max_iter : int, default=10000
        Maximum iterations: sweeps (SMO) or duality-gap checks (DCA; a
        check comes when the shrunk problem looks solved or after at most
        10 unshrunk epochs of work, see :func:`~polyrank.m3l.m3l_dca`).
    random_state : int, RandomState, Generator or None, default=None
        Seed of the visiting order of DCA and of the kernel solver's
        coordinate ascent (a RandomState instance draws the seed).
    warm_start : bool, default=False
        If True and the model was fitted before on the same data (X, y;
        ``result_.warm_start`` says whether it was), start from the previous
        dual variables, scaled by C_new / C_old and clipped to [0, C w_i],
        instead of 0, e.g. when only R, C or the kernel changed (the
        CorrelationSlider refits this way); on other data start cold.
        (Until now the check was the shape of y only, and alpha was
        clipped, not scaled.)
    verbose : int, default=0
        ``v > 0`` prints one line (primal, dual, gap, time) every ``v``
        iterations.
    gram_dtype : {"auto", "float32", "float64"}, default="auto"
        Kernel solver's coordinate ascent only: the precision in which the
        whole Gram matrix is stored ("auto": float32, as LIBSVM stores its
        kernel matrix, when ``tol >= 1e-4``, else float64; see
        :func:`~polyrank.m3l.m3l_smo`). "float64" solves with the exact
        kernel values at twice the memory and about 1.5x the time.
    shrinking : bool, default=True
        Let every solver shrink its active set (the ``shrinking`` of
        :func:`~polyrank.m3l.m3l_smo` and :func:`~polyrank.m3l.m3l_dca`; the
        kernel SMO shrinks as LIBSVM does). False runs the paper's plain
        algorithms (Alg. 1 for the SMO). The stopping rule is checked on all
        variables either way.

    stopping : {"auto", "gap", "pg"}, default="auto"
        The stopping rule, checked on the exact gradient over every
        variable: "gap", the relative duality gap (see ``tol``; an exact
        certificate of P2's accuracy); "pg", the paper's rule (every
        projected gradient below ``tol``: stricter, on standardised yeast
        and generated data about 4x the DCA epochs for the same test
        Hamming loss, see ``polyrank bench m3l-linear``); "auto": "gap"
        for the linear solver "dca", "pg" for the kernel solver (which
        supports only "pg").

    Attributes
    ----------
    classes_ : ndarray
        ``arange(L)`` for an indicator ``y``; the class labels for a 1-d ``y``.
    target_type_ : str
        ``"multilabel-indicator"``, ``"binary"`` or ``"multiclass"``.
    label_values_ : tuple
        ``(negative, positive)`` coding of an indicator ``y`` ((0, 1) for 1-d y).
    C_ : float
        The slack penalty used: ``C``, or for ``C=None`` the kernel's
        ``polyrank.m3l.estimator.DEFAULT_C`` (0.1 linear, 0.5 rbf and poly).
    coef_ : ndarray, shape (L, n_features)
        z_1..z_L without the bias weight (linear kernel).
    intercept_ : ndarray, shape (L,)
        bias * (bias weight of z_l) (linear kernel).
    dual_coef_ : ndarray, shape (N, L)
        B = 2 (Y * alpha) R with f(x) = k(x, X_fit_) B (SMO).
    alpha_ : ndarray, shape (N, L)
        The dual variables of D2.
    R_ : ndarray, shape (L, L)
        The prior used (with ridge).
    result_ : SolverResult
        Trace with primal, dual and gap per iteration.
    n_iter_ : int
    n_labels_ : int
        L.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X has string feature names.

    Notes
    -----
    A label column that is constant (all relevant or all irrelevant) is
    allowed: the problem stays well defined (its hinge terms push all
    decisions to one side) and is solved like any other.

    **Defaults, measured** (``tests/core/test_defaults_matrix.py``, every kernel,
    raw X and after a StandardScaler; ``C=None``, ``gamma=None`` =
    1 / n_features, ``random_state=0``).  The tolerances the matrix holds
    the defaults to: test Hamming loss within 0.005 of the peer's on label
    sets, accuracy within 0.01 of the peer's on classes.  Peers with their
    defaults: one-vs-rest ``LinearSVC()`` (linear) and one-vs-rest
    ``SVC(kernel, gamma=1 / n_features, coef0=1)`` (rbf, poly; gamma is
    SVC's ``"scale"`` on standardised X).

    ========================  ===============  ===============
    data, kernel              raw X            standardised X
    ========================  ===============  ===============
    yeast, linear             0.2000 / 0.2028  0.2010 / 0.2073
    yeast, rbf                0.2329 / 0.2329  0.1867 / 0.1867
    yeast, poly               0.2264 / 0.2264  0.2183 / 0.2180
    red-wine grades, linear   warns (scale)    0.5760 / 0.5797
    red-wine grades, rbf      warns (scale)    0.6323 / 0.6323
    red-wine grades, poly     warns (scale)    0.6285 / 0.6266
    phishing, linear          0.9451 / 0.9433  0.9439 / 0.9442
    w8a (10,000 rows), lin.   0.9817 / 0.9850  0.9833 / 0.9817
    ========================  ===============  ===============

    (ours / peer: test Hamming loss on yeast, accuracy on the grades and on
    the binary sets, whose sparse X takes the linear kernel only.)  On
    yeast as bundled (rows of norm 1) gamma = 1 / n_features is too small
    for the rbf kernel (a kernel almost constant): M3L and SVC with that
    gamma both score 0.2329, worse than the linear kernel's 0.2000 (with
    SVC's ``gamma="scale"``, 1 / (n_features X.var()) = 1.0 here, M3L
    scores 0.1865 and ``SVC()`` 0.1866); after a StandardScaler
    1 / n_features is SVC's ``"scale"``.  At the former rbf default
    C = 0.1 the standardised rows gave 0.2047 (SVC 0.1867); on generated
    stand-ins (``make_multilabel_classification`` counts, 100 features, 10
    labels; [0, 1]-scaled rows of 294 features and 6 labels, as MULAN's
    scene) C = 0.5 matched one-vs-rest SVC within 2e-4 raw and
    standardised, where 0.1 was up to 4.2 points worse.  Raw red wine
    (feature standard deviations 0.0019 to 33) gives the
    :class:`~polyrank.exceptions.FeatureScaleWarning` before the solve.

    See Also
    --------
    polyrank.m3l.m3l_smo, polyrank.m3l.m3l_dca : the solvers.
    polyrank.LabelRanker : label ranking (and label sets) by SOPOPO.

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import M3LClassifier
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    >>> M3LClassifier(C=10.0).fit(X, Y).predict(X).tolist()
    [[1, 0], [0, 1], [1, 1], [0, 0]]
    >>> M3LClassifier(C=10.0).fit(X, 2 * Y - 1).predict(X[:2]).tolist()
    [[1, -1], [-1, 1]]
    >>> M3LClassifier(C=10.0).fit(X, ["b", "a", "b", "a"]).predict(X).tolist()
    ['b', 'a', 'b', 'a']
    """

    _parameter_constraints: dict = {
        "R": ["array-like", None],
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
        "kernel": [StrOptions(set(SMO_KERNELS))],
        "gamma": [Interval(Real, 0, np.inf, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -np.inf, np.inf, closed="neither")],
        "bias": [Interval(Real, 0, np.inf, closed="left")],
        "tol": [Interval(Real, 0, np.inf, closed="neither")],
        "cache_mb": [Interval(Real, 0, np.inf, closed="neither"), StrOptions({"auto"})],
        "solver": [StrOptions(set(SOLVERS))],
        "ridge": [Interval(Real, 0, np.inf, closed="left")],
        "switch_tol": [Interval(Real, 0, np.inf, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": ["verbose"],
        "gram_dtype": [StrOptions(set(GRAM_DTYPES))],
        "shrinking": ["boolean"],
        "stopping": [StrOptions(set(STOPPINGS))],
    }

    def __init__(self, R=None, C=None, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 bias=1.0, tol=1e-3, cache_mb="auto", solver="auto", ridge=0.0,
                 switch_tol=0.1, max_iter=10000, random_state=None, warm_start=False,
                 verbose=0, gram_dtype="auto", shrinking=True, stopping="auto"):
        self.R = R
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.bias = bias
        self.tol = tol
        self.cache_mb = cache_mb
        self.solver = solver
        self.ridge = ridge
        self.switch_tol = switch_tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.gram_dtype = gram_dtype
        self.shrinking = shrinking
        self.stopping = stopping
        self.warm_start = warm_start
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel == "linear" and self.solver in ("auto", "dca")
        tags.target_tags.multi_output = True
        tags.classifier_tags.multi_label = True
        return tags

    def _C(self) -> float:
        """The slack penalty used: ``C``, or ``DEFAULT_C`` of the kernel."""
        return float(DEFAULT_C[self.kernel] if self.C is None else self.C)

    #: the parameters prediction reads: their values as fitted are kept
    #: (:func:`polyrank._sklearn.remember_fitted_params`)
    _predict_params = ("kernel", "gamma", "degree", "coef0", "bias")

    def _bias(self) -> float:
        """The bias feature's value (0: none)."""
        return float(fitted_param(self, "bias"))

    def _augment(self, X):
        """X with the bias feature appended for the linear kernel; X itself
        for rbf and poly, whose bias is the kernel offset (:meth:`_offset`)."""
        return super()._augment(X) if fitted_param(self, "kernel") == "linear" else X

    def _offset(self) -> float:
        """bias^2 added to the rbf and poly kernels (0 for the linear one)."""
        return 0.0 if fitted_param(self, "kernel") == "linear" else self._bias() ** 2

    def _kernel_decision(self, X) -> np.ndarray:
        """(k(X, X_fit_) + bias^2) @ dual_coef_ (a non-linear kernel)."""
        kernel = fitted_param(self, "kernel")
        params = check_kernel_params(kernel, fitted_param(self, "gamma"),
                                     fitted_param(self, "degree"), fitted_param(self, "coef0"),
                                     X.shape[1])
        K = kernel_matrix(X, self.X_fit_, kernel=kernel, **params)
        offset = self._offset()
        if offset:
            K += offset
        return K @ self.dual_coef_

    def _solver(self):
        if self.solver == "dca" and self.kernel != "linear":
            raise ValueError(f"solver: 'dca' needs kernel='linear', got kernel="
                             f"{self.kernel!r}")
        if self.solver == "auto":
            return "dca" if self.kernel == "linear" else "smo"
        return self.solver

    def _stopping(self, solver) -> str:
        """The stopping rule of ``solver`` ("gap" or "pg")."""
        if self.stopping == "auto":
            return "gap" if solver == "dca" else "pg"
        if self.stopping == "gap" and solver != "dca":
            raise ValueError("stopping: 'gap' needs the linear solver 'dca' (kernel="
                             f"{self.kernel!r}, solver={self.solver!r}); use 'pg' or 'auto'")
        return self.stopping

    def _check_sparse(self, X, solver):
        if sp.issparse(X) and solver != "dca":
            raise TypeError(f"X: sparse input is not supported with kernel={self.kernel!r} "
                            f"and solver={self.solver!r} (only by the linear kernel's "
                            "solver 'dca'); pass a dense array")

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit the classifier.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (N, n_features)
            Sparse input (used as CSR) with the linear kernel and solver
            "auto" or "dca" only.
        y : array_like, shape (N, L) or (N,)
            A label indicator matrix (entries all in {0, 1} or all in
            {-1, +1}) or class labels (see the class docstring).
        sample_weight : array_like, shape (N,), optional
            Per-example weights w_i >= 0: the box of example i becomes
            [0, C w_i] (integer weights = repeated examples; 0 removes an
            example).
        callback : callable, optional
            ``callback(info: IterInfo)`` per iteration (e.g. a
            :class:`polyrank_widgets.GapMonitor`); StopIteration stops.
            With DCA an iteration is a duality-gap check: the epochs
            between two checks run compiled, without callbacks.
        callback_every : int, default=1
            Call ``callback`` only on the iterations (SMO sweeps, DCA
            checks) divisible by this; ``result_.trace`` keeps every one.

        Returns
        -------
        self : M3LClassifier
            The fitted classifier.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf or empty X, a 2-d y that is not an
            indicator matrix, a continuous or one-class 1-d y, R not
            symmetric positive definite or of the wrong shape,
            ``solver="dca"`` with a non-linear kernel, ``stopping="gap"``
            with the kernel solver, negative or all-zero weights.
        TypeError
            Sparse X with a non-linear kernel or solver "smo"; non-numeric X.

        Warns
        -----
        polyrank.exceptions.FeatureScaleWarning
            Before the solve, if X does not look standardised (feature
            standard deviations spanning more than 1e3, or rows dominated by
            their common mean): dual coordinate ascent crawls on such data
            (raw MULAN emotions: 7,434 checks and 52 s, against 26 checks
            and 0.1 s after a StandardScaler) and the penalty weighs
            features by their units.  The fix: ``make_pipeline(StandardScaler(),
            M3LClassifier())``.
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` ends the solve before every projected gradient
            is below ``tol``, or an objective becomes non-finite.
        polyrank.exceptions.TrivialModelWarning
            If every weight is 0, or every training row of positive weight
            gets the same prediction although the targets hold several.
        """
        solver = self._solver()
        stopping = self._stopping(solver)
        self._check_sparse(X, solver)
        X, y = validate_X(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             multi_output=True)
        coding, T = encode_targets(y, rankings=False, owner="M3LClassifier")
        if coding.target_type == BINARY:
            T = T[:, 1:]                      # one label: "is classes_[1]"
        Ypm = 2.0 * T - 1.0
        N, L = Ypm.shape
        C = self._C()
        if sample_weight is None:
            Cv = np.full(N, C)
        else:
            w = check_sample_weight(sample_weight, X)
            Cv = C * w
            if coding.target_type in (BINARY, MULTICLASS):
                present = np.unique(y[w > 0])
                if present.size < 2:
                    raise ValueError(f"sample_weight: only the class {present.tolist()} has "
                                     "positive weight; M3LClassifier needs 2 classes")
        R = ((1.0 + self.ridge) * np.eye(L) if self.R is None
             else check_R(self.R, L, self.ridge))
        warn_if_unscaled(self, X, self.kernel)
        key = fingerprint(X, Ypm, Cv / C)
        alpha0, how = self._alpha0(key, C, Cv)
        prep, _ = prepared(self, key + (solver, self.kernel, self._bias()),
                           lambda: self._prepare(X, solver))
        common = dict(alpha0=alpha0,
                      callback=log_callback(callback, self.verbose, "M3LClassifier"),
                      callback_every=callback_every)
        forget_fitted(self, ("coef_", "intercept_", "dual_coef_", "X_fit_"))
        common["callback"], bar = fit_bar(common["callback"],
                                          f"M3LClassifier ({N:,} x {L} labels)", self.tol)
        try:
            res, Z = self._solve(solver, prep, Ypm, R, Cv, common, stopping)
        finally:
            if bar is not None:
                bar.close()
        warn_if_not_converged(self, res, f"increase {param('max_iter')} or {param('tol')}, "
                              f"or {scale_advice('M3LClassifier')}"
                              if res.status == STATUS_MAX_ITER else "")
        n_features = X.shape[1]
        if Z is not None:
            self.coef_ = Z[:n_features].T.copy()
            self.intercept_ = Z[n_features] * self.bias if self.bias > 0 else np.zeros(L)
        self._keep_coding(coding)
        self.C_ = C
        self.alpha_ = res.dual["alpha"]
        self.R_ = res.R
        self.result_ = res
        res.warm_start = how
        keep(self, key, C, alpha=self.alpha_)
        self.n_iter_ = res.nit
        self.n_labels_ = L
        if res.success:     # an unfinished solve has its ConvergenceWarning
            self._warn_if_trivial(res, Ypm, y, Cv > 0)
        return self

    def _alpha0(self, key, C, Cv):
        """(alpha0 or None, ``result_.warm_start``): the previous fit's dual
        variables scaled by C_new / C_old and clipped to the new box
        [0, C w_i] (a changed sample weight), or None for a cold start."""
        state, how = previous(self, key)
        if state is None:
            return None, how
        return np.clip(state.point["alpha"] * dual_scale(C, state.penalty), 0.0,
                       Cv[:, None]), how

    def _prepare(self, X, solver) -> _Prepared:
        """What the solve reads and only X decides (:class:`_Prepared`),
        kept along a path by :func:`polyrank._warm.prepared`."""
        Xa = writeable(self._augment(X))
        if solver == "dca":
            return _Prepared(Xa, linear_rows(Xa), None)
        return _Prepared(Xa, None, {})

    def _solve(self, solver, prep, Ypm, R, Cv, common, stopping="pg"):
        """(result, Z or None): the driver's solve on ``prep``
        (:class:`_Prepared`); sets ``dual_coef_`` and ``X_fit_`` of the
        kernel solver."""
        seed = solver_seed(self.random_state)
        Xa = prep.Xa
        if solver == "dca":
            options = DcaOptions(float(self.tol), float(self.switch_tol), bool(self.shrinking),
                                 int(self.max_iter), random_state=seed, stopping=stopping)
            res = dca(Xa, Ypm, R, Cv, options, xr=prep.rows, **common)
            return res, res.x
        params = check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0,
                                     Xa.shape[1])
        options = SmoOptions(self.kernel, params, float(self.tol), self.cache_mb,
                             int(self.max_iter), shrinking=bool(self.shrinking),
                             random_state=seed, gram_dtype=self.gram_dtype,
                             offset=self._offset())
        res = smo(Xa, Ypm, R, Cv, options, grams=prep.grams, **common)
        self.dual_coef_ = res.x
        if self.kernel != "linear":
            # an array of its own (X itself may be the caller's, a view)
            self.X_fit_ = np.array(Xa, order="C", copy=True)
            return res, None
        return res, Xa.T @ res.x

    def _warn_if_trivial(self, res, Ypm, y, keep) -> None:
        """TrivialModelWarning when every weight is 0 or every training row
        of positive weight (``keep``) gets the same prediction although
        ``y`` holds several."""
        # the training decisions from the dual gradient G = 2 - 2 y f (y = +-1)
        train = Ypm * (1.0 - 0.5 * res.dual["G"])
        if self.target_type_ == BINARY:
            train = train.ravel()
        warn_if_trivial(self, coef=getattr(self, "coef_", None)
                        if self.kernel == "linear" else self.dual_coef_,
                        train_pred=self._coding.predict(train)[keep], y=np.asarray(y)[keep],
                        remedy=f"raise {param('C')} (now {self._C():g})"
                               f"{kernel_width_hint(self, getattr(self, 'X_fit_', None))}, "
                               f"or {scale_advice('M3LClassifier')}")

    def decision_function(self, X) -> np.ndarray:
        """Decisions f_l(x) = z_l'phi(x) for every label (Sec. 3); with the
        linear kernel ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (m, n_features)

        Returns
        -------
        ndarray, shape (m, L), or (m,) for two classes
            Positive for predicted labels (for the class ``classes_[1]``).

        Raises
        ------
        ValueError
            Wrong number of features, NaN/inf.
        TypeError
            Sparse X with a non-linear kernel.
        """
        check_is_fitted(self)
        linear = fitted_param(self, "kernel") == "linear"
        self._check_sparse(X, "dca" if linear else "smo")
        X = validate_X(self, X, reset=False, accept_sparse="csr", dtype=np.float64)
        if linear:
            D = np.asarray(X @ self.coef_.T) + self.intercept_
        else:
            D = self._kernel_decision(X)
        return D.ravel() if self.target_type_ == BINARY else D

    def predict(self, X) -> np.ndarray:
        """Labels sign(Z'phi(x)) (a decision of exactly 0 counts as
        negative), in the coding and dtype of the ``y`` given to ``fit``;
        for class labels, the class (of largest decision).

        Returns
        -------
        ndarray, shape (m, L) or (m,)
        """
        decision = self.decision_function(X)
        return self._coding.predict(decision)

    def score(self, X, y, sample_weight=None) -> float:
        """1 - Hamming loss (the fraction of correctly predicted labels,
        :func:`sklearn.metrics.hamming_loss`) for an indicator ``y``; the
        accuracy for class labels.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (m, n_features)
        y : array_like, shape (m, L) or (m,)
            In the form (and, for an indicator, the coding) given to ``fit``.
        sample_weight : array_like, shape (m,), optional

        Returns
        -------
        float in [0, 1]
            1 - Hamming loss, or the accuracy.
        """
        check_is_fitted(self)
        if self.target_type_ in (BINARY, MULTICLASS):
            return super().score(X, y, sample_weight=sample_weight)
        wrong = np.mean(self._coding.relevance(y) != (self.decision_function(X) > 0), axis=1)
        return 1.0 - float(np.average(wrong, weights=sample_weight))


def m3l_path(X, y, *, Cs=None, n_Cs: int = N_GRID, sample_weight=None,
             warm: bool = True, **params) -> PathResult:
    """M3LClassifier fitted along a grid of C, each fit warm-started from the last.

    In the manner of :func:`sklearn.linear_model.lasso_path`: the grid is
    solved from the smallest C (the strongest regularisation) up, the dual
    solver (D2, Eq. 25 of ``m3l-multilabel-zero-shot.txt``) starting from
    the previous alpha scaled by C_new / C_old, which keeps it in the box
    [0, C w_i] (LIBLINEAR's warm start across C, Chu, Lin et al., KDD 2015).

    Parameters
    ----------
    X : {array_like, sparse matrix}, shape (N, n_features)
    y : array_like, shape (N, L) or (N,)
        As :meth:`M3LClassifier.fit`.
    Cs : array_like of shape (n_grid,), optional
        The grid of C (> 0, finite; solved in increasing order).  Default:
        ``n_Cs`` values log-spaced over two decades around the C the
        parameters resolve to (``C``, or ``DEFAULT_C`` of the kernel).
    n_Cs : int, default=20
        Points of the default grid.
    sample_weight : array_like, shape (N,), optional
    warm : bool, default=True
        False fits every point cold.
    **params
        Other parameters of :class:`M3LClassifier` (not ``C`` nor
        ``warm_start``).

    Returns
    -------
    PathResult
        ``coefs``: ``coef_`` (L, n_features) per C for the linear kernel,
        else ``dual_coef_``; ``min_C`` = 0.0: with the squared-norm
        regulariser of P2 no C > 0 gives Z = 0 unless every C does, so
        there is no analogue of :func:`sklearn.svm.l1_min_c`.

    Raises
    ------
    ValueError
        ``Cs`` empty, not 1-d, with NaN/inf or values <= 0 (the message
        names ``Cs``); as :meth:`M3LClassifier.fit`.
    TypeError
        ``C`` or ``warm_start`` in ``params``, or an unknown parameter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [-1.0, -1.0]])
    >>> Y = np.array([[1, 0], [0, 1], [1, 1], [0, 0]])
    >>> m3l_path(X, Y, Cs=[1.0, 10.0]).warm_start
    ['cold: no previous fit', 'used']
    """
    reject_grid_params(params, ("C",))
    est = M3LClassifier(**params)
    return estimator_path(est, X, y, Cs, n=n_Cs, param="C", center=est._C(), warm=warm,
                          fit_params={"sample_weight": sample_weight})
