"""Arrays, numbers and the one gate for a design matrix X (see
:mod:`polyrank.validation`)."""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.linalg
import scipy.sparse as sp

__all__ = ["as_float_array", "check_sparse_structure", "check_magnitude", "max_abs_value",
           "check_design", "validate_X", "dense_targets", "check_dense_unless_linear",
           "check_positive", "check_int", "check_gram"]

#: relative tolerances of :func:`check_gram` (symmetry; negative eigenvalues)
_GRAM_ASYM = 1e-10
_GRAM_NEG = 1e-8


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


# ---------------------------------------------------------------- design matrices

def check_sparse_structure(X, name: str = "X") -> None:
    """Check the index arrays of a scipy sparse matrix in O(nnz), without
    converting or modifying it.

    scipy does not check ``indices``/``indptr`` when a CSR/CSC matrix is
    built from arrays, and its conversions (and polyrank's numba kernels)
    read and write memory at those indices: a column index out of range or
    a decreasing ``indptr`` corrupts memory or aborts the interpreter.

    Parameters
    ----------
    X : scipy.sparse matrix or array
        Any format; CSR, CSC and BSR have their ``indptr``/``indices``
        checked, COO its ``row``/``col``; LIL, DOK and DIA are Python or
        numpy structures that scipy converts safely.
    name : str
        The argument's name in the message.

    Raises
    ------
    ValueError
        Index arrays that are not 1-d integers, an ``indptr`` of the wrong
        length, not starting at 0, decreasing or pointing past the stored
        entries, an index < 0 or >= the matrix's size along its axis, or
        ``data`` shorter than the index array.
    TypeError
        Entries that are not real numbers.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix((np.ones(2), np.array([0, 7]), np.array([0, 1, 2])), shape=(2, 3))
    >>> check_sparse_structure(X)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X: malformed sparse matrix: column index 7 at stored entry 1 (row 1) is ...
    """
    fmt = X.format
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got dtype {X.dtype}")
    bad = f"{name}: malformed sparse matrix"
    if fmt in ("csr", "csc", "bsr"):
        indptr, indices = X.indptr, X.indices
        for arr, what in ((indptr, "indptr"), (indices, "indices")):
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise ValueError(f"{bad}: {what} must be a 1-d integer array, got dtype "
                                 f"{arr.dtype} and shape {arr.shape}")
        rows, cols = X.shape
        if fmt == "bsr":
            r, c = X.blocksize
            rows, cols = rows // r, cols // c
        major, minor = (rows, cols) if fmt != "csc" else (cols, rows)
        axis, other = (("row", "column") if fmt != "csc" else ("column", "row"))
        if indptr.size != major + 1:
            raise ValueError(f"{bad}: indptr has {indptr.size} entries, expected {major + 1} "
                             f"(one more than the number of {axis}s)")
        if indptr[0] != 0:
            raise ValueError(f"{bad}: indptr must start at 0, got {indptr[0]}")
        steps = np.diff(indptr)
        if steps.size and steps.min() < 0:
            at = int(np.argmax(steps < 0))
            raise ValueError(f"{bad}: indptr decreases at {axis} {at} ({indptr[at]} -> "
                             f"{indptr[at + 1]}); it must be non-decreasing")
        nnz = int(indptr[-1])
        if nnz > indices.size or nnz > X.data.shape[0]:
            raise ValueError(f"{bad}: indptr ends at {nnz} but only {indices.size} indices "
                             f"and {X.data.shape[0]} values are stored")
        _check_index_range(indices[:nnz], minor, f"{bad}: {other} index", indptr)
    elif fmt == "coo":
        coords = getattr(X, "coords", None) or (X.row, X.col)
        nnz = X.data.shape[0]
        for arr, size, what in zip(coords, X.shape, ("row", "column")):
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise ValueError(f"{bad}: {what} indices must be a 1-d integer array")
            if arr.size != nnz:
                raise ValueError(f"{bad}: {arr.size} {what} indices for {nnz} values")
            _check_index_range(arr, size, f"{bad}: {what} index", None)


def _check_index_range(idx, size: int, what: str, indptr) -> None:
    """Raise ValueError if an index of ``idx`` is outside [0, size)."""
    if idx.size == 0:
        return
    lo, hi = idx.min(), idx.max()
    if lo >= 0 and hi < size:
        return
    at = int(np.argmax((idx < 0) | (idx >= size)))
    where = (f" (row {int(np.searchsorted(indptr, at, side='right')) - 1})"
             if indptr is not None else "")
    raise ValueError(f"{what} {int(idx[at])} at stored entry {at}{where} is outside "
                     f"[0, {size})")


