"""Loader of the LIBSVM "phishing" binary classification data set."""

from __future__ import annotations

from ._paths import _binary_svmlight, data_path

__all__ = ["load_phishing", "PHISHING_SHA256"]

#: SHA-256 of the bundled file (``PROVENANCE.md``), checked by the loader
PHISHING_SHA256 = "0b0ca40e17bc95e909bfa587c408bf69904571ace01dea26e34cafc464f2da93"


def load_phishing():
    """The LIBSVM "phishing" data set (UCI Phishing Websites), as used in
    Fig. 2 (c) of ``sign-constrained-sdca-pegasos.txt`` (Sec. 6.2).

    11,055 web sites, 68 binary indicators (the 30 categorical attributes
    one-hot coded; every row scaled to unit L2 norm, so each has 30
    non-zeros equal to 1/sqrt(30)).

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (11055, 68), float64
    y : ndarray of float64, shape (11055,)
        -1 (file label 0, 4,898 sites) or +1 (file label 1, 6,157 sites).

    Raises
    ------
    ValueError
        If the bundled file's SHA-256 differs from :data:`PHISHING_SHA256`.

    Notes
    -----
    Source: ``aquemy/HCBR`` commit ``bc61cf0ca0629119c8d29b146890873f92a46835``,
    ``data/phishing.txt``; LIBSVM Data (C.-C. Chang and C.-J. Lin, ACM TIST
    2(3), 2011); original data R. M. Mohammad, F. Thabtah, L. McCluskey.
    See ``PROVENANCE.md``.

    Examples
    --------
    >>> X, y = load_phishing()
    >>> X.shape, int((y == 1).sum())
    ((11055, 68), 6157)
    """
    raw = data_path("phishing", "phishing").read_bytes()
    return _binary_svmlight(raw, "phishing", PHISHING_SHA256, 68)
