"""The callback and result contract of every solver driver, as one
parametrized test (``DESIGN.md``, "The pattern every solver follows";
:mod:`polyrank.result`).

Each driver is registered below with a tiny problem, the arguments that let
it converge, the arguments under which it cannot converge in a few
iterations, and the name of its iteration limit.  Every driver must:

- hand the callback an :class:`~polyrank.result.IterInfo` per trace row
  (every ``callback_every``-th row only), with ``gap = primal - dual`` and
  the extras the driver's docstring names, the same columns as the trace;
- stop when the callback raises ``StopIteration``, with
  ``status="stopped by callback"`` and ``success=False``;
- report ``status="maximum number of iterations reached"``,
  ``success=False`` and the limit's name in the message at its limit (an
  online algorithm whose passes are its design, PRank: ``status="completed
  the passes"``, ``success=True``);
- on convergence return every standard field, typed, with ``success=True``
  (``success`` means exactly ``status`` in ``("converged", "completed the
  passes")``), and name every extra result key in its docstring;
- reject a non-callable callback and ``callback_every < 1``.

Solver-specific properties of the trace and the callback (what an extra
means, when a shrinking solver checks its gap ...) stay in the solver's own
test file.
"""

import math
import re
from dataclasses import dataclass, field

import numpy as np
import pytest
from conftest import (
    GAP_ROUNDING,
    RTOL_ROUNDING,
    Logistic,
    binary_problem,
    label_ranking_problem,
    multilabel_problem,
    query_problem,
)

from polyrank.m3l import m3l_dca, m3l_smo
from polyrank.ordinal import make_instance, prank, solve_ordinal, solve_svor
from polyrank.ranksvm import ranksvm_cutting_plane, ranksvm_dcd, ranksvm_tron
from polyrank.result import (
    STATUS_CALLBACK,
    STATUS_COMPLETED,
    STATUS_CONVERGED,
    STATUS_MAX_ITER,
    STATUS_MESSAGES,
    IterInfo,
    SolverResult,
    Trace,
)
from polyrank.sign import sc_pegasos, sc_sdca
from polyrank.sopopo import sopopo_batch
from polyrank.tron import tron

#: the keys every SolverResult has (DESIGN.md)
STANDARD_KEYS = {"x", "dual", "primal_objective", "dual_objective", "gap", "nit", "unit",
                 "success", "status", "message", "solver", "trace"}


@dataclass(frozen=True)
class Case:
    """A driver on a tiny problem: ``driver(*args, **common, **kwargs)``;
    :meth:`hard` runs it where it cannot converge within ``n`` recorded
    iterations (on ``hard_args`` if given)."""
    driver: object
    args: tuple
    limit: str                          # the iteration-limit argument
    converge: dict                      # converges in a few iterations
    hard_kwargs: dict
    common: dict = field(default_factory=dict)
    hard_args: tuple = ()
    steps_per_row: int = 1              # units of ``limit`` per trace row
    # False: the driver measures its gap (and records a row) only at some
    # iterations, documented by its ``callback`` parameter
    row_every_iteration: bool = True
    # the status at the limit: an online algorithm's passes are its design
    limit_status: str = STATUS_MAX_ITER

    def run(self, **kwargs):
        return self.driver(*self.args, **{**self.common, **kwargs})

    def hard(self, n, **kwargs):
        """Run with the limit at ``n`` trace rows."""
        return self.driver(*(self.hard_args or self.args),
                           **{**self.common, **self.hard_kwargs,
                              self.limit: n * self.steps_per_row, **kwargs})


Xb, yb = binary_problem(1, n=40, d=4)
SIGNS = np.array([1.0, -1.0, 0.0, 0.0])
Xq, yq, qid = query_problem(2)
Xl, Yl = label_ranking_problem(3)
Xm, Ym, Rm = multilabel_problem(4, N=24)
Xo, lo = make_instance(40, 1, separable=False, seed=5)
Xs, ls = make_instance(30, 1, separable=True, seed=6)
LOGISTIC = Logistic(*binary_problem(7, n=60, d=5), C=2.0)

