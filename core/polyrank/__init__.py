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

from . import datasets, m3l, metrics, ordinal, ranksvm, result, sign, sopopo, tron
from .m3l import M3LClassifier
from .ordinal import OrdinalMarginRanker, PRank
from .ranksvm import RankSVM
from .result import IterInfo, SolverResult, Trace
from .sign import SignConstrainedClassifier, SignConstrainedRegressor
from .sopopo import LabelRanker, soft_project

__version__ = "0.1.0"

__all__ = ["LabelRanker", "soft_project", "SolverResult", "Trace", "IterInfo",
           "warmup", "datasets", "result", "sopopo", "__version__",
           "sign", "SignConstrainedClassifier", "SignConstrainedRegressor",
           "ranksvm", "tron", "metrics", "RankSVM",
           "ordinal", "OrdinalMarginRanker", "PRank",
           "m3l", "M3LClassifier"]


#: The subpackages whose ``_warmup()`` :func:`warmup` calls, in order.
_WARMUP_PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")
#: Their compile times on an empty cache relative to each other (``polyrank
#: bench first-fit``: sopopo 12 s, sign 11 s, ranksvm 11 s, m3l 8 s, ordinal 4 s),
#: so that a parallel warm-up starts the longest first.
_COMPILE_ORDER = ("sopopo", "sign", "ranksvm", "m3l", "ordinal")


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


def _compile_in_workers(packages, n_jobs: int, bar) -> dict:
    """Compile the kernels of ``packages`` in ``n_jobs`` worker processes
    (joblib's loky backend); numba writes them to its on-disk cache, from
    which this process then loads them.  Returns the seconds per package."""
    from joblib import Parallel, delayed

    order = sorted(packages, key=_COMPILE_ORDER.index)
    out = {}
    run = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered")
    for name, seconds in run(delayed(_warm_package_task)(p) for p in order):
        out[name] = seconds
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
    this process loads the result from the cache.  Later processes load the
    cache (``cache=True``) in about a second.

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
    bar = tqdm(total=len(_WARMUP_PACKAGES) + (len(cold) if workers > 1 else 0),
               desc="compiling polyrank's numba kernels (first use only)",
               unit="solver", delay=2.0, disable=not progress, leave=False)
    compiled = _compile_in_workers(cold, workers, bar) if workers > 1 else {}
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
