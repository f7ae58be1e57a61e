"""Honest first use: say so while numba compiles a solver's kernels.

Every solver's kernels are ``@numba.njit(cache=True)`` functions in
``polyrank.<paper>._kernels`` (``DESIGN.md``, "The pattern every solver
follows").  The first call of a kernel in a fresh environment compiles it
(seconds per solver); later processes load it from numba's on-disk cache in
a fraction of a second.  This module tells the two cases apart *before* a
fit starts, from the dispatchers' state:

- ``loaded``: compiled (or loaded from the cache) in this process already;
- ``cached``: not loaded yet, but numba's cache index on disk holds a
  compiled version for the current source;
- otherwise the kernel will be compiled on first use.

and :class:`polyrank.compiling.CompileNotice` reports "compiling ... (first
use only)" with progress while a fit runs (``polyrank.compiling`` also
compiles in background worker processes).

Only numba's documented dispatcher attributes (``signatures``) and its cache
index (``_cache._cache_file._load_index``, stable since numba 0.50) are read;
if the cache cannot be inspected the state is "unknown".

:func:`warmup` (re-exported as :func:`polyrank.warmup`, run by ``polyrank
warmup``) compiles every kernel once, in worker processes when the cache is
empty: the subpackages' ``_warmup()`` functions are found by name
(:func:`importlib.import_module`), so this module imports no paper
subpackage (``tests/test_layering.py``).
"""

from __future__ import annotations

import importlib
import multiprocessing
import numbers
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from joblib import Parallel, delayed
from tqdm.auto import tqdm

__all__ = ["SOLVER_PACKAGES", "CompileState", "compile_state", "package_of",
           "kernel_dispatchers", "warmup"]

#: The subpackages whose ``_kernels`` module holds numba kernels.
SOLVER_PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")


def kernel_dispatchers(package: str) -> list:
    """The numba dispatchers of ``polyrank.<package>._kernels``.

    Parameters
    ----------
    package : str
        One of :data:`SOLVER_PACKAGES` (``"sopopo"``, ``"sign"`` ...).

    Returns
    -------
    list of numba dispatchers, in definition order (those declared
    ``inline="always"`` left out: they are compiled into their callers).

    Raises
    ------
    ValueError
        If ``package`` is not one of :data:`SOLVER_PACKAGES`.
    """
    if package not in SOLVER_PACKAGES:
        raise ValueError(f"package: expected one of {SOLVER_PACKAGES}, got {package!r}")
    from numba.core.dispatcher import Dispatcher

    mod = importlib.import_module(f"polyrank.{package}._kernels")
    # inline="always" functions are compiled into their callers, never alone
    return [v for v in vars(mod).values() if isinstance(v, Dispatcher)
            and v.targetoptions.get("inline") != "always"]


def _is_cached(dispatcher) -> bool | None:
    """True if numba's on-disk cache holds a version of ``dispatcher`` for
    its current source, False if not, None if it cannot be told."""
    try:
        cache = dispatcher._cache
        if not getattr(cache, "_cache_file", None):      # cache=False: a null cache
            return False
        return bool(cache._cache_file._load_index())
    except Exception:          # a numba without these internals: unknown
        return None


@dataclass(frozen=True)
class CompileState:
    """How many of a package's kernels are ready.

    Attributes
    ----------
    package : str
    n_kernels : int
        Numba kernels in ``polyrank.<package>._kernels``.
    n_loaded : int
        Compiled or loaded in this process.
    n_cached : int
        Not loaded yet but present in numba's on-disk cache.
    n_unknown : int
        Kernels whose cache could not be inspected.
    """

    package: str
    n_kernels: int
    n_loaded: int
    n_cached: int
    n_unknown: int = 0

    @property
    def n_to_compile(self) -> int:
        """Kernels that a first use would compile (an upper bound: a fit
        compiles only the kernels it calls)."""
        return self.n_kernels - self.n_loaded - self.n_cached - self.n_unknown

    @property
    def needs_compiling(self) -> bool | None:
        """True if some kernel is neither loaded nor cached, None if that
        cannot be told (see :attr:`n_unknown`), else False."""
        if self.n_to_compile > 0:
            return True
        return None if self.n_unknown else False


def compile_state(package: str) -> CompileState:
    """The :class:`CompileState` of ``polyrank.<package>``'s kernels.

    Examples
    --------
    >>> s = compile_state("sopopo")
    >>> s.n_kernels == s.n_loaded + s.n_cached + s.n_unknown + s.n_to_compile
    True
    """
    loaded = cached = unknown = 0
    ds = kernel_dispatchers(package)
    for d in ds:
        if d.signatures:
            loaded += 1
            continue
        c = _is_cached(d)
        if c is None:
            unknown += 1
        elif c:
            cached += 1
    return CompileState(package, len(ds), loaded, cached, unknown)


def package_of(obj) -> str | None:
    """The solver package (``"sopopo"`` ...) an estimator, class or function
    belongs to, from its module name; None if it is not one of polyrank's.

    Examples
    --------
    >>> from polyrank import RankSVM
    >>> package_of(RankSVM()), package_of(len)
    ('ranksvm', None)
    """
    import types

    owner = obj if isinstance(obj, (type, types.FunctionType)) else type(obj)
    parts = (getattr(owner, "__module__", "") or "").split(".")
    if len(parts) >= 2 and parts[0] == "polyrank" and parts[1] in SOLVER_PACKAGES:
        return parts[1]
    return None


