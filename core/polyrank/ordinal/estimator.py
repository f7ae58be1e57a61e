"""scikit-learn estimators for ordinal ranking: :class:`OrdinalMarginRanker`
(support vector ordinal regression, Chu & Keerthi 2007, by default; the
minimum-margin maximisation of ``row-column-generation-ordinal.txt`` with
``formulation="paper"``) and :class:`PRank` (the paper's baseline, Crammer &
Singer 2001).

Both are thin layers (``DESIGN.md``): declarative ``_parameter_constraints``,
one :func:`~sklearn.utils.validation.validate_data` at the boundary, ordered
labels as users have them (wine quality 3..8, an ordered pandas Categorical,
or any labels with their order given as ``classes=``) mapped to the solver's
0..l and back.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions

from .._repr import FitReprMixin
from .._sklearn import (
    fit_context,
    fitted_param,
    forget_fitted,
    log_callback,
    raise_numerical,
    solver_seed,
    warn_if_not_converged,
    warn_if_trivial,
    warn_if_unscaled,
)
from .._warm import dual_scale, fingerprint, keep, previous
from ..kernels import check_kernel_params, kernel_matrix
from ..result import STATUS_NUMERICAL
from ..validation import validate_X
from ._base import _KERNELS, _fit_data, _fit_gamma, _OrdinalLabels, _predicted
from .generation import (
    MARGINS,
    METHODS,
    SUBPROBLEM_SOLVERS,
    predict_labels,
    solve_ordinal_trusted,
)
from .prank import prank_decision, prank_trusted
from .svor import (
    PAPER_C,
    SVOR_LINEAR_C,
    SVOR_LOSSES,
    THRESHOLD_LOSSES,
    SvorOptions,
    solve_svor_trusted,
    thresholds_trusted,
)

__all__ = ["OrdinalMarginRanker", "PRank", "PRANK_RMS_RANGE"]


#: :class:`OrdinalMarginRanker`'s default c for SVOR with the rbf and poly
#: kernels (``c=None``): the binary problems of scikit-learn's ``SVC(C=1.0)``
#: (LIBLINEAR's C = c / 2).  On standardised red wine (a stratified third held
#: out) the rbf kernel's test MAE is 0.3977 at c = 2, that of ``SVC(rbf)``,
#: against 0.4221 at c = 10 (the paper's experiments, the default before) and
#: 0.4184 at c = 0.5 (``tests/core/test_defaults_matrix.py``)
SVOR_KERNEL_C = 2.0


#: the parameters of the paper's formulations and their defaults: with
#: ``formulation="svor"`` each must keep its default
_PAPER_ONLY = {"margin": "soft", "nonneg": False, "method": "auto", "representation": "auto",
               "add_per_iter": "auto", "subproblem_solver": "auto"}


class OrdinalMarginRanker(_OrdinalLabels, FitReprMixin, BaseEstimator):
    """Ordinal ranking with a large margin: support vector ordinal regression
    (the default) or the minimum-margin maximisation of Izunaga et al. 2015.

    Learns a score f(x) = w . phi(x) = sum_r u_r kappa(x^r, x) and
    thresholds b_1 <= ... <= b_l; an object gets the label max {k | f(x) >
    b_k} (b_0 = -inf, Sec. 10 of ``row-column-generation-ordinal.txt``).

    ``formulation="svor"`` (the default) minimises SVOR with implicit
    constraints (SVORIM, W. Chu and S. S. Keerthi, "Support vector ordinal
    regression", Neural Computation 19(3), 2007, Sec. 3), with labels 0..l,
    s_ij = +1 if l_i >= j else -1 (threshold j between grades j - 1 and
    j) and the squared hinge L(t) = max(0, t)^2
    (``loss="squared_hinge"``; ``"hinge"`` is max(0, t), Chu & Keerthi's
    own)::

        ||w||^2 + ||b||^2 + c sum_i v_i sum_{j=1..l} L(1 - s_ij (f(x_i) - b_j))

    a unit margin and a slack for every (object, threshold) pair on the
    wrong side, the SVM form of the all-threshold loss that mord's
    ``LogisticAT`` minimises with the logistic loss; the thresholds are
    regularised like a bias feature (as LIBLINEAR's ``-B 1``) and come out
    ordered at the optimum (Chu & Keerthi's Theorem; swapping two thresholds
    leaves ||b||^2 unchanged).  It is solved by trust-region Newton over
    (w, b) for the linear kernel and the squared hinge (O(nnz(X) + n l) per
    Hessian-vector product, a handful of Newton steps), by dual coordinate
    descent with a kernel or the hinge (:func:`polyrank.ordinal.solve_svor`).
    With overlapping grades it does not collapse, unlike the minimum-margin
    problems: those pay a slack only for the two thresholds around an
    object's own grade, and on overlapping grades their optimum can be
    w = 0 with every object predicted as one grade.

    Then the thresholds used by :meth:`predict` are chosen for the loss the
    user scores (``threshold_rule="mae"``: the mean absolute error of the
    training predictions, minimised exactly over all ordered thresholds by
    dynamic programming over the sorted training scores,
    :func:`polyrank.ordinal.loss_thresholds`); the objective's own b stays
    in ``result_.thresholds``.

    ``formulation="paper"`` minimises the paper's problems: (H~) of Sec. 5
    (``margin="hard"``)::

        lambda' K~ lambda  s.t.  p_{l_i} + 1 <= (k~^i)' lambda <= p_{l_i+1} - 1,

    or (S~) of Sec. 8 (``margin="soft"``), which adds c 1'(xi_- + xi_+) and
    relaxes the constraints by the slacks; with ``kernel="linear"`` these
    are (H-bar) and (S-bar) (Sec. 3.2, 6.2), or (H) and (S) for w itself
    (Sec. 3.1, 6.1; the same optimum, Lemma 3.1); ``nonneg=True`` adds
    lambda >= 0 (H~+, Appendix A).  ``method="generation"`` runs the paper's
    row (and column) generation (Sec. 4-8, 10), ``method="full"`` solves the
    whole QP with Clarabel.  Its thresholds are the problem's p
    (``threshold_rule="auto"``).

    Labels are ordered classes as users have them: numbers (wine quality
    3..8; their numeric order), an ordered pandas Categorical (its
    categories' order), or any labels with the order given by ``classes``.

    Parameters
    ----------
    formulation : {"svor", "paper"}, default="svor"
        "svor": SVORIM (above; ``margin``, ``nonneg``, ``method``,
        ``representation``, ``add_per_iter`` and ``subproblem_solver`` must
        keep their defaults); "paper": the minimum-margin problems of
        Izunaga et al. selected by ``margin``, ``representation``,
        ``nonneg`` (``loss`` must keep its default).
    c : float or None, default=None
        Slack penalty c > 0, in the units of the paper's (S) (objectives
        without a factor 1/2; LIBLINEAR's C = c / 2).  None:
        :data:`~polyrank.ordinal.SVOR_LINEAR_C` (0.02) for ``"svor"`` with
        the linear kernel, 2 for ``"svor"`` with rbf or poly
        (``polyrank.ordinal.estimator.SVOR_KERNEL_C``: scikit-learn's
        ``SVC(C=1.0)``; 10 before, which cost 0.024 of test MAE on
        standardised red wine with rbf, see Notes), 10 for the paper's
        formulations (its experiments).  0.02 was
        chosen by 3-fold CV test MAE on standardised red wine with 0, 89 and
        389 seeded random extra features (d = 11, 100, 400), 12 splits
        each, against mord's ``LogisticAT()``: on average at most 0.002
        above it at every d, where c = 10 is 0.008 above it at d = 400
        (the thresholds of ``threshold_rule`` are then fitted to
        over-separated training scores); ``polyrank bench ordinal-wine``
        prints both.
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
        L of the SVOR objective.  "hinge" is solved by dual coordinate
        descent also for the linear kernel (many more passes).
    threshold_rule : {"auto", "mae", "mse", "zero_one", "objective"}, default="auto"
        The thresholds :meth:`predict` uses: those minimising the training
        mean absolute error ("mae"), squared error ("mse", both in the
        labels' units when they are numbers, else in positions of
        ``classes_``) or error rate ("zero_one") of the predictions at the
        fitted scores, or the objective's own ("objective").  "auto": "mae"
        for "svor" with the linear kernel, "objective" for "svor" with rbf
        or poly and for "paper".  A kernel model's training scores are
        over-separated, so thresholds fitted to its training loss overfit:
        test MAE with rbf on standardised red wine (8 stratified splits, a
        third held out) 0.4111 with "objective" against 0.4282 with "mae"
        (poly 0.4308 against 0.4355), on MQ2008's grades 0.2578 against
        0.2791 ("mae" was the default for every kernel before).
    margin : {"hard", "soft"}, default="soft"
        (``formulation="paper"``.)
    kernel : {"linear", "rbf", "poly"}, default="linear"
    gamma : float or None, default=None
        rbf: exp(-gamma ||x - y||^2) (the paper's sigma: gamma = 1 / (2
        sigma^2)); poly: (gamma x.y + coef0)^degree.  None: 1 / n_features
        for rbf; 1 / max_i ||x_i||^2 over the training rows for poly, which
        bounds the kernel (gamma x.y in [-1, 1]; in [0, 2^degree] with
        coef0 = 1) however heavy the tails of X (1 / n_features before: on
        standardised red wine the solve then stopped at ``max_iter`` after
        566 s, see Notes).  The gamma used is
        ``result_.kernel_params["gamma"]``.
    degree : int, default=3
    coef0 : float, default=1.0
    nonneg : bool, default=False
        (``formulation="paper"``.) lambda >= 0: monotone contours for
        nondecreasing kernels on nonnegative data (Appendix A, Lemma A.1).
    method : {"auto", "generation", "full"}, default="auto"
        (``formulation="paper"``.) "generation": the paper's row (and
        column) generation; "full": the whole problem at once; "auto":
        "full" for the soft margin in the primal (linear kernel: solved as a
        QP over the objects near the margin, see ``subproblem_solver``;
        generation's W would grow to every margin violator anyway), else
        "generation".
    representation : {"auto", "dual", "primal"}, default="auto"
        (``formulation="paper"``.) "primal" solves (H) / (S) for w by row
        generation (RH / RS; linear kernel only; sub-problems of size
        n_features, not |W|); "dual" the paper's lambda representation
        (RC(H-bar) ...); "auto": "primal" for the linear kernel without
        ``nonneg``, else "dual".
    add_per_iter : int or "auto", default="auto"
        (``formulation="paper"``.) At most this many objects added to W per
        iteration.  "auto": 2 for the hard margin (the paper's choice, Sec.
        10: W stays the few objects on the margin), max(2, ceil(n / 8)) for
        the soft margin, where every object that violates its margin ends in
        W (its slack is positive), so adding 2 per iteration costs ~n/2 QP
        solves (full red wine: 756 sub-problems, 19.5 s, against 10 and
        0.27 s; the same optimum).
    tol : float or None, default=None
        The stopping rule's tolerance: "svor", the relative duality gap
        (P - D) / P (None: 1e-9 with trust-region Newton, 1e-4 with dual
        coordinate descent); "paper", violations up to tol count as
        satisfied (None: 1e-7).
    max_iter : int or None, default=None
        "svor": maximum Newton steps (linear, squared hinge; None: 1000) or
        passes of dual coordinate descent (None: 10000); "paper": maximum QP
        sub-problems (None: 10000).
    classes : array_like or None, default=None
        The labels from lowest to highest, for labels without a numeric
        order (e.g. ``["bad", "fair", "good"]``); every class must occur in
        the training labels.
    verbose : int, default=0
        ``v >= 1``: a log line every v iterations.
    subproblem_solver : {"auto", "dual_cd", "newton", "clarabel"}, default="auto"
        (``formulation="paper"``.) How the sub-problems of the dual
        representation (RC(H-bar), RC(H~), RC(S-bar), RC(S~)) are solved:
        "dual_cd" by warm-started SMO on their dual in numba, "clarabel"
        from scratch by Clarabel; the soft margin primal (S) (linear kernel,
        ``method="full"``) by "newton", a QP over the objects near the
        margin only (found by Newton's method on the smoothed hinge, every
        other object checked against the result: the same optimum, 3-4x
        faster than "clarabel" on red wine); "auto": "dual_cd" for the soft
        margin in the dual, "newton" for it in the primal (m + l <= 300),
        "clarabel" for the hard margin (see
        :func:`polyrank.ordinal.solve_ordinal`).  "newton" with another
        problem raises ValueError.
    warm_start : bool, default=False
        If True, a ``fit`` on the same data (X, y, weights; same
        ``formulation``, ``loss`` and ``kernel``) starts from the previous
        fit's solution: SVOR's dual coordinate descent from its multipliers
        scaled by c_new / c_old (which keeps them in the hinge's box
        [0, c_i / 2]), SVOR's TRON from its (w, b), the paper's row and
        column generation from its final working set (instead of W^0 of
        Sec. 10).  ``result_.warm_start`` says "used" or "cold: <reason>".
        See :func:`polyrank.ordinal.ordinal_path`.

    Attributes
    ----------
    classes_ : ndarray, shape (l + 1,)
        The ordered labels; ``predict`` returns them.
    c_ : float
        The slack penalty of the fit (``c``, or its default).
    thresholds_ : ndarray, shape (l,)
        The thresholds :meth:`predict` uses (between ``classes_[k-1]`` and
        ``classes_[k]``; see ``threshold_rule``).
    coef_ : ndarray, shape (n_features,)
        w (linear kernel only).
    dual_coef_ : ndarray, shape (n_support,)
        The kernel expansion's coefficients of the objects in ``support_``
        (svor: u_r; paper: lambda_j; kernel or dual representation).
    support_ : ndarray of int64, shape (n_support,)
        svor: the objects with a positive multiplier; paper: the final
        working set W.
    support_vectors_ : ndarray, shape (n_support, n_features)
        (Kernel or dual representation.)
    result_ : SolverResult
        From :func:`polyrank.ordinal.solve_svor` or
        :func:`polyrank.ordinal.solve_ordinal` (``result_.thresholds``: the
        objective's thresholds).
    n_iter_ : int
        Newton steps, passes or sub-problems.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        (When X has string column names.)

    See Also
    --------
    polyrank.ordinal.solve_svor, polyrank.ordinal.solve_ordinal : the solvers.
    polyrank.ordinal.loss_thresholds : the thresholds of ``threshold_rule``.
    PRank : the perceptron baseline of Sec. 10.

    Notes
    -----
    **Defaults, measured** (``tests/core/test_defaults_matrix.py``: every kernel,
    raw X and after a StandardScaler, red wine with a stratified third
    held out).  The tolerance the matrix holds the defaults to: test MAE
    within 0.02 of the peer's, mord's ``LogisticAT()`` for the linear
    kernel and ``SVC(kernel, gamma=1 / n_features, coef0=1)`` for rbf and
    poly.  Ours / peer: linear 0.4221 / 0.4071 raw, 0.4015 / 0.3977
    standardised; rbf (standardised) 0.3846 / 0.3977 at the default
    c = 2 and the objective's thresholds (0.3977 with ``"mae"``, 0.4221
    at c = 10, the defaults before); poly (standardised) 0.3977 / 0.3902
    at the default gamma = 1 / max_i ||x_i||^2 (0.0050 here; 31 passes,
    2.3 s; 0.3865 with ``"mae"``), where gamma = 1 / n_features, the
    default before, stopped at ``max_iter`` (10,000 passes, 566 s on a
    loaded 2-core machine) with 0.4240.  Over 8 other stratified splits (a
    third held out) poly averages 0.4308 against 0.4275 for the same peer,
    0.4386 for ``SVC(kernel="poly")`` with its own defaults
    (gamma="scale", coef0=0), 0.4543 for SVC with our gamma; rbf 0.4111.
    Raw red wine with rbf or poly gives the
    :class:`~polyrank.exceptions.FeatureScaleWarning` before the solve.
    MQ2008's relevance grades 0 < 1 < 2 (2,000 stratified training rows of
    Fold 1, its test split; predicting 0 everywhere scores 0.2547, which
    is what ``SVC(rbf)`` predicts), raw and standardised: linear 0.2554 /
    0.2488 and 0.2512 / 0.2533, rbf 0.2495 / 0.2547 and 0.2578 / 0.2547,
    poly 0.2509 / 0.2547 and 0.2582 / 0.2714.

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import OrdinalMarginRanker
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0], [6.0], [7.0]])
    >>> model = OrdinalMarginRanker().fit(X, [3, 3, 4, 4, 5, 5])
    >>> model.predict([[0.5], [3.5], [9.0]]).tolist()
    [3, 4, 5]
    >>> paper = OrdinalMarginRanker(formulation="paper", margin="hard").fit(X, [3, 3, 4, 4, 5, 5])
    >>> np.round(paper.thresholds_, 6).tolist()      # (H): unit margins between layers
    [2.0, 5.0]
    >>> grades = ["poor", "poor", "fair", "fair", "good", "good"]
    >>> OrdinalMarginRanker(classes=["poor", "fair", "good"]).fit(X, grades).predict([[6.5]])
    array(['good'], dtype='<U4')
    """

    _parameter_constraints: dict = {
        "formulation": [StrOptions({"svor", "paper"})],
        "c": [Interval(Real, 0, np.inf, closed="neither"), None],
        "loss": [StrOptions(set(SVOR_LOSSES))],
        "threshold_rule": [StrOptions({"auto", "objective"} | set(THRESHOLD_LOSSES))],
        "margin": [StrOptions(set(MARGINS))],
        "kernel": [StrOptions(set(_KERNELS))],
        "gamma": [Interval(Real, 0, np.inf, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -np.inf, np.inf, closed="neither")],
        "nonneg": ["boolean"],
        "method": [StrOptions(set(METHODS) | {"auto"})],
        "representation": [StrOptions({"auto", "dual", "primal"})],
        "add_per_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "tol": [Interval(Real, 0, np.inf, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "classes": ["array-like", None],
        "verbose": ["verbose"],
        "subproblem_solver": [StrOptions(set(SUBPROBLEM_SOLVERS))],
        "warm_start": ["boolean"],
    }

    def __init__(self, formulation="svor", c=None, loss="squared_hinge",
                 threshold_rule="auto", margin="soft", kernel="linear", gamma=None,
                 degree=3, coef0=1.0, nonneg=False, method="auto", representation="auto",
                 add_per_iter="auto", tol=None, max_iter=None, classes=None, verbose=0,
                 subproblem_solver="auto", warm_start=False):
        self.formulation = formulation
        self.c = c
        self.loss = loss
        self.threshold_rule = threshold_rule
        self.margin = margin
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
        self.classes = classes
        self.verbose = verbose
        self.subproblem_solver = subproblem_solver
        self.warm_start = warm_start

    def _method(self) -> str:
        if self.method != "auto":
            return self.method
        return "full" if self.margin == "soft" and self._representation() == "primal" \
            else "generation"

    def _add_per_iter(self, n: int) -> int:
        if self.add_per_iter != "auto":
            return int(self.add_per_iter)
        return 2 if self.margin == "hard" else max(2, -(-n // 8))

    def _representation(self) -> str:
        if self.representation != "auto":
            return self.representation
        return "primal" if self.kernel == "linear" and not self.nonneg else "dual"

    def _check_formulation(self) -> None:
        """The rules between parameters (their values are checked by
        ``_parameter_constraints``, once): the parameters of the other
        formulation keep their defaults; SVOR's tol (a relative gap) is > 0."""
        if self.formulation == "svor":
            bad = {k: getattr(self, k) for k, v in _PAPER_ONLY.items()
                   if getattr(self, k) != v}
            if bad:
                shown = ", ".join(f"{k}={v!r}" for k, v in bad.items())
                raise ValueError(f"formulation: {shown} select(s) the paper's minimum-margin "
                                 f"problems; pass formulation='paper' with it (the default "
                                 f"formulation='svor' has no such parameter)")
            if self.tol == 0:
                raise ValueError("tol: must be > 0 with formulation='svor' (a relative "
                                 "duality gap), got 0")
        elif self.loss != "squared_hinge":
            raise ValueError(f"loss: {self.loss!r} applies to formulation='svor' only (the "
                             f"paper's problems have their own slacks)")

    def _penalty(self) -> float:
        """The c of the solve: ``c``, or its default for the formulation and
        kernel (see ``c``)."""
        if self.c is not None:
            return float(self.c)
        if self.formulation != "svor":
            return PAPER_C
        return SVOR_LINEAR_C if self.kernel == "linear" else SVOR_KERNEL_C

    def _threshold_rule(self) -> str:
        if self.threshold_rule != "auto":
            return self.threshold_rule
        return "mae" if self.formulation == "svor" and self.kernel == "linear" else "objective"

    def _solve(self, data, callback, callback_every):
        """The solver's result for the checked data (:meth:`_fit_data`),
        warm-started when ``warm_start`` allows (``result_.warm_start``)."""
        key = data.fingerprint + (self.formulation, self.loss, self.kernel)
        state, how = previous(self, key)
        res = self._solve_from(data, callback, callback_every, self._init(state))
        res.warm_start = how
        theta = np.concatenate([res.x, res.thresholds]) if self.formulation == "svor" \
            else None
        before = (state.point["theta"], state.penalty) if state is not None else None
        keep(self, key, self._penalty(), alpha=res.dual, theta=theta, before=before,
             working_set=res.get("working_set"))
        return res

    def _init(self, state) -> dict:
        """The solver's warm start from ``state`` ({} for a cold one): SVOR's
        multipliers scaled by c_new / c_old (feasible in the hinge's box
        [0, c_i / 2]; the squared hinge's are only >= 0) and (TRON) its
        (w, b), extrapolated along the path (:func:`_predicted`); the
        paper's working set of the previous solve."""
        if state is None:
            return {}
        if self.formulation == "paper":
            return {"working_set": state.point["working_set"]}
        scale = dual_scale(self._penalty(), state.penalty)
        return {"init": {"alpha": state.point["alpha"] * scale,
                         "theta": _predicted(state, self._penalty())}}

    def _solve_from(self, data, callback, callback_every, init):
        """The solver's result for the checked data (``fit`` validated it:
        the drivers' trusted paths, validate once), from ``init``
        (:meth:`_init`)."""
        X, codes, sample_weight = data.X, data.codes, data.sample_weight
        tol, max_iter = self.tol, self.max_iter
        if self.formulation == "paper":
            tol = 1e-7 if tol is None else tol
            max_iter = 10000 if max_iter is None else max_iter
        log = log_callback(callback, self.verbose, "OrdinalMarginRanker")
        if self.formulation == "svor":
            params = check_kernel_params(self.kernel, _fit_gamma(self.kernel, self.gamma, X),
                                         self.degree, self.coef0, X.shape[1])
            opts = SvorOptions.resolve(c=self._penalty(), loss=self.loss, kernel=self.kernel,
                                       params=params, tol=tol, max_iter=max_iter)
            return solve_svor_trusted(X, codes, opts, sample_weight=sample_weight,
                                      callback=log, callback_every=callback_every,
                                      cache=data.cache, **init)
        representation = self._representation()
        if representation == "primal" and self.kernel != "linear":
            raise ValueError(f"representation: 'primal' needs kernel='linear', got "
                             f"kernel={self.kernel!r}")
        return solve_ordinal_trusted(X, codes, margin=self.margin, c=self._penalty(),
                                     representation=representation, kernel=self.kernel,
                                     gamma=_fit_gamma(self.kernel, self.gamma, X),
                                     degree=self.degree, coef0=self.coef0,
                                     nonneg=self.nonneg, method=self._method(),
                                     add_per_iter=self._add_per_iter(X.shape[0]), tol=tol,
                                     max_iter=max_iter, sample_weight=sample_weight,
                                     subproblem_solver=self.subproblem_solver, callback=log,
                                     callback_every=callback_every, **init)

    def _grade_levels(self):
        """The grades' values in the loss of ``threshold_rule``: the labels
        themselves when they are numbers, else their positions 0..l."""
        if self.classes_.dtype.kind in "biuf":
            return self.classes_.astype(np.float64)
        return np.arange(self.classes_.size, dtype=np.float64)

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit on objects X and their ordered labels y.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (n, n_features)
            Sparse (used as CSR) with the linear kernel only.
        y : array_like, shape (n,)
            Ordered labels (see the class docstring); at least 2 classes.
        sample_weight : array_like, shape (n,), optional
            Weights v_i >= 0 (not with the hard margin): object i's slacks
            cost c v_i (an integer weight = the object repeated); they also
            weight the training loss of ``threshold_rule``.
        callback : callable, optional
            ``callback(info: IterInfo)`` after each Newton step, pass or
            sub-problem (e.g. a :class:`polyrank_widgets.GapMonitor`);
            StopIteration stops.
        callback_every : int, default=1
            Call ``callback`` only after the iterations whose number is
            divisible by this.

        Returns
        -------
        self : OrdinalMarginRanker
            The fitted ranker.

        Raises
        ------
        InfeasibleError (ValueError)
            ``margin="hard"`` on data the model cannot separate.
        ValueError
            Empty or non-finite X, fewer than 2 classes, labels without an
            order (give ``classes``), a label missing from ``classes``,
            negative weights or weights with the hard margin, a parameter of
            the other formulation (see ``formulation``), a sub-problem
            Clarabel cannot solve (the message says: standardize X or lower
            c), a non-finite objective during the solve (scale X), bad
            parameters.
        TypeError
            Sparse X with a non-linear kernel; non-numeric X.
        MemoryError
            ``formulation="svor"`` with a kernel whose n x n Gram matrix
            exceeds the available memory.

        Warns
        -----
        polyrank.exceptions.FeatureScaleWarning
            Before the solve, with a non-linear kernel, when X does not look
            standardised (features whose standard deviations span more than
            1e3; with poly also a dominant common mean): on scikit-learn's
            raw wine recognition data (proline in the thousands, hue below
            2; its 3 classes as grades) the rbf kernel scores a test MAE of
            0.51, and 0.0 after a StandardScaler.
        sklearn.exceptions.ConvergenceWarning
            If ``max_iter`` ends the solve before its stopping rule.
        polyrank.exceptions.TrivialModelWarning
            If the model is trivial: every weight zero, or one grade
            predicted for every training object although y holds several
            (the paper's formulation on overlapping grades: use the default
            formulation="svor").
        """
        self._check_formulation()
        self._check_sparse(X)
        data = _fit_data(self, X, y, sample_weight)
        X, codes, classes = data.X, data.codes, data.classes
        if self.kernel != "linear":     # the linear primal (TRON) is at ease in any units
            warn_if_unscaled(self, X, self.kernel,
                             why="A kernel of such X is driven by the features in the "
                                 "largest units")
        res = self._solve(data, callback, callback_every)
        if res.status == STATUS_NUMERICAL:
            raise_numerical(self, res)
        warn_if_not_converged(self, res, "increase max_iter")
        self._store(X, res, classes)
        rule = self._threshold_rule()
        if rule != "objective":
            self.thresholds_ = thresholds_trusted(res.scores, codes, self._grade_levels(),
                                                  THRESHOLD_LOSSES[rule],
                                                  data.sample_weight, res.thresholds)
        warn_if_trivial(self, coef=self.coef_ if hasattr(self, "coef_") else self.dual_coef_,
                        train_pred=self.classes_[self._predict_codes(res.scores)],
                        y=self.classes_[codes],
                        remedy=self._trivial_remedy())
        return self

    def _store(self, X, res, classes) -> None:
        """The fitted attributes of a solver result."""
        forget_fitted(self, ("coef_", "dual_coef_", "support_vectors_"))
        self.classes_ = classes
        self.result_ = res
        self.n_iter_ = res.nit
        self.c_ = self._penalty()
        self.thresholds_ = res.thresholds
        self._params = res.kernel_params
        if self.kernel == "linear" and (self.formulation == "svor"
                                        or self._representation() == "primal"):
            self.coef_ = res.x
            self.support_ = res.support if self.formulation == "svor" else res.working_set
            return
        self.support_ = np.sort(res.support if self.formulation == "svor"
                                else res.working_set)
        self.dual_coef_ = res.x[self.support_]
        self.support_vectors_ = X[self.support_]
        if self.kernel == "linear":
            self.coef_ = np.asarray(self.support_vectors_.T @ self.dual_coef_).ravel()

    def _trivial_remedy(self) -> str:
        if self.formulation == "paper":
            return ("the paper's minimum-margin problem degenerates when grades overlap "
                    "(a slack only for the two thresholds around each object's grade): use "
                    "the default formulation='svor'")
        return "standardise X (e.g. StandardScaler) or raise c"

    def decision_function(self, X) -> np.ndarray:
        """Scores f(x) = w . x (linear kernel) or sum_r u_r kappa(x^r, x) over
        ``support_vectors_`` (u = ``dual_coef_``: SVOR's expansion, or the
        paper's lambda).

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (n_test, n_features)

        Returns
        -------
        ndarray, shape (n_test,)

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``, or NaN/inf.
        """
        X = self._test_data(X)
        if hasattr(self, "coef_"):
            return np.asarray(X @ self.coef_).ravel()
        return kernel_matrix(X, self.support_vectors_, kernel=fitted_param(self, "kernel"),
                             **self._params) @ self.dual_coef_

    def _predict_codes(self, f):
        return predict_labels(f, self.thresholds_)


#: PRank warns when the root mean square of X's entries is outside this range
#: (1 after a StandardScaler): its thresholds move by 1 per mistake (linear
#: and poly kernels; the rbf kernel's values lie in [0, 1] whatever X's units)
PRANK_RMS_RANGE = (0.1, 10.0)


class PRank(_OrdinalLabels, FitReprMixin, BaseEstimator):
    """PRank, the perceptron ranking algorithm (Crammer & Singer, NIPS 2001),
    kernelised: the baseline of Sec. 10 of ``row-column-generation-ordinal.txt``.

    Labels are ordered classes as for :class:`OrdinalMarginRanker`.

    Parameters
    ----------
    kernel : {"linear", "rbf", "poly"}, default="linear"
    gamma, degree, coef0 : see :class:`OrdinalMarginRanker` (gamma=None
        with poly: 1 / max_i ||x_i||^2, the kernel bounded).
    max_iter : int, default=1
        The number of passes over the data (on-line PRank, the paper's
        protocol: 1); fitting stops earlier after a pass without a mistake.
        PRank is an online algorithm: ending after ``max_iter`` passes is its
        design (``result_.status == "completed the passes"``), not a failure
        to converge, and issues no warning.
    shuffle : bool, default=False
    random_state : int, RandomState or None, default=None
        Seeds the shuffling.
    average : bool, default=True
        Keep the averaged model (alpha and thresholds averaged over every
        step; Harrington, ICML 2003), which is much less noisy than the last
        iterate: on standardised red wine, one pass gives a test MAE of 0.41
        averaged against 0.77 for the last iterate (predicting the most
        frequent grade: 0.73).  ``average=False`` is the paper's PRank
        (Crammer & Singer, Fig. 1), the baseline of Sec. 10.
    classes : array_like or None, default=None
        The labels from lowest to highest (see :class:`OrdinalMarginRanker`).
    verbose : int, default=0
    warm_start : bool, default=False
        If True, a ``fit`` on the same data (X, y) with the same kernel
        continues the previous fit's passes from its last iterate (alpha,
        thresholds and the running sums of the average): ``max_iter`` more
        passes, as one run with more passes would make them.  On other
        data it starts from 0; ``result_.warm_start`` says "used" or
        "cold: <reason>".  (PRank has no regularisation, hence no path.)

    Attributes
    ----------
    classes_ : ndarray (l + 1,)
    dual_coef_ : ndarray (n_support,)
        alpha_j of the objects in ``support_`` (averaged if ``average``).
    support_ : ndarray of int64
    support_vectors_ : ndarray or sparse matrix (n_support, n_features)
    coef_ : ndarray (n_features,)
        w = sum_j alpha_j x^j (linear kernel only).
    thresholds_ : ndarray (l,)
        b_1..b_l.
    result_ : SolverResult
    n_iter_ : int
    n_features_in_ : int

    Warns
    -----
    polyrank.exceptions.FeatureScaleWarning
        Before the passes, when X does not look standardised (features of
        very different scales, or far from zero mean with a linear or poly
        kernel): the perceptron adds raw rows to its model, so a feature in
        large units decides it (on diabetes with features x 1000 + 50, one
        pass gives test MAE 1.25 against 0.89 after a StandardScaler).
    polyrank.exceptions.TrivialModelWarning
        If the fit is trivial: every alpha zero, or one grade predicted for
        every training object although y holds several.

    Notes
    -----
    **Defaults, measured** (``tests/core/test_defaults_matrix.py``: every kernel,
    raw X and after a StandardScaler, red wine with a stratified third held
    out, ``random_state=0``).  The tolerance the matrix holds the defaults
    to: test MAE within 0.02 of the peer's, mord's ``LogisticAT()`` for the
    linear kernel and ``SVC(kernel, gamma=1 / n_features, coef0=1)`` for rbf
    and poly.  Ours / peer after a StandardScaler: linear 0.4071 / 0.3977,
    rbf 0.4165 / 0.3977, poly 0.3921 / 0.3902 at the default gamma = 1 /
    max_i ||x_i||^2 (see :class:`OrdinalMarginRanker`'s ``gamma``; 0.5272
    at gamma = 1 / n_features, the default before: a few rows in the
    tails, with kernel values up to 1,500 times the median, decided the
    perceptron's steps).  Over 8 other stratified splits: poly 0.4529,
    linear 0.4622, rbf 0.4367 on average, where ``SVC(poly, gamma=1/11,
    coef0=1)`` scores 0.4275 (one pass of a perceptron, not a margin).  Raw
    red wine gives the :class:`~polyrank.exceptions.FeatureScaleWarning`
    before the first pass, for every kernel (one linear pass on it: MAE
    1.54).  MQ2008's relevance grades (2,000 stratified training rows of
    Fold 1; see :class:`OrdinalMarginRanker`), raw and standardised: linear
    0.2523 / 0.2488 and 0.2585 / 0.2533, rbf 0.2519 / 0.2547 and 0.2589 /
    0.2547, poly 0.2596 / 0.2547 and 0.2571 / 0.2714.

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import PRank
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> PRank(max_iter=10).fit(X, [1, 1, 2, 2]).predict(X).tolist()
    [1, 1, 2, 2]
    """

    _parameter_constraints: dict = {
        "kernel": [StrOptions(set(_KERNELS))],
        "gamma": [Interval(Real, 0, np.inf, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, -np.inf, np.inf, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "average": ["boolean"],
        "classes": ["array-like", None],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
    }

    def __init__(self, kernel="linear", gamma=None, degree=3, coef0=1.0, max_iter=1,
                 shuffle=False, random_state=None, average=True, classes=None, verbose=0,
                 warm_start=False):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.average = average
        self.classes = classes
        self.verbose = verbose
        self.warm_start = warm_start

    @fit_context
    def fit(self, X, y, *, callback=None, callback_every=1):
        """Run PRank on (X, y); see :func:`polyrank.ordinal.prank`.

        Parameters
        ----------
        X : {array_like, sparse matrix}, shape (n, n_features)
            Sparse (used as CSR) with the linear kernel only.
        y : array_like, shape (n,)
            Ordered labels; at least 2 classes.
        callback : callable, optional
            ``callback(info)`` after each pass; StopIteration stops.
        callback_every : int, default=1
            Call ``callback`` only after the passes divisible by this.

        Returns
        -------
        self : PRank
            The fitted ranker.

        Raises
        ------
        ValueError
            Empty or non-finite X, bad labels (see :class:`OrdinalMarginRanker`),
            bad parameters; a score that is not finite during the passes
            (features whose products overflow: scale X); the ranker is left
            unfitted.
        TypeError
            Sparse X with a non-linear kernel.

        Warns
        -----
        polyrank.exceptions.FeatureScaleWarning, polyrank.exceptions.TrivialModelWarning
            See the class docstring.
        """
        self._check_sparse(X)
        y_raw = y
        X, y = validate_X(self, X, y, accept_sparse="csr", dtype=np.float64,
                             y_numeric=False)
        codes, classes = self._encode_y(y_raw, y)
        warn_if_unscaled(self, X, self.kernel,
                         rms_range=None if self.kernel == "rbf" else PRANK_RMS_RANGE,
                         why="PRank adds raw rows to w but moves its thresholds by 1 per "
                             "mistake, so the units of X decide its model")
        gamma = _fit_gamma(self.kernel, self.gamma, X)
        key = fingerprint(X, codes) + (self.kernel, gamma, self.degree, self.coef0)
        state, how = previous(self, key)
        res = prank_trusted(X, codes, kernel=self.kernel, degree=self.degree, gamma=gamma,
                            coef0=self.coef0, max_iter=self.max_iter, shuffle=self.shuffle,
                            random_state=solver_seed(self.random_state), average=self.average,
                            callback=log_callback(callback, self.verbose, "PRank"),
                            callback_every=callback_every,
                            state=None if state is None else state.point)
        res.warm_start = how
        keep(self, key, 0.0, **res.state)
        if res.status == STATUS_NUMERICAL:
            raise_numerical(self, res)
        self.classes_ = classes
        self.result_ = res
        self.n_iter_ = res.nit
        self.thresholds_ = res.thresholds
        self.support_ = res.support
        self.dual_coef_ = res.x[res.support]
        self.support_vectors_ = X[res.support]
        self._params = res.kernel_params
        forget_fitted(self, ("coef_",))
        if self.kernel == "linear":
            self.coef_ = np.asarray(self.support_vectors_.T @ self.dual_coef_).ravel()
        # the training predictions from the checked X (validate once)
        train_pred = self.classes_[self._predict_codes(self._scores(X))]
        warn_if_trivial(self, coef=res.x, train_pred=train_pred, y=y,
                        remedy="more passes (max_iter), shuffle=True, or standardise X")
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores f(x) = sum_j alpha_j kappa(x^j, x), shape (n_test,).

        Raises
        ------
        ValueError
            If the number of features differs from ``fit``, or NaN/inf.
        """
        return self._scores(self._test_data(X))

    def _scores(self, X) -> np.ndarray:
        """:meth:`decision_function` of a checked X."""
        kernel = fitted_param(self, "kernel")
        if kernel == "linear":
            return np.asarray(X @ self.coef_).ravel()
        alpha = np.zeros(self.support_.size) if self.dual_coef_.size == 0 else self.dual_coef_
        return prank_decision(self.support_vectors_, alpha, X, kernel, self._params)

    def _predict_codes(self, f):
        # PRank's rule: the smallest r with f(x) < b_{r+1}
        return np.searchsorted(self.thresholds_, f, side="right").astype(np.int64)
