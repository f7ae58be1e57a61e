"""scikit-learn estimator for linear RankSVM (``large-scale-linear-ranksvm.txt``)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._repr import FitReprMixin
from .._sklearn import (
    _user_stacklevel,
    fit_context,
    log_callback,
    warn_if_not_converged,
    warn_if_trivial,
)
from .._text import param, scale_advice
from .._threads import resolve_n_jobs
from .._warm import dual_scale, fingerprint, keep, previous
from ..metrics import mean_ndcg
from ..path import N_GRID, PathResult, estimator_path, reject_grid_params
from ..validation import as_float_array, check_sample_weight, query_ids, validate_X
from .objective import METHODS, RankSVMObjective
from .solvers import _cutting_plane, _dcd, _tron

__all__ = ["RankSVM", "ranksvm_path"]

#: ``fit`` without ``qid``/``group`` on more rows than this warns that every
#: row is put in one query: LETOR queries hold tens to hundreds of documents
#: (MQ2008 20 on average, at most 121; MSLR-WEB about 120), so a thousand
#: rows more likely come from several queries
ONE_QUERY_ROWS = 1000


#: a warm TRON fit ends at its start point, without a Newton step, when that
#: point meets the gradient rule and the duality gap certifies it within this
#: fraction of ``tol`` (relative to f) of the minimum
WARM_START_GAP = 0.1


def _extrapolated(state, C: float) -> np.ndarray:
    """TRON's warm start at ``C``: the last solution w(C1), moved along the
    line through the one before, w(C0), linear in log C (the path w(C) is
    smooth; glmnet and LIBLINEAR start from w(C1) alone).  Only when C
    continues in the same direction by at most twice the last step; else
    w(C1)."""
    w1, C1 = state.point["w"], state.penalty
    w0, C0 = state.point.get("w_before"), state.point.get("C_before")
    if w0 is None or C0 is None or C0 <= 0 or C0 == C1 or w0.shape != w1.shape:
        return w1
    t = (np.log(C) - np.log(C1)) / (np.log(C1) - np.log(C0))
    return w1 + t * (w1 - w0) if 0.0 < t <= 2.0 else w1


class RankSVM(FitReprMixin, BaseEstimator):
    """Linear RankSVM: w minimising a pairwise hinge loss inside each query.

    With ``loss="l2"`` (default) minimises Eq. 1.3 of
    ``large-scale-linear-ranksvm.txt``::

        1/2 w'w + C sum_{(i,j) in P} s_i s_j max(0, 1 - w'(x_i - x_j))^2,
        P = {(i, j) : q_i = q_j, y_i > y_j}

    by Tree-TRON (TRON, Sec. 4.1, with the selection tree of Sec. 2.4); with
    ``loss="l1"`` minimises Eq. 1.2 (the plain hinge) by dual coordinate
    descent over the pairs (LIBLINEAR's hinge-loss solver, certified by the
    duality gap) or by the cutting-plane method of Sec. 3.2.  Tree-TRON
    and the cutting planes never form a pair: the loss, gradient and
    Hessian-vector products go through l_i^+, l_i^-, gamma_i^+, gamma_i^-
    (Eq. 2.11-2.13).  The model has no intercept (it cancels in x_i - x_j).
    s_i are the document weights (``sample_weight``, default 1).

    Used like LightGBM's ``LGBMRanker`` or XGBoost's ``XGBRanker``: ``fit(X,
    y, qid=...)`` (or ``group=`` query sizes), ``predict(X)`` gives scores
    (only their order inside a query matters), ``score`` is the mean NDCG.
    Its simple peer is pointwise least squares (:class:`~sklearn.linear_model.Ridge`
    on the relevance labels, blind to the queries): on MQ2008 (Fold 1)
    ``RankSVM()`` reaches a test mean NDCG of 0.4577 against 0.4519
    (``tests/core/test_defaults_matrix.py``).

    Parameters
    ----------
    C : float, default=1.0
        Loss weight (> 0).
    loss : {"l2", "l1"}, default="l2"
    tol : float, default=1e-3
        Stopping tolerance.  L2: the relative gradient tolerance, the
        paper's epsilon_s in Eq. 4.4; L1: the relative gap between the best
        objective and the certified lower bound.
    solver : {"auto", "tron", "dcd", "cutting_plane"}, default="auto"
        ``"tron"`` (L2 only; what "auto" picks for L2); ``"dcd"`` (L1 only;
        "auto" for L1): dual coordinate descent with shrinking over the p
        pairs, memory O(p) (:func:`~polyrank.ranksvm.ranksvm_dcd`);
        ``"cutting_plane"`` (L1 only): the paper's bundle method, memory
        O(l), slow at large C.
    method : {"selection_tree", "y_tree", "direct", "prsvm_plus"}, default="selection_tree"
        The counting method (Sec. 2.2-2.4, 3.1); the solution does not
        depend on it, the run time does.
    max_iter : int, default=1000
        Maximum number of iterations; one iteration is one Newton step
        (TRON), one pass over the pairs (DCD) or one cutting plane.
    partial_pairs : bool, default=False
        Train on the pairs of adjacent relevance levels only (Sec. 5);
        L2 loss only.
    random_state : int, RandomState instance or None, default=None
        Seed of the pass orders of ``solver="dcd"`` (the others are
        deterministic).
    verbose : int, default=0
        ``v >= 1``: print one line every ``v`` iterations (TRON step or
        cutting plane: f, the lower bound, the gap, and for TRON ||grad f||,
        delta and the CG iterations, like LIBLINEAR's log).
    n_jobs : int or None, default=None
        Threads for the passes over the documents (X w, X'r, the per-query
        sorts and the selection-tree counts of f, the gradient and every
        Hessian-vector product).  None: one thread, summing as LIBLINEAR
        does.  An int: that many threads (-1 all CPUs, -2 all but
        one; scikit-learn's convention, capped at numba's
        ``NUMBA_NUM_THREADS``) over fixed blocks of whole queries and fixed
        row ranges of X, whose partial sums are added in a fixed order: the
        fit is bitwise the same for every int (1, 2, -1 ...), and differs
        from ``n_jobs=None`` only by rounding in the sums of X'r (see
        :class:`~polyrank.ranksvm.RankSVMObjective`).  The L1 solvers use
        the threads only in their passes through the objective (the gap
        and cutting-plane evaluations), not in the dual coordinate steps.
    warm_start : bool, default=False
        If True, a ``fit`` on the same data (same X, y, qid, weights and
        solver) starts from the previous fit's solution: TRON from its w
        moved along the line through the fit before it, linear in log C
        (when C goes on in the same direction), and it ends without a
        Newton step only when that point meets the gradient rule and its
        duality gap certifies it within ``0.1 tol`` (relative) of the
        minimum; the cutting planes from its w; dual coordinate descent
        from its pair multipliers scaled by C_new / C_old (which keeps them
        in the new box [0, C c_ij]; LIBLINEAR's warm start across C, Chu,
        Lin et al., KDD 2015).  On other data the fit starts cold; ``result_.warm_start``
        says which ("used" or "cold: <reason>").  See
        :func:`polyrank.ranksvm.ranksvm_path`.

    Attributes
    ----------
    coef_ : ndarray, shape (n_features,)
        w.
    result_ : SolverResult
        The solver's result; ``result_.trace`` has f, the dual bound and
        gap (L2: the L2-SVM dual at alpha(w)), ||grad f||, delta and CG
        iterations per trust-region step (``result_.trace.to_pandas()``).
    n_iter_ : int
        Newton steps (TRON), passes (DCD) or cutting planes.
    n_pairs_ : int
        Number of training preference pairs p (among documents of positive
        weight).
    n_queries_ : int
        Number of training queries.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (n_features_in_,)
        Only when ``X`` had string column names.

    See Also
    --------
    polyrank.ranksvm.ranksvm_tron : the L2 driver.
    polyrank.ranksvm.ranksvm_dcd, polyrank.ranksvm.ranksvm_cutting_plane :
        the L1 drivers.
    polyrank.metrics.ndcg_scorer, polyrank.metrics.pairwise_accuracy_scorer :
        scorers for ``GridSearchCV`` / ``cross_validate`` that receive qid.

    Notes
    -----
    ``sample_weight`` weighs documents; a pair (i, j) weighs s_i s_j, which
    is exactly what duplicating documents does (a document repeated k times
    repeats each of its pairs k times; its copies tie, so they form no pair
    with each other).  Integer weights therefore equal duplicated rows, and
    weight 0 equals leaving the document out.

    In ``GridSearchCV``, ``cross_validate`` or a ``Pipeline`` the query ids
    reach ``fit`` and ``score`` through scikit-learn's metadata routing::

        sklearn.set_config(enable_metadata_routing=True)
        model = RankSVM().set_fit_request(qid=True).set_score_request(qid=True)
        cross_validate(make_pipeline(StandardScaler(), model), X, y,
                       params={"qid": qid, "groups": qid}, cv=GroupKFold(3))

    (``groups=qid`` keeps each query inside one fold).  Without routing a
    model fitted on several queries refuses to ``score`` rows without qid,
    instead of silently scoring them as one query.

    **Defaults, measured** (``tests/core/test_defaults_matrix.py``).  The
    tolerance the matrix holds the defaults to: test mean NDCG within 0.01
    of pointwise ``Ridge()``'s.  MQ2008 (Fold 1) raw 0.4577 against
    0.4519, after a StandardScaler 0.4585 against 0.4543; red wine as one
    query (quality the relevance; a stratified third held out) raw 0.7939
    against 0.7932, standardised 0.7941 against 0.7933.

    Examples
    --------
    >>> import numpy as np
    >>> from polyrank import RankSVM
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.5], [0.5, 0.5], [1.5, 0.0]])
    >>> y = np.array([0, 1, 2, 0, 1]); qid = np.array([1, 1, 1, 2, 2])
    >>> model = RankSVM(C=1.0).fit(X, y, qid=qid)
    >>> model.n_pairs_, model.predict(X).argmax()
    (4, np.int64(2))
    >>> model.score(X, y, qid=qid)
    1.0
    >>> RankSVM().fit(X, y, group=[3, 2]).n_queries_     # LightGBM-style sizes
    2
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "loss": [StrOptions({"l2", "l1"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "method": [StrOptions(set(METHODS))],
        "solver": [StrOptions({"auto", "tron", "dcd", "cutting_plane"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "partial_pairs": ["boolean"],
        "verbose": ["verbose"],
        "n_jobs": [Integral, None],
        "warm_start": ["boolean"],
    }

    def __init__(self, C=1.0, loss="l2", tol=1e-3, method="selection_tree",
                 solver="auto", max_iter=1000, partial_pairs=False, random_state=None,
                 verbose=0, n_jobs=None, warm_start=False):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.method = method
        self.solver = solver
        self.max_iter = max_iter
        self.partial_pairs = partial_pairs
        self.random_state = random_state
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.warm_start = warm_start

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # scikit-learn has no ranker type; "ranker" is XGBoost's XGBRanker
        # convention (a free string: is_classifier/is_regressor stay False)
        tags.estimator_type = "ranker"
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags

    @fit_context
    def fit(self, X, y, qid=None, group=None, sample_weight=None, *, callback=None,
            callback_every=1):
        """Fit w.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (l, n_features)
            Dense or CSR (other sparse formats are converted).
        y : array-like of shape (l,)
            Relevance labels (any reals; only their order inside a query
            matters for fitting; :meth:`score` needs them >= 0).
        qid : array-like of int, shape (l,), optional
            Query id of each row (rows of a query need not be contiguous).
            Without ``qid`` and ``group`` all rows form one query (a
            warning says so when there are more than 1,000 rows; pass
            ``qid=np.zeros(l)`` to fit one query on purpose).
        group : array-like of int, shape (n_queries,), optional
            LightGBM-style query sizes instead of ``qid``: the first
            ``group[0]`` rows are query 0, the next ``group[1]`` query 1, ...
            (sum = l).  Exclusive with ``qid``.
        sample_weight : array-like of shape (l,), optional
            Document weights >= 0; a pair weighs ``s_i * s_j`` (integer
            weights equal duplicated rows, 0 = absent; see Notes).
        callback : callable, optional
            ``callback(info: IterInfo)`` per solver iteration (e.g. a
            :class:`polyrank_widgets.GapMonitor`); StopIteration stops.
        callback_every : int, default=1
            Call ``callback`` only on the iterations divisible by this
            (``result_.trace`` keeps every one).

        Returns
        -------
        self : RankSVM
            The fitted model (``coef_`` is w).

        Raises
        ------
        ValueError
            Bad parameters, shape/length mismatch, NaN/inf, both ``qid`` and
            ``group``, bad weights, ``partial_pairs`` with L1, data without
            any preference pair (e.g. one document, or one relevance level
            per query), ``n_jobs=0``, a ``solver`` that does not solve ``loss``, an
            objective that overflows float64 (scale X) or a failed master QP
            of the cutting-plane solver (scale X or lower C).
        TypeError
            Non-numeric input, non-integer qid / group, or ``n_jobs`` not
            None or an int.

        Warns
        -----
        UserWarning
            Before the solve, without ``qid`` and ``group`` on more than
            :data:`ONE_QUERY_ROWS` (1,000) rows: all rows form one query,
            which is rarely meant (LETOR queries hold tens to hundreds of
            documents); the message says how to pass or route ``qid``.
        sklearn.exceptions.ConvergenceWarning
            If the solver stops before its tolerance (``max_iter`` reached
            or no progress at rounding level).
        polyrank.exceptions.TrivialModelWarning
            If the solve converged to w = 0 (no pair is worth a non-zero
            weight: raise C).
        """
        if self.partial_pairs and self.loss != "l2":
            raise ValueError("partial_pairs: only with loss='l2'")
        solver = self.solver
        if solver == "auto":
            solver = "tron" if self.loss == "l2" else "dcd"
        if (solver == "tron") != (self.loss == "l2"):
            raise ValueError(f"solver: {solver!r} does not solve loss={self.loss!r} "
                             "('tron' is for 'l2'; 'dcd' and 'cutting_plane' for 'l1')")
        resolve_n_jobs(self.n_jobs)             # TypeError / ValueError before the work
        X, y = validate_X(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             y_numeric=True)
        y = np.asarray(y, dtype=np.float64)
        qid_given = qid is not None or group is not None
        qid = query_ids(qid, group, X.shape[0])
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        obj = RankSVMObjective._trusted(X, y, qid, self.C, self.method, self.partial_pairs,
                                        sample_weight, self.n_jobs)
        if not qid_given and X.shape[0] > ONE_QUERY_ROWS:
            warnings.warn(
                f"RankSVM: fit got no qid (nor group), so all {X.shape[0]:,} rows form one "
                f"query ({obj.n_pairs:,} preference pairs). If the rows come from several "
                "queries pass fit(X, y, qid=...) or group=[query sizes] (in a Pipeline or "
                "cross_validate: sklearn.set_config(enable_metadata_routing=True) and "
                "RankSVM().set_fit_request(qid=True)); to fit one query on purpose, pass "
                "qid=np.zeros(len(X)).", UserWarning, stacklevel=_user_stacklevel())
        kwargs = {}
        if solver == "dcd":
            kwargs["random_state"] = check_random_state(self.random_state).randint(2**31 - 1)
        key = fingerprint(X, y, qid, sample_weight) + (solver, self.method,
                                                       bool(self.partial_pairs))
        warm, how, before = self._warm_point(key, solver, obj)
        solve = {"tron": _tron, "dcd": _dcd, "cutting_plane": _cutting_plane}[solver]
        res = solve(obj, tol=self.tol, max_iter=self.max_iter,
                    callback=log_callback(callback, self.verbose, type(self).__name__),
                    callback_every=callback_every, **kwargs, **warm)
        res.warm_start = how
        keep(self, key, self.C, w=res.x, alpha=res.dual, **before)
        warn_if_not_converged(self, res, f"increase {param('max_iter')}, or "
                                         f"{scale_advice('RankSVM', sp.issparse(X))}")
        self.result_ = res
        self.coef_ = res.x
        self.n_iter_ = res.nit
        self.n_pairs_ = res.n_pairs
        # the grouped queries, unless documents of weight 0 left some out
        self.n_queries_ = (obj.groups.n_queries if obj.X.shape[0] == X.shape[0]
                           else int(np.unique(qid).size))
        if res.success:     # an unfinished solve has its ConvergenceWarning
            warn_if_trivial(self, coef=self.coef_,
                            remedy=f"raise {param('C')} (now {self.C:g}), or "
                                   f"{scale_advice('RankSVM', sp.issparse(X))}")
        return self

    def _warm_point(self, key, solver, obj) -> tuple[dict, str, dict]:
        """The solver's initial point of a warm start, ``result_.warm_start``
        and what to keep of the previous fit for the next one.

        TRON starts from the last two solutions' line in log C
        (:func:`_extrapolated`) and ends without a Newton step only if that
        point meets its gradient rule and its duality gap certifies it
        within :data:`WARM_START_GAP` ``* tol`` of the minimum (else at least
        one step, see :func:`polyrank.tron.tron`); the cutting planes start
        from the last w; dual coordinate descent from its ``alpha`` scaled by
        C_new / C_old, so that it stays in the box [0, C c_ij]."""
        state, how = previous(self, key)
        if state is None:
            return {}, how, {}
        before = {"w_before": state.point["w"], "C_before": state.penalty}
        if solver == "tron":
            return {"w0": _extrapolated(state, obj.C), "min_iter": 1,
                    "start_gap": WARM_START_GAP * float(self.tol)}, how, before
        if solver != "dcd":
            return {"w0": state.point["w"]}, how, {}
        return {"alpha0": state.point["alpha"] * dual_scale(obj.C, state.penalty)}, how, {}

    def predict(self, X) -> np.ndarray:
        """Ranking scores w'x (larger = ranked higher; compare them inside
        a query only).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m, n_features)

        Returns
        -------
        ndarray, shape (m,)

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            If the number of features differs from ``fit``, NaN/inf.
        """
        check_is_fitted(self, "coef_")
        X = validate_X(self, X, reset=False, accept_sparse="csr", dtype=np.float64)
        return np.asarray(X @ self.coef_, dtype=np.float64).ravel()

    def decision_function(self, X) -> np.ndarray:
        """The scores of :meth:`predict` (w'x); shape (m,)."""
        return self.predict(X)

    def score(self, X, y, qid=None, group=None, sample_weight=None) -> float:
        """Mean NDCG of the predicted ranking, averaged over queries.

        The LETOR 4.0 / MSLR "mean NDCG" (Sec. 4.4, Eq. 4.5;
        :func:`polyrank.metrics.mean_ndcg`): per query the mean of NDCG@1 ..
        NDCG@l_q with gain 2^y - 1 and discount 1/log2(max(2, i)); tied
        scores share their gains (the LETOR / ``sklearn.metrics.ndcg_score``
        convention); a query without a relevant document counts 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (m, n_features)
        y : array-like of shape (m,)
            Relevance labels >= 0.
        qid : array-like of int, shape (m,), optional
            Query ids of the rows; route them with
            ``set_score_request(qid=True)`` inside scikit-learn tools.
        group : array-like of int, optional
            Query sizes instead of ``qid``.
        sample_weight : array-like of shape (m,), optional
            Query weights given per row (equal for the rows of a query, as
            XGBoost's ranking weights): the weighted mean over queries.
            (Also what lets ``Pipeline.score`` route its ``sample_weight``
            under metadata routing.)

        Returns
        -------
        float in [0, 1]

        Raises
        ------
        ValueError
            Without ``qid`` / ``group`` on a model fitted on several queries
            (the rows would silently be scored as one query); negative
            labels; bad lengths; weights that differ inside a query.
        """
        check_is_fitted(self, "coef_")
        if qid is None and group is None and self.n_queries_ > 1:
            raise ValueError(
                f"qid: RankSVM was fitted on {self.n_queries_} queries, but score got "
                "no qid (nor group), which would score all rows as one query. Pass "
                "qid=... to score; in a Pipeline, GridSearchCV or cross_validate "
                "enable metadata routing: sklearn.set_config(enable_metadata_routing=True), "
                "RankSVM().set_fit_request(qid=True).set_score_request(qid=True), and "
                "pass qid with the data (fit(X, y, qid=qid) or params={'qid': qid})")
        scores = self.predict(X)
        y = as_float_array(y, "y", ndim=1)
        return mean_ndcg(y, scores, query_ids(qid, group, scores.size),
                         sample_weight=sample_weight)


def ranksvm_path(X, y, *, qid=None, group=None, sample_weight=None, Cs=None,
                 n_Cs: int = N_GRID, warm: bool = True, **params) -> PathResult:
    """RankSVM fitted along a grid of C, each fit warm-started from the last.

    In the manner of :func:`sklearn.linear_model.lasso_path`: the grid is
    solved from the smallest C (the strongest regularisation) up, TRON
    starting from the previous w (L1 loss: dual coordinate descent from the
    previous pair multipliers scaled by C_new / C_old), as LIBLINEAR's
    parameter search does (Chu, Lin et al., "Warm start for parameter
    selection of linear classifiers", KDD 2015; the problems are Eq. 1.2 and
    1.3 of ``large-scale-linear-ranksvm.txt``).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (l, n_features)
    y : array-like of shape (l,)
        Relevance labels.
    qid, group, sample_weight : array-like, optional
        As :meth:`RankSVM.fit`.
    Cs : array_like of shape (n_grid,), optional
        The grid of C (> 0, finite; solved in increasing order).  Default:
        ``n_Cs`` values log-spaced from 0.1 to 10 (RankSVM's default C = 1
        times 10^[-1, 1]).
    n_Cs : int, default=20
        Points of the default grid.
    warm : bool, default=True
        False fits every point cold (the reference of ``polyrank bench paths``).
    **params
        Other parameters of :class:`RankSVM` (``loss``, ``tol`` ...; not
        ``C`` nor ``warm_start``).

    Returns
    -------
    PathResult
        ``Cs``, ``coefs`` (w per C), ``objectives``, ``dual_objectives``,
        ``gaps``, ``n_iter``, ``fit_times``, ``success``, ``warm_start``;
        ``min_C`` = 0.0: with the squared-L2 regulariser no C > 0 gives
        w = 0 unless every C does (the condition at w = 0, sum over the
        pairs of c_ij (x_i - x_j) = 0, does not involve C), so there is
        no analogue of :func:`sklearn.svm.l1_min_c`.

    Raises
    ------
    ValueError
        ``Cs`` empty, not 1-d, with NaN/inf or values <= 0 (the message
        names ``Cs``); as :meth:`RankSVM.fit`.
    TypeError
        ``C`` or ``warm_start`` in ``params``, or an unknown parameter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
    >>> path = ranksvm_path(X, [2, 0, 1, 3], qid=[0, 0, 0, 0], Cs=[0.1, 1.0, 10.0])
    >>> path.Cs.tolist(), path.warm_start
    ([0.1, 1.0, 10.0], ['cold: no previous fit', 'used', 'used'])
    """
    reject_grid_params(params, ("C",))
    return estimator_path(RankSVM(**params), X, y, Cs, n=n_Cs, param="C", center=1.0,
                          warm=warm, fit_params={"qid": qid, "group": group,
                                                 "sample_weight": sample_weight})
