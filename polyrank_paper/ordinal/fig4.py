"""Fig. 4 of ``row-column-generation-ordinal.txt`` (Sec. 10): the time per
sub-problem of RC(S~) on NS.1000.5 split into generation, solve and the
violated-constraint search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from polyrank import warmup
from polyrank.ordinal import make_instance, solve_ordinal
from polyrank.ordinal.instances import instance_name

from ..registry import (
    ExperimentInfo,
    ExperimentResult,
    PaperItem,
    column,
    fmt_spec,
    record,
    register,
)
from ._common import POLY4

__all__ = ["ordinal_fig4", "OrdinalFig4Row", "OrdinalFig4Summary"]



@dataclass(frozen=True)
class OrdinalFig4Row:
    """One sub-problem of :func:`ordinal_fig4` (seconds).

    Attributes
    ----------
    iteration : int
    W : int
        Working-set size.
    gen_s : float
        Generating the sub-problem (the paper's GenTime).
    solve_s : float
        Solving it (RunTime).
    feas_s : float
        Searching the violated constraints (FeasTime).
    """

    iteration: int = column("sub-problem")
    W: int = column("|W|")
    gen_s: float = column("GenTime s", fmt_spec(".4f"))
    solve_s: float = column("RunTime s", fmt_spec(".4f"))
    feas_s: float = column("FeasTime s", fmt_spec(".4f"))


@record
class OrdinalFig4Summary(ExperimentInfo):
    """The key figures of :func:`ordinal_fig4`.

    Attributes
    ----------
    instance : str
    iterations, W, n : int
    status : str
    total_s : float
        Seconds of the solve.
    gen_s, solve_s, feas_s : float
        Their sums over the sub-problems, seconds.
    shares : dict of str to float
        Each part's share of the timed parts.
    paper : tuple of PaperItem
    """

    instance: str
    iterations: int
    W: int
    n: int
    status: str
    total_s: float
    gen_s: float
    solve_s: float
    feas_s: float
    shares: dict
    paper: tuple


@register("ordinal-fig4", "Fig. 4: time per sub-problem of RC(S~) on NS.1000.5 split into "
          "generation, solve and the search for violated constraints")
def ordinal_fig4(*, quick: bool = False, seed: int = 0, progress: bool = False,
                 n: int | None = None, q: int = 5) -> ExperimentResult:
    """Fig. 4 of ``row-column-generation-ordinal.txt`` (Sec. 10): the
    breakdown of the computation time of RC(S~) (soft margin, c = 10,
    polynomial kernel (1 + x.y)^4, two objects added per sub-problem) on
    NS.1000.5, per sub-problem: "GenTime" (generating the sub-problem:
    here the new kernel columns and the QP matrices), "RunTime" (solving
    it: the sub-problem solver's time) and "FeasTime" (Step 3, the search for
    violated constraints), from the solver's trace.

    Parameters
    ----------
    quick : bool
        NS.300.5 instead of NS.1000.5.
    seed : int
        Seed of the instance generator.
    progress : bool
        Unused (one solve); kept for the registry's signature.
    n, q : int
        The instance NS.n.q (overrides ``quick``).

    Returns
    -------
    ExperimentResult
        rows: an :class:`OrdinalFig4Row` per sub-problem (iteration, |W|, gen_s, solve_s,
        feas_s);
        summary (:class:`OrdinalFig4Summary`): totals and shares of the three parts,
        iterations, |W|.
    """
    n = (300 if quick else 1000) if n is None else int(n)
    warmup(progress=False, n_jobs=1, packages=["ordinal"])
    X, y = make_instance(n, q, separable=False, seed=seed)
    t0 = time.perf_counter()
    res = solve_ordinal(X, y, margin="soft", c=10.0, **POLY4)
    total = time.perf_counter() - t0
    t = res.trace
    rows = [OrdinalFig4Row(iteration=int(t.iteration[k]), W=int(t.n_rows[k]),
                           gen_s=float(t.gen_s[k]), solve_s=float(t.solve_s[k]),
                           feas_s=float(t.feas_s[k])) for k in range(len(t))]
    parts = {key: float(sum(getattr(r, key) for r in rows))
             for key in ("gen_s", "solve_s", "feas_s")}
    timed = sum(parts.values())
    name = instance_name(n, q, separable=False)
    sh = {k: v / timed for k, v in parts.items()}
    part = {"gen_s": "generation", "solve_s": "the solve",
            "feas_s": "the violated-constraint search"}
    summary = OrdinalFig4Summary(
        experiment="ordinal-fig4", quick=quick, instance=name, iterations=int(res.nit),
        W=int(res.working_set.size), n=n, status=res.status, total_s=total, **parts,
        shares=sh,
        paper=(PaperItem(item="Fig. 4: the largest part of the time per sub-problem, NS.1000.5",
                         paper="generation (GenTime)",
                         ours=f"{part[max(sh, key=sh.get)]} ({100 * max(sh.values()):.0f} %)",
                         data=f"{name} (generated as in Sec. 10)"),))
    notes = [f"{name}: RC(S~) {res.nit} sub-problems, |W| = {res.working_set.size} of {n}, "
             f"{total:.2f} s ({res.status}); generation {100 * sh['gen_s']:.0f} %, solve "
             f"{100 * sh['solve_s']:.0f} %, violated-constraint search "
             f"{100 * sh['feas_s']:.0f} % of the timed parts",
             "paper (Fig. 4, Gurobi from Python): generation dominated, solve and search "
             "were fringe; here (" + (
                 "K_W extended in place, each sub-problem solved by SMO warm-started from "
                 "the previous multipliers" if res.subproblem_solver == "dual_cd" else
                 "sub-problem built in numpy, solved by Clarabel from scratch each time")
             + ") the largest part is "
             + {"gen_s": "generation", "solve_s": "the solve",
                "feas_s": "the violated-constraint search"}[max(sh, key=sh.get)]]
    step = max(1, len(rows) // 20)
    table = rows[::step] + ([rows[-1]] if (len(rows) - 1) % step else [])
    return ExperimentResult("ordinal-fig4", f"Fig. 4 (Sec. 10): time per sub-problem of RC(S~) "
                            f"on {name}", rows, summary, table_rows=table, notes=notes)
