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
:mod:`polyrank_widgets`; neither imports it (``tests/architecture/test_layering.py``).  It
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

The first use of a public name (anything but the registry's classes and
:data:`BENCH_CATALOG`) imports every experiment and benchmark module, which
registers them in the order of the papers (:func:`load_all`); ``import
polyrank_paper`` alone, and so the ``polyrank`` command's parser, loads none.
"""

import importlib
from typing import TYPE_CHECKING

# first: without its dependencies, an ImportError that names the distribution
from . import _requires  # noqa: F401
from .registry import (
    BENCH_CATALOG,
    Experiment,
    ExperimentResult,
    format_rows,
    register_bench,
)

if TYPE_CHECKING:       # the same names, for mypy and IDEs (loaded on first use below)
    from .bench.first_fit import bench_first_fit
    from .bench.first_run import bench_first_run
    from .bench.input_check import bench_input_check
    from .bench.label_ranker import (
        bench_label_ranker_defaults,
        bench_sopopo_vs_liblinear,
        crammer_singer_primal,
    )
    from .bench.m3l_labels import bench_m3l_labels, bench_m3l_labels_wide, bench_m3l_rows
    from .bench.m3l_linear import bench_m3l_linear
    from .bench.m3l_smo import bench_m3l_rows_smo
    from .bench.many_labels import bench_sopopo_many_labels, many_labels_problem
    from .bench.paths import bench_paths
    from .bench.ranksvm_dask import bench_ranksvm_dask
    from .bench.ranksvm_liblinear import bench_ranksvm_liblinear
    from .bench.slider import bench_slider
    from .bench.sopopo import bench_sopopo, format_table
    from .m3l import bench_m3l, m3l_awa_prior, m3l_fig2, m3l_fig5, m3l_table1, m3l_table3
    from .ordinal import (
        bench_ordinal,
        bench_ordinal_rc,
        bench_ordinal_wine,
        ordinal_curves,
        ordinal_fig4,
        ordinal_table1,
        ordinal_table2,
    )
    from .ranksvm import (
        bench_ranksvm,
        bench_ranksvm_l1,
        large_k_problem,
        ranksvm_fig4,
        ranksvm_fig7,
        ranksvm_methods,
        ranksvm_vs_svr,
    )
    from .registry import BENCHES, EXPERIMENTS, get_experiment, list_experiments, run_experiment
    from .sign import bench_sign, correlation_signs, sign_convergence, sign_fig2, sign_small_sample
    from .sopopo import fig7_data, sopopo_fig6, sopopo_fig7, sopopo_fig8
    from .stored import StoredResult, load_or_run, load_result, save_result

__all__ = ["load_all", "BENCH_CATALOG",
           "bench_sopopo", "format_table", "sopopo_fig6", "sopopo_fig7", "sopopo_fig8",
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
           "bench_paths", "bench_slider",
           "bench_sopopo_many_labels", "many_labels_problem", "bench_label_ranker_defaults",
           "crammer_singer_primal", "bench_ranksvm_dask", "bench_ranksvm_liblinear",
           "StoredResult", "load_or_run", "load_result", "save_result"]


#: the modules whose import registers the experiments and benchmarks, in the order
#: of the papers (the order of ``polyrank reproduce --list``): :func:`load_all`
_REGISTERING = (
    ".bench.sopopo",
    ".sopopo",
    ".sign",
    ".ranksvm",
    ".bench.ranksvm_dask",
    ".bench.ranksvm_liblinear",
    ".ordinal",
    ".m3l",
    ".bench.m3l_labels",
    ".bench.m3l_linear",
    ".bench.m3l_smo",
    ".bench.first_fit",
    ".bench.first_run",
    ".bench.label_ranker",
    ".bench.many_labels",
    ".bench.input_check",
    ".bench.paths",
    ".bench.slider",
    ".stored",
)
#: the lazily loaded public names: name -> the module (relative) that defines it
#: (the ``TYPE_CHECKING`` imports above, which tests/architecture/test_startup.py
#: checks against this)
_OBJECTS = {
    "bench_sopopo": ".bench.sopopo",
    "format_table": ".bench.sopopo",
    "fig7_data": ".sopopo",
    "sopopo_fig6": ".sopopo",
    "sopopo_fig7": ".sopopo",
    "sopopo_fig8": ".sopopo",
    "bench_sign": ".sign",
    "correlation_signs": ".sign",
    "sign_convergence": ".sign",
    "sign_fig2": ".sign",
    "sign_small_sample": ".sign",
    "bench_ranksvm": ".ranksvm",
    "bench_ranksvm_l1": ".ranksvm",
    "large_k_problem": ".ranksvm",
    "ranksvm_fig4": ".ranksvm",
    "ranksvm_fig7": ".ranksvm",
    "ranksvm_methods": ".ranksvm",
    "ranksvm_vs_svr": ".ranksvm",
    "bench_ranksvm_dask": ".bench.ranksvm_dask",
    "bench_ranksvm_liblinear": ".bench.ranksvm_liblinear",
    "bench_ordinal": ".ordinal",
    "bench_ordinal_rc": ".ordinal",
    "bench_ordinal_wine": ".ordinal",
    "ordinal_curves": ".ordinal",
    "ordinal_fig4": ".ordinal",
    "ordinal_table1": ".ordinal",
    "ordinal_table2": ".ordinal",
    "bench_m3l": ".m3l",
    "m3l_awa_prior": ".m3l",
    "m3l_fig2": ".m3l",
    "m3l_fig5": ".m3l",
    "m3l_table1": ".m3l",
    "m3l_table3": ".m3l",
    "bench_m3l_labels": ".bench.m3l_labels",
    "bench_m3l_labels_wide": ".bench.m3l_labels",
    "bench_m3l_rows": ".bench.m3l_labels",
    "bench_m3l_linear": ".bench.m3l_linear",
    "bench_m3l_rows_smo": ".bench.m3l_smo",
    "bench_first_fit": ".bench.first_fit",
    "bench_first_run": ".bench.first_run",
    "bench_label_ranker_defaults": ".bench.label_ranker",
    "bench_sopopo_vs_liblinear": ".bench.label_ranker",
    "crammer_singer_primal": ".bench.label_ranker",
    "bench_sopopo_many_labels": ".bench.many_labels",
    "many_labels_problem": ".bench.many_labels",
    "bench_input_check": ".bench.input_check",
    "bench_paths": ".bench.paths",
    "bench_slider": ".bench.slider",
    "StoredResult": ".stored",
    "load_or_run": ".stored",
    "load_result": ".stored",
    "save_result": ".stored",
}
#: the registry's tables and lookups: complete only once every experiment registered
_REGISTRY = frozenset({"BENCHES", "EXPERIMENTS", "get_experiment", "list_experiments",
                       "run_experiment"})
#: the paper subpackages and modules, loaded with the others by :func:`load_all`
_SUBMODULES = frozenset({"sopopo", "sign", "ranksvm", "ordinal", "m3l", "bench", "stored"})


def load_all() -> None:
    """Import every experiment and benchmark module, registering them in the
    order of the papers (the first use of any of the package's names other than
    the registry's classes does it; ``polyrank --help`` and ``polyrank bench
    --help`` do not, so that they start in a fraction of a second).
    """
    for module in _REGISTERING:
        importlib.import_module(module, __name__)


# at run time only: to mypy and IDEs the package has exactly the names imported above
if not TYPE_CHECKING:
    def __getattr__(name: str):
        """Load the package on the first use of one of its public names (PEP 562):
        every experiment and benchmark registers first, as an eager import did.

        Raises
        ------
        AttributeError
            ``name`` is not a public name of polyrank_paper.
        """
        if name not in _OBJECTS and name not in _REGISTRY and name not in _SUBMODULES:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        load_all()
        if name in _SUBMODULES:
            return importlib.import_module(f".{name}", __name__)
        source = _OBJECTS.get(name, ".registry")
        value = getattr(importlib.import_module(source, __name__), name)
        globals()[name] = value          # later lookups are plain attribute reads
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
