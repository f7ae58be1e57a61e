"""ordinal-table1, ordinal-table2, ordinal-curves and ``polyrank bench
ordinal`` on tiny configurations: properties of the results (the same
optimum as the whole QP, zero rank loss on separable data, contours at the
thresholds), never timings (DESIGN.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator

from polyrank.cli import main
from polyrank_paper import (
    BENCHES,
    EXPERIMENTS,
    bench_ordinal,
    bench_ordinal_rc,
    ordinal_curves,
    ordinal_table1,
    ordinal_table2,
)
from polyrank_paper.ordinal import table1, wine_two_features

pytestmark = pytest.mark.slow

NAMES = ("ordinal-table1", "ordinal-table2", "ordinal-curves")


def test_registered_and_listed(capsys):
    assert set(NAMES) <= set(EXPERIMENTS) and BENCHES["ordinal"].func is bench_ordinal
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for name in NAMES:
        assert name in out


def test_table1_small_agrees_with_the_whole_qp():
    res = ordinal_table1(n_sets=1, s_sizes=(60,), ns_sizes=(60,), budget_s=60.0)
    assert len(res.rows) == 2 and len(res.table_rows) == 2
    s = res.summary
    assert s.all_converged and s.full_qp_solved == 2
    assert s.max_obj_rel_diff <= 1e-6 and s.all_same_predictions
    for r in res.rows:
        assert r.full_status == "solved" and r.W < r.n
        assert r.added == r.W - 12        # W^0: 3 objects for each of 4 labels
    json.dumps(res.summary_record(), allow_nan=False)
    assert {t.name for t in res.figure.data} >= {"row and column generation",
                                                 "whole QP (Clarabel)"}
    assert "Table 1" in res.format_table() or "# iter" in res.format_table()


def test_table1_budget_and_memory_guard(monkeypatch):
    monkeypatch.setattr(table1, "FULL_QP_MAX_N", 70)
    res = ordinal_table1(n_sets=1, s_sizes=(60, 65, 80), ns_sizes=(), budget_s=1e-4)
    status = {r.instance: r.full_status for r in res.rows}
    assert status["S.60.1"] == "over budget"          # the worker was killed
    assert status["S.65.1"].startswith("skipped")     # larger n after a kill
    assert status["S.80.1"].startswith("not run")
    assert all(r.full_time_s is None for r in res.rows)


def test_table2_zero_loss_on_separable_and_below_prank():
    res = ordinal_table2(n_sets=2, s_sizes=(100,), ns_sizes=(100,))
    s = res.summary
    assert s.max_rank_loss_separable == 0.0          # Table 2: 0.000 on S
    for r in res.rows:
        assert 0.0 <= r.rank_loss <= 3.0 and 0.0 <= r.prank_rank_loss <= 3.0
    ns = [r for r in res.rows if r.type == "NS"]
    assert all(r.rank_loss < 0.2 for r in ns)
    assert len(res.figure.data) == 4


def test_curves_small():
    res = ordinal_curves(n_train=120, n_train_full=150, grid=15)
    s = res.summary
    assert s.features == ("alcohol", "volatile acidity") and s.all_converged
    assert len(res.rows) == 6
    for r in res.rows:
        assert 0.0 <= r.test_accuracy <= 1.0 and r.test_mae >= 0.0
    # a line per threshold (5 for labels 0..5) per model, on the level set f = p_k
    lines = [t for t in res.figure.data if t.mode == "lines+text"]
    assert len(lines) == 3 * 5
    first = [float(p) for p in res.rows[0].thresholds.split()]
    assert [t.name for t in lines[:5]] == [f"f = p_{k} = {p:.2f}" for k, p in enumerate(first, 1)]
    g = res.data["grid"]
    for (_, Z, thr), model_lines in zip(res.data["models"], np.split(np.array(lines), 3)):
        f = RegularGridInterpolator((g, g), Z)            # Z[i, j] = f(g[j], g[i])
        for p, t in zip(thr, model_lines):
            x, y = np.asarray(t.x, dtype=float), np.asarray(t.y, dtype=float)
            on = ~np.isnan(x)
            if not Z.min() < p < Z.max():                # the level is not on the mesh
                assert on.sum() == 0 and not any(t.text)
                continue
            assert on.sum() >= 2 and [s for s in t.text if s] == [f"{p:.2f}"]
            # the points lie on cell edges, where the mesh's interpolation is exact
            assert f(np.c_[y[on], x[on]]) == pytest.approx(p, abs=2e-3 * np.ptp(Z))
    data = wine_two_features(120)
    assert data["X_train"].min() == 0.0 and data["X_train"].max() == 1.0
    assert np.unique(data["y_train"]).size == 6


def test_bench_small():
    res = bench_ordinal(sizes=(80,), budget_s=60.0)
    (row,) = res.rows
    assert row.full_status == "solved" and row.obj_rel_diff <= 1e-6
    assert row.ratio > 0 and row.ratio_is_lower_bound is False
    assert any("at least 20x faster than the whole QP" in line for line in res.notes)
    json.dumps(res.summary_record(), allow_nan=False)


def test_fig4_breakdown_small():
    """Issue 19: Fig. 4 (time per sub-problem: generation, solve, search)."""
    from polyrank_paper import ordinal_fig4

    res = ordinal_fig4(n=100, q=1)
    s = res.summary
    assert s.instance == "NS.100.1" and s.status == "converged"
    assert len(res.rows) == s.iterations >= 2
    assert all(r.gen_s >= 0 and r.solve_s > 0 and r.feas_s >= 0 for r in res.rows)
    # the timed parts are parts of the whole solve
    assert s.gen_s + s.solve_s + s.feas_s <= s.total_s
    assert sum(s.shares.values()) == pytest.approx(1.0)
    # |W| grows by at most two objects per sub-problem (add_per_iter = 2)
    W = [r.W for r in res.rows]
    assert all(0 <= b - a <= 2 for a, b in zip(W, W[1:]))
    assert len(res.figure.data) == 3


def test_bench_ordinal_rc_small():
    assert BENCHES["ordinal-rc"].func is bench_ordinal_rc
    res = bench_ordinal_rc(quick=True, repeats=1, s_sizes=(60,), ns_sizes=(80,), svc_n=150,
                           full_max_n=100, budget_s=60.0)
    svc = [r for r in res.rows if r.part == "svc"]
    rc = [r for r in svc if r.peer.startswith("RC(S~)")]
    assert len(rc) == 3 and all(r.obj_rel_diff <= 1e-6 for r in rc)
    assert sum(r.peer.startswith("libsvm") for r in svc) == 4
    t1 = [r for r in res.rows if r.part == "table1"]
    assert [r.instance for r in t1] == ["S.60.1", "NS.80.1"]
    for r in t1:
        assert r.dual_cd_status == r.clarabel_status == "converged"
        assert r.dual_cd_obj_rel_diff <= 1e-6 and r.clarabel_obj_rel_diff <= 1e-6
    assert res.summary.table1_target_met and res.summary.max_obj_rel_diff <= 1e-6
    assert any("the time of the faster SVC" in line and "target" not in line
               for line in res.notes)
