"""RankSVM as the rankers people use (LightGBM's LGBMRanker, XGBRanker):
qid / group / one query, predict, score = mean NDCG, metadata routing through
Pipeline, cross_validate and GridSearchCV on MQ2008, ranking scorers,
document weights (duplication and pair enumeration), and the regressions of
issue 14 (L1 "converged" with a negative gap, features of 1e200, silent
one-query scoring).  Source: large-scale-linear-ranksvm.txt, Eq. 1.2-1.3,
Sec. 3.2, Sec. 4.4."""

import io
import re
import warnings
from contextlib import redirect_stdout

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from conftest import l1_ranksvm_qp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags

from polyrank import RankSVM
from polyrank.datasets import load_mq2008
from polyrank.metrics import (
    mean_ndcg,
    ndcg_at,
    ndcg_per_query,
    ndcg_scorer,
    pairwise_accuracy,
    pairwise_accuracy_scorer,
)
from polyrank.ranksvm import RankSVMObjective, ranksvm_cutting_plane, ranksvm_tron
from polyrank.ranksvm.reference import (
    brute_force_fun,
    brute_force_grad,
    brute_force_hv,
    brute_force_l1,
    pair_weights,
    preference_pairs,
)


@pytest.fixture(scope="module")
def mq():
    d = load_mq2008()
    return d.X_train, d.y_train, d.qid_train


def _data(seed=0, l=60, n=4, n_queries=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(l, n))
    qid = rng.integers(0, n_queries, size=l)
    y = np.clip(np.round(X @ np.array([1.0, -0.5, 0.3, 0.0][:n]) + rng.normal(size=l)), 0, 3)
    return X, y, qid


# ------------------------------------------------------------------ API

def test_qid_group_and_one_query():
    X, y, qid = _data(0)
    order = np.argsort(qid, kind="stable")
    Xs, ys, qs = X[order], y[order], qid[order]
    by_qid = RankSVM(tol=1e-8).fit(Xs, ys, qid=qs)
    by_group = RankSVM(tol=1e-8).fit(Xs, ys, group=np.bincount(qs))
    np.testing.assert_array_equal(by_group.coef_, by_qid.coef_)
    assert by_qid.n_queries_ == by_group.n_queries_ == np.unique(qid).size
    # no qid: every row in one query, as qid = zeros
    one = RankSVM(tol=1e-8).fit(X, y)
    zeros = RankSVM(tol=1e-8).fit(X, y, qid=np.zeros(60, int))
    np.testing.assert_array_equal(one.coef_, zeros.coef_)
    assert one.n_queries_ == 1 and one.n_pairs_ == len(preference_pairs(y, np.zeros(60)))
    assert one.score(X, y) == mean_ndcg(y, one.predict(X), np.zeros(60, int))
    # predict = decision_function = X w; score = mean NDCG
    np.testing.assert_array_equal(by_qid.predict(X), X @ by_qid.coef_)
    np.testing.assert_array_equal(by_qid.decision_function(X), by_qid.predict(X))
    assert by_qid.score(X, y, qid=qid) == mean_ndcg(y, X @ by_qid.coef_, qid)
    assert by_qid.score(Xs, ys, group=np.bincount(qs)) == pytest.approx(
        by_qid.score(X, y, qid=qid), rel=1e-14)


@pytest.mark.parametrize("kwargs,err,match", [
    ({"qid": np.zeros(60, int), "group": [60]}, ValueError, "not both"),
    ({"group": [30, 20]}, ValueError, "sum to 50"),
    ({"group": [60, 0]}, ValueError, ">= 1"),
    ({"group": [30.5, 29.5]}, TypeError, "integer query sizes"),
    ({"sample_weight": -np.ones(60)}, ValueError, "Negative values in data passed to"),
    ({"sample_weight": np.zeros(60)}, ValueError, "zero"),
    ({"sample_weight": np.ones(59)}, ValueError, "sample_weight"),
])
def test_bad_qid_group_weights(kwargs, err, match):
    X, y, _ = _data(1)
    with pytest.raises(err, match=match):
        RankSVM().fit(X, y, **kwargs)


