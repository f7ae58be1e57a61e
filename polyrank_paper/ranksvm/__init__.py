"""Reproductions of Sec. 4 of ``large-scale-linear-ranksvm.txt`` (Lee & Lin,
"Large-Scale Linear RankSVM", Neural Computation 2014) and ``polyrank bench
ranksvm``.

* :func:`ranksvm_fig4` -- Fig. 4: relative function value against training
  time of TRON with the direct counting method, the order-statistic tree
  keyed by y and the selection tree, on MQ2008 and on a large-k problem
  (k_q = l_q), C = 1.
* :func:`ranksvm_methods` -- Fig. 5-7 style: Tree-TRON, PRSVM+ and the L1
  cutting-plane method, with C chosen on the validation split over
  2^-15 .. 2^10 (Table 3): relative function value, test pairwise accuracy
  and mean NDCG against time.
* :func:`ranksvm_vs_svr` -- Table 4-5 style: L2-loss RankSVM against
  L2-loss linear SVR (scikit-learn's ``LinearSVR``, epsilon = 0) on MQ2008.
* :func:`bench_ranksvm` -- ``polyrank bench ranksvm``: seconds per solve of
  Tree-TRON, direct counting and PRSVM+ on MQ2008 and on the large-k set.

Every function returns an :class:`~polyrank_paper.registry.ExperimentResult`
(tidy rows, JSON summary; drawn by ``polyrank_paper.figures.ranksvm``).  Times are wall
clock in this process; speed is reported as ratios of times measured in the
same run, never asserted in tests (``DESIGN.md``).

One module per experiment; importing this package registers them in the
order of the paper, then its benchmarks (``bench``).
"""

from ._common import METHOD_LABELS, PathRow, SelectionRow, SolverRow, SolverSummary, large_k_problem

# isort: off
# the order of these imports is the order in which the experiments and
# benchmarks register (`polyrank reproduce --list`, `polyrank bench --list`)
from .fig4 import ranksvm_fig4
from .methods import ranksvm_methods
from .fig7 import ranksvm_fig7
from .vs_svr import ranksvm_vs_svr
from .bench import bench_ranksvm, bench_ranksvm_l1
# isort: on

__all__ = ["ranksvm_fig4", "ranksvm_methods", "ranksvm_fig7", "ranksvm_vs_svr", "bench_ranksvm",
           "bench_ranksvm_l1", "large_k_problem", "METHOD_LABELS", "SelectionRow", "PathRow",
           "SolverSummary", "SolverRow"]
