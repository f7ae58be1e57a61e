"""SVMlight / LIBSVM / LETOR text files (:func:`~polyrank.io.read_svmlight`, parsed by
:func:`sklearn.datasets.load_svmlight_file`) and LightGBM / SVMlight
``.query`` files (:func:`~polyrank.io.read_query`).
"""

from __future__ import annotations

import io
import os
import re
import warnings

import numpy as np

from .._input import InputError, Lines, open_input
from .._text import one_line as _one_line
from . import _common
from ._common import DataFile, _check_finite, _quote, integral_labels

__all__ = ["read_svmlight", "read_query"]


def read_svmlight(path, *, n_features: int | None = None, query_id: bool = False,
                  multilabel: bool = False, labels=None,
                  zero_based: bool | None = None) -> DataFile:
    """Read an SVMlight / LIBSVM / LETOR file.

    The file is opened and read once, as a stream (a named FIFO, a pipe
    such as ``<(sed ... file)`` or ``/dev/stdin`` work as a regular file
    does); a gzip, bzip2 or xz file, told by its first bytes, is read
    through its decompressor.

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
        Not an SVMlight file (the message gives the line the parser refuses
        and quotes its start), a line longer than :data:`~polyrank.io.MAX_LINE_BYTES` or
        holding a NUL byte, a damaged or truncated compressed file, a value
        that is not finite (with its line), too many features (with the
        line of the first index beyond ``n_features``), index 0 with
        ``zero_based=False``, mixed ``qid:`` lines, or no label in a
        multi-label file.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> d = read_svmlight(data_path("MQ2008", "vali.txt"), query_id=True)
    >>> d.X.shape, d.zero_based, np.unique(d.qid).size
    ((2707, 46), False, 157)
    """
    path = os.fspath(path)
    with open_input(path) as (stream, kind):
        lines = Lines(stream, path, "not an SVMlight/LIBSVM file", kind, _common.MAX_LINE_BYTES)
        X, y, qid, source = _parse_svmlight(path, lines, query_id=query_id,
                                            multilabel=multilabel)
    X, zb = _index_base(path, X, zero_based, source)
    _check_svmlight(path, X, None if multilabel else y, qid, n_features, zb, source)
    if n_features is not None:
        X.resize((X.shape[0], n_features))
    label_names = None
    if multilabel:
        y, label_names = _indicators(path, y, labels)
    else:
        y = np.asarray(y, dtype=np.float64)
    return DataFile(X=X, y=y, qid=qid, format="svmlight", zero_based=zb,
                    label_names=label_names)


#: a line that holds data for scikit-learn's SVMlight parser: something other
#: than whitespace (bytes.split's) before any "#"
_DATA_LINE = re.compile(rb"[ \t\n\r\x0b\x0c]*[^ \t\n\r\x0b\x0c#]")
#: the first bytes of nearly every data line (a label), tested before _DATA_LINE
_LABEL_START = frozenset(b"0123456789+-.")


class _SvmlightSource:
    """What scikit-learn's SVMlight parser reads (it iterates over a file
    object's lines): the data lines of :class:`~polyrank._input.Lines`,
    remembering which lines held no data row (blank lines, comments) and
    the first data line without a ``qid`` field, so that a data row's line
    number is known without reading the file again."""

    def __init__(self, lines: Lines, query_id: bool) -> None:
        self.lines, self.query_id = lines, query_id
        self.skipped: list[int] = []            # numbers of lines that are no data row
        self.without_qid: int | None = None
        self.done = False

    def read(self, size: int = -1):             # scikit-learn asks for a "read" method
        raise io.UnsupportedOperation("read: iterate over the lines")

    def __iter__(self):
        lines, skipped = self.lines, self.skipped
        for line in lines:
            if line[0] not in _LABEL_START and not _DATA_LINE.match(line):
                skipped.append(lines.number)
                continue
            if self.query_id and self.without_qid is None and b"qid" not in line:
                self.without_qid = lines.number
            yield line
        self.done = True

    def line_of_row(self, row: int) -> int:
        """The line number of data row ``row`` (0-based)."""
        number = row + 1
        for s in self.skipped:                  # sorted: each one before it moves it on
            if s > number:
                break
            number += 1
        return self.lines.base() + number


