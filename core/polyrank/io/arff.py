"""MULAN multi-label ARFF files (:func:`~polyrank.io.read_arff`, parsed by
:func:`scipy.io.arff.loadarff`; the label attributes are the last N, or named
by MULAN's XML file, :func:`~polyrank.io.label_names_from_xml`).
"""

from __future__ import annotations

import csv
import io
import os
import re

import numpy as np

from .._input import Lines, open_input
from .._text import one_line as _one_line
from ..datasets import _label_names_from_xml
from . import _common
from ._common import DataFile, _first_bad_line, _quote

__all__ = ["read_arff", "label_names_from_xml"]


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
        Not an ARFF file scipy can read (sparse ARFF, string attributes, a
        truncated file), a data line with the wrong number of values, a
        value that is not finite (a ``?``), a bad N, a missing label
        attribute, a nominal feature, or a label value other than 0/1; the
        message gives the line where one line is at fault.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> d = read_arff(data_path("yeast", "yeast-test.arff"), labels=14)
    >>> d.X.shape, d.y.shape, d.label_names[0]
    ((917, 103), (917, 14), 'Class1')
    """
    path = os.fspath(path)
    rows, meta, data_lines = _load_arff(path)
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
    if not data_lines:
        raise ValueError(f"{path}: no data lines after @data")
    X = np.column_stack([rows[n].astype(np.float64) for n in feature_names])
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{path}, line {data_lines[i][0]}: attribute "
                         f"{_quote(feature_names[j])} is {float(X[i, j])!r} (only finite "
                         "numbers are accepted; '?' is a missing value)")
    Y = None
    if has_labels:
        Y = np.empty((X.shape[0], len(label_names)), dtype=np.int64)
        for k, name in enumerate(label_names):
            col = rows[name]
            vals = col.astype(str) if types[name] == "nominal" else col.astype(np.float64)
            ok = np.isin(vals, ["0", "1"] if types[name] == "nominal" else [0.0, 1.0])
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(f"{path}, line {data_lines[i][0]}: label attribute "
                                 f"{_quote(name)} holds {_quote(str(vals[i]))}; labels must "
                                 "be 0 or 1")
            Y[:, k] = (vals == ("1" if types[name] == "nominal" else 1.0))
    return DataFile(X=np.ascontiguousarray(X), y=Y, feature_names=feature_names,
                    label_names=label_names, format="arff")


_ARFF_DATA = re.compile(r"\s*@data\b", re.IGNORECASE)
_SPARSE_HINT = ("sparse ARFF data lines {index value, ...} are not supported by "
                "scipy.io.arff; use an SVMlight multi-label file")


def _load_arff(path):
    """scipy's ``loadarff`` on the file at ``path``, every failure turned into
    a ValueError that names the line at fault where one is.

    Returns (rows, meta, data_lines): scipy's record array and metadata, and
    (line number, text) of each data row in order.
    """
    from scipy.io import arff

    try:
        with open_input(path) as (stream, kind):
            text = io.TextIOWrapper(stream, encoding="utf-8")     # universal newlines
            lines = list(Lines(text, path, "not an ARFF file", kind, _common.MAX_LINE_BYTES))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not an ARFF file (not UTF-8 text: "
                         f"{_one_line(exc, 120)})") from exc
    start = next((i for i, t in enumerate(lines) if _ARFF_DATA.match(t)), None)
    if start is None:
        raise ValueError(f"{path}: not an ARFF file (no @data line: a truncated file, or "
                         "another format)")
    header = "".join(lines[:start + 1])
    # scipy's data rows: every line after @data but blank lines and % comments
    data = [(number, t) for number, t in enumerate(lines[start + 1:], start + 2)
            if t.strip() and not t.startswith("%")]

    def parse(body):
        return arff.loadarff(io.StringIO(header + "".join(body)))

    try:
        _, meta = parse([])
    except Exception as exc:              # scipy raises ParseArffError, ValueError, ...
        raise ValueError(f"{path}: not an ARFF header scipy can read "
                         f"({_one_line(exc, 160)})") from exc
    n_attributes = len(meta.names())
    for number, t in data:
        if t.lstrip().startswith("{"):
            raise ValueError(f"{path}, line {number}: {_SPARSE_HINT}")
        quote = "'" if "'" in t else '"'
        fields = next(csv.reader([t], quotechar=quote, skipinitialspace=True))
        if len(fields) != n_attributes:
            raise ValueError(f"{path}, line {number}: {len(fields)} value"
                             f"{'s' * (len(fields) != 1)}, the header declares "
                             f"{n_attributes} attributes: {_quote(t)}")
    try:
        rows, meta = parse(t for _, t in data)
    except Exception as exc:
        bad = _first_bad_line(data, parse)
        if bad is None:
            raise ValueError(f"{path}: not an ARFF file scipy can read "
                             f"({_one_line(exc, 160)})") from exc
        number, t, why = bad
        raise ValueError(f"{path}, line {number}: not an ARFF data line scipy can read "
                         f"({_one_line(why, 120)}): {_quote(t)}") from exc
    return rows, meta, data


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

