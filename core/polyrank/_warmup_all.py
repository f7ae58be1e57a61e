"""Compile every solver's numba kernels once: :func:`warmup` (re-exported as
:func:`polyrank.warmup`, run by ``polyrank warmup``).

This module sits above the five solver subpackages and imports them plainly:
each registers its kernels and warm-up parts with :mod:`polyrank._jit` when
imported (``register_solver_package``), and the warm-up runs their parts,
in worker processes when the cache is empty (see :func:`warmup`).
"""

from __future__ import annotations

import multiprocessing
import numbers
import os
import sys
import threading
import time
from typing import Any

from joblib import Parallel, delayed
from tqdm.auto import tqdm

# the five solver subpackages: importing them registers them with _jit
from . import m3l, ordinal, ranksvm, sign, sopopo  # noqa: F401
from ._jit import _REPORTING, SOLVER_PACKAGES, compile_state, solver_package

__all__ = ["warmup"]

#: The subpackages whose ``_warmup()`` :func:`warmup` calls, in order.
_WARMUP_PACKAGES = SOLVER_PACKAGES
#: Seconds each warm-up task (``"<package>.<part>"``, a part of the package's
#: ``_WARMUP_PARTS`` or ``_RARE_PARTS``) compiles on an empty cache after the
#: earlier parts of its package: ``tools/compile_profile.py --all-tasks`` (each
#: task alone in a fresh process; the compiles' own CPU seconds, which a loaded
#: machine does not stretch; kernels compiled by an earlier part not counted),
#: measured 2026-12-07 on the 2-core machine (load average 4-14).  Only their
#: ratios matter: they order the tasks (:func:`_ordered_tasks`), and the bar
#: advances by them, so that its ETA is the rate measured on this machine as
#: the tasks finish.
_COMPILE_SECONDS: dict[str, float] = {
    "sopopo.projection": 4.7, "sopopo.pairs_linear": 2.4, "sopopo.pairs_options": 3.4,
    "sopopo.pairs_kernel": 0.7, "sopopo.general_linear": 2.7, "sopopo.general_kernel": 0.9,
    "sign.sdca_dense": 3.9, "sign.sdca_csr": 0.7, "sign.pegasos": 0.5, "sign.multiclass": 5.7,
    "ranksvm.tron": 2.9, "ranksvm.tron_more": 3.1, "ranksvm.methods": 2.6,
    "ranksvm.jobs_dense": 4.4, "ranksvm.jobs_csr": 1.5, "ranksvm.dcd": 2.6,
    "ordinal.svor": 1.3, "ordinal.generation": 4.5, "ordinal.prank": 1.1,
    "ordinal.svor_dual": 2.1,
    "m3l.smo": 5.6, "m3l.cd32": 3.3, "m3l.dca": 4.9, "m3l.cd64": 1.3,
}
#: seconds assumed for a task missing from :data:`_COMPILE_SECONDS`
_DEFAULT_TASK_SECONDS = 2.0


def _package_tasks(name: str, rare: bool = False) -> list[str]:
    """The warm-up tasks of package ``name``: ``"<name>.<part>"`` for each of
    its ``_WARMUP_PARTS`` (with ``rare``, then each of its ``_RARE_PARTS``:
    the variants compiled on first use otherwise), or ``[name]`` for a
    package without parts."""
    entry = solver_package(name)
    parts = list(entry.parts)
    if not parts:
        return [name]
    if rare:
        parts += list(entry.rare)
    return [f"{name}.{part}" for part in parts]


def _task_seconds(task: str) -> float:
    return _COMPILE_SECONDS.get(task, _DEFAULT_TASK_SECONDS)


def _run_task(task: str) -> None:
    """Run the warm-up task ``task``: ``"<package>"`` (its whole ``_warmup()``)
    or ``"<package>.<part>"`` (one of its ``_WARMUP_PARTS``)."""
    name, _, part = task.partition(".")
    entry = solver_package(name)
    # the warm-up reports its own progress: the fits it runs stay silent
    token = _REPORTING.set(name)
    try:
        if part:
            (entry.parts[part] if part not in entry.rare else entry.rare[part])()
        else:
            entry.warmup()
    finally:
        _REPORTING.reset(token)


def _warm_package(name: str) -> float:
    """Run ``polyrank.<name>._warmup()`` and return its seconds (a worker
    task of :func:`warmup`).  ``name`` may also be one task
    ``"<package>.<part>"`` (see :func:`_package_tasks`)."""
    t = time.perf_counter()
    _run_task(name)
    return time.perf_counter() - t


def _warm_package_task(name: str) -> tuple[str, float]:
    return name, _warm_package(name)


