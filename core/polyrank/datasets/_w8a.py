"""Loader of the LIBSVM "w8a" binary classification data set."""

from __future__ import annotations

import gzip

from ._paths import _binary_svmlight, data_path

__all__ = ["load_w8a", "W8A_SHA256"]

#: SHA-256 of the uncompressed file (``PROVENANCE.md``), checked by the loader
W8A_SHA256 = "b464b4f6ce6a5d9e181ffc793e19a04751036273722312398ef7673705014902"


def load_w8a():
    """The LIBSVM "w8a" data set (J. Platt's web page classification), as used
    in Fig. 2 (b) of ``sign-constrained-sdca-pegasos.txt`` (Sec. 6.2).

    49,749 web pages, 300 binary keyword features (value 1 where present;
    4,203 rows have none).

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (49749, 300), float64
        579,586 non-zeros.
    y : ndarray of float64, shape (49749,)
        -1 (48,270 pages) or +1 (1,479 pages).

    Raises
    ------
    ValueError
        If the SHA-256 of the bundled (uncompressed) file differs from
        :data:`W8A_SHA256`.

    Notes
    -----
    Source: ``unc-optimization/AccSPD`` commit
    ``d2f1f2c961e3401032649544445bb24ab63ab1c5``, ``data/w8a`` (stored here
    gzip-compressed); LIBSVM Data (C.-C. Chang and C.-J. Lin, ACM TIST 2(3),
    2011); original data J. Platt, "Fast training of support vector machines
    using sequential minimal optimization", 1998.  See ``PROVENANCE.md``.

    Examples
    --------
    >>> X, y = load_w8a()
    >>> X.shape, X.nnz, int((y == 1).sum())
    ((49749, 300), 579586, 1479)
    """
    raw = gzip.decompress(data_path("w8a", "w8a.gz").read_bytes())
    return _binary_svmlight(raw, "w8a", W8A_SHA256, 300)
