"""Preference (feedback) graphs and their decompositions into complete
bipartite pieces (Sec. 2, Fig. 1-2 of ``sopopo-label-ranking.txt``).

A target vector y (k,) (the paper's γ) induces the directed graph with an edge r -> s of
weight y_r - y_s whenever y_r > y_s (Fig. 1).  A
decomposition E(y) = {E_1, ..., E_d} must satisfy the three conditions of
Sec. 2:

1. every edge (r, s) of every piece has y_r > y_s;
2. the pieces are pairwise edge-disjoint;
3. every piece is a complete bipartite graph A_j x B_j with A_j, B_j disjoint.

Each piece carries a weight sigma_j >= 0 in the loss Eq. 3.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._memory import check_allocation
from .._progress import progress
from ..validation import as_float_array, check_label_set

__all__ = ["Piece", "DECOMPOSITIONS", "feedback_graph", "layers", "decompose",
           "check_decomposition", "PieceSet", "build_pieces", "PieceLoss", "piece_loss"]

#: Names of the built-in decompositions of Fig. 2.
DECOMPOSITIONS = ("all_pairs", "adjacent_layers", "top_vs_rest")
#: Memory of one pair piece: example, C, A and B labels and the shared
#: pointer (5 x 8 bytes) here, alpha, beta and the active-set position in
#: the solver (3 x 8 bytes).
BYTES_PER_PIECE = 64


@dataclass(frozen=True, eq=False)
class Piece:
    """One complete bipartite piece E_j = A x B of a decomposition.

    Attributes
    ----------
    A : ndarray of int64
        0-based labels on the preferred side.
    B : ndarray of int64
        0-based labels on the other side.
    sigma : float
        The piece's weight sigma_j >= 0 in Eq. 3.
    """

    A: np.ndarray
    B: np.ndarray
    sigma: float = 1.0

    @property
    def n_edges(self) -> int:
        """|A| * |B|."""
        return int(self.A.size * self.B.size)

    def edges(self) -> np.ndarray:
        """The edges A x B as an (|A||B|, 2) int array of (r, s) pairs."""
        return np.array([(a, b) for a in self.A for b in self.B], dtype=np.int64).reshape(-1, 2)


def _target(y) -> np.ndarray:
    return as_float_array(y, "y", ndim=1)


def feedback_graph(y):
    """The feedback graph of a target ranking (Sec. 2, Fig. 1).

    Parameters
    ----------
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2); finite.

    Returns
    -------
    edges : ndarray of int64, shape (E, 2)
        All pairs (r, s) with y_r > y_s, sorted lexicographically.
    weights : ndarray, shape (E,)
        y_r - y_s for each edge.

    Raises
    ------
    ValueError
        If y is empty, not 1-d or not finite.

    Examples
    --------
    The graph of Fig. 1, y = (-1, 0, 2, 0, -1), has 8 edges; the edge
    (3, 1) of the paper (1-based) has weight 3:

    >>> e, w = feedback_graph([-1, 0, 2, 0, -1])
    >>> len(e), float(w[(e[:, 0] == 2) & (e[:, 1] == 0)][0])
    (8, 3.0)
    """
    y = _target(y)
    r, s = np.nonzero(y[:, None] > y[None, :])
    edges = np.stack([r, s], axis=1).astype(np.int64)
    return edges, y[r] - y[s]


def layers(y) -> list[np.ndarray]:
    """Group labels by equal target value, most preferred layer first.

    Returns
    -------
    list of ndarray of int64
        ``layers[0]`` holds the labels with the largest y.
    """
    y = _target(y)
    values = np.unique(y)[::-1]
    return [np.flatnonzero(y == v).astype(np.int64) for v in values]


def decompose(y, decomposition="all_pairs", normalize: bool = False) -> list[Piece]:
    """Decompose the feedback graph of y into complete bipartite pieces.

    Parameters
    ----------
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2) with at least two distinct
        values.
    decomposition : str or sequence of (A, B) or (A, B, sigma)
        ``"all_pairs"``: one piece {(r, s)} per edge (Fig. 2 top; with
        multiclass targets this is Weston-Watkins).
        ``"adjacent_layers"``: A = a layer, B = the next layer down (Fig. 2
        middle).
        ``"top_vs_rest"``: A = the top layer, B = every other label (Fig. 2
        bottom; with one-hot targets this is Crammer-Singer).
        A sequence gives a custom decomposition; it is checked against the
        three conditions of Sec. 2.
    normalize : bool
        If True, multiply every sigma by 1/d (d = number of pieces), so that
        Eq. 3 is the average piece loss (Sec. 2, "average" example);
        otherwise sigma = 1 (or the given custom sigmas).

    Returns
    -------
    list of Piece

    Raises
    ------
    ValueError
        If y is invalid or has no edge (all entries equal), if the name is
        unknown, or if a custom decomposition violates a condition of Sec. 2
        (the message names the condition).

    Examples
    --------
    >>> [ (p.A.tolist(), p.B.tolist()) for p in decompose([-1, 0, 2, 0, -1], "adjacent_layers")]
    [([2], [1, 3]), ([1, 3], [0, 4])]
    """
    y = _target(y)
    lay = layers(y)
    if len(lay) < 2:
        raise ValueError("y: all entries are equal, so the feedback graph has "
                         "no edge and there is nothing to decompose")
    if isinstance(decomposition, str):
        if decomposition == "all_pairs":
            edges, _ = feedback_graph(y)
            pieces = [Piece(np.array([r]), np.array([s])) for r, s in edges]
        elif decomposition == "adjacent_layers":
            pieces = [Piece(lay[t], lay[t + 1]) for t in range(len(lay) - 1)]
        elif decomposition == "top_vs_rest":
            pieces = [Piece(lay[0], np.sort(np.concatenate(lay[1:])))]
        else:
            raise ValueError(f"decomposition: expected one of {DECOMPOSITIONS} or a "
                             f"list of (A, B[, sigma]), got {decomposition!r}")
    else:
        pieces = check_decomposition(y, decomposition)
    if normalize:
        d = len(pieces)
        pieces = [Piece(p.A, p.B, p.sigma / d) for p in pieces]
    return pieces


class PieceLoss(NamedTuple):
    """The loss of one piece, as returned by :func:`piece_loss`.

    Attributes
    ----------
    loss : float
        ``sigma_j max_{(r, s) in A_j x B_j} l_rs`` (Eq. 1, 3), >= 0, in the
        units of y.
    edge : tuple of int
        The 0-based edge (r, s) attaining the max (the first in A_j x B_j
        order, A major, on ties).
    violation : float
        ``(y_r - y_s) - (f_r - f_s)`` at ``edge`` before the positive
        part of Eq. 1: <= 0 when every pair of the piece is satisfied.
    """

    loss: float
    edge: tuple
    violation: float


def piece_loss(y, f, piece: Piece) -> PieceLoss:
    """The loss of one complete bipartite piece (Eq. 1 and one term of Eq. 3).

    ``sigma_j max_{(r, s) in A_j x B_j} l_rs`` with the pair hinge loss
    ``l_rs = ((y_r - y_s) - (f_r - f_s))_+``. Source:
    ``sopopo-label-ranking.txt``, Sec. 2, Eq. 1 (pair loss) and Eq. 3 (the
    loss of a decomposition is the sum of these over its pieces).

    Parameters
    ----------
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2); finite.
    f : array_like, shape (k,)
        The model's scores f_1(x), ..., f_k(x) (e.g. ``W @ x``); finite.
    piece : Piece
        The piece A_j x B_j with weight sigma_j (0-based labels in 0..k-1).

    Returns
    -------
    PieceLoss
        ``(loss, edge, violation)``: the loss (>= 0, units of y times
        sigma_j), the 0-based edge (r, s) attaining the max, and the value
        before the positive part.

    Raises
    ------
    ValueError
        If y or f are not finite 1-d arrays of the same length k, or the
        piece's labels are empty, duplicated or outside 0..k-1.
    TypeError
        If ``piece`` is not a :class:`Piece` or its labels are not integers.

    Examples
    --------
    Fig. 1's y with f = 0: the loss is the piece's largest edge weight.

    >>> y = [-1, 0, 2, 0, -1]
    >>> piece_loss(y, [0.0] * 5, Piece(np.array([2]), np.array([1, 3, 0])))
    PieceLoss(loss=3.0, edge=(2, 0), violation=3.0)
    """
    y = _target(y)
    f = as_float_array(f, "f", ndim=1)
    k = y.size
    if f.size != k:
        raise ValueError(f"f: expected shape ({k},), one score per label, got {f.shape}")
    if not isinstance(piece, Piece):
        raise TypeError(f"piece: expected a Piece, got {type(piece).__name__}")
    A = check_label_set(piece.A, "piece.A", k)
    B = check_label_set(piece.B, "piece.B", k)
    m = (y[A][:, None] - y[B][None, :]) - (f[A][:, None] - f[B][None, :])
    i, j = np.unravel_index(int(np.argmax(m)), m.shape)
    v = float(m[i, j])
    return PieceLoss(float(piece.sigma) * max(v, 0.0), (int(A[i]), int(B[j])), v)


def check_decomposition(y, pieces: Iterable) -> list[Piece]:
    """Validate a custom decomposition against the three conditions of Sec. 2.

    Parameters
    ----------
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2).
    pieces : iterable of (A, B) or (A, B, sigma) or Piece
        A and B are 0-based label sets; sigma >= 0 (default 1).

    Returns
    -------
    list of Piece
        The pieces in the given order, A and B as int64 arrays, sigma 1
        where none was given.

    Raises
    ------
    ValueError
        Naming the violated condition: "condition 1" (an edge with
        y_r <= y_s), "condition 2" (two pieces share an edge),
        "condition 3" (A and B overlap or one is empty); or a negative sigma.
    TypeError
        If a piece is not a tuple of 2 or 3 entries.
    """
    y = _target(y)
    k = y.shape[0]
    out = []
    seen: dict[tuple[int, int], int] = {}
    for j, item in enumerate(pieces):
        if isinstance(item, Piece):
            A, B, sigma = item.A, item.B, item.sigma
        else:
            if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
                raise TypeError(f"pieces[{j}]: expected (A, B) or (A, B, sigma), got {item!r}")
            A, B = item[0], item[1]
            sigma = item[2] if len(item) == 3 else 1.0
        try:
            A = check_label_set(A, f"pieces[{j}].A", k)
            B = check_label_set(B, f"pieces[{j}].B", k)
        except ValueError as exc:
            raise ValueError(f"{exc} (condition 3 of Sec. 2: each piece is a "
                             "complete bipartite graph A x B)") from None
        overlap = np.intersect1d(A, B)
        if overlap.size:
            raise ValueError(f"pieces[{j}]: violates condition 3 of Sec. 2 (A and B "
                             f"must be disjoint), both contain {overlap.tolist()}")
        bad = np.argwhere(y[A][:, None] <= y[B][None, :])
        if bad.size:
            r, s = int(A[bad[0, 0]]), int(B[bad[0, 1]])
            raise ValueError(f"pieces[{j}]: violates condition 1 of Sec. 2 (y_r > "
                             f"y_s on every edge): edge ({r}, {s}) has y "
                             f"{y[r]} <= {y[s]}")
        for a in A:
            for b in B:
                key = (int(a), int(b))
                if key in seen:
                    raise ValueError(f"pieces[{j}]: violates condition 2 of Sec. 2 "
                                     f"(pieces are edge-disjoint): edge {key} is also "
                                     f"in pieces[{seen[key]}]")
                seen[key] = j
        sigma = float(sigma)
        if not np.isfinite(sigma) or sigma < 0:
            raise ValueError(f"pieces[{j}]: sigma must be finite and >= 0, got {sigma}")
        out.append(Piece(A, B, sigma))
    if not out:
        raise ValueError("pieces: a decomposition needs at least one piece")
    return out


@dataclass
class PieceSet:
    """All pieces of all examples, flattened for the numba kernels (Sec. 4:
    each piece is a pseudo-example with its own slack and C_i = C sigma_i).

    Attributes
    ----------
    example : ndarray of int64, shape (P,)
        The example each piece belongs to.
    C : ndarray, shape (P,)
        Per-piece bound C_i = C * sigma_i (Eq. 24).
    A_ptr, B_ptr : ndarray of int64, shape (P + 1,)
        CSR-style offsets into ``A_idx`` / ``B_idx`` (read-only: for
        ``"all_pairs"`` both are the same array ``arange(P + 1)``).
    A_idx, B_idx : ndarray of int64
        Concatenated label sets.
    """

    example: np.ndarray
    C: np.ndarray
    A_ptr: np.ndarray
    A_idx: np.ndarray
    B_ptr: np.ndarray
    B_idx: np.ndarray

    @property
    def n_pieces(self) -> int:
        """Number of pieces P."""
        return int(self.example.size)

    def piece(self, p: int) -> tuple[int, np.ndarray, np.ndarray, float]:
        """(example, A, B, C_p) of piece p."""
        return (int(self.example[p]), self.A_idx[self.A_ptr[p]:self.A_ptr[p + 1]],
                self.B_idx[self.B_ptr[p]:self.B_ptr[p + 1]], float(self.C[p]))


def build_pieces(Y: np.ndarray, decomposition, normalize: bool, C: float,
                 sample_weight=None, threshold_label: bool = False) -> PieceSet:
    """Decompose every row of Y (m, k) and flatten the pieces.

    ``decomposition`` is a name of :data:`DECOMPOSITIONS` or a callable
    ``y -> sequence of (A, B[, sigma])`` applied to each row.

    Parameters
    ----------
    Y : ndarray, shape (m, k)
        Target rankings, one row y^i per example (the paper's γ^i, Sec. 2).
    decomposition, normalize
        See :func:`decompose`.
    C : float
        Slack penalty; piece p of example i gets C_p = C * w_i * sigma_p.
    sample_weight : ndarray, shape (m,), optional
        Per-example weights w_i >= 0 (default 1): C_i = C * w_i, so an
        integer weight counts the example that many times and a zero weight
        removes it (its pieces are dropped).
    threshold_label : bool
        The last column of Y is the virtual threshold label v of
        calibrated label ranking (Brinker, Fuernkranz and Huellermeier
        2006): each row gets the decomposition of its first k - 1 entries
        (no pieces if they are all equal) plus one pair piece ({r}, {v})
        for every label with y_r > y_v and ({v}, {s}) for every
        label with y_s < y_v.  These pieces are edges of the
        feedback graph of the whole row and share none with the others, so
        the conditions of Sec. 2 hold.

    Raises
    ------
    ValueError
        If a row has all targets equal (no preference to learn from: remove
        such rows), or a decomposition is invalid.
    """
    k = Y.shape[1]
    body = Y[:, :k - 1] if threshold_label else Y
    constant = np.all(body == body[:, :1], axis=1)
    if not threshold_label and constant.any():
        bad = np.flatnonzero(constant)
        raise ValueError(f"Y: rows {bad[:10].tolist()}{'...' if bad.size > 10 else ''} "
                         f"({bad.size} in all) have all targets equal, so they "
                         "express no preference; remove them")
    weight = np.ones(Y.shape[0]) if sample_weight is None else sample_weight
    if isinstance(decomposition, str) and decomposition == "all_pairs":
        return _all_pairs(Y, body, constant, weight, normalize, C, threshold_label)
    if isinstance(decomposition, str) and decomposition == "top_vs_rest" \
            and not threshold_label:
        return _top_vs_rest(Y, weight, C)
    ex, cs, A_ptr, B_ptr, A_idx, B_idx = [], [], [0], [0], [], []
    v = np.array([k - 1], dtype=np.int64)
    for i, y in enumerate(body):
        if weight[i] == 0:
            continue
        if constant[i]:
            pieces = []
        elif callable(decomposition):
            pieces = decompose(y, list(decomposition(y)), False)
        else:
            pieces = decompose(y, decomposition, False)
        if threshold_label:
            t = Y[i, k - 1]
            pieces = pieces + [Piece(np.array([r]), v) for r in np.flatnonzero(y > t)] \
                + [Piece(v, np.array([s])) for s in np.flatnonzero(y < t)]
        scale = C * weight[i] / (len(pieces) if normalize else 1)
        for pc in pieces:
            ex.append(i)
            cs.append(scale * pc.sigma)
            A_idx.append(pc.A)
            B_idx.append(pc.B)
            A_ptr.append(A_ptr[-1] + pc.A.size)
            B_ptr.append(B_ptr[-1] + pc.B.size)
    if not ex:
        raise ValueError("sample_weight: every example has weight 0 (nothing to learn from)")
    return PieceSet(np.asarray(ex, np.int64), np.asarray(cs, np.float64),
                    np.asarray(A_ptr, np.int64), np.concatenate(A_idx).astype(np.int64),
                    np.asarray(B_ptr, np.int64), np.concatenate(B_idx).astype(np.int64))


def _top_vs_rest(Y, weight, C) -> PieceSet:
    """:func:`build_pieces` for ``"top_vs_rest"`` (no threshold label, no
    constant row) by whole-array operations: one piece per example of
    non-zero weight, A = the labels of the row's largest target, B = the
    others, both ascending (as :func:`decompose` gives them), C_p = C w_i
    (one piece: ``normalize`` divides by 1).  A Python loop over 1,797
    digits took 30 ms, as long as a third of LIBLINEAR's whole solve."""
    kept = np.flatnonzero(weight != 0)
    if kept.size == 0:
        raise ValueError("sample_weight: every example has weight 0 (nothing to learn from)")
    G = Y[kept]
    top = G == G.max(axis=1, keepdims=True)
    n_top = top.sum(axis=1)
    k = G.shape[1]
    A_ptr = np.zeros(kept.size + 1, dtype=np.int64)
    B_ptr = np.zeros(kept.size + 1, dtype=np.int64)
    np.cumsum(n_top, out=A_ptr[1:])
    np.cumsum(k - n_top, out=B_ptr[1:])
    # np.nonzero walks row-major: rows in order, labels ascending in each row
    A_idx = np.nonzero(top)[1].astype(np.int64)
    B_idx = np.nonzero(~top)[1].astype(np.int64)
    return PieceSet(kept.astype(np.int64), C * weight[kept].astype(np.float64), A_ptr, A_idx,
                    B_ptr, B_idx)


def _all_pairs(Y, body, constant, weight, normalize, C, threshold_label) -> PieceSet:
    """:func:`build_pieces` for ``"all_pairs"`` with array operations per row
    (one piece per edge of the feedback graph, Fig. 2 top): the same pieces in
    the same order as :func:`decompose` gives them, without a Python object
    per piece (with hundreds of labels a row has thousands of edges).

    The edges of every row are counted first and written into arrays of their
    final size (no per-row lists to concatenate: the peak memory is the
    result, 5 numbers per edge); ``A_ptr`` and ``B_ptr`` are one shared array
    (every piece has one label per side)."""
    k = Y.shape[1]
    v = k - 1
    rows = [i for i in range(Y.shape[0]) if weight[i] != 0]
    counts = np.zeros(len(rows), dtype=np.int64)
    for j, i in enumerate(rows):
        y = body[i]
        if not constant[i]:
            srt = np.sort(y)
            # edges r -> s with y_r > y_s: for each r, the labels below it
            counts[j] = int(np.searchsorted(srt, y, side="left").sum())
        if threshold_label:
            counts[j] += int(np.count_nonzero(y != Y[i, v]))
    P = int(counts.sum())
    if P == 0:
        raise ValueError("sample_weight: every example has weight 0 (nothing to learn from)")
    check_allocation(P * BYTES_PER_PIECE,
                     f"decomposition='all_pairs' of {len(rows):,} rows x {k:,} labels "
                     f"({P:,} pieces, {BYTES_PER_PIECE} bytes each with the solver's "
                     "dual variables)",
                     "use decomposition='adjacent_layers' or 'top_vs_rest' (far fewer "
                     "pieces per row), or fit on fewer rows")
    ex = np.empty(P, dtype=np.int64)
    cs = np.empty(P, dtype=np.float64)
    A_idx = np.empty(P, dtype=np.int64)
    B_idx = np.empty(P, dtype=np.int64)
    lo = 0
    for j, i in progress(enumerate(rows), total=len(rows), unit="row",
                         desc=f"all_pairs decomposition ({P:,} pieces)"):
        d = int(counts[j])
        if d == 0:
            continue
        y = body[i]
        hi = lo
        if not constant[i]:
            r, s = np.nonzero(y[:, None] > y[None, :])
            hi = lo + r.size
            A_idx[lo:hi] = r
            B_idx[lo:hi] = s
        if threshold_label:
            t = Y[i, v]
            up = np.flatnonzero(y > t)
            down = np.flatnonzero(y < t)
            A_idx[hi:hi + up.size] = up
            B_idx[hi:hi + up.size] = v
            hi += up.size
            A_idx[hi:hi + down.size] = v
            B_idx[hi:hi + down.size] = down
            hi += down.size
        ex[lo:lo + d] = i
        cs[lo:lo + d] = C * weight[i] / (d if normalize else 1)
        lo += d
    ptr = np.arange(P + 1, dtype=np.int64)
    return PieceSet(ex, cs, ptr, A_idx, ptr, B_idx)
