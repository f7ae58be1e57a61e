"""The soft margin primal (S) solved on the rows near the margin
(``subproblem_solver="newton"``, :mod:`polyrank.ordinal.screened`): the same
optimum as Clarabel on the whole problem, the whole problem's KKT conditions,
its rounds, its fallback, and the inputs it refuses."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler

from polyrank.datasets import load_winequality_red
from polyrank.ordinal import OrdinalMarginRanker, screened, solve_ordinal


def _problem(seed, n=300, d=5, n_labels=5, thin=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    f = X @ rng.normal(size=d) + 0.8 * rng.normal(size=n)
    labels = np.digitize(f, np.quantile(f, np.linspace(0, 1, n_labels + 1)[1:-1]))
    if thin:                    # a class of one object, and duplicated rows
        labels[labels == n_labels - 1] = n_labels - 2
        labels[np.argmax(f)] = n_labels - 1
        X[:20] = X[20:40]
        labels[:20] = labels[20:40]
    return X, labels.astype(np.int64)


def _solve(X, labels, solver, **kw):
    return solve_ordinal(X, labels, margin="soft", representation="primal", method="full",
                         subproblem_solver=solver, **kw)


def _check_kkt(r, X, labels, c_obj):
    """2w = sum of the rows' multipliers times a_t^w, the thresholds'
    multipliers balance, 0 <= multiplier <= c_i, and a row's multiplier is
    c_i above its margin, 0 below."""
    w, p = r.x, r.thresholds
    y_lo, y_up = r.dual["y_lo"], r.dual["y_up"]
    assert np.all(y_lo >= -1e-9) and np.all(y_lo <= c_obj + 1e-9)
    assert np.all(y_up >= -1e-9) and np.all(y_up <= c_obj + 1e-9)
    assert 2.0 * w == pytest.approx(X.T @ (y_lo - y_up), abs=1e-6 * max(1.0, c_obj.max()))
    l = p.size
    for j in range(l):
        assert y_lo[labels == j + 1].sum() == pytest.approx(y_up[labels == j].sum(),
                                                           abs=1e-6 * c_obj.max())
    f = X @ w
    lo = labels >= 1
    up = labels <= l - 1
    u_lo = 1.0 - (f[lo] - p[labels[lo] - 1])
    u_up = 1.0 - (p[labels[up]] - f[up])
    assert np.all(y_lo[lo][u_lo > 1e-6] == pytest.approx(c_obj[lo][u_lo > 1e-6], abs=1e-6))
    assert np.all(np.abs(y_lo[lo][u_lo < -1e-6]) <= 1e-6)
    assert np.all(y_up[up][u_up > 1e-6] == pytest.approx(c_obj[up][u_up > 1e-6], abs=1e-6))
    assert np.all(np.abs(y_up[up][u_up < -1e-6]) <= 1e-6)


@pytest.mark.parametrize("fold", [0, 4])
def test_red_wine_folds_equal_clarabel_on_the_whole_problem(fold):
    """The folds of ``polyrank bench ordinal-wine`` (fold 4 has a class of
    10 objects whose threshold leaves the smoothed zone early)."""
    wine = load_winequality_red()
    tr = list(KFold(5, shuffle=True, random_state=0).split(wine.X))[fold][0]
    X = StandardScaler().fit_transform(wine.X[tr])
    labels = np.searchsorted(np.unique(wine.quality), wine.quality[tr]).astype(np.int64)
    a = _solve(X, labels, "newton", c=10.0)
    b = _solve(X, labels, "clarabel", c=10.0)
    assert a.subproblem_solver == "newton" and a.n_fallback == 0
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    assert a.x == pytest.approx(b.x, abs=1e-6)
    _check_kkt(a, X, labels, np.full(labels.size, 10.0))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("thin", [False, True])
def test_random_problems_with_weights_equal_clarabel(seed, thin):
    X, labels = _problem(seed, thin=thin)
    sw = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 3.0], size=labels.size)
    a = _solve(X, labels, "newton", c=2.0, sample_weight=sw)
    b = _solve(X, labels, "clarabel", c=2.0, sample_weight=sw)
    assert a.n_fallback == 0
    assert a.objective == pytest.approx(b.objective, rel=1e-8)
    assert a.x == pytest.approx(b.x, abs=1e-5)
    _check_kkt(a, X, labels, 2.0 * sw)
    # the thresholds may differ on a flat stretch; the objective at ours is the optimum
    assert a.primal_objective == pytest.approx(b.objective, rel=1e-8)


def test_a_band_too_thin_grows_by_the_check(monkeypatch):
    """With a band of width 1e-6 almost every row is fixed or dropped by
    the Newton guess; the check moves the wrong ones in, and the answer is
    still the whole problem's optimum."""
    X, labels = _problem(7)
    calls = []
    real = screened._reduced_qp
    monkeypatch.setattr(screened, "_reduced_qp",
                        lambda *a: calls.append(int(a[4].sum())) or real(*a))
    monkeypatch.setattr(screened, "_BANDS", (1e-6, np.inf))
    monkeypatch.setattr(screened, "_MUS", (4.0,))           # a rough guess
    a = _solve(X, labels, "newton", c=5.0)
    b = _solve(X, labels, "clarabel", c=5.0)
    assert len(calls) >= 2 and calls == sorted(calls)        # the band only grows
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    _check_kkt(a, X, labels, np.full(labels.size, 5.0))


