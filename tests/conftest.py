"""Shared test setup: the scikit-learn config guard, the tolerance policy
and the small problems several test files solve."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from hypothesis import settings
from hypothesis import strategies as st

from polyrank.qp import solve_qp
from polyrank.ranksvm.reference import pair_weights, preference_pairs

# Hypothesis: the same examples on every run (CI must not fail on a draw no one
# has seen before); POLYRANK_HYPOTHESIS=explore draws new ones, to hunt for bugs.
# A draw that once failed is kept as an explicit @example in its test.
settings.register_profile("polyrank", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("POLYRANK_HYPOTHESIS", "polyrank"))


# ------------------------------------------------------------ the slow tier
#
# A slow test says so itself, in its file: ``@pytest.mark.slow`` on the
# function, or ``pytestmark = pytest.mark.slow`` for a whole module (what
# "slow" means is written once: the ``slow`` marker of pyproject.toml).
# tests/architecture/slow_tier.txt lists the tier, and
# tests/architecture/test_slow_tier.py fails on a marked test missing from it
# or an id in it that is gone or no longer marked (tests/README.md).
# A doctest cannot carry a marker: the slow doctest modules are named here.
SLOW_DOCTESTS = (
    "polyrank_paper/sopopo/fig6.py",
    "polyrank_paper/sopopo/fig7.py",
)
#: every item collected in this session, as (node id, marked slow), recorded
#: before ``-m``/``-k`` deselect any: what tests/architecture/test_slow_tier.py
#: compares with the list
COLLECTED = pytest.StashKey[list]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("::")[0] in SLOW_DOCTESTS:          # the doctests of a module
            item.add_marker(pytest.mark.slow)
    config.stash[COLLECTED] = [(item.nodeid, item.get_closest_marker("slow") is not None)
                               for item in items]


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


def label_ranking_problem(seed, m=30, n=4, k=5, noise=0.7):
    """SOPOPO's label ranking: X (m, n) and graded label scores Y (m, k)
    (a noisy linear rule, rounded) with ties and no constant row."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    Y = np.round(X @ rng.normal(size=(k, n)).T + noise * rng.normal(size=(m, k)))
    Y[:, 0] = Y.max(axis=1) + 1
    return X, Y


def sign_problem(seed, n=50, d=6, sparse=False, weights=False):
    """Sign-constrained learning: X (n, d) (about half zeros and CSR with
    ``sparse``), binary labels yb in {-1, +1}, real targets yr and 3-class
    labels ym of one noisy linear rule, a sign vector c (d,) and a sign
    matrix C (d, 3) in {-1, 0, +1}; with ``weights`` also integer sample
    weights s (the first three 0, 2, 3)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if sparse:
        X[rng.random(size=X.shape) < 0.5] = 0.0
    w_true = rng.normal(size=d)
    yb = np.where(X @ w_true + 0.5 * rng.normal(size=n) >= 0, 1.0, -1.0)
    yr = X @ w_true + 0.5 * rng.normal(size=n)
    ym = rng.integers(0, 3, size=n)
    c = rng.choice([-1.0, 0.0, 1.0], size=d)
    C = rng.choice([-1.0, 0.0, 1.0], size=(d, 3))
    out = ((sp.csr_matrix(X) if sparse else X), yb, yr, ym, c, C)
    if weights:
        s = rng.integers(0, 4, size=n)
        s[:3] = [0, 2, 3]
        out += (s,)
    return out


def ranksvm_problem(seed=0, l=60, n=4, n_queries=5):
    """RankSVM: X (l, n), relevance y in {0, .., 3} of a noisy linear rule
    and query ids drawn from ``n_queries`` (queries not contiguous)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(l, n))
    qid = rng.integers(0, n_queries, size=l)
    y = np.clip(np.round(X @ np.array([1.0, -0.5, 0.3, 0.0][:n]) + rng.normal(size=l)), -1, 2) + 1
    return X, y, qid


