"""Row and column generation for ordinal ranking (row-column-generation-ordinal.txt):
the generation algorithms against the whole problem solved at once by Clarabel,
against independent formulations (w in the primal, explicit polynomial
features, scikit-learn's libsvm for two labels), the Lemmas' stopping rule,
the monotone variant, PRank against a plain-Python transcription of
Crammer & Singer's Fig. 1, and hostile input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from polyrank.kernels import kernel_matrix
from polyrank.ordinal import (
    PAPER_THRESHOLDS,
    InfeasibleError,
    _kernels,
    check_labels,
    initial_working_set,
    make_instance,
    prank,
    predict_labels,
    rank_loss,
    solve_ordinal,
    subproblems,
)

REL = 1e-6
POLY4 = {"kernel": "poly", "gamma": 1.0, "degree": 4, "coef0": 1.0}

FORMULATIONS = {
    "H": {"margin": "hard", "representation": "primal"},
    "Hbar": {"margin": "hard"},
    "Htilde": {"margin": "hard", **POLY4},
    "Htilde-rbf": {"margin": "hard", "kernel": "rbf", "gamma": 2.0},
    "Htilde+": {"margin": "hard", "nonneg": True, **POLY4},
    "S": {"margin": "soft", "representation": "primal", "c": 10.0},
    "Sbar": {"margin": "soft", "c": 10.0},
    "Stilde": {"margin": "soft", "c": 10.0, **POLY4},
    "Stilde-rbf": {"margin": "soft", "c": 10.0, "kernel": "rbf", "gamma": 2.0},
    "Stilde+": {"margin": "soft", "c": 10.0, "nonneg": True, **POLY4},
}


def separable(n, seed, gap=0.05):
    """S-type data (Sec. 10) without the objects within ``gap`` of a threshold,
    so that the linear hard margin problem is well conditioned."""
    X, y = make_instance(4 * n, 1, separable=True, seed=seed)
    s = X.sum(1)
    keep = np.all(np.abs(s[:, None] - np.asarray(PAPER_THRESHOLDS)) > gap, axis=1)
    return X[keep][:n], y[keep][:n]


def non_separable(n, seed):
    return make_instance(n, 2, separable=False, seed=seed)


def assert_same_solution(g, f, labels, rel=REL):
    """Same objective, same scores; the same predictions wherever the
    thresholds are unique.  With the soft margin a threshold p_k that no
    free support vector pins is optimal on a whole interval: objects whose
    score lies between the two solvers' p_k are left out of the comparison."""
    assert g.status == f.status == "converged"
    assert g.objective == pytest.approx(f.objective, rel=rel)
    scale = max(1.0, np.abs(f.scores).max())
    np.testing.assert_allclose(g.scores, f.scores, atol=1e-4 * scale)
    lo = np.minimum(g.thresholds, f.thresholds) - 1e-4 * scale
    hi = np.maximum(g.thresholds, f.thresholds) + 1e-4 * scale
    ambiguous = np.any((g.scores[:, None] > lo) & (g.scores[:, None] < hi), axis=1)
    assert ambiguous.mean() < 0.1
    np.testing.assert_array_equal(g.predictions[~ambiguous], f.predictions[~ambiguous])
    for r in (g, f):
        assert np.all(np.diff(r.thresholds) > 0)          # thresholds are ordered
        np.testing.assert_array_equal(r.predictions, predict_labels(r.scores, r.thresholds))


def hard_margin_feasible(r, labels, rtol=1e-7):
    """The hard margin constraints hold up to rtol times the scale of the
    scores (Clarabel's accuracy inside W, the stopping tolerance outside)."""
    tol = rtol * max(1.0, np.abs(r.scores).max())
    thr = np.r_[-np.inf, r.thresholds, np.inf]
    return (np.all(r.scores >= thr[labels] + 1 - tol)
            and np.all(r.scores <= thr[labels + 1] - 1 + tol))


