"""The argument bundles of SOPOPO's numba kernels (``sopopo-label-ranking.txt``).

NamedTuples of plain arrays (numba types them field by field), shared by the
pass kernels (:mod:`._pass_kernels`), the shrinking passes
(:mod:`._shrink_kernels`) and the single-edge pass (:mod:`._kernels`).
"""

from typing import NamedTuple

import numpy as np


class PieceArrays(NamedTuple):
    """The pieces of the decomposition (Sec. 3) and their dual variables, one
    argument of the pass kernels (:func:`pass_linear`, :func:`pass_kernel`,
    :func:`greedy_kernel`, the shrinking passes) instead of eight (numba
    types a NamedTuple of arrays field by field; the kernels read the
    fields once).  Piece p belongs to example ``example[p]``, has the bound
    ``C[p]`` and the label sets A_p = ``A_idx[A_ptr[p]:A_ptr[p + 1]]``,
    B_p likewise; its dual variables are ``alpha[A_ptr[p]:A_ptr[p + 1]]``
    (one per a in A_p) and ``beta[B_ptr[p]:B_ptr[p + 1]]``."""

    example: np.ndarray        # int64 (P,): the example of each piece
    C: np.ndarray              # float64 (P,): C_p
    A_ptr: np.ndarray          # int64 (P + 1,)
    A_idx: np.ndarray          # int64 (sum |A_p|,): labels
    B_ptr: np.ndarray          # int64 (P + 1,)
    B_idx: np.ndarray          # int64 (sum |B_p|,): labels
    alpha: np.ndarray          # float64 (sum |A_p|,), in place
    beta: np.ndarray           # float64 (sum |B_p|,), in place


class ActiveLabels(NamedTuple):
    """The active labels of every piece in the shrinking variant (see
    :func:`_example_sweep`): the active entries of side A of piece p are
    ``A_pos[A_ptr[p]:A_ptr[p] + A_act[p]]`` (positions into ``A_idx`` and
    ``alpha``), the shrunk ones follow; B likewise.  All in place."""

    A_pos: np.ndarray          # int64 (sum |A_p|,)
    B_pos: np.ndarray          # int64 (sum |B_p|,)
    A_act: np.ndarray          # int64 (P,)
    B_act: np.ndarray          # int64 (P,)


class Instances(NamedTuple):
    """The instances of the explicit (linear) form: the rows of the dense X
    (m, n), or, when X has no rows (shape (0, 0)), of the CSR matrix
    (Xdata, Xind, Xptr) (see :func:`row_dot`), with ||x_i||^2."""

    X: np.ndarray              # float64 (m, n) or (0, 0)
    Xdata: np.ndarray          # float64 (nnz,)
    Xind: np.ndarray           # int (nnz,)
    Xptr: np.ndarray           # int (m + 1,)
    sqnorm: np.ndarray         # float64 (m,): ||x_i||^2


class Segments(NamedTuple):
    """The segments of :func:`pass_pairs_shrink`: segment g holds pieces of
    example ``seg_ex[g]``, the active ones ``pos[seg_ptr[g]:seg_ptr[g] +
    n_act[g]]``; a pass visits the segments in ``order``."""

    order: np.ndarray          # int64 (G,)
    seg_ex: np.ndarray         # int64 (G,)
    seg_ptr: np.ndarray        # int64 (G + 1,)
    pos: np.ndarray            # int64 (P,), in place
    n_act: np.ndarray          # int64 (G,), in place


class SweepBuffers(NamedTuple):
    """The scores and work buffers of :func:`_example_sweep` (made by the
    shrinking passes, once per pass)."""

    f: np.ndarray              # float64 (k,): scores f_r of the current example
    dc: np.ndarray             # float64 (k,): changes of the label coefficients
    mu: np.ndarray             # float64 (kmax,)
    nu: np.ndarray             # float64 (kmax,)
    ms: np.ndarray             # float64 (kmax,)
    ns: np.ndarray             # float64 (kmax,)
