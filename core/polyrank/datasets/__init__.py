"""Loaders for the real data sets bundled with polyrank.

Every file is a byte-for-byte copy of a public original; ``PROVENANCE.md``
beside this module gives the source repository, commit, checksums, licence
and citation of each one.  :mod:`polyrank.datasets.reference` holds what is
known about them without computing it (domain-knowledge signs, a peer's
numbers, the papers' tables).  :data:`DATASETS` lists the bundled sets
and :func:`copy_dataset` (``polyrank datasets copy NAME``) copies the files
of one where you work, for the readers of :mod:`polyrank.io` and the
``polyrank train`` command.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np
from scipy.io import arff

from ._paths import data_path
from .reference import (
    BREAST_CANCER_POSITIVE,
    LIBLINEAR_RANKSVM_MQ2008,
    ORDINAL_PAPER_TABLE1,
    ORDINAL_PAPER_TABLE2,
    breast_cancer_signs,
)

__all__ = ["MultiLabelData", "load_yeast", "data_path", "load_phishing", "load_w8a", "OrdinalData",
           "load_winequality_red", "AwAClasses", "load_awa_classes", "RankingData",
           "load_letor", "load_mq2008", "breast_cancer_signs", "BREAST_CANCER_POSITIVE",
           "LIBLINEAR_RANKSVM_MQ2008", "ORDINAL_PAPER_TABLE1", "ORDINAL_PAPER_TABLE2",
           "BundledDataset", "DATASETS", "copy_dataset", "find_dataset"]


@dataclass
class MultiLabelData:
    """A multi-label train/test split.

    Attributes
    ----------
    X_train : ndarray, shape (m_train, n_features)
    Y_train : ndarray of int8, shape (m_train, n_labels)
        0/1 relevance indicators.
    X_test : ndarray, shape (m_test, n_features)
    Y_test : ndarray of int8, shape (m_test, n_labels)
    feature_names : list of str
    label_names : list of str
        In the order of the columns of ``Y_train`` / ``Y_test``.
    description : str
    """

    X_train: np.ndarray
    Y_train: np.ndarray
    X_test: np.ndarray
    Y_test: np.ndarray
    feature_names: list
    label_names: list
    description: str


def _label_names_from_xml(path) -> list[str]:
    root = ET.fromstring(path.read_text(encoding="utf-8"))
    return [el.attrib["name"] for el in root.iter() if el.tag.endswith("label")]


def _read_arff(path, label_names):
    with path.open("r", encoding="utf-8") as fh:
        rows, meta = arff.loadarff(fh)
    names = list(meta.names())
    missing = [n for n in label_names if n not in names]
    if missing:
        raise ValueError(f"{path}: labels {missing} of the XML file are not attributes")
    features = [n for n in names if n not in label_names]
    label_names = [n for n in names if n in label_names]   # ARFF column order
    X = np.column_stack([rows[n].astype(np.float64) for n in features])
    Y = np.column_stack([rows[n].astype(str).astype(np.int8) for n in label_names])
    return X, Y, features, label_names


def load_yeast() -> MultiLabelData:
    """The MULAN yeast multi-label data set with its standard train/test split.

    2,417 yeast genes, 103 numeric features (micro-array expression and
    phylogenetic profile), 14 functional classes (label cardinality about
    4.2).  Labels are identified by name from MULAN's ``yeast.xml`` (whose
    listing order differs from the ARFF column order), never by position;
    the columns of Y follow the ARFF order ``Class1 .. Class14``.

    Returns
    -------
    MultiLabelData
        X_train (1500, 103), Y_train (1500, 14), X_test (917, 103),
        Y_test (917, 14).

    Notes
    -----
    Source: the official MULAN repository ``tsoumakas/mulan``; citation
    A. Elisseeff and J. Weston, "A kernel method for multi-labelled
    classification", NIPS 14, 2001.  See ``PROVENANCE.md``.

    Examples
    --------
    >>> d = load_yeast()
    >>> d.X_train.shape, d.Y_test.shape
    ((1500, 103), (917, 14))
    """
    labels = _label_names_from_xml(data_path("yeast", "yeast.xml"))
    Xtr, Ytr, features, names = _read_arff(data_path("yeast", "yeast-train.arff"), labels)
    Xte, Yte, _, names_te = _read_arff(data_path("yeast", "yeast-test.arff"), labels)
    if names_te != names:
        raise ValueError("yeast: train and test ARFF files order the labels differently")
    return MultiLabelData(Xtr, Ytr, Xte, Yte, features, names,
                          "MULAN yeast (Elisseeff & Weston, NIPS 2001): 103 features, "
                          "14 labels; standard MULAN train/test split")


# the loaders of the other data sets use data_path above
from ._awa import AwAClasses, load_awa_classes  # noqa: E402
from ._catalog import DATASETS, BundledDataset, copy_dataset, find_dataset  # noqa: E402
from ._letor import RankingData, load_letor, load_mq2008  # noqa: E402
from ._phishing import load_phishing  # noqa: E402
from ._w8a import load_w8a  # noqa: E402
from ._winequality import OrdinalData, load_winequality_red  # noqa: E402
