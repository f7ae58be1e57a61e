"""What the reproductions of ``sign-constrained-sdca-pegasos.txt`` share: the
data of Fig. 2 and the sign vector of the convergence experiment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from polyrank.datasets import load_phishing, load_w8a

from ..labels import FIG2_DATA  # noqa: F401  (re-exported: the experiments' name)
from ..registry import SourceInfo

__all__ = ["correlation_signs", "FIG2_DATA", "FIG2_PAPER_ORDER", "SignDataInfo"]


_PAPER = "Kato, Kobayashi & Sano, sign-constrained SDCA/Pegasos"


@dataclass(frozen=True)
class SignDataInfo(SourceInfo):
    """The first fields of the summaries of ``sign-convergence`` and
    ``sign-small-sample``: those of
    :class:`~polyrank_paper.registry.SourceInfo`, then the data.

    Attributes
    ----------
    data : str
        The data set (and its subsample).
    """

    data: str


def correlation_signs(X, y) -> np.ndarray:
    """c_h = sign of the empirical covariance of feature h with y (0 where it
    is 0).  Used as the sign vector of the convergence experiment, whose
    subject is the optimiser, not generalisation (the paper does not state
    the signs of Fig. 2)."""
    yc = np.asarray(y, dtype=float) - np.mean(y)
    return np.sign(np.asarray(X.T @ yc).ravel())


#: the paper's reading of each panel of Fig. 2 (Sec. 6.2)
FIG2_PAPER_ORDER = {"w8a": "SC-SDCA faster than SC-Pega",
                    "phishing": "SC-Pega faster than SC-SDCA (the exception)"}


def _fig2_data(dataset: str, quick: bool, n_sub: int | None, seed: int):
    if dataset not in FIG2_DATA:
        raise ValueError(f"dataset: expected one of {sorted(FIG2_DATA)}, got {dataset!r}")
    X, y = load_phishing() if dataset == "phishing" else load_w8a()
    n = X.shape[0]
    if n_sub is None and quick:
        n_sub = 2000
    if n_sub is not None and n_sub < n:
        idx = np.sort(np.random.default_rng(seed).choice(n, size=n_sub, replace=False))
        X, y = X[idx], y[idx]
    return X, y
