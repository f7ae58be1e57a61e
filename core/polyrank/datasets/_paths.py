"""Where the bundled data files are (one module, imported by every loader
and re-exported by :mod:`polyrank.datasets`), and the reading of a bundled
binary LIBSVM file shared by the phishing and w8a loaders."""

from __future__ import annotations

import hashlib
import io
from importlib import resources

import numpy as np

__all__ = ["data_path"]


def data_path(*parts: str):
    """Path (an :mod:`importlib.resources` Traversable) of a bundled file,
    e.g. ``data_path("yeast", "yeast.xml")``.

    Parameters
    ----------
    *parts : str
        The folder under ``polyrank/datasets/data`` and the file name.

    Returns
    -------
    importlib.resources.abc.Traversable
        Readable with ``read_bytes()``/``read_text()``; it need not exist
        (reading a missing file raises ``FileNotFoundError``).

    Examples
    --------
    >>> data_path("yeast", "yeast.xml").name
    'yeast.xml'
    """
    return resources.files(__package__).joinpath("data", *parts)


def _binary_svmlight(raw: bytes, name: str, sha256: str, n_features: int):
    """(X as CSR, y in {-1, +1}) of the bundled LIBSVM file ``raw`` of data set
    ``name`` after checking its SHA-256 (label > 0 means +1)."""
    from sklearn.datasets import load_svmlight_file

    digest = hashlib.sha256(raw).hexdigest()
    if digest != sha256:
        raise ValueError(f"{name}: SHA-256 {digest} of the bundled file differs from "
                         f"the documented {sha256}")
    X, labels = load_svmlight_file(io.BytesIO(raw), n_features=n_features)
    y = np.where(labels > 0, 1.0, -1.0)
    return X.tocsr(), y