@pytest.mark.parametrize("name", list(FORMULATIONS))
@pytest.mark.parametrize("kind", ["S", "NS"])
def test_generation_equals_full_problem(name, kind):
    kw = FORMULATIONS[name]
    X, y = separable(70, 1) if kind == "S" else non_separable(70, 1)
    rel = REL
    if kw["margin"] == "hard" and kind == "NS":
        # when a rich kernel separates NS data at all, it does so barely:
        # ||w||^2 ~ 1.8e8 with expansion coefficients ~1e4, and Clarabel's
        # KKT accuracy (1e-10 relative) leaves ~1e-6 in the objective
        rel = 1e-5
        # NS data may still be separable by the rich kernels; only assert when
        # the whole problem is feasible, and then that generation agrees
        try:
            f = solve_ordinal(X, y, method="full", **kw)
        except InfeasibleError:
            with pytest.raises(InfeasibleError, match="infeasible"):
                solve_ordinal(X, y, **kw)
            return
    else:
        f = solve_ordinal(X, y, method="full", **kw)
    g = solve_ordinal(X, y, **kw)
    assert_same_solution(g, f, y, rel=rel)
    # the working set is a fraction of N, and its growth obeys add_per_iter
    assert g.working_set.size < X.shape[0]
    assert np.all(g.trace.n_added <= 2 + (1 if kw.get("nonneg") else 0))
    if kw["margin"] == "hard":
        assert hard_margin_feasible(g, y)
        assert g.slack_lo.sum() == 0.0 and g.slack_up.sum() == 0.0


def test_rows_outside_w_satisfied_at_termination():
    """Lemma 5.1 / 7.2: at termination no object outside W violates its hard
    margin constraints; objects in W may (soft margin) carry slack."""
    X, y = non_separable(120, 3)
    r = solve_ordinal(X, y, margin="soft", c=10.0, **POLY4)
    out = np.setdiff1d(np.arange(y.size), r.working_set)
    assert r.slack_lo[out].max() <= 1e-7 and r.slack_up[out].max() <= 1e-7
    assert r.trace.max_violation[-1] <= 1e-7 and r.trace.n_violated[-1] == 0
    # the objective's slack part lives on W
    assert r.objective == pytest.approx(
        float(r.x @ kernel_matrix(X, X, "poly", gamma=1.0, degree=4, coef0=1.0) @ r.x)
        + 10.0 * (r.slack_lo.sum() + r.slack_up.sum()), rel=1e-9)


def test_dual_representation_equals_primal_w():
    """(H-bar) / (S-bar) with w = X lambda have the optimum of (H) / (S)
    (Lemma 3.1): two different QPs give the same ||w||^2 and thresholds."""
    for X, y, margin in ((*separable(80, 4), "hard"), (*non_separable(80, 4), "soft")):
        d = solve_ordinal(X, y, margin=margin, c=3.0)
        p = solve_ordinal(X, y, margin=margin, c=3.0, representation="primal", method="full")
        assert d.objective == pytest.approx(p.objective, rel=REL)
        np.testing.assert_allclose(X.T @ d.x, p.x, rtol=1e-4, atol=1e-6 * np.abs(p.x).max())


def _poly_features(X, degree):
    """Explicit feature map of (1 + x.y)^d: sqrt(d! / ((d - |a|)! a!)) x^a."""
    from sklearn.preprocessing import PolynomialFeatures

    pf = PolynomialFeatures(degree).fit(X)
    weights = np.array([math.factorial(degree)
                        / (math.factorial(degree - a.sum())
                           * np.prod([math.factorial(t) for t in a]))
                        for a in pf.powers_])
    return pf.transform(X) * np.sqrt(weights)


def test_polynomial_kernel_equals_explicit_features():
    """(H~) / (S~) with (1 + x.y)^4 = (H) / (S) on the explicit feature map."""
    Phi_check = _poly_features(np.array([[0.3, 0.7], [0.2, 0.9]]), 4)
    assert Phi_check[0] @ Phi_check[1] == pytest.approx((1 + 0.3 * 0.2 + 0.7 * 0.9) ** 4)
    for X, y, margin in ((*separable(80, 5), "hard"), (*non_separable(80, 5), "soft")):
        k = solve_ordinal(X, y, margin=margin, c=10.0, **POLY4)
        e = solve_ordinal(_poly_features(X, 4), y, margin=margin, c=10.0,
                          representation="primal", method="full")
        assert k.objective == pytest.approx(e.objective, rel=REL)
        np.testing.assert_allclose(k.scores, e.scores, atol=1e-5 * np.abs(e.scores).max())


