"""What the SOPOPO reproductions share (``sopopo-label-ranking.txt``, Sec. 5):
argument checks, the Clarabel references run by the baseline worker
(:data:`CLARABEL_TASKS`), and the time budget of one baseline across k.
"""

from __future__ import annotations

import math

import numpy as np

from polyrank.sopopo.reference import batch_reduced_qp, reduced_qp, soft_project_qp
from polyrank.validation import check_int

from .._baseline import BaselineRunner

__all__ = ["CLARABEL_TASKS"]


_PAPER = "Shalev-Shwartz & Singer, JMLR 2006"


def _check_ks(ks, minimum: int = 2) -> list[int]:
    try:
        ks = list(ks)
    except TypeError:
        raise TypeError(f"ks: expected a sequence of ints, got {ks!r}") from None
    ks = [check_int(k, "ks", minimum) for k in ks]
    if not ks:
        raise ValueError("ks: expected at least one value")
    return sorted(set(ks))


def _check_budget(budget_s) -> float:
    budget_s = float(budget_s)
    if not budget_s > 0:
        raise ValueError(f"budget_s: expected seconds > 0 (or inf), got {budget_s!r}")
    return budget_s


class _BudgetedSolver:
    """The time budget of one baseline solver across k: once a solve
    exceeds it, the solver is not run for larger k."""

    def __init__(self, worker: BaselineRunner, name: str, budget_s: float):
        self.worker = worker
        self.name = name
        self.budget_s = budget_s
        self.stopped_at: int | None = None      # the k at which the budget was exceeded

    def run(self, args: tuple):
        return self.worker.call(self.name, args, self.budget_s)

    def skipped_status(self) -> str:
        return f"skipped (budget exceeded at k={self.stopped_at})"


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


def _loglog_slope(xs, ys) -> float | None:
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y is not None and y > 0]
    if len(pts) < 2:
        return None
    lx, ly = np.array(pts).T
    return float(np.polyfit(lx, ly, 1)[0])


_OBJ_RTOL = 1e-6
#: Clarabel's tolerance in the QP references (tol_gap_abs = tol_gap_rel = tol_feas)
_CLARABEL_TOL = 1e-10


def _clarabel_accuracy(objective: float, dropped_constant: float) -> float:
    """What Clarabel's optimal value can be trusted to, in absolute terms.

    The references hand Clarabel the objective without its constant term
    (1/2 sum ||u_y||^2 for Eq. 7, 1/2 (||mu||^2 + ||nu||^2) for Eq. 19), and
    Clarabel stops when its gap is below tol (1 + |its objective|).  When
    the constant is large and the optimum small, that is far more than
    1e-6 of the optimum; we allow ten times it."""
    return 10 * _CLARABEL_TOL * (1.0 + abs(objective - dropped_constant))


def _clarabel_eq7(x, y, U, A, B, C):
    r = soft_project_qp(x, y, U, A, B, C)
    return {"objective": r.objective, "solve_time_s": r.solve_time_s, "nit": r.nit}


def _clarabel_eq19(mu, nu, C):
    r = reduced_qp(mu, nu, C)
    return {"objective": r.objective, "solve_time_s": r.solve_time_s, "nit": r.nit}


#: the Clarabel references of Eq. 7, 19 and 38 by short name, run by the
#: baseline worker (:class:`~polyrank_paper._baseline.BaselineRunner`)
CLARABEL_TASKS = {name: f"{__name__}:_clarabel_{name}" for name in ("eq7", "eq19", "eq38")}


def _clarabel_eq38(X, Y, pieces, C, formulation):
    r = batch_reduced_qp(X, Y, pieces, C=C, formulation=formulation)
    return {"primal": r.primal_objective, "dual": r.dual_objective, "gap": r.gap,
            "nit": r.nit, "solve_time_s": r.solve_time_s, "status": r.status}
