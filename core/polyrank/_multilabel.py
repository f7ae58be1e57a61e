"""Targets of the multi-label estimators (:class:`~polyrank.LabelRanker` and
:class:`~polyrank.M3LClassifier`) as users have them, and back.

A fit reads its ``y`` once into a :class:`TargetCoding` (what kind of target
it is, its classes, the 0/1 or -1/+1 coding of an indicator matrix, the
dtype) and the target matrix the solver needs; ``predict`` turns decision
values back into the user's form with the same coding.

The kinds (attribute ``target_type_`` of the estimators, in scikit-learn's
:func:`~sklearn.utils.multiclass.type_of_target` vocabulary where it has a
word for them):

``"binary"``, ``"multiclass"``
    A 1-d ``y`` of class labels (any sortable values: ints, strings, ...),
    or a column vector (n, 1), which means the same.  ``classes_`` are the
    sorted distinct labels; ``predict`` returns labels from ``classes_``.
``"multilabel-indicator"``
    A 2-d ``y`` (n, L) whose entries are all in {0, 1} (``bool`` included;
    what :class:`~sklearn.preprocessing.MultiLabelBinarizer` gives) or all in
    {-1, +1}.  ``classes_`` is ``arange(L)`` (column j is label j, as in
    :class:`~sklearn.multiclass.OneVsRestClassifier`); ``label_values_`` is
    the coding ``(negative, positive)``: (-1, 1) if ``y`` contains a -1,
    else (0, 1) -- a matrix of ones only is read as 0/1, the indicator
    convention.  ``predict`` answers in that coding and in ``y``'s dtype.
``"label-ranking"``
    (LabelRanker only) any other real 2-d ``y``: target rankings (the paper's γ^i).
    ``classes_`` is ``arange(k)``; ``predict`` returns, per row, the labels
    from the most to the least preferred.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .validation import dense_targets

__all__ = ["TargetCoding", "encode_targets", "writeable", "BINARY", "MULTICLASS", "INDICATOR",
           "RANKING"]

BINARY = "binary"
MULTICLASS = "multiclass"
INDICATOR = "multilabel-indicator"
RANKING = "label-ranking"


@dataclass(frozen=True, eq=False)
class TargetCoding:
    """How a fitted estimator reads and writes its targets.

    Attributes
    ----------
    target_type : str
        One of :data:`BINARY`, :data:`MULTICLASS`, :data:`INDICATOR`,
        :data:`RANKING`.
    classes : ndarray
        The class labels (1-d targets) or ``arange(n_columns)``.
    label_values : tuple
        ``(negative, positive)`` of an indicator matrix, else ``(0, 1)``.
    dtype : numpy dtype
        The dtype of ``y`` (predictions of an indicator matrix use it).
    """

    target_type: str
    classes: np.ndarray
    label_values: tuple = (0, 1)
    dtype: np.dtype = np.dtype(np.int64)

    def relevance(self, y, name: str = "y") -> np.ndarray:
        """A boolean (n, L) relevance matrix of an indicator or ranking ``y``
        in this coding (entries > 0 for rankings, == positive for indicators).

        Raises
        ------
        ValueError
            If ``y`` has the wrong number of columns or, for an indicator,
            values outside ``label_values``.
        """
        y = np.asarray(dense_targets(y, name))
        if y.ndim != 2 or y.shape[1] != self.classes.size:
            raise ValueError(f"{name}: expected shape (n, {self.classes.size}) as in fit, "
                             f"got {y.shape}")
        if self.target_type == RANKING:
            return np.asarray(y, dtype=float) > 0
        bad = ~np.isin(y, self.label_values)
        if bad.any():
            raise ValueError(f"{name}: expected entries in {self.label_values} (the coding "
                             f"of the y given to fit), got {y[bad][0]!r}")
        return y == self.label_values[1]

    def predict(self, decision: np.ndarray) -> np.ndarray:
        """Predictions in the user's form from decision values: (n,) for
        binary (positive class where > 0), (n, k) otherwise (argmax for
        multiclass, > 0 for an indicator, the label order for rankings)."""
        if self.target_type == BINARY:
            return self.classes[(decision > 0).astype(np.intp)]
        if self.target_type == MULTICLASS:
            return self.classes[np.argmax(decision, axis=1)]
        if self.target_type == INDICATOR:
            neg, pos = self.label_values
            return np.where(decision > 0, pos, neg).astype(self.dtype)
        return self.classes[np.argsort(-decision, axis=1, kind="stable")]


def _indicator_coding(y: np.ndarray):
    """(negative, positive) if every entry of y is in {0, 1} or every entry
    in {-1, +1}, else None."""
    if y.dtype == bool:
        return (False, True)
    if y.dtype.kind not in "biuf":
        return None
    values = np.unique(y)
    if np.all(np.isin(values, (0, 1))):
        return (0, 1)
    if np.all(np.isin(values, (-1, 1))):
        return (-1, 1)
    return None


def encode_targets(y, *, rankings: bool, owner: str) -> tuple[TargetCoding, np.ndarray]:
    """Read a validated ``y`` (numpy array, 1-d or 2-d) into a coding and a
    float target matrix.

    Parameters
    ----------
    y : ndarray, shape (n,), (n, 1) or (n, L)
    rankings : bool
        Whether real-valued 2-d targets (label rankings) are accepted.
    owner : str
        The estimator's name for the messages.

    Returns
    -------
    coding : TargetCoding
    T : ndarray of float64, shape (n, L)
        1-d targets: the one-hot matrix (L = number of classes); indicator:
        the 0/1 relevance matrix; rankings: ``y`` as floats.

    Raises
    ------
    ValueError
        Continuous 1-d targets ("Unknown label type"), fewer than 2 classes,
        2-d targets that are not an indicator matrix (when ``rankings`` is
        False) or not numeric.
    """
    y = np.asarray(dense_targets(y))
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim == 1:
        check_classification_targets(y)
        classes, index = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"y: {owner} needs samples of at least 2 classes, got one "
                             f"class ({classes[0]!r})")
        kind = BINARY if classes.size == 2 else MULTICLASS
        T = np.zeros((y.shape[0], classes.size))
        T[np.arange(y.shape[0]), index] = 1.0
        return TargetCoding(kind, classes), T
    coding = _indicator_coding(y)
    columns = np.arange(y.shape[1])
    if coding is not None:
        T = (y == coding[1]).astype(np.float64)
        return TargetCoding(INDICATOR, columns, coding, y.dtype), T
    if rankings and y.dtype.kind in "biuf":
        return TargetCoding(RANKING, columns, (0, 1), np.dtype(np.float64)), \
            np.asarray(y, dtype=np.float64)
    raise ValueError(f"y: {owner} expects class labels (n,) or a label indicator matrix "
                     f"(n, L) with entries all in {{0, 1}} or all in {{-1, +1}}; got a 2-d "
                     f"y with values {np.unique(y)[:6].tolist()} (multiclass-multioutput "
                     "and continuous targets are not supported)")


def writeable(X):
    """X itself, or a copy if its data is read-only (e.g. a joblib memmap):
    the numba kernels take writeable arrays, so read-only ones would compile
    a second specialization of every kernel."""
    data = X.data if hasattr(X, "indptr") else X
    if isinstance(data, np.ndarray) and not data.flags.writeable:
        return X.copy()
    return X
