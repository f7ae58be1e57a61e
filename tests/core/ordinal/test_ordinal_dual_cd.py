"""The warm-started SMO sub-problem solver of row and column generation
(``subproblem_solver="dual_cd"``, issue 16 item 3) against Clarabel: on single
sub-problems (the fixed-margin dual of (S~(W)) / (H~(W)), Sec. 5-8 of
row-column-generation-ordinal.txt), where its own primal point must close the
duality gap, and on whole solves against the whole QP (method="full")."""

from __future__ import annotations

import numpy as np
import pytest

from polyrank.kernels import kernel_matrix
from polyrank.ordinal import InfeasibleError, _kernels, make_instance, solve_ordinal
from polyrank.ordinal import subproblems as gen_module

REL = 1e-6
POLY4 = {"kernel": "poly", "gamma": 1.0, "degree": 4, "coef0": 1.0}
KERNELS = {"linear": {"kernel": "linear"}, "poly": POLY4,
           "rbf": {"kernel": "rbf", "gamma": 2.0}}


def primal_value(K, lab, cap, lam, p, soft):
    """The sub-problem's objective lambda' K lambda + sum_t cap_t (slacks) at
    (lambda, p), and the largest violation of a hard margin constraint."""
    f = K @ lam
    thr = np.r_[-np.inf, p, np.inf]
    lo = np.maximum(0.0, 1.0 - f + thr[lab])
    up = np.maximum(0.0, 1.0 + f - thr[lab + 1])
    reg = float(lam @ f)
    if soft:
        return reg + float(cap @ (lo + up)), 0.0
    return reg, float(max(lo.max(), up.max()))


def run_cd(K, lab, cap, a=None, b=None, eps=1e-10, f_given=False):
    w = lab.size
    a = np.zeros(w) if a is None else a.copy()
    b = np.zeros(w) if b is None else b.copy()
    fW = K @ (0.5 * (a - b)) if f_given else np.full(w, np.nan)
    p = np.empty(lab.max())
    status, steps, gap, dual = _kernels.dual_cd(K, lab, lab.max() + 1, cap, a, b, fW,
                                                f_given, eps, 10 ** 6, p)
    return int(status), int(steps), dual, a, b, p


def sub_problem(n, seed, kernel, separable):
    X, y = make_instance(n, 1, separable=separable, seed=seed)
    return kernel_matrix(X, X, **kernel), y


@pytest.mark.slow
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("margin", ["soft", "hard"])
def test_one_sub_problem_matches_clarabel_and_closes_its_duality_gap(kernel, margin):
    K, lab = sub_problem(40, 3, KERNELS[kernel], separable=margin == "hard")
    soft = margin == "soft"
    rng = np.random.default_rng(1)
    # per-object penalties, some zero (sample_weight 0) and some large
    cap = (10.0 * rng.choice([0.0, 0.5, 1.0, 3.0], size=lab.size) if soft
           else np.full(lab.size, np.inf))
    status, steps, dual, a, b, p = run_cd(K, lab, cap)
    assert status == 0 and steps > 0
    # feasible for the dual: the box and the l equalities
    assert a.min() >= 0 and b.min() >= 0
    if soft:
        assert np.all(a <= cap) and np.all(b <= cap)
    assert np.all(a[lab == 0] == 0) and np.all(b[lab == lab.max()] == 0)
    for k in range(1, lab.max() + 1):
        assert a[lab == k].sum() == pytest.approx(b[lab == k - 1].sum(), rel=1e-12, abs=1e-9)
    lam = 0.5 * (a - b)
    # its own primal point (lambda, thresholds from KKT) has the dual's value
    primal, viol = primal_value(K, lab, cap, lam, p, soft)
    assert primal == pytest.approx(dual, rel=1e-8)
    assert viol <= 1e-7
    # and Clarabel on the same dual agrees
    coef, p_ref, _, _, res = gen_module._solve_sub_dual(
        K.copy(), lab, lab.max(), soft, cap if soft else np.full(lab.size, 1.0), 1e-10, "Sub")
    assert dual == pytest.approx(res.lower_bound, rel=1e-7)
    np.testing.assert_allclose(K @ lam, K @ coef, atol=1e-5 * max(1.0, np.abs(K @ coef).max()))


