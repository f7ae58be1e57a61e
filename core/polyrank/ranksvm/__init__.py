"""Large-scale linear RankSVM: Tree-TRON with selection trees.

Source: C.-P. Lee and C.-J. Lin, "Large-Scale Linear RankSVM", Neural
Computation 26:781-817, 2014 (``large-scale-linear-ranksvm.txt``).

- :class:`RankSVMObjective`: the L2-loss objective Eq. 1.3 with fun, grad
  and Hessian-vector products through l^+, l^-, gamma^+, gamma^- (Eq.
  2.9-2.13), counted by the selection tree (Sec. 2.4), an order-statistic
  tree keyed by y (Sec. 2.3), the direct method (Sec. 2.2) or PRSVM+ (Sec. 3.1).
- :func:`ranksvm_tron`: Tree-TRON / PRSVM+ (Sec. 4.1) via :func:`polyrank.tron.tron`.
- :func:`ranksvm_dcd`: the L1 loss Eq. 1.2 by dual coordinate descent over the pairs.
- :func:`ranksvm_cutting_plane`: the L1 loss Eq. 1.2 by cutting planes (Sec. 3.2).
- :class:`RankSVM`: the scikit-learn estimator; :func:`ranksvm_path` fits it along a
  grid of C, warm-started.
- :mod:`polyrank.ranksvm.reference`: pair-enumerating references (tests).
"""

import numpy as np
import scipy.sparse as sp

from .._jit import register_solver_package
from ..metrics import mean_ndcg, pairwise_accuracy
from . import _kernels
from .estimator import RankSVM, ranksvm_path
from .objective import METHODS, QueryGroups, RankSVMObjective, Workspace, group_queries
from .solvers import ranksvm_cutting_plane, ranksvm_dcd, ranksvm_tron

__all__ = ["RankSVM", "RankSVMObjective", "Workspace", "QueryGroups", "group_queries",
           "METHODS", "ranksvm_tron", "ranksvm_dcd", "ranksvm_cutting_plane", "ranksvm_path"]


def _tiny():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    y = np.array([0, 1, 2, 0, 1, 1, 2, 0, 3, 1, 0, 2], dtype=float)
    return X, y, np.repeat([1, 2, 3], 4), np.linspace(0.5, 2.0, 12)


def _warmup_tron(methods) -> None:
    """Tree-TRON's one-thread kernels of ``methods`` (one counting kernel
    serves them all), unweighted and weighted."""
    X, y, qid, sw = _tiny()
    for method in methods:
        for weights in (None, sw):
            ranksvm_tron(X, y, qid, 1.0, method=method, max_iter=2, sample_weight=weights)


def _warmup_tron_more() -> None:
    """The default Tree-TRON with CSR X, and the ranking metrics."""
    X, y, qid, sw = _tiny()
    ranksvm_tron(sp.csr_matrix(X), y, qid, 1.0, max_iter=2)
    pairwise_accuracy(y, X[:, 0], qid)
    mean_ndcg(y, X[:, 0], qid)


def _warmup_methods() -> None:
    """The other counting methods (one kernel counts with each of them) and
    partial pairs."""
    X, y, qid, sw = _tiny()
    _warmup_tron(tuple(m for m in METHODS if m != "selection_tree"))
    for weights in (None, sw):
        ranksvm_tron(X, y, qid, 1.0, partial_pairs=True, max_iter=2, sample_weight=weights)


def _warmup_jobs(layout: str) -> None:
    """The kernels of ``n_jobs`` (an int), X dense or CSR: f and H v, and X'r
    alone (the L1 solvers' passes)."""
    X, y, qid, sw = _tiny()
    data = X if layout == "dense" else sp.csr_matrix(X)
    ranksvm_tron(data, y, qid, 1.0, max_iter=2, n_jobs=2,
                 sample_weight=None if layout == "dense" else sw)
    RankSVMObjective(data, y, qid, n_jobs=2)._rmatvec(sw)


def _warmup_dcd() -> None:
    """The L1 loss by dual coordinate descent."""
    X, y, qid, sw = _tiny()
    for data in (X, sp.csr_matrix(X)):
        for weights in (None, sw):
            ranksvm_dcd(data, y, qid, 1.0, max_iter=2, sample_weight=weights)


#: the parts of :func:`_warmup`, each one task of :func:`polyrank.warmup`'s workers:
#: the default Tree-TRON (selection tree, one thread) and the ranking metrics
_WARMUP_PARTS = {
    "tron": lambda: _warmup_tron(("selection_tree",)),
    "tron_more": _warmup_tron_more,
}
#: the rare variants, compiled on first use (with the compile notice) or by
#: ``polyrank warmup --all``: the other counting methods and partial pairs, ``n_jobs`` an
#: int, the L1 loss
_RARE_PARTS = {
    "methods": _warmup_methods,
    "jobs_dense": lambda: _warmup_jobs("dense"),
    "jobs_csr": lambda: _warmup_jobs("csr"),
    "dcd": _warmup_dcd,
}
#: the kernels of ``_kernels`` that only the rare variants call
_LAZY_KERNELS = (
    "_ytree_insert", "_ytree_larger", "_ytree_smaller", "_ytree_query", "_direct_query",
    "_prsvm_plus_query", "_count_queries", "count_pairs", "_dense_dots", "_csr_dots",
    "_dense_axpys", "_csr_axpys", "_sort_block", "_l2_block", "_add_rows", "_fun_block",
    "_hv_block", "dense_fun_blocks", "csr_fun_blocks", "dense_hv_blocks", "csr_hv_blocks",
    "dense_rmatvec_blocks", "csr_rmatvec_blocks",
)


def _warmup() -> None:
    """Compile (or load from cache) the RankSVM kernels of the default
    variants on a tiny problem, unweighted and weighted (``_RARE_PARTS``:
    the others); called by :func:`polyrank.warmup`."""
    for part in _WARMUP_PARTS.values():
        part()


register_solver_package("ranksvm", _kernels, _warmup, parts=_WARMUP_PARTS, rare=_RARE_PARTS,
                        lazy=_LAZY_KERNELS)