def test_tags_say_ranker_with_sparse_input():
    tags = get_tags(RankSVM())
    assert tags.estimator_type == "ranker"           # XGBRanker's convention
    assert tags.input_tags.sparse and tags.target_tags.required
    assert not sklearn.base.is_regressor(RankSVM()) and not sklearn.base.is_classifier(RankSVM())
    assert get_tags(make_pipeline(StandardScaler(), RankSVM())).estimator_type == "ranker"


def test_score_without_qid_after_a_multi_query_fit_raises(mq):
    X, y, qid = mq
    model = RankSVM().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"471 queries.*enable_metadata_routing=True.*"
                                         r"set_score_request\(qid=True\)"):
        model.score(X, y)
    pipe = make_pipeline(StandardScaler(), RankSVM()).fit(X, y, ranksvm__qid=qid)
    with pytest.raises(ValueError, match="set_score_request"):
        pipe.score(X, y)
    # without routing, cross_validate cannot hand qid to score: the error shows
    # instead of a number computed on one merged query
    with pytest.raises(ValueError, match="set_score_request"):
        cross_validate(RankSVM(), X, y, groups=qid, cv=GroupKFold(2), error_score="raise",
                       params={"qid": qid})


# ------------------------------------------------------------------ metadata routing

def test_cross_validate_pipeline_with_routing_matches_manual_folds(mq):
    X, y, qid = mq
    with sklearn.config_context(enable_metadata_routing=True):
        model = RankSVM().set_fit_request(qid=True).set_score_request(qid=True)
        pipe = make_pipeline(StandardScaler(), model)
        cv = cross_validate(pipe, X, y, params={"qid": qid, "groups": qid}, cv=GroupKFold(3),
                            return_indices=True)
    for score, tr, te in zip(cv["test_score"], cv["indices"]["train"], cv["indices"]["test"]):
        assert not set(qid[tr]) & set(qid[te])                 # queries stay whole
        scaler = StandardScaler().fit(X[tr])
        m = RankSVM().fit(scaler.transform(X[tr]), y[tr], qid=qid[tr])
        assert score == pytest.approx(mean_ndcg(y[te], m.predict(scaler.transform(X[te])), qid[te]),
                                      rel=1e-12)
    assert 0.4 < cv["test_score"].mean() < 0.6


def test_grid_search_with_routing_and_ranking_scorers(mq):
    X, y, qid = mq
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(),
                             RankSVM().set_fit_request(qid=True).set_score_request(qid=True))
        scoring = {"ndcg10": ndcg_scorer(k=10), "pa": pairwise_accuracy_scorer()}
        gs = GridSearchCV(pipe, {"ranksvm__C": [2.0 ** -4, 1.0]}, cv=GroupKFold(3),
                          scoring=scoring, refit="ndcg10").fit(X, y, qid=qid, groups=qid)
        plain = GridSearchCV(pipe, {"ranksvm__C": [2.0 ** -4, 1.0]}, cv=GroupKFold(3)).fit(
            X, y, qid=qid, groups=qid)
    folds = list(GroupKFold(3).split(X, y, qid))
    for i, C in enumerate([2.0 ** -4, 1.0]):
        nd, pa, mn = [], [], []
        for tr, te in folds:
            p = clone(make_pipeline(StandardScaler(), RankSVM(C=C)))
            p.fit(X[tr], y[tr], ranksvm__qid=qid[tr])
            s = p.predict(X[te])
            nd.append(ndcg_at(y[te], s, qid[te], 10))
            pa.append(pairwise_accuracy(y[te], s, qid[te]))
            mn.append(mean_ndcg(y[te], s, qid[te]))
        assert gs.cv_results_["mean_test_ndcg10"][i] == pytest.approx(np.mean(nd), rel=1e-12)
        assert gs.cv_results_["mean_test_pa"][i] == pytest.approx(np.mean(pa), rel=1e-12)
        assert plain.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(mn), rel=1e-12)
    assert gs.best_estimator_[-1].n_queries_ == np.unique(qid).size


