"""Reproductions of Sec. 9 and 10 of ``row-column-generation-ordinal.txt``
(Izunaga, Sato, Tatsumi and Yamamoto, JORSJ 58(4), 2015) and the ``ordinal``
benchmark.

* :func:`ordinal_table1` -- Table 1: iterations, added objects and time of
  RC(H~) on the separable instances S.n.q and RC(S~) (c = 10) on NS.n.q, with
  the polynomial kernel (1 + x.y)^4, against the whole problem solved at once
  by Clarabel (the paper: Gurobi, column "GRB") and against PRank.
* :func:`ordinal_table2` -- Table 2: the average rank loss (1/n) sum |l^_i -
  l_i| on the training objects, our algorithm against PRank.
* :func:`ordinal_curves` -- Sec. 9 (Fig. 1-3) redone on the red wine quality
  data: two attributes (alcohol and volatile acidity), contours of f at the
  thresholds for (S) (linear, c = 15), (S~) Gaussian (sigma = 0.5, c = 10)
  and (S~) polynomial (d = 4, c = 15); and the full 11-attribute data, test
  MAE and accuracy against PRank.
* :func:`bench_ordinal` -- ``polyrank bench ordinal`` (module ``bench``;
  ``ordinal-wine`` is in ``bench_wine``, ``ordinal-rc`` in ``bench_rc``): RC(H~) against the
  whole QP on S.5000 and S.10000 (target: >= 20x faster, same objective).
* :func:`bench_ordinal_rc` -- ``polyrank bench ordinal-rc``: RC(S~) with the
  warm-started SMO sub-problem solver against libsvm's SVC on NS.1000.1
  (target: within 10x) and against Clarabel on the sizes of Table 1.

The whole QP costs O(n^3) per interior-point iteration on a dense n x n
kernel matrix, so it runs in a separate worker process under a time budget
(killed when it exceeds it; larger n are then skipped for it) and is not
attempted above :data:`FULL_QP_MAX_N` objects (5000), whose dense matrices
need 8 GB at n = 5000 (and about four times that at n = 10000).  Speed is
reported as ratios of times measured in the same run, never asserted in tests
(``DESIGN.md``).

One module per experiment; importing this package registers them in the
order of the paper, then its benchmarks (``bench``).
"""

from ._common import FULL_QP_MAX_N, POLY4, GroupRow, InstanceRow, TableSettings

# isort: off
# the order of these imports is the order in which the experiments and
# benchmarks register (`polyrank reproduce --list`, `polyrank bench --list`)
from .fig4 import ordinal_fig4
from .table1 import ordinal_table1
from .table2 import ordinal_table2
from .curves import CURVE_MODELS, WINE_FEATURES, ordinal_curves, wine_two_features
from .bench import bench_ordinal
from .bench_wine import bench_ordinal_wine
from .bench_rc import RC_SVC_SETTING, bench_ordinal_rc
# isort: on

__all__ = ["ordinal_fig4", "ordinal_table1", "ordinal_table2", "ordinal_curves", "bench_ordinal",
           "bench_ordinal_wine", "bench_ordinal_rc", "FULL_QP_MAX_N", "POLY4", "WINE_FEATURES",
           "CURVE_MODELS", "wine_two_features", "RC_SVC_SETTING", "InstanceRow",
           "GroupRow", "TableSettings"]