@pytest.mark.parametrize("kernel", [{"kernel": "linear"}, {"kernel": "rbf", "gamma": 1.5}])
def test_two_labels_soft_margin_is_libsvm(kernel):
    """With labels {0, 1}, (S~) is the C-SVM: min ||w||^2 + c sum xi equals
    2 x (1/2 ||w||^2 + (c/2) sum xi), libsvm's SVC(C=c/2), bias b = -p_1."""
    from sklearn.svm import SVC

    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=60) > 0).astype(int)
    c = 4.0
    r = solve_ordinal(X, y, margin="soft", c=c, **kernel)
    svc = SVC(C=c / 2, tol=1e-10, **kernel).fit(X, y)
    K = kernel_matrix(X, X[svc.support_], **kernel)
    f = K @ svc.dual_coef_[0]
    Ksv = kernel_matrix(X[svc.support_], **kernel)
    obj_svm = float(svc.dual_coef_[0] @ Ksv @ svc.dual_coef_[0]) + c * np.maximum(
        0, 1 - (2 * y - 1) * (f + svc.intercept_[0])).sum()
    assert r.objective == pytest.approx(obj_svm, rel=1e-5)
    np.testing.assert_allclose(r.scores - r.thresholds[0], f + svc.intercept_[0], atol=1e-3)


def test_hard_margin_on_non_separable_data_is_an_infeasibility_error():
    X, y = make_instance(60, 1, separable=True, seed=7)
    X = np.vstack([X, X[:1]])                         # the same x with another label
    y = np.r_[y, (y[0] + 1) % 4]
    for kw in ({"representation": "primal"}, {}, POLY4, {**POLY4, "nonneg": True}):
        for method in ("generation", "full"):
            with pytest.raises(InfeasibleError, match="infeasible"):
                solve_ordinal(X, y, margin="hard", method=method, **kw)
    with pytest.raises(ValueError, match="not separable"):   # a ValueError subclass
        solve_ordinal(X, y, margin="hard")
    assert solve_ordinal(X, y, margin="soft", c=1.0).status == "converged"


def test_monotone_variant_keeps_lambda_nonnegative_and_prices_columns():
    """(H~+) (Appendix A): lambda >= 0, objective >= that of (H~), and at
    termination every column outside W has a nonnegative reduced cost."""
    X, y = separable(90, 8)
    plus = solve_ordinal(X, y, margin="hard", nonneg=True, **POLY4)
    free = solve_ordinal(X, y, margin="hard", **POLY4)
    assert plus.x.min() >= -1e-9
    assert plus.objective >= free.objective * (1 - 1e-9)
    K = kernel_matrix(X, X, "poly", gamma=1.0, degree=4, coef0=1.0)
    nu = K @ (2 * plus.x + plus.dual["y_up"] - plus.dual["y_lo"])
    out = np.setdiff1d(np.arange(y.size), plus.working_set)
    assert nu[out].min() >= -1e-6
    # the paper's Lemma A.1: nonnegative lambda and a nondecreasing kernel on
    # x >= 0 give scores nondecreasing in every attribute
    grid = np.array([[a, b] for a in np.linspace(0, 1, 6) for b in np.linspace(0, 1, 6)])
    f = kernel_matrix(grid, X, "poly", gamma=1.0, degree=4, coef0=1.0) @ plus.x
    F = f.reshape(6, 6)
    assert np.all(np.diff(F, axis=0) >= -1e-9) and np.all(np.diff(F, axis=1) >= -1e-9)


def test_trace_bounds_and_working_set_growth():
    X, y = non_separable(150, 9)
    r = solve_ordinal(X, y, margin="soft", c=10.0, **POLY4)
    t = r.trace
    assert len(t) == r.nit and np.all(np.diff(t.n_rows) == t.n_added[:-1])
    assert t.n_rows[0] == r.n_initial and t.n_rows[-1] == r.working_set.size
    assert np.all(np.diff(t.dual) >= -1e-7 * abs(t.dual[-1]))   # relaxations grow
    assert np.all(t.primal >= t.dual - 1e-7 * abs(t.dual[-1]))   # upper >= lower
    assert abs(t.gap[-1]) <= 1e-7 * r.objective
    assert t.gap[0] > 1e-3 * r.objective                          # it really closed
    h = solve_ordinal(*separable(150, 9), margin="hard", **POLY4)
    assert abs(h.gap) <= 1e-6 * h.objective


