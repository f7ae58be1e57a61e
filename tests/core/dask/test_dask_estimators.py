"""The Dask estimators (issue 31) on a LocalCluster of 2 worker processes:
DaskRankSVM ends at single-machine RankSVM's objective (1e-8 relative, same
tol and C) on MQ2008 and on a generated set, with O(d) messages per round;
DaskSignConstrained* (CoCoA+) reach single-machine SC-SDCA's objective to
the same certified duality gap, keeping the signs; bad input is refused on
the workers with the partition named.
"""

from __future__ import annotations

import math
import pickle
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank import RankSVM, SignConstrainedClassifier, SignConstrainedRegressor
from polyrank.datasets import load_mq2008
from polyrank.metrics import mean_ndcg
from polyrank.ranksvm import RankSVMObjective

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from polyrank.dask import (  # noqa: E402
    DaskRankSVM,
    DaskSignConstrainedClassifier,
    DaskSignConstrainedRegressor,
    make_ranking,
)

#: the objective of the distributed fit against the local one (issue 31)
RTOL_OBJECTIVE = 1e-8



def _at_queries(qid, n_parts):
    """Row chunks of sorted qid cut at query boundaries into n_parts."""
    cuts = np.flatnonzero(np.diff(qid)) + 1
    picks = cuts[np.linspace(0, cuts.size - 1, n_parts + 1).astype(int)[1:-1]]
    edges = np.concatenate([[0], picks, [qid.size]])
    return (tuple(np.diff(edges).tolist()),)


def _dask(X, y, qid, chunks, sw=None):
    out = [da.from_array(X, chunks=(chunks[0], -1), asarray=not sp.issparse(X)),
           da.from_array(y, chunks), da.from_array(qid, chunks)]
    return out + ([] if sw is None else [da.from_array(sw, chunks)])


@pytest.fixture(scope="module")
def mq():
    return load_mq2008()


@pytest.mark.slow          # the fast tier has the generated-data test of the same agreement
def test_mq2008_objective_equals_single_machine(client, mq):
    C, tol = 0.1, 1e-6
    chunks = _at_queries(mq.qid_train, 3)
    X, y, qid = _dask(mq.X_train, mq.y_train, mq.qid_train, chunks)
    model = DaskRankSVM(C=C, tol=tol, client=client).fit(X, y, qid=qid)
    local = RankSVM(C=C, tol=tol).fit(mq.X_train, mq.y_train, qid=mq.qid_train)
    f_d, f_l = model.result_.primal_objective, local.result_.primal_objective
    # f moves by 7e-8 relative between tol 1e-4 and 1e-8 here
    assert abs(f_d - f_l) <= RTOL_OBJECTIVE * f_l
    assert model.result_.status == "converged"
    assert model.result_.grad_norm <= tol * model.result_.grad_norm0
    assert (model.n_pairs_, model.n_queries_) == (local.n_pairs_, local.n_queries_) \
        == (52325, 471)
    assert model.n_partitions_ == 3 and model.n_workers_ == 2
    # the dual bound is the single machine's at the distributed w
    obj = RankSVMObjective(mq.X_train, mq.y_train, mq.qid_train, C=C)
    assert model.result_.dual_objective == pytest.approx(obj.dual(model.coef_), rel=1e-9)
    assert math.isclose(obj.fun(model.coef_), f_d, rel_tol=1e-12)


@pytest.mark.slow          # 8 s on a quiet machine (a Dask cluster's round trips)
def test_generated_objective_and_solution_equal_single_machine(client):
    X, y, qid = make_ranking(12000, n_features=12, npartitions=5, seed=3)
    model = DaskRankSVM(C=1e-2, tol=1e-8, client=client).fit(X, y, qid=qid)
    Xn, yn, qn = (a.compute() for a in (X, y, qid))
    local = RankSVM(C=1e-2, tol=1e-8).fit(Xn, yn, qid=qn)
    assert abs(model.result_.primal_objective - local.result_.primal_objective) \
        <= RTOL_OBJECTIVE * local.result_.primal_objective
    # a well-conditioned problem: the same w, the same path
    np.testing.assert_allclose(model.coef_, local.coef_, rtol=1e-7, atol=1e-9)
    assert model.n_iter_ == local.n_iter_
    assert model.n_partitions_ == 5


