"""Users' data files and polyrank model files.

What ``polyrank train`` and ``polyrank predict`` (:mod:`polyrank.cli`) read
and write, usable from Python as well.  The parsing is scikit-learn's, scipy's
and the standard library's, never our own:

- :func:`read_svmlight`: SVMlight / LIBSVM / LETOR text files
  (``<label> [qid:<q>] <j>:<v> ...``; multi-label ``<l1>,<l2> <j>:<v> ...``)
  by :func:`sklearn.datasets.load_svmlight_file`;
- :func:`read_csv`: delimited text with a header line, by :mod:`csv` (the
  delimiter, e.g. ``,`` or the ``;`` of the UCI wine files, is sniffed);
- :func:`read_arff`: MULAN multi-label ARFF files (the label attributes are
  the last N, or named by MULAN's XML file) by :func:`scipy.io.arff.loadarff`;
- :func:`save_model` / :func:`load_model`: a joblib file holding a fitted
  estimator (or pipeline) and its metadata (method, data format, number and
  names of the features, label names, versions).

Every reader returns a :class:`DataFile`, raises ``ValueError`` with a message
that starts with the file's path and says what is wrong, and lets ``OSError``
(a missing or unreadable file) through.
"""

from __future__ import annotations

import csv
import os
import warnings
from dataclasses import dataclass

import numpy as np

from . import __version__
from .datasets import _label_names_from_xml

__all__ = ["DataFile", "read_svmlight", "read_csv", "read_arff", "label_names_from_xml",
           "integral_labels", "save_model", "load_model", "MODEL_FORMAT",
           "MODEL_FORMAT_VERSION"]

#: The ``format`` entry of a model file written by :func:`save_model`.
MODEL_FORMAT = "polyrank-model"
#: Version of the model file layout; :func:`load_model` rejects other versions.
MODEL_FORMAT_VERSION = 1


@dataclass
class DataFile:
    """The contents of a user's data file.

    Attributes
    ----------
    X : ndarray or scipy.sparse.csr_matrix, shape (n, n_features)
        Features (CSR from SVMlight files, dense from CSV and ARFF).
    y : ndarray, shape (n,) or (n, n_labels), or None
        Targets: numbers (float64) or strings (CSV) of shape (n,), or 0/1
        label indicators (int64, shape (n, n_labels)) for multi-label data;
        None when the file has none (a CSV file without the target column, an
        ARFF file without the label attributes).
    qid : ndarray of int64, shape (n,), or None
        Query ids (SVMlight files read with ``query_id=True`` whose lines
        carry ``qid:``).
    feature_names : list of str or None
        CSV columns / ARFF attributes in the order of the columns of X; None
        for SVMlight files.
    label_names : list or None
        Multi-label data: the label of each column of y (ARFF attribute
        names, or the label values of an SVMlight file).
    format : str
        ``"svmlight"``, ``"csv"`` or ``"arff"``.
    zero_based : bool or None
        SVMlight files: whether the feature indices start at 0.
    """

    X: object
    y: object
    qid: object = None
    feature_names: list | None = None
    label_names: list | None = None
    format: str = ""
    zero_based: bool | None = None


def _one_line(exc) -> str:
    """An exception's (or any object's) text on a single line."""
    return " ".join(str(exc).split())


def integral_labels(values):
    """Labels as int64 when every value is a whole number, else unchanged.

    SVMlight and CSV files give labels as floats (``1.0``, ``-1.0``, ``5.0``);
    classifiers should answer ``1``, ``-1``, ``5``.

    Examples
    --------
    >>> integral_labels(np.array([1.0, -1.0])).tolist(), integral_labels(np.array([0.5]))
    ([1, -1], array([0.5]))
    """
    arr = np.asarray(values)
    if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) \
            and np.all(arr == np.round(arr)):
        return arr.astype(np.int64)
    return arr


# ------------------------------------------------------------------ SVMlight

