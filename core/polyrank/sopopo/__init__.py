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

from .batch import ORDERS, sopopo_batch
from .estimator import LabelRanker
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
    "sopopo_batch", "ORDERS", "LabelRanker",
]


def _warmup() -> None:
    """Compile (or load from cache) every SOPOPO kernel on a tiny problem;
    called by :func:`polyrank.warmup`."""
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    Y = np.eye(3)[[0, 1, 2, 0, 1, 2]]
    soft_project(X[0], Y[0], np.zeros((3, 3)), [0], [1, 2], 1.0)
    solve_reduced(np.array([1.0, 0.5]), np.array([0.2]), 1.0)
    knots(np.array([1.0, 0.5]))
    g(np.array([0.0, 1.0]), np.array([1.0, 0.5]))
    # all_pairs (single-edge pieces: the closed-form pass) and top_vs_rest
    # (the general pass)
    for decomposition in ("all_pairs", "top_vs_rest"):
        for order, kernel in (("shuffle", "linear"), ("cyclic", "rbf"), ("greedy", "linear")):
            for shrinking in (True, False):
                sopopo_batch(X, Y, 1.0, order=order, kernel=kernel, max_iter=2,
                             shrinking=shrinking, decomposition=decomposition)
    X[0] = 0.0                                  # the shrinking kernels' x = 0 branch
    for decomposition in ("all_pairs", "top_vs_rest"):
        sopopo_batch(X, Y, 1.0, max_iter=2, decomposition=decomposition)
    sopopo_batch(X @ X.T, Y, 1.0, kernel="precomputed", max_iter=2)
