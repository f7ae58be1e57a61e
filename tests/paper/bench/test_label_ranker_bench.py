"""``polyrank bench sopopo-vs-liblinear`` and ``label-ranker-defaults`` on
small data (the real sizes take minutes); the objective they compare is the
one both solvers minimise."""

import numpy as np
import pytest
from sklearn.svm import LinearSVC

import polyrank_paper.bench.label_ranker as lb
from polyrank.sopopo import sopopo_batch
from polyrank_paper import BENCHES


def small_cs(seed=0, m=120, n=6, k=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = np.argmax(X @ rng.normal(size=(k, n)).T + rng.normal(size=(m, k)), axis=1)
    return X, y.astype(np.int64)


def test_crammer_singer_primal_is_the_objective_of_both_solvers():
    X, y = small_cs()
    C = 0.7
    res = sopopo_batch(X, np.eye(4)[y], C, decomposition="top_vs_rest", tol=1e-10,
                       max_iter=100_000, random_state=0)
    # Eq. 6 for one-hot targets and top_vs_rest is the Crammer-Singer objective
    assert lb.crammer_singer_primal(res.x, X, y, C) == pytest.approx(res.primal_objective,
                                                                     rel=1e-12)
    svc = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C, tol=1e-10,
                    max_iter=1_000_000).fit(X, y)
    assert lb.crammer_singer_primal(svc.coef_, X, y, C) == pytest.approx(
        res.primal_objective, rel=1e-7)
    with pytest.raises(ValueError, match="W, X, y"):
        lb.crammer_singer_primal(res.x, X[:, :2], y, C)
    with pytest.raises(ValueError, match="y: classes"):
        lb.crammer_singer_primal(res.x, X, y + 4, C)


def test_sopopo_vs_liblinear_bench_runs(monkeypatch):
    monkeypatch.setattr(lb, "_cs_problems", lambda quick, seed: {"tiny": small_cs(seed)})
    monkeypatch.setattr(lb, "_yeast_passes", lambda quick, seed: [
        lb.YeastPasses(setting="stub", shrinking=True, passes=3, full_passes=1.5,
                       converged=True, rel_gap=1e-4, seconds=0.1)])
    assert "sopopo-vs-liblinear" in BENCHES
    res = BENCHES["sopopo-vs-liblinear"].run(quick=True, repeats=1)
    svc, ours = res.rows[0], res.rows[1]
    # ours is timed at a tolerance whose objective is no worse than LinearSVC's
    assert ours.objective <= svc.objective * (1 + 1e-12)
    assert res.summary.ratio_liblinear_over_ours["tiny"] > 0
    assert "LinearSVC" in res.notes[0] and "target" not in " ".join(res.notes).lower()
    assert "tiny" in res.format_table()
    assert "after 3 passes (1.5 passes' work" in " ".join(res.notes)


def test_label_ranker_defaults_bench_runs(monkeypatch):
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(n_samples=150, n_features=8, n_classes=4,
                                          random_state=0)
    monkeypatch.setattr(lb, "multilabel_sets", lambda quick: {
        "tiny": (X[:100].astype(float), Y[:100], X[100:].astype(float), Y[100:])})
    res = BENCHES["label-ranker-defaults"].run(quick=True)
    ours, peer = res.rows
    assert ours.warnings == 0 and ours.passes >= 1
    assert 0 <= ours.rank_loss <= 1 and 0 <= peer.rank_loss <= 1
    assert res.summary.lower_rank_loss_everywhere == (ours.rank_loss < peer.rank_loss)
