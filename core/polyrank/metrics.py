"""Evaluation metrics of the papers that scikit-learn does not provide.

Each block below belongs to one paper; ROC AUC and the other standard
metrics come from :mod:`sklearn.metrics`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["prbep"]


# ------------------------------------------------------------------ PRBEP
# sign-constrained-sdca-pegasos.txt, Sec. 6.1 (Joachims, ICML 2005)

def prbep(y_true, scores) -> float:
    """Precision-recall break-even point of a scoring.

    Ranks the examples by decreasing score and returns the precision of the
    top p, where p is the number of positives; there precision equals
    recall (Joachims, "A support vector method for multivariate performance
    measures", ICML 2005), the measure reported with the ROC score in
    Sec. 6.1 (Fig. 1) of ``sign-constrained-sdca-pegasos.txt``.  Scores tied
    at the cut-off count with their expected value under a random order of
    the tie (so the result does not depend on how ties are broken).

    Parameters
    ----------
    y_true : array_like, shape (n,)
        Binary labels: positives are ``y_true > 0`` (so {0, 1} and {-1, +1}
        both work).
    scores : array_like, shape (n,)
        Real scores, larger meaning more likely positive.

    Returns
    -------
    float in [0, 1]

    Raises
    ------
    ValueError
        If the shapes differ, an input is empty or not finite, or there is
        no positive example.

    Examples
    --------
    >>> prbep([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])
    0.5
    >>> prbep([1, 0, 1, 0], [0.9, 0.1, 0.7, 0.1])
    1.0
    """
    y = np.asarray(y_true)
    s = np.asarray(scores, dtype=np.float64)
    if y.ndim != 1 or s.shape != y.shape:
        raise ValueError(f"y_true, scores: expected two 1-d arrays of equal length, "
                         f"got shapes {y.shape} and {s.shape}")
    if y.size == 0:
        raise ValueError("y_true: must not be empty")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores: contains NaN or infinity")
    pos = np.asarray(y > 0)
    p = int(pos.sum())
    if p == 0:
        raise ValueError("y_true: PRBEP needs at least one positive example")
    t = np.sort(s)[::-1][p - 1]                 # the p-th largest score
    above = s > t
    tied = s == t
    k = int(above.sum())
    n_tied = int(tied.sum())
    hits = float(pos[above].sum()) + pos[tied].sum() * (p - k) / n_tied
    return float(hits / p)
