"""polyrank on a dask.distributed cluster: estimators whose data stay on
the workers (issue 31).

- :class:`DaskRankSVM`: linear RankSVM (L2 loss) by TRON over partitions
  of whole queries; every function/gradient evaluation and every
  Hessian-vector product is one round of messages of d numbers per worker
  (Lin, Tsai, Lee and Lin, "Large-scale logistic regression and linear SVM
  using Spark", IEEE BigData 2014; ``large-scale-linear-ranksvm.txt``).
- :class:`DaskSignConstrainedClassifier`,
  :class:`DaskSignConstrainedRegressor`: sign-constrained SDCA by CoCoA+
  (Ma, Smith, Jaggi, Jordan, Richtarik and Takac, ICML 2015): local
  SC-SDCA epochs on each partition, updates added, the duality gap
  reported (``sign-constrained-sdca-pegasos.txt``).
- :func:`make_ranking`: a synthetic LETOR-like ranking problem generated on
  the workers (tests, benchmarks, demonstrations).

They follow LightGBM's ``lightgbm.dask``: the parameters of the local
estimator plus ``client``, ``fit`` with dask arrays or a dask DataFrame,
``to_local()`` returning the plain fitted estimator.  The same code runs on
a laptop's ``LocalCluster`` and on a real cluster (dask-jobqueue,
dask-kubernetes, Coiled): only the ``Client(...)`` line changes.  The
workers need only polyrank's base install (and dask.distributed).

Importing this module does not import dask; fitting without it raises an
ImportError that names the extra: ``pip install 'polyrank[dask]'``.
"""

from ._common import DASK_EXTRA, ShardLost, import_distributed
from ._data import make_ranking, make_ranking_partition, query_splits
from ._ranksvm import DaskRankSVM, DaskRankSVMObjective, RankSVMShard
from ._sign import DaskSignConstrainedClassifier, DaskSignConstrainedRegressor, SignShard

__all__ = ["DaskRankSVM", "DaskRankSVMObjective", "RankSVMShard",
           "DaskSignConstrainedClassifier", "DaskSignConstrainedRegressor", "SignShard",
           "make_ranking", "make_ranking_partition", "query_splits", "import_distributed",
           "DASK_EXTRA", "ShardLost"]