CASES = {
    "sc_sdca": Case(sc_sdca, (Xb, yb, "hinge", 0.05, SIGNS), "max_iter",
                    converge=dict(tol=1e-6), hard_kwargs=dict(tol=0.0),
                    common=dict(random_state=0)),
    "sc_pegasos": Case(sc_pegasos, (Xb, yb, "logistic", 0.1, SIGNS), "max_iter",
                       converge=dict(tol=1e-2, max_iter=100_000), hard_kwargs=dict(tol=0.0),
                       common=dict(batch_size=1, random_state=0),
                       steps_per_row=Xb.shape[0]),     # a row per epoch of n steps
    "ranksvm_tron": Case(ranksvm_tron, (Xq, yq, qid, 1.0), "max_iter",
                         converge=dict(tol=1e-6), hard_kwargs=dict(tol=1e-300)),
    "ranksvm_cutting_plane": Case(ranksvm_cutting_plane, (Xq, yq, qid, 1.0), "max_iter",
                                  converge=dict(tol=1e-6), hard_kwargs=dict(tol=1e-300)),
    "ranksvm_dcd": Case(ranksvm_dcd, (Xq, yq, qid, 1.0), "max_iter",
                        converge=dict(tol=1e-6), hard_kwargs=dict(tol=1e-300, continuation=False),
                        common=dict(random_state=0), row_every_iteration=False),
    "tron": Case(tron, (LOGISTIC,), "max_iter", converge=dict(tol=1e-8),
                 hard_kwargs=dict(tol=1e-300)),
    "m3l_smo": Case(m3l_smo, (Xm, Ym, Rm, 5.0), "max_iter", converge=dict(tol=1e-6),
                    hard_kwargs=dict(tol=1e-300)),
    "m3l_dca": Case(m3l_dca, (Xm, Ym, Rm, 5.0), "max_iter", converge=dict(tol=1e-6),
                    hard_kwargs=dict(tol=1e-300), common=dict(random_state=0, check_every=0.5)),
    "solve_ordinal": Case(solve_ordinal, (Xo, lo), "max_iter",
                          converge=dict(), hard_kwargs=dict(add_per_iter=1),
                          common=dict(margin="soft", c=10.0, kernel="poly", gamma=1.0,
                                      degree=4)),
    "prank": Case(prank, (Xs, ls), "max_iter", converge=dict(max_iter=10_000),
                  hard_kwargs=dict(shuffle=True, random_state=0),
                  hard_args=(Xo, lo),                # not separable: always a mistake
                  limit_status=STATUS_COMPLETED),
    "solve_svor": Case(solve_svor, (Xo, lo), "max_iter", converge=dict(tol=1e-8),
                       hard_kwargs=dict(tol=1e-300, c=1e3)),   # 10 Newton steps
    "solve_svor-dual_cd": Case(solve_svor, (Xo, lo), "max_iter", converge=dict(tol=1e-4),
                               hard_kwargs=dict(tol=1e-300), common=dict(solver="dual_cd")),
    "sopopo_batch": Case(sopopo_batch, (Xl, Yl, 1.0), "max_iter",
                         converge=dict(tol=1e-6), hard_kwargs=dict(tol=1e-300, atol=0.0),
                         common=dict(random_state=0, shrinking=False)),
    "sopopo_batch-shrinking": Case(sopopo_batch, (Xl, Yl, 1.0), "max_iter",
                                   converge=dict(tol=1e-6), hard_kwargs=dict(tol=1e-300),
                                   common=dict(random_state=0, shrinking=True),
                                   row_every_iteration=False),
}

params = pytest.mark.parametrize("name", list(CASES))


def _docstring_words(case):
    return set(re.findall(r"\w+", case.driver.__doc__))


