"""Fig. 7 of ``large-scale-linear-ranksvm.txt`` on MQ2008: relative function
value against time of every method at the same C.
"""

from __future__ import annotations

from polyrank.datasets import load_mq2008
from polyrank.metrics import mean_ndcg, pairwise_accuracy

from .._harness import progress_bar
from ..registry import ExperimentInfo, ExperimentResult, PaperItem, fmt_spec, record, register
from ._common import _PAPER, _method_runs, _path_rows

__all__ = ["ranksvm_fig7", "RankFig7Summary"]


@record
class RankFig7Summary(ExperimentInfo):
    """The key figures of :func:`ranksvm_fig7` (rows:
    :class:`~polyrank_paper.ranksvm.PathRow`; printed rows:
    :class:`~polyrank_paper.ranksvm.SolverRow`).

    Attributes
    ----------
    C : tuple of float
    solvers : dict of str to dict of str to SolverSummary
        Keyed by C (``f"{C:g}"``), then by solver.
    paper : tuple of PaperItem
    """

    C: tuple
    solvers: dict
    paper: tuple = ()


@register("ranksvm-fig7", "Fig. 7: relative function value against time of Tree-TRON, PRSVM+ "
          "and the two L1 methods at fixed C = 100, 1, 1e-4 on MQ2008")
def ranksvm_fig7(*, quick: bool = False, seed: int = 0, progress: bool = False,
                 Cs=None, cp_max_iter: int | None = None) -> ExperimentResult:
    """Fig. 7 of ``large-scale-linear-ranksvm.txt`` (Sec. 4.4): instead of
    the C selected on validation, one fixed C for every method -- large (C
    = 100), medium (1) and small (1e-4) -- and each method's relative
    function value (f - f*) / f* against training time on MQ2008: Tree-TRON
    and PRSVM+ (L2 loss, tol = 1e-6) and, for the L1 loss, dual coordinate
    descent and the paper's cutting-plane method (tol = 1e-4), each against
    its own loss's optimum.

    Parameters
    ----------
    quick : bool
        At most 60 cutting planes per C (default 600).
    seed : int
        Seed of the dual coordinate descent's pass order.
    progress : bool
    Cs : sequence of float, optional
        The C values (default the paper's 100, 1, 1e-4).
    cp_max_iter : int, optional
        Cutting planes per C.

    Returns
    -------
    ExperimentResult
        rows: path rows (C, solver, step, time_s, work, f, rel_f, test
        measures); table and summary: per C and solver the final time,
        status, f and gap.
    """
    Cs = [100.0, 1.0, 1e-4] if Cs is None else [float(c) for c in Cs]
    cp_max_iter = (60 if quick else 600) if cp_max_iter is None else int(cp_max_iter)
    d = load_mq2008()
    tr = (d.X_train, d.y_train, d.qid_train)

    def metrics(w):
        s = d.X_test @ w
        return (pairwise_accuracy(d.y_test, s, d.qid_test), mean_ndcg(d.y_test, s, d.qid_test))

    bar = progress_bar(4 * len(Cs), "ranksvm-fig7", progress)
    rows, table, solvers = [], [], {}
    for C in Cs:
        path, tab = _path_rows(_method_runs(tr, C, C, cp_max_iter, seed, bar), metrics)
        rows += path
        table += tab
        solvers[f"{C:g}"] = {r.solver: r.summary() for r in tab}
    bar.close()
    notes = []
    for C in Cs:
        info = solvers[f"{C:g}"]
        fastest_l1 = min(("l1-dcd", "l1-cutting-plane"), key=lambda m: (
            info[m].status != "converged", info[m].time_s))
        notes.append(f"C = {C:g}: Tree-TRON {info['tree-tron'].time_s:.3g} s, PRSVM+ "
                     f"{info['prsvm+'].time_s:.3g} s (L2, tol = 1e-6); L1: dual coordinate "
                     f"descent {info['l1-dcd'].time_s:.3g} s ({info['l1-dcd'].status}), "
                     f"cutting plane {info['l1-cutting-plane'].time_s:.3g} s "
                     f"({info['l1-cutting-plane'].status}); faster L1 method: {fastest_l1}")
    notes.append("paper (Fig. 7): Tree-TRON is always one of the fastest methods")

    def tron_vs_fastest(info):
        done = [v.time_s for v in info.values() if v.status == "converged"]
        return info["tree-tron"].time_s / min(done)

    summary = RankFig7Summary(experiment="ranksvm-fig7", quick=quick, C=tuple(Cs),
                              solvers=solvers, paper=(PaperItem(
        item="Fig. 7: Tree-TRON's time over the fastest converged method, C = "
             + ", ".join(f"{C:g}" for C in Cs),
        paper="always one of the fastest",
        ours=", ".join(f"{tron_vs_fastest(solvers[f'{C:g}']):.1f}x" for C in Cs),
        data="MQ2008 Fold1"),))
    columns = [("C", "C", lambda v: f"{v:g}"), ("solver", "solver", None),
               ("steps", "steps", None), ("work", "Hv / passes / planes", None),
               ("time_s", "seconds", fmt_spec(".3g")), ("status", "status", None),
               ("f", "f", fmt_spec(".6g")), ("gap", "gap", fmt_spec(".2g"))]
    return ExperimentResult("ranksvm-fig7", f"Fig. 7 of {_PAPER} on MQ2008: every method at "
                            "the same C", rows, summary, columns=columns, table_rows=table,
                            notes=notes)
