"""Reproductions of ``m3l-multilabel-zero-shot.txt`` (Sec. 7): Fig. 5,
Table 3 and Table 1 on yeast, the Sec. 7.2.1 prior of Animals with
Attributes, and the ``polyrank bench m3l`` benchmark.

The paper's data sets (AwA PHOG features, fMRI-Words, Media Mill, RCV1,
Siam) are not bundled; yeast is, and the AwA class/attribute tables are.
So, as the paper does for yeast in Table 3 (Sec. 7.2.2), zero-shot
conditions are created by sampling a training subset whose label
correlations differ from those of the test split.

Following ``DESIGN.md``, the figures are drawn by ``polyrank_paper.figures``,
and speed is reported as ratios against baselines timed in the same run.

One module per experiment; importing this package registers them in the
order of the paper, then its benchmarks (``bench``).
"""

from ._common import LINEAR, RBF, Table1Row

# isort: off
# the order of these imports is the order in which the experiments and
# benchmarks register (`polyrank reproduce --list`, `polyrank bench --list`)
from .fig5 import m3l_fig5
from .table3 import m3l_table3
from .table1 import m3l_table1
from .awa_prior import m3l_awa_prior
from .bench import bench_m3l
from .fig2 import m3l_fig2
# isort: on

__all__ = ["m3l_fig5", "m3l_table3", "m3l_table1", "m3l_awa_prior", "m3l_fig2", "bench_m3l",
           "LINEAR", "RBF", "Table1Row"]
