"""``polyrank bench ordinal-wine`` (issue 29): the default against mord on
red wine and on white wine given by ``--data`` (here a small generated file
in white wine's format) or the generated stand-in; times are printed, never
asserted (``DESIGN.md``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from polyrank.cli import main
from polyrank.ordinal import make_overlapping
from polyrank_paper import bench_ordinal_wine


@pytest.fixture
def white_csv(tmp_path):
    """A file laid out as the UCI white wine file: ';'-separated, quoted
    header, quality 3..9."""
    X, y = make_overlapping(600, 4, seed=2)
    path = tmp_path / "winequality-white.csv"
    lines = [";".join(f'"f{j}"' for j in range(4)) + ';"quality"']
    lines += [";".join(f"{v:.6f}" for v in row) + f";{g + 3}" for row, g in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_bench_reports_both_maes_ratio_and_the_papers_collapse(white_csv):
    pytest.importorskip("mord")
    res = bench_ordinal_wine(quick=True, repeats=1, data=white_csv)
    red, white = res.summary.sets
    assert red.data == "red wine" and white.data == "white wine (winequality-white.csv)"
    assert (white.n, white.d, white.grades) == (600, 4, 7)
    for s in (red, white):
        assert s.mae_mord is not None and s.ratio_ours_over_mord > 0
        assert s.mae_target_met == (s.mae_ours <= s.mae_mord + 0.01)
        assert s.mae_ours < s.mae_mode                  # the default ranks
    by = {(r.data, r.estimator.split("(")[0]): r for r in res.rows}
    assert len(res.rows) == 6 and all(r.seconds > 0 for r in res.rows)
    said = [("within +0.01" in line) for line in res.notes if "time ours / mord = " in line]
    assert said == [red.mae_target_met, white.mae_target_met]
    # fold 1: our optimum is the QP's
    assert res.summary.objective_fold1 == pytest.approx(res.summary.objective_clarabel_fold1,
                                                        rel=1e-7)
    json.dumps(res.summary_record(), allow_nan=False)
    assert by[("red wine", "mord LogisticAT")].test_mae == red.mae_mord
    # issue 30: the growth table, time against n at one d and against d at one n
    cells = [(g.n, g.d) for g in res.summary.growth]
    assert cells == [(500, 20), (1000, 20), (2000, 20), (1000, 11), (1000, 50)]
    for g in res.summary.growth:
        assert g.ratio == pytest.approx(g.ours_s / g.mord_s)
        assert g.ours_ns_per_nd == pytest.approx(1e9 * g.ours_s / (g.n * g.d))
        assert 0 < g.ours_mae < 1 and 0 < g.mord_mae < 1
    assert sum(line.startswith("  time x ") for line in res.notes) == 2


def test_full_run_sets_reach_d_400_without_the_papers_qp(monkeypatch):
    """The full run's red wine sets widened by seeded random features to
    d = 100 and 400 (issue 30), without running the paper's (S) on them."""
    pytest.importorskip("mord")
    from polyrank_paper.ordinal import bench_wine as bench

    sets = bench._wine_sets(False, 0, None)
    assert [X.shape[1] for _, X, _ in sets] == [11, 11, 100, 400]
    np.testing.assert_array_equal(sets[2][1], sets[3][1][:, :100])   # nested
    calls = []
    monkeypatch.setattr(bench, "_cv_runs",
                        lambda X, y, seed, peers, repeats: calls.append(list(peers))
                        or {k: (1.0, 0.5, 3) for k in peers})
    bench._wine_set(sets[3][0], *sets[3][1:], 0, 1)
    bench._wine_set(sets[0][0], *sets[0][1:], 0, 1)
    assert calls[0] == [bench._OURS, bench._MORD]
    assert calls[1] == [bench._OURS, bench._MORD, bench._PAPER]


def test_cli_data_option(capsys, white_csv, tmp_path):
    assert main(["bench", "ordinal", "--data", str(white_csv)]) == 2
    assert "takes no data file" in capsys.readouterr().err
    assert main(["bench", "ordinal-wine", "--data", str(tmp_path / "none.csv")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.slow
def test_generated_stand_in_collapses_the_paper_not_the_default():
    pytest.importorskip("mord")
    res = bench_ordinal_wine(quick=True, repeats=1)
    stand_in = res.summary.sets[1]
    assert stand_in.data.startswith("overlapping grades (generated")
    paper = [r for r in res.rows if r.data == stand_in.data and "paper" in r.estimator][0]
    assert paper.grades_predicted == 1 and paper.test_mae == pytest.approx(stand_in.mae_mode)
    assert np.isfinite(stand_in.mae_ours) and stand_in.mae_ours < stand_in.mae_mode - 0.03
