"""Scale-out on an existing engine (issue 14, item 7): a grid search of every
estimator runs on a 2-worker ``dask.distributed.LocalCluster`` through
joblib's dask backend and gives exactly the serial result.

The workers are separate processes (what a real cluster is); each loads the
numba kernels from the on-disk cache.  RankSVM's grid routes ``qid`` to
``fit`` and to the NDCG scorer (metadata routing), as a user would.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from joblib import parallel_config
from sklearn.datasets import make_classification, make_multilabel_classification
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    PRank,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
)
from polyrank.metrics import ndcg_scorer

distributed = pytest.importorskip("distributed")



def _problems():
    rng = np.random.default_rng(0)
    Xc, yc = make_classification(n_samples=120, n_features=6, random_state=0)
    Xm, Ym = make_multilabel_classification(n_samples=80, n_features=6, n_classes=4,
                                            random_state=0)
    Xo = rng.normal(size=(90, 4))
    yo = np.digitize(Xo @ [1.0, -0.5, 0.3, 0.0] + 0.3 * rng.normal(size=90), [-0.8, 0.8]) + 3
    yr = Xc @ rng.normal(size=6) + 0.1 * rng.normal(size=120)
    return {
        "LabelRanker": (LabelRanker(random_state=0), Xm, Ym, {"C": [0.1, 1.0]}),
        "M3LClassifier": (M3LClassifier(random_state=0), Xm, Ym, {"C": [0.1, 1.0]}),
        "SignConstrainedClassifier": (SignConstrainedClassifier(random_state=0), Xc, yc,
                                      {"lam": [1e-3, 1e-2]}),
        "SignConstrainedRegressor": (SignConstrainedRegressor(random_state=0), Xc, yr,
                                     {"lam": [1e-3, 1e-2]}),
        "OrdinalMarginRanker": (OrdinalMarginRanker(), Xo, yo, {"c": [1.0, 10.0]}),
        "PRank": (PRank(random_state=0), Xo, yo, {"max_iter": [1, 3]}),
    }


def _grid(estimator, grid):
    return GridSearchCV(make_pipeline(StandardScaler(), estimator),
                        {f"{type(estimator).__name__.lower()}__{k}": v for k, v in grid.items()},
                        cv=KFold(3, shuffle=True, random_state=0), n_jobs=-1)


def _same(serial, dist):
    np.testing.assert_array_equal(serial.cv_results_["mean_test_score"],
                                  dist.cv_results_["mean_test_score"])
    assert serial.best_params_ == dist.best_params_


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_problems()))
def test_grid_search_on_a_dask_cluster_equals_serial(client, name):
    estimator, X, y, grid = _problems()[name]
    serial = _grid(estimator, grid).set_params(n_jobs=1).fit(X, y)
    with parallel_config(backend="dask"):
        dist = _grid(estimator, grid).fit(X, y)
    _same(serial, dist)


@pytest.mark.slow          # 7 s on a quiet machine (a Dask cluster's round trips)
def test_ranksvm_grid_with_routing_on_a_dask_cluster(client):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 5))
    qid = np.repeat(np.arange(15), 10)
    y = np.clip(np.round(X @ [1.0, -0.5, 0.3, 0.0, 0.2] + 0.5 * rng.normal(size=150)), 0, 3)

    def search(n_jobs):
        model = make_pipeline(StandardScaler(),
                              RankSVM().set_fit_request(qid=True).set_score_request(qid=True))
        return GridSearchCV(model, {"ranksvm__C": [0.01, 0.1, 1.0]}, cv=GroupKFold(3),
                            scoring=ndcg_scorer(k=5), n_jobs=n_jobs)

    with sklearn.config_context(enable_metadata_routing=True):
        serial = search(1).fit(X, y, qid=qid, groups=qid)
        with parallel_config(backend="dask"):
            dist = search(-1).fit(X, y, qid=qid, groups=qid)
    _same(serial, dist)