@pytest.mark.slow
def test_partitions_held_by_one_worker_are_spread_over_both(client):
    X, y, qid = make_ranking(4000, n_features=6, npartitions=4, seed=5)
    first = sorted(client.scheduler_info()["workers"])[0]
    X, y, qid = client.persist([X, y, qid], workers=[first])
    distributed.wait([X, y, qid])
    keys = distributed.futures_of([X, y, qid])
    assert {w for held in client.who_has(keys).values() for w in held} == {first}
    model = DaskRankSVM(C=0.1, tol=1e-6, client=client).fit(X, y, qid=qid)
    assert model.n_workers_ == 2 and model.n_partitions_ == 4
    # the actors and the partitions they took are let go after the fit
    for _ in range(100):
        shards = [k for held in client.has_what().values() for k in held if "Shard" in str(k)]
        if not shards:
            break
        time.sleep(0.05)
    assert shards == []
    Xn, yn, qn = (a.compute() for a in (X, y, qid))
    local = RankSVM(C=0.1, tol=1e-6).fit(Xn, yn, qid=qn)
    assert abs(model.result_.primal_objective - local.result_.primal_objective) \
        <= RTOL_OBJECTIVE * local.result_.primal_objective


def test_objective_pieces_equal_the_local_objective(client, mq):
    chunks = _at_queries(mq.qid_train, 4)
    X, y, qid = _dask(mq.X_train, mq.y_train, mq.qid_train, chunks)
    est = DaskRankSVM(C=0.5)
    obj, summary = est._start(client, X, y, qid, None)
    try:
        local = RankSVMObjective(mq.X_train, mq.y_train, mq.qid_train, C=0.5)
        rng = np.random.default_rng(0)
        w, w2, v = (rng.normal(size=46) * 0.3 for _ in range(3))
        assert obj.fun(w) == pytest.approx(local.fun(w), rel=1e-13)
        np.testing.assert_allclose(obj.grad(w), local.grad(w), rtol=1e-11, atol=1e-9)
        np.testing.assert_allclose(obj.Hv(w, v), local.Hv(w, v), rtol=1e-11, atol=1e-9)
        obj.fun(w2)                       # the shards' workspaces move to w2 ...
        rounds = obj.rounds.n_rounds
        np.testing.assert_allclose(obj.Hv(w, v), local.Hv(w, v), rtol=1e-11, atol=1e-9)
        assert obj.rounds.n_rounds == rounds + 1        # ... and back, in one round
        assert obj.dual(w) == pytest.approx(local.dual(w), rel=1e-11) \
            or (math.isnan(obj.dual(w)) and math.isnan(local.dual(w)))
        assert sum(s[3] for s in summary) == local.n_pairs
        with pytest.raises(RuntimeError, match="workspaces are at w"):
            obj.rounds.actors[0].loss_hv(obj._key - 1, v).result()
    finally:
        obj.rounds.close()


def test_messages_are_order_d_independent_of_documents(client):
    per_round = []
    for n in (4000, 40000):
        X, y, qid = make_ranking(n, n_features=10, npartitions=4, seed=1)
        m = DaskRankSVM(C=1e-2, tol=1e-4, client=client).fit(X, y, qid=qid)
        r = m.result_
        # the summary, grad f(0), one Hv per CG step, one f per trust-region
        # step (its gradient in the same round), n_sv at a rejected last step
        t = r.trace
        assert r.n_rounds == (2 + int(sum(t.cg_iter)) + len(t.iteration)
                              + int(t.accepted[-1] == 0))
        per_round.append((r.bytes_sent + r.bytes_received) / r.n_rounds)
    # two workers, 10 floats each way plus a few scalars per round
    assert per_round[0] == pytest.approx(per_round[1], rel=0.2)
    assert per_round[1] <= 2 * (2 * 10 * 8 + 8 * 8)


