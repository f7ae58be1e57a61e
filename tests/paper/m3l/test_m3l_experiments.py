"""Reproductions of m3l-multilabel-zero-shot.txt (Sec. 7) on small/quick
settings: properties of the results, never timings (DESIGN.md)."""

import json

import numpy as np
import pytest

from polyrank.cli import main
from polyrank.datasets import load_yeast
from polyrank.m3l import correlated_pair_subset, empirical_prior, fig5_pair, shifted_subset
from polyrank_paper import (
    BENCHES,
    EXPERIMENTS,
    m3l_awa_prior,
    m3l_fig5,
    m3l_table1,
    m3l_table3,
)


@pytest.fixture(scope="module")
def yeast():
    return load_yeast()


def test_registered():
    assert {"m3l-fig5", "m3l-table3", "m3l-table1", "m3l-awa-prior"} <= set(EXPERIMENTS)
    assert "m3l" in BENCHES


@pytest.mark.parametrize("rho", [-0.6, 0.0, 0.6])
def test_correlated_pair_subset_hits_the_target(yeast, rho):
    idx = correlated_pair_subset(yeast.Y_train, 1, 3, 200, rho, np.random.default_rng(0))
    assert len(idx) == 200 == len(np.unique(idx))
    Y = yeast.Y_train[idx]
    assert np.corrcoef(Y[:, 1], Y[:, 3])[0, 1] == pytest.approx(rho, abs=0.02)
    np.testing.assert_allclose(Y[:, [1, 3]].mean(0), yeast.Y_train[:, [1, 3]].mean(0),
                               atol=0.01)
    with pytest.raises(ValueError, match="rho"):
        correlated_pair_subset(yeast.Y_train, 1, 3, 200, 1.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="a, b"):
        correlated_pair_subset(yeast.Y_train, 1, 1, 200, 0.0, np.random.default_rng(0))


def test_shifted_subset_moves_the_label_correlations(yeast):
    M = empirical_prior(yeast.Y_test)

    def shift(beta):
        idx = shifted_subset(yeast.Y_train, yeast.Y_test, 200, beta, np.random.default_rng(1))
        assert len(np.unique(idx)) == 200
        return np.abs(empirical_prior(yeast.Y_train[idx]) - M).mean()

    assert shift(2.0) > 3 * shift(0.0)


def test_fig5_pair_is_the_most_negative_test_pair(yeast):
    a, b = fig5_pair(yeast.Y_train, yeast.Y_test)
    C = np.corrcoef(yeast.Y_test.T)
    assert (a, b) == (1, 3) and C[a, b] == pytest.approx(-0.355, abs=1e-3)


@pytest.mark.slow
def test_fig5_negative_prior_helps_on_the_reversed_pair():
    res = m3l_fig5(rs=(-0.75, 0.75))
    assert len(res.figure.data) == 2                        # linear and rbf curves
    assert len(res.rows) == 6                               # r = 0 is always added
    s = res.summary
    assert s.pair == ("Class2", "Class4") and s.n_train == 200
    assert s.train_subset_corr > 0.5 and s.test_corr < -0.3
    for kernel in ("linear", "rbf"):
        hl = {r.r: r.test_hamming_pct for r in res.rows if r.kernel == kernel}
        # the test correlation is negative: r < 0 beats 1-vs-All beats r > 0
        assert hl[-0.75] < hl[0.0] < hl[0.75]


@pytest.mark.slow
def test_table3_m3l_beats_one_vs_all_with_the_estimated_prior():
    res = m3l_table3(trials=1, full_data=False)
    assert len(res.figure.data[0].y) == len(res.rows)       # one bar per method
    s = res.summary
    assert s.mean_abs_second_moment_shift_subset_vs_test > \
        3 * s.mean_abs_second_moment_shift_rest_vs_test
    assert s.m3l_gain_pct_points["rbf"] > 0 and s.m3l_gain_pct_points["linear"] > 0
    assert s.full_train_1vsall_pct == {}      # full_data=False
    methods = {r.method for r in res.rows}
    assert {"5-NN", "Power set (logistic)", "1-vs-All SVC rbf (libsvm)"} <= methods
    assert all(0 < r.test_hamming_pct < 100 for r in res.rows)


def test_table1_same_problems_as_liblinear():
    res = m3l_table1(Ns=(100, 150), repeats=1)
    assert len(res.figure.data) == 4                        # two M3L, two 1-vs-All
    assert [r.N for r in res.rows] == [100, 150]
    assert res.summary.max_linear_primal_rel_diff < 1e-3
    assert all(r.linear_ratio > 0 and r.rbf_ratio > 0 for r in res.rows)
    with pytest.raises(ValueError, match="Ns"):
        m3l_table1(Ns=(5000,))


def test_awa_prior_heat_map():
    res = m3l_awa_prior()
    s = res.summary
    assert s.R_black_weak < 0 and s.rank == 10 and s.min_eigenvalue > -1e-12
    heat = res.figure.data[0]
    assert np.asarray(heat.z).shape == (85, 85)
    assert len(res.rows) == 20 and res.rows[0].R <= res.rows[-1].R


def test_cli_reproduce_and_bench_json(tmp_path, capsys):
    assert main(["reproduce", "m3l-awa-prior", "--json", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["experiment"] == "m3l-awa-prior"
    assert (tmp_path / "m3l-awa-prior.csv").exists()
    assert main(["bench", "m3l", "--quick", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["bench"] == "m3l" and doc["N"] == 500
    assert doc["rbf_ratio_libsvm_over_m3l"] > 0 and doc["linear_primal_rel_diff"] < 1e-3
    assert "RBF: kernel M3L" in captured.err and "linear: linear M3L" in captured.err


def test_m3l_fig2_small():
    """Issue 19: Figs. 2-3 (dual progress vs updates and time, M3L vs
    1-vs-All LIBSVM)."""
    from polyrank_paper import m3l_fig2

    res = m3l_fig2(n_train=150, seed=1)
    s = res.summary
    assert s.m3l_status == "converged" and s.N == 150
    m3l = [r for r in res.rows if r.method == "M3L"]
    svm = [r for r in res.rows if r.method == "1-vs-All LIBSVM"]
    assert len(m3l) >= 2 and len(svm) >= 3
    # M3L's dual only rises (coordinate ascent); LIBSVM's budgets only grow
    assert np.all(np.diff([r.dual for r in m3l]) >= -1e-9)
    assert np.all(np.diff([r.updates for r in svm]) > 0)
    assert m3l[-1].dual_rel == svm[-1].dual_rel == 1.0
    for method in s.methods.values():
        assert method.updates_to_99pct <= method.updates
    assert len(res.figure.data) == 4
    json.dumps(res.summary_record(), allow_nan=False)
