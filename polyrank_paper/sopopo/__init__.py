"""Reproductions of Fig. 6, 7 and 8 of ``sopopo-label-ranking.txt`` (Sec. 5).

Shalev-Shwartz and Singer, "Efficient Learning of Label Ranking by Soft
Projections onto Polyhedra", JMLR 7, 2006.  The paper compares SOPOPO with
the interior-point solver LOQO; we use Clarabel through the QP references of
:mod:`polyrank.sopopo.reference`:

* :func:`sopopo_fig6` -- one soft projection, run time against k, on the
  original problem Eq. 7 (left) and on the reduced problem Eq. 19 (right).
* :func:`sopopo_fig7` -- batch learning (Fig. 5), time to reach a duality
  gap of 0.01, against Clarabel on the reduced batch dual Eq. 38.
* :func:`sopopo_fig8` -- the dual increase of every single update and the
  primal-dual gap against the number of updates (the "phase transition"
  after about m updates).

Each experiment (one module: ``fig6``, ``fig7``, ``fig8``) returns an
:class:`~polyrank_paper.registry.ExperimentResult`
(tidy ``rows``, a JSON-serialisable ``summary``; the figure is drawn by
``polyrank_paper.figures.sopopo``) and is
registered for ``polyrank reproduce``.  Speed is reported as ratios of times
measured in the same run, single-threaded (threadpoolctl), never asserted in
tests (``DESIGN.md``).

Clarabel can take minutes where SOPOPO takes microseconds, so every Clarabel
solve runs under a time budget, in a separate worker process
(:class:`~polyrank_paper._baseline.BaselineRunner`) that is killed
when a solve exceeds it; once a solve exceeds the budget, larger k are
skipped for that solver (the rows say so; their ``ratio_lower_bound`` is the
budget over SOPOPO's time).  The worker runs with one thread
(``RAYON_NUM_THREADS=1`` and the BLAS variables): Clarabel >= 0.10 is
multi-threaded by default, beyond threadpoolctl's reach.  SOPOPO runs in this
process under ``threadpool_limits(1)``.
"""

from .fig6 import sopopo_fig6
from .fig7 import fig7_data, sopopo_fig7
from .fig8 import sopopo_fig8

__all__ = ["sopopo_fig6", "sopopo_fig7", "sopopo_fig8", "fig7_data"]