@pytest.mark.slow
@pytest.mark.parametrize("margin", ["soft", "hard"])
def test_warm_start_from_a_smaller_working_set_reaches_the_same_optimum(margin):
    K, lab = sub_problem(50, 4, POLY4, separable=margin == "hard")
    soft = margin == "soft"
    cap = np.full(lab.size, 10.0 if soft else np.inf)
    # a first working set: every label present, then all objects
    first = np.r_[[np.flatnonzero(lab == k)[:4] for k in range(4)]].ravel()
    rest = np.setdiff1d(np.arange(lab.size), first)
    order = np.r_[first, rest]
    K, lab, cap = K[np.ix_(order, order)], lab[order], cap[order]
    m = first.size
    _, _, _, a0, b0, _ = run_cd(K[:m, :m], lab[:m], cap[:m])
    a = np.r_[a0, np.zeros(rest.size)]
    b = np.r_[b0, np.zeros(rest.size)]
    st_w, steps_w, dual_w, _, _, _ = run_cd(K, lab, cap, a, b)
    st_g, steps_g, dual_g, _, _, _ = run_cd(K, lab, cap, a, b, f_given=True)
    st_c, steps_c, dual_c, _, _, _ = run_cd(K, lab, cap)
    assert st_w == st_g == st_c == 0
    assert dual_w == pytest.approx(dual_c, rel=1e-9)
    assert dual_g == pytest.approx(dual_c, rel=1e-9)


@pytest.mark.parametrize("kernel", list(KERNELS))
def test_unbounded_hard_margin_dual_is_reported(kernel):
    """The same x in two layers: no margin exists and the dual is unbounded
    (status 2 when the pair chosen has no curvature, else the step budget
    runs out: status 1; the driver then lets Clarabel decide)."""
    X, y = make_instance(20, 1, separable=True, seed=2)
    X = np.vstack([X, X[:1]])
    y = np.r_[y, (y[0] + 1) % 4]
    K = kernel_matrix(X, X, **KERNELS[kernel])
    status, *_ = run_cd(K, y, np.full(y.size, np.inf))
    assert status in (1, 2)


@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.parametrize("kind", ["S", "NS"])
@pytest.mark.parametrize("margin", ["soft", "hard"])
def test_generation_with_dual_cd_equals_the_whole_qp(kernel, kind, margin):
    if margin == "hard" and kind == "NS":
        pytest.skip("NS is not (or barely) separable")
    X, y = make_instance(120, 3, separable=kind == "S", seed=5)
    kw = {"margin": margin, "c": 10.0, **KERNELS[kernel]}
    if margin == "hard" and kernel == "linear":
        keep = np.all(np.abs(X.sum(1)[:, None] - np.array([0.5, 1.0, 1.5])) > 0.03, axis=1)
        X, y = X[keep], y[keep]                       # well conditioned
    g = solve_ordinal(X, y, subproblem_solver="dual_cd", **kw)
    c = solve_ordinal(X, y, subproblem_solver="clarabel", **kw)
    f = solve_ordinal(X, y, method="full", **kw)
    assert g.subproblem_solver == "dual_cd" and c.subproblem_solver == "clarabel"
    assert g.status == f.status == "converged"
    assert g.objective == pytest.approx(f.objective, rel=REL)
    assert g.objective == pytest.approx(c.objective, rel=REL)
    assert g.working_set.size < X.shape[0]
    # the lower bound of the last sub-problem is the optimum too
    assert g.dual_objective == pytest.approx(f.objective, rel=REL)
    scale = max(1.0, np.abs(f.scores).max())
    np.testing.assert_allclose(g.scores, f.scores, atol=1e-4 * scale)
    assert np.all(g.trace.cd_steps >= 0) and g.cd_steps == g.trace.cd_steps.sum()


def test_dual_cd_with_sample_weights_equals_the_whole_qp():
    X, y = make_instance(100, 2, separable=False, seed=9)
    w = np.random.default_rng(0).choice([0.0, 1.0, 2.5], size=y.size)
    w[np.searchsorted(np.sort(y), np.arange(4))] = 1.0   # keep labels weighted
    kw = {"margin": "soft", "c": 10.0, "kernel": "rbf", "gamma": 2.0, "sample_weight": w}
    g = solve_ordinal(X, y, subproblem_solver="dual_cd", **kw)
    f = solve_ordinal(X, y, method="full", **kw)
    assert g.objective == pytest.approx(f.objective, rel=REL)


def test_zero_weights_impose_no_threshold_condition():
    """Found by hypothesis: objects of weight 0 have a_t = b_t = 0 = cap_t,
    which must not bound p_k (it did: objective 0.69 instead of 0.40)."""
    X = np.array([[0.12573022], [-0.13210486], [0.64042265], [0.10490012],
                  [-0.53566937], [0.36159505]])
    y = np.array([1, 0, 1, 1, 0, 0])
    kw = {"margin": "soft", "c": 0.1, "sample_weight": np.array([1.0, 0, 2, 2, 2, 0])}
    g = solve_ordinal(X, y, add_per_iter=1, subproblem_solver="dual_cd", **kw)
    f = solve_ordinal(X, y, method="full", **kw)
    assert g.objective == pytest.approx(f.objective, rel=REL)
    assert f.objective == pytest.approx(0.39589670728078674, rel=1e-6)