def test_initial_working_set_lowest_median_highest():
    rng = np.random.default_rng(10)
    y = rng.integers(0, 4, size=40)
    y[:4] = [0, 1, 2, 3]
    s = rng.normal(size=40)
    W = initial_working_set(s, y, 4)
    expect = []
    for k in range(4):
        idx = np.flatnonzero(y == k)
        idx = idx[np.argsort(s[idx], kind="stable")]
        for i in (idx[0], idx[(idx.size - 1) // 2], idx[-1]):
            if i not in expect:
                expect.append(i)
    assert W.tolist() == expect
    # a label with a single object contributes it once
    assert initial_working_set(np.arange(4.0), np.array([0, 1, 1, 1]), 2).tolist() == [0, 1, 2, 3]


def test_add_per_iter_and_paper_choice_of_delta():
    v_lo = np.array([0.5, -1.0, 2.0, 0.1, -np.inf])
    v_up = np.array([-np.inf, 3.0, -1.0, 0.2, 0.05])
    out = np.empty(4, dtype=np.int64)
    assert _kernels.select_violated(v_lo, v_up, 2, 0.0, out) == 2
    assert out[:2].tolist() == [2, 1]       # argmax lower, argmax upper (Sec. 10)
    assert _kernels.select_violated(v_lo, v_up, 1, 0.0, out) == 1 and out[0] == 1
    assert _kernels.select_violated(v_lo, v_up, 4, 0.0, out) == 4
    assert out.tolist() == [2, 0, 1, 3]
    assert _kernels.select_violated(v_lo, v_up, 2, 5.0, out) == 0
    X, y = non_separable(100, 11)
    for a in (1, 5):
        r = solve_ordinal(X, y, margin="soft", c=10.0, add_per_iter=a, **POLY4)
        ref = solve_ordinal(X, y, margin="soft", c=10.0, method="full", **POLY4)
        assert r.objective == pytest.approx(ref.objective, rel=REL)
        assert r.trace.n_added.max() <= a


def test_generation_never_builds_the_full_gram(monkeypatch):
    shapes = []
    real = subproblems._kernel_columns

    def spy(X, rows, *args, **kwargs):
        out = real(X, rows, *args, **kwargs)
        shapes.append(out.shape)
        return out

    monkeypatch.setattr(subproblems, "_kernel_columns", spy)
    X, y = non_separable(200, 12)
    for solver in ("dual_cd", "clarabel"):
        shapes.clear()
        r = solve_ordinal(X, y, margin="soft", c=10.0, subproblem_solver=solver, **POLY4)
        assert sum(s[1] for s in shapes) == r.working_set.size
        assert all(s[0] == 200 and s[1] <= 3 * 4 for s in shapes)
    shapes.clear()
    solve_ordinal(X, y, margin="soft", c=10.0, method="full", **POLY4)
    assert shapes == [(200, 200)]


def test_kappa_matches_polyrank_kernels():
    rng = np.random.default_rng(14)
    A, B = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    for kind, kw in ((_kernels.LINEAR, {}), (_kernels.RBF, {"gamma": 0.7}),
                     (_kernels.POLY, {"gamma": 0.5, "degree": 4, "coef0": 1.0})):
        name = {0: "linear", 1: "rbf", 2: "poly"}[kind]
        K = kernel_matrix(A, B, name, **kw)
        got = [[_kernels.kappa(a, b, kind, kw.get("gamma", 1.0), float(kw.get("degree", 1)),
                               kw.get("coef0", 0.0)) for b in B] for a in A]
        np.testing.assert_allclose(got, K, rtol=1e-12)


def _prank_reference(K, labels, l, epochs):
    """Crammer & Singer, "Pranking with ranking", Fig. 1, kernelised, in plain
    Python (ranks 1..k are our labels 0..l)."""
    n = len(labels)
    alpha = [0.0] * n
    b = [0.0] * l
    for _ in range(epochs):
        for i in range(n):
            f = sum(alpha[j] * K[j][i] for j in range(n))
            pred = next((r for r in range(l) if f < b[r]), l)
            if pred == labels[i]:
                continue
            taus = []
            for r in range(l):
                yr = 1.0 if labels[i] >= r + 1 else -1.0
                taus.append(yr if (f - b[r]) * yr <= 0 else 0.0)
            alpha[i] += sum(taus)
            b = [b[r] - taus[r] for r in range(l)]
    return np.array(alpha), np.array(b)


def test_prank_matches_reference_and_keeps_thresholds_ordered():
    X, y = non_separable(60, 15)
    for kw in ({"kernel": "linear"}, POLY4, {"kernel": "rbf", "gamma": 2.0}):
        r = prank(X, y, max_iter=3, **kw)
        params = {k: v for k, v in kw.items() if k != "kernel"}
        K = kernel_matrix(X, X, kw["kernel"], **params)
        alpha, b = _prank_reference(K.tolist(), y.tolist(), 3, r.nit)
        np.testing.assert_allclose(r.x, alpha, atol=1e-9)
        np.testing.assert_allclose(r.thresholds, b, atol=1e-9)
        assert np.all(np.diff(r.thresholds) >= 0)       # Crammer & Singer, Lemma 1
    Xs, ys = separable(60, 15)
    r = prank(Xs, ys, max_iter=2000, **POLY4)
    assert r.status == "converged" and r.mistakes == 0


def test_rank_loss_and_instances():
    X, y = make_instance(500, 3, separable=True, seed=1)
    assert X.shape == (500, 2) and X.min() >= 0 and X.max() <= 1
    np.testing.assert_array_equal(y, np.searchsorted(PAPER_THRESHOLDS, X.sum(1)))
    Xn, yn = make_instance(500, 3, separable=False, seed=1)
    assert 0 < np.mean(yn != np.searchsorted(PAPER_THRESHOLDS, Xn.sum(1))) < 0.2
    X2, _ = make_instance(500, 4, separable=True, seed=1)
    assert not np.array_equal(X, X2)
    assert rank_loss([0, 1, 3], [1, 1, 1]) == 1.0


# ------------------------------------------------------------ hostile input

@pytest.mark.parametrize("labels, exc, match", [
    ([0, 0, 2, 2, 0, 2], ValueError, "label 1 has no objects"),
    ([1, 1, 2, 2, 1, 2], ValueError, "label 0 has no objects"),
    ([0, 0.5, 1, 1, 0, 1], ValueError, "non-integer"),
    ([0, np.nan, 1, 1, 0, 1], ValueError, "NaN"),
    (["a", "b", "a", "b", "a", "b"], TypeError, "integer labels"),
    ([True, False, True, False, True, False], TypeError, "booleans"),
    ([0, 1, 0, 1, 0], ValueError, "expected 6 labels"),
    ([0, -1, 1, 1, 0, 1], ValueError, ">= 0"),
    ([0, 0, 0, 0, 0, 0], ValueError, "at least two labels"),
])
def test_bad_labels(labels, exc, match):
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(exc, match=match):
        solve_ordinal(X, labels)
    with pytest.raises(exc, match=match):
        prank(X, labels)


def test_bad_parameters_and_data():
    X, y = separable(30, 16)
    for c in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="c"):
            solve_ordinal(X, y, margin="soft", c=c)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X: contains NaN"):
        solve_ordinal(Xn, y)
    with pytest.raises(ValueError, match="margin"):
        solve_ordinal(X, y, margin="medium")
    with pytest.raises(ValueError, match="kernel"):
        solve_ordinal(X, y, representation="primal", kernel="rbf")
    with pytest.raises(ValueError, match="nonneg"):
        solve_ordinal(X, y, representation="primal", nonneg=True)
    with pytest.raises(ValueError, match="add_per_iter"):
        solve_ordinal(X, y, add_per_iter=0)
    with pytest.raises(ValueError, match="method"):
        solve_ordinal(X, y, method="magic")
    with pytest.raises(ValueError, match="init_scores"):
        solve_ordinal(X, y, init_scores=np.ones(3))
    with pytest.raises(ValueError, match="gamma"):
        solve_ordinal(X, y, kernel="rbf", gamma=-1.0)
    with pytest.raises(TypeError, match="X"):
        solve_ordinal([["a", "b"]] * 30, y)
    assert check_labels(np.array([0.0, 1.0, 1.0]), 3)[1] == 1
