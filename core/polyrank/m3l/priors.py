"""Label-correlation priors R for M3L and their validation.

Source: ``m3l-multilabel-zero-shot.txt``, Sec. 3 (R = P'P, a symmetric
positive-definite matrix, dense and possibly negative, Eq. 9-14),
Sec. 7.1.1 (Fig. 5: R = [[1, r], [r, 1]]), Sec. 7.2.1 (R = sum_c p(c)
y_c y_c' from the attribute vectors of the test classes) and Sec. 7.2.2
(R estimated from training data not used to train).
"""

from __future__ import annotations

import numpy as np

from ..validation import as_float_array, check_positive, dense_targets

__all__ = ["check_R", "prior_from_classes", "empirical_prior", "two_label_prior",
           "labels_pm1"]


def labels_pm1(Y, name: str = "Y") -> np.ndarray:
    """Return a label matrix as float64 in {-1, +1}.

    Parameters
    ----------
    Y : array_like, shape (N, L)
        Entries all in {0, 1} or all in {-1, +1} (bool accepted).

    Returns
    -------
    ndarray, shape (N, L)

    Raises
    ------
    ValueError
        If ``Y`` is not 2-d, is empty, has NaN, or mixes other values
        (e.g. 0 and -1 together, or 0.5).
    TypeError
        If ``Y`` is not numeric.

    Examples
    --------
    >>> labels_pm1([[0, 1], [1, 1]]).tolist()
    [[-1.0, 1.0], [1.0, 1.0]]
    """
    Y = as_float_array(dense_targets(Y, name), name, ndim=2)
    values = set(np.unique(Y).tolist())
    if values <= {0.0, 1.0}:
        return 2.0 * Y - 1.0
    if values <= {-1.0, 1.0}:
        return Y.copy()
    raise ValueError(f"{name}: expected labels all in {{0, 1}} or all in {{-1, +1}}, "
                     f"got values {sorted(values)[:6]}")


def check_R(R, L: int | None = None, ridge: float = 0.0, name: str = "R") -> np.ndarray:
    """Validate a label-correlation prior and return it (plus ``ridge * I``).

    M3L needs R symmetric positive definite (Sec. 3: R = P'P with P
    invertible; Appendix B: the dual is then strictly convex). Dense
    matrices with negative entries are allowed. Nothing is repaired
    silently: a matrix that is not positive definite is an error unless an
    explicit ``ridge`` makes it so.

    Parameters
    ----------
    R : array_like, shape (L, L)
    L : int, optional
        Required number of labels.
    ridge : float, default 0
        Added to the diagonal before the check (>= 0).

    Returns
    -------
    ndarray, shape (L, L)
        ``R + ridge * I`` as float64 (exactly symmetrised by averaging with
        its transpose after the symmetry check).

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, not symmetric (relative 1e-10), or smallest
        eigenvalue <= 1e-10 times the largest magnitude (the message gives
        the eigenvalue and suggests ``ridge``).
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> check_R([[1.0, -0.5], [-0.5, 1.0]]).tolist()
    [[1.0, -0.5], [-0.5, 1.0]]
    """
    R = as_float_array(R, name, ndim=2)
    if R.shape[0] != R.shape[1]:
        raise ValueError(f"{name}: expected a square (L, L) matrix, got shape {R.shape}")
    if L is not None and R.shape[0] != L:
        raise ValueError(f"{name}: expected shape ({L}, {L}) (one row and column per "
                         f"label), got {R.shape}")
    ridge = check_positive(ridge, "ridge", strict=False)
    scale = max(float(np.abs(R).max()), 1e-300)
    asym = float(np.abs(R - R.T).max())
    if asym > 1e-10 * scale:
        raise ValueError(f"{name}: expected a symmetric matrix, max |R - R'| = {asym:.3g}")
    R = 0.5 * (R + R.T) + ridge * np.eye(R.shape[0])
    eig = np.linalg.eigvalsh(R)
    if eig[0] <= 1e-10 * max(float(np.abs(eig).max()), 1e-300):
        raise ValueError(f"{name}: expected a positive-definite matrix, smallest "
                         f"eigenvalue {eig[0]:.3g}; pass ridge > 0 to add ridge * I "
                         "explicitly")
    return R