def test_dual_cd_on_an_infeasible_hard_margin_problem_raises():
    X, y = make_instance(60, 1, separable=True, seed=7)
    X = np.vstack([X, X[:1]])
    y = np.r_[y, (y[0] + 1) % 4]
    for kw in ({}, POLY4):
        with pytest.raises(InfeasibleError, match="infeasible"):
            solve_ordinal(X, y, margin="hard", subproblem_solver="dual_cd", **kw)


def test_subproblem_solver_choice():
    X, y = make_instance(60, 1, separable=False, seed=3)
    with pytest.raises(ValueError, match="subproblem_solver"):
        solve_ordinal(X, y, subproblem_solver="smo")
    assert solve_ordinal(X, y, margin="soft", **POLY4).subproblem_solver == "dual_cd"
    Xs, ys = make_instance(60, 1, separable=True, seed=3)
    assert solve_ordinal(Xs, ys, margin="hard", **POLY4).subproblem_solver == "clarabel"
    # the primal representation and the whole QP always use Clarabel
    assert solve_ordinal(X, y, margin="soft", representation="primal",
                         subproblem_solver="dual_cd").subproblem_solver == "clarabel"
    assert solve_ordinal(X, y, margin="soft", method="full",
                         subproblem_solver="dual_cd").subproblem_solver == "clarabel"


def random_problem(seed):
    """Small soft margin problems with a large c (1000) and ties/weights."""
    rng = np.random.default_rng(seed)
    n, m, n_labels = int(rng.integers(4, 40)), int(rng.integers(1, 4)), int(rng.integers(2, 5))
    X = rng.normal(size=(n, m))
    if rng.random() < 0.2:
        X = np.round(X, 1)
    s = X @ rng.normal(size=m) + 0.5 * rng.normal(size=n)
    y = np.argsort(np.argsort(s)) * n_labels // n
    c = float(rng.choice([0.01, 0.1, 1.0, 10.0, 1000.0]))
    w = None
    if rng.random() < 0.5:
        w = rng.integers(0, 3, size=n).astype(float)
        w[rng.integers(n)] = 1.0
    kw = dict(margin="soft", c=c, kernel=str(rng.choice(["linear", "rbf", "poly"])),
              gamma=float(rng.choice([0.5, 2.0])), degree=int(rng.integers(2, 4)),
              sample_weight=w)
    return X, y, kw, int(rng.choice([1, 2, 5]))


@pytest.mark.parametrize("seed", [118, 174, 315])
def test_large_c_closes_the_duality_gap_not_only_the_kkt_gap(seed):
    """c = 1000, polynomial kernel: a KKT gap of 1e-9 left relative objective
    errors up to 4e-5 (the duality gap grows with the multipliers, up to c);
    the solver now also checks the sub-problem's duality gap."""
    X, y, kw, api = random_problem(seed)
    assert kw["c"] == 1000.0
    g = solve_ordinal(X, y, add_per_iter=api, subproblem_solver="dual_cd", **kw)
    f = solve_ordinal(X, y, method="full", **kw)
    assert g.objective == pytest.approx(f.objective, rel=REL)
    # upper minus lower bound (objects outside W may violate by up to tol =
    # 1e-7, which costs c * 1e-7 each in the objective)
    assert g.objective - g.dual_objective <= REL * g.objective


def test_estimator_passes_the_sub_problem_solver_through():
    from polyrank import OrdinalMarginRanker

    X, y = make_instance(150, 2, separable=False, seed=11)
    kw = {"formulation": "paper", "kernel": "rbf", "gamma": 2.0, "c": 10.0}
    fast = OrdinalMarginRanker(**kw).fit(X, y)
    ref = OrdinalMarginRanker(subproblem_solver="clarabel", **kw).fit(X, y)
    assert fast.result_.subproblem_solver == "dual_cd"
    assert ref.result_.subproblem_solver == "clarabel"
    assert fast.result_.objective == pytest.approx(ref.result_.objective, rel=REL)
    with pytest.raises(ValueError, match="subproblem_solver"):
        OrdinalMarginRanker(formulation="paper", subproblem_solver="smo").fit(X, y)