def read_svmlight(path, *, n_features: int | None = None, query_id: bool = False,
                  multilabel: bool = False, labels=None,
                  zero_based: bool | None = None) -> DataFile:
    """Read an SVMlight / LIBSVM / LETOR file.

    Parameters
    ----------
    path : str or path-like
    n_features : int, optional
        The width of X.  A file may use fewer features (absent features are
        zeros), never more: then ValueError.  None: the largest index.
    query_id : bool, default False
        Read ``qid:`` fields (LETOR).  Lines without one belong to one query
        (``qid`` None), as in liblinear-ranksvm; some lines with and some
        without ``qid:`` is an error.
    multilabel : bool, default False
        Labels are comma-separated lists (``1,3 1:0.5 ...``); y becomes a
        0/1 indicator matrix.
    labels : sequence, optional
        Multi-label: the label of each column of y (e.g. those seen in
        training); other labels in the file are ignored with a
        UserWarning.  None: the sorted labels of the file.
    zero_based : bool or None, default None
        Whether indices start at 0; None: one-based (the format's
        definition) unless the file uses index 0.

    Returns
    -------
    DataFile
        X CSR float64; y float64 (n,) or int64 (n, n_labels).

    Raises
    ------
    ValueError
        Not an SVMlight file, too many features, mixed ``qid:`` lines, or no
        label in a multi-label file.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> d = read_svmlight(data_path("MQ2008", "vali.txt"), query_id=True)
    >>> d.X.shape, d.zero_based, np.unique(d.qid).size
    ((2707, 46), False, 157)
    """
    from sklearn.datasets import load_svmlight_file

    path = os.fspath(path)
    for zb in ((False, True) if zero_based is None else (bool(zero_based),)):
        try:
            X, y, *rest = load_svmlight_file(path, dtype=np.float64, multilabel=multilabel,
                                             zero_based=zb, query_id=query_id)
            break
        except ValueError as exc:
            if zero_based is None and not zb and "index 0" in str(exc):
                continue          # a zero-based file: read it again as one
            raise ValueError(f"{path}: not an SVMlight/LIBSVM file ({_one_line(exc)})") \
                from exc
    n = X.shape[0]
    if n == 0:
        raise ValueError(f"{path}: no data lines")
    X = X.tocsr()
    if n_features is not None:
        if X.shape[1] > n_features:
            raise ValueError(f"{path}: has {X.shape[1]} features, expected at most "
                             f"{n_features}")
        X.resize((n, n_features))
    qid = None
    if query_id:
        qid = np.asarray(rest[0], dtype=np.int64)
        if qid.size == 0:
            qid = None
        elif qid.size != n:
            raise ValueError(f"{path}: {qid.size} of {n} lines have a qid: field; give "
                             "every line one, or none (one query)")
    label_names = None
    if multilabel:
        y, label_names = _indicators(path, y, labels)
    else:
        y = np.asarray(y, dtype=np.float64)
    return DataFile(X=X, y=y, qid=qid, format="svmlight", zero_based=zb,
                    label_names=label_names)


def _indicators(path, label_sets, labels):
    """0/1 indicator matrix (n, n_labels) of SVMlight label tuples."""
    from sklearn.preprocessing import MultiLabelBinarizer

    sets = [tuple(integral_labels(np.asarray(t, dtype=np.float64)).tolist())
            for t in label_sets]
    seen = sorted({v for t in sets for v in t})
    if labels is None:
        if not seen:
            raise ValueError(f"{path}: no line has a label (a multi-label file has "
                             "comma-separated labels first on each line)")
        labels = seen
    else:
        labels = list(labels)
        unknown = sorted(set(seen) - set(labels))
        if unknown:
            warnings.warn(f"{path}: labels {unknown} were not seen in training and are "
                          "ignored", UserWarning, stacklevel=3)
            known = set(labels)
            sets = [tuple(v for v in t if v in known) for t in sets]
    Y = MultiLabelBinarizer(classes=labels).fit_transform(sets)
    return np.asarray(Y, dtype=np.int64), labels


