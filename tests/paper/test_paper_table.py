"""The site's "papers' numbers beside ours" table (docs/reproductions.md): one generated row set
per registered experiment, each row written by a full-size run.

The rows come from ``summary["paper"]`` of each experiment
(``polyrank reproduce NAME --readme docs/reproductions.md``); these tests check that no
experiment is missing from the table, that every row was written by the
full-size command (not ``--quick``), and that the rows an experiment
returns have the four fields the table needs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyrank_paper import EXPERIMENTS, m3l_awa_prior, sopopo_fig7
from polyrank_paper.readme import README_PAPER_END, README_PAPER_START

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / "docs" / "reproductions.md"
FIELDS = ("item", "paper", "ours", "data")


def _table_rows() -> list[list[str]]:
    text = README.read_text(encoding="utf-8")
    body = text.split(README_PAPER_START, 1)[1].split(README_PAPER_END, 1)[0]
    rows = []
    for line in body.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows.append(cells)
    return rows


def test_every_experiment_has_rows_written_by_its_full_size_run():
    rows = _table_rows()
    assert rows, "the generated table is empty"
    by_name: dict[str, list[list[str]]] = {}
    for cells in rows:
        assert len(cells) == 6, cells                 # experiment, item, paper, ours, data, run
        by_name.setdefault(cells[0].strip("`"), []).append(cells)
    missing = sorted(set(EXPERIMENTS) - set(by_name))
    assert not missing, f"experiments without a paper-vs-polyrank row: {missing}"
    assert not set(by_name) - set(EXPERIMENTS)        # no stale rows of removed experiments
    for name, cells_list in by_name.items():
        for cells in cells_list:
            run = cells[5]
            assert f"`polyrank reproduce {name}`" in run, (name, run)   # full size, no --quick
            assert all(c for c in cells[1:5]), cells


def test_rows_of_a_run_have_the_table_fields():
    res = m3l_awa_prior()
    assert res.summary.paper
    for row in res.summary_record()["paper"]:
        assert set(row) == set(FIELDS) and all(isinstance(row[k], str) and row[k] for k in FIELDS)
    # the prior entry of Fig. 5's pair is the number the row prints
    r = res.summary.R_black_weak
    assert f"{r:+.2f}" in res.summary.paper[0].ours


def test_fig7_rows_report_measured_and_budget_bounded_ratios():
    res = sopopo_fig7(ks=(4, 6), m_per_k=5, n=10, repeats=1, budget_s=1e-4)
    s = res.summary
    rows = {r.item.split(":")[0]: r for r in s.paper}
    assert set(rows) == {"Fig. 7"} and len(s.paper) == 2
    ip = s.paper[1]
    # the first solve exceeds the (absurd) budget, the next k is not run: a bound only
    assert s.clarabel_status["6"].startswith("skipped")
    assert ">= " in ip.ours and "(k = 6, not run)" in ip.ours
    assert s.clarabel_slope_vs_k is None and s.clarabel_extrapolated_s == {}


def test_fig7_extrapolates_only_past_the_measured_points():
    res = sopopo_fig7(ks=(4, 6, 8), m_per_k=5, n=10, repeats=1, budget_s=60.0)
    s = res.summary
    assert len(s.clarabel_s) == 3                   # tiny problems: all solved
    assert s.clarabel_extrapolated_s == {}           # every k measured: nothing to guess
    slope = s.clarabel_slope_vs_k
    ks = np.log([4, 6, 8])
    ts = np.log([s.clarabel_s[k] for k in ("4", "6", "8")])
    assert slope == pytest.approx(np.polyfit(ks, ts, 1)[0])
    assert "Clarabel" in s.paper[1].ours and ">=" not in s.paper[1].ours
