"""Where the bundled data files are (one module, imported by every loader
and re-exported by :mod:`polyrank.datasets`)."""

from __future__ import annotations

from importlib import resources

__all__ = ["data_path"]


def data_path(*parts: str):
    """Path (a :class:`importlib.resources` Traversable) of a bundled file,
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