def max_abs_value(X) -> float:
    """The largest |entry| of a dense array or scipy sparse matrix (0 if
    it has none), NaN if an entry is NaN."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size == 0:
        return 0.0
    return float(max(data.max(), -data.min()))


def check_magnitude(X, name: str = "X", n_features: int | None = None) -> None:
    """Refuse NaN, infinity and entries whose squares overflow float64.

    The solvers form squared norms ||x||^2, products <x, x'> and kernel
    values; with d features, an entry above ``sqrt(float64 max / (4 d))``
    (about 6.7e153 / sqrt(d)) lets ``||x - x'||^2`` overflow to infinity,
    which turns weights and scores into NaN.  Such data are refused with
    the remedy rather than solved into a NaN model.

    Parameters
    ----------
    X : ndarray or scipy sparse matrix
        Float data (already converted).
    name : str
        The argument's name in the message.
    n_features : int, optional
        d in the bound (default ``X.shape[1]``, or 1 for a 1-d array).

    Raises
    ------
    ValueError
        NaN or infinity (with the position of the first), or an entry too
        large (with its value, position and the bound), advising to scale
        the features (:class:`~sklearn.preprocessing.StandardScaler`).

    Examples
    --------
    >>> import numpy as np
    >>> check_magnitude(np.array([[1.0, 1e200]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: X: entry 1e+200 at index (0, 1) is too large: squares and products ...
    """
    top = max_abs_value(X)
    if math.isfinite(top):
        d = n_features if n_features is not None else (X.shape[1] if X.ndim > 1 else 1)
        limit = math.sqrt(np.finfo(np.float64).max / (4.0 * max(d, 1)))
        if top <= limit:
            return
    data = X.data if sp.issparse(X) else X
    bad = ~np.isfinite(data)
    if bad.any():
        pos = _position(X, int(np.argmax(bad.ravel())))
        raise ValueError(f"{name}: contains NaN or infinity (first at index {pos})")
    pos = _position(X, int(np.argmax(np.abs(data).ravel())))
    raise ValueError(f"{name}: entry {top:.3g} at index {pos} is too large: squares and "
                     f"products of entries above {limit:.3g} overflow float64 with "
                     f"{d} features; scale {name} (e.g. make_pipeline(StandardScaler(), "
                     "estimator))")


def _position(X, flat: int) -> int | tuple[int, ...]:
    """(row, column) of the ``flat``-th stored entry of X (the index itself
    for a 1-d X)."""
    if sp.issparse(X):
        X = X.tocsr() if X.format != "csr" else X
        row = int(np.searchsorted(X.indptr, flat, side="right")) - 1
        return (row, int(X.indices[flat]))
    if X.ndim == 1:
        return flat
    return tuple(int(i) for i in np.unravel_index(flat, X.shape))


def _canonical_csr(X, original):
    """X (float64, sparse, structure checked) as CSR in canonical form
    (sorted indices, no duplicates, no stored entries past ``indptr[-1]``);
    a copy whenever it would otherwise change ``original``."""
    X = X.tocsr() if X.format != "csr" else X
    if X.dtype != np.float64:
        X = X.astype(np.float64)
    nnz = int(X.indptr[-1])
    if X.indices.size != nnz or X.data.size != nnz:
        X = sp.csr_matrix((X.data[:nnz], X.indices[:nnz], X.indptr), shape=X.shape)
    if not X.has_canonical_format:
        if X is original or X.data is getattr(original, "data", None):
            X = X.copy()
        X.sum_duplicates()
    return X


def check_design(X, name: str = "X", *, accept_sparse: bool = True,
                 kernel: str | None = None, allow_empty: bool = False):
    """The one gate for a design matrix X of a public driver.

    Parameters
    ----------
    X : array_like or scipy sparse matrix, shape (n_samples, n_features)
        The instances.
    name : str
        The argument's name in messages.
    accept_sparse : bool
        Whether scipy sparse input is allowed (else TypeError).
    kernel : str, optional
        With a kernel other than ``"linear"``, sparse input is refused
        (:func:`check_dense_unless_linear`).
    allow_empty : bool
        Whether zero rows or columns are acceptable.

    Returns
    -------
    ndarray of float64, C-contiguous, or scipy.sparse.csr_matrix
        The CSR matrix is float64 in canonical form (a copy if the input
        was not); a dense float64 C-contiguous input is returned as is.

    Raises
    ------
    TypeError
        Non-numeric entries; sparse input where it is not accepted.
    ValueError
        Not 2-d, empty, a malformed sparse structure
        (:func:`check_sparse_structure`), NaN/infinity or entries whose
        squares overflow (:func:`check_magnitude`).
    """
    if X is None:
        raise TypeError(f"{name}: expected an array or scipy sparse matrix, got None")
    if sp.issparse(X):
        if kernel is not None:
            check_dense_unless_linear(X, kernel, name)
        if not accept_sparse:
            raise TypeError(f"{name}: sparse input is not supported here; pass a dense array")
        if X.ndim != 2:
            raise ValueError(f"{name}: expected a 2-d matrix, got shape {X.shape}")
        check_sparse_structure(X, name)
        out = _canonical_csr(X, X)
        if not allow_empty and (out.shape[0] == 0 or out.shape[1] == 0):
            raise ValueError(f"{name}: must not be empty, got shape {out.shape}")
    else:
        out = as_float_array(X, name, ndim=2, allow_empty=allow_empty, finite=False)
    check_magnitude(out, name)
    return out


def validate_X(estimator, X, y="no_validation", *, reset: bool = True, **kwargs):
    """scikit-learn's :func:`~sklearn.utils.validation.validate_data` with the
    checks of :func:`check_design` around it: the estimators' one gate.

    Parameters
    ----------
    estimator : BaseEstimator
        Sets/checks ``n_features_in_`` and ``feature_names_in_`` as
        ``validate_data`` does.
    X : array_like or scipy sparse matrix, shape (n_samples, n_features)
    y : array_like, optional
        Targets, validated by ``validate_data`` (``"no_validation"``: none).
    reset : bool
        True in ``fit``, False in ``predict``/``decision_function``/``score``.
    **kwargs
        Passed to ``validate_data`` (``accept_sparse``, ``dtype``,
        ``multi_output``, ...).

    Returns
    -------
    X or (X, y)
        As ``validate_data``; a sparse X is float64 CSR in canonical form.

    Raises
    ------
    ValueError, TypeError
        As ``validate_data`` and :func:`check_design`.
    """
    from sklearn.utils.validation import validate_data

    dtype = getattr(X, "dtype", None)
    if dtype is None and isinstance(X, (list, tuple)):
        dtype = np.asarray(X).dtype
    if dtype is not None and getattr(dtype, "kind", "") in "USV":
        raise TypeError(f"X: expected real numbers, got dtype {dtype} (encode text or "
                        "categories first, e.g. with sklearn.preprocessing.OneHotEncoder)")
    if sp.issparse(X):
        check_sparse_structure(X, "X")
    if sp.issparse(y):
        y = dense_targets(y, "y")        # a label indicator matrix; the solvers want it dense
    out = validate_data(estimator, X, y, reset=reset, **kwargs)
    Xv = out[0] if isinstance(out, tuple) else out
    if sp.issparse(Xv):
        Xc = _canonical_csr(Xv, X)
        if Xc is not Xv:
            out = (Xc,) + tuple(out[1:]) if isinstance(out, tuple) else Xc
            Xv = Xc
    check_magnitude(Xv, "X")
    return out


def dense_targets(y, name: str = "y"):
    """A scipy sparse target matrix (scikit-learn's multilabel convention,
    e.g. ``MultiLabelBinarizer(sparse_output=True)``) as a dense ndarray,
    after :func:`check_sparse_structure`; anything else is returned as is.

    Parameters
    ----------
    y : array_like or scipy sparse matrix, shape (n, L)
    name : str
        The argument's name in messages.

    Returns
    -------
    ndarray or y unchanged

    Raises
    ------
    ValueError, TypeError
        A malformed sparse structure or non-numeric entries.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> dense_targets(sp.csr_matrix([[0, 1], [1, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    if sp.issparse(y):
        check_sparse_structure(y, name)
        return y.toarray()
    return y


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



def check_gram(K, name: str = "X") -> None:
    """Reject a precomputed kernel matrix that is not a Mercer Gram matrix
    (also ``polyrank.sopopo.batch.check_gram``).

    Parameters
    ----------
    K : ndarray, shape (m, m)
    name : str
        The argument's name in the messages.

    Raises
    ------
    ValueError
        If K is not square, not symmetric (max |K - K'| above 1e-10 max |K|)
        or indefinite: the Cholesky factorisation of K + 1e-8 max(diag K) I
        fails, i.e. an eigenvalue is below -1e-8 max(diag K) (the message
        gives the smallest eigenvalue).  SOPOPO's dual ascent assumes a
        positive semidefinite K (Sec. 4.2); with an indefinite one the
        "objectives" it reports mean nothing.
    """
    m = K.shape[0]
    if K.shape != (m, m):
        raise ValueError(f"{name}: a precomputed kernel must be square (m, m), got {K.shape}")
    scale = float(np.abs(K).max())
    asym = float(np.abs(K - K.T).max())
    if asym > _GRAM_ASYM * scale:
        raise ValueError(f"{name}: the precomputed kernel matrix is not symmetric "
                         f"(max |K - K'| = {asym:.3g}); pass the Gram matrix "
                         "K[i, j] = k(x_i, x_j) of a Mercer kernel")
    diag = np.diag(K)
    if diag.min() < 0:
        raise ValueError(f"{name}: the kernel matrix has negative diagonal entries; "
                         "it is not a Mercer (positive semidefinite) kernel")
    shift = _GRAM_NEG * max(float(diag.max()), np.finfo(float).tiny)
    try:
        scipy.linalg.cholesky(K + shift * np.eye(m), lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        low = float(scipy.linalg.eigvalsh(K, subset_by_index=[0, 0], check_finite=False)[0])
        raise ValueError(f"{name}: the precomputed kernel matrix is indefinite (smallest "
                         f"eigenvalue {low:.3g}, below -{_GRAM_NEG:g} max(diag K)); "
                         "pass a positive semidefinite Gram matrix") from None
