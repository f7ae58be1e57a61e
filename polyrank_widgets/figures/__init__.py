"""The plotly figures of the papers' experiments, one module per paper, each
a pure function of an experiment's :class:`~polyrank.experiments.ExperimentResult`
(scikit-learn's Display pattern: :mod:`polyrank.experiments` computes, these
draw).

:data:`FIGURES` maps an experiment's registered name to its builder; it is
the entry point ``polyrank.figures`` (``pyproject.toml``) through which
``ExperimentResult.figure`` finds its drawing without the core importing
this package.
"""

from . import m3l, ordinal, ranksvm, sign, sopopo

__all__ = ["FIGURES", "m3l", "ordinal", "ranksvm", "sign", "sopopo"]

#: experiment name -> ``builder(result) -> plotly.graph_objects.Figure``
FIGURES = {**sopopo.FIGURES, **sign.FIGURES, **ranksvm.FIGURES, **ordinal.FIGURES,
           **m3l.FIGURES}
