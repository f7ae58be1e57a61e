"""Shared input checks.  Every check raises ``ValueError`` (or ``TypeError``)
with a message that names the offending argument; nothing is repaired."""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

__all__ = [
    "as_float_array",
    "check_dense_unless_linear",
    "check_positive",
    "check_label_set",
    "as_label_array",
    "check_int",
    "check_signs",
    "check_query_ids",
    "query_ids",
]


def as_float_array(value, name: str, ndim: int | tuple | None = None,
                   shape: tuple | None = None, allow_empty: bool = False,
                   finite: bool = True) -> np.ndarray:
    """Convert ``value`` to a C-contiguous float64 array and check it.

    Parameters
    ----------
    value : array_like
        The input.
    name : str
        The argument's name, used in error messages.
    ndim : int or tuple of int, optional
        Required number of dimensions.
    shape : tuple, optional
        Required shape; ``None`` entries match any size.
    allow_empty : bool
        Whether a zero-size array is acceptable.
    finite : bool
        Whether to reject NaN and infinity.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    TypeError
        If ``value`` is not numeric (e.g. strings, objects, complex).
    ValueError
        On wrong dimension or shape, empty input, NaN or infinity.
    """
    if (type(value) is np.ndarray and value.dtype == np.float64
            and value.flags.c_contiguous):
        arr = value                               # fast path: nothing to convert
    elif value is None:
        raise TypeError(f"{name}: expected an array, got None")
    else:
        arr = _convert(value, name)
    return _check_array(arr, name, ndim, shape, allow_empty, finite)


def _convert(value, name: str) -> np.ndarray:
    """np.asarray with a TypeError for non-numeric input."""
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - numpy's own message is kept
        raise TypeError(f"{name}: cannot convert to an array ({exc})") from exc
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got dtype {arr.dtype}")
    return np.asarray(arr, dtype=np.float64, order="C")


def _check_array(arr, name, ndim, shape, allow_empty, finite) -> np.ndarray:
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(f"{name}: expected a {' or '.join(map(str, allowed))}-d "
                             f"array, got shape {arr.shape}")
    if shape is not None:
        if len(shape) != arr.ndim or any(
                s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name}: expected shape {want}, got {arr.shape}")
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name}: must not be empty")
    # a NaN or infinity makes the sum non-finite; a finite sum proves finiteness
    if finite and not (np.isfinite(arr.sum()) or np.isfinite(arr).all()):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name}: contains NaN or infinity (first at index "
                         f"{tuple(int(b) for b in bad)})")
    return arr


def check_dense_unless_linear(X, kernel: str, name: str = "X") -> None:
    """Refuse a scipy sparse ``X`` unless ``kernel == "linear"`` (the kernels
    of the solvers that accept CSR input work on dense rows).

    Parameters
    ----------
    X : object
        The input to check (anything: only scipy sparse input is refused).
    kernel : str
        The kernel it is meant for.
    name : str
        The argument's name in the message.

    Raises
    ------
    TypeError
        If X is sparse and the kernel is not linear; the message names
        ``name`` and the kernel and asks for a dense array.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> check_dense_unless_linear(sp.eye(3), "linear")
    >>> check_dense_unless_linear(sp.eye(3), "rbf")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: X: sparse input is not supported with kernel='rbf' (only with ...
    """
    if kernel != "linear" and sp.issparse(X):
        raise TypeError(f"{name}: sparse input is not supported with kernel={kernel!r} "
                        "(only with kernel='linear'); pass a dense array")


def check_positive(value, name: str, strict: bool = True) -> float:
    """Return ``value`` as a float after checking it is a finite real number
    that is > 0 (``strict``) or >= 0.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If it is NaN, infinite or out of range.
    """
    if type(value) is float or type(value) is int:
        v = float(value)                          # fast path
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(value).__name__}")
    else:
        v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name}: must be finite, got {v}")
    if (strict and v <= 0) or (not strict and v < 0):
        raise ValueError(f"{name}: must be {'>' if strict else '>='} 0, got {v}")
    return v


def check_int(value, name: str, minimum: int | None = None) -> int:
    """Return ``value`` as an int after checking its type and lower bound.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (bools are rejected).
    ValueError
        If ``value < minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise ValueError(f"{name}: must be >= {minimum}, got {v}")
    return v


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


# ---------------------------------------------------------------- query ids
# (learning to rank, ``large-scale-linear-ranksvm.txt``, Eq. 1.1)

def check_query_ids(qid, l: int, name: str = "qid") -> np.ndarray:
    """Check query ids: one integer per row (integral floats accepted);
    documents of a query need not be contiguous.

    Returns
    -------
    ndarray of int64, shape (l,)

    Raises
    ------
    TypeError
        If ``qid`` is None or not integer.
    ValueError
        If not 1-d, not of length ``l``, or with non-integral / non-finite
        values.

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
        raise ValueError(f"{name}: expected length {l} (one per row of X), got {arr.size}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name}: expected integer query ids")
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integer query ids, got dtype {arr.dtype}")
    return arr.astype(np.int64)


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
