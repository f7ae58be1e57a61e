"""The plotly figures of the papers' experiments, one module per paper, each
a pure function of an experiment's :class:`~polyrank_paper.ExperimentResult`
(scikit-learn's Display pattern: :mod:`polyrank_paper` computes, these
draw).

:data:`FIGURES` maps an experiment's registered name to its builder;
``ExperimentResult.figure`` imports it the first time a figure is drawn
(:func:`polyrank_paper.registry.figure_builders`), so that the experiments
run, and ``polyrank bench`` starts, without importing plotly.
"""

from . import m3l, ordinal, ranksvm, sign, sopopo

__all__ = ["FIGURES", "m3l", "ordinal", "ranksvm", "sign", "sopopo"]

#: experiment name -> ``builder(result) -> plotly.graph_objects.Figure``
FIGURES = {**sopopo.FIGURES, **sign.FIGURES, **ranksvm.FIGURES, **ordinal.FIGURES,
           **m3l.FIGURES}
