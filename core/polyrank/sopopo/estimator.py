"""scikit-learn estimator for SOPOPO label ranking."""

from __future__ import annotations

import dataclasses
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import label_ranking_average_precision_score
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._multilabel import BINARY, INDICATOR, MULTICLASS, RANKING, encode_targets, writeable
from .._repr import FitReprMixin
from .._sklearn import (
    LabelColumnsMixin,
    SparseIfLinearMixin,
    _column_moments,
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
from .._text import gram_advice, param, scale_advice, sparse_scale_advice
from .._warm import fingerprint, keep, previous, state_of
from ..kernels import KERNELS, check_kernel_params
from ..path import N_GRID, PathResult, estimator_path, reject_grid_params
from ..result import STATUS_MAX_ITER
from ..validation import check_sample_weight, validate_X
from .batch import ORDERS, STATUS_STALLED, check_gram, solve
from .graph import DECOMPOSITIONS, build_pieces

__all__ = ["DEFAULT_C", "LabelRanker", "label_ranking_path"]

#: target value of the virtual threshold label between relevant (1) and
#: irrelevant (0) labels of an indicator matrix
THRESHOLD_TARGET = 0.5

#: the fix every warning about unscaled features names
#: what ``C=None`` (the default of :class:`LabelRanker`) resolves to, per
#: kernel: 0.3 for the linear kernel (and a precomputed Gram matrix, as
#: before), 1.0 for rbf and poly (measured, "Defaults, measured" in the Notes)
DEFAULT_C = {"linear": 0.3, "precomputed": 0.3, "rbf": 1.0, "poly": 1.0}



#: a column counts as standardised when its standard deviation is within
#: this of 1 (a StandardScaler'd training X: 1 up to rounding)
STANDARD_SD = 1e-3


#: a warm solve starts its shrinking at this multiple of the previous solve's
#: final threshold (the threshold of its last stage, one halving before the
#: end): the stages the previous solve went through from the largest
#: preference gap down are not repeated (measured on yeast, the default grid:
#: 1x and 2x about equal, 4x and more give back most of the gain)
WARM_SHRINK_UP = 2.0


def _warm_init(state, pieces, how: str, bias: float):
    """(init, shrinking threshold, ``result_.warm_start``) of a warm solve
    from the previous fit's ``state``: its dual variables scaled piece by
    piece by C_p,new / C_p,old (feasible again for the new C), with the
    explicit form's W scaled likewise when that ratio is one number (no
    recomputation of W = X'c from the duals; only for the same ``bias``, the
    value of X's added column), and its shrinking threshold
    times :data:`WARM_SHRINK_UP`; None and a cold reason when the pieces
    changed."""
    old = state.point["pieces"]
    if not all(np.array_equal(getattr(old, a), getattr(pieces, a)) for a in
               ("example", "A_ptr", "A_idx", "B_ptr", "B_idx")):
        return None, None, "cold: the pieces changed (decomposition or normalize)"
    ratio = np.divide(pieces.C, old.C, out=np.zeros_like(pieces.C), where=old.C > 0)
    init: tuple = (state.point["alpha"] * np.repeat(ratio, np.diff(pieces.A_ptr)),
                   state.point["beta"] * np.repeat(ratio, np.diff(pieces.B_ptr)))
    W, pos = state.point.get("W"), ratio[old.C > 0]
    same = W is not None and state.point.get("bias") == bias and pos.size > 0
    if same and np.allclose(pos, pos[0], rtol=1e-12, atol=0.0):
        init += (W * pos[0],)
    eps = state.point.get("eps_shrink")
    return init, None if eps is None else eps * WARM_SHRINK_UP, how


def _looks_standardised(X) -> bool:
    """Whether every non-constant column of X has standard deviation 1 (and,
    dense X, mean 0): the output of a StandardScaler (``with_mean=False``
    for sparse X) on the training rows."""
    mean, var = _column_moments(X)
    sd = np.sqrt(var)
    live = sd > 1e-12
    if not live.any() or np.abs(sd[live] - 1.0).max() > STANDARD_SD:
        return False
    return sp.issparse(X) or bool(np.abs(mean).max() <= STANDARD_SD)


def _knobs(res, tol: float, max_iter: int) -> str:
    """``increase max_iter (now N) or tol (now T; the relative gap reached
    G)``, the numbers of the stopped solve, in the reader's language."""
    rel = res.gap / abs(res.primal_objective) if res.primal_objective else float("inf")
    return (f"increase {param('max_iter')} (now {max_iter}) or {param('tol')} "
            f"(now {tol:g}; the relative duality gap reached {rel:.2g})")


def _hint(res, X, kernel: str, tol: float, max_iter: int) -> str:
    """The advice of a fit that did not converge, fitted to its likely
    cause (in the reader's language: :mod:`polyrank._text`): a
    precomputed Gram matrix -> compute it from standardised features;
    sparse X standardised without centring -> MaxAbsScaler; dense X that
    is standardised already -> max_iter or tol with the numbers; other X ->
    standardise it."""
    if res.status not in (STATUS_MAX_ITER, STATUS_STALLED):
        return ""
    if res.status == STATUS_STALLED:
        knobs = f"increase {param('tol')}"
    elif kernel == "precomputed" or _looks_standardised(X):
        knobs = _knobs(res, tol, max_iter)
    else:
        knobs = f"increase {param('max_iter')} or {param('tol')}"
    if kernel == "precomputed":
        return f"{knobs}, or {gram_advice()}"
    if not _looks_standardised(X):
        return f"{knobs}, or {scale_advice('LabelRanker', sparse=sp.issparse(X))}"
    if sp.issparse(X):
        norms = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        return (f"X is sparse and standardised without centring (squared row norms up to "
                f"{norms.max():,.0f}, median {np.median(norms):,.0f}), where the dual solver "
                f"crawls: {sparse_scale_advice('LabelRanker')}, or {knobs}")
    return f"X looks standardised already: {knobs}"


def _decision_map(threshold: bool, target_type: str, k: int) -> np.ndarray:
    """M with decision values = solver scores @ M: the threshold label's score
    subtracted (``threshold``), f_1 - f_0 for two classes, else the scores."""
    if threshold:
        return np.vstack([np.eye(k), -np.ones((1, k))])
    if target_type == BINARY:
        return np.array([[-1.0], [1.0]])
    return np.eye(k)


class LabelRanker(SparseIfLinearMixin, LabelColumnsMixin, ClassifierMixin, FitReprMixin,
                  BaseEstimator):
    """Max-margin label ranking from preference graphs (SOPOPO, JMLR 2006).

    Learns f_r(x) = w_r . phi(x), r = 1..k, by minimising Eq. 6 of
    ``sopopo-label-ranking.txt``::

        1/2 sum_r ||w_r||^2 + C sum_i w_i sum_{E_j in E(y^i)} sigma_j xi^i_j
        s.t. f_r(x_i) - f_s(x_i) >= y^i_r - y^i_s - xi^i_j  for (r, s) in E_j,

    i.e. the hinge loss of each complete bipartite piece of the feedback
    graph (Eq. 3), with the batch soft-projection procedure of Fig. 5
    (w_i are the sample weights, 1 by default).  The paper's model has no
    bias term; ``bias > 0`` (the default 1.0) adds one through a constant
    feature.

    The defaults (all pairs, sigma_j = 1/d, bias 1, C = 0.3, shrinking)
    come from ``polyrank bench label-ranker-defaults``: after a
    StandardScaler they give a lower test label ranking loss than
    one-vs-rest LinearSVC on yeast and on two make_multilabel_classification
    sets, and the fit converges in about a hundred passes (93 on yeast).
    The paper's setting is ``normalize=False, bias=0`` (and
    ``shrinking=False`` for its exact procedure).

    What ``y`` means (attribute ``target_type_``):

    * **class labels** ``(m,)``: the target ranking of example i is the
      one-hot vector of its class, the multiclass special case of Sec. 2
      (``decomposition="top_vs_rest"`` is Crammer-Singer's multiclass SVM,
      ``"all_pairs"`` Weston-Watkins'); ``predict`` returns class labels
      (the class of largest score), ``score`` is the accuracy.
    * **a label indicator matrix** ``(m, k)`` with entries all in {0, 1}
      (what :class:`~sklearn.preprocessing.MultiLabelBinarizer` gives) or
      all in {-1, +1}: label sets.  With ``threshold_label=True`` (default)
      the ranking gets a virtual threshold label v between the relevant
      and the irrelevant labels (y_v = 1/2 on the 0/1 scale), as in
      calibrated label ranking (Brinker, Fuernkranz and Huellermeier,
      2006): every example adds the pair pieces (r, v) for its relevant
      labels r and (v, s) for its irrelevant labels s to its decomposition
      (so rows with no or all labels relevant are used too).  A label is
      predicted relevant when it scores above the threshold label:
      ``decision_function`` is f_r(x) - f_v(x) (same ranking of the labels
      as f_r) and ``predict`` is ``decision_function > 0``, in the coding
      and dtype of ``y``.  On yeast (bias=1, all pairs, normalize=False,
      notebook 01) this
      gives a test Hamming loss of 0.1974 and micro-F1 0.651 at C=0.03
      (0.2014 and 0.647 at C=0.1), against at best 0.1983 and 0.636 for
      one-vs-rest LinearSVC over C in {0.01, 0.03, 0.1, 0.3, 1}, with a
      label ranking loss no worse than that of the model without threshold
      label (0.1692 vs 0.1701).
      ``threshold_label=False`` fits the paper's model on the 0/1 rankings
      unchanged (Elisseeff-Weston's ranking SVM with ``"all_pairs"``) and
      treats them as the rankings below.
    * **target rankings** ``(m, k)`` of any other real values: rows y^i,
      the paper's γ^i (Sec. 2).  ``decision_function`` returns the label scores f_r(x);
      ``predict`` returns, per row, the label indices from the most to the
      least preferred.

    Parameters
    ----------
    C : float or None, default=None
        Slack penalty (> 0).  With the default ``normalize=True`` each
        example's loss is the average over its pieces, so C does not grow
        with the number of pieces per example.  None picks it per kernel
        (``polyrank.sopopo.estimator.DEFAULT_C``; the value used is the
        fitted attribute ``C_``): 0.3 for the linear kernel and a
        precomputed Gram matrix, 1.0 for rbf and poly, where 0.3 lost 3
        points of accuracy to one-vs-rest SVC on standardised red-wine
        grades (0.6079 against 0.6323; 0.6266 at C = 1) and 1 point of
        label ranking loss on standardised yeast (0.1794 against 0.1694;
        0.1675 at C = 1).  (The default was 0.3 for every kernel before
        C=None.)
    decomposition : str or callable, default="all_pairs"
        ``"all_pairs"``, ``"adjacent_layers"``, ``"top_vs_rest"`` or a
        callable ``y -> [(A, B[, sigma]), ...]`` on one row y of the
        targets (Sec. 2, Fig. 2).
    normalize : bool, default=True
        sigma_j = 1/d (average loss over an example's d pieces, Sec. 2)
        instead of 1 (the paper's experiments; ``normalize=False``).
    kernel : {"linear", "rbf", "poly", "precomputed"}, default="linear"
        Mercer kernel; with ``"precomputed"`` pass Gram matrices as X
        ((m, m) in ``fit``, symmetric positive semidefinite;
        (m_test, m) in ``decision_function``).
    gamma : float or None, default=None
        Width of the rbf / poly kernel (None means 1 / n_features).  Not the
        target ranking: targets are the rows of ``y``.
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
    random_state : int, RandomState, Generator or None, default=None
        Seed of the piece order (a RandomState instance draws the seed).
    bias : float or None, default=None
        If > 0, append a constant feature of this value to every instance
        (LIBLINEAR's ``-B``), so that each label gets an intercept
        ``intercept_[r] = bias * w_r,bias`` that is regularised like the
        other weights.  0 keeps the paper's model without bias.  None means
        1.0, or 0 with ``kernel="precomputed"`` (where a value > 0 is not
        allowed: add the constant to the Gram matrix instead).
    threshold_label : bool, default=True
        Add the virtual threshold label for indicator targets (see above);
        no effect on other targets.
    verbose : int, default=0
        ``v > 0`` prints one line (primal, dual, gap, time) every ``v``
        passes (with ``shrinking``, every pass then evaluates the objectives
        for the log, which slows the fit but does not change it).
    shrinking : bool, default=True
        Keep an active set of labels and pieces and evaluate the exact
        duality gap only at checks (LIBLINEAR-style shrinking; see
        :func:`~polyrank.sopopo.sopopo_batch`).  The stopping test is the
        same full duality gap either way; False runs the paper's plain
        procedure of Fig. 5 (objectives after every pass).
    warm_start : bool, default=False
        If True, a ``fit`` on the same data (X, y, weights) with the same
        pieces (``decomposition``, ``normalize``) starts from the previous
        fit's dual variables, scaled piece by piece by C_p,new / C_p,old:
        the constraints of Eq. 38, sum(alpha^p) = sum(beta^p) <= C_p, hold
        again for the new C (LIBLINEAR's warm start across C, Chu, Lin et
        al., KDD 2015); with ``shrinking=True`` its shrinking threshold
        carries over too (from :data:`WARM_SHRINK_UP` times the previous
        final one, not from the largest preference gap: the stopping rule,
        the full duality gap, is the same).  ``result_.warm_start`` says
        "used" or "cold: <reason>".  See
        :func:`polyrank.sopopo.label_ranking_path`.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,) or (k,)
        The class labels (1-d ``y``) or the label indices ``arange(k)``.
    target_type_ : str
        ``"binary"``, ``"multiclass"``, ``"multilabel-indicator"`` or
        ``"label-ranking"`` (see above).
    label_values_ : tuple
        ``(negative, positive)`` coding of an indicator ``y``: (-1, 1) if it
        contains a -1, else (0, 1).
    C_ : float
        The slack penalty used: ``C``, or for ``C=None`` the kernel's
        ``polyrank.sopopo.estimator.DEFAULT_C`` (0.3 linear and precomputed,
        1.0 rbf and poly).
    coef_ : ndarray, shape (k, n_features) or (1, n_features)
        Linear kernel: the weights of ``decision_function``, without the bias
        weight: w_r for classes and rankings, w_r - w_v with the threshold
        label, w_1 - w_0 (one row) for two classes.
    intercept_ : ndarray, shape (k,) or (1,)
        The matching intercepts (zeros when ``bias=0``; linear kernel only).
    dual_coef_ : ndarray, shape (m, k) or (m, 1)
        Kernel expansion of ``decision_function``: ``K(X, X_fit_) @
        dual_coef_`` (non-linear kernels, or ``order="greedy"``).
    result_ : SolverResult
        The solver's result with its trace (primal, dual, gap per pass);
        ``result_.x`` holds the raw w_r (or their coefficients), the
        threshold label last.
    n_iter_ : int
        Number of passes.
    n_labels_ : int
        k, the number of labels (classes) of the targets.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X has string feature names.

    See Also
    --------
    polyrank.sopopo.sopopo_batch : the solver.
    polyrank.sopopo.soft_project : one soft projection (Fig. 3).
    polyrank.M3LClassifier : multi-label classification with a label prior.

    Notes
    -----
    **Defaults, measured** (``tests/core/test_defaults_matrix.py``: every kernel,
    raw X and after a StandardScaler, ``random_state=0``).  The tolerances
    the matrix holds the defaults to: test label ranking loss within 0.01
    of the peer's on yeast, accuracy within 0.01 of the peer's on red-wine
    grades.  Peers with their defaults: one-vs-rest ``LinearSVC()``
    (linear) and one-vs-rest ``SVC(kernel, gamma=1 / n_features,
    coef0=1)`` (rbf, poly).  Ours / peer, raw and standardised X: yeast
    (label ranking loss) linear 0.1756 / 0.1819 and 0.1796 / 0.1855, rbf
    0.1847 / 0.2077 and 0.1675 / 0.1694, poly 0.1849 / 0.2081 and
    0.1641 / 0.1971; red-wine grades (accuracy, standardised) linear
    0.5929 / 0.5797, rbf 0.6266 / 0.6323, poly 0.6379 / 0.6266; binary
    phishing (accuracy, linear, peer ``LinearSVC()``) 0.9457 / 0.9433 and
    0.9430 / 0.9442, 10,000 rows of w8a 0.9847 / 0.9850 and 0.9827 /
    0.9817; ``kernel="precomputed"`` on the linear Gram matrix plus 1 (the
    constant that stands for ``bias``, see ``bias``; peer one-vs-rest
    ``SVC(kernel="precomputed")`` on the same matrix): yeast 0.1756 /
    0.1992 and 0.1797 / 0.2016, red-wine grades (standardised) 0.5929 /
    0.5760.  Raw red wine gives the
    :class:`~polyrank.exceptions.FeatureScaleWarning` before the solve, for
    every kernel but "precomputed", whose Gram matrix of raw red wine
    stops at ``max_iter`` (accuracy 0.5553 against 0.5741, over a minute):
    its ConvergenceWarning says to compute the Gram matrix from
    standardised features, which converges (0.5929 against 0.5760).  Not
    converged at the default ``max_iter`` either, with a warning whose
    advice converges when followed: standardised phishing (relative gap
    2.2e-3 after 1,000 passes; 1,153 passes reach tol; accuracy 0.9430
    against 0.9442) and standardised w8a (relative gap 3.9e-2: the sparse
    scaling blows rare features up to squared row norms of 64,373, median
    141; ``LinearSVC()`` does not converge there either), both sparse X
    standardised without centring, where the warning names
    ``make_pipeline(MaxAbsScaler(), LabelRanker())``: phishing 0.9445, w8a
    0.9847 (198 passes).  The loss is the hinge (L1) loss, whose dual is
    not strongly convex: ``LinearSVC(loss="hinge", C=0.6)``
    (our C = 0.3 with two labels) takes 40,892 passes on standardised
    phishing, against 8 for the default squared hinge.

    ``max_iter`` counts passes over the active pieces (LIBLINEAR's
    iterations): phishing's 1,153 passes are about 100 passes' work over
    all pieces.  A fit stopped at ``max_iter`` warns with advice that fits
    the likely cause: a precomputed Gram matrix -> compute it from
    standardised features; sparse X standardised without centring ->
    ``MaxAbsScaler``; dense X standardised already -> ``max_iter`` or
    ``tol`` with the relative gap reached; other X -> standardise it (on the
    command line: its options).

    Examples
    --------
    Target rankings (the paper's setting):

    >>> import numpy as np
    >>> from polyrank import LabelRanker
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> Y = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 2.0], [1.0, 2.0, 0.0]])
    >>> model = LabelRanker(C=10.0, tol=1e-6, random_state=0).fit(X, Y)
    >>> model.predict(X).tolist()
    [[0, 1, 2], [2, 1, 0], [1, 0, 2]]

    Label sets (an indicator matrix) and classes:

    >>> Y = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0]])
    >>> LabelRanker(C=10.0, tol=1e-6, random_state=0).fit(X, Y).predict(X).tolist()
    [[1, 0, 0], [0, 1, 1], [1, 1, 0]]
    >>> LabelRanker(C=10.0, random_state=0).fit(X, ["a", "b", "c"]).predict(X).tolist()
    ['a', 'b', 'c']
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, np.inf, closed="neither"), None],
        "decomposition": [StrOptions(set(DECOMPOSITIONS)), callable],
        "normalize": ["boolean"],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [Interval(Real, 0, np.inf, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -np.inf, np.inf, closed="neither")],
        "order": [StrOptions(set(ORDERS))],
        "tol": [Interval(Real, 0, np.inf, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "bias": [Interval(Real, 0, np.inf, closed="left"), None],
        "threshold_label": ["boolean"],
        "verbose": ["verbose"],
        "shrinking": ["boolean"],
        "warm_start": ["boolean"],
    }

    def __init__(self, C=None, decomposition="all_pairs", normalize=True,
                 kernel="linear", gamma=None, degree=3, coef0=1.0,
                 order="shuffle", tol=1e-3, max_iter=1000, random_state=None,
                 bias=None, threshold_label=True, verbose=0, shrinking=True,
                 warm_start=False):
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
        self.threshold_label = threshold_label
        self.verbose = verbose
        self.shrinking = shrinking
        self.warm_start = warm_start

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.target_tags.multi_output = True
        tags.classifier_tags.multi_label = True
        return tags

    #: the parameters prediction reads: their values as fitted are kept
    #: (:func:`polyrank._sklearn.remember_fitted_params`)
    _predict_params = ("kernel", "gamma", "degree", "coef0", "bias")

    def _bias(self) -> float:
        """The bias feature's value: ``bias``, or for None 1.0 (0 with a
        precomputed kernel)."""
        bias = fitted_param(self, "bias")
        if bias is None:
            return 0.0 if fitted_param(self, "kernel") == "precomputed" else 1.0
        return float(bias)

    def _C(self) -> float:
        """The slack penalty used: ``C``, or ``DEFAULT_C`` of the kernel."""
        return float(DEFAULT_C[self.kernel] if self.C is None else self.C)

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit the ranker.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (m, n_features)
            Instances (the Gram matrix (m, m) for ``kernel="precomputed"``).
            Sparse input (used as CSR) with the linear kernel only.
        y : array_like, shape (m,) or (m, k)
            Class labels, a label indicator matrix or target rankings y^i
            (see the class docstring).
        sample_weight : array_like, shape (m,), optional
            Per-example weights w_i >= 0: every piece of example i gets
            C_i = C w_i sigma_j (integer weights = repeated examples; 0
            removes an example).
        callback : callable, optional
            ``callback(info: IterInfo)`` after each pass (with
            ``shrinking=True`` such a pass evaluates the objectives for it,
            without changing the fit) (e.g. a
            :class:`polyrank_widgets.GapMonitor`); raising StopIteration stops.
        callback_every : int, default=1
            Call ``callback`` only on the passes divisible by this.

        Returns
        -------
        self : LabelRanker
            The fitted label ranker.

        Raises
        ------
        ValueError
            Bad parameters, NaN/inf or empty X, fewer than 2 classes (with
            positive weight), rows of target rankings without preference, a
            precomputed X that is not symmetric positive semidefinite,
            ``bias > 0`` with ``kernel="precomputed"``, negative weights.
        TypeError
            Sparse X with a kernel other than "linear"; non-numeric X.

        Warns
        -----
        polyrank.exceptions.FeatureScaleWarning
            Before the solve, if X does not look standardised (feature
            standard deviations spanning more than 1e3, or rows dominated by
            their common mean): the dual ascent crawls on such data (raw
            MULAN emotions: test ranking loss 0.396 after 1,000 passes,
            unconverged; 0.162 after 140 passes in the pipeline) and the
            penalty weighs features by their units.  The fix:
            ``make_pipeline(StandardScaler(), LabelRanker())``.  Not checked
            for ``kernel="precomputed"``.
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` passes end before the duality-gap tolerance is
            met, the solve stalls at rounding level, or an objective becomes
            non-finite or the gap negative (then scale X or lower C).
        polyrank.exceptions.TrivialModelWarning
            If every weight is 0, or (linear and precomputed kernels) every
            training row of positive weight gets the same prediction (class,
            label set or label order) although the targets hold several.
        """
        if self.bias is not None and self.bias > 0 and self.kernel == "precomputed":
            raise ValueError("bias: must be 0 with kernel='precomputed' (add the "
                             "constant to the Gram matrix instead)")
        self._check_sparse(X)
        X, y = validate_X(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             multi_output=True)
        coding, T = encode_targets(y, rankings=True, owner="LabelRanker")
        m, k = T.shape
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
            if coding.target_type in (BINARY, MULTICLASS):
                present = coding.classes[T[sample_weight > 0].any(axis=0)]
                if present.size < 2:
                    raise ValueError(f"sample_weight: only the class {present.tolist()} has "
                                     "positive weight; LabelRanker needs at least 2 classes")
        if self.kernel == "precomputed":
            check_gram(X)
        warn_if_unscaled(self, X, self.kernel)
        threshold = self.threshold_label and coding.target_type == INDICATOR
        Y = np.hstack([T, np.full((m, 1), THRESHOLD_TARGET)]) if threshold else T
        Xa = writeable(self._augment(X))
        params = ({} if self.kernel == "precomputed" else
                  check_kernel_params(self.kernel, self.gamma, self.degree, self.coef0,
                                      Xa.shape[1]))
        key = fingerprint(X, Y, sample_weight) + (
            self.decomposition if isinstance(self.decomposition, str)
            else f"callable {id(self.decomposition)}", bool(self.normalize), bool(threshold))
        res = self._solve(Xa, Y, self._pieces(key, Y, sample_weight, threshold), params,
                          key, callback, callback_every)
        warn_if_not_converged(self, res, _hint(res, X, self.kernel, float(self.tol),
                                                int(self.max_iter)))
        M = _decision_map(threshold, coding.target_type, k)
        self._keep_coding(coding)
        self.C_ = self._C()
        self.result_ = res
        self.n_iter_ = res.nit
        self.n_labels_ = k
        forget_fitted(self, ("coef_", "intercept_", "dual_coef_", "X_fit_"))
        if res.coef_form == "dual":
            self.dual_coef_ = res.x @ M
            if self.kernel in ("rbf", "poly"):
                self.X_fit_ = Xa
        if self.kernel == "linear":
            W = res.x if res.coef_form == "primal" else np.asarray(Xa.T @ res.x).T
            W = M.T @ W
            n = X.shape[1]
            self.coef_ = W[:, :n]
            bias = self._bias()
            self.intercept_ = W[:, n] * bias if bias > 0 else np.zeros(W.shape[0])
        if res.success:     # an unfinished solve has its ConvergenceWarning
            self._warn_if_trivial(X, y, sample_weight)
        return self

    def _pieces(self, key, Y, sample_weight, threshold):
        """The pieces of Y (:func:`~polyrank.sopopo.build_pieces`); a warm fit on
        the same data and decomposition reuses the previous fit's, their
        bounds C_p = C sigma_p rescaled to this C (building them is a Python
        loop over the examples, up to half of a warm fit)."""
        C = self._C()
        state = state_of(self)
        if self.warm_start and state is not None and state.key == key:
            old = state.point["pieces"]
            return dataclasses.replace(old, C=old.C * (C / state.penalty))
        return build_pieces(Y, self.decomposition, self.normalize, C, sample_weight,
                            threshold_label=threshold)

    def _solve(self, Xa, Y, pieces, params, key, callback, callback_every):
        """The solver's result, warm-started from the previous fit's dual
        variables when ``warm_start`` allows (``result_.warm_start``)."""
        state, how = previous(self, key)
        init = eps = None
        if state is not None:
            init, eps, how = _warm_init(state, pieces, how, self._bias())
        res = solve(Xa, Y, pieces, kernel=self.kernel, kernel_params=params,
                    order=self.order, tol=float(self.tol), atol=0.0,
                    max_iter=int(self.max_iter),
                    callback=log_callback(callback, self.verbose, "LabelRanker"),
                    callback_every=callback_every, random_state=solver_seed(self.random_state),
                    shrinking=bool(self.shrinking), init=init, shrink_eps=eps)
        res.warm_start = how
        keep(self, key, self._C(), eps_shrink=res.get("eps_shrink"),
             W=res.x if res.coef_form == "primal" else None, bias=self._bias(), **res.dual)
        return res

    def _warn_if_trivial(self, X, y, sample_weight) -> None:
        """TrivialModelWarning when every weight is 0 or (linear and
        precomputed kernels, where the training predictions cost one
        product) every training row of positive weight gets the same
        prediction although its targets differ."""
        coef = self.coef_ if self.kernel == "linear" else self.dual_coef_
        pred = target = None
        if self.kernel in ("linear", "precomputed"):
            keep = slice(None) if sample_weight is None else sample_weight > 0
            pred = self._coding.predict(self._decision(X))[keep]
            target = np.asarray(y)[keep]
            if self.target_type_ == RANKING:
                # rankings: the same label order for every row although the
                # targets order the labels in several ways
                target = np.argsort(-target, axis=1, kind="stable")
        warn_if_trivial(self, coef=coef, train_pred=pred, y=target,
                        remedy=f"raise {param('C')} (now {self.C_:g})"
                               f"{kernel_width_hint(self, X)}, "
                               f"or {scale_advice('LabelRanker')}")

    def decision_function(self, X) -> np.ndarray:
        """Scores for every label (larger means more relevant).

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (m_test, n_features)
            (m_test, m_train) kernel values for ``kernel="precomputed"``.

        Returns
        -------
        ndarray, shape (m_test, k), or (m_test,) for two classes
            f_r(x) for classes and rankings; f_r(x) - f_v(x) (relevant where
            > 0) with the threshold label; f_1(x) - f_0(x) for two classes.

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``, or NaN/inf.
        TypeError
            Sparse X with a non-linear kernel.
        """
        check_is_fitted(self)
        self._check_sparse(X)
        X = validate_X(self, X, reset=False, accept_sparse="csr", dtype=np.float64)
        return self._decision(X)

    def _decision(self, X) -> np.ndarray:
        """:meth:`decision_function` on checked X."""
        kernel = fitted_param(self, "kernel")
        if kernel == "linear":
            D = np.asarray(X @ self.coef_.T) + self.intercept_
        elif kernel == "precomputed":
            D = X @ self.dual_coef_
        else:
            D = self._kernel_decision(X)
        return D.ravel() if self.target_type_ == BINARY else D

    def predict(self, X) -> np.ndarray:
        """Predicted classes, label sets or label rankings, read from
        :meth:`decision_function`.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (m_test, n_features)

        Returns
        -------
        ndarray, shape (m_test,) or (m_test, k)
            Class labels (1-d ``y``: the class of largest score); an
            indicator matrix in the coding and dtype of ``y``
            (``decision_function > 0``); or, for target rankings, the label
            indices of each row from the most to the least preferred.
        """
        decision = self.decision_function(X)
        return self._coding.predict(decision)

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy for class labels; for indicator matrices and rankings,
        the label ranking average precision (scikit-learn's
        :func:`~sklearn.metrics.label_ranking_average_precision_score`) of the
        scores against the relevant labels (entries equal to the positive
        value of an indicator ``y``; entries > 0 of target rankings).

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (m_test, n_features)
        y : array_like, shape (m_test,) or (m_test, k)
            In the form given to ``fit``.
        sample_weight : array_like, shape (m_test,), optional

        Returns
        -------
        float in [0, 1]
            The accuracy, or the label ranking average precision.
        """
        check_is_fitted(self)
        if self.target_type_ in (BINARY, MULTICLASS):
            return super().score(X, y, sample_weight=sample_weight)
        return float(label_ranking_average_precision_score(
            self._coding.relevance(y), self.decision_function(X),
            sample_weight=sample_weight))


def label_ranking_path(X, y, *, Cs=None, n_Cs: int = N_GRID, sample_weight=None,
                       warm: bool = True, **params) -> PathResult:
    """LabelRanker fitted along a grid of C, each fit warm-started from the last.

    In the manner of :func:`sklearn.linear_model.lasso_path`: the grid is
    solved from the smallest C (the strongest regularisation) up, the batch
    SOPOPO solver (Fig. 5 of ``sopopo-label-ranking.txt``) starting from the
    previous piece variables scaled by C_new / C_old, which keeps the
    constraints of the reduced dual (Eq. 38), sum(alpha^p) = sum(beta^p) <=
    C sigma_p, feasible (LIBLINEAR's warm start across C, Chu, Lin et al.,
    KDD 2015).

    Parameters
    ----------
    X : {array_like, sparse matrix}, shape (m, n_features)
    y : array_like, shape (m, k) or (m,)
        As :meth:`LabelRanker.fit`.
    Cs : array_like of shape (n_grid,), optional
        The grid of C (> 0, finite; solved in increasing order).  Default:
        ``n_Cs`` values log-spaced over two decades around the C the
        parameters resolve to (``LabelRanker(**params).C`` or its kernel's
        ``DEFAULT_C``).
    n_Cs : int, default=20
        Points of the default grid.
    sample_weight : array_like, shape (m,), optional
    warm : bool, default=True
        False fits every point cold.
    **params
        Other parameters of :class:`LabelRanker` (not ``C`` nor
        ``warm_start``).

    Returns
    -------
    PathResult
        ``coefs``: ``coef_`` (k, n_features) per C for the linear kernel,
        else ``dual_coef_``; ``min_C`` = 0.0: with the squared-L2
        regulariser the condition for W = 0 does not involve C, so there is
        no analogue of :func:`sklearn.svm.l1_min_c`.

    Raises
    ------
    ValueError
        ``Cs`` empty, not 1-d, with NaN/inf or values <= 0 (the message
        names ``Cs``); as :meth:`LabelRanker.fit`.
    TypeError
        ``C`` or ``warm_start`` in ``params``, or an unknown parameter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
    >>> Y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> path = label_ranking_path(X, Y, Cs=[0.1, 1.0])
    >>> path.warm_start
    ['cold: no previous fit', 'used']
    """
    reject_grid_params(params, ("C",))
    est = LabelRanker(**params)
    return estimator_path(est, X, y, Cs, n=n_Cs, param="C", center=est._C(), warm=warm,
                          fit_params={"sample_weight": sample_weight})