def test_scorers_need_routing_and_qid():
    X, y, qid = _data(2)
    with pytest.raises(RuntimeError, match="enable_metadata_routing=True"):
        ndcg_scorer()
    with sklearn.config_context(enable_metadata_routing=True):
        scorer, pa = ndcg_scorer(k=3, discount="yahoo"), pairwise_accuracy_scorer(ties="half")
        model = RankSVM().fit(X, y, qid=qid)
        assert scorer(model, X, y, qid=qid) == ndcg_at(y, model.predict(X), qid, 3,
                                                      discount="yahoo")
        assert pa(model, X, y, qid=qid) == pairwise_accuracy(y, model.predict(X), qid,
                                                             ties="half")
        with pytest.raises(ValueError, match="qid: ndcg_scorer needs the query ids"):
            scorer(model, X, y)
        with pytest.raises(ValueError, match="k"):
            ndcg_scorer(k=0)
        with pytest.raises(ValueError, match="ties"):
            pairwise_accuracy_scorer(ties="maybe")


def test_score_sample_weight_weighs_queries():
    X, y, qid = _data(3)
    m = RankSVM().fit(X, y, qid=qid)
    _, per = ndcg_per_query(y, m.predict(X), qid, mean_over_positions=True)
    qw = np.arange(1.0, np.unique(qid).size + 1)
    rows = qw[np.searchsorted(np.unique(qid), qid)]
    assert m.score(X, y, qid=qid, sample_weight=rows) == pytest.approx(
        np.average(per, weights=qw), rel=1e-14)
    with pytest.raises(ValueError, match="equal for all rows of a query"):
        m.score(X, y, qid=qid, sample_weight=np.arange(60.0))


# ------------------------------------------------------------------ weights

@pytest.mark.parametrize("method", ["selection_tree", "y_tree", "direct", "prsvm_plus"])
@pytest.mark.parametrize("partial_pairs", [False, True])
def test_weighted_objective_equals_pair_enumeration(method, partial_pairs):
    X, y, qid = _data(4, l=50)
    rng = np.random.default_rng(4)
    sw = rng.uniform(0.0, 3.0, size=50)
    sw[[3, 7]] = 0.0                                       # absent documents
    obj = RankSVMObjective(X, y, qid, C=0.8, method=method, partial_pairs=partial_pairs,
                           sample_weight=sw)
    for w in (np.zeros(4), 0.4 * rng.normal(size=4)):
        v = rng.normal(size=4)
        ref_f = brute_force_fun(X, y, qid, w, 0.8, partial_pairs, sw)
        assert obj.fun(w) == pytest.approx(ref_f, rel=1e-12)
        np.testing.assert_allclose(obj.grad(w), brute_force_grad(X, y, qid, w, 0.8,
                                                                 partial_pairs, sw),
                                   rtol=1e-11, atol=1e-11 * ref_f)
        np.testing.assert_allclose(obj.Hv(w, v), brute_force_hv(X, y, qid, w, v, 0.8,
                                                                partial_pairs, sw),
                                   rtol=1e-11, atol=1e-10)
        if not partial_pairs:
            loss, _ = obj.l1_loss(w)
            assert 0.5 * w @ w + loss == pytest.approx(brute_force_l1(X, y, qid, w, 0.8, sw),
                                                       rel=1e-12)
        D = obj.dual(w)            # NaN where D(alpha(w)) < 0: no information
        assert np.isnan(D) or D <= obj.fun(w)


@pytest.mark.parametrize("loss", ["l2", "l1"])
@pytest.mark.parametrize("sparse", [False, True])
def test_integer_weights_equal_duplicated_documents(loss, sparse):
    X, y, qid = _data(5, l=40)
    sw = np.random.default_rng(5).integers(0, 4, size=40)
    rep = np.repeat(np.arange(40), sw)
    conv = sp.csr_matrix if sparse else np.asarray
    tol = 1e-6 if loss == "l2" else 1e-9
    # the cutting planes (not DCD: its pairs differ) take the same steps
    solver = "cutting_plane" if loss == "l1" else "auto"
    weighted = RankSVM(C=0.5, loss=loss, tol=tol, solver=solver).fit(
        conv(X), y, qid=qid, sample_weight=sw)
    repeated = RankSVM(C=0.5, loss=loss, tol=tol, solver=solver).fit(
        conv(X[rep]), y[rep], qid=qid[rep])
    # the same objective: TRON takes the same steps up to rounding; the
    # cutting planes are the same planes
    assert weighted.result_.primal_objective == pytest.approx(
        repeated.result_.primal_objective, rel=1e-12)
    assert weighted.n_iter_ == repeated.n_iter_
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8, atol=1e-10)
    assert weighted.n_pairs_ == len(preference_pairs(y[sw > 0], qid[sw > 0]))
    # the pair weights sum to the number of pairs of the duplicated data
    pairs = preference_pairs(y[sw > 0], qid[sw > 0])
    assert pair_weights(pairs, sw[sw > 0]).sum() == len(preference_pairs(y[rep], qid[rep]))