def _resolve_n_jobs(n_jobs) -> int:
    if n_jobs is None:
        return min(2, os.cpu_count() or 1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs: expected None, a positive int or -1, got {n_jobs!r}")
    return os.cpu_count() or 1 if n_jobs < 0 else int(n_jobs)


def _fork_is_safe() -> bool:
    """True on Linux when this process runs a single Python thread: then
    worker processes can be forked, and start with polyrank already
    imported (a spawned worker first spends 2-5 s importing it)."""
    return (sys.platform.startswith("linux") and threading.active_count() == 1
            and "fork" in multiprocessing.get_all_start_methods())


class _CompilePool:
    """Worker processes that compile packages into numba's on-disk cache.

    Forked (``multiprocessing``'s fork context) when ``fork`` is true, so
    that the workers start with polyrank imported; spawned by joblib's
    loky backend otherwise.  The fork happens on entering the ``with``
    block: enter it before anything starts a thread (a tqdm bar does)."""

    def __init__(self, n_jobs: int, fork: bool) -> None:
        self.n_jobs = n_jobs
        self.fork = fork
        self._pool: Any = None                 # a multiprocessing Pool when forking

    def __enter__(self) -> _CompilePool:
        if self.fork:
            # the workers are forked here, before the pool starts its threads
            self._pool = multiprocessing.get_context("fork").Pool(self.n_jobs)
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()

    def run(self, order):
        """(package, seconds) as the workers finish the packages of ``order``."""
        if self._pool is not None:
            return self._pool.imap_unordered(_warm_package_task, order, chunksize=1)
        run = Parallel(n_jobs=self.n_jobs, backend="loky", return_as="generator_unordered")
        return run(delayed(_warm_package_task)(p) for p in order)


def _ordered_tasks(packages, n_workers: int = 2, rare: bool = False) -> list[str]:
    """The warm-up tasks of ``packages`` in the order to hand them to
    ``n_workers`` workers (each takes the next task when it is free).

    A package's parts run one after the other (a later part then loads the
    kernels it shares with an earlier one from the cache, instead of a
    second worker compiling them at the same time), and a free worker takes
    the next part of the package with the most work left
    (:data:`_COMPILE_SECONDS`) that is not running on another worker: the
    longest chains start first and short parts fill the end.  The order
    comes from simulating that schedule with the expected seconds.  With
    ``rare`` the packages' rare variants are tasks too."""
    chains = {name: _package_tasks(name, rare) for name in packages}
    free = [0.0] * max(1, n_workers)                 # when each worker is free
    running: list = [None] * len(free)               # the package each one runs
    order = []
    while any(chains.values()):
        w = min(range(len(free)), key=free.__getitem__)
        elsewhere = {running[v] for v in range(len(free)) if v != w and free[v] > free[w]}
        name = max((p for p, c in chains.items() if c),
                   key=lambda p: (p not in elsewhere, sum(map(_task_seconds, chains[p])), p))
        task = chains[name].pop(0)
        order.append(task)
        free[w] += _task_seconds(task)
        running[w] = name
    return order


def _compile_in_workers(packages, n_jobs: int, bar=None, *, fork: bool | None = None,
                        rare: bool = False) -> dict:
    """Compile the kernels of ``packages`` in ``n_jobs`` worker processes
    (forked if ``fork``; None: if :func:`_fork_is_safe`); numba writes them
    to its on-disk cache, from which this process then loads them.  ``bar``
    (tqdm or None) advances as tasks finish.  Returns the seconds per
    package (its tasks' seconds added)."""
    fork = _fork_is_safe() if fork is None else fork
    with _CompilePool(n_jobs, fork) as pool:
        return _collect(pool, packages, bar, rare)


def _collect(pool: _CompilePool, packages, bar, rare: bool = False) -> dict:
    """Run the tasks of ``packages`` on ``pool`` in the order of
    :func:`_ordered_tasks`; the bar advances by each task's expected seconds.
    Returns the seconds per package."""
    out: dict = {}
    for task, seconds in pool.run(_ordered_tasks(packages, pool.n_jobs, rare)):
        name = task.partition(".")[0]
        out[name] = out.get(name, 0.0) + seconds
        if bar is not None:
            bar.set_postfix_str(task, refresh=False)
            bar.update(_task_seconds(task))
    return out


def _compile_bar(packages, progress: bool, rare: bool = False):
    """The bar of a warm-up that compiles ``packages`` (none: no bar, and no
    claim of a first use): its total is their tasks' expected seconds, so that
    its rate and ETA are this machine's, measured as the tasks finish."""
    total = sum(_task_seconds(t) for name in packages for t in _package_tasks(name, rare))
    return tqdm(total=round(total, 1), desc="compiling polyrank's numba kernels (first use only)",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}{postfix}",
                delay=2.0, disable=not (progress and packages), leave=False)


def _load_packages(cold, compiled: dict, bar, *, verbose: bool, load: bool,
                   rare: bool = False, packages=_WARMUP_PACKAGES) -> dict:
    """Run every package's warm-up tasks in this process (compiling the
    packages of ``cold`` not compiled in a worker, loading the others from the
    cache); with ``load`` false, only those that still need compiling."""
    timings = {}
    for name in packages:
        in_worker = name in compiled
        if not load and (in_worker or name not in cold):
            if verbose and in_worker:
                print(f"{name}: compiled in a worker: {compiled[name]:.2f} s")
            continue
        bar.set_postfix_str(name, refresh=False)
        tasks = _package_tasks(name, rare)
        timings[name] = sum(_warm_package(t) for t in tasks)
        if name in cold and not in_worker:
            bar.update(sum(_task_seconds(t) for t in tasks))
        if verbose:
            print(f"{name}: {timings[name]:.2f} s"
                  + (f" (compiled in a worker: {compiled[name]:.2f} s)" if in_worker else ""))
    return timings