# ----------------------------------------------------------------------- CSV

def read_csv(path, target=None, *, feature_names=None, require_target: bool = True,
             delimiter: str | None = None) -> DataFile:
    """Read a delimited text file with a header line.

    Parameters
    ----------
    path : str or path-like
    target : str, optional
        The column of the targets; every other column is a feature.
    feature_names : list of str, optional
        The feature columns expected (e.g. those of training), taken by name
        in this order; a missing or an extra column is an error.
    require_target : bool, default True
        False: a file without the ``target`` column is read with y None.
    delimiter : str, optional
        Default: sniffed among ``,`` ``;`` tab and ``|`` (``,`` if unsure).

    Returns
    -------
    DataFile
        X float64 (n, n_features); y float64 if every target is a number,
        else str; ``feature_names``.

    Raises
    ------
    ValueError
        Empty file, repeated column names, ragged lines, a missing target or
        feature column, or a feature value that is not a number (the message
        gives the line and column).
    OSError
        The file cannot be read.

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> d = read_csv(data_path("winequality", "winequality-red.csv"), target="quality")
    >>> d.X.shape, d.feature_names[-1], sorted(set(d.y.tolist()))
    ((1599, 11), 'alcohol', [3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    """
    path = os.fspath(path)
    with open(path, newline="", encoding="utf-8-sig") as fh:
        if delimiter is None:
            head = "\n".join(fh.read(1 << 16).splitlines()[:20])
            fh.seek(0)
            try:
                delimiter = csv.Sniffer().sniff(head, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        reader = csv.reader(fh, delimiter=delimiter)
        try:
            header = next(reader, None)
            rows, lines = [], []
            for row in reader:
                if row:
                    rows.append(row)
                    lines.append(reader.line_num)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not a CSV text file ({_one_line(exc)})") from exc
    if header is None or not rows:
        raise ValueError(f"{path}: no header line and data lines (an empty file?)")
    header = [h.strip() for h in header]
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise ValueError(f"{path}: repeated column names {repeated}")
    for row, line in zip(rows, lines):
        if len(row) != len(header):
            raise ValueError(f"{path}, line {line}: {len(row)} fields, the header has "
                             f"{len(header)} (delimiter {delimiter!r})")
    index = {h: j for j, h in enumerate(header)}
    if target is not None and target not in index and require_target:
        raise ValueError(f"{path}: no column {target!r} (the target); columns: "
                         + ", ".join(header))
    if feature_names is None:
        feature_names = [h for h in header if h != target]
    else:
        feature_names = list(feature_names)
        missing = [f for f in feature_names if f not in index]
        extra = [h for h in header if h not in feature_names and h != target]
        if missing or extra:
            raise ValueError(f"{path}: the feature columns differ from the model's"
                             + (f"; missing {missing}" if missing else "")
                             + (f"; unexpected {extra}" if extra else ""))
    if not feature_names:
        raise ValueError(f"{path}: no feature column besides the target {target!r}")
    X = np.empty((len(rows), len(feature_names)))
    for k, name in enumerate(feature_names):
        X[:, k] = _numbers(path, [r[index[name]] for r in rows], name, lines)
    y = None
    if target is not None and target in index:
        values = [r[index[target]].strip() for r in rows]
        try:
            y = np.asarray(values, dtype=np.float64)
        except ValueError:
            y = np.asarray(values, dtype=str)
    return DataFile(X=X, y=y, feature_names=feature_names, format="csv")


def _numbers(path, values, name, lines) -> np.ndarray:
    """A CSV column as float64, or ValueError naming the first bad cell."""
    try:
        return np.asarray(values, dtype=np.float64)
    except ValueError:
        for v, line in zip(values, lines):
            try:
                float(v)
            except ValueError:
                what = "an empty value (missing values are not supported)" \
                    if not v.strip() else f"{v!r} is not a number"
                raise ValueError(f"{path}, line {line}, column {name!r}: {what}") from None
        raise                                       # pragma: no cover


# ---------------------------------------------------------------------- ARFF

def read_arff(path, labels, *, feature_names=None, require_labels: bool = True) -> DataFile:
    """Read a (dense) MULAN multi-label ARFF file.

    Parameters
    ----------
    path : str or path-like
    labels : int or list of str
        N: the last N attributes are the labels (as in MULAN's yeast, scene,
        emotions); or the label attributes' names (e.g. from MULAN's XML
        file, see :func:`label_names_from_xml`).  Label attributes hold 0/1.
    feature_names : list of str, optional
        The feature attributes expected (e.g. those of training), taken by
        name in this order; a missing or an extra one is an error.
    require_labels : bool, default True
        False: a file with none of the label attributes is read with y None.

    Returns
    -------
    DataFile
        X float64 (n, n_features), y int64 0/1 (n, n_labels),
        ``feature_names``, ``label_names``.

    Raises
    ------
    ValueError
        Not an ARFF file scipy can read (sparse ARFF, string attributes),
        a bad N, a missing label attribute, a nominal feature, or a label
        value other than 0/1.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> d = read_arff(data_path("yeast", "yeast-test.arff"), labels=14)
    >>> d.X.shape, d.y.shape, d.label_names[0]
    ((917, 103), (917, 14), 'Class1')
    """
    from scipy.io import arff

    path = os.fspath(path)
    with open(path, encoding="utf-8") as fh:
        try:
            rows, meta = arff.loadarff(fh)
        except (ValueError, NotImplementedError, StopIteration, arff.ArffError,
                UnicodeDecodeError) as exc:
            reason = ("no ARFF header (@relation, @attribute, @data)"
                      if isinstance(exc, StopIteration) else _one_line(exc))
            hint = (" (sparse ARFF data lines {index value, ...} are not supported by "
                    "scipy.io.arff; use an SVMlight multi-label file)"
                    if "{" in str(exc) else "")
            raise ValueError(f"{path}: not an ARFF file scipy can read ({reason}){hint}") \
                from exc
    names = list(meta.names())
    types = dict(zip(names, meta.types()))
    if isinstance(labels, (int, np.integer)) and not isinstance(labels, bool):
        if not 1 <= labels < len(names):
            raise ValueError(f"{path}: labels={labels}: the file has {len(names)} "
                             f"attributes, so the number of labels must be 1..{len(names) - 1}")
        label_names = names[len(names) - labels:]
    else:
        label_names = list(labels)
        missing = [n for n in label_names if n not in types]
        if missing and (require_labels or len(missing) < len(label_names)):
            raise ValueError(f"{path}: no label attribute(s) {missing}")
    has_labels = all(n in types for n in label_names)
    if feature_names is None:
        feature_names = [n for n in names if n not in label_names]
    else:
        feature_names = list(feature_names)
        missing = [f for f in feature_names if f not in types]
        extra = [n for n in names if n not in feature_names and n not in label_names]
        if missing or extra:
            raise ValueError(f"{path}: the feature attributes differ from the model's"
                             + (f"; missing {missing}" if missing else "")
                             + (f"; unexpected {extra}" if extra else ""))
    nominal = [n for n in feature_names if types[n] != "numeric"]
    if nominal:
        raise ValueError(f"{path}: feature attribute(s) {nominal[:5]} are not numeric "
                         "(only numeric features are supported; are the labels the "
                         "last attributes?)")
    if not feature_names:
        raise ValueError(f"{path}: no feature attribute besides the labels")
    X = np.column_stack([rows[n].astype(np.float64) for n in feature_names])
    Y = None
    if has_labels:
        Y = np.empty((X.shape[0], len(label_names)), dtype=np.int64)
        for k, name in enumerate(label_names):
            col = rows[name]
            vals = col.astype(str) if types[name] == "nominal" else col.astype(np.float64)
            ok = np.isin(vals, ["0", "1"] if types[name] == "nominal" else [0.0, 1.0])
            if not ok.all():
                raise ValueError(f"{path}: label attribute {name!r} holds "
                                 f"{vals[~ok][0]!r}; labels must be 0 or 1")
            Y[:, k] = (vals == ("1" if types[name] == "nominal" else 1.0))
    return DataFile(X=np.ascontiguousarray(X), y=Y, feature_names=feature_names,
                    label_names=label_names, format="arff")


def label_names_from_xml(path) -> list[str]:
    """The label names listed in a MULAN XML file (``<label name="..."/>``).

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> len(label_names_from_xml(data_path("yeast", "yeast.xml")))
    14
    """
    from pathlib import Path

    try:
        return _label_names_from_xml(Path(os.fspath(path)))
    except Exception as exc:          # ElementTree's ParseError, a missing attribute
        if isinstance(exc, OSError):
            raise
        raise ValueError(f"{os.fspath(path)}: not a MULAN XML label file "
                         f"({_one_line(exc)})") from exc


# ------------------------------------------------------------- model files

def save_model(path, estimator, **metadata) -> None:
    """Write a fitted estimator and its metadata to a joblib file.

    Parameters
    ----------
    path : str or path-like
    estimator : object
        A fitted estimator or pipeline.
    **metadata
        JSON-like entries stored beside it (``polyrank train`` stores
        ``method``, ``task``, ``data_format``, ``n_features``,
        ``feature_names``, ``label_names``, ``target``, ...).  The format tag,
        :data:`MODEL_FORMAT_VERSION` and the versions of polyrank,
        scikit-learn and Python are added.

    Raises
    ------
    OSError
        The file cannot be written.
    """
    import platform

    import joblib
    import sklearn

    doc = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
           "polyrank_version": __version__, "sklearn_version": sklearn.__version__,
           "python_version": platform.python_version(), **metadata,
           "estimator": estimator}
    joblib.dump(doc, os.fspath(path))