def _check_success_meaning(res):
    assert res.success is (res.status in (STATUS_CONVERGED, STATUS_COMPLETED))
    assert res.status in STATUS_MESSAGES


@params
def test_callback_gets_an_iter_info_per_trace_row(name):
    case = CASES[name]
    seen = []
    res = case.hard(4, callback=seen.append)
    _check_success_meaning(res)
    assert len(seen) >= 1 and all(isinstance(i, IterInfo) for i in seen)
    assert [i.iteration for i in seen] == res.trace.iteration.tolist()
    for info in seen:
        if math.isnan(info.primal) or math.isnan(info.dual):
            assert math.isnan(info.gap)
        else:
            assert info.gap == pytest.approx(info.primal - info.dual, rel=RTOL_ROUNDING)
    # the same columns in the callback and the trace, each named in the docstring
    extras = set(seen[0].extras)
    assert res.trace.columns == list(Trace.BASE) + list(seen[0].extras)
    undocumented = extras - _docstring_words(case)
    assert not undocumented, f"{name}: callback extras {sorted(undocumented)} not documented"
    times = res.trace.time_s
    assert np.all(times >= 0) and np.all(np.diff(times) >= 0)


@params
def test_callback_every_thins_the_calls_not_the_trace(name):
    case = CASES[name]
    seen = []
    res = case.hard(6, callback=seen.append, callback_every=2)
    rows = res.trace.iteration.tolist()
    assert [i.iteration for i in seen] == [it for it in rows if it % 2 == 0]
    assert len(seen) >= 1 and rows == sorted(set(rows))
    if case.row_every_iteration:
        assert rows == [1, 2, 3, 4, 5, 6] and len(seen) == 3


@params
def test_stop_iteration_stops_the_solve(name):
    case = CASES[name]
    calls = []

    def stop_at_second(info):
        calls.append(info.iteration)
        if len(calls) == 2:
            raise StopIteration

    res = case.hard(50, callback=stop_at_second)
    assert res.status == STATUS_CALLBACK and res.success is False
    assert "StopIteration" in res.message
    assert len(calls) == 2 and len(res.trace) == 2
    assert res.trace.iteration[-1] == calls[-1]


@params
def test_iteration_limit_is_not_success(name):
    case = CASES[name]
    res = case.hard(2)
    assert res.status == case.limit_status
    assert res.success is (case.limit_status == STATUS_COMPLETED)
    assert case.limit in res.message


@params
def test_converged_result_fields(name):
    case = CASES[name]
    res = case.run(**case.converge)
    assert isinstance(res, SolverResult)
    assert res.status == STATUS_CONVERGED and res.success is True, res.message
    assert STANDARD_KEYS <= set(res)
    assert isinstance(res.x, np.ndarray) and res.x.size > 0
    for key in ("primal_objective", "dual_objective", "gap"):
        assert isinstance(res[key], float), key
    if not math.isnan(res.gap):
        assert res.gap == pytest.approx(res.primal_objective - res.dual_objective,
                                        rel=RTOL_ROUNDING, abs=RTOL_ROUNDING)
        assert res.gap >= -GAP_ROUNDING * abs(res.primal_objective)
    assert isinstance(res.nit, int) and not isinstance(res.nit, bool) and res.nit >= 1
    assert isinstance(res.message, str) and res.message
    assert isinstance(res.solver, str) and res.solver
    assert isinstance(res.trace, Trace) and len(res.trace) >= 1
    # every extra key of the result is named in the driver's docstring
    undocumented = set(res) - STANDARD_KEYS - _docstring_words(case)
    assert not undocumented, f"{name}: result keys {sorted(undocumented)} not documented"


@params
def test_bad_callback_arguments_are_rejected(name):
    case = CASES[name]
    with pytest.raises(TypeError, match="callback"):
        case.run(**case.converge, callback=3)
    with pytest.raises(ValueError, match="callback_every"):
        case.run(**case.converge, callback=print, callback_every=0)