def _parse_svmlight(path: str, lines: Lines, *, query_id: bool, multilabel: bool):
    """scikit-learn's parser over ``lines``, the indices as written (zero
    based): ``(X CSR, y, qid or None, source)``; ValueError naming the line
    the parser refused."""
    from sklearn.datasets import load_svmlight_file

    source = _SvmlightSource(lines, query_id)
    try:
        X, y, *rest = load_svmlight_file(source, dtype=np.float64, multilabel=multilabel,
                                         zero_based=True, query_id=query_id)
    except (InputError, OSError, MemoryError):
        raise
    except Exception as exc:          # the parser raises ValueError, OverflowError, ...
        if source.done or lines.last is None:
            raise ValueError(f"{path}: not an SVMlight/LIBSVM file "
                             f"({_one_line(exc, 120)})") from exc
        raise ValueError(f"{lines.where(lines.number)}: not an SVMlight/LIBSVM file "
                         f"({_one_line(exc, 120)}): {_quote(lines.last)}") from exc
    n = X.shape[0]
    if n == 0:
        raise ValueError(f"{path}: no data lines")
    qid = None
    if query_id and len(rest[0]):
        qid = np.asarray(rest[0], dtype=np.int64)
        if qid.size != n:
            where = (path if source.without_qid is None
                     else source.lines.where(source.without_qid))
            raise ValueError(f"{where}: no qid: field, but {qid.size} of {n} lines have "
                             "one; give every line one, or none (one query)")
    return X.tocsr(), y, qid, source


def _index_base(path: str, X, zero_based: bool | None, source: _SvmlightSource):
    """X with one-based indices moved to zero-based, and whether the file
    was zero-based: None decides by whether index 0 occurs."""
    has_zero = X.indices.size > 0 and int(X.indices.min()) == 0
    zb = has_zero if zero_based is None else bool(zero_based)
    if has_zero and not zb:
        k = int(np.flatnonzero(X.indices == 0)[0])
        row = int(np.searchsorted(X.indptr, k, side="right")) - 1
        raise ValueError(f"{path}, line {source.line_of_row(row)}: not an SVMlight/LIBSVM "
                         "file (Invalid index 0 in SVMlight/LibSVM data file.): feature "
                         "index 0 in a one-based file (zero_based=False)")
    if zb or X.indices.size == 0:
        return X, zb
    X.indices -= 1                                 # in place, as scikit-learn does
    X.resize((X.shape[0], X.shape[1] - 1))        # drops no entry: index 0 was absent
    return X, zb


def _check_svmlight(path: str, X, y, qid, n_features, zb: bool,
                    source: _SvmlightSource) -> None:
    """ValueError, naming the line, for a value that is not finite (X, and
    y unless None) or an index beyond ``n_features``."""
    row_of_entry = lambda k: int(np.searchsorted(X.indptr, k, side="right")) - 1  # noqa: E731
    _check_finite(path, X.data, row_of_entry, "a feature value", source.line_of_row)
    if y is not None:
        _check_finite(path, np.asarray(y, dtype=np.float64), lambda k: k, "a label",
                      source.line_of_row)
    if n_features is not None and X.shape[1] > n_features:
        k = int(np.flatnonzero(X.indices >= n_features)[0])
        raise ValueError(f"{path}: has {X.shape[1]} features, expected at most {n_features} "
                         f"(line {source.line_of_row(row_of_entry(k))} has feature index"
                         f" {X.indices[k] + (0 if zb else 1)})")



def read_query(path, n_rows: int) -> np.ndarray:
    """Read a LightGBM / SVMlight ``.query`` file: the size of each query,
    one per line, in the order of the data rows.

    LightGBM reads ``DATA.query`` beside ``DATA`` this way (its "query
    data"); the rows of a query are consecutive.  Blank lines are skipped.

    Parameters
    ----------
    path : str or path-like
    n_rows : int
        The number of rows of the data file the sizes belong to; the sizes
        must add up to it.

    Returns
    -------
    qid : ndarray of int64, shape (n_rows,)
        The query of each row: 0 for the rows of the first line's query, 1
        for the next ... (``np.repeat(arange(n_queries), sizes)``).

    Raises
    ------
    ValueError
        A line that is not a positive integer (with its line number), no
        query at all, or sizes that do not add up to ``n_rows``.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "train.txt.query"
    >>> _ = p.write_text("2\\n3\\n")
    >>> read_query(p, 5).tolist()
    [0, 0, 1, 1, 1]
    """
    path = os.fspath(path)
    sizes = []
    with open_input(path) as (stream, kind):
        lines = Lines(stream, path, "not a .query file", kind, _common.MAX_LINE_BYTES)
        for raw in lines:
            text = raw.strip()
            if not text:
                continue
            if not re.fullmatch(rb"\+?[0-9]{1,18}", text) or int(text) == 0:
                raise ValueError(f"{lines.where(lines.number)}: expected the size of a query "
                                 f"(a positive integer), got {_quote(text)}")
            sizes.append(int(text))
    if not sizes:
        raise ValueError(f"{path}: no query size (an empty .query file)")
    total = sum(sizes)
    if total != n_rows:
        raise ValueError(f"{path}: the {len(sizes)} query sizes add up to {total:,} rows, "
                         f"the data have {n_rows:,}")
    return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


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