def two_label_prior(r: float) -> np.ndarray:
    """R = [[1, r], [r, 1]] of Fig. 5 (Sec. 7.2.1).

    Parameters
    ----------
    r : float in (-1, 1)
        Classifier correlation; R is positive definite exactly for |r| < 1.

    Returns
    -------
    ndarray, shape (2, 2)

    Raises
    ------
    ValueError
        If r is not finite or |r| >= 1.

    Examples
    --------
    >>> two_label_prior(-0.5).tolist()
    [[1.0, -0.5], [-0.5, 1.0]]
    """
    if isinstance(r, bool) or not isinstance(r, (int, float, np.integer, np.floating)):
        raise TypeError(f"r: expected a real number, got {type(r).__name__}")
    r = float(r)
    if not np.isfinite(r) or not -1.0 < r < 1.0:
        raise ValueError(f"r: expected -1 < r < 1 (R positive definite), got {r}")
    return np.array([[1.0, r], [r, 1.0]])


def prior_from_classes(class_attributes, class_probs=None, ridge: float = 0.0) -> np.ndarray:
    """R = sum_c p(c) y_c y_c' from the attribute vectors of the test classes
    (Sec. 7.2.1, also Sec. 7.2.2 for fMRI-Words).

    Parameters
    ----------
    class_attributes : array_like, shape (n_classes, L)
        Attribute (label) vector y_c of every class, in {0, 1} or {-1, +1}
        (0/1 become -1/+1).
    class_probs : array_like, shape (n_classes,), optional
        p(c) >= 0 summing to 1 (relative 1e-8); default uniform.
    ridge : float, default 0
        Added to the diagonal. With fewer classes than labels R has rank
        <= n_classes and is only positive semi-definite; M3L then needs an
        explicit ridge (:func:`check_R`). The result is not checked here, so
        the raw prior can be inspected (e.g. drawn as a heat map).

    Returns
    -------
    ndarray, shape (L, L)
        Symmetric, unit diagonal (plus ridge) for {-1, +1} attributes.

    Raises
    ------
    ValueError
        Bad shapes, values other than {0, 1} / {-1, +1}, negative
        probabilities or probabilities not summing to 1.

    Examples
    --------
    >>> prior_from_classes([[1, 1], [0, 1]]).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    Yc = labels_pm1(class_attributes, "class_attributes")
    n = Yc.shape[0]
    if class_probs is None:
        p = np.full(n, 1.0 / n)
    else:
        p = as_float_array(class_probs, "class_probs", ndim=1)
        if p.shape[0] != n:
            raise ValueError(f"class_probs: expected length {n} (one per class), got "
                             f"{p.shape[0]}")
        if np.any(p < 0) or abs(p.sum() - 1.0) > 1e-8:
            raise ValueError("class_probs: expected non-negative probabilities summing "
                             f"to 1, got sum {p.sum():.6g}, min {p.min():.3g}")
    ridge = check_positive(ridge, "ridge", strict=False)
    return (Yc * p[:, None]).T @ Yc + ridge * np.eye(Yc.shape[1])


def empirical_prior(Y, ridge: float = 0.0) -> np.ndarray:
    """The empirical prior R = (1/n) sum_i y_i y_i' of a label matrix, i.e.
    :func:`prior_from_classes` with every example its own class of
    probability 1/n (Sec. 7.2.2: "the remainder of the original training
    points are used only to estimate the R matrix").

    Parameters
    ----------
    Y : array_like, shape (n, L)
        Labels in {0, 1} or {-1, +1}.
    ridge : float, default 0

    Returns
    -------
    ndarray, shape (L, L)
        Unit diagonal (plus ridge); not checked for definiteness.

    Raises
    ------
    ValueError
        See :func:`labels_pm1`.

    Examples
    --------
    >>> empirical_prior([[1, 1], [0, 0], [1, 0], [0, 1]]).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    Y = labels_pm1(Y)
    ridge = check_positive(ridge, "ridge", strict=False)
    return Y.T @ Y / Y.shape[0] + ridge * np.eye(Y.shape[1])