def load_model(path):
    """Read a model file written by :func:`save_model`.

    Unpickling runs code from the file: load only model files you trust
    (as with any pickle or joblib file).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator : object
    metadata : dict
        Everything :func:`save_model` stored except the estimator.

    Raises
    ------
    ValueError
        Not a joblib file (corrupt, truncated, another program's model), a
        joblib file without polyrank's metadata, or another format version.
    OSError
        The file cannot be read.

    Warns
    -----
    UserWarning
        The file was written by another polyrank version.
    """
    import joblib

    path = os.fspath(path)
    with open(path, "rb"):
        pass                                       # OSError before joblib's messages
    try:
        doc = joblib.load(path)
    except Exception as exc:     # unpickling arbitrary bytes can raise anything
        raise ValueError(f"{path}: not a polyrank model file (joblib cannot read it: "
                         f"{type(exc).__name__}: {_one_line(exc)})") from exc
    if not isinstance(doc, dict) or doc.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: not a polyrank model file (a joblib file without "
                         "polyrank's metadata)")
    if doc.get("format_version") != MODEL_FORMAT_VERSION:
        raise ValueError(f"{path}: model file format {doc.get('format_version')!r}; this "
                         f"polyrank {__version__} reads format {MODEL_FORMAT_VERSION}")
    missing = [k for k in ("estimator", "method", "data_format", "n_features")
               if k not in doc]
    if missing:
        raise ValueError(f"{path}: incomplete polyrank model file (no {missing})")
    if doc.get("polyrank_version") != __version__:
        warnings.warn(f"{path}: written by polyrank {doc.get('polyrank_version')}, read "
                      f"by {__version__}", UserWarning, stacklevel=2)
    meta = {k: v for k, v in doc.items() if k != "estimator"}
    return doc["estimator"], meta
