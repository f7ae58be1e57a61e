"""Table 2 of ``row-column-generation-ordinal.txt`` (Sec. 10): the average rank
loss (1/n) sum |l^_i - l_i| on the training objects, ours against PRank.
"""

from __future__ import annotations

import time

from polyrank.datasets import ORDINAL_PAPER_TABLE2

from .._harness import fmt
from ..registry import ExperimentResult, PaperItem, column, record, register
from ._common import GroupRow, TableSettings, _group_rows, _instance_runs, _paper_rows

__all__ = ["ordinal_table2", "OrdinalTable2Group", "OrdinalTable2Summary"]


@record
class OrdinalTable2Group(GroupRow):
    """Mean and sd over the data sets of one (type, n) of :func:`ordinal_table2`.

    Attributes
    ----------
    rank_loss_mean, rank_loss_sd : float
        Training rank loss of row and column generation (sd: None for one set).
    prank_rank_loss_mean, prank_rank_loss_sd : float
        The same of PRank.
    """

    rank_loss_mean: float = column("ours", fmt)
    rank_loss_sd: float | None = column("sd", fmt)
    prank_rank_loss_mean: float = column("PRank", fmt)
    prank_rank_loss_sd: float | None = column("sd", fmt)


@record
class OrdinalTable2Summary(TableSettings):
    """The key figures of :func:`ordinal_table2`.

    Attributes
    ----------
    max_rank_loss_separable : float or None
    algorithm_beats_prank_everywhere : bool
    groups : tuple of OrdinalTable2Group
    elapsed_s : float
    paper : tuple of PaperItem
    """

    max_rank_loss_separable: float | None
    algorithm_beats_prank_everywhere: bool
    groups: tuple
    elapsed_s: float
    paper: tuple


@register("ordinal-table2", "Table 2: average rank loss (1/n) sum |l^ - l| of RC(H~)/RC(S~) "
          "vs PRank on S.n.q and NS.n.q")
def ordinal_table2(*, quick: bool = False, seed: int = 0, progress: bool = False,
                   n_sets: int | None = None, s_sizes=None, ns_sizes=None) -> ExperimentResult:
    """Reproduce Table 2 of ``row-column-generation-ordinal.txt`` (Sec. 10):
    the average rank loss (1/n) sum_i |l^_i - l_i| on the training objects,
    l^_i = max {l | f(x^i) > p_l}, of RC(H~) (S.n.q) and RC(S~) (NS.n.q,
    c = 10) with (1 + x.y)^4, against one on-line pass of kernel PRank.

    Parameters
    ----------
    quick : bool
        S: n in {100, 500, 1000}, NS: {100, 300}, 2 data sets; otherwise S:
        {100, 500, 1000, 5000, 10000}, NS: {100, 500, 1000}, 5 data sets.
    seed, progress, n_sets, s_sizes, ns_sizes
        As in :func:`ordinal_table1`.

    Returns
    -------
    ExperimentResult
        ``rows`` per instance with ``rank_loss`` and ``prank_rank_loss``;
        ``table_rows`` an :class:`OrdinalTable2Group` (mean and sd) per
        (type, n); ``summary`` an :class:`OrdinalTable2Summary`.
    """
    n_sets = n_sets or (2 if quick else 5)
    s_sizes = list(s_sizes if s_sizes is not None else (
        (100, 500, 1000) if quick else (100, 500, 1000, 5000, 10000)))
    ns_sizes = list(ns_sizes if ns_sizes is not None else (
        (100, 300) if quick else (100, 500, 1000)))
    t0 = time.perf_counter()
    rows = _instance_runs([(True, s_sizes), (False, ns_sizes)], n_sets, seed, False,
                          0.0, progress, "ordinal-table2")
    table = _group_rows(rows, OrdinalTable2Group)
    s_rows = [r for r in rows if r.type == "S"]

    def rows2(t, paper):
        data = f"{t.instances} (generated as in Sec. 10)"
        return [PaperItem(item=f"Table 2: rank loss of RC, {t.type}.{t.n}",
                          paper=f"{paper[0]:.3f}", ours=f"{t.rank_loss_mean:.3f}", data=data),
                PaperItem(item=f"Table 2: rank loss of PRank, {t.type}.{t.n}",
                          paper=f"{paper[1]:.3f}", ours=f"{t.prank_rank_loss_mean:.3f}",
                          data=data)]

    summary = OrdinalTable2Summary(
        experiment="ordinal-table2", quick=quick, seed=seed, n_sets=n_sets,
        s_sizes=tuple(s_sizes), ns_sizes=tuple(ns_sizes),
        max_rank_loss_separable=max((r.rank_loss for r in s_rows), default=None),
        algorithm_beats_prank_everywhere=all(
            t.rank_loss_mean < t.prank_rank_loss_mean for t in table),
        groups=tuple(table), elapsed_s=time.perf_counter() - t0,
        paper=_paper_rows(table, ORDINAL_PAPER_TABLE2, rows2))
    notes = [
        f"largest rank loss of RC(H~) on a separable instance: "
        f"{fmt(summary.max_rank_loss_separable)} (the paper: 0.000 on all)",
        "algorithm below PRank on every (type, n): "
        + ("yes" if summary.algorithm_beats_prank_everywhere else "NO")
        + " (the paper: yes; NS.1000: 0.063 vs 0.260)",
    ]
    return ExperimentResult("ordinal-table2",
                            "Table 2 (Sec. 10): average rank loss, ours vs PRank",
                            rows, summary, table_rows=table, notes=notes)
