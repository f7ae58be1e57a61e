"""The bundled data sets as files: what each one is, where it comes from, and
a copy of its files where the user works (``polyrank datasets``).

The loaders (:func:`~polyrank.datasets.load_yeast`, ...) read the bundled
files in place; :func:`copy_dataset` copies them out, byte for byte, so that
a command line or a script that takes file names (``polyrank train``,
:func:`polyrank.io.read_arff`, ``read_csv``, ``read_svmlight``) finds them
in the current folder.  ``PROVENANCE.md`` beside this module has the full
record (source commit, checksums, licence, citation) of every file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .._files import write_bytes
from ._paths import data_path

__all__ = ["BundledDataset", "DATASETS", "copy_dataset", "find_dataset"]


@dataclass(frozen=True)
class BundledDataset:
    """One data set bundled with polyrank.

    Attributes
    ----------
    name : str
        The name ``polyrank datasets copy NAME`` takes (its folder under
        ``polyrank/datasets/data``).
    files : tuple of str
        The files of the set, as they are copied.
    description : str
        What the files hold: format, shape, targets.
    read : str
        How to read them in Python (a :mod:`polyrank.io` reader or a loader)
        and the ``polyrank train`` method that takes them.
    source : str
        The public original and its citation (full record: PROVENANCE.md).
    """

    name: str
    files: tuple[str, ...]
    description: str
    read: str
    source: str


#: The bundled data sets by name, in the order ``polyrank datasets`` lists them.
DATASETS: dict[str, BundledDataset] = {d.name: d for d in (
    BundledDataset(
        "MQ2008", ("train.txt", "vali.txt", "test.txt"),
        "LETOR 4.0 MQ2008 Fold1, SVMlight with qid: train 9,630 / vali 2,707 / test 2,874 "
        "documents, 46 features, relevance 0-2",
        "read_svmlight(PATH, query_id=True) or load_mq2008(); polyrank train ranksvm",
        "LETOR 4.0 (Qin & Liu, 2013), Microsoft Research"),
    BundledDataset(
        "yeast", ("yeast-train.arff", "yeast-test.arff", "yeast.xml"),
        "MULAN yeast, dense ARFF: train 1,500 / test 917 genes, 103 features, the last 14 "
        "attributes are the labels (yeast.xml names them)",
        "read_arff(PATH, 14) or load_yeast(); polyrank train m3l|labelranker --labels 14",
        "MULAN (Tsoumakas et al.); Elisseeff & Weston, NIPS 14, 2001"),
    BundledDataset(
        "winequality", ("winequality-red.csv", "winequality.names"),
        "UCI Wine Quality (red), ';'-separated CSV: 1,599 wines, 11 physico-chemical "
        "features, the grade 'quality' (3-8)",
        "read_csv(PATH, 'quality') or load_winequality_red(); polyrank train ordinal "
        "--target quality",
        "UCI Machine Learning Repository; Cortez et al., Decision Support Systems 47(4), 2009"),
    BundledDataset(
        "phishing", ("phishing",),
        "LIBSVM binary: 11,055 websites x 68 one-hot features (rows of unit norm), "
        "labels 0/1",
        "read_svmlight(PATH) or load_phishing(); polyrank train sign",
        "LIBSVM Data (Chang & Lin); UCI Phishing Websites (Mohammad et al.)"),
    BundledDataset(
        "w8a", ("w8a.gz",),
        "LIBSVM binary, gzip-compressed: 49,749 web pages x 300 binary features, "
        "labels -1/+1",
        "read_svmlight(PATH) or load_w8a(); polyrank train sign",
        "LIBSVM Data (Chang & Lin); J. Platt's web page classification data, 1998"),
    BundledDataset(
        "awa", ("classes.txt", "predicates.txt", "predicate-matrix-binary.txt",
                "predicate-matrix-continuous.txt", "trainclasses.txt", "testclasses.txt",
                "README-attributes.txt"),
        "Animals with Attributes v1.0, class-attribute tables only: 50 animals x 85 "
        "attributes, 40 training / 10 test classes (no images)",
        "load_awa_classes(); polyrank.m3l.prior_from_classes",
        "Lampert, Nickisch & Harmeling, CVPR 2009; Osherson et al. 1991; Kemp et al. 2006"),
)}


def find_dataset(name: str) -> BundledDataset:
    """The bundled data set called ``name`` (case-insensitive).

    Parameters
    ----------
    name : str
        One of :data:`DATASETS` (``"MQ2008"``, ``"yeast"``, ``"winequality"``,
        ``"phishing"``, ``"w8a"``, ``"awa"``).

    Returns
    -------
    BundledDataset

    Raises
    ------
    TypeError
        ``name`` is not a string.
    ValueError
        No bundled data set has that name (the message lists them).

    Examples
    --------
    >>> find_dataset("mq2008").files
    ('train.txt', 'vali.txt', 'test.txt')
    """
    if not isinstance(name, str):
        raise TypeError(f"name: expected a str, got {type(name).__name__}")
    for key, dataset in DATASETS.items():
        if key.lower() == name.lower():
            return dataset
    raise ValueError(f"name: no bundled data set {name!r}; the bundled sets are "
                     f"{', '.join(DATASETS)}")


def copy_dataset(name: str, dest=".", *, overwrite: bool = False) -> list[Path]:
    """Copy the files of a bundled data set into a folder, byte for byte.

    What ``polyrank datasets copy NAME [DEST]`` does: afterwards the files
    are where a command line or a script that takes file names finds them.
    Nothing is copied when one of the files exists already and ``overwrite``
    is False; each file is written atomically (a temporary file in ``dest``
    moved into place), so an interrupted copy never leaves a truncated file.

    Parameters
    ----------
    name : str
        The data set (see :data:`DATASETS`; case-insensitive).
    dest : str or path-like, default "."
        The folder; created (with its parents) if missing.
    overwrite : bool, default False
        Replace files of the same names.

    Returns
    -------
    list of Path
        The files written, in the order of the set's ``files``.

    Raises
    ------
    TypeError
        ``name`` is not a string, or ``dest`` is not a path.
    ValueError
        ``name`` is not a bundled data set.
    FileExistsError
        A file of the set exists in ``dest`` and ``overwrite`` is False
        (nothing was copied).
    OSError
        ``dest`` cannot be created or written.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in copy_dataset("winequality", tmp)]
    ['winequality-red.csv', 'winequality.names']
    """
    dataset = find_dataset(name)
    if not isinstance(dest, (str, os.PathLike)):
        raise TypeError(f"dest: expected a path, got {type(dest).__name__}")
    folder = Path(dest)
    targets = [folder / f for f in dataset.files]
    present = [str(t) for t in targets if t.exists() or t.is_symlink()]
    if present and not overwrite:
        raise FileExistsError(f"{', '.join(present)} exist(s) already: nothing copied "
                              "(overwrite=True, or --force, replaces them)")
    folder.mkdir(parents=True, exist_ok=True)
    return [write_bytes(t, data_path(dataset.name, f).read_bytes())
            for t, f in zip(targets, dataset.files)]
