"""SOPOPO: label ranking by soft projections onto polyhedra.

Source: S. Shalev-Shwartz and Y. Singer, "Efficient Learning of Label Ranking
by Soft Projections onto Polyhedra", JMLR 7:1567-1599, 2006
(``sopopo-label-ranking.txt``).

- :func:`soft_project`, :func:`solve_reduced`, :func:`knots`, :func:`g`,
  :func:`margins`: a single soft projection (Sec. 3, Eq. 7, 19, 20, Thm. 4, Fig. 3).
- :func:`feedback_graph`, :func:`decompose`, :func:`check_decomposition`:
  preference graphs and their bipartite decompositions (Sec. 2, Fig. 1-2);
  :func:`piece_loss`: the loss of one piece (Eq. 1, 3).
- :func:`sopopo_batch`: the batch procedure of Fig. 5 (Sec. 4, Eq. 26-36).
- :class:`LabelRanker`: the scikit-learn estimator.
"""

from .._jit import register_solver_package
from . import _kernels
from .batch import ORDERS, sopopo_batch
from .estimator import LabelRanker, label_ranking_path
from .graph import (
    DECOMPOSITIONS,
    Piece,
    PieceLoss,
    PieceSet,
    build_pieces,
    check_decomposition,
    decompose,
    feedback_graph,
    layers,
    piece_loss,
)
from .projection import (
    ReducedSolution,
    SoftProjection,
    g,
    knots,
    margins,
    soft_project,
    solve_reduced,
)

__all__ = [
    "soft_project", "solve_reduced", "knots", "g", "margins",
    "SoftProjection", "ReducedSolution",
    "feedback_graph", "layers", "decompose", "check_decomposition", "Piece",
    "PieceSet", "build_pieces", "DECOMPOSITIONS", "piece_loss", "PieceLoss",
    "sopopo_batch", "ORDERS", "LabelRanker", "kernels", "label_ranking_path",
]

#: the numba kernels of SOPOPO (:mod:`polyrank.sopopo._kernels`), for advanced
#: use such as the paper wing's Fig. 8, which times one pass per piece
kernels = _kernels


def _tiny():
    import numpy as np

    rng = np.random.default_rng(0)
    return rng.normal(size=(6, 3)), np.eye(3)[[0, 1, 2, 0, 1, 2]]


def _warmup_projection() -> None:
    """The single soft projection and its pieces."""
    import numpy as np

    X, Y = _tiny()
    soft_project(X[0], Y[0], np.zeros((3, 3)), [0], [1, 2], 1.0)
    solve_reduced(np.array([1.0, 0.5]), np.array([0.2]), 1.0)
    knots(np.array([1.0, 0.5]))
    g(np.array([0.0, 1.0]), np.array([1.0, 0.5]))


#: (order, shrinking) of the linear kernel: the estimator's default, and the others
_DEFAULT_ORDER = (("shuffle", True),)
_OTHER_ORDERS = (("shuffle", False), ("greedy", True), ("greedy", False))


def _warmup_batch(decomposition: str, linear: bool, combos=_DEFAULT_ORDER + _OTHER_ORDERS,
                  zero_row: bool = True) -> None:
    """The batch passes of one decomposition (``all_pairs``: single-edge
    pieces, the closed-form pass; ``top_vs_rest``: the general pass), for
    the linear kernel (the (order, shrinking) pairs of ``combos``, and with
    ``zero_row`` the shrinking kernels' x = 0 branch) or the Gram kernels
    (rbf, and precomputed)."""
    X, Y = _tiny()
    if not linear:
        combos = (("cyclic", True), ("cyclic", False))
    for order, shrinking in combos:
        sopopo_batch(X, Y, 1.0, order=order, kernel="linear" if linear else "rbf",
                     max_iter=2, shrinking=shrinking, decomposition=decomposition)
    X[0] = 0.0
    if linear and zero_row:
        sopopo_batch(X, Y, 1.0, max_iter=2, decomposition=decomposition)
    elif not linear and decomposition == "all_pairs":
        sopopo_batch(X @ X.T, Y, 1.0, kernel="precomputed", max_iter=2)


#: the parts of :func:`_warmup`, each one task of :func:`polyrank.warmup`'s workers: the
#: single projection and :class:`LabelRanker`'s defaults (linear, all_pairs, shuffled, shrinking)
_WARMUP_PARTS = {
    "projection": _warmup_projection,
    "pairs_linear": lambda: _warmup_batch("all_pairs", True, _DEFAULT_ORDER),
}
#: the rare variants, compiled on first use (with the compile notice) or by
#: ``polyrank warmup --all``: other orders and shrinking=False, the Gram kernels,
#: the general decompositions
_RARE_PARTS = {
    "pairs_options": lambda: _warmup_batch("all_pairs", True, _OTHER_ORDERS, zero_row=False),
    "pairs_kernel": lambda: _warmup_batch("all_pairs", False),
    "general_linear": lambda: _warmup_batch("top_vs_rest", True),
    "general_kernel": lambda: _warmup_batch("top_vs_rest", False),
}
#: the kernels of ``_kernels`` that only the rare variants call
_LAZY_KERNELS = (
    "rows_axpy", "rows_dot", "_piece_update", "_piece_update_general", "_piece_buffers",
    "pass_linear", "_apply_linear_update", "_apply_kernel_update", "pass_kernel",
    "greedy_kernel", "_example_sweep", "_zero_norm_piece", "_active_labels", "_active_side",
    "pass_linear_shrink", "_kernel_scores", "_kernel_axpys", "pass_kernel_shrink",
)


def _warmup() -> None:
    """Compile (or load from cache) the SOPOPO kernels of the default
    variants on a tiny problem (``_RARE_PARTS``: the others); called by
    :func:`polyrank.warmup`."""
    for part in _WARMUP_PARTS.values():
        part()


register_solver_package("sopopo", _kernels, _warmup, parts=_WARMUP_PARTS, rare=_RARE_PARTS,
                        lazy=_LAZY_KERNELS)
