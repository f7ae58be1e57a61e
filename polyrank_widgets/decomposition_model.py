"""The model behind :class:`~polyrank_widgets.DecompositionViewer`: a target
ranking y, one decomposition of its feedback graph into complete
bipartite pieces, the scores f and the loss of Eq. 3 piece by piece, with
no widget or figure in sight.

Paper file ``sopopo-label-ranking.txt``, Sec. 2: y (k,) induces the
directed graph with an edge r -> s of weight y_r - y_s whenever
y_r > y_s (Fig. 1); a decomposition E(y) = {E_1, ..., E_d} into
pieces E_j = A_j x B_j obeys the three conditions of Sec. 2 (Fig. 2); the
loss of f is ``sum_j sigma_j max_{(r, s) in E_j} l_rs`` (Eq. 3) with
``l_rs = ((y_r - y_s) - (f_r - f_s))_+`` (Eq. 1).  The graph and the
pieces come from :func:`polyrank.sopopo.feedback_graph` and
:func:`polyrank.sopopo.decompose`, each piece's loss from
:func:`polyrank.sopopo.piece_loss`: this module holds state and checks
input, the paper's math stays in the core.

Labels are 0-based here (as in :mod:`polyrank.sopopo`); the text helpers
:func:`parse_numbers` and :func:`parse_decomposition` read what a person
types into the viewer's boxes (custom decompositions there use the paper's
1-based labels, shifted by ``one_based=True``).
"""

from __future__ import annotations

import ast
import re

import numpy as np

from polyrank.sopopo import DECOMPOSITIONS, Piece, PieceLoss, decompose, feedback_graph, piece_loss
from polyrank.validation import as_float_array, check_int

__all__ = ["DecompositionModel", "parse_numbers", "parse_decomposition", "KINDS",
           "CUSTOM_EXAMPLE"]

#: The decomposition kinds the model knows: the built-in ones of Fig. 2 and
#: ``"custom"`` (a stored list of pieces).
KINDS = DECOMPOSITIONS + ("custom",)
#: A custom decomposition of Fig. 1's y, in the paper's 1-based labels.
#: the size guard of the graph views: the largest ``max_labels`` accepted (the
#: graph draws up to k(k-1)/2 edges: 19,900 for 200 labels)
MAX_LABELS = 200

CUSTOM_EXAMPLE = "[([3], [2, 4]), ([2, 4], [1, 5])]"


def _fmt(v: float) -> str:
    return f"{v:.4g}"


# ---------------------------------------------------------------- text input
def parse_numbers(text: str, name: str) -> list[float]:
    """Read comma (or semicolon or space) separated numbers, as typed into a
    text box; brackets around them and a Unicode minus are accepted.

    Parameters
    ----------
    text : str
        E.g. ``"-1, 0, 2, 0, -1"`` or ``"(−1 0 2)"``.
    name : str
        The argument's name, used in error messages (``"y"``).

    Returns
    -------
    list of float

    Raises
    ------
    ValueError
        Starting ``"{name}:"`` if there is no number or a token is not one.

    Examples
    --------
    >>> parse_numbers("(-1, 0 2; 3)", "y")
    [-1.0, 0.0, 2.0, 3.0]
    """
    body = text.replace("\u2212", "-").strip().strip("()[]")
    tokens = [t for t in re.split(r"[,;\s]+", body) if t]
    if not tokens:
        raise ValueError(f"{name}: expected comma-separated numbers, got {text!r}")
    out = []
    for tok in tokens:
        try:
            out.append(float(tok))
        except ValueError:
            raise ValueError(f"{name}: could not read {tok!r} as a number") from None
    return out


