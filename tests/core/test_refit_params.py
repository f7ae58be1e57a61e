"""A fitted model predicts with the parameters it was fitted with (issue 44,
item 4), float query ids that are not int64s are refused, and every Dask
estimator names a partition of the wrong width.

The rule, scikit-learn's practice, for all seven estimators: ``predict``
uses the fitted state. ``set_params`` after ``fit`` changes the next fit,
never what the fitted model predicts; in particular
``M3LClassifier(kernel="rbf").fit(...)`` followed by
``set_params(kernel="linear")`` still predicts with its rbf expansion (it
raised an AttributeError about ``coef_``). The test changes *every*
parameter (not only those prediction is known to read) to another valid
value, one at a time, and compares every prediction method bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils._param_validation import StrOptions

import polyrank as pr
from polyrank.io import load_model, save_model

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 4))
SCORE = X @ np.array([1.0, -0.5, 0.3, 0.0])
Y_BIN = (SCORE > 0).astype(int)
Y_ORD = np.digitize(SCORE, [-0.5, 0.5])
Y_IND = np.column_stack([SCORE > 0, X[:, 1] > 0, X[:, 2] + X[:, 0] > 0]).astype(int)
QID = np.repeat([1, 2, 3, 4], 10)

#: (estimator class, y, fit keyword arguments, score arguments after y)
CASES = {
    "SignConstrainedClassifier": (pr.SignConstrainedClassifier, Y_BIN, {}, ()),
    "SignConstrainedRegressor": (pr.SignConstrainedRegressor, SCORE, {}, ()),
    "RankSVM": (pr.RankSVM, Y_ORD, {"qid": QID}, (QID,)),
    "LabelRanker": (pr.LabelRanker, Y_IND, {}, ()),
    "OrdinalMarginRanker": (pr.OrdinalMarginRanker, Y_ORD, {}, ()),
    "PRank": (pr.PRank, Y_ORD, {}, ()),
    "M3LClassifier": (pr.M3LClassifier, Y_IND, {}, ()),
}

#: the starting parameters fitted, per estimator: the default, and the rbf
#: kernel (or a likelihood loss) where prediction depends on it
STARTS = [(name, {}) for name in CASES] + [
    ("SignConstrainedClassifier", {"loss": "logistic"}),
    ("LabelRanker", {"kernel": "rbf", "gamma": 0.5}),
    ("OrdinalMarginRanker", {"kernel": "rbf", "gamma": 0.5}),
    ("PRank", {"kernel": "rbf", "gamma": 0.5}),
    ("M3LClassifier", {"kernel": "rbf"}),
    ("M3LClassifier", {"kernel": "poly", "degree": 2, "bias": 0.5}),
]

#: a valid value for parameters whose value is None (the default)
FOR_NONE = {"gamma": 0.7, "C": 3.0, "c": 3.0, "bias": 2.0, "max_iter": 5, "tol": 1e-2,
            "average_from": 3, "random_state": 7, "n_jobs": 1, "signs": np.ones(4),
            "R": np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])}

#: another value of parameters "auto" that take "auto" or a number / bool
AUTO_OTHER = {"cache_mb": 10.0, "shrinking": True, "add_per_iter": 2}


def other_value(est, name, value):
    """Another valid value of parameter ``name`` (now ``value``)."""
    if name == "kernel":
        return "linear" if value != "linear" else "rbf"
    if name == "classes" and value is None:
        return np.unique(Y_ORD)
    if value is None:
        return FOR_NONE[name]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 if value else 0.5
    if isinstance(value, str) or callable(value):
        options = sorted(o for c in est._parameter_constraints.get(name, [])
                         if isinstance(c, StrOptions) for o in c.options)
        if value == "auto" and name in AUTO_OTHER:
            return AUTO_OTHER[name]
        others = [o for o in options if o != value]
        assert others, f"no other value for {name}={value!r}"
        return others[0]
    raise AssertionError(f"no other value for {name}={value!r}")


def outputs(est, y, score_args):
    """Every prediction of ``est`` on X (and whether predict_proba exists)."""
    out = {"predict": est.predict(X), "score": est.score(X, y, *score_args),
           "has_proba": hasattr(est, "predict_proba")}
    if hasattr(est, "decision_function"):
        out["decision_function"] = est.decision_function(X)
    if out["has_proba"]:
        out["predict_proba"] = est.predict_proba(X)
    return out


def params_of(name, start):
    cls, *_ = CASES[name]
    return sorted(cls(**start).get_params(deep=False))


CHANGES = [pytest.param(name, start, param, id=f"{name}-{'-'.join(map(str, start.values()))}"
                                                 f"-{param}")
           for name, start in STARTS for param in params_of(name, start)]


@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize(("name", "start", "param"), CHANGES)
def test_set_params_after_fit_does_not_change_predictions(name, start, param):
    cls, y, fit_kw, score_args = CASES[name]
    est = cls(**start).fit(X, y, **fit_kw)
    before = outputs(est, y, score_args)
    value = est.get_params(deep=False)[param]
    est.set_params(**{param: other_value(est, param, value)})
    after = outputs(est, y, score_args)
    assert after.keys() == before.keys()
    for what, v in before.items():
        np.testing.assert_array_equal(after[what], v, err_msg=f"{what} after {param}")


def test_m3l_rbf_then_linear_predicts_and_refits_linear():
    """The issue's case: no AttributeError about coef_; the next fit is
    linear."""
    est = pr.M3LClassifier(kernel="rbf").fit(X, Y_IND)
    D = est.decision_function(X)
    est.set_params(kernel="linear")
    np.testing.assert_array_equal(est.decision_function(X), D)
    assert not hasattr(est, "coef_")
    est.fit(X, Y_IND)
    assert est.coef_.shape == (3, 4)
    np.testing.assert_allclose(est.decision_function(X), X @ est.coef_.T + est.intercept_)


def test_the_fitted_values_survive_a_model_file(tmp_path):
    est = pr.PRank(kernel="rbf", gamma=0.5).fit(X, Y_ORD)
    path = tmp_path / "prank.skops"
    save_model(path, est)
    loaded, _ = load_model(path)
    loaded.set_params(kernel="linear")
    np.testing.assert_array_equal(loaded.decision_function(X), est.decision_function(X))


# ------------------------------------------------------------ query ids


@pytest.mark.parametrize("ids", [[2.0 ** 63, 2.0 ** 64], [-(2.0 ** 64), 0.0], [1e300, 1.0]])
def test_float_query_ids_beyond_int64_are_refused(ids):
    qid = np.repeat(ids, 20)
    with pytest.raises(ValueError, match=r"qid: query id .* not exactly representable as an "
                                         r"int64"):
        pr.RankSVM().fit(X, Y_ORD, qid=qid)


def test_uint64_query_ids_beyond_int64_are_refused():
    qid = np.repeat(np.array([2 ** 63, 2 ** 64 - 1], dtype=np.uint64), 20)
    with pytest.raises(ValueError, match=r"qid: query id 18446744073709551615 does not fit"):
        pr.RankSVM().fit(X, Y_ORD, qid=qid)


def test_float_query_ids_within_int64_are_kept_apart():
    """-2**63 and the largest float below 2**63 are int64s: two queries."""
    big = float(np.nextafter(2.0 ** 63, 0))
    qid = np.repeat([-(2.0 ** 63), big], 20)
    est = pr.RankSVM().fit(X, Y_ORD, qid=qid)
    assert est.n_queries_ == 2


# ------------------------------------------------- Dask partition widths


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def lying_width(rows):
    """A dask array that says it has 4 columns; partition 1 has 3."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    pieces = [X[:rows], X[rows:, :3]]
    return da.concatenate([da.from_delayed(dask.delayed(p), shape=(p.shape[0], 4),
                                           dtype=float) for p in pieces])


def as_dask(a, rows):
    da = pytest.importorskip("dask.array")
    return da.from_array(a, chunks=((rows, a.shape[0] - rows),) + tuple((n,) for n in a.shape[1:]))


WIDTH = r"X: partition 1 has 3 columns, expected 4 columns"


@pytest.mark.parametrize("name", ["DaskSignConstrainedClassifier", "DaskSignConstrainedRegressor",
                                  "DaskRankSVM"])
def test_every_dask_estimator_names_a_partition_of_the_wrong_width(client, name):
    from polyrank import dask as pd_

    est = getattr(pd_, name)(client=client)
    y = {"DaskSignConstrainedClassifier": Y_BIN, "DaskSignConstrainedRegressor": SCORE,
         "DaskRankSVM": Y_ORD}[name]
    kw = {"qid": as_dask(QID, 20)} if name == "DaskRankSVM" else {}
    with pytest.raises(ValueError, match=WIDTH):
        est.fit(lying_width(20), as_dask(y, 20), **kw)
    est.fit(as_dask(X, 20), as_dask(y, 20), **kw)
    with pytest.raises(ValueError, match=WIDTH):
        est.predict(lying_width(20)).compute()
