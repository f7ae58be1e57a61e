"""What the reproductions of ``row-column-generation-ordinal.txt`` share: the
kernel of Sec. 10, the runs of RC, PRank and the whole QP (in the
single-threaded baseline worker, under a budget) on the generated
instances, and their means per (type, n).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from polyrank import warmup
from polyrank.ordinal import make_instance, prank, rank_loss, solve_ordinal
from polyrank.ordinal.instances import instance_name
from polyrank.ordinal.prank import prank_decision

from .._baseline import BaselineError, BaselineRunner
from .._harness import mean_sd, progress_bar
from ..registry import RunInfo, column

__all__ = ["POLY4", "FULL_QP_MAX_N", "TABLE1_FULL_QP_MAX_N", "FULL_QP_TASKS", "InstanceRow",
           "GroupRow", "TableSettings"]


@dataclass(frozen=True)
class GroupRow:
    """The first fields of a row of means over data sets (Tables 1 and 2).

    Attributes
    ----------
    instances : str
        ``"S.n.1-S.n.k"`` or ``"NS.n.1-NS.n.k"``.
    type : str
        ``"S"`` or ``"NS"``.
    n : int
        Objects.
    sets : int
        Data sets averaged.
    """

    instances: str = column("instances")
    type: str = column()
    n: int = column("n")
    sets: int = column()


@dataclass(frozen=True)
class TableSettings(RunInfo):
    """The settings that open the summaries of Tables 1 and 2 (after those
    of :class:`~polyrank_paper.registry.RunInfo`).

    Attributes
    ----------
    n_sets : int
        Data sets per (type, n).
    s_sizes, ns_sizes : tuple of int
        The n of the S and of the NS instances.
    """

    n_sets: int
    s_sizes: tuple
    ns_sizes: tuple


@dataclass(frozen=True)
class InstanceRow:
    """One generated instance S.n.q or NS.n.q (Sec. 10): row and column
    generation, PRank and the whole QP on it.

    Attributes
    ----------
    instance : str
        ``"S.n.q"`` or ``"NS.n.q"``.
    type : str
        ``"S"`` (separable) or ``"NS"``.
    n, q : int
        Objects and the data set's number.
    algorithm : str
        ``"RC(H~)"`` or ``"RC(S~)"``.
    status : str
    iterations, added, W : int
        Sub-problems, added objects, final working-set size.
    time_s, qp_time_s : float
        Seconds of the algorithm, and of its sub-problems.
    objective : float
    prank_time_s : float
        Seconds of one on-line PRank pass.
    rank_loss, prank_rank_loss : float
        Training rank loss of the algorithm and of PRank.
    full_status : str or None
        The whole QP's status (None: not attempted).
    full_time_s, full_objective : float or None
        Seconds and objective of the whole QP.
    obj_rel_diff : float or None
        |full - ours| / |full| of the objectives.
    same_predictions : bool or None
    full_time_s_lower_bound : float or None
        The budget, when the whole QP exceeded it (left out of the CSV row
        otherwise).
    """

    instance: str = column()
    type: str = column()
    n: int = column()
    q: int = column()
    algorithm: str = column()
    status: str = column()
    iterations: int = column()
    added: int = column()
    W: int = column()
    time_s: float = column()
    qp_time_s: float = column()
    objective: float = column()
    prank_time_s: float = column()
    rank_loss: float = column()
    prank_rank_loss: float = column()
    full_status: str | None = column(default=None)
    full_time_s: float | None = column(default=None)
    full_objective: float | None = column(default=None)
    obj_rel_diff: float | None = column(default=None)
    same_predictions: bool | None = column(default=None)
    full_time_s_lower_bound: float | None = column(omit_none=True, default=None)


_PAPER = "Izunaga, Sato, Tatsumi & Yamamoto, JORSJ 2015"
#: the kernel of Sec. 10: (1 + x.y)^4
POLY4 = {"kernel": "poly", "gamma": 1.0, "degree": 4, "coef0": 1.0}
#: the whole QP is not attempted above this n: with its dense kernel matrix
#: and Clarabel's factorisation it peaked at 8.2 GB (701 s) at n = 5000 on
#: the 24 GB development machine, 1.5 GB at n = 2000; n = 10000 would need
#: about four times the memory of n = 5000
FULL_QP_MAX_N = 5000
#: ``ordinal-table1`` runs the whole QP up to this n only: at n = 5000 it
#: takes 701 s per data set (five of them), while the whole experiment has to
#: finish in ten minutes; at n = 1000 it takes 4-6 s (``polyrank bench
#: ordinal`` measures n = 5000)
TABLE1_FULL_QP_MAX_N = 1000


def _paper_rows(table, paper, make):
    """summary["paper"] rows: ``make(group, paper[(type, n)])`` for every
    group of ``table`` that the paper's table ``paper`` reports."""
    return tuple(row for t in table if (t.type, t.n) in paper
                 for row in make(t, paper[(t.type, t.n)]))


def _full_solve(X, labels, kw):
    """Worker task: the whole problem by one Clarabel call; returns its
    objective, thresholds, predictions and wall time."""
    t0 = time.perf_counter()
    r = solve_ordinal(X, labels, method="full", **kw)
    return {"objective": r.objective, "time_s": time.perf_counter() - t0,
            "qp_time_s": r.qp_time_s, "predictions": r.predictions}


