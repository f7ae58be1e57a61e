"""Loader of the bundled UCI Wine Quality (red) data set."""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass

import numpy as np

from ._paths import data_path

__all__ = ["OrdinalData", "load_winequality_red", "WINEQUALITY_RED_SHA256"]

#: SHA-256 of ``data/winequality/winequality-red.csv`` (see PROVENANCE.md)
WINEQUALITY_RED_SHA256 = "4a402cf041b025d4566d954c3b9ba8635a3a8a01e039005d97d6a710278cf05e"


@dataclass
class OrdinalData:
    """An ordinal regression data set.

    Attributes
    ----------
    X : ndarray, shape (n, n_features)
    quality : ndarray of int64, shape (n,)
        The original integer target (wine: 3..8).
    labels : ndarray of int64, shape (n,)
        ``quality - quality.min()``: labels 0..l as the ordinal solvers of
        :mod:`polyrank.ordinal` expect (wine: 0..5).
    feature_names : list of str
    description : str
    """

    X: np.ndarray
    quality: np.ndarray
    labels: np.ndarray
    feature_names: list
    description: str


def load_winequality_red() -> OrdinalData:
    """The UCI Wine Quality data set, red Vinho Verde: 1,599 wines, 11
    physico-chemical attributes, quality scores 3..8.

    The file is a byte-for-byte copy of the UCI original
    (``;``-separated, one header line); its SHA-256 is checked.

    Returns
    -------
    OrdinalData
        X (1599, 11) in the file's column order (``fixed acidity`` ..
        ``alcohol``), quality (1599,) with counts 3:10, 4:53, 5:681, 6:638,
        7:199, 8:18, labels = quality - 3.

    Raises
    ------
    ValueError
        If the bundled file does not have the recorded SHA-256.

    Notes
    -----
    Source: UCI Machine Learning Repository, "Wine Quality"; cite P. Cortez,
    A. Cerdeira, F. Almeida, T. Matos and J. Reis, "Modeling wine
    preferences by data mining from physicochemical properties", Decision
    Support Systems 47(4):547-553, 2009.  See ``PROVENANCE.md``.

    Examples
    --------
    >>> d = load_winequality_red()
    >>> d.X.shape, int(d.labels.max()), d.feature_names[10]
    ((1599, 11), 5, 'alcohol')
    """
    raw = data_path("winequality", "winequality-red.csv").read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != WINEQUALITY_RED_SHA256:
        raise ValueError(f"winequality-red.csv: SHA-256 {digest} differs from the "
                         f"recorded {WINEQUALITY_RED_SHA256}; the file was altered")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8")), delimiter=";"))
    header, body = rows[0], rows[1:]
    table = np.array(body, dtype=np.float64)
    quality = table[:, -1].astype(np.int64)
    return OrdinalData(X=np.ascontiguousarray(table[:, :-1]), quality=quality,
                       labels=quality - quality.min(), feature_names=header[:-1],
                       description="UCI Wine Quality, red (Cortez et al. 2009): 1599 wines, "
                                   "11 attributes, quality 3..8 as labels 0..5")