def parse_decomposition(text: str) -> list:
    """Read a custom decomposition typed as a Python literal, e.g.
    ``[([3], [2, 4]), ([2, 4], [1, 5])]``; a single piece ``([3], [2, 4])``
    is accepted as a list of one. The pieces are not checked here (see
    :meth:`DecompositionModel.set_decomposition`).

    Parameters
    ----------
    text : str
        A list of ``(A, B)`` or ``(A, B, sigma)``, read with
        :func:`ast.literal_eval`.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        Starting ``"decomposition:"`` if the text is not such a literal.

    Examples
    --------
    >>> parse_decomposition("([3], [2, 4], 0.5)")
    [([3], [2, 4], 0.5)]
    """
    try:
        spec = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError(f"decomposition: could not read {text!r} as a list of "
                         f"(A, B) or (A, B, sigma), e.g. {CUSTOM_EXAMPLE}") from None
    if isinstance(spec, tuple) and len(spec) in (2, 3) and all(
            isinstance(s, (list, tuple)) and s and not isinstance(s[0], (list, tuple))
            for s in spec[:2]):
        spec = [spec]                     # a single piece ([3], [2, 4])
    if not isinstance(spec, (list, tuple)):
        raise ValueError(f"decomposition: expected a list of (A, B) or "
                         f"(A, B, sigma), got {spec!r}")
    return list(spec)


def _one_based_to_zero(spec, k: int) -> list:
    """Shift a custom decomposition written with the paper's 1-based labels to
    0-based indices, checking the labels lie in 1..k. Pieces and entries that
    are not integer label lists are passed on unchanged, so that
    :func:`polyrank.sopopo.check_decomposition` reports them."""
    if isinstance(spec, (str, bytes)) or not hasattr(spec, "__iter__"):
        raise TypeError(f"decomposition: expected a list of (A, B) or (A, B, sigma), "
                        f"got {spec!r}")
    out = []
    for j, item in enumerate(spec):
        if isinstance(item, Piece) or not isinstance(item, (tuple, list)) \
                or len(item) not in (2, 3):
            out.append(item)
            continue
        sides = []
        for side, labels in zip("AB", item[:2]):
            arr = np.asarray(labels)
            if arr.ndim == 1 and arr.size and arr.dtype.kind in "iu":
                if arr.min() < 1 or arr.max() > k:
                    raise ValueError(
                        f"decomposition: piece {j + 1}, {side}: labels are 1-based, "
                        f"expected integers in 1..{k}, got {arr.tolist()}")
                arr = arr - 1
            sides.append(arr)
        out.append(tuple(sides) + tuple(item[2:]))
    return out