def _check_packages(packages) -> tuple:
    """``packages`` of :func:`warmup` checked, in the warm-up's order."""
    if packages is None:
        return _WARMUP_PACKAGES
    if isinstance(packages, str) or not all(p in SOLVER_PACKAGES for p in packages):
        raise ValueError(f"packages: expected None or a sequence of {SOLVER_PACKAGES}, "
                         f"got {packages!r}")
    return tuple(p for p in _WARMUP_PACKAGES if p in packages)


def warmup(verbose: bool = False, progress: bool = True, n_jobs: int | None = None,
           *, load: bool = True, rare: bool = False, packages=None) -> dict:
    """Compile (or load from numba's on-disk cache) the numba kernels once.

    Calls ``_warmup()`` of every solver subpackage, which runs each of its
    kernels on a tiny problem so that later calls do not pay the compile
    time: every kernel the estimators' defaults and the tour call, and with
    ``rare`` every kernel.  On an empty cache (a fresh install) this compiles
    the kernels of the five papers and takes a while (``polyrank bench first-fit`` measures
    it on your machine; the README's benchmark table shows one run); the
    packages whose kernels are not in the cache are then compiled in
    ``n_jobs`` worker processes at once (numba compiles on one core), each
    package's warm-up split into parts (``_WARMUP_PARTS``) handed to the
    first free worker longest first, and this process loads the result from
    the cache.  On Linux, when this
    process runs a single thread (the ``polyrank warmup`` command), the
    workers are forked and start with polyrank imported; otherwise (a
    notebook's kernel runs threads) joblib's loky backend spawns them.
    Later processes load the cache (``cache=True``) in about a second.

    Parameters
    ----------
    verbose : bool, default=False
        Print the seconds spent per subpackage.
    progress : bool, default=True
        Show a progress bar "compiling ... (first use only)" (tqdm) when
        some kernel is neither loaded nor in the cache and the warm-up takes
        more than 2 s; with a warm cache nothing is shown.  Its ETA comes
        from the parts' measured seconds (:data:`_COMPILE_SECONDS`) scaled
        by this machine's rate so far.
    n_jobs : int or None, default=None
        Worker processes that compile on an empty cache: None uses up to two
        (one per core), -1 one per core, 1 compiles in this process only.
        With a warm cache no worker is started.
    load : bool, default=True
        Load every package's kernels into this process.  False (what
        ``polyrank warmup`` passes: the command ends right after) only fills
        the cache: packages compiled in a worker or already cached are not
        loaded here.
    rare : bool, default=False
        Also compile the rare variants (each package's ``_RARE_PARTS``:
        non-default options such as RankSVM's ``loss="l1"`` and ``n_jobs``,
        sign-constrained multiclass losses, SOPOPO's Gram kernels and
        general decompositions, M3L's float64 Gram matrix), which are
        otherwise compiled on the first fit that uses them, with the compile
        notice (``polyrank warmup --all``; what the test suite runs first).
    packages : sequence of str or None, default=None
        Only these solver packages (of ``"sopopo", "sign", "ranksvm",
        "ordinal", "m3l"``); None: all five.

    Returns
    -------
    dict
        Seconds spent per subpackage in this process, e.g. ``{"sopopo": 0.4}``
        (loading from the cache after a parallel compile; with ``load``
        false only the packages compiled here), and under
        ``"compiled_in_workers"`` the seconds each package took in its
        worker (empty when nothing was compiled there).

    Raises
    ------
    ValueError
        If ``n_jobs`` is 0 or not an int, or ``packages`` names an unknown package.

    Examples
    --------
    >>> t = warmup(progress=False, n_jobs=1)
    >>> sorted(k for k in t if k != "compiled_in_workers")
    ['m3l', 'ordinal', 'ranksvm', 'sign', 'sopopo']
    """
    n_jobs = _resolve_n_jobs(n_jobs)
    chosen = _check_packages(packages)
    cold = [p for p in chosen if compile_state(p, rare).needs_compiling]
    workers = min(n_jobs, sum(len(_package_tasks(p, rare)) for p in cold))
    compiled: dict = {}
    # the pool forks (when this process runs one thread) before the bar starts its thread
    with _CompilePool(workers, workers > 1 and _fork_is_safe()) as pool:
        bar = _compile_bar(cold, progress, rare)
        if workers > 1:
            compiled = _collect(pool, cold, bar, rare)
    timings = _load_packages(cold, compiled, bar, verbose=verbose, load=load, rare=rare,
                             packages=chosen)
    bar.close()
    timings["compiled_in_workers"] = compiled
    return timings