def test_failed_check_falls_back_to_the_whole_problem(monkeypatch):
    X, labels = _problem(3)
    monkeypatch.setattr(screened, "_MAX_ROUNDS", 0)
    a = _solve(X, labels, "newton", c=1.0)
    b = _solve(X, labels, "clarabel", c=1.0)
    assert a.n_fallback == 1 and a.subproblem_solver == "newton"
    assert a.objective == pytest.approx(b.objective, rel=1e-9)


def test_auto_picks_newton_for_the_linear_soft_primal_only(monkeypatch):
    X, labels = _problem(1, n=120)
    est = OrdinalMarginRanker(formulation="paper").fit(X, labels)   # soft, linear, primal
    assert est.result_.subproblem_solver == "newton"
    line = np.arange(30.0)[:, None]                           # separable
    hard = OrdinalMarginRanker(formulation="paper", margin="hard", method="full").fit(
        line, np.arange(30) >= 15)
    assert hard.result_.subproblem_solver == "clarabel"
    monkeypatch.setattr("polyrank.ordinal.subproblems.MAX_NEWTON_DIM", 3)   # d + l = 9
    assert OrdinalMarginRanker(formulation="paper").fit(
        X, labels).result_.subproblem_solver == "clarabel"


def test_generation_of_rs_uses_it_on_each_sub_problem():
    X, labels = _problem(2, n=400)
    a = solve_ordinal(X, labels, margin="soft", representation="primal", c=3.0,
                      subproblem_solver="newton", add_per_iter=40)
    b = _solve(X, labels, "clarabel", c=3.0)
    assert a.nit > 1 and a.status == "converged"
    assert a.objective == pytest.approx(b.objective, rel=1e-7)


@pytest.mark.parametrize("kw", [dict(margin="hard"), dict(representation="dual"),
                                dict(nonneg=True, representation="dual")])
def test_newton_refuses_problems_it_does_not_solve(kw):
    X, labels = _problem(0, n=60)
    args = dict(margin="soft", representation="primal") | kw
    with pytest.raises(ValueError, match="subproblem_solver: 'newton'"):
        solve_ordinal(X, labels, subproblem_solver="newton", **args)
    with pytest.raises(ValueError, match="subproblem_solver"):
        OrdinalMarginRanker(formulation="paper", subproblem_solver="newton", **kw).fit(
            X, labels)


def test_badly_scaled_features_same_optimum_without_warnings():
    """Features in the 1e4: the Newton guess meets an ill-conditioned
    system (scipy would warn); the answer is still Clarabel's, silently."""
    import warnings

    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    f = X @ rng.normal(size=4) + 0.5 * rng.normal(size=200)
    labels = np.digitize(f, np.quantile(f, [0.2, 0.5, 0.8]))
    X = X * 1e4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = _solve(X, labels, "newton", c=1.0)
    b = _solve(X, labels, "clarabel", c=1.0)
    assert a.n_fallback == 0
    assert a.objective == pytest.approx(b.objective, rel=1e-8)
