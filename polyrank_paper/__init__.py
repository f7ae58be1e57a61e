"""The paper wing of polyrank: the reproductions of the papers' figures and
tables, as functions returning typed tidy tables (an :class:`ExperimentResult`
whose rows are frozen row dataclasses and whose summary is a dataclass, each
experiment defining its own), their figures (:mod:`polyrank_paper.figures`),
the benchmarks against peers, the README table writers
(:mod:`polyrank_paper.readme`), :class:`~polyrank_paper.result_view.ResultView`
and the commands ``polyrank reproduce``, ``polyrank bench`` and ``polyrank
demo`` (:mod:`polyrank_paper.cli`, registered in the entry-point group
``polyrank.commands``); notebooks and the ``polyrank`` command call them.

The top floor of three: it imports :mod:`polyrank` and
:mod:`polyrank_widgets`; neither imports it (``tests/test_layering.py``).  It
is the ``polyrank-paper`` distribution (``pip install polyrank-paper``; from
a clone ``dists/polyrank-paper``: ``polyrank-widgets`` with its plotly and
widgets for the figures, and the peers of the benchmarks); importing it
without those raises an ImportError that says so, and without the
distribution the ``polyrank`` command names it for ``reproduce``, ``bench``
and ``demo``.

- :func:`bench_sopopo`, :func:`format_table`: run-time of a single soft
  projection, SOPOPO vs Clarabel vs ``np.sort``
  (``sopopo-label-ranking.txt``, Sec. 5, Fig. 6).
- :func:`sopopo_fig6`, :func:`sopopo_fig7`, :func:`sopopo_fig8`: the
  reproductions of Fig. 6, 7 and 8 of ``sopopo-label-ranking.txt`` (Sec. 5),
  each returning an :class:`ExperimentResult` (rows, summary; its figure is
  drawn by ``polyrank_paper.figures``).
- :func:`sign_convergence`, :func:`sign_small_sample`, :func:`bench_sign`:
  Fig. 2 (c) and the Sec. 6.1 protocol of ``sign-constrained-sdca-pegasos.txt``,
  and ``polyrank bench sign``.
- :func:`ordinal_table1`, :func:`ordinal_table2`, :func:`ordinal_curves`,
  :func:`bench_ordinal`: Tables 1-2 and Sec. 9 of
  ``row-column-generation-ordinal.txt`` and ``polyrank bench ordinal``.
- :func:`m3l_fig5`, :func:`m3l_table3`, :func:`m3l_table1`,
  :func:`m3l_awa_prior`, :func:`bench_m3l`: ``m3l-multilabel-zero-shot.txt``
  (Sec. 7) on yeast and the AwA class/attribute tables;
  :func:`bench_m3l_labels`: kernel M3L vs 1-vs-All SVC for growing L;
  :func:`bench_m3l_rows`: the same for growing N on resampled yeast rows;
  :func:`bench_m3l_rows_smo`: its SMO path with and without shrinking;
  :func:`bench_m3l_linear`: linear M3L vs 1-vs-All LinearSVC.
- :func:`bench_sopopo_vs_liblinear`, :func:`bench_label_ranker_defaults`:
  ``polyrank bench sopopo-vs-liblinear`` (Crammer-Singer against LIBLINEAR)
  and ``polyrank bench label-ranker-defaults`` (LabelRanker() against
  one-vs-rest LinearSVC).
- :func:`bench_sopopo_many_labels`, :func:`many_labels_problem`:
  ``polyrank bench sopopo-many-labels`` (all_pairs with k = 200 and 1000
  labels against top_vs_rest; memory per edge).
- :data:`EXPERIMENTS`, :func:`run_experiment`, :func:`get_experiment`,
  :func:`list_experiments`: the registry behind ``polyrank reproduce``.
- :func:`bench_ranksvm_dask`: ``polyrank bench ranksvm-dask`` (RankSVM in
  one process against DaskRankSVM on 1 and 2 workers).
- :func:`bench_ranksvm_liblinear`: ``polyrank bench ranksvm-liblinear``
  (RankSVM on two threads against liblinear-ranksvm's ``train -s 8``).
- :func:`load_or_run`, :func:`save_result`, :func:`load_result`: stored
  results of the heavy reproductions, which the notebooks load (with a
  button to recompute; ``stored.py``, ``tools/store_results.py``).
- :data:`BENCHES`, :func:`register_bench`: the benchmarks behind
  ``polyrank bench NAME``.
- :func:`ranksvm_fig4`, :func:`ranksvm_methods`, :func:`ranksvm_vs_svr`,
  :func:`ranksvm_fig7`, :func:`bench_ranksvm`, :func:`bench_ranksvm_l1`: Fig. 4-7 and Tables 3-5 of
  ``large-scale-linear-ranksvm.txt``, ``polyrank bench ranksvm`` and
  ``polyrank bench ranksvm-l1``.

Layout: one package per paper (``sopopo``, ``sign``, ``ranksvm``,
``ordinal``, ``m3l``), one module per experiment in it (``sopopo/fig6.py``
...), its benchmarks in its ``bench.py``; the other benchmarks in ``bench/``;
one harness (``_harness.py``: progress bar, mean and sd, timing) and one
single-threaded baseline runner under a time budget (``_baseline.py``).  The
experiments compute; ``polyrank_paper.figures`` draws (``ExperimentResult.figure``).

Importing this package registers every experiment and benchmark, in the
order of the papers.
"""