#: the whole problem by one Clarabel call, run by the baseline worker
FULL_QP_TASKS = {"full": f"{__name__}:_full_solve"}


class _FullQPWorker:
    """The whole QP in the single-threaded baseline worker
    (:class:`~polyrank_paper._baseline.BaselineRunner`), killed when a
    solve exceeds the budget; restarted on the next call."""

    def __init__(self):
        # the first call pays the imports: not part of any solve's budget
        warm = (np.zeros((8, 1)) + np.arange(8)[:, None], np.repeat(np.arange(2), 4),
                {"margin": "soft"})
        self._runner = BaselineRunner(FULL_QP_TASKS, warmup=[("full", warm)], grace_s=0.0)

    def solve(self, X, labels, kw, budget_s):
        """Returns (result dict or None, status): "solved", "over budget" or
        the error message."""
        try:
            value, _, status = self._runner.call("full", (X, labels, kw), budget_s)
        except BaselineError as exc:
            return None, exc.detail
        return (value, "solved") if status == "ok" else (None, "over budget")

    def close(self):
        self._runner.close(kill=True)


def _instance_runs(groups, n_sets, seed, with_full, budget_s, progress, desc,
                   max_full_n=FULL_QP_MAX_N):
    """Run the algorithm (and PRank, and the whole QP) on every instance.

    groups: list of (separable, [n, ...]).  Returns tidy rows."""
    # numba kernels compiled/loaded before timing
    warmup(progress=False, n_jobs=1, packages=["ordinal"])
    total = sum(len(ns) for _, ns in groups) * n_sets
    bar = progress_bar(total, desc, progress)
    worker = _FullQPWorker() if with_full else None
    rows = []
    try:
        for separable, ns in groups:
            kw = ({"margin": "hard"} if separable else {"margin": "soft", "c": 10.0})
            kw.update(POLY4)
            skip_full_from = math.inf
            for n in ns:
                for q in range(1, n_sets + 1):
                    X, y = make_instance(n, q, separable=separable, seed=seed)
                    t0 = time.perf_counter()
                    r = solve_ordinal(X, y, **kw)
                    t_alg = time.perf_counter() - t0
                    t0 = time.perf_counter()
                    pr = prank(X, y, **POLY4)
                    t_prank = time.perf_counter() - t0
                    f_pr = prank_decision(X, pr.x, X, "poly", pr.kernel_params)
                    pred_pr = np.searchsorted(pr.thresholds, f_pr, side="right")
                    row = {
                        "instance": instance_name(n, q, separable),
                        "type": "S" if separable else "NS",
                        "n": n, "q": q, "algorithm": r.algorithm, "status": r.status,
                        "iterations": r.nit, "added": r.n_added, "W": int(r.working_set.size),
                        "time_s": t_alg, "qp_time_s": r.qp_time_s, "objective": r.objective,
                        "prank_time_s": t_prank,
                        "rank_loss": rank_loss(y, r.predictions),
                        "prank_rank_loss": rank_loss(y, pred_pr),
                        "full_status": None, "full_time_s": None, "full_objective": None,
                        "obj_rel_diff": None, "same_predictions": None,
                    }
                    if with_full:
                        if n > max_full_n:
                            row["full_status"] = f"not run (n > {max_full_n})"
                        elif n >= skip_full_from:
                            row["full_status"] = "skipped (a smaller n exceeded the budget)"
                        else:
                            full, st = worker.solve(X, y, kw, budget_s)
                            row["full_status"] = st
                            if full is not None:
                                row["full_time_s"] = full["time_s"]
                                row["full_objective"] = full["objective"]
                                row["obj_rel_diff"] = abs(full["objective"] - r.objective) / abs(
                                    full["objective"])
                                row["same_predictions"] = bool(np.array_equal(
                                    full["predictions"], r.predictions))
                            elif st == "over budget":
                                skip_full_from = n
                                row["full_time_s_lower_bound"] = budget_s
                    rows.append(InstanceRow(**row))
                    bar.update(1)
    finally:
        bar.close()
        if worker is not None:
            worker.close()
    return rows


def _group_rows(rows, cls):
    """Mean and sd per (type, n) of the keys of ``cls`` (a group row class
    with fields ``instances, type, n, sets`` and ``<key>_mean, <key>_sd``)."""
    keys = [f.name[:-5] for f in dataclasses.fields(cls) if f.name.endswith("_mean")]
    out = []
    seen = []
    for r in rows:
        g = (r.type, r.n)
        if g not in seen:
            seen.append(g)
    for typ, n in seen:
        sel = [r for r in rows if r.type == typ and r.n == n]
        row = {"instances": f"{typ}.{n}.1-{typ}.{n}.{len(sel)}", "type": typ, "n": n,
               "sets": len(sel)}
        for k in keys:
            mean, sd = mean_sd([getattr(r, k) for r in sel])
            row[k + "_mean"] = mean
            row[k + "_sd"] = sd
        out.append(cls(**row))
    return out
