"""The sub-problem solvers of ``solve_ordinal`` as strategy objects
(:mod:`polyrank.ordinal.subproblems`, issue 32 item 5): the factory picks
the strategy the documented rule of ``subproblem_solver`` names, and the
trusted path of the estimators gives the public driver's result."""

import numpy as np
import pytest

from polyrank.ordinal import make_instance, solve_ordinal
from polyrank.ordinal.generation import solve_ordinal_trusted
from polyrank.ordinal.subproblems import (
    ClarabelDual,
    ClarabelQP,
    DualCD,
    KernelColumns,
    PrimalRows,
    ScreenedNewton,
    Subproblem,
    SubproblemData,
    SubproblemSolver,
    make_subproblem_solver,
)


def _pick(choice, *, primal, soft, nonneg=False, method="generation"):
    X, labels = make_instance(20, seed=0)
    W = np.arange(6, dtype=np.int64)
    data = PrimalRows(X) if primal else KernelColumns(X, "linear", {}, W, 8)
    problem = Subproblem(labels, 3, soft, np.ones(20), nonneg, 1e-10, "test")
    return make_subproblem_solver(choice, problem, data, W, primal=primal, method=method)


@pytest.mark.parametrize("choice, primal, soft, nonneg, method, expected", [
    ("auto", False, True, False, "generation", DualCD),          # (S-bar), (S~)
    ("auto", False, False, False, "generation", ClarabelDual),   # (H-bar), (H~)
    ("dual_cd", False, False, False, "generation", DualCD),
    ("dual_cd", False, True, False, "full", ClarabelDual),       # no warm start
    ("clarabel", False, True, False, "generation", ClarabelDual),
    ("auto", False, False, True, "generation", ClarabelQP),      # (H~+)
    ("dual_cd", False, True, True, "generation", ClarabelQP),    # (S~+)
    ("auto", True, True, False, "generation", ScreenedNewton),   # (S), m + l small
    ("newton", True, True, False, "full", ScreenedNewton),
    ("clarabel", True, True, False, "generation", ClarabelQP),
    ("auto", True, False, False, "generation", ClarabelQP),      # (H)
])
def test_the_factory_follows_the_documented_rule(choice, primal, soft, nonneg, method,
                                                 expected):
    solver = _pick(choice, primal=primal, soft=soft, nonneg=nonneg, method=method)
    assert type(solver) is expected and isinstance(solver, SubproblemSolver)
    assert isinstance(solver.data, SubproblemData)         # the two Protocols


def test_auto_leaves_newton_for_clarabel_above_the_size_limit(monkeypatch):
    monkeypatch.setattr("polyrank.ordinal.subproblems.MAX_NEWTON_DIM", 4)   # m + l = 5
    assert type(_pick("auto", primal=True, soft=True)) is ClarabelQP


def test_every_strategy_reports_its_name():
    assert {c.name for c in (ClarabelQP, ClarabelDual, DualCD, ScreenedNewton)} == {
        "clarabel", "dual_cd", "newton"}


@pytest.mark.parametrize("kw", [
    dict(margin="soft", c=5.0),
    dict(margin="hard", kernel="poly", gamma=1.0, degree=2, nonneg=True),
    dict(margin="soft", representation="primal", c=2.0),
])
def test_the_trusted_path_gives_the_public_result(kw):
    X, labels = make_instance(40, separable=kw["margin"] == "hard", seed=3)
    weights = np.random.default_rng(0).uniform(0.5, 2.0, size=labels.size)
    sw = weights if kw["margin"] == "soft" else None
    a = solve_ordinal(X, labels, sample_weight=sw, **kw)
    b = solve_ordinal_trusted(X, labels.astype(np.int64), sample_weight=sw, **kw)
    assert a.subproblem_solver == b.subproblem_solver and a.nit == b.nit
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    assert a.objective == b.objective


def test_the_trusted_path_still_checks_the_settings():
    X, labels = make_instance(20, seed=0)
    with pytest.raises(ValueError, match="margin"):
        solve_ordinal_trusted(X, labels, margin="medium")
    with pytest.raises(ValueError, match="sample_weight"):
        solve_ordinal_trusted(X, labels, margin="hard", sample_weight=np.ones(20))
    with pytest.raises(TypeError, match="unknown keyword"):
        solve_ordinal_trusted(X, labels, margn="soft")
