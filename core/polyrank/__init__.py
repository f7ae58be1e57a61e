"""polyrank: max-margin ranking, exact and fast.

The numerical core of polyrank (numba kernels, Python drivers and
scikit-learn estimators).  Implemented so far:

- :mod:`polyrank.sopopo`: label ranking by soft projections onto polyhedra
  (Shalev-Shwartz & Singer, JMLR 2006), with :class:`LabelRanker`.
- :mod:`polyrank.result`: :class:`SolverResult`, :class:`Trace`,
  :class:`IterInfo` and the callback contract.
- :mod:`polyrank.datasets`: the bundled real data sets.

Widgets live in the separate package ``polyrank_widgets``.
"""

from . import datasets, result, sopopo
from . import metrics, ranksvm, tron  # noqa: E402  (Lee & Lin 2014: RankSVM)
from .result import IterInfo, SolverResult, Trace
from .sopopo import LabelRanker, soft_project
from .ranksvm import RankSVM  # noqa: E402

__version__ = "0.1.0"

__all__ = ["LabelRanker", "soft_project", "SolverResult", "Trace", "IterInfo",
           "warmup", "datasets", "result", "sopopo", "__version__"]
__all__ += ["RankSVM", "ranksvm", "tron", "metrics"]


#: The subpackages whose ``_warmup()`` :func:`warmup` calls, in order.
_WARMUP_PACKAGES = ("sopopo", "ranksvm")


def warmup(verbose: bool = False) -> dict:
    """Compile (or load from numba's on-disk cache) every numba kernel once.

    Calls ``_warmup()`` of every solver subpackage, which runs each of its
    kernels on a tiny problem so that later calls do not pay the compile
    time.  The first call in a fresh environment takes a few seconds per
    subpackage; later processes load the cache (``cache=True``) in well
    under a second.

    Parameters
    ----------
    verbose : bool
        Print the seconds spent per subpackage.

    Returns
    -------
    dict
        Seconds spent per subpackage, e.g. ``{"sopopo": 0.4}``.
    """
    import importlib
    import time

    timings = {}
    for name in _WARMUP_PACKAGES:
        t = time.perf_counter()
        importlib.import_module(f"{__name__}.{name}")._warmup()
        timings[name] = time.perf_counter() - t
        if verbose:
            print(f"{name}: {timings[name]:.2f} s")
    return timings
