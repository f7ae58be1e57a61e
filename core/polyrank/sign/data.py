"""The data of the sign-constrained solvers: input checks and the form
the kernels read (SC-SDCA, SC-Pegasos; ``sign-constrained-sdca-pegasos.txt``).

:func:`prepare_data` validates (the public solvers' path), :func:`trusted_data`
converts input a caller validated already (the estimators' path: validate
once, ``CONTRIBUTING.md``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..validation import check_design, check_signs
from .losses import BINARY_LOSSES, get_loss

__all__ = ['prepare_data', 'trusted_data', 'DENSE_MIN_DENSITY', 'DENSE_MAX_ENTRIES']

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


def prepare_data(X, y, loss: str, signs, top_k: int = 1, sample_weight=None):
    """Validate and convert the inputs shared by :func:`sc_sdca` and
    :func:`sc_pegasos`.

    Returns
    -------
    dict
        ``X`` (CSR, float64, int64 indices), ``y`` (float64 (n,), or int64
        class indices), ``code``, ``multiclass``, ``m`` (classes or None),
        ``c`` (signs, (d,) or (d, m)), ``sw`` (example weights (n,) scaled
        to mean 1; ones without ``sample_weight``).

    Raises
    ------
    TypeError, ValueError
        See :func:`sc_sdca`.
    """
    code, multiclass = get_loss(loss, top_k)
    Xc = _as_csr(X)
    n, d = Xc.shape
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
    return {"X": Xc, "y": y, "code": code, "multiclass": multiclass, "m": m, "c": c,
            "sw": sw}


def trusted_data(X, y, loss: str, signs, top_k: int = 1, sample_weight=None):
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
    Xc = _to_csr(X)
    n = Xc.shape[0]
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
    return {"X": Xc, "y": y, "code": code, "multiclass": multiclass, "m": m, "c": signs,
            "sw": sw}


def _csr(Xc):
    return Xc.indptr, Xc.indices, Xc.data

#: ``layout="auto"`` of :func:`sc_sdca` copies X to a dense array when at
#: least this fraction of its entries is non-zero ...
DENSE_MIN_DENSITY = 0.25
#: ... and the copy has at most this many entries (2^25: 256 MiB of float64)
DENSE_MAX_ENTRIES = 2 ** 25


def _choose_layout(layout, Xc, multiclass: bool) -> str:
    """The storage the SDCA epochs run on: "dense" or "csr" (see
    :func:`sc_sdca`, parameter ``layout``)."""
    if not isinstance(layout, str) or layout not in ("auto", "dense", "csr"):
        raise ValueError(f"layout: expected 'auto', 'dense' or 'csr', got {layout!r}")
    if multiclass:
        if layout == "dense":
            raise ValueError("layout: 'dense' is implemented for the binary and regression "
                             "losses only; the multiclass losses run on CSR")
        return "csr"
    if layout != "auto":
        return layout
    n, d = Xc.shape
    dense = Xc.nnz >= DENSE_MIN_DENSITY * n * d and n * d <= DENSE_MAX_ENTRIES
    return "dense" if dense else "csr"
