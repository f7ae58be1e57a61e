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
from .result import IterInfo, SolverResult, Trace
from .sopopo import LabelRanker, soft_project

__version__ = "0.1.0"

__all__ = ["LabelRanker", "soft_project", "SolverResult", "Trace", "IterInfo",
           "warmup", "datasets", "result", "sopopo", "__version__"]


def warmup(verbose: bool = False) -> dict:
    """Compile (or load from numba's on-disk cache) every numba kernel once.

    Runs each kernel on a tiny problem so that later calls do not pay the
    compile time.  The first call in a fresh environment takes a few
    seconds; later processes load the cache (``cache=True``) in well under
    a second.

    Parameters
    ----------
    verbose : bool
        Print the seconds spent per kernel group.

    Returns
    -------
    dict
        Seconds spent per kernel group, e.g. ``{"sopopo": 0.4}``.
    """
    import time

    import numpy as np

    timings = {}
    t = time.perf_counter()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    Y = np.eye(3)[[0, 1, 2, 0, 1, 2]]
    soft_project(X[0], Y[0], np.zeros((3, 3)), [0], [1, 2], 1.0)
    sopopo.solve_reduced(np.array([1.0, 0.5]), np.array([0.2]), 1.0)
    sopopo.knots(np.array([1.0, 0.5]))
    sopopo.g(np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    for order, kernel in (("shuffle", "linear"), ("cyclic", "rbf"), ("greedy", "linear")):
        sopopo.sopopo_batch(X, Y, 1.0, order=order, kernel=kernel, max_iter=2)
    timings["sopopo"] = time.perf_counter() - t
    if verbose:
        for name, sec in timings.items():
            print(f"{name}: {sec:.2f} s")
    return timings
