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


def warmup(verbose: bool = False, progress: bool = True) -> dict:
    """Compile (or load from numba's on-disk cache) every numba kernel once.

    Calls ``_warmup()`` of every solver subpackage, which runs each of its
    kernels on a tiny problem so that later calls do not pay the compile
    time.  On an empty cache (a fresh install) this compiles every kernel of
    the five papers and takes a while (``polyrank bench first-fit`` measures
    it on your machine; the README's benchmark table shows one run); later
    processes load the cache (``cache=True``) in about a second.

    Parameters
    ----------
    verbose : bool, default=False
        Print the seconds spent per subpackage.
    progress : bool, default=True
        Show a progress bar "compiling ... (first use only)" (tqdm) when the
        warm-up takes more than 2 s, i.e. when it compiles; with a warm
        cache nothing is shown.

    Returns
    -------
    dict
        Seconds spent per subpackage, e.g. ``{"sopopo": 0.4}``.
    """
    import importlib
    import time

    from tqdm.auto import tqdm

    timings = {}
    bar = tqdm(_WARMUP_PACKAGES, desc="compiling polyrank's numba kernels (first use only)",
               unit="solver", delay=2.0, disable=not progress, leave=False)
    for name in bar:
        bar.set_postfix_str(name, refresh=False)
        t = time.perf_counter()
        importlib.import_module(f"{__name__}.{name}")._warmup()
        timings[name] = time.perf_counter() - t
        if verbose:
            print(f"{name}: {timings[name]:.2f} s")
    bar.close()
    return timings
