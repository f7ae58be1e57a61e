"""polyrank.sopopo.piece_loss against a brute-force enumeration of the
piece's edges (sopopo-label-ranking.txt, Sec. 2, Eq. 1 and 3)."""

import numpy as np
import pytest

from polyrank.sopopo import DECOMPOSITIONS, Piece, PieceLoss, decompose, piece_loss


def brute(y, f, piece):
    """Every edge (r, s) of A x B in A-major order; the first largest
    (y_r - y_s) - (f_r - f_s) wins; loss = sigma * its positive part."""
    best, edge = -np.inf, None
    for r in piece.A:
        for s in piece.B:
            v = (y[r] - y[s]) - (f[r] - f[s])
            if v > best:
                best, edge = v, (int(r), int(s))
    return piece.sigma * max(best, 0.0), edge, best


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", DECOMPOSITIONS)
def test_matches_brute_force(seed, kind):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    y = rng.integers(-2, 3, size=k).astype(float)
    if np.all(y == y[0]):
        y[0] += 1.0
    f = rng.normal(size=k) * (seed % 3)               # seed % 3 == 0: f = 0
    for p in decompose(y, kind, normalize=bool(seed % 2)):
        got = piece_loss(y, f, p)
        loss, edge, v = brute(y, f, p)
        assert isinstance(got, PieceLoss)
        assert got.loss == pytest.approx(loss, abs=1e-12)
        assert got.edge == edge
        assert got.violation == pytest.approx(v, abs=1e-12)


def test_nasty_cases():
    y = np.array([-1.0, 0.0, 2.0, 0.0, -1.0])     # Fig. 1
    top = Piece(np.array([2]), np.array([0, 1, 3, 4]))
    # f = 0: the largest edge weight; ties go to the first in A x B order
    assert piece_loss(y, np.zeros(5), top) == (3.0, (2, 0), 3.0)
    # every pair satisfied: loss 0, violation <= 0, the edge still reported
    f = y * 2.0
    got = piece_loss(y, f, top)
    assert got.loss == 0.0 and got.violation == -2.0 and got.edge == (2, 1)
    # sigma scales the loss; sigma = 0 makes it zero
    assert piece_loss(y, np.zeros(5), Piece(top.A, top.B, 0.25)).loss == 0.75
    assert piece_loss(y, np.zeros(5), Piece(top.A, top.B, 0.0)).loss == 0.0
    # one edge
    one = Piece(np.array([1]), np.array([4]))
    assert piece_loss(y, [0, 0.5, 0, 0, 0], one) == (0.5, (1, 4), 0.5)


def test_bad_input():
    y = [-1.0, 0.0, 2.0]
    p = Piece(np.array([2]), np.array([0]))
    with pytest.raises(ValueError, match="^f:"):
        piece_loss(y, [0.0, 0.0], p)
    with pytest.raises(ValueError, match="f"):
        piece_loss(y, [0.0, np.nan, 0.0], p)
    with pytest.raises(ValueError, match="y"):
        piece_loss([np.inf, 0.0, 1.0], [0.0] * 3, p)
    with pytest.raises(ValueError, match="piece.B"):
        piece_loss(y, [0.0] * 3, Piece(np.array([2]), np.array([3])))
    with pytest.raises(TypeError, match="^piece:"):
        piece_loss(y, [0.0] * 3, ([2], [0]))
