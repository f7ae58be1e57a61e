"""The random instances S.n.q and NS.n.q of Sec. 10 and the average rank
loss of Table 2 (``row-column-generation-ordinal.txt``)."""

from __future__ import annotations

import numpy as np

from ..validation import check_int, check_positive

__all__ = ["make_instance", "instance_name", "rank_loss", "PAPER_THRESHOLDS"]

#: The fixed thresholds (p_1, p_2, p_3) of the generator (Sec. 10); p_0 = -inf.
PAPER_THRESHOLDS = (0.5, 1.0, 1.5)


def instance_name(n: int, q: int, separable: bool) -> str:
    """The paper's name of an instance, e.g. ``"S.500.3"`` or ``"NS.100.1"``.

    Examples
    --------
    >>> instance_name(500, 3, False)
    'NS.500.3'
    """
    return f"{'S' if separable else 'NS'}.{n}.{q}"


def make_instance(n: int, q: int = 1, *, separable: bool = True,
                  noise_sd: float = 0.03, seed: int = 0):
    """Generate the instance S.n.q (``separable=True``) or NS.n.q (Sec. 10).

    x^i = (x_1, x_2) uniform on [0, 1]^2; the label is l_i = max {l in L |
    s_i > p_l} with (p_0, p_1, p_2, p_3) = (-inf, 0.5, 1.0, 1.5) and s_i =
    x_1 + x_2 (separable) or s_i = x_1 + e_1 + x_2 + e_2 with e ~ N(0,
    noise_sd^2) (non-separable: labels given by the perturbed attributes,
    the unperturbed x is returned).  Labels 0..3.

    The paper does not say what happens when a label gets no object (likely
    only for n < 50); our solvers need every label (Sec. 3.1), so such a
    draw is repeated with the same generator until all four labels occur.

    Parameters
    ----------
    n : int
        Number of objects (>= 4).
    q : int
        Data set id (>= 1); the draw depends on (seed, n, q, separable).
    separable : bool
        S (True) or NS (False).
    noise_sd : float
        Standard deviation of the noise of NS (the paper: 0.03).
    seed : int
        Base seed.

    Returns
    -------
    (ndarray (n, 2), ndarray of int64 (n,))
        X and the labels.

    Raises
    ------
    ValueError
        If n < 4, q < 1 or noise_sd <= 0.

    Examples
    --------
    >>> X, y = make_instance(100, 1)
    >>> X.shape, sorted(set(y.tolist()))
    ((100, 2), [0, 1, 2, 3])
    """
    n = check_int(n, "n", minimum=4)
    q = check_int(q, "q", minimum=1)
    noise_sd = check_positive(noise_sd, "noise_sd")
    seed = check_int(seed, "seed", minimum=0)
    rng = np.random.default_rng([seed, n, q, int(separable)])
    p = np.asarray(PAPER_THRESHOLDS)
    while True:
        X = rng.uniform(0.0, 1.0, size=(n, 2))
        s = X.sum(axis=1)
        if not separable:
            s = s + rng.normal(0.0, noise_sd, size=(n, 2)).sum(axis=1)
        labels = np.searchsorted(p, s, side="left").astype(np.int64)
        if np.unique(labels).size == p.size + 1:
            return X, labels


def rank_loss(labels, predicted) -> float:
    """The average rank loss (1/n) sum_i |l^_i - l_i| of Table 2 (Sec. 10).

    Raises
    ------
    ValueError
        If the lengths differ or are zero.

    Examples
    --------
    >>> rank_loss([0, 1, 2], [0, 2, 0])
    1.0
    """
    a = np.asarray(labels, dtype=np.float64)
    b = np.asarray(predicted, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(f"labels, predicted: expected two non-empty 1-d arrays of "
                         f"equal length, got shapes {a.shape} and {b.shape}")
    return float(np.mean(np.abs(a - b)))