# ---------------------------------------------------------------- checks
def _check_bool(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a bool, got {type(value).__name__}")
    return bool(value)


def _check_y(y, max_labels: int) -> np.ndarray:
    if isinstance(y, (str, bytes)):
        raise ValueError(f"y: expected a sequence of k real numbers, got the "
                         f"string {y!r} (the text box reads comma-separated "
                         "numbers; set_y does not)")
    try:
        g = as_float_array(y, "y", ndim=1)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    g = g.copy()
    if np.all(g == g[0]):
        raise ValueError(f"y: all {g.size} entries are equal ({_fmt(g[0])}), so "
                         "the feedback graph has no edge (Sec. 2: an edge r -> s "
                         "needs y_r > y_s)")
    if g.size > max_labels:
        raise ValueError(f"y: has {g.size} labels, more than max_labels = "
                         f"{max_labels} (every one of up to k(k-1)/2 edges "
                         "is drawn)")
    return g


def _check_scores(scores, W, x, k: int) -> tuple[np.ndarray, bool]:
    """(f, given): f = scores, or W x, or zeros (given False)."""
    if scores is not None and (W is not None or x is not None):
        raise ValueError("scores: give either scores or W and x, not both")
    if (W is None) != (x is None):
        raise ValueError(f"{'x' if x is None else 'W'}: W and x must be given "
                         "together (f = W x)")
    if W is not None:
        W = as_float_array(W, "W", ndim=2)
        x = as_float_array(x, "x", ndim=1)
        if W.shape[0] != k:
            raise ValueError(f"W: expected shape ({k}, n), one row per label, got "
                             f"{W.shape}")
        if x.size != W.shape[1]:
            raise ValueError(f"x: expected shape ({W.shape[1]},) to match W "
                             f"{W.shape}, got {x.shape}")
        return W @ x, True
    if scores is None:
        return np.zeros(k), False
    f = as_float_array(scores, "scores", ndim=1)
    if f.size != k:
        raise ValueError(f"scores: expected shape ({k},), one per label, got {f.shape}")
    return f.copy(), True


def _check_custom(spec, y: np.ndarray, one_based: bool) -> list[Piece]:
    """Validate a custom decomposition; returns it as un-normalised Pieces."""
    zero = _one_based_to_zero(spec, y.size) if one_based else spec
    if isinstance(zero, (str, bytes)) or not hasattr(zero, "__iter__"):
        raise TypeError(f"decomposition: expected a list of (A, B) or "
                        f"(A, B, sigma), got {spec!r}")
    try:
        return decompose(y, list(zero), normalize=False)
    except ValueError as exc:
        note = (" [the indices in this message are 0-based: index i is label "
                "i + 1 in the figure, pieces[j] is piece j + 1]") if one_based else ""
        raise ValueError(f"decomposition: {exc}{note}") from None


# ---------------------------------------------------------------- model
class DecompositionModel:
    """A target ranking y, one decomposition of its feedback graph, the
    selected piece and the scores f: the state of
    :class:`~polyrank_widgets.DecompositionViewer`, without widgets.

    Source: ``sopopo-label-ranking.txt``, Sec. 2: Eq. 1 (pair loss), Eq. 2-3
    (pieces and the loss), the three conditions on a decomposition, Fig. 1-2.
    Every setter checks its input first and changes nothing on error.

    Parameters
    ----------
    y : array_like, shape (k,)
        Target ranking (the paper's γ, Sec. 2); finite, at least two
        distinct values, k <= max_labels.
    decomposition : str or sequence, optional
        ``"all_pairs"``, ``"adjacent_layers"``, ``"top_vs_rest"``
        (:data:`polyrank.sopopo.DECOMPOSITIONS`), ``"custom"`` (uses
        ``custom``) or a custom list of ``(A, B)`` / ``(A, B, sigma)``.
        Default: ``"custom"`` if ``custom`` is given, else ``"all_pairs"``.
    W : array_like, shape (k, n), optional
        Prototypes w_1, ..., w_k (one per row); with ``x`` gives the scores
        f = W x. Give either ``W`` and ``x``, or ``scores``, or neither.
    x : array_like, shape (n,), optional
        The instance.
    scores : array_like, shape (k,), optional
        The model's scores f(x) directly. Default: zeros, so each piece's
        loss is sigma_j times its largest edge weight.
    custom : sequence of (A, B) or (A, B, sigma), optional
        A custom decomposition, stored as ``"custom"``.
    one_based : bool, optional
        Whether the labels in ``custom`` (or a list ``decomposition``) are
        the paper's 1-based names; default False (0-based indices, as in
        :func:`polyrank.sopopo.decompose`).
    normalize : bool, optional
        If True, sigma_j is divided by d (the "average" loss of Sec. 2).
    piece : int, optional
        0-based index of the selected piece.
    max_labels : int, optional
        Largest k accepted, at most :data:`MAX_LABELS` (200).

    Raises
    ------
    ValueError
        If ``y`` is invalid (message starting ``"y:"``), the
        decomposition is unknown or violates a condition of Sec. 2, or
        ``W``, ``x``, ``scores``, ``piece``, ``max_labels`` are invalid.
    TypeError
        If a custom piece is not a tuple of 2 or 3 entries, a flag is not a
        bool, or ``W``, ``x``, ``scores`` are not real arrays.

    Examples
    --------
    >>> m = DecompositionModel((-1, 0, 2, 0, -1), "adjacent_layers")
    >>> m.n_pieces, m.piece_loss(0), m.total_loss()
    (2, 2.0, 3.0)
    >>> m.set_scores([0, 1, 3, 1, 0]); m.total_loss()
    0.0
    """

    def __init__(self, y=(-1, 0, 2, 0, -1), decomposition=None, W=None, x=None,
                 *, scores=None, custom=None, one_based: bool = False,
                 normalize: bool = False, piece: int = 0,
                 max_labels: int = 30) -> None:
        self._max_labels = check_int(max_labels, "max_labels", minimum=2)
        if self._max_labels > MAX_LABELS:
            raise ValueError(f"max_labels: at most {MAX_LABELS} (the graph draws up to "
                             f"k(k-1)/2 edges), got {self._max_labels:,}")
        self._y = _check_y(y, self._max_labels)
        self._normalize = _check_bool(normalize, "normalize")
        one_based = _check_bool(one_based, "one_based")
        k = self._y.size
        self._scores, self._scores_given = _check_scores(scores, W, x, k)
        self._custom = None
        if custom is not None:
            self._custom = _check_custom(custom, self._y, one_based)
        if decomposition is None:
            decomposition = "custom" if custom is not None else "all_pairs"
        kind, custom_now = self._resolve(decomposition, one_based)
        if custom_now is not None:
            self._custom = custom_now
        self._kind = kind
        self._pieces = self._decompose(self._y, kind)
        j = check_int(piece, "piece", minimum=0)
        if j >= len(self._pieces):
            raise ValueError(f"piece: must be < d = {len(self._pieces)}, got {j}")
        self._j = j
        self._edges, self._weights = feedback_graph(self._y)

    def _resolve(self, spec, one_based: bool) -> tuple[str, list | None]:
        """(kind, newly validated custom pieces or None) for a decomposition
        argument; raises ValueError for unknown names or invalid lists."""
        if isinstance(spec, str):
            if spec not in KINDS:
                raise ValueError(f"decomposition: expected one of {KINDS} or a list "
                                 f"of (A, B[, sigma]), got {spec!r}")
            if spec != "custom":
                return spec, None
            if self._custom is None:
                raise ValueError("decomposition: 'custom' needs a custom "
                                 "decomposition; pass a list of (A, B[, sigma]) "
                                 f"(e.g. {CUSTOM_EXAMPLE} with one_based=True)")
            return spec, _check_custom(self._custom, self._y, False)
        return "custom", _check_custom(spec, self._y, one_based)

    def _decompose(self, y, kind) -> list[Piece]:
        spec = self._custom if kind == "custom" else kind
        return decompose(y, spec, normalize=self._normalize)

    # ------------------------------------------------------------ state
    @property
    def y(self) -> np.ndarray:
        """Target ranking, shape (k,) (a copy)."""
        return self._y.copy()

    @property
    def k(self) -> int:
        """Number of labels."""
        return int(self._y.size)

    @property
    def max_labels(self) -> int:
        """Largest k accepted."""
        return self._max_labels

    @property
    def scores(self) -> np.ndarray:
        """Scores f, shape (k,) (a copy; zeros unless set)."""
        return self._scores.copy()

    @property
    def decomposition(self) -> str:
        """Kind of the decomposition: one of :data:`KINDS`."""
        return self._kind

    @property
    def custom(self) -> list[Piece] | None:
        """The stored custom decomposition (un-normalised, 0-based), or None."""
        if self._custom is None:
            return None
        return [Piece(p.A.copy(), p.B.copy(), p.sigma) for p in self._custom]

    @property
    def normalize(self) -> bool:
        """Whether sigma_j is divided by d (Sec. 2, "average" loss)."""
        return self._normalize

    @property
    def pieces(self) -> list[Piece]:
        """The pieces E_j = A_j x B_j, 0-based labels (copies)."""
        return [Piece(p.A.copy(), p.B.copy(), p.sigma) for p in self._pieces]

    @property
    def n_pieces(self) -> int:
        """d, the number of pieces."""
        return len(self._pieces)

    @property
    def piece_index(self) -> int:
        """0-based index j of the selected piece."""
        return self._j

    @property
    def edges(self) -> np.ndarray:
        """Edges of the feedback graph, (E, 2) 0-based (r, s) with
        y_r > y_s, sorted lexicographically (a copy)."""
        return self._edges.copy()

    @property
    def weights(self) -> np.ndarray:
        """Edge weights y_r - y_s, shape (E,), in the order of
        :attr:`edges` (a copy)."""
        return self._weights.copy()

    # ------------------------------------------------------------ losses
    def loss(self, j: int) -> PieceLoss:
        """:func:`polyrank.sopopo.piece_loss` of piece j at the current
        scores: ``(loss, edge, violation)`` (Eq. 1, 3). Raises as
        :meth:`piece_loss`."""
        return piece_loss(self._y, self._scores, self._pieces[self._check_j(j)])

    def piece_loss(self, j: int) -> float:
        """Loss of piece j: ``sigma_j max_{(r,s) in A_j x B_j} l_rs`` with
        ``l_rs = ((y_r - y_s) - (f_r - f_s))_+`` (Eq. 1, 3).

        Parameters
        ----------
        j : int
            0-based piece index, ``0 <= j < d``.

        Returns
        -------
        float
            In the units of y (times sigma_j).

        Raises
        ------
        TypeError
            If ``j`` is not an int.
        ValueError
            If ``j`` is out of range.
        """
        return self.loss(j).loss

    def worst_edge(self, j: int) -> tuple[int, int]:
        """The 0-based edge (r, s) of piece j attaining the max of Eq. 3 (the
        first in A_j x B_j order on ties). Raises as :meth:`piece_loss`."""
        return self.loss(j).edge

    def losses(self) -> list[PieceLoss]:
        """:func:`polyrank.sopopo.piece_loss` of every piece, in order."""
        return [piece_loss(self._y, self._scores, p) for p in self._pieces]

    def total_loss(self) -> float:
        """The loss of Eq. 3, ``sum_j sigma_j max_{(r,s) in E_j} l_rs``, over
        all d pieces (units of y)."""
        return float(sum(pl.loss for pl in self.losses()))

    def edge_violations(self) -> np.ndarray:
        """``(y_r - y_s) - (f_r - f_s)`` for every edge of
        :attr:`edges`, shape (E,): Eq. 1 before its positive part."""
        r, s = self._edges[:, 0], self._edges[:, 1]
        g, f = self._y, self._scores
        return (g[r] - g[s]) - (f[r] - f[s])

    def in_piece(self, j: int) -> np.ndarray:
        """Boolean mask over :attr:`edges`: the edges of piece j."""
        p = self._pieces[self._check_j(j)]
        return np.isin(self._edges[:, 0], p.A) & np.isin(self._edges[:, 1], p.B)

    # ------------------------------------------------------------ setters
    def set_y(self, y, *, scores=None) -> None:
        """Set the target ranking; the decomposition (of the same kind) and
        the piece follow (the piece index is kept when it exists, else the
        last piece is selected).

        Parameters
        ----------
        y : array_like, shape (k,)
            Finite real numbers, at least two distinct, k <= max_labels.
        scores : array_like, shape (k,), optional
            New scores f. Needed when k changes and scores were set; default
            zero scores follow k.

        Raises
        ------
        ValueError
            Naming ``y`` if it is not a 1-d sequence of real numbers
            (strings included), has NaN or infinity, has all entries equal,
            has more than max_labels entries, changes k while set scores do
            not, or if the custom decomposition does not fit it. Naming
            ``scores`` if those are invalid. Nothing changes on error.
        """
        g = _check_y(y, self._max_labels)
        k = g.size
        if scores is not None:
            f, given = _check_scores(scores, None, None, k)
        elif k != self.k and self._scores_given:
            raise ValueError(f"y: has {k} labels but the scores f have "
                             f"{self.k}; pass set_y(y, scores=f) with f of "
                             f"length {k}")
        elif k != self.k:
            f, given = np.zeros(k), False
        else:
            f, given = self._scores, self._scores_given
        kind, custom = self._kind, self._custom
        if kind == "custom":
            try:
                custom = _check_custom(self._custom, g, False)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"y: the custom decomposition does not fit the "
                                 f"new y; choose another decomposition first "
                                 f"({exc})") from None
        elif self._custom is not None and k != self.k:
            custom = None                     # custom labels refer to the old k
        self._custom = custom
        self._pieces = self._decompose(g, kind)
        self._y, self._scores, self._scores_given = g, f, given
        self._j = min(self._j, len(self._pieces) - 1)
        self._edges, self._weights = feedback_graph(g)

    def set_decomposition(self, decomposition, *, one_based: bool = False) -> None:
        """Choose the decomposition. The piece index is kept when it exists,
        else the last piece is selected.

        Parameters
        ----------
        decomposition : str or sequence of (A, B) or (A, B, sigma)
            A name of :data:`polyrank.sopopo.DECOMPOSITIONS`, ``"custom"``
            (the stored custom decomposition), or a custom list, checked
            against the three conditions of Sec. 2 and stored.
        one_based : bool, optional
            Whether a custom list uses the paper's 1-based labels.

        Raises
        ------
        ValueError
            Starting ``"decomposition:"``: an unknown name, ``"custom"`` with
            none stored, labels out of range, or a custom list violating a
            condition of Sec. 2 (the message names "condition 1", "2" or "3").
        TypeError
            If a custom piece is not a tuple of 2 or 3 entries or its labels
            are not integers.
        """
        one_based = _check_bool(one_based, "one_based")
        kind, custom = self._resolve(decomposition, one_based)
        if custom is not None:
            self._custom = custom
        self._kind = kind
        self._pieces = self._decompose(self._y, kind)
        self._j = min(self._j, len(self._pieces) - 1)

    def set_normalize(self, normalize: bool) -> None:
        """Use sigma_j = 1/d (True, the "average" loss of Sec. 2) or the
        decomposition's own sigmas (False).

        Raises
        ------
        TypeError
            If ``normalize`` is not a bool.
        """
        self._normalize = _check_bool(normalize, "normalize")
        self._pieces = self._decompose(self._y, self._kind)

    def select_piece(self, j: int) -> None:
        """Select piece j (0-based).

        Raises
        ------
        TypeError
            If ``j`` is not an int.
        ValueError
            If ``j`` is not in ``0 .. d - 1``.
        """
        self._j = self._check_j(j)

    def set_scores(self, f=None, *, W=None, x=None) -> None:
        """Set the scores f (k,), or f = W x (Eq. 1, 3 use them).

        Parameters
        ----------
        f : array_like, shape (k,), optional
            Scores f_1(x), ..., f_k(x).
        W : array_like, shape (k, n), optional
            Prototypes, one per row; with ``x``.
        x : array_like, shape (n,), optional
            The instance.

        Raises
        ------
        ValueError
            Naming ``scores``, ``W`` or ``x``: wrong shapes, NaN or infinity,
            both ``f`` and ``W, x`` given, or neither.
        TypeError
            If an argument is not a real array.
        """
        if f is None and W is None and x is None:
            raise ValueError("scores: give f, or W and x")
        self._scores, self._scores_given = _check_scores(f, W, x, self.k)

    def _check_j(self, j) -> int:
        j = check_int(j, "j", minimum=0)
        if j >= len(self._pieces):
            raise ValueError(f"j: must be < d = {len(self._pieces)} (0-based piece "
                             f"index), got {j}")
        return j

    def __repr__(self) -> str:
        return (f"DecompositionModel(k={self.k}, decomposition={self._kind!r}, "
                f"d={len(self._pieces)}, piece={self._j})")
