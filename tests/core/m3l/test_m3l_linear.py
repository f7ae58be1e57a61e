"""Linear M3L (m3l-multilabel-zero-shot.txt, Sec. 6): the compiled epoch
loop of :func:`polyrank.m3l.m3l_dca` on standardised data against Clarabel
on D2 (Eq. 25) and LIBLINEAR for R = I (Sec. 3.1), its duality-gap
certificate, its checks and callbacks, and a quick run of
``polyrank bench m3l-linear`` (no timings asserted)."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import GAP_ROUNDING
from sklearn.datasets import make_multilabel_classification
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from polyrank.m3l import dual_gradient, dual_qp, m3l_dca, projected_gradient
from polyrank.result import STATUS_CONVERGED
from polyrank_paper import BENCHES, bench_m3l_linear
from polyrank_paper.bench.m3l_linear import liblinear_primal

TOL = 1e-6          # agreement with the references (alpha, objectives)


def _standardised(N=60, D=8, L=4, seed=0):
    X, Y = make_multilabel_classification(n_samples=N, n_features=D, n_classes=L,
                                          random_state=seed)
    keep = Y.min(axis=0) < Y.max(axis=0)
    return StandardScaler().fit_transform(X), Y[:, keep].astype(float)


def _priors(L, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(L, L))
    dense = A @ A.T + 0.2 * np.eye(L)            # one group, negative entries likely
    block = dense.copy()                          # two groups: {0, 1}, {2, ...}
    block[:2, 2:] = 0.0
    block[2:, :2] = 0.0
    block[:2, :2] = [[1.0, 0.4], [0.4, 1.0]]
    block[2:, 2:] = dense[2:, 2:]
    return {"identity": np.eye(L), "dense": dense, "block": block}


def _primal_from_Z(X, Y, R, C, Z):
    """P2 (Eq. 11-14) from Z directly: 1/2 tr(Z R^-1 Z') + C sum hinge."""
    Ypm = np.where(Y > 0, 1.0, -1.0)
    return float(0.5 * np.sum(Z * (Z @ np.linalg.inv(R)))
                 + C * np.maximum(0.0, 2.0 - 2.0 * Ypm * (X @ Z)).sum())


@pytest.mark.parametrize("prior", ["identity", "dense", "block"])
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_dca_matches_clarabel_on_standardised_data(prior, shrinking, sparse):
    X, Y = _standardised()
    R = _priors(Y.shape[1])[prior]
    C = 0.5
    ref = dual_qp(X @ X.T, Y, R, C)
    res = m3l_dca(sp.csr_matrix(X) if sparse else X, Y, R, C, tol=1e-9,
                  shrinking=shrinking, random_state=2, max_iter=100_000)
    assert res.status == STATUS_CONVERGED
    assert abs(res.dual_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-5)
    Ypm = np.where(Y > 0, 1.0, -1.0)
    np.testing.assert_allclose(res.x, 2 * X.T @ (Ypm * ref.x) @ R, atol=1e-5)
    assert 0 <= res.gap <= 1e-6 * res.primal_objective


@pytest.mark.parametrize("prior", ["identity", "dense", "block"])
@pytest.mark.parametrize("shrinking", [True, False])
def test_gap_certificate_is_exact_over_all_variables(prior, shrinking):
    X, Y = _standardised(N=80, seed=1)
    N, L = Y.shape
    R = _priors(L, 1)[prior]
    C, tol = 2.0, 1e-4
    res = m3l_dca(X, Y, R, C, tol=tol, shrinking=shrinking, random_state=0,
                  max_iter=100_000)
    assert res.status == STATUS_CONVERGED
    alpha = res.dual["alpha"]
    Ypm = np.where(Y > 0, 1.0, -1.0)
    # the gradient recomputed from scratch: every projected gradient, shrunk
    # variables included, is below tol, and the stored G is that gradient
    G = dual_gradient(X @ X.T, Ypm, R, alpha)
    pg = np.abs(projected_gradient(alpha, G, C))
    assert pg.max() < tol
    assert res.max_projected_gradient == pytest.approx(pg.max(), abs=1e-10)
    np.testing.assert_allclose(res.dual["G"], G, atol=1e-9)
    # P and D from scratch (P from Z, D from alpha) give the reported gap,
    # which tol bounds: each term C max(0, G) - alpha G is at most 2 C tol
    P = _primal_from_Z(X, Y, R, C, res.x)
    A = Ypm * alpha
    D = 2 * alpha.sum() - 2 * np.sum(A * ((X @ X.T) @ A @ R))
    assert res.primal_objective == pytest.approx(P, rel=1e-10)
    assert res.dual_objective == pytest.approx(D, rel=1e-10)
    assert 0 <= res.gap <= 2 * C * tol * N * L
    # the last trace row is the certificate
    assert res.trace.max_pg[-1] == res.max_projected_gradient
    assert res.trace.gap[-1] == pytest.approx(res.gap)


def test_identity_R_is_one_vs_all_liblinear_on_standardised_data():
    X, Y = _standardised(N=120, D=10, L=5, seed=3)
    C = 0.5
    res = m3l_dca(X, Y, None, C, tol=1e-9, random_state=0, max_iter=100_000)
    W = np.column_stack([
        LinearSVC(loss="hinge", fit_intercept=False, C=2 * C, dual=True, tol=1e-10,
                  max_iter=1_000_000, random_state=0).fit(X, Y[:, lab]).coef_.ravel()
        for lab in range(Y.shape[1])])
    np.testing.assert_allclose(res.x, W, atol=1e-4)
    assert res.primal_objective == pytest.approx(liblinear_primal(X, Y, W, 2 * C), rel=1e-6)


def test_per_label_with_a_check_every_epoch_is_still_liblinear():
    # a check after about every epoch (labels that looked done and fail it
    # start again) and an F-ordered Y (the solver copies it to rows): the
    # same optimum as LIBLINEAR, every projected gradient of D2 below tol,
    # and the gap a certificate of it
    X, Y = _standardised(N=150, D=9, L=5, seed=11)
    C = 0.3
    res = m3l_dca(X, np.asfortranarray(Y), None, C, tol=1e-9, check_every=0.5,
                  random_state=1, max_iter=100_000)
    assert res.status == STATUS_CONVERGED and res.method == "per-label"
    assert res.nit > 3                                  # several checks, not one
    W = np.column_stack([
        LinearSVC(loss="hinge", fit_intercept=False, C=2 * C, dual=True, tol=1e-10,
                  max_iter=1_000_000, random_state=0).fit(X, Y[:, lab]).coef_.ravel()
        for lab in range(Y.shape[1])])
    np.testing.assert_allclose(res.x, W, atol=1e-4)
    Ypm = np.where(Y > 0, 1.0, -1.0)
    G = dual_gradient(X @ X.T, Ypm, np.eye(Y.shape[1]), res.dual["alpha"])
    assert np.abs(projected_gradient(res.dual["alpha"], G, C)).max() < 1e-8
    assert 0.0 <= res.gap <= 1e-6 * res.primal_objective + GAP_ROUNDING


@pytest.mark.parametrize("sparse", [False, True])
def test_per_label_matches_joint_and_clarabel_for_a_diagonal_R(sparse):
    # a diagonal R that is not I, sample weights (a zero one included) and
    # a constant label column: the per-label LIBLINEAR solve, the paper's
    # joint epochs and Clarabel on D2 agree
    X, Y = _standardised(N=70, D=6, L=4, seed=7)
    Y[:, 0] = 1.0
    R = np.diag([0.5, 1.0, 2.0, 4.0])
    w = np.random.default_rng(0).uniform(0.0, 2.0, size=X.shape[0])
    w[3] = 0.0
    C = 0.7
    ref = dual_qp(X @ X.T, Y, R, C, sample_weight=w)
    Xs = sp.csr_matrix(X) if sparse else X
    runs = {m: m3l_dca(Xs, Y, R, C, tol=1e-9, sample_weight=w, method=m, random_state=3,
                       max_iter=100_000) for m in ("auto", "per-label", "joint")}
    assert runs["auto"].method == "per-label" and runs["joint"].method == "joint"
    for res in runs.values():
        assert res.status == STATUS_CONVERGED
        np.testing.assert_allclose(res.dual["alpha"], ref.x, atol=1e-5)
        assert abs(res.dual_objective - ref.dual_objective) <= TOL * abs(ref.dual_objective)
    np.testing.assert_array_equal(runs["auto"].dual["alpha"], runs["per-label"].dual["alpha"])


def test_estimator_is_one_vs_rest_liblinear_with_its_regularised_bias():
    # M3LClassifier(bias=b) with R = I = LinearSVC(hinge, C = 2C,
    # intercept_scaling=b) per label: LIBLINEAR's bias is the weight of a
    # constant feature b, penalised like the others (Sec. 3, 3.1)
    from polyrank import M3LClassifier
    X, Y = _standardised(N=90, D=7, L=3, seed=8)
    C = 0.3
    for bias in (1.0, 2.5):
        ours = M3LClassifier(C=C, bias=bias, tol=1e-9, random_state=0).fit(X, Y)
        assert ours.result_.method == "per-label"
        for lab in range(Y.shape[1]):
            svc = LinearSVC(loss="hinge", C=2 * C, intercept_scaling=bias, tol=1e-10,
                            max_iter=1_000_000, random_state=0).fit(X, Y[:, lab])
            np.testing.assert_allclose(ours.coef_[lab], svc.coef_.ravel(), atol=1e-4)
            assert ours.intercept_[lab] == pytest.approx(svc.intercept_[0], abs=1e-4)


def test_method_errors_name_the_argument():
    X, Y = _standardised(N=20, L=3)
    R = _priors(Y.shape[1])["dense"]
    with pytest.raises(ValueError, match="method"):
        m3l_dca(X, Y, R, method="per-label")
    with pytest.raises(ValueError, match="method"):
        m3l_dca(X, Y, method="liblinear")


def test_checks_trace_and_callback():
    X, Y = _standardised(N=80, seed=4)
    N, L = Y.shape
    seen = []
    res = m3l_dca(X, Y, None, 5.0, tol=1e-8, random_state=0, check_every=0.5,
                  callback=seen.append, max_iter=100_000)
    assert res.status == STATUS_CONVERGED
    # one trace row and one callback per duality-gap check, numbered 1..nit
    assert [i.iteration for i in seen] == list(range(1, res.nit + 1))
    assert len(res.trace) == res.nit
    assert {"max_pg", "visited", "epochs", "labelwise"} <= set(seen[0].extras)
    assert res.trace.visited.sum() == res.visits and res.trace.epochs[-1] == res.epochs
    # a check comes at most one epoch (N L visits) after the budget
    assert np.all(res.trace.visited <= 0.5 * N * L + N * L)
    assert np.all(res.trace.gap >= -GAP_ROUNDING * np.abs(res.trace.primal))
    # fewer checks with a larger budget, the same optimum
    big = m3l_dca(X, Y, None, 5.0, tol=1e-8, random_state=0, check_every=1000.0)
    assert big.nit < res.nit
    assert big.dual_objective == pytest.approx(res.dual_objective, rel=1e-8)
    # callback_every, StopIteration and max_iter: tests/core/test_contracts.py


def test_check_every_errors_name_the_argument():
    X, Y = _standardised(N=20)
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(ValueError, match="check_every"):
            m3l_dca(X, Y, check_every=bad)
    with pytest.raises(TypeError, match="check_every"):
        m3l_dca(X, Y, check_every="10")


def test_groups_stop_on_their_own_and_match_separate_solves():
    # R block-diagonal: two independent problems; the joint solve equals the
    # two solved apart (Z's columns and alpha), whatever the visiting order
    X, Y = _standardised(N=70, D=6, L=4, seed=5)
    R = _priors(Y.shape[1], 5)["block"]
    C = 1.0
    joint = m3l_dca(X, Y, R, C, tol=1e-9, random_state=0)
    a = m3l_dca(X, Y[:, :2], R[:2, :2], C, tol=1e-9, random_state=1)
    b = m3l_dca(X, Y[:, 2:], R[2:, 2:], C, tol=1e-9, random_state=2)
    np.testing.assert_allclose(joint.dual["alpha"],
                               np.hstack([a.dual["alpha"], b.dual["alpha"]]), atol=1e-5)
    assert joint.primal_objective == pytest.approx(a.primal_objective + b.primal_objective,
                                                   rel=1e-7)


def test_bench_m3l_linear_quick_run():
    assert BENCHES["m3l-linear"].func is bench_m3l_linear
    res = bench_m3l_linear(quick=True, tol=1e-2, sizes=(200, 300))
    assert [r.problem for r in res.rows] == ["yeast", "generated 200", "generated 300"]
    for r in res.rows:
        assert min(r.m3l_s, r.strict_s, r.hinge_s, r.default_s, r.joint_s) > 0
        assert r.ratio_hinge == pytest.approx(r.m3l_s / r.hinge_s)
        assert r.ratio_strict_hinge == pytest.approx(r.strict_s / r.hinge_s)
        assert r.ratio_default == pytest.approx(r.m3l_s / r.default_s)
        # the same problem three ways: primal objectives within the tolerances' reach
        assert abs(r.primal_m3l - r.primal_hinge) < 1e-2 * r.primal_hinge
        assert abs(r.primal_m3l - r.primal_joint) < 1e-2 * r.primal_joint
        assert abs(r.primal_strict - r.primal_hinge) < 1e-2 * r.primal_hinge
        assert 0 <= r.m3l_gap_rel <= 1e-2             # the default rule: gap <= tol P
        assert abs(r.hamming_m3l_pct - r.hamming_hinge_pct) < 2.0
    assert set(res.summary.target_met) == {r.problem for r in res.rows}
    assert res.summary.target_same_loss == 1.0 and res.summary.target_default == 1.5
    assert set(res.summary.growth_exponent) == {"m3l", "strict", "hinge", "default", "joint"}
    assert any("LinearSVC()" in n for n in res.notes)
    # README rows built from the notes never speak of targets (tests/core/cli/test_cli.py)
    assert not any("target" in n.lower() for n in res.notes)
    assert "M3L/hinge" in res.format_table()


@pytest.mark.parametrize("method,prior", [("per-label", "identity"), ("joint", "identity"),
                                          ("joint", "block")])
def test_gap_stopping_is_a_certificate_of_the_primal(method, prior):
    # stopping="gap": each group's duality gap (from scratch) is at most tol
    # times its primal objective, so P is within a fraction tol of the
    # optimum found by a tight solve, which it can only exceed
    from polyrank.m3l.solver import label_gaps
    X, Y = _standardised(N=150, D=9, L=4, seed=12)
    R = _priors(Y.shape[1], 2)[prior]
    C, tol = 2.0, 1e-3
    res = m3l_dca(X, Y, R, C, tol=tol, stopping="gap", method=method, random_state=0,
                  max_iter=100_000)
    assert res.status == STATUS_CONVERGED and res.stopping == "gap"
    alpha = res.dual["alpha"]
    Ypm = np.where(Y > 0, 1.0, -1.0)
    G = dual_gradient(X @ X.T, Ypm, R, alpha)
    gap, primal = label_gaps(alpha, G, C)
    assert gap.sum() == pytest.approx(res.gap, rel=1e-8, abs=1e-9)
    assert primal.sum() == pytest.approx(res.primal_objective, rel=1e-10)
    assert 0 <= res.gap <= tol * res.primal_objective
    if prior == "identity":
        assert np.all(gap <= tol * primal)
    best = m3l_dca(X, Y, R, C, tol=1e-9, method=method, random_state=1, max_iter=100_000)
    assert best.primal_objective - 1e-9 <= res.primal_objective
    assert res.primal_objective - best.primal_objective <= tol * res.primal_objective
    # the rule is in the message; "pg" (the driver's default) is the paper's
    assert "duality gap" in res.message and "x primal" in res.message
    strict = m3l_dca(X, Y, R, C, tol=tol, method=method, random_state=0, max_iter=100_000)
    assert strict.stopping == "pg" and strict.max_projected_gradient < tol


def test_label_gaps_sum_to_the_objectives():
    from polyrank.m3l import m3l_objectives
    from polyrank.m3l.solver import label_gaps
    rng = np.random.default_rng(0)
    alpha = rng.uniform(0.0, 0.5, size=(30, 3))
    G = rng.normal(size=(30, 3))
    Cv = rng.uniform(0.5, 1.0, size=30)
    alpha = np.minimum(alpha, Cv[:, None])
    gap, primal = label_gaps(alpha, G, Cv)
    P, D = m3l_objectives(alpha, G, Cv)
    assert primal.sum() == pytest.approx(P) and gap.sum() == pytest.approx(P - D)
    assert np.all(gap >= 0)


def test_estimator_stopping_rules():
    from polyrank import M3LClassifier
    X, Y = _standardised(N=80, D=6, L=3, seed=9)
    ours = M3LClassifier(random_state=0).fit(X, Y)
    assert ours.result_.stopping == "gap"
    assert ours.result_.gap <= ours.tol * ours.result_.primal_objective
    strict = M3LClassifier(stopping="pg", random_state=0).fit(X, Y)
    assert strict.result_.stopping == "pg"
    assert strict.result_.max_projected_gradient < strict.tol
    rbf = M3LClassifier(kernel="rbf", random_state=0).fit(X, Y)
    assert rbf.result_.max_projected_gradient < rbf.tol       # "auto" is "pg" there
    with pytest.raises(ValueError, match="stopping"):
        M3LClassifier(kernel="rbf", stopping="gap").fit(X, Y)
    with pytest.raises(ValueError, match="stopping"):
        m3l_dca(X, Y, stopping="liblinear")