# first: without its dependencies, an ImportError that names the distribution
from . import _requires  # noqa: F401
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

# isort: off
# the order of these imports is the order in which the experiments and
# benchmarks register, the order `polyrank reproduce --list` and
# `polyrank bench --list` show: the order of the papers
from .bench.sopopo import bench_sopopo, format_table
from .sopopo import fig7_data, sopopo_fig6, sopopo_fig7, sopopo_fig8
from .sign import bench_sign, correlation_signs, sign_convergence, sign_fig2, sign_small_sample
from .ranksvm import (bench_ranksvm, bench_ranksvm_l1, large_k_problem, ranksvm_fig4, ranksvm_fig7,
                      ranksvm_methods, ranksvm_vs_svr)
from .bench.ranksvm_dask import bench_ranksvm_dask
from .bench.ranksvm_liblinear import bench_ranksvm_liblinear
from .ordinal import (bench_ordinal, bench_ordinal_rc, bench_ordinal_wine, ordinal_curves,
                      ordinal_fig4, ordinal_table1, ordinal_table2)
from .m3l import bench_m3l, m3l_awa_prior, m3l_fig2, m3l_fig5, m3l_table1, m3l_table3
from .bench.m3l_labels import bench_m3l_labels, bench_m3l_labels_wide, bench_m3l_rows
from .bench.m3l_linear import bench_m3l_linear
from .bench.m3l_smo import bench_m3l_rows_smo
from .bench.first_fit import bench_first_fit
from .bench.first_run import bench_first_run
from .bench.label_ranker import (bench_label_ranker_defaults, bench_sopopo_vs_liblinear,
                                 crammer_singer_primal)
from .bench.many_labels import bench_sopopo_many_labels, many_labels_problem
from .bench.input_check import bench_input_check
from .stored import StoredResult, load_or_run, load_result, save_result
# isort: on

__all__ = ["bench_sopopo", "format_table", "sopopo_fig6", "sopopo_fig7", "sopopo_fig8",
           "fig7_data", "BENCHES", "register_bench", "EXPERIMENTS", "Experiment",
           "ExperimentResult", "format_rows", "get_experiment", "list_experiments",
           "run_experiment",
           "sign_convergence", "sign_fig2", "sign_small_sample", "bench_sign", "correlation_signs",
           "ranksvm_fig4", "ranksvm_fig7", "ranksvm_methods", "ranksvm_vs_svr", "bench_ranksvm",
           "bench_ranksvm_l1",
           "large_k_problem",
           "ordinal_table1", "ordinal_table2", "ordinal_curves", "ordinal_fig4", "bench_ordinal",
           "bench_ordinal_rc", "bench_ordinal_wine",
           "m3l_fig2", "m3l_fig5", "m3l_table3", "m3l_table1", "m3l_awa_prior", "bench_m3l",
           "bench_m3l_labels", "bench_m3l_labels_wide", "bench_m3l_rows", "bench_m3l_linear",
           "bench_m3l_rows_smo",
           "bench_first_fit", "bench_first_run", "bench_sopopo_vs_liblinear", "bench_input_check",
           "bench_sopopo_many_labels", "many_labels_problem", "bench_label_ranker_defaults",
           "crammer_singer_primal", "bench_ranksvm_dask", "bench_ranksvm_liblinear",
           "StoredResult", "load_or_run", "load_result", "save_result"]
