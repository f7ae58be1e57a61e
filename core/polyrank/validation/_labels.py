"""Labels, query ids, ranking data and sign vectors (see
:mod:`polyrank.validation`)."""

from __future__ import annotations

import numpy as np

from ._arrays import _convert, as_float_array

__all__ = ["as_label_array", "check_label_set", "check_ordinal_labels", "check_query_ids",
           "query_ids", "check_ranking_data", "check_signs"]


def as_label_array(value, name: str) -> np.ndarray:
    """A non-empty 1-d int64 array of label indices (values not checked).

    Raises
    ------
    TypeError
        If the entries are not integers.
    ValueError
        If not 1-d or empty.
    """
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d set of label indices, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: must not be empty (a bipartite piece needs "
                         "labels on both sides)")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer label indices, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def check_label_set(value, name: str, k: int) -> np.ndarray:
    """Check a set of 0-based label indices: non-empty, integer, within
    ``[0, k)``, no duplicates.  Returns an int64 array in the given order.

    Raises
    ------
    TypeError
        If the entries are not integers.
    ValueError
        If empty, out of range or duplicated.
    """
    arr = as_label_array(value, name)
    if arr.min() < 0 or arr.max() >= k:
        raise ValueError(f"{name}: label indices must lie in [0, {k}), got "
                         f"{arr.min()}..{arr.max()}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name}: contains duplicate labels")
    return arr


# ---------------------------------------------------------------- ordinal labels
# (``row-column-generation-ordinal.txt``, Sec. 3.1)

def check_ordinal_labels(labels, n: int) -> tuple[np.ndarray, int]:
    """Validate ordinal labels 0..l and return them as int64 with l
    (``row-column-generation-ordinal.txt``, Sec. 3.1; also
    ``polyrank.ordinal.check_labels``).

    Parameters
    ----------
    labels : array_like, shape (n,)
        Integer labels (an integer dtype, or floats with integral values);
        every label 0, 1, ..., l must have at least one object (Sec. 3.1
        assumes N(k) != empty for all k), and l >= 1.
    n : int
        Expected length (the number of rows of X).

    Returns
    -------
    (ndarray of int64 (n,), int)
        The labels and l (the largest label).

    Raises
    ------
    TypeError
        If the labels are not numbers (strings, objects, booleans).
    ValueError
        If not 1-d of length n, NaN/inf, non-integral, negative, fewer than
        two labels, or a label in 0..l without objects.

    Examples
    --------
    >>> check_ordinal_labels([0, 2, 1, 2], 4)[1]
    2
    """
    arr = np.asarray(labels)
    if arr.dtype == bool:
        raise TypeError("labels: expected integer labels 0..l, got booleans")
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"labels: expected integer labels 0..l, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"labels: expected a 1-d array, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"labels: expected {n} labels (one per row of X), got {arr.shape[0]}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError("labels: contains NaN or infinity")
        if not np.all(arr == np.round(arr)):
            bad = arr[arr != np.round(arr)][0]
            raise ValueError(f"labels: expected integer labels 0..l, got the "
                             f"non-integer value {float(bad)!r}")
    out = arr.astype(np.int64)
    if out.min() < 0:
        raise ValueError(f"labels: expected labels 0..l (>= 0), got {out.min()}")
    l = int(out.max())
    if l < 1:
        raise ValueError("labels: need at least two labels (0 and 1), got only 0")
    counts = np.bincount(out, minlength=l + 1)
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        raise ValueError(f"labels: label {int(empty[0])} has no objects; labels "
                         f"must be 0..{l} with every label used (Sec. 3.1 "
                         f"assumes N(k) non-empty)")
    return out, l


# ---------------------------------------------------------------- query ids
# (learning to rank, ``large-scale-linear-ranksvm.txt``, Eq. 1.1)

def check_query_ids(qid, l: int, name: str = "qid", per: str = "row of X") -> np.ndarray:
    """Check query ids: one integer per row (integral floats accepted);
    documents of a query need not be contiguous.

    Parameters
    ----------
    qid : array_like, shape (l,)
    l : int
        The number of rows they label.
    name : str
        The argument's name in messages.
    per : str
        What each id belongs to, in the length message ("one per ...").

    Returns
    -------
    ndarray of int64, shape (l,)

    Raises
    ------
    TypeError
        If ``qid`` is None or not integer.
    ValueError
        If not 1-d, not of length ``l``, or with non-integral / non-finite
        values, or values that are not exactly an int64 (a float id of
        2**63 or more, which a cast would merge with others).

    Examples
    --------
    >>> check_query_ids([3, 3, 1.0], 3).tolist()
    [3, 3, 1]
    """
    if qid is None:
        raise TypeError(f"{name}: expected an array of query ids, got None")
    arr = np.asarray(qid)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d array, got shape {arr.shape}")
    if arr.size != l:
        raise ValueError(f"{name}: expected length {l} (one per {per}), got {arr.size}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name}: expected integer query ids")
        _check_int64_range(arr, name)
    elif arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name}: query id {arr.max()} does not fit in an int64 "
                         "(ids must be below 2**63)")
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer query ids, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def _check_int64_range(arr: np.ndarray, name: str) -> None:
    """ValueError naming ``name`` unless every (integral, finite) float of
    ``arr`` is exactly an int64, i.e. in [-2**63, 2**63): a cast would
    otherwise wrap 2**63 and 2**64 to the same id and merge their queries."""
    bad = (arr < -(2.0 ** 63)) | (arr >= 2.0 ** 63)
    if np.any(bad):
        raise ValueError(f"{name}: query id {float(arr[bad][0])!r} is not exactly representable as "
                         "an int64 (float ids must lie in [-2**63, 2**63)); pass integer ids")


