"""Zero-shot conditions on a multi-label data set (``m3l-multilabel-zero-shot.txt``,
Sec. 7.2), as :mod:`polyrank_paper` and the ``CorrelationSlider`` use
them: training subsets whose label correlations differ from the test split's,
the label pair of Fig. 5, and M3L's test loss against the prior's correlation r.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.metrics import hamming_loss

from ..datasets import load_yeast
from ..validation import check_int, check_positive
from .estimator import M3LClassifier
from .priors import two_label_prior

__all__ = ["correlated_pair_subset", "shifted_subset", "fig5_pair", "fig5_curve", "fig5_setup"]


def _corr(Y, a, b) -> float:
    y = np.asarray(Y, dtype=float)
    return float(np.corrcoef(y[:, a], y[:, b])[0, 1])


def correlated_pair_subset(Y, a: int, b: int, n: int, rho: float, rng) -> np.ndarray:
    """Indices of ``n`` rows of Y whose labels a and b have correlation
    close to ``rho``, keeping the marginals of a and b.

    The four label combinations (11, 10, 01, 00) get the quotas of the
    2x2 table with Y's marginals p_a, p_b and P(11) = p_a p_b + rho
    sqrt(p_a (1 - p_a) p_b (1 - p_b)) (clipped to a valid table); each
    quota is drawn without replacement from the rows with that
    combination (all of them if there are fewer).

    Parameters
    ----------
    Y : array_like, shape (N, L), 0/1
    a, b : int
        Label columns.
    n : int
        Subset size (>= 4).
    rho : float in [-1, 1]
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, sorted, length <= n

    Raises
    ------
    ValueError
        Bad label indices, n < 4 or |rho| > 1.
    """
    Y = np.asarray(Y)
    n = check_int(n, "n", minimum=4)
    if not -1.0 <= rho <= 1.0:
        raise ValueError(f"rho: expected -1 <= rho <= 1, got {rho}")
    for name, v in (("a", a), ("b", b)):
        if not 0 <= v < Y.shape[1]:
            raise ValueError(f"{name}: expected a label index in [0, {Y.shape[1]}), got {v}")
    if a == b:
        raise ValueError("a, b: expected two different labels")
    pa, pb = Y[:, a].mean(), Y[:, b].mean()
    p11 = pa * pb + rho * np.sqrt(pa * (1 - pa) * pb * (1 - pb))
    P = np.clip([p11, pa - p11, pb - p11, 1 - pa - pb + p11], 0.0, None)
    P = P / P.sum()
    counts = np.floor(P * n).astype(int)
    counts[np.argmax(P * n - counts)] += n - counts.sum()
    parts = []
    for (u, v), c in zip(((1, 1), (1, 0), (0, 1), (0, 0)), counts):
        pool = np.flatnonzero((Y[:, a] == u) & (Y[:, b] == v))
        parts.append(rng.choice(pool, size=min(c, pool.size), replace=False))
    return np.sort(np.concatenate(parts))


def shifted_subset(Y, Y_ref, n: int, beta: float, rng) -> np.ndarray:
    """Indices of ``n`` rows of Y sampled so that their label correlations
    differ from those of ``Y_ref`` (the Table 3 protocol of Sec. 7.2.2: "we
    sample the original training set to create a new training subset which
    has different label correlations than the provided test set").

    Row i is drawn (without replacement) with probability proportional to
    exp(-beta / 2 sum_{a != b} rho_ab y_ia y_ib), y in {-1, +1} and rho the
    label correlation matrix of ``Y_ref``: label combinations typical of
    ``Y_ref`` are under-sampled, atypical ones over-sampled.

    Parameters
    ----------
    Y : array_like, shape (N, L), 0/1
    Y_ref : array_like, shape (M, L), 0/1
    n : int
    beta : float >= 0 (0: a uniform sample)
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, sorted, length n
    """
    Y = np.asarray(Y, dtype=float)
    n = check_int(n, "n", minimum=1)
    beta = check_positive(beta, "beta", strict=False)
    if n > Y.shape[0]:
        raise ValueError(f"n: expected at most {Y.shape[0]} rows, got {n}")
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.nan_to_num(np.corrcoef(np.asarray(Y_ref, dtype=float).T))
    np.fill_diagonal(rho, 0.0)
    S = 2 * Y - 1
    score = 0.5 * np.einsum("ia,ab,ib->i", S, rho, S)
    w = np.exp(-beta * (score - score.max()))
    return np.sort(rng.choice(Y.shape[0], size=n, replace=False, p=w / w.sum()))


def fig5_pair(Y_train, Y_test, min_prevalence: float = 0.2) -> tuple[int, int]:
    """The label pair of the Fig. 5 experiment on a data set: the pair with
    the most negative test correlation among labels whose training
    prevalence lies in [min_prevalence, 1 - min_prevalence] (so a subset
    with the opposite correlation can be sampled), like the paper's "has
    black" / "is weak" pair (-0.76 on the AwA test classes).

    Returns
    -------
    (a, b) : tuple of int, a < b

    Examples
    --------
    >>> from polyrank.datasets import load_yeast
    >>> d = load_yeast()
    >>> a, b = fig5_pair(d.Y_train, d.Y_test)
    >>> d.label_names[a], d.label_names[b]
    ('Class2', 'Class4')
    """
    Ytr = np.asarray(Y_train, dtype=float)
    p = Ytr.mean(axis=0)
    ok = np.flatnonzero((p >= min_prevalence) & (p <= 1 - min_prevalence))
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.corrcoef(np.asarray(Y_test, dtype=float).T)
    best = None
    for i, a in enumerate(ok):
        for b in ok[i + 1:]:
            if np.isfinite(C[a, b]) and (best is None or C[a, b] < best[0]):
                best = (C[a, b], int(a), int(b))
    if best is None:
        raise ValueError("Y_train: no two labels with prevalence in the allowed range")
    return best[1], best[2]


def fig5_curve(X, Y2, X_test, Y2_test, rs: Sequence[float], *, kernel: str = "rbf",
               C: float = 1.0, gamma=1.0, tol: float = 1e-3, bias: float = 1.0,
               warm_start: bool = True, bar=None) -> np.ndarray:
    """Test Hamming loss (%) of M3L with R = [[1, r], [r, 1]] for each r
    (Fig. 5), refitting with a warm start from the previous r.

    Parameters
    ----------
    X, Y2 : training points (N, D) and their two labels (N, 2), 0/1
    X_test, Y2_test : test points and labels
    rs : sequence of float in (-1, 1)
    kernel, C, gamma, tol, bias : M3LClassifier settings

    Returns
    -------
    ndarray, shape (len(rs),)
    """
    model = M3LClassifier(C=C, kernel=kernel, gamma=gamma, tol=tol, bias=bias,
                          warm_start=warm_start, random_state=0)
    out = []
    for r in rs:
        model.set_params(R=two_label_prior(float(r)))
        model.fit(X, Y2)
        out.append(100.0 * hamming_loss(Y2_test, model.predict(X_test)))
        if bar is not None:
            bar.update()
    return np.array(out)


def fig5_setup(n_train: int = 200, rho_train: float = 0.6, seed: int = 0) -> dict:
    """The data of the ``m3l-fig5`` experiment: yeast, the pair of
    :func:`fig5_pair`, and a training subset of ``n_train`` points whose
    correlation of the pair is close to ``-sign(test correlation) *
    rho_train`` (:func:`correlated_pair_subset`).

    Returns
    -------
    dict
        ``X``, ``Y2`` (training subset, two labels), ``X_test``,
        ``Y2_test``, ``pair`` (indices), ``names``, ``train_corr``,
        ``test_corr``, ``full_train_corr``, ``index`` (rows of the subset).
    """
    d = load_yeast()
    a, b = fig5_pair(d.Y_train, d.Y_test)
    test_corr = _corr(d.Y_test, a, b)
    rng = np.random.default_rng(seed)
    idx = correlated_pair_subset(d.Y_train, a, b, n_train,
                                 -np.sign(test_corr) * rho_train, rng)
    Y2 = d.Y_train[idx][:, [a, b]]
    return {"X": d.X_train[idx], "Y2": Y2, "X_test": d.X_test,
            "Y2_test": d.Y_test[:, [a, b]], "pair": (a, b),
            "names": (d.label_names[a], d.label_names[b]),
            "train_corr": _corr(Y2, 0, 1), "test_corr": test_corr,
            "full_train_corr": _corr(d.Y_train, a, b), "index": idx}
