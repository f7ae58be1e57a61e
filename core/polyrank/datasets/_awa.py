"""Loader of the Animals-with-Attributes class/attribute tables."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ._paths import data_path

__all__ = ["AwAClasses", "load_awa_classes", "AWA_SHA256"]

#: SHA-256 of every bundled AwA file (checked by :func:`load_awa_classes`).
AWA_SHA256 = {
    "classes.txt": "691c8c92db822894436225c814252dd2eddf086c75392db4b950d3081de87dfc",
    "predicates.txt": "cf0a47c75895f1b4bdabb08273fb142e78f2b5373c246f1a83b37fe970c3c79f",
    "predicate-matrix-binary.txt":
        "7bb736f49b12777325c2920df9b196a8809904728f43ee5197d2359c699b6123",
    "predicate-matrix-continuous.txt":
        "616ad16c4636a8ab3845c83ddc83e5e24a2d3430dfa4574048674403e59ec146",
    "trainclasses.txt": "cc7248e05eccc436f7f8337e8ae6f056acd4e4444692851dfd431c8604d522f5",
    "testclasses.txt": "94192a9325beddb4016aec0f68df360c1b72c65e186242b3d53d9ead8d58bc0a",
    "README-attributes.txt":
        "3e92daf192e7828e2b0d8cd77f10624e029fc2a99d5845bfec33a5590065edb6",
}


@dataclass
class AwAClasses:
    """The class/attribute tables of Animals with Attributes v1.0.

    Attributes
    ----------
    class_names : list of str, length 50
        In the order of ``classes.txt`` (e.g. ``"grizzly+bear"``).
    attribute_names : list of str, length 85
        In the order of ``predicates.txt`` (e.g. ``"black"``, ``"weak"``).
    binary : ndarray of int8, shape (50, 85)
        0/1 class-attribute matrix (the continuous table thresholded at its
        overall mean, as distributed).
    continuous : ndarray, shape (50, 85)
        Association strengths in [0, 100]; the 4 missing values (-1 in the
        file) are NaN.
    train_classes, test_classes : list of str
        The standard zero-shot split: 40 training and 10 test classes.
    """

    class_names: list
    attribute_names: list
    binary: np.ndarray
    continuous: np.ndarray
    train_classes: list
    test_classes: list

    def attributes_of(self, classes) -> np.ndarray:
        """Binary attribute rows (len(classes), 85) of the named classes.

        Raises
        ------
        ValueError
            If a name is not one of the 50 classes.
        """
        index = {c: i for i, c in enumerate(self.class_names)}
        unknown = [c for c in classes if c not in index]
        if unknown:
            raise ValueError(f"classes: unknown class names {unknown}")
        return self.binary[[index[c] for c in classes]]


def _read_checked(name: str) -> str:
    raw = data_path("awa", name).read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != AWA_SHA256[name]:
        raise ValueError(f"awa/{name}: SHA-256 {digest} differs from the recorded "
                         f"{AWA_SHA256[name]} (see PROVENANCE.md)")
    return raw.decode("utf-8")


def _names(text: str, indexed: bool) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return [ln.split()[1] if indexed else ln for ln in lines]


def load_awa_classes() -> AwAClasses:
    """The Animals-with-Attributes v1.0 class/attribute tables (no images).

    50 animal classes x 85 attributes, with the standard split into 40
    training and 10 test classes (chimpanzee, giant+panda, leopard,
    persian+cat, pig, hippopotamus, humpback+whale, raccoon, rat, seal).
    The SHA-256 of every file is checked.

    Returns
    -------
    AwAClasses

    Raises
    ------
    ValueError
        If a bundled file's checksum or shape is not as recorded.

    Notes
    -----
    Source: ``m3l-multilabel-zero-shot.txt``, Sec. 7.2.1 uses these tables
    to build R = sum_c p(c) y_c y_c' over the test classes. Data: Lampert,
    Nickisch, Harmeling, CVPR 2009; Osherson et al. 1991; Kemp et al. 2006
    (see ``PROVENANCE.md``).

    Examples
    --------
    >>> awa = load_awa_classes()
    >>> awa.binary.shape, len(awa.test_classes)
    ((50, 85), 10)
    >>> awa.attribute_names[:3]
    ['black', 'white', 'blue']
    """
    classes = _names(_read_checked("classes.txt"), indexed=True)
    attributes = _names(_read_checked("predicates.txt"), indexed=True)
    binary = np.loadtxt(_read_checked("predicate-matrix-binary.txt").splitlines(),
                        dtype=np.int8)
    continuous = np.loadtxt(_read_checked("predicate-matrix-continuous.txt").splitlines())
    continuous[continuous == -1] = np.nan
    train = _names(_read_checked("trainclasses.txt"), indexed=False)
    test = _names(_read_checked("testclasses.txt"), indexed=False)
    _read_checked("README-attributes.txt")
    if binary.shape != (50, 85) or continuous.shape != (50, 85) or len(classes) != 50 \
            or len(attributes) != 85 or sorted(train + test) != sorted(classes):
        raise ValueError("awa: the bundled tables do not have the recorded shapes")
    return AwAClasses(classes, attributes, binary, continuous, train, test)
