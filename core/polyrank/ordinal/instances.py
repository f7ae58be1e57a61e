"""The random instances S.n.q and NS.n.q of Sec. 10 and the average rank
loss of Table 2 (``row-column-generation-ordinal.txt``), and overlapping
grades with the frequencies of real wine ratings (:func:`make_overlapping`)."""

from __future__ import annotations

import numpy as np

from ..validation import check_int, check_positive

__all__ = ["make_instance", "make_overlapping", "instance_name", "rank_loss",
           "PAPER_THRESHOLDS", "WHITE_WINE_GRADES"]

#: The fixed thresholds (p_1, p_2, p_3) of the generator (Sec. 10); p_0 = -inf.
PAPER_THRESHOLDS = (0.5, 1.0, 1.5)


#: Objects per grade of the UCI white wine quality data (quality 3..9; P.
#: Cortez et al., Decision Support Systems 47(4), 2009): 4,898 wines in 7
#: overlapping grades, two of them rare.
WHITE_WINE_GRADES = (20, 163, 1457, 2198, 880, 175, 5)


def make_overlapping(n: int = 4898, n_features: int = 11, *, signal: float = 0.6,
                     counts=WHITE_WINE_GRADES, seed: int = 0):
    """Overlapping grades: a latent score with noise cut at quantiles.

    x ~ N(0, I) in ``n_features`` dimensions, z = signal (x . beta) + e with
    beta a random unit vector and e ~ N(0, 1), and the grade of z among the
    quantiles of z that give the grades the relative frequencies ``counts``
    (by default those of white wine).  With ``signal`` <= 0.6 the grades
    overlap so much that the paper's soft margin problem (S) has the optimum
    w = 0 (every object in one grade), while an all-threshold model (SVOR)
    still ranks: the stand-in of ``polyrank bench ordinal-wine`` for white
    wine, which is not bundled.

    Parameters
    ----------
    n, n_features : int
        Objects and features (>= 1).
    signal : float
        Weight of the linear part against the unit noise (> 0).
    counts : sequence of int
        Relative frequencies of the grades 0..l (at least 2, each > 0).
    seed : int

    Returns
    -------
    (ndarray (n, n_features), ndarray of int64 (n,))
        X and the grades 0..l (every grade used when n is large enough;
        a grade may be empty for small n).

    Raises
    ------
    ValueError
        n < 1, n_features < 1, signal <= 0, fewer than 2 counts or a
        count <= 0.

    Examples
    --------
    >>> X, y = make_overlapping(1000, seed=1)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 11), [0, 1, 2, 3, 4, 5, 6])
    """
    n = check_int(n, "n", minimum=1)
    n_features = check_int(n_features, "n_features", minimum=1)
    signal = check_positive(signal, "signal")
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 1 or counts.size < 2 or np.any(counts <= 0):
        raise ValueError(f"counts: expected at least 2 positive frequencies, got {counts}")
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    beta = rng.normal(size=n_features)
    beta /= np.linalg.norm(beta)
    z = signal * (X @ beta) + rng.normal(size=n)
    cuts = np.quantile(z, np.cumsum(counts)[:-1] / counts.sum())
    return X, np.searchsorted(cuts, z).astype(np.int64)


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