def _subset(mq, n_queries=120, seed=0):
    keep = mq.qid_train < np.unique(mq.qid_train)[n_queries]
    sw = np.random.default_rng(seed).integers(1, 3, size=int(keep.sum())).astype(float)
    return mq.X_train[keep], mq.y_train[keep], mq.qid_train[keep], sw


def test_sparse_chunks_and_weights_equal_single_machine(client, mq):
    Xn, yn, qn, sw = _subset(mq)
    local = RankSVM(C=0.1, tol=1e-8).fit(Xn, yn, qid=qn, sample_weight=sw)
    Xs, ys, qs, ss = _dask(sp.csr_matrix(Xn), yn, qn, _at_queries(qn, 2), sw)
    model = DaskRankSVM(C=0.1, tol=1e-8, client=client).fit(Xs, ys, qid=qs, sample_weight=ss)
    assert abs(model.result_.primal_objective - local.result_.primal_objective) \
        <= RTOL_OBJECTIVE * local.result_.primal_objective
    plain = model.to_local()
    assert type(plain) is RankSVM and plain.get_params() == RankSVM(C=0.1, tol=1e-8).get_params()
    np.testing.assert_array_equal(plain.predict(Xn), Xn @ model.coef_)
    assert plain.n_pairs_ == local.n_pairs_ and plain.n_features_in_ == 46


@pytest.mark.slow          # 21 s in CI (generic CPU, both workers busy)
def test_dask_dataframe_input_repartitioned_by_query(client, mq):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    Xn, yn, qn, sw = _subset(mq)
    feats = [f"f{j}" for j in range(46)]
    frame = pd.DataFrame(Xn, columns=feats)
    frame["y"], frame["qid"], frame["sw"] = yn, qn, sw
    # persisted once: X, y, qid and the weights are columns of the same rows
    ddf = dd.from_pandas(frame, npartitions=1).shuffle(on="qid", npartitions=3).persist()
    model = DaskRankSVM(C=0.1, tol=1e-8, client=client).fit(
        ddf[feats], ddf["y"], qid=ddf["qid"], sample_weight=ddf["sw"])
    local = RankSVM(C=0.1, tol=1e-8).fit(Xn, yn, qid=qn, sample_weight=sw)
    assert abs(model.result_.primal_objective - local.result_.primal_objective) \
        <= RTOL_OBJECTIVE * local.result_.primal_objective
    assert list(model.feature_names_in_) == feats
    np.testing.assert_allclose(model.predict(ddf[feats]).compute(),
                               ddf[feats].compute().to_numpy() @ model.coef_, rtol=1e-12)
    np.testing.assert_allclose(model.to_local().predict(frame[feats]), Xn @ model.coef_,
                               rtol=1e-12)


def test_predict_and_score_run_on_the_partitions(client, mq):
    Xt, yt, qt = _dask(mq.X_train, mq.y_train, mq.qid_train, _at_queries(mq.qid_train, 2))
    model = DaskRankSVM(C=0.1, client=client).fit(Xt, yt, qid=qt)
    X, y, qid = _dask(mq.X_test, mq.y_test, mq.qid_test, _at_queries(mq.qid_test, 2))
    scores = model.predict(X)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), mq.X_test @ model.coef_, rtol=1e-12)
    expected = mean_ndcg(mq.y_test, mq.X_test @ model.coef_, mq.qid_test)
    assert model.score(X, y, qid) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="qid: DaskRankSVM.score needs"):
        model.score(X, y)


def test_a_query_split_between_partitions_is_refused(client, mq):
    n = mq.qid_train.size
    cut = int(np.flatnonzero(np.diff(mq.qid_train))[50]) + 3      # inside a query
    X, y, qid = _dask(mq.X_train, mq.y_train, mq.qid_train, ((cut, n - cut),))
    with pytest.raises(ValueError, match=r"qid: query \d+ is split between partitions 0 "
                                         r"and 1.*shuffle\(on='qid'\)"):
        DaskRankSVM(client=client).fit(X, y, qid=qid)


