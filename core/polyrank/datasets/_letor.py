"""LETOR / SVMlight learning-to-rank files, and the bundled LETOR 4.0 MQ2008
Fold1 (``large-scale-linear-ranksvm.txt``, Sec. 4.2, Table 2)."""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass

import numpy as np

from ._paths import data_path

__all__ = ["RankingData", "load_letor", "load_mq2008", "MQ2008_SHA256"]

#: SHA-256 of the bundled MQ2008 Fold1 files (see PROVENANCE.md); checked
#: by :func:`load_mq2008` before parsing.
MQ2008_SHA256 = {
    "train.txt": "9b98c14e9536f2a18c59670714c99defc63e74359c56cba219a61db248f27123",
    "vali.txt": "a239850bc6fe960ad08c2b7b0d99db90fe976dd93a15358e98036591b4e7a2ac",
    "test.txt": "c68c52feb1ecae7f17b64c8e2fda2098302681bbd4ea5fad8c73a1d32a1cf2b2",
}


def load_letor(path, n_features: int | None = None, dense: bool = False):
    """Read a LETOR / SVMlight ranking file ``<rel> qid:<q> <j>:<v> ... #...``.

    A thin wrapper of :func:`sklearn.datasets.load_svmlight_file` with
    ``query_id=True`` (1-based feature indices; trailing ``#`` comments
    ignored).

    Parameters
    ----------
    path : str or path-like
        The file.
    n_features : int, optional
        Number of features (default: the largest index in the file); give
        it to read train/validation/test files with equal widths.
    dense : bool, default False
        Return X as a dense ndarray instead of CSR.

    Returns
    -------
    X : scipy.sparse.csr_matrix or ndarray, shape (l, n_features)
    y : ndarray of float64, shape (l,)
        Relevance labels.
    qid : ndarray of int64, shape (l,)
        Query ids.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not in SVMlight format or lacks ``qid:``
        (scikit-learn's messages), or ``n_features`` is too small.
    """
    from sklearn.datasets import load_svmlight_file

    path = os.fspath(path)
    with open(path, "rb") as fh:
        first = next((ln for ln in fh if ln.strip() and not ln.lstrip().startswith(b"#")), b"")
    if first and b"qid:" not in first.split(b"#")[0]:
        raise ValueError(f"path: {path!r} has no qid: field on its first line "
                         "(not a ranking file)")
    X, y, qid = load_svmlight_file(path, n_features=n_features, query_id=True,
                                   dtype=np.float64)
    X = X.toarray() if dense else X.tocsr()
    return X, np.asarray(y, dtype=np.float64), np.asarray(qid, dtype=np.int64)


@dataclass
class RankingData:
    """A learning-to-rank train/validation/test split.

    Attributes
    ----------
    X_train, X_vali, X_test : ndarray, shape (l_split, n_features)
    y_train, y_vali, y_test : ndarray of float64, shape (l_split,)
        Relevance labels.
    qid_train, qid_vali, qid_test : ndarray of int64, shape (l_split,)
        Query ids (disjoint between splits).
    description : str
    """

    X_train: np.ndarray
    y_train: np.ndarray
    qid_train: np.ndarray
    X_vali: np.ndarray
    y_vali: np.ndarray
    qid_vali: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    qid_test: np.ndarray
    description: str


def load_mq2008(dense: bool = True) -> RankingData:
    """LETOR 4.0 MQ2008, Fold1 (train S1-S3, validation S4, test S5).

    46 features in [0, 1] (query-level normalised by LETOR), relevance 0, 1,
    2.  The files' SHA-256 sums are checked before parsing.

    Parameters
    ----------
    dense : bool, default True
        Dense X (the data are dense, n_bar = n = 46); False gives CSR.

    Returns
    -------
    RankingData
        train 9,630 x 46 (471 queries, 52,325 preference pairs), vali
        2,707 x 46 (157 queries), test 2,874 x 46 (156 queries).  The files
        are parsed once per process; every call returns fresh copies.

    Raises
    ------
    ValueError
        If a bundled file does not match its recorded SHA-256.

    Notes
    -----
    Source: T. Qin and T.-Y. Liu, "Introducing LETOR 4.0 Datasets",
    arXiv:1306.2597, 2013; the copy's provenance is in ``PROVENANCE.md``.
    Table 2 of ``large-scale-linear-ranksvm.txt`` lists the same training
    statistics (l = 9,630, |Q| = 471, p = 52,325).

    Examples
    --------
    >>> d = load_mq2008()
    >>> d.X_train.shape, np.unique(d.qid_test).size
    ((9630, 46), 156)
    """
    cached = _load_mq2008_cached(bool(dense))
    return RankingData(*[a.copy() for a in cached[:9]], cached[9])


@functools.lru_cache(maxsize=2)
def _load_mq2008_cached(dense: bool):
    """Parse (once per process) and return the arrays of :func:`load_mq2008`;
    callers receive copies."""
    parts = []
    for name in ("train.txt", "vali.txt", "test.txt"):
        p = data_path("MQ2008", name)
        digest = hashlib.sha256(p.read_bytes()).hexdigest()
        if digest != MQ2008_SHA256[name]:
            raise ValueError(f"MQ2008/{name}: SHA-256 {digest} differs from the "
                             f"recorded {MQ2008_SHA256[name]}")
        parts.append(load_letor(str(p), n_features=46, dense=dense))
    (Xtr, ytr, qtr), (Xva, yva, qva), (Xte, yte, qte) = parts
    return (Xtr, ytr, qtr, Xva, yva, qva, Xte, yte, qte,
            "LETOR 4.0 MQ2008 Fold1 (Qin & Liu 2013): 46 features, "
            "relevance 0/1/2; train S1-S3, vali S4, test S5")