def l1_ranksvm_qp(X, y, qid, C, sw=None):
    """Eq. 1.2 of ``large-scale-linear-ranksvm.txt`` as a QP over (w, xi),
    solved by Clarabel: min 1/2 w'w + C sum c_p xi_p, xi_p >= 1 - w'(x_i -
    x_j), xi_p >= 0 (c_p = s_i s_j, ones without weights ``sw``).  Returns
    (w, objective)."""
    pairs = preference_pairs(y, qid)
    c = pair_weights(pairs, sw)
    D = X[pairs[:, 0]] - X[pairs[:, 1]]
    p, n = D.shape
    P = sp.block_diag([sp.identity(n), sp.csc_matrix((p, p))]).tocsc()
    q = np.concatenate([np.zeros(n), C * c])
    G = sp.vstack([sp.hstack([-sp.csc_matrix(D), -sp.identity(p)]),
                   sp.hstack([sp.csc_matrix((p, n)), -sp.identity(p)])]).tocsc()
    h = np.concatenate([-np.ones(p), np.zeros(p)])
    res = solve_qp(P, q, G=G, h=h)
    return res.x[:n], res.primal_objective


def brute_piece_loss(y, f, piece):
    """The loss of one piece, sigma max_{(r, s) in A x B} (y_r - y_s) - (f_r -
    f_s) clipped at 0 (Eq. 1, 3 of ``sopopo-label-ranking.txt``), by a loop
    over its edges."""
    worst = 0.0
    for r in piece.A:
        for s in piece.B:
            worst = max(worst, (y[r] - y[s]) - (f[r] - f[s]))
    return piece.sigma * worst


# ------------------------------------------------------------ Hypothesis draws

def draw_instances(draw, rows, features, labels, scales):
    """The start of a random multi-label problem (a Hypothesis draw): the
    numbers of rows, features and labels from the (min, max) ranges given,
    then a seeded Generator and X standard normal times a scale drawn from
    ``scales``.  Returns (X, number of labels, Generator)."""
    m = draw(st.integers(*rows))
    n = draw(st.integers(*features))
    k = draw(st.integers(*labels))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(m, n)) * draw(st.sampled_from(scales))
    return X, k, rng


def draw_sample_weights(draw, rng, m):
    """None, integer (at least one of them 1) or real sample weights of m
    rows, the kind drawn by Hypothesis and the values by ``rng``."""
    weights = draw(st.sampled_from(["none", "integer", "real"]))
    w = None
    if weights == "integer":
        w = rng.integers(0, 4, size=m).astype(float)
        w[rng.integers(m)] = 1.0
    elif weights == "real":
        w = rng.uniform(0.0, 2.0, size=m)
    return w


def multilabel_problem(seed, N=30, D=4, L=3, noise=0.5):
    """M3L: X (N, D), Y in {-1, +1}^(N, L) and a dense positive definite R."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    Y = np.where(X @ rng.normal(size=(D, L)) + noise * rng.normal(size=(N, L)) > 0, 1.0, -1.0)
    A = rng.normal(size=(L, L))
    return X, Y, A @ A.T + 0.2 * np.eye(L)


# ------------------------------------------------------------ unscaled features

def random_scales(X, seed=0):
    """X with every column multiplied by 10^U(-3, 3): features in units
    nobody chose for the model (a reproducible stand-in for raw data)."""
    return X * 10.0 ** np.random.default_rng(seed).uniform(-3, 3, X.shape[1])


def warns_before_the_solve(estimator, X, y, category):
    """Fit ``estimator`` with a callback that stops at the first iteration and
    return the ``category`` warnings (``warnings.WarningMessage``) issued
    before it, i.e. before the solve; the fit must reach that iteration."""
    import warnings
    before = []

    def first(info):
        before.extend(w for w in record if w.category is category)
        raise StopIteration

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        estimator.fit(X, y, callback=first)
    assert estimator.result_.nit == 1, estimator.result_.nit
    return before