def test_bad_partitions_are_refused_on_the_workers(client, mq):
    chunks = _at_queries(mq.qid_train, 2)
    Xbad = mq.X_train.copy()
    Xbad[-5, 3] = np.nan
    X, y, qid = _dask(Xbad, mq.y_train, mq.qid_train, chunks)
    with pytest.raises(ValueError, match=r"X: .*(NaN|nan).*\(partition 1\)"):
        DaskRankSVM(client=client).fit(X, y, qid=qid)
    X, y, qid = _dask(mq.X_train, mq.y_train, mq.qid_train, chunks)
    with pytest.raises(ValueError, match="y: has 1 partitions, X has 2"):
        DaskRankSVM(client=client).fit(X, da.from_array(mq.y_train), qid=qid)
    # as many partitions, cut elsewhere: the rows of X and qid do not pair up
    other = (chunks[0][0] + 40, chunks[0][1] - 40)
    with pytest.raises(ValueError, match=r"qid: partition 0 has \d+ rows, the same partition "
                                         r"of X has \d+; .*qid.rechunk"):
        DaskRankSVM(client=client).fit(X, y, qid=da.from_array(mq.qid_train, (other,)))
    with pytest.raises(ValueError, match=r"chunked along its columns.*rechunk"):
        DaskRankSVM(client=client).fit(X.rechunk({1: 23}), y, qid=qid)
    with pytest.raises(TypeError, match="X: expected a dask array"):
        DaskRankSVM(client=client).fit(mq.X_train, y, qid=qid)
    with pytest.raises(ValueError, match="loss: DaskRankSVM minimises the L2 loss"):
        DaskRankSVM(loss="l1", client=client).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="qid: DaskRankSVM needs"):
        DaskRankSVM(client=client).fit(X, y)
    one = np.zeros_like(mq.y_train)
    with pytest.raises(ValueError, match="no preference pairs"):
        DaskRankSVM(client=client).fit(X, da.from_array(one, chunks), qid=qid)


def test_callback_verbose_and_pickle(client, capsys):
    X, y, qid = make_ranking(2000, n_features=5, npartitions=2)
    seen = []
    model = DaskRankSVM(C=0.1, verbose=1, client=client).fit(X, y, qid=qid,
                                                             callback=seen.append)
    assert len(seen) == len(model.result_.trace.iteration) >= model.n_iter_ >= 1
    assert "DaskRankSVM iter" in capsys.readouterr().out
    clone = pickle.loads(pickle.dumps(model))
    assert clone.client is None and np.array_equal(clone.coef_, model.coef_)


# ------------------------------------------------------------------ CoCoA+

def _binary(n=1200, d=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, :3] @ [1.0, -1.0, 0.5] + 0.5 * rng.normal(size=n) > 0, "yes", "no")
    return X, y


@pytest.mark.slow          # 15 s per loss in CI
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_cocoa_classifier_reaches_the_single_machine_objective(client, loss):
    Xn, yn = _binary()
    signs = [1, 1, 1, 0, -1, 0, 0, 0]          # the second sign is violated by the data
    tol = 1e-6
    kw = dict(lam=0.1, loss=loss, signs=signs, tol=tol, random_state=0)
    model = DaskSignConstrainedClassifier(**kw, client=client).fit(
        da.from_array(Xn, chunks=(300, -1)), da.from_array(yn, chunks=300))
    local = SignConstrainedClassifier(**kw).fit(Xn, yn)
    r = model.result_
    assert r.status == "converged" and 0 <= r.gap <= tol
    # both within tol of the optimum (certified by their gaps)
    assert abs(r.primal_objective - local.result_.primal_objective) <= tol
    assert np.all(np.asarray(signs) * model.coef_[0] >= 0) and model.coef_[0, 1] == 0.0
    assert np.all(r.trace.sign_violation == 0.0)
    assert list(model.classes_) == ["no", "yes"] and model.n_workers_ == 2
    X, y = da.from_array(Xn, chunks=(300, -1)), da.from_array(yn, chunks=300)
    assert model.score(X, y) == pytest.approx(model.to_local().score(Xn, yn), abs=1e-12)
    assert list(np.unique(model.predict(X).compute())) == ["no", "yes"]


