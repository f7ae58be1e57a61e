"""Reproductions of the papers' figures and tables, as functions returning
tidy tables (lists of dict rows); notebooks and the ``polyrank`` CLI call them.

- :func:`bench_sopopo`, :func:`format_table`: run-time of a single soft
  projection, SOPOPO vs Clarabel vs ``np.sort``
  (``sopopo-label-ranking.txt``, Sec. 5, Fig. 6).
- :func:`sopopo_fig6`, :func:`sopopo_fig7`, :func:`sopopo_fig8`: the
  reproductions of Fig. 6, 7 and 8 of ``sopopo-label-ranking.txt`` (Sec. 5),
  each returning an :class:`ExperimentResult` (rows, summary, plotly figure).
- :data:`EXPERIMENTS`, :func:`run_experiment`, :func:`get_experiment`,
  :func:`list_experiments`: the registry behind ``polyrank reproduce``.
- :data:`BENCHES`, :func:`register_bench`: the benchmarks behind
  ``polyrank bench NAME``.
- :func:`ranksvm_fig4`, :func:`ranksvm_methods`, :func:`ranksvm_vs_svr`,
  :func:`bench_ranksvm`: Fig. 4-7 and Tables 3-5 of
  ``large-scale-linear-ranksvm.txt`` and ``polyrank bench ranksvm``.
"""

from .bench import bench_sopopo, format_table
from .registry import (
                       BENCHES,
                       EXPERIMENTS,
                       Experiment,
                       ExperimentResult,
                       format_rows,
                       get_experiment,
                       list_experiments,
                       register_bench,
                       run_experiment,
)
from .sopopo_figures import fig7_data, sopopo_fig6, sopopo_fig7, sopopo_fig8
from .ranksvm_experiments import (bench_ranksvm, large_k_problem, ranksvm_fig4,  # noqa: E402
                                  ranksvm_methods, ranksvm_vs_svr)

__all__ = ["bench_sopopo", "format_table", "sopopo_fig6", "sopopo_fig7", "sopopo_fig8",
           "fig7_data", "BENCHES", "register_bench", "EXPERIMENTS", "Experiment", "ExperimentResult", "format_rows",
           "get_experiment", "list_experiments", "run_experiment"]
__all__ += ["ranksvm_fig4", "ranksvm_methods", "ranksvm_vs_svr", "bench_ranksvm",
            "large_k_problem"]