def query_ids(qid, group, l: int) -> np.ndarray:
    """Query ids of ``l`` rows from ``qid`` (one id per row), LightGBM's
    ``group`` (the sizes of consecutive queries, summing to ``l``) or
    neither (all rows form one query).

    Returns
    -------
    ndarray of int64, shape (l,)
        With ``group``: 0, 0, ..., 1, 1, ... (query t holds ``group[t]``
        consecutive rows).

    Raises
    ------
    TypeError
        Non-integer ids or sizes.
    ValueError
        Both ``qid`` and ``group`` given, a bad length, sizes < 1 or not
        summing to ``l``.

    Examples
    --------
    >>> query_ids(None, [2, 1], 3).tolist(), query_ids(None, None, 2).tolist()
    ([0, 0, 1], [0, 0])
    """
    if qid is not None and group is not None:
        raise ValueError("qid, group: give the query ids (qid) or the query sizes "
                         "(group), not both")
    if group is None:
        return np.zeros(l, dtype=np.int64) if qid is None else check_query_ids(qid, l)
    sizes = np.asarray(group)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"group: expected a non-empty 1-d array of query sizes, got "
                         f"shape {sizes.shape}")
    if sizes.dtype.kind == "f" and np.all(np.isfinite(sizes)) and np.all(sizes == np.round(sizes)):
        sizes = sizes.astype(np.int64)
    if sizes.dtype.kind not in "iu":
        raise TypeError(f"group: expected integer query sizes, got dtype {sizes.dtype}")
    if sizes.min() < 1:
        raise ValueError(f"group: query sizes must be >= 1, got {sizes.min()}")
    if int(sizes.sum()) != l:
        raise ValueError(f"group: the query sizes sum to {int(sizes.sum())}, expected "
                         f"{l} (the number of rows of X)")
    return np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)


def check_ranking_data(y, qid, l: int):
    """Validate ranking data: relevance labels ``y`` (finite floats) and
    query ids ``qid`` (integers, :func:`check_query_ids`), both of length
    ``l`` (``large-scale-linear-ranksvm.txt``, Eq. 1.1; also
    ``polyrank.ranksvm.objective.check_ranking_data``).

    Returns
    -------
    (ndarray of float64 (l,), ndarray of int64 (l,))

    Raises
    ------
    ValueError
        Wrong length, NaN/inf in y, empty input.
    TypeError
        Non-numeric y or non-integer qid.
    """
    y = as_float_array(y, "y", ndim=1)
    if y.size != l:
        raise ValueError(f"y: expected length {l} (one per row of X), got {y.size}")
    return y, check_query_ids(qid, l)


# ---------------------------------------------------------------- sign vectors
# (sign-constrained learning, ``sign-constrained-sdca-pegasos.txt``, Eq. 4, 26)

def check_signs(signs, name: str, shape: tuple) -> np.ndarray:
    """Check a sign vector c (Eq. 4) or sign matrix C (Eq. 26) of
    ``sign-constrained-sdca-pegasos.txt``: every entry exactly -1, 0 or +1.

    Parameters
    ----------
    signs : array_like or None
        The signs; ``None`` means no constraint (all zeros).
    name : str
        The argument's name, used in error messages.
    shape : tuple of int
        The required shape, ``(d,)`` or ``(d, m)``.

    Returns
    -------
    ndarray of float64, C-contiguous, of the given shape.

    Raises
    ------
    TypeError
        If the entries are not real numbers.
    ValueError
        On a wrong shape, NaN, or a value outside {-1, 0, +1}.

    Examples
    --------
    >>> check_signs([1, 0, -1], "signs", (3,)).tolist()
    [1.0, 0.0, -1.0]
    """
    if signs is None:
        return np.zeros(shape)
    arr = _convert(signs, name)
    if arr.shape != tuple(shape):
        raise ValueError(f"{name}: expected shape {tuple(shape)} (one sign per "
                         f"{'feature' if len(shape) == 1 else 'feature and class'}), "
                         f"got {arr.shape}")
    bad = ~np.isin(arr, (-1.0, 0.0, 1.0))
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}: entries must be -1, 0 or +1, got {arr[idx]!r} "
                         f"at index {idx}")
    return np.ascontiguousarray(arr, dtype=np.float64)