#: The subpackages whose ``_warmup()`` :func:`warmup` calls, in order.
_WARMUP_PACKAGES = SOLVER_PACKAGES
#: The order in which a parallel warm-up hands the packages to its workers.
#: Compile seconds on an empty cache (one worker each): sopopo 13.4, m3l 10.5,
#: sign 9.3, ranksvm 8.6, ordinal 4.4; two workers then run sopopo + sign
#: (22.7 s) and m3l + ranksvm + ordinal (23.5 s), where longest-first
#: (sign third) would leave one worker 24.2 s busy.
_COMPILE_ORDER = ("sopopo", "m3l", "ranksvm", "sign", "ordinal")


def _warm_package(name: str) -> float:
    """Run ``polyrank.<name>._warmup()`` and return its seconds (a worker
    task of :func:`warmup`)."""
    t = time.perf_counter()
    importlib.import_module(f"polyrank.{name}")._warmup()
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


def _compile_in_workers(packages, n_jobs: int, bar=None, *, fork: bool | None = None) -> dict:
    """Compile the kernels of ``packages`` in ``n_jobs`` worker processes
    (forked if ``fork``; None: if :func:`_fork_is_safe`); numba writes them
    to its on-disk cache, from which this process then loads them.  ``bar``
    (tqdm or None) advances as packages finish.  Returns the seconds per
    package."""
    fork = _fork_is_safe() if fork is None else fork
    with _CompilePool(n_jobs, fork) as pool:
        return _collect(pool, packages, bar)


def _collect(pool: _CompilePool, packages, bar) -> dict:
    """Run ``packages`` on ``pool`` in the order of :data:`_COMPILE_ORDER`."""
    out = {}
    for name, seconds in pool.run(sorted(packages, key=_COMPILE_ORDER.index)):
        out[name] = seconds
        if bar is not None:
            bar.set_postfix_str(name, refresh=False)
            bar.update(1)
    return out


def warmup(verbose: bool = False, progress: bool = True, n_jobs: int | None = None) -> dict:
    """Compile (or load from numba's on-disk cache) every numba kernel once.

    Calls ``_warmup()`` of every solver subpackage, which runs each of its
    kernels on a tiny problem so that later calls do not pay the compile
    time.  On an empty cache (a fresh install) this compiles every kernel of
    the five papers and takes a while (``polyrank bench first-fit`` measures
    it on your machine; the README's benchmark table shows one run); the
    packages whose kernels are not in the cache are then compiled in
    ``n_jobs`` worker processes at once (numba compiles on one core), and
    this process loads the result from the cache.  On Linux, when this
    process runs a single thread (the ``polyrank warmup`` command), the
    workers are forked and start with polyrank imported; otherwise (a
    notebook's kernel runs threads) joblib's loky backend spawns them.
    Later processes load the cache (``cache=True``) in about a second.

    Parameters
    ----------
    verbose : bool, default=False
        Print the seconds spent per subpackage.
    progress : bool, default=True
        Show a progress bar "compiling ... (first use only)" (tqdm) when the
        warm-up takes more than 2 s, i.e. when it compiles; with a warm
        cache nothing is shown.
    n_jobs : int or None, default=None
        Worker processes that compile on an empty cache: None uses up to two
        (one per core), -1 one per core, 1 compiles in this process only.
        With a warm cache no worker is started.

    Returns
    -------
    dict
        Seconds spent per subpackage in this process, e.g. ``{"sopopo": 0.4}``
        (loading from the cache after a parallel compile), and under
        ``"compiled_in_workers"`` the seconds each package took in its
        worker (empty when nothing was compiled there).

    Raises
    ------
    ValueError
        If ``n_jobs`` is 0 or not an int.

    Examples
    --------
    >>> t = warmup(progress=False, n_jobs=1)
    >>> sorted(k for k in t if k != "compiled_in_workers")
    ['m3l', 'ordinal', 'ranksvm', 'sign', 'sopopo']
    """
    n_jobs = _resolve_n_jobs(n_jobs)
    cold = [p for p in _WARMUP_PACKAGES if compile_state(p).needs_compiling]
    workers = min(n_jobs, len(cold))
    timings: dict = {}
    compiled: dict = {}
    # the pool forks (when this process runs one thread) before the bar starts its thread
    with _CompilePool(workers, workers > 1 and _fork_is_safe()) as pool:
        bar = tqdm(total=len(_WARMUP_PACKAGES) + (len(cold) if workers > 1 else 0),
                   desc="compiling polyrank's numba kernels (first use only)",
                   unit="solver", delay=2.0, disable=not progress, leave=False)
        if workers > 1:
            compiled = _collect(pool, cold, bar)
    for name in _WARMUP_PACKAGES:
        bar.set_postfix_str(name, refresh=False)
        timings[name] = _warm_package(name)
        bar.update(1)
        if verbose:
            print(f"{name}: {timings[name]:.2f} s"
                  + (f" (compiled in a worker: {compiled[name]:.2f} s)" if name in compiled
                     else ""))
    bar.close()
    timings["compiled_in_workers"] = compiled
    return timings