def test_cocoa_regressor_with_weights_matches_single_machine(client):
    rng = np.random.default_rng(1)
    Xn = rng.normal(size=(900, 6))
    yn = Xn @ [1.0, -1.0, 0.5, 0.0, 2.0, 0.0] + 0.1 * rng.normal(size=900)
    sw = rng.integers(0, 3, size=900).astype(float)
    tol = 1e-6
    kw = dict(lam=0.1, signs=[1, 1, 1, 1, 1, 1], tol=tol, random_state=0)
    model = DaskSignConstrainedRegressor(**kw, client=client).fit(
        da.from_array(Xn, chunks=(300, -1)), da.from_array(yn, chunks=300),
        sample_weight=da.from_array(sw, chunks=300))
    local = SignConstrainedRegressor(**kw).fit(Xn, yn, sample_weight=sw)
    assert model.result_.status == "converged" and model.result_.gap <= tol
    assert abs(model.result_.primal_objective - local.result_.primal_objective) <= tol
    assert model.coef_[1] == 0.0 and np.all(model.coef_ >= 0)
    clone = pickle.loads(pickle.dumps(model))
    assert clone.client is None and np.array_equal(clone.coef_, model.coef_)
    X, y = da.from_array(Xn, chunks=(300, -1)), da.from_array(yn, chunks=300)
    assert model.score(X, y) == pytest.approx(model.to_local().score(Xn, yn), rel=1e-10)


def test_cocoa_refuses_what_it_does_not_solve(client):
    Xn, yn = _binary(300)
    X, y = da.from_array(Xn, chunks=(150, -1)), da.from_array(yn, chunks=150)
    with pytest.raises(ValueError, match="solver: the Dask estimators run SC-SDCA"):
        DaskSignConstrainedClassifier(solver="pegasos", client=client).fit(X, y)
    with pytest.raises(ValueError, match="loss: DaskSignConstrainedClassifier takes"):
        DaskSignConstrainedClassifier(loss="softmax", client=client).fit(X, y)
    with pytest.raises(ValueError, match="y: partition 0 has 100 rows, the same partition "
                                         "of X has 150"):
        DaskSignConstrainedClassifier(client=client).fit(X, y.rechunk(((100, 200),)))
    y3 = da.from_array(np.repeat(["a", "b", "c"], 100), chunks=150)
    with pytest.raises(ValueError, match="exactly two classes"):
        DaskSignConstrainedClassifier(client=client).fit(X, y3)
    bad = Xn.copy()
    bad[200, 0] = np.inf
    with pytest.raises(ValueError, match=r"X: .*\(partitions \[1\]\)"):
        DaskSignConstrainedClassifier(client=client).fit(
            da.from_array(bad, chunks=(150, -1)), y)


def test_cocoa_stops_at_max_iter_with_a_warning_and_a_certified_gap(client):
    Xn, yn = _binary(600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DaskSignConstrainedClassifier(lam=1e-4, tol=1e-12, max_iter=3,
                                              client=client).fit(
            da.from_array(Xn, chunks=(300, -1)), da.from_array(yn, chunks=300))
    assert any("max_iter" in str(w.message) for w in caught)
    r = model.result_
    assert r.nit == 3 and r.gap >= 0
    # the reported objectives are those of the returned w (recomputed exactly;
    # bias=1: the intercept is the weight of a constant feature, regularised)
    local = model.to_local()
    ypm = np.where(yn == "yes", 1.0, -1.0)
    w = np.append(local.coef_[0], local.intercept_[0])
    P = 0.5 * 1e-4 * float(w @ w) + np.mean(
        np.maximum(0.0, 1 - ypm * local.decision_function(Xn)))
    assert r.primal_objective == pytest.approx(P, rel=1e-12)