def test_unit_weights_take_the_unweighted_path_exactly():
    X, y, qid = _data(6)
    a = RankSVM().fit(X, y, qid=qid)
    b = RankSVM().fit(X, y, qid=qid, sample_weight=np.ones(60))
    np.testing.assert_array_equal(a.coef_, b.coef_)


# ------------------------------------------------------------------ regressions (issue 14)

@pytest.mark.parametrize("seed", [3, 5, 7, 9])
def test_l1_large_C_no_false_convergence_with_negative_gap(seed):
    """Issue 14: C = 1e4 on 6 rows reported 'converged' with a negative gap
    far from the optimum (the master's primal value at an inexact w was
    taken as the lower bound)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(6, 3))
    y = rng.integers(0, 3, 6).astype(float)
    qid = np.zeros(6, int)
    _, ref = l1_ranksvm_qp(X, y, qid, 1e4)
    res = ranksvm_cutting_plane(X, y, qid, C=1e4, tol=1e-6)
    assert res.status == "converged"
    assert np.all(res.trace.gap >= 0) and res.gap >= 0
    assert res.dual_objective <= ref * (1 + 1e-9)               # a true lower bound
    assert res.primal_objective == pytest.approx(ref, rel=2e-6)
    assert res.primal_objective == pytest.approx(brute_force_l1(X, y, qid, res.x, 1e4), rel=1e-12)


def test_l1_plane_cap_warns():
    X, y, qid = _data(7)
    with pytest.warns(ConvergenceWarning, match="max_iter=2 cutting planes"):
        m = RankSVM(loss="l1", C=10.0, max_iter=2, solver="cutting_plane").fit(X, y, qid=qid)
    assert m.result_.gap > 0
    with pytest.warns(ConvergenceWarning, match="max_iter=1 passes"):
        m = RankSVM(loss="l1", C=10.0, tol=1e-9, max_iter=1).fit(X, y, qid=qid)
    assert m.result_.gap > 0


@pytest.mark.parametrize("loss, solver", [("l2", "tron"), ("l1", "cutting_plane"),
                                          ("l1", "dcd")])
@pytest.mark.parametrize("scale", [1e200, 1e150])
def test_huge_features_are_rejected_naming_X(loss, solver, scale):
    """Issue 14: features of 1e200 gave 'converged' with an infinite gradient
    and w = 0.  Dual coordinate descent at 1e150 stays finite (||x_i -
    x_j||^2 ~ 1e300, w ~ 1e-150): its answer must then be a certified one."""
    X, y, qid = _data(8, l=20)
    model = RankSVM(loss=loss, solver=solver)
    if solver == "dcd" and scale == 1e150:
        res = model.fit(X * scale, y, qid=qid).result_
        assert res.status == "converged" and 0 <= res.gap <= 1e-3 * res.primal_objective
        assert res.primal_objective == pytest.approx(
            brute_force_l1(X * scale, y, qid, res.x, 1.0), rel=1e-9)
        return
    with pytest.raises(ValueError, match="^X: .*scale X"):
        model.fit(X * scale, y, qid=qid)


def test_max_iter_and_stall_warn_and_verbose_logs_each_step():
    X, y, qid = _data(9)
    with pytest.warns(ConvergenceWarning, match="max_iter=1 Newton steps"):
        RankSVM(C=100.0, tol=1e-12, max_iter=1).fit(X, y, qid=qid)
    out = io.StringIO()
    with redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("error")
        m = RankSVM(verbose=1).fit(X, y, qid=qid)
    lines = out.getvalue().splitlines()
    assert len(lines) == len(m.result_.trace)
    # the gap is shown where the dual is informative (not at w = 0)
    assert all(re.search(r"^RankSVM iter +\d+ +primal .*grad_norm .*delta .*cg_iter", ln)
               for ln in lines)
    assert "gap" in lines[-1] and "gap" not in lines[0]
    out = io.StringIO()
    with redirect_stdout(out):
        m = RankSVM(loss="l1", verbose=1, solver="cutting_plane").fit(X, y, qid=qid)
    assert len(out.getvalue().splitlines()) == m.n_iter_
    assert "n_planes" in out.getvalue()
    out = io.StringIO()
    with redirect_stdout(out):
        m = RankSVM(loss="l1", verbose=1).fit(X, y, qid=qid)
    # one line per duality-gap measurement (not every pass: see ranksvm_dcd)
    assert len(out.getvalue().splitlines()) == len(m.result_.trace) >= 1
    assert "n_active" in out.getvalue()


def test_defaults_on_standardised_mq2008_converge_without_warnings(mq):
    X, y, qid = mq
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pipe = make_pipeline(StandardScaler(), RankSVM()).fit(X, y, ranksvm__qid=qid)
        l1 = make_pipeline(StandardScaler(), RankSVM(loss="l1")).fit(X, y, ranksvm__qid=qid)
    for res in (pipe[-1].result_, l1[-1].result_):
        assert res.success and res.gap >= 0


def test_l2_driver_weights_match_estimator():
    X, y, qid = _data(10)
    sw = np.random.default_rng(10).uniform(0.5, 2.0, size=60)
    res = ranksvm_tron(X, y, qid, 2.0, sample_weight=sw, tol=1e-6)
    m = RankSVM(C=2.0, tol=1e-6).fit(X, y, qid=qid, sample_weight=sw)
    np.testing.assert_array_equal(m.coef_, res.x)
    assert res.gap >= 0


# ------------------------------------------------------------------ one query by default
# issue 29, item 4: 9,000 documents of 63 queries silently fitted as one query

def test_fit_without_qid_on_many_rows_warns_that_all_rows_are_one_query(mq):
    X, y, qid = mq
    with pytest.warns(UserWarning, match=r"no qid \(nor group\), so all 9,630 rows form one "
                      r"query \(14,872,101 preference pairs\).*qid=np.zeros"):
        RankSVM(max_iter=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="RankSVM: fit got no qid")
        warnings.simplefilter("ignore", ConvergenceWarning)
        # quiet: the queries given, one query on purpose, or few rows
        RankSVM(max_iter=1).fit(X, y, qid=qid)
        starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
        RankSVM(max_iter=1).fit(X, y, group=np.diff(starts))
        RankSVM(max_iter=1).fit(X, y, qid=np.zeros(len(y)))
        RankSVM(max_iter=1).fit(X[:1000], y[:1000])


def test_ranking_scorer_in_cross_validation_without_routing_scores_nothing():
    """A scorer that gets no qid refuses (cross_validate turns that into NaN and
    a warning that carries the remedy) instead of scoring each fold as one query."""
    from sklearn.model_selection import cross_val_score
    X, y, qid = _data(4)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = ndcg_scorer(k=5)
    with pytest.warns(UserWarning, match=r"(?s)Scoring failed.*qid: ndcg_scorer needs the "
                      r"query ids.*set_fit_request\(qid=True\)"):
        scores = cross_val_score(RankSVM(), X, y, scoring=scorer, cv=3)
    assert np.all(np.isnan(scores))


def test_a_fit_to_zero_weights_warns():
    from polyrank.exceptions import TrivialModelWarning
    X, y, qid = _data(5)
    with pytest.warns(TrivialModelWarning, match=r"RankSVM: every weight is zero; raise C"):
        model = RankSVM().fit(np.zeros_like(X), y, qid=qid)
    assert model.result_.success
    with warnings.catch_warnings():
        warnings.simplefilter("error", TrivialModelWarning)
        RankSVM().fit(X, y, qid=qid)
