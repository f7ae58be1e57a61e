"""``polyrank bench sopopo-many-labels`` (issue 15 item 2) on small sizes:
it runs, its rows and ratios are consistent, its notes can go into the README
(no timing is asserted)."""

import numpy as np
import pytest

from polyrank_paper import BENCHES, many_labels_problem


def test_many_labels_problem_has_half_the_labels_relevant():
    X, Y = many_labels_problem(8, m=5, n=3, seed=1)
    assert X.shape == (5, 3) and Y.shape == (5, 8)
    np.testing.assert_array_equal(Y.sum(axis=1), 4)
    with pytest.raises(ValueError, match="k, m, n"):
        many_labels_problem(1)


def test_many_labels_bench_runs_on_small_sizes():
    assert "sopopo-many-labels" in BENCHES
    res = BENCHES["sopopo-many-labels"].run(quick=True, repeats=1, passes=3, k_small=12,
                                            k_large=20)
    by = {(r.k, r.decomposition): r for r in res.rows}
    assert set(by) == {(12, "all_pairs"), (12, "top_vs_rest"), (20, "all_pairs"),
                       (20, "top_vs_rest")}
    assert by[12, "all_pairs"].pieces == by[12, "all_pairs"].edges == 24 * 6 * 6
    assert by[20, "top_vs_rest"].pieces == 24
    s = res.summary
    assert s.ratio_k_small == pytest.approx(by[12, "all_pairs"].s_per_pass
                                               / by[12, "top_vs_rest"].s_per_pass)
    assert s.peak_bytes > 0 and s.bytes_per_edge > 0
    text = " ".join(res.notes)
    for word in ("target", "goal", "not met"):
        assert word not in text.lower()
    assert "all_pairs" in res.format_table()
