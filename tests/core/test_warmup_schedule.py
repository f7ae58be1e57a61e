"""The parallel warm-up's tasks and their order (issue 41, item 1).

Each solver package's ``_warmup()`` is split into parts (``_WARMUP_PARTS``);
:func:`polyrank._warmup_all.warmup` hands them to its worker processes in the order
of :func:`polyrank._warmup_all._ordered_tasks`.  No compiling here except the
cheap checks at the end, which run with the kernels already cached.
"""

from __future__ import annotations

import importlib

import pytest

from polyrank import _jit, _warmup_all
from polyrank._jit import SOLVER_PACKAGES
from polyrank._warmup_all import (
    _COMPILE_SECONDS,
    _compile_bar,
    _ordered_tasks,
    _package_tasks,
)

ALL_TASKS = [t for p in SOLVER_PACKAGES for t in _package_tasks(p, rare=True)]


def test_every_package_is_split_and_warmup_runs_its_parts():
    for name in SOLVER_PACKAGES:
        mod = importlib.import_module(f"polyrank.{name}")
        assert len(mod._WARMUP_PARTS) >= 2, name
        assert all(callable(f) for f in mod._WARMUP_PARTS.values())
        rare = getattr(mod, "_RARE_PARTS", {})
        assert all(callable(f) for f in rare.values())
        assert not set(rare) & set(mod._WARMUP_PARTS), name
        assert _package_tasks(name, rare=True)[:len(mod._WARMUP_PARTS)] == _package_tasks(name)


def test_lazy_kernels_are_kernels_left_out_by_default():
    """``_LAZY_KERNELS`` names kernels of the package's ``_kernels``; they are
    counted only with ``rare`` (the default warm-up does not compile them)."""
    for name in SOLVER_PACKAGES:
        lazy = set(getattr(importlib.import_module(f"polyrank.{name}"), "_LAZY_KERNELS", ()))
        common = {d.__name__ for d in _jit.kernel_dispatchers(name)}
        every = {d.__name__ for d in _jit.kernel_dispatchers(name, rare=True)}
        assert lazy <= every and common == every - lazy, name


def test_measured_seconds_name_exactly_the_tasks():
    """No task without a measured cost, no stale entry."""
    assert set(_COMPILE_SECONDS) == set(ALL_TASKS)
    assert all(s >= 0 for s in _COMPILE_SECONDS.values())


@pytest.mark.parametrize("rare", [False, True])
@pytest.mark.parametrize("n_workers", [1, 2, 3])
def test_order_holds_every_task_once_parts_in_order(n_workers, rare):
    order = _ordered_tasks(SOLVER_PACKAGES, n_workers, rare)
    assert sorted(order) == sorted(t for p in SOLVER_PACKAGES for t in _package_tasks(p, rare))
    for name in SOLVER_PACKAGES:
        mine = [t for t in order if t.partition(".")[0] == name]
        assert mine == _package_tasks(name, rare)


def _simulate(order, n_workers):
    """(makespan, overlaps): greedy list scheduling of ``order`` with the
    expected seconds, and how often two parts of one package run at once."""
    free = [0.0] * n_workers
    spans = []
    for task in order:
        w = min(range(n_workers), key=free.__getitem__)
        spans.append((task.partition(".")[0], free[w], free[w] + _COMPILE_SECONDS[task]))
        free[w] += _COMPILE_SECONDS[task]
    overlaps = sum(1 for i, (p, a, b) in enumerate(spans) for q, c, d in spans[i + 1:]
                   if p == q and a < d and c < b)
    return max(free), overlaps


@pytest.mark.parametrize("rare", [False, True])
def test_two_workers_balance_and_do_not_share_a_package(rare):
    """With the measured seconds the two workers end within the longest
    last part of each other, and two parts of one package never compile at
    once (they would compile their shared kernels twice)."""
    order = _ordered_tasks(SOLVER_PACKAGES, 2, rare)
    makespan, overlaps = _simulate(order, 2)
    seconds = [_COMPILE_SECONDS[t] for t in order]
    total = sum(seconds)
    assert makespan <= total / 2 + max(seconds)
    assert overlaps == 0
    # one package per worker task (the old scheme) cannot do better than its largest package
    by_package = {p: sum(_COMPILE_SECONDS[t] for t in _package_tasks(p, rare))
                  for p in SOLVER_PACKAGES}
    assert makespan < max(total / 2, max(by_package.values())) + 10.0


def test_bar_claims_a_first_use_only_when_compiling():
    cold = _compile_bar(["sign"], True)
    warm = _compile_bar([], True)
    try:
        assert "first use only" in cold.desc and not cold.disable
        assert warm.disable                    # nothing shown, nothing claimed
        assert cold.total == pytest.approx(
            sum(_COMPILE_SECONDS[t] for t in _package_tasks("sign")), abs=0.1)
    finally:
        cold.close()
        warm.close()


def test_run_task_rejects_nothing_silently():
    with pytest.raises(KeyError):
        _warmup_all._run_task("sign.no_such_part")
    with pytest.raises(ValueError, match="package"):
        _warmup_all._run_task("no_such_package")


def test_warmup_with_a_warm_cache_loads_or_skips():
    """After a warm-up, ``load=False`` (what ``polyrank warmup`` passes)
    neither compiles nor loads anything, and starts no worker."""
    _warmup_all.warmup(progress=False)
    t = _warmup_all.warmup(progress=False, load=False)
    assert t == {"compiled_in_workers": {}}
