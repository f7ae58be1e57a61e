"""The one check of sample weights (see :mod:`polyrank.validation`)."""

from __future__ import annotations

import numbers
from typing import overload

import numpy as np
from numpy.typing import ArrayLike

from ._arrays import check_int

__all__ = ["check_sample_weight"]


@overload
def check_sample_weight(sample_weight: None, X) -> None: ...


@overload
def check_sample_weight(sample_weight: ArrayLike, X) -> np.ndarray: ...


def check_sample_weight(sample_weight, X):
    """The one check of sample (document, example) weights: one
    non-negative finite weight per row of X, not all zero; a scalar is
    broadcast (scikit-learn's ``_check_sample_weight``, with messages that
    start with the argument's name).

    Parameters
    ----------
    sample_weight : array_like of shape (n_samples,), float, or None
        None: no weights (the solvers' unweighted path).
    X : array_like or sparse matrix of shape (n_samples, n_features), or int
        The rows the weights belong to, or their number.

    Returns
    -------
    ndarray of float64, shape (n_samples,), or None
        C-contiguous; None for ``sample_weight=None``.

    Raises
    ------
    TypeError
        ``"sample_weight: ..."``: not real numbers (strings, objects).
    ValueError
        ``"sample_weight: ..."``: not 1-d, the wrong length, negative, NaN
        or infinite weights, or all weights zero.

    Examples
    --------
    >>> check_sample_weight([1, 2], np.zeros((3, 1)))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sample_weight: expected one weight per row of X (shape (3,)), got shape (2,)
    >>> check_sample_weight(2, 3).tolist(), check_sample_weight(None, 3)
    ([2.0, 2.0, 2.0], None)
    """
    from sklearn.utils.validation import _check_sample_weight

    if sample_weight is None:
        return None
    rows = X if hasattr(X, "shape") else np.empty((check_int(X, "X", minimum=0), 0))
    n = rows.shape[0]
    if not isinstance(sample_weight, numbers.Number):
        sample_weight = np.asarray(sample_weight)     # array-likes without __array_function__
        if sample_weight.dtype == object or sample_weight.dtype.kind not in "biuf":
            raise TypeError(f"sample_weight: expected real numbers, got dtype "
                            f"{sample_weight.dtype}")
        if sample_weight.ndim == 1 and sample_weight.shape[0] != n:
            raise ValueError(f"sample_weight: expected one weight per row of X "
                             f"(shape ({n},)), got shape {sample_weight.shape}")
    try:
        return _check_sample_weight(sample_weight, rows, dtype=np.float64,
                                    ensure_non_negative=True)
    except ValueError as exc:
        text = str(exc)
        raise ValueError(text if text.startswith("sample_weight") else
                         f"sample_weight: {text}") from None
