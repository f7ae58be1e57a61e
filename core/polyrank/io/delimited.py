"""Delimited text with a header line (:func:`~polyrank.io.read_csv`, parsed by
:mod:`csv`; the delimiter, e.g. ``,`` or the ``;`` of the UCI wine files, is
sniffed).
"""

from __future__ import annotations

import csv
import io
import itertools
import os

import numpy as np

from .._input import Lines, open_input
from .._text import cut as _cut
from .._text import one_line as _one_line
from . import _common
from ._common import DataFile, _check_finite, _quote

__all__ = ["read_csv"]


def _csv_rows(path: str, delimiter: str | None):
    """The header, the non-empty rows and their line numbers of a delimited
    file, and the delimiter (when None, sniffed among ``,`` ``;`` tab and
    ``|`` in the first 20 lines; ``,`` if unsure); ValueError for an empty,
    non-UTF-8 or non-CSV file.  The file is read once (see :func:`read_svmlight`)."""
    with open_input(path) as (stream, kind):
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        lines = Lines(text, path, "not a CSV text file", kind, _common.MAX_LINE_BYTES)
        try:
            it = iter(lines)
            head = list(itertools.islice(it, 20))
            if delimiter is None:
                try:
                    delimiter = csv.Sniffer().sniff("".join(head)[:1 << 16],
                                                    delimiters=",;\t|").delimiter
                except csv.Error:
                    delimiter = ","
            reader = csv.reader(itertools.chain(head, it), delimiter=delimiter)
            header = next(reader, None)
            rows, numbers = [], []
            for row in reader:
                if row:
                    rows.append(row)
                    numbers.append(reader.line_num)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not a UTF-8 text file ({_one_line(exc, 120)})") \
                from exc
        except csv.Error as exc:      # a field beyond csv's size limit
            raise ValueError(f"{lines.where(lines.number)}: not a CSV text file "
                             f"({_one_line(exc, 120)})") from exc
    if header is None or not rows:
        raise ValueError(f"{path}: no header line and data lines (an empty file?)")
    return header, rows, numbers, delimiter


def _checked_header(path: str, header: list[str], rows, lines, delimiter) -> list[str]:
    """The column names, stripped; ValueError for a repeated name or a line
    whose number of fields differs from the header's."""
    header = [h.strip() for h in header]
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise ValueError(f"{path}, line 1: repeated column names "
                         f"{_cut(', '.join(map(_quote, repeated)), 160)}")
    for row, line in zip(rows, lines):
        if len(row) != len(header):
            raise ValueError(f"{path}, line {line}: {len(row)} fields, the header has "
                             f"{len(header)} (delimiter {delimiter!r})")
    return header


def _feature_columns(path: str, header: list[str], index: dict, target,
                     feature_names) -> list[str]:
    """The feature columns: every column but the target, or ``feature_names``
    exactly (ValueError naming the missing and unexpected columns); ValueError
    if there is none."""
    if feature_names is None:
        feature_names = [h for h in header if h != target]
    else:
        feature_names = list(feature_names)
        missing = [f for f in feature_names if f not in index]
        extra = [h for h in header if h not in feature_names and h != target]
        if missing or extra:
            raise ValueError(f"{path}: the feature columns differ from the model's"
                             + (f"; missing {_cut(str(missing), 120)}" if missing else "")
                             + (f"; unexpected {_cut(str(extra), 120)}" if extra else ""))
    if not feature_names:
        raise ValueError(f"{path}: no feature column besides the target {_quote(target)}")
    return feature_names


def read_csv(path, target=None, *, feature_names=None, require_target: bool = True,
             delimiter: str | None = None, numeric_target: bool = False) -> DataFile:
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
    numeric_target : bool, default False
        True: every target must be a number (regression, ordinal and
        ranking targets); a cell that is not is a ValueError naming its line
        and column and quoting it.  False: targets that are not all numbers
        are read as strings (class labels).

    Returns
    -------
    DataFile
        X float64 (n, n_features); y float64 if every target is a number,
        else str; ``feature_names``.

    Raises
    ------
    ValueError
        Empty file, repeated column names, ragged lines, a line longer than
        :data:`~polyrank.io.MAX_LINE_BYTES` characters or holding a NUL byte, a missing
        target or feature column, a feature value (or, with
        ``numeric_target``, a target) that is not a finite number (the
        message gives the line and column and quotes the cell).
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
    header, rows, lines, delimiter = _csv_rows(path, delimiter)
    header = _checked_header(path, header, rows, lines, delimiter)
    index = {h: j for j, h in enumerate(header)}
    if target is not None and target not in index and require_target:
        raise ValueError(f"{path}: no column {_quote(target)} (the target); columns: "
                         + _cut(", ".join(header), 160))
    feature_names = _feature_columns(path, header, index, target, feature_names)
    X = np.empty((len(rows), len(feature_names)))
    for k, name in enumerate(feature_names):
        X[:, k] = _numbers(path, [r[index[name]] for r in rows], name, lines)
    y = None
    if target is not None and target in index:
        values = [r[index[target]].strip() for r in rows]
        try:
            y = np.asarray(values, dtype=np.float64)
        except ValueError:
            if numeric_target:      # name the first cell that is not a number
                _numbers(path, values, target, lines)
            y = np.asarray(values, dtype=str)
        _check_finite(path, y, lambda i: i, f"the target {_quote(target)}",
                      lambda i: lines[i])
    return DataFile(X=X, y=y, feature_names=feature_names, format="csv")


def _numbers(path, values, name, lines) -> np.ndarray:
    """A CSV column as finite float64, or ValueError naming the first bad
    cell (line and column)."""
    try:
        col = np.asarray(values, dtype=np.float64)
    except ValueError:
        for v, line in zip(values, lines):
            try:
                float(v)
            except ValueError:
                what = "an empty value (missing values are not supported)" \
                    if not v.strip() else f"{_quote(v)} is not a number"
                raise ValueError(f"{path}, line {line}, column {_quote(name)}: {what}") \
                    from None
        raise                                       # pragma: no cover
    _check_finite(path, col, lambda i: i, f"column {_quote(name)}", lambda i: lines[i])
    return col

