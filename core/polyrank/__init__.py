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

This is the lowest of three floors: the widgets live in the separate package
``polyrank_widgets``, the reproductions of the papers' figures and tables and
the benchmarks in the paper wing ``polyrank_paper``; both import this package,
never the reverse.

Importing the package is cheap: it reads the version and nothing else.  The
public names below load their subpackage (numpy, scikit-learn, numba and that
solver's kernels) on first use (PEP 562 module ``__getattr__``, as SciPy and
the Scientific Python SPEC 1 do), so ``from polyrank import RankSVM`` loads
the RankSVM solver and no other, and the ``polyrank`` command starts without
any of them.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from typing import TYPE_CHECKING

if TYPE_CHECKING:       # the same names, for mypy and IDEs (loaded lazily below)
    from . import datasets, exceptions, m3l, metrics, ordinal, ranksvm, result, sign, sopopo, tron
    from ._warmup_all import warmup
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

#: the submodules of ``__all__``, imported on first access
_SUBMODULES = frozenset({"datasets", "exceptions", "m3l", "metrics", "ordinal", "ranksvm",
                         "result", "sign", "sopopo", "tron"})
#: the other public names of ``__all__``: name -> the module (relative) that defines it
#: (the ``TYPE_CHECKING`` imports above, which tests/architecture/test_startup.py
#: checks against this)
_OBJECTS = {
    "warmup": "._warmup_all",
    "M3LClassifier": ".m3l",
    "OrdinalMarginRanker": ".ordinal", "PRank": ".ordinal",
    "RankSVM": ".ranksvm",
    "IterInfo": ".result", "SolverResult": ".result", "Trace": ".result",
    "SignConstrainedClassifier": ".sign", "SignConstrainedRegressor": ".sign",
    "LabelRanker": ".sopopo", "soft_project": ".sopopo",
}


# at run time only: to mypy and IDEs the package has exactly the names imported above, so
# that a misspelt name is an error there too
if not TYPE_CHECKING:
    def __getattr__(name: str):
        """Import a public name of the package on its first use (PEP 562).

        Raises
        ------
        AttributeError
            ``name`` is not a public name of polyrank (nor an imported submodule).
        """
        if name in _SUBMODULES:
            return importlib.import_module(f".{name}", __name__)
        if name in _OBJECTS:
            value = getattr(importlib.import_module(_OBJECTS[name], __name__), name)
            globals()[name] = value          # later lookups are plain attribute reads
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's attributes and every public name, loaded or not."""
    return sorted(set(globals()) | set(__all__))
