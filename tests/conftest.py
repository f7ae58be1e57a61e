"""Shared test setup: the scikit-learn config guard, the tolerance policy
and the small problems several test files solve."""

import os

import numpy as np
import pytest
import sklearn
from hypothesis import settings

# Hypothesis: the same examples on every run (CI must not fail on a draw no one
# has seen before); POLYRANK_HYPOTHESIS=explore draws new ones, to hunt for bugs.
# A draw that once failed is kept as an explicit @example in its test.
settings.register_profile("polyrank", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("POLYRANK_HYPOTHESIS", "polyrank"))


@pytest.fixture(autouse=True)
def _isolated_sklearn_config():
    """Restore scikit-learn's global configuration after every test: code
    run as written (the README's blocks call
    ``sklearn.set_config(enable_metadata_routing=True)``) must not change
    how later tests route ``sample_weight``."""
    with sklearn.config_context():
        yield


# ------------------------------------------------------------ tolerance policy
#
# One name per kind of comparison; a test that needs a looser tolerance says
# why next to its literal.

#: two computations of the same float quantity that differ only by rounding
#: (the same formula summed in another order, a recomputed objective)
RTOL_ROUNDING = 1e-12
#: a duality gap P - D may be negative by rounding only:
#: ``gap >= -GAP_ROUNDING * |P|``
GAP_ROUNDING = 1e-9


# ------------------------------------------------------------ shared problems

class Logistic:
    """L2-regularised logistic regression, a smooth strictly convex test
    function for :func:`polyrank.tron.tron` (an object with ``fun``,
    ``grad``, ``Hv`` and ``n_features``) with an independent reference
    (scipy L-BFGS-B)."""

    def __init__(self, X, y, C):
        self.X, self.y, self.C = X, y, C
        self.n_features = X.shape[1]
        self.n_hv = 0

    def fun(self, w):
        m = self.y * (self.X @ w)
        return 0.5 * w @ w + self.C * np.sum(np.logaddexp(0.0, -m))

    def grad(self, w):
        m = self.y * (self.X @ w)
        s = -1.0 / (1.0 + np.exp(m))
        return w + self.C * self.X.T @ (s * self.y)

    def Hv(self, w, v):
        self.n_hv += 1
        m = self.y * (self.X @ w)
        p = 1.0 / (1.0 + np.exp(-m))
        D = p * (1.0 - p)
        return v + self.C * self.X.T @ (D * (self.X @ v))


def binary_problem(seed, n=50, d=6):
    """X (n, d) standard normal and labels in {-1, +1} of a noisy linear
    rule."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n) >= 0, 1.0, -1.0)
    return X, y


def query_problem(seed, n_queries=3, per_query=12, d=3):
    """A learning-to-rank problem: X, graded relevance y in {0, 1, 2} and
    query ids, ``per_query`` documents per query."""
    rng = np.random.default_rng(seed)
    n = n_queries * per_query
    X = rng.normal(size=(n, d))
    y = np.clip(np.round(X @ rng.normal(size=d) + 1.0 + 0.5 * rng.normal(size=n)), 0, 2)
    qid = np.repeat(np.arange(n_queries), per_query)
    return X, y, qid


def label_ranking_problem(seed, m=30, n=4, k=5):
    """SOPOPO's label ranking: X (m, n) and graded label scores Y (m, k)
    with ties and no constant row."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    Y = np.round(X @ rng.normal(size=(k, n)).T + 0.7 * rng.normal(size=(m, k)))
    Y[:, 0] = Y.max(axis=1) + 1
    return X, Y


def multilabel_problem(seed, N=30, D=4, L=3, noise=0.5):
    """M3L: X (N, D), Y in {-1, +1}^(N, L) and a dense positive definite R."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = np.where(X @ rng.normal(size=(D, L)) + noise * rng.normal(size=(N, L)) > 0, 1.0, -1.0)
    A = rng.normal(size=(L, L))
    return X, Y, A @ A.T + 0.2 * np.eye(L)


@pytest.fixture
def logistic():
    """A 200 x 8 :class:`Logistic` problem at C = 2."""
    X, y = binary_problem(0, n=200, d=8)
    return Logistic(X, y, C=2.0)
