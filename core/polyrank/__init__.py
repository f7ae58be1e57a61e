"""polyrank: max-margin ranking, exact and fast.

The numerical core of polyrank (numba kernels, Python drivers and
scikit-learn estimators), one subpackage per paper:

- :mod:`polyrank.sopopo`: label ranking by soft projections onto polyhedra
  (Shalev-Shwartz & Singer, JMLR 2006), with :class:`LabelRanker`.
- :mod:`polyrank.sign`: sign-constrained Pegasos and SDCA (Kato et al.),
  with :class:`SignConstrainedClassifier` and :class:`SignConstrainedRegressor`.
- :mod:`polyrank.ranksvm`, :mod:`polyrank.tron`: large-scale linear RankSVM
  by trust-region Newton with selection trees (Lee & Lin 2014), with
  :class:`RankSVM`; ranking metrics in :mod:`polyrank.metrics`.
- :mod:`polyrank.ordinal`: ordinal ranking by minimum-margin maximisation
  with row and column generation and kernels (Izunaga et al., JORSJ 2015),
  with :class:`OrdinalMarginRanker` and the baseline :class:`PRank`.
- :mod:`polyrank.m3l`: max-margin multi-label classification with a
  label-correlation prior R (Hariharan et al., MLJ 2012), with
  :class:`M3LClassifier`.

and the shared pieces:

- :mod:`polyrank.result`: :class:`SolverResult`, :class:`Trace`,
  :class:`IterInfo` and the callback contract.
- :mod:`polyrank.datasets`: the bundled real data sets.
- :mod:`polyrank.experiments`: the reproductions of the papers' figures
  and tables, and the benchmarks.

Widgets live in the separate package ``polyrank_widgets``.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from typing import Any

from . import datasets, exceptions, m3l, metrics, ordinal, ranksvm, result, sign, sopopo, tron
from .m3l import M3LClassifier
from .ordinal import OrdinalMarginRanker, PRank
from .ranksvm import RankSVM
from .result import IterInfo, SolverResult, Trace
from .sign import SignConstrainedClassifier, SignConstrainedRegressor
from .sopopo import LabelRanker, soft_project

try:
    # the one source of the version: pyproject.toml's [project] version, as installed
    __version__ = _version("polyrank")
except PackageNotFoundError:        # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["LabelRanker", "soft_project", "SolverResult", "Trace", "IterInfo",
           "warmup", "datasets", "exceptions", "result", "sopopo", "__version__",
           "sign", "SignConstrainedClassifier", "SignConstrainedRegressor",
           "ranksvm", "tron", "metrics", "RankSVM",
           "ordinal", "OrdinalMarginRanker", "PRank",
           "m3l", "M3LClassifier"]


#: The subpackages whose ``_warmup()`` :func:`warmup` calls, in order.
_WARMUP_PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")
#: The order in which a parallel warm-up hands the packages to its workers.
#: Compile seconds on an empty cache (one worker each): sopopo 13.4, m3l 10.5,
#: sign 9.3, ranksvm 8.6, ordinal 4.4; two workers then run sopopo + sign
#: (22.7 s) and m3l + ranksvm + ordinal (23.5 s), where longest-first
#: (sign third) would leave one worker 24.2 s busy.
_COMPILE_ORDER = ("sopopo", "m3l", "ranksvm", "sign", "ordinal")


def _warm_package(name: str) -> float:
    """Run ``polyrank.<name>._warmup()`` and return its seconds (a worker
    task of :func:`warmup`)."""
    import importlib
    import time

    t = time.perf_counter()
    importlib.import_module(f"{__name__}.{name}")._warmup()
    return time.perf_counter() - t


def _warm_package_task(name: str) -> tuple[str, float]:
    return name, _warm_package(name)


def _resolve_n_jobs(n_jobs) -> int:
    import numbers
    import os

    if n_jobs is None:
        return min(2, os.cpu_count() or 1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs: expected None, a positive int or -1, got {n_jobs!r}")
    return os.cpu_count() or 1 if n_jobs < 0 else int(n_jobs)


def _fork_is_safe() -> bool:
    """True on Linux when this process runs a single Python thread: then
    worker processes can be forked, and start with polyrank already
    imported (a spawned worker first spends 2-5 s importing it)."""
    import multiprocessing
    import sys
    import threading

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

    def __enter__(self) -> "_CompilePool":
        if self.fork:
            import multiprocessing

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
        from joblib import Parallel, delayed

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
    from tqdm.auto import tqdm

    from ._jit import compile_state

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
