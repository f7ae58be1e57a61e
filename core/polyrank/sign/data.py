"""The data of the sign-constrained solvers: input checks and the form
the kernels read (SC-SDCA, SC-Pegasos; ``sign-constrained-sdca-pegasos.txt``).

:func:`prepare_data` validates (the public solvers' path), :func:`trusted_data`
converts input a caller validated already (the estimators' path: validate
once, ``CONTRIBUTING.md``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..validation import check_design, check_signs
from . import _kernels as K
from .losses import BINARY_LOSSES, get_loss

__all__ = ["prepare_data", "trusted_data", "KernelForm", "kernel_form", "DENSE_MIN_DENSITY",
           "DENSE_MAX_ENTRIES"]

def _as_csr(X) -> sp.csr_matrix:
    """X (dense or scipy.sparse, shape (n, d)) checked (:func:`check_design`)
    and as canonical float64 CSR."""
    return _to_csr(check_design(X))


def _to_csr(X) -> sp.csr_matrix:
    """A checked X (dense float64 or canonical CSR) as a float64 CSR copy with
    int64 indices, the form of the kernels; no check (validate once)."""
    Xc = sp.csr_matrix(X, copy=True)              # the bias column may be appended
    Xc.indptr = Xc.indptr.astype(np.int64)
    Xc.indices = Xc.indices.astype(np.int64)
    return Xc


def _check_labels(y, n: int, loss: str, multiclass: bool):
    arr = np.asarray(y)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"y: expected numeric labels, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"y: expected shape ({n},) (one label per row of X), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("y: contains NaN or infinity")
    if multiclass:
        if arr.dtype.kind == "f" and not np.all(arr == np.round(arr)):
            raise ValueError(f"y: the {loss} loss needs class indices 0..m-1, got non-integers")
        yi = arr.astype(np.int64)
        if yi.min() < 0:
            raise ValueError(f"y: class indices must be >= 0, got {yi.min()}")
        return yi, int(yi.max()) + 1
    yf = arr.astype(np.float64)
    if loss in BINARY_LOSSES and not np.all(np.abs(yf) == 1.0):
        bad = yf[np.abs(yf) != 1.0][0]
        raise ValueError(f"y: the {loss} loss needs labels in {{-1, +1}} (Table 1), got {bad!r}")
    return np.ascontiguousarray(yf), None


def _check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """Example weights s (n,) scaled to mean 1 (all ones for None)."""
    if sample_weight is None:
        return np.ones(n)
    arr = np.asarray(sample_weight)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"sample_weight: expected real numbers, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"sample_weight: expected shape ({n},) (one weight per row of X), "
                         f"got {arr.shape}")
    sw = arr.astype(np.float64)
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight: contains NaN or infinity")
    if sw.min() < 0:
        raise ValueError(f"sample_weight: expected weights >= 0, got {sw.min():.3g}")
    total = sw.sum()
    if not total > 0:
        raise ValueError("sample_weight: all weights are zero")
    return np.ascontiguousarray(sw * (n / total))


def prepare_data(X, y, loss: str, signs, top_k: int = 1, sample_weight=None, *,
                 layout: str | None = None):
    """Validate and convert the inputs shared by :func:`sc_sdca` and
    :func:`sc_pegasos`.

    Parameters
    ----------
    X, y, loss, signs, top_k, sample_weight
        As :func:`polyrank.sign.sc_sdca`.
    layout : {"auto", "dense", "csr"} or None, default=None
        Build X in this storage of the SDCA epochs at once
        (:func:`kernel_form`); None: CSR, the storage chosen by the solver.

    Returns
    -------
    dict
        ``X`` (CSR, float64, int64 indices; or, with ``layout``, the
        storage :func:`kernel_form` chose), ``layout`` (None, or "dense" /
        "csr"), ``sqnorm`` (None, or the squared row norms (n,)), ``y``
        (float64 (n,), or int64 class indices), ``code``, ``multiclass``,
        ``m`` (classes or None), ``c`` (signs, (d,) or (d, m)), ``sw``
        (example weights (n,) scaled to mean 1; ones without
        ``sample_weight``).

    Raises
    ------
    TypeError, ValueError
        See :func:`sc_sdca`.
    """
    code, multiclass = get_loss(loss, top_k)
    Xv = check_design(X)
    n, d = Xv.shape
    y, m = _check_labels(y, n, loss, multiclass)
    if multiclass:
        if m < 2:
            raise ValueError(f"y: a multiclass loss needs at least 2 classes, got {m}")
        if top_k > m:
            raise ValueError(f"top_k: must be <= the number of classes {m}, got {top_k}")
        c = check_signs(signs, "signs", (d, m))
    else:
        c = check_signs(signs, "signs", (d,))
    sw = _check_sample_weight(sample_weight, n)
    form = KernelForm(_to_csr(Xv), None, None) if layout is None else \
        kernel_form(Xv, layout=layout, multiclass=multiclass)
    return {"X": form.X, "layout": form.layout, "sqnorm": form.sqnorm, "y": y, "code": code,
            "multiclass": multiclass, "m": m, "c": c, "sw": sw}


def trusted_data(X, y, loss: str, signs, top_k: int = 1, sample_weight=None, *,
                 form: KernelForm | None = None):
    """:func:`prepare_data` for inputs a caller has validated already (the
    estimators; validate once, ``CONTRIBUTING.md``): conversions only, no
    pass over the data to check it.

    Parameters
    ----------
    X : ndarray of float64 or canonical scipy.sparse CSR, shape (n, d)
        Finite (as :func:`polyrank.validation.validate_X` returns it).
    y : ndarray, shape (n,)
        Real targets; +-1 for a binary loss; class indices 0..m-1 (every
        one used) for a multiclass loss.
    loss : str
    signs : ndarray of float64, shape (d,) or (d, m)
        Checked by :func:`polyrank.validation.check_signs`.
    top_k : int
    sample_weight : ndarray of float64 (n,) or None
        Finite, >= 0, with a positive sum.
    form : KernelForm, optional
        X already in the kernels' form (:func:`kernel_form`, built once
        per fit, or once per path by the estimators); X is then not read.
        None: a CSR copy of X.

    Returns
    -------
    dict
        As :func:`prepare_data`.

    Raises
    ------
    ValueError
        An unknown loss, or ``top_k`` above the number of classes.
    """
    code, multiclass = get_loss(loss, top_k)
    if form is None:
        form = KernelForm(_to_csr(X), None, None)
    n = form.X.shape[0]
    m = None
    if multiclass:
        y = np.asarray(y).astype(np.int64)
        m = int(y.max()) + 1
        if top_k > m:
            raise ValueError(f"top_k: must be <= the number of classes {m}, got {top_k}")
    else:
        y = np.ascontiguousarray(np.asarray(y).astype(np.float64))
    sw = np.ones(n) if sample_weight is None else np.ascontiguousarray(
        sample_weight * (n / sample_weight.sum()))
    return {"X": form.X, "layout": form.layout, "sqnorm": form.sqnorm, "y": y, "code": code,
            "multiclass": multiclass, "m": m, "c": signs, "sw": sw}


def _csr(Xc):
    return Xc.indptr, Xc.indices, Xc.data

#: ``layout="auto"`` of :func:`sc_sdca` copies X to a dense array when at
#: least this fraction of its entries is non-zero ...
DENSE_MIN_DENSITY = 0.25
#: ... and the copy has at most this many entries (2^25: 256 MiB of float64)
DENSE_MAX_ENTRIES = 2 ** 25


def _check_layout(layout, multiclass: bool) -> None:
    """ValueError for a ``layout`` that is not a storage of :func:`sc_sdca`."""
    if not isinstance(layout, str) or layout not in ("auto", "dense", "csr"):
        raise ValueError(f"layout: expected 'auto', 'dense' or 'csr', got {layout!r}")
    if multiclass and layout == "dense":
        raise ValueError("layout: 'dense' is implemented for the binary and regression "
                         "losses only; the multiclass losses run on CSR")


def _layout_of(layout, nnz, n: int, d: int, multiclass: bool) -> str:
    """The storage the SDCA epochs run on, "dense" or "csr", for an X of
    shape (n, d) with ``nnz`` non-zeros (a callable, called only for
    ``layout="auto"``; see :func:`sc_sdca`, parameter ``layout``)."""
    _check_layout(layout, multiclass)
    if multiclass:
        return "csr"
    if layout != "auto":
        return layout
    dense = nnz() >= DENSE_MIN_DENSITY * n * d and n * d <= DENSE_MAX_ENTRIES
    return "dense" if dense else "csr"


def _choose_layout(layout, Xc, multiclass: bool) -> str:
    """The storage the SDCA epochs run on for a CSR ``Xc``: "dense" or "csr"
    (see :func:`sc_sdca`, parameter ``layout``)."""
    n, d = Xc.shape
    return _layout_of(layout, lambda: Xc.nnz, n, d, multiclass)


class KernelForm(NamedTuple):
    """X in the form the SC-SDCA / SC-Pegasos kernels read (:func:`kernel_form`).

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix, shape (n, d')
        A C-contiguous float64 array (``layout="dense"``) or a float64 CSR
        matrix with int64 indices (``"csr"``); d' = d + 1 with a bias column.
    layout : str or None
        "dense", "csr", or None (CSR whose storage the solver chooses).
    sqnorm : ndarray of shape (n,) or None
        ||x_i||^2 of the rows of X (with the bias), or None.
    """

    X: np.ndarray | sp.csr_matrix
    layout: str | None
    sqnorm: np.ndarray | None


def kernel_form(X, *, bias: float = 0.0, layout: str = "auto",
                multiclass: bool = False) -> KernelForm:
    """X, validated, in the storage the kernels read, built in one copy.

    Issue 46 (item 4): a fit used to copy X four times in three forms (dense,
    CSR, CSR with the bias column, its CSR copy, a dense copy).  Here the
    form the epochs read is written once: a dense X with its bias column for
    ``layout="dense"`` (no copy at all for a C-contiguous X without bias), a
    CSR with the bias entries and int64 indices for ``"csr"`` (a CSR input
    without bias shares its ``data``).  The dense kernels sum the entries of
    a row in the order of a canonical CSR row's, so the two storages give the
    same numbers as before bit for bit.

    Parameters
    ----------
    X : ndarray of float64 or canonical scipy.sparse CSR, shape (n, d)
        Finite (as :func:`polyrank.validation.validate_X` returns it).
    bias : float, default=0.0
        If > 0, a column of this value is appended (LIBLINEAR's ``-B``).
    layout : {"auto", "dense", "csr"}, default="auto"
        As :func:`polyrank.sign.sc_sdca`'s (decided on X with the bias column).
    multiclass : bool, default=False
        The multiclass losses run on CSR only.

    Returns
    -------
    KernelForm

    Raises
    ------
    ValueError
        An unknown ``layout``, or "dense" with ``multiclass``.
    """
    n, d = X.shape
    extra = 1 if bias > 0 else 0
    nnz = (lambda: X.nnz) if sp.issparse(X) else (lambda: int(np.count_nonzero(X)))
    chosen = _layout_of(layout, lambda: nnz() + extra * n, n, d + extra, multiclass)
    if chosen == "dense":
        Xk = _dense_form(X, bias)
        return KernelForm(Xk, chosen, K.dense_sqnorms(Xk))
    Xc = _csr_form(X, bias)
    return KernelForm(Xc, chosen, K.row_sqnorms(Xc.indptr, Xc.data))


def _dense_form(X, bias: float) -> np.ndarray:
    """X (n, d) as a C-contiguous float64 array with the bias column (if
    ``bias > 0``): one copy of X, none for such an array without bias."""
    n, d = X.shape
    if not sp.issparse(X) and not bias > 0:
        return np.ascontiguousarray(X, dtype=np.float64)
    extra = 1 if bias > 0 else 0
    if sp.issparse(X):
        out = np.zeros((n, d + extra))
        K.csr_into_dense(X.indptr, X.indices, X.data, out)
    else:
        out = np.empty((n, d + extra))
        out[:, :d] = X
    if extra:
        out[:, d] = bias
    return out


def _csr_form(X, bias: float) -> sp.csr_matrix:
    """X (n, d) as a float64 CSR with int64 indices and, if ``bias > 0``, a
    last entry ``bias`` in column d of every row (as ``scipy.sparse.hstack``
    writes it): one copy of X (a CSR input without bias keeps its data)."""
    if not sp.issparse(X):
        Xc = sp.csr_matrix(X)
    elif bias > 0:
        Xc = X
    else:
        Xc = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape, copy=False)
    n, d = Xc.shape
    if not bias > 0:
        Xc.indptr = Xc.indptr.astype(np.int64, copy=False)
        Xc.indices = Xc.indices.astype(np.int64, copy=False)
        return Xc
    indptr = Xc.indptr.astype(np.int64) + np.arange(n + 1, dtype=np.int64)
    ends = indptr[1:] - 1                       # the bias entry closes each row
    data = np.empty(Xc.nnz + n)
    indices = np.empty(Xc.nnz + n, dtype=np.int64)
    kept = np.ones(Xc.nnz + n, dtype=bool)
    kept[ends] = False
    data[kept] = Xc.data
    indices[kept] = Xc.indices
    data[ends] = bias
    indices[ends] = d
    out = sp.csr_matrix((data, indices, indptr), shape=(n, d + 1), copy=False)
    out.indptr, out.indices = indptr, indices   # scipy may shrink them to int32
    return out
