"""Users' data files and polyrank model files.

What ``polyrank train`` and ``polyrank predict`` (:mod:`polyrank.cli`) read
and write, usable from Python as well.  The parsing is scikit-learn's, scipy's
and the standard library's, never our own:

- :func:`read_svmlight`: SVMlight / LIBSVM / LETOR text files
  (``<label> [qid:<q>] <j>:<v> ...``; multi-label ``<l1>,<l2> <j>:<v> ...``)
  by :func:`sklearn.datasets.load_svmlight_file`;
- :func:`read_query`: LightGBM / SVMlight ``.query`` files (one query size
  per line) as query ids;
- :func:`load_letor_dask`: many LETOR files (or byte ranges of them split
  at query boundaries) as lazy dask arrays, parsed on the workers;
- :func:`read_csv`: delimited text with a header line, by :mod:`csv` (the
  delimiter, e.g. ``,`` or the ``;`` of the UCI wine files, is sniffed);
- :func:`read_arff`: MULAN multi-label ARFF files (the label attributes are
  the last N, or named by MULAN's XML file) by :func:`scipy.io.arff.loadarff`;
- :func:`save_model` / :func:`load_model`: a model file holding a fitted
  estimator (or pipeline) and its metadata (method, data format, number and
  names of the features, label names, versions) in a format that cannot run
  code when it is loaded (skops; see :func:`load_model`).

Data files are untrusted input: they are parsed and checked, never executed.
Each is opened and read once, as a stream (``polyrank._input``), so a
named FIFO or a pipe works as a regular file does; a gzip, bzip2 or xz file
(told by its first bytes) is read through its decompressor; a line longer
than :data:`MAX_LINE_BYTES` or holding a NUL byte is refused.
Every reader returns a :class:`DataFile`, raises ``ValueError`` with a
message that starts with the file's path, gives the line number where one
line is at fault and quotes at most :data:`QUOTE_CHARS` characters of it,
and lets ``OSError`` (a missing or unreadable file) through.  Values that
are not finite (``nan``, ``inf``, an ARFF ``?``) are refused with their line:
no estimator takes them.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import lzma
import math
import os
import re
import stat
import warnings
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np

from . import __version__
from ._files import write_bytes
from ._input import InputError, Lines, compression, open_input
from ._memory import available_bytes, format_bytes
from ._text import cut as _cut
from ._text import one_line as _one_line
from .datasets import _label_names_from_xml

__all__ = ["DataFile", "read_svmlight", "read_query", "load_letor_dask", "read_csv", "read_arff",
           "label_names_from_xml", "integral_labels", "save_model", "load_model",
           "model_trusted_types", "MODEL_FORMAT", "MODEL_FORMAT_VERSION", "QUOTE_CHARS",
           "MAX_LINE_BYTES", "MODEL_MAX_RATIO", "MODEL_RATIO_FLOOR"]

#: The ``format`` entry of a model file written by :func:`save_model`.
MODEL_FORMAT = "polyrank-model"
#: Version of the model file layout: 2 is skops + a JSON header (safe to load);
#: 1 was a joblib pickle (loaded only with ``trusted=True``).
MODEL_FORMAT_VERSION = 2
#: The most characters of a file's offending text an error message quotes.
QUOTE_CHARS = 80
#: The longest line a data file may have, in bytes (characters in CSV and
#: ARFF files), the line end not counted: 64 MiB, about three million
#: SVMlight ``index:value`` pairs.  A longer line is refused with its file
#: and line number after at most this many bytes of it were read, so a
#: 1 GB line never reaches memory.  Read at each call: assign
#: ``polyrank.io.MAX_LINE_BYTES`` to read longer lines.
MAX_LINE_BYTES = 64 * 2 ** 20


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


def _quote(text, limit: int = QUOTE_CHARS) -> str:
    """A line (str or bytes) of a user's file as a quoted, printable
    string of at most ``limit`` characters."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.rstrip("\r\n")
    shown = repr(text[:limit + 1])          # control characters escaped
    if len(text) <= limit and len(shown) <= limit + 2:
        return shown
    return f"{shown[:limit]}... ({len(text):,} characters)"


def _first_bad_line(lines, parse, chunk: int = 4096):
    """The first of ``lines`` (an iterable of (line number, text)) that
    ``parse`` refuses: ``(line number, text, exception)``, or None.

    ``parse(list of texts)`` is the reader itself on a part of the file, so
    the line found is the one the reader failed on.  Lines are taken in
    chunks; a failing chunk is bisected (a part that parses has no bad
    line), so the cost is about two reads of the file.
    """
    def fails(part):
        try:
            parse([text for _, text in part])
        except (MemoryError, KeyboardInterrupt):
            raise
        except Exception as exc:       # the reader's own failure, whatever its type
            return exc
        return None

    buf = []
    for item in lines:
        buf.append(item)
        if len(buf) == chunk:
            found = _bisect_bad(buf, fails)
            if found is not None:
                return found
            buf = []
    return _bisect_bad(buf, fails) if buf else None


def _bisect_bad(part, fails):
    if fails(part) is None:
        return None
    lo, hi = 0, len(part)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fails(part[lo:mid]) is None:
            lo = mid
        else:
            hi = mid
    exc = fails(part[lo:hi])
    return None if exc is None else (part[lo][0], part[lo][1], exc)


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
            and np.all(np.abs(arr) <= 2.0 ** 53) and np.all(arr == np.round(arr)):
        return arr.astype(np.int64)       # whole numbers that int64 holds exactly
    return arr


# ------------------------------------------------------------------ SVMlight

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
        and quotes its start), a line longer than :data:`MAX_LINE_BYTES` or
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
        lines = Lines(stream, path, "not an SVMlight/LIBSVM file", kind, MAX_LINE_BYTES)
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


def _check_finite(path, values, row_of, what: str, line_of) -> None:
    """ValueError naming the line of the first value that is not finite.

    ``row_of(k)`` maps the position in ``values`` to the data row,
    ``line_of(row)`` the row to the file's line number.
    """
    values = np.asarray(values)
    if values.dtype.kind != "f":
        return
    bad = ~np.isfinite(values)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{path}, line {line_of(row_of(k))}: {what} is {float(values[k])!r} "
                         "(only finite numbers are accepted)")


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
        lines = Lines(stream, path, "not a .query file", kind, MAX_LINE_BYTES)
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


# ------------------------------------------------------- LETOR on a cluster

def load_letor_dask(paths, *, n_features: int, blocksize: int | None = None,
                    zero_based: bool = False) -> DataFile:
    """Read LETOR / SVMlight files with ``qid:`` fields into dask arrays,
    lazily: nothing is read until a partition is computed (on a worker).

    One partition per file, or, with ``blocksize``, per byte range of about
    that size, each range moved forward to the next query boundary (the
    first line whose ``qid:`` differs from the line before it), so a query
    whose lines are consecutive in its file lies in one partition.  X, y and
    qid of a partition come from one parse of its bytes (aligned by
    construction); the partitions suit :class:`polyrank.dask.DaskRankSVM`,
    which checks on the workers that no query id occurs in two partitions
    (e.g. the same id in two files).

    Parameters
    ----------
    paths : str, path-like or sequence of them
        The files, in order (e.g. ``sorted(glob.glob("shards/*.txt"))``).
    n_features : int
        The width of X (LETOR 4.0: 46, MSLR-WEB: 136): every partition must
        know it before reading; a file using a larger index raises
        ValueError when its partition is read.
    blocksize : int, optional
        Bytes per partition (e.g. ``64 * 2**20``); None: one partition per
        file (the only way to read a compressed file, read through its
        decompressor as :func:`read_svmlight` does).  A query longer than a
        block leaves an empty partition.
    zero_based : bool, default False
        Whether feature indices start at 0 (LETOR's start at 1); one
        setting for all partitions.

    Returns
    -------
    DataFile
        ``X``: dask array, shape (nan, n_features), of scipy CSR chunks;
        ``y``: float64 and ``qid``: int64 dask arrays, shape (nan,) (the
        numbers of rows are unknown until read), chunked like X;
        ``format="svmlight"``.

    Raises
    ------
    ValueError
        Now: no paths, ``n_features`` < 1, ``blocksize`` < 1, or
        ``blocksize`` with a compressed (gzip, bzip2, xz) or non-regular
        file (byte ranges need a regular, uncompressed file: set
        ``blocksize=None``, as dask says).  When a
        partition is read: the errors of :func:`read_svmlight` (file and
        line named: not SVMlight, not finite, an index beyond
        ``n_features``), or a line without ``qid:``.
    OSError
        Now: a file that does not exist (its size is needed to plan the
        byte ranges).
    ImportError
        Without dask (``pip install 'polyrank[dask]'``).

    Examples
    --------
    >>> from polyrank.datasets import data_path
    >>> d = load_letor_dask([data_path("MQ2008", "vali.txt")], n_features=46,
    ...                     blocksize=300_000)
    >>> d.X.numblocks[0], d.X.shape[1]
    (6, 46)
    >>> X, qid = d.X.compute(), d.qid.compute()
    >>> X.shape, int(np.unique(qid).size)
    ((2707, 46), 157)
    """
    try:
        import dask
        import dask.array as da
    except ImportError as exc:
        raise ImportError("load_letor_dask needs dask: pip install 'polyrank[dask]'") from exc
    import scipy.sparse as sp

    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ValueError("paths: no file given")
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)) \
            or n_features < 1:
        raise ValueError(f"n_features: expected an integer >= 1, got {n_features!r}")
    if blocksize is not None and (isinstance(blocksize, bool) or
                                  not isinstance(blocksize, (int, np.integer)) or blocksize < 1):
        raise ValueError(f"blocksize: expected None or an integer >= 1, got {blocksize!r}")
    n_features, zb = int(n_features), bool(zero_based)
    Xs, ys, qs = [], [], []
    for path in paths:
        size = os.path.getsize(path)
        if blocksize is not None:
            _check_byte_ranges(path, int(blocksize))
        step = size if blocksize is None else int(blocksize)
        for start in range(0, max(size, 1), max(step, 1)):
            part = dask.delayed(_read_letor_part, nout=3, pure=True)(
                path, start, start + step, n_features, zb, blocksize is None)
            Xs.append(da.from_delayed(part[0], shape=(np.nan, n_features), dtype=np.float64,
                                      meta=sp.csr_matrix((0, n_features))))
            ys.append(da.from_delayed(part[1], shape=(np.nan,), dtype=np.float64))
            qs.append(da.from_delayed(part[2], shape=(np.nan,), dtype=np.int64))
    return DataFile(X=da.concatenate(Xs), y=da.concatenate(ys), qid=da.concatenate(qs),
                    format="svmlight", zero_based=zb)


def _check_byte_ranges(path: str, blocksize: int) -> None:
    """ValueError unless ``path`` can be read in byte ranges: a regular file
    (checked without opening it), not compressed (dask's own rule)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path}: not a regular file, so it cannot be read in byte ranges "
                         f"(blocksize={blocksize}); to read it, set blocksize=None")
    with open(path, "rb") as fh:
        kind = compression(fh.read(10))
    if kind is not None:
        raise ValueError(f"{path}: a {kind}-compressed file cannot be read in byte ranges "
                         f"(blocksize={blocksize}); as dask says, \"Cannot do chunked reads on "
                         "compressed files. To read, set blocksize=None\" (one partition per "
                         "file)")


def _read_letor_part(path, start: int, stop: int, n_features: int, zero_based: bool,
                     whole: bool):
    """(X CSR, y, qid) of the lines of ``path`` from the query boundary at
    or after byte ``start`` to the one at or after ``stop`` (the whole file
    when ``whole``)."""
    import scipy.sparse as sp

    if whole:
        d = read_svmlight(path, n_features=n_features, query_id=True, zero_based=zero_based)
        if d.qid is None:
            raise ValueError(f"{path}: no line has a qid: field (LETOR files give every line "
                             "one)")
        return d.X, d.y, d.qid
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        begin = 0 if start == 0 else _query_boundary(fh, start, size)
        end = size if stop >= size else _query_boundary(fh, stop, size)
        if begin >= end:
            return (sp.csr_matrix((0, n_features)), np.zeros(0), np.zeros(0, dtype=np.int64))
        fh.seek(begin)
        data = fh.read(end - begin)

    def first_line():              # counted only for an error message
        with open(path, "rb") as f:
            return 1 + _count_newlines(f, begin)

    return _parse_letor_bytes(path, data, first_line, n_features, zero_based)


def _line_qid(line: bytes):
    """The query id of an SVMlight line (``<label> qid:<q> ...``): an int,
    the raw bytes if not one, b"" for a data line without it, None for a
    blank or comment line."""
    fields = line.split(b"#", 1)[0].split()
    if not fields:
        return None
    if len(fields) < 2 or not fields[1].startswith(b"qid:"):
        return b""
    try:
        return int(fields[1][4:])
    except ValueError:
        return fields[1][4:]


def _qid_before(fh, pos: int):
    """The query id of the last data line that ends at or before ``pos``
    (a line start), or None if there is none."""
    chunk = 1 << 16
    while True:
        lo = max(0, pos - chunk)
        fh.seek(lo)
        lines = fh.read(pos - lo).split(b"\n")
        whole = lines if lo == 0 else lines[1:]      # the first may be cut
        for line in reversed(whole):
            q = _line_qid(line)
            if q is not None:
                return q
        if lo == 0:
            return None
        if chunk >= MAX_LINE_BYTES:
            raise ValueError(f"{fh.name}: no data line ends in the {chunk:,} bytes before "
                             f"byte {pos:,} (a line longer than {MAX_LINE_BYTES:,} bytes, the "
                             "limit polyrank.io.MAX_LINE_BYTES?)")
        chunk *= 4


def _bounded_readline(fh) -> bytes:
    """The next line of ``fh``; ValueError, naming a byte of it, for a line
    longer than :data:`MAX_LINE_BYTES` (after reading that much)."""
    start = fh.tell()
    line = fh.readline(MAX_LINE_BYTES + 1)
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        raise ValueError(f"{fh.name}: a line longer than {MAX_LINE_BYTES:,} bytes (the limit "
                         f"polyrank.io.MAX_LINE_BYTES) runs through byte {start:,}")
    return line


def _query_boundary(fh, pos: int, size: int) -> int:
    """The start of the first line at or after byte ``pos`` whose query id
    differs from that of the data line before it (``size`` at the end)."""
    fh.seek(pos - 1)
    _bounded_readline(fh)                            # to the next line start
    p = fh.tell()
    prev = _qid_before(fh, p)
    fh.seek(p)
    for line in iter(lambda: _bounded_readline(fh), b""):
        q = _line_qid(line)
        if q is not None and q != prev:
            return p
        p += len(line)
    return size


def _count_newlines(fh, end: int) -> int:
    """The number of line ends in the first ``end`` bytes of ``fh``."""
    fh.seek(0)
    count, left = 0, end
    while left > 0:
        block = fh.read(min(left, 1 << 20))
        if not block:
            break
        count += block.count(b"\n")
        left -= len(block)
    return count


def _parse_letor_bytes(path, data: bytes, first_line, n_features: int,
                       zero_based: bool):
    """Parse the lines ``data`` of ``path`` (its line ``first_line()`` on) as
    :func:`read_svmlight` does, errors naming the file's line numbers."""
    lines = Lines(io.BytesIO(data), path, "not an SVMlight/LIBSVM file", None,
                  MAX_LINE_BYTES, line_base=lambda: first_line() - 1)
    X, y, qid, source = _parse_svmlight(path, lines, query_id=True, multilabel=False)
    if qid is None:
        raise ValueError(f"{path}, line {source.line_of_row(0)}: no qid: field (LETOR files "
                         "give every line one)")
    X, _ = _index_base(path, X, zero_based, source)
    _check_svmlight(path, X, y, qid, n_features, zero_based, source)
    X.resize((X.shape[0], n_features))
    return X, np.asarray(y, dtype=np.float64), qid


# ----------------------------------------------------------------------- CSV

def _csv_rows(path: str, delimiter: str | None):
    """The header, the non-empty rows and their line numbers of a delimited
    file, and the delimiter (when None, sniffed among ``,`` ``;`` tab and
    ``|`` in the first 20 lines; ``,`` if unsure); ValueError for an empty,
    non-UTF-8 or non-CSV file.  The file is read once (see :func:`read_svmlight`)."""
    with open_input(path) as (stream, kind):
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        lines = Lines(text, path, "not a CSV text file", kind, MAX_LINE_BYTES)
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
        :data:`MAX_LINE_BYTES` characters or holding a NUL byte, a missing
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
            lines = list(Lines(text, path, "not an ARFF file", kind, MAX_LINE_BYTES))
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


# ------------------------------------------------------------- model files

#: The member of a model file (a skops zip archive) that holds polyrank's
#: header: format tag, versions and the metadata given to :func:`save_model`.
_HEADER = "polyrank-model.json"
#: The largest header :func:`load_model` reads (a header is a few kB).
_HEADER_MAX_BYTES = 1 << 24
#: :func:`load_model` refuses a member of a model archive that inflates to
#: more than this many times its compressed size (a zip bomb: a 1 MB file
#: inflating to GBs) when it is larger than :data:`MODEL_RATIO_FLOOR`.
#: Arrays of numbers deflate a few times; only arrays that are nearly all
#: one value come near 200.
MODEL_MAX_RATIO = 200.0
#: Members up to this size (16 MiB) are not refused for their ratio.
MODEL_RATIO_FLOOR = 16 * 2 ** 20
#: The first bytes of files pickle or joblib write (protocol 2+ pickles, and
#: joblib's zlib, gzip, bz2, xz, lzma and lz4 compressed pickles)
_PICKLE_MAGIC = (b"\x80", b"x\x01", b"x\x5e", b"x\x9c", b"x\xda", b"\x1f\x8b", b"BZh",
                 b"\xfd7zXZ", b"\x5d\x00\x00", b"\x04\x22\x4d\x18", b"ZF")


def model_trusted_types() -> list[str]:
    """The types a model file may hold beyond skops' defaults (numpy arrays,
    scipy sparse matrices, scikit-learn's estimators such as ``Pipeline``
    and ``StandardScaler``, Python containers): polyrank's seven estimators,
    the solver result they keep (``result_``: :class:`~polyrank.SolverResult`
    and its :class:`~polyrank.Trace`), their target coding and SOPOPO's piece
    set, and ``numpy.dtype``.

    Loading constructs these classes from stored data (``cls.__new__`` and
    the stored attributes); none runs code from the file.

    Returns
    -------
    list of str
        Fully qualified type names, as :func:`skops.io.load` takes them.

    Examples
    --------
    >>> "polyrank.ranksvm.estimator.RankSVM" in model_trusted_types()
    True
    """
    return sorted(_TRUSTED_TYPES)


#: see model_trusted_types; names, not imports (this shared module imports no
#: paper subpackage); tests/test_io_model_files.py checks each resolves to its
#: class and that a fitted estimator of each kind holds no other type
_TRUSTED_TYPES = (
    "polyrank.sopopo.estimator.LabelRanker",
    "polyrank.sign.estimator.SignConstrainedClassifier",
    "polyrank.sign.estimator.SignConstrainedRegressor",
    "polyrank.ranksvm.estimator.RankSVM",
    "polyrank.ordinal.estimator.OrdinalMarginRanker",
    "polyrank.ordinal.estimator.PRank",
    "polyrank.m3l.estimator.M3LClassifier",
    "polyrank.result.SolverResult",
    "polyrank.result.Trace",
    "polyrank._multilabel.TargetCoding",
    "polyrank.sopopo.graph.PieceSet",
    "numpy.dtype",
)


def _json_ready(value):
    """Metadata as JSON: numpy arrays and scalars as lists and numbers,
    tuples and sets as lists, dict keys as strings; any other object as its
    ``repr``."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(_json_ready(k)): _json_ready(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json_ready(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return repr(value)


def save_model(path, estimator, **metadata) -> None:
    """Write a fitted estimator and its metadata to a model file that cannot
    run code when it is loaded.

    The file is a skops archive (:func:`skops.io.dump`: the estimator's
    attributes as JSON and numpy ``.npy`` members, never a pickle) with one
    more member, ``polyrank-model.json``: the format tag
    :data:`MODEL_FORMAT`, :data:`MODEL_FORMAT_VERSION`, the versions of
    polyrank, scikit-learn, skops, numpy and Python, the estimator's class
    and ``metadata``.  It is written atomically (a temporary file moved into
    place), so a failed or interrupted save leaves an older file intact.

    Parameters
    ----------
    path : str or path-like
    estimator : object
        A fitted estimator or pipeline made of polyrank's estimators and
        scikit-learn's (see :func:`model_trusted_types`).  Everything it
        holds is stored, ``result_`` (the solver's result and trace)
        included.
    **metadata
        JSON-like entries stored beside it (``polyrank train`` stores
        ``method``, ``task``, ``data_format``, ``n_features``,
        ``feature_names``, ``label_names``, ``target``, ...).  numpy values
        are stored as lists and numbers, dict keys as strings, other objects
        as their ``repr``.

    Raises
    ------
    TypeError
        ``estimator`` holds a type that :func:`load_model` would not trust
        (e.g. a user's own transformer in a pipeline): the file is not
        written.  Save such a model with skops (``skops.io.dump``) and load
        it with the types you trust.
    OSError
        The file cannot be written (an older file at ``path`` is intact).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from polyrank import RankSVM
    >>> X, y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([2, 0, 1])
    >>> est = RankSVM().fit(X, y, qid=np.zeros(3))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rank.model"
    >>> save_model(path, est, method="ranksvm")
    >>> est2, meta = load_model(path)
    >>> bool(np.array_equal(est2.predict(X), est.predict(X))), meta["method"]
    (True, 'ranksvm')
    """
    import platform

    import sklearn
    import skops
    import skops.io as sio

    data = sio.dumps(estimator, compression=zipfile.ZIP_DEFLATED)
    untrusted = sorted(set(sio.get_untrusted_types(data=data)) - set(model_trusted_types()))
    if untrusted:
        raise TypeError(f"estimator: holds types that polyrank's model files do not trust: "
                        f"{_cut(', '.join(untrusted), 200)} (save it with skops.io.dump and "
                        "load it with skops.io.load(path, trusted=[...]) yourself)")
    header = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
              "polyrank_version": __version__, "sklearn_version": sklearn.__version__,
              "skops_version": skops.__version__, "numpy_version": np.__version__,
              "python_version": platform.python_version(),
              "estimator_class": f"{type(estimator).__module__}.{type(estimator).__qualname__}",
              "metadata": _json_ready(metadata)}
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_HEADER, json.dumps(header, indent=1))
    write_bytes(path, buf.getvalue())


def load_model(path, *, trusted: bool = False, max_ratio: float | None = MODEL_MAX_RATIO):
    """Read a model file written by :func:`save_model`, without running code
    from it.

    The file is read once (a FIFO or a pipe works too); the sizes of its
    members are bounded and its header (format tag and versions) checked
    first; the estimator is then rebuilt by :func:`skops.io.load`, which constructs
    only the types of :func:`model_trusted_types` and skops' defaults from
    stored data and refuses a file that names any other.  A pickle or joblib
    file (what polyrank 0.1 wrote, or any other program's) can run arbitrary
    code when it is loaded, so it is refused unless ``trusted=True``.

    Parameters
    ----------
    path : str or path-like
    trusted : bool, default False
        True: you trust the file's source.  A pickle/joblib model file of
        format 1 (polyrank's earlier format) is then loaded with joblib, and
        a skops model file may hold any type.  Never pass True for a file
        from a source you do not trust.
    max_ratio : float or None, default :data:`MODEL_MAX_RATIO`
        The most a member of the archive larger than
        :data:`MODEL_RATIO_FLOOR` bytes may inflate, relative to its
        compressed size; None: no such bound (the memory bound stays).

    Returns
    -------
    estimator : object
    metadata : dict
        The header's entries (``format``, ``format_version``, the versions)
        and the metadata given to :func:`save_model`, in one dict (JSON
        types: lists for tuples and arrays, string dict keys).

    Raises
    ------
    ValueError
        A pickle/joblib file without ``trusted=True``; not a polyrank model
        file (corrupt, truncated, another program's file); a skops file
        holding types polyrank does not trust; another format version (the
        message names both format versions and both polyrank versions); a
        member that inflates more than ``max_ratio`` times (a zip bomb) or
        a ``.npy`` member whose header's shape and dtype disagree with its
        size (the message names the member).  Every member's size is
        checked, from the archive's directory and the arrays' headers,
        before any member is read.
    MemoryError
        The file, or its members together, would inflate to more than the
        memory available (the message names the member).
    OSError
        The file cannot be read.

    Warns
    -----
    UserWarning
        The file was written by another polyrank version (the message names
        both).
    """
    path = os.fspath(path)
    if max_ratio is not None and not max_ratio > 0:
        raise ValueError(f"max_ratio: expected a number > 0 or None, got {max_ratio!r}")
    data = _read_model_bytes(path)
    if zipfile.is_zipfile(io.BytesIO(data)):
        with _damage_as_value_error(path):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                _check_members(path, archive, max_ratio, available_bytes())
                header = _model_header(path, archive)
        _check_versions(path, header, MODEL_FORMAT_VERSION)
        est = _load_skops(path, data, trusted)
    elif not trusted:
        if data.startswith(_PICKLE_MAGIC):
            raise ValueError(f"{path}: this is a pickle (joblib) file, which can run code "
                             "when loaded; polyrank's model files cannot. Reload with "
                             "trusted=True (polyrank predict --trust-pickle) only if you trust "
                             "its source")
        raise ValueError(f"{path}: not a polyrank model file (neither polyrank's format, a "
                         "skops zip archive, nor a pickle)")
    else:
        header, est = _load_pickle(path, data)
        _check_versions(path, header, 1)
    meta = {k: v for k, v in header.items() if k != "metadata"}
    meta.update(header.get("metadata") or {})
    return est, meta


def _read_model_bytes(path: str) -> bytes:
    """The bytes of a model file, read once (a FIFO or a pipe too), at most
    the memory available (MemoryError naming the file beyond it)."""
    budget = available_bytes()
    with open(path, "rb") as fh:                   # OSError before any other message
        size = os.fstat(fh.fileno()).st_size
        if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            if budget is not None and size > budget:
                raise MemoryError(f"{path}: a model file of {format_bytes(size)}, more than "
                                  f"the {format_bytes(budget)} of memory available")
            return fh.read()
        chunks, total = [], 0
        while chunk := fh.read(1 << 20):
            total += len(chunk)
            if budget is not None and total > budget:
                raise MemoryError(f"{path}: a model file of more than {format_bytes(budget)}, "
                                  "the memory available")
            chunks.append(chunk)
    return b"".join(chunks)


@contextlib.contextmanager
def _damage_as_value_error(path: str):
    """A zip archive's damage (zipfile's and zlib's errors) as a ValueError
    naming the file."""
    try:
        yield
    except (zipfile.BadZipFile, UnicodeDecodeError, RuntimeError, EOFError, zlib.error,
            NotImplementedError, lzma.LZMAError) as exc:
        raise ValueError(f"{path}: damaged polyrank model file ({type(exc).__name__}: "
                         f"{_one_line(exc, 120)})") from exc


def _check_members(path: str, archive: zipfile.ZipFile, max_ratio, budget,
                   inside: str = "") -> None:
    """Bound a model archive's members before any is read: each inflates to
    at most ``max_ratio`` times its compressed size (or at most
    :data:`MODEL_RATIO_FLOOR` bytes), all together to at most ``budget``
    bytes (None: no bound), and a ``.npy`` member holds exactly the bytes
    its header declares; a ``.npz`` member (a sparse matrix) is checked in
    the same way, member by member (``inside``: its name, for messages)."""
    total = 0
    for info in archive.infolist():
        name = f"{inside}{info.filename}"
        size, packed = info.file_size, info.compress_size
        if max_ratio is not None and size > MODEL_RATIO_FLOOR \
                and size > max_ratio * max(packed, 1):
            raise ValueError(f"{path}: member {name!r} inflates {packed:,} bytes to "
                             f"{size:,} ({size / max(packed, 1):,.0f} times, more than "
                             f"max_ratio={max_ratio:g}): refused as a likely zip bomb")
        total += size
        if budget is not None and total > budget:
            raise MemoryError(f"{path}: member {name!r} inflates to {format_bytes(size)}; the "
                              f"members so far need {format_bytes(total)}, more than the "
                              f"{format_bytes(budget)} of memory available")
        if info.filename.endswith(".npy"):
            _check_npy_member(path, archive, info, name)
        elif info.filename.endswith(".npz") and not inside:
            with zipfile.ZipFile(io.BytesIO(archive.read(info))) as inner:
                _check_members(path, inner, max_ratio,
                               None if budget is None else budget - total, f"{name}:")


def _check_npy_member(path: str, archive: zipfile.ZipFile, info, name: str) -> None:
    """ValueError naming the member unless a ``.npy`` member's header (read
    alone) declares exactly the bytes the member holds."""
    from numpy.lib import format as npy

    readers = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
    with archive.open(info) as fh:
        try:
            version = npy.read_magic(fh)
            if version not in readers:
                return                      # a newer layout: numpy's loader checks it
            shape, _, dtype = readers[version](fh)
        except (ValueError, SyntaxError, EOFError) as exc:
            raise ValueError(f"{path}: member {name!r} is not a .npy array "
                             f"({_one_line(exc, 120)})") from exc
        offset = fh.tell()
    declared = math.prod(shape) * dtype.itemsize
    if offset + declared != info.file_size:
        raise ValueError(f"{path}: member {name!r}: its header declares a {shape} {dtype} "
                         f"array ({declared:,} bytes), the member holds "
                         f"{info.file_size - offset:,} bytes of data")


def _model_header(path: str, archive: zipfile.ZipFile) -> dict:
    """The JSON header of a model file (a zip archive), checked."""
    try:
        info = archive.getinfo(_HEADER)
    except KeyError:
        raise ValueError(f"{path}: not a polyrank model file (a zip archive without "
                         f"polyrank's header {_HEADER})") from None
    if info.file_size > _HEADER_MAX_BYTES:
        raise ValueError(f"{path}: damaged polyrank model file (a {info.file_size:,}-byte "
                         "header)")
    try:
        header = json.loads(archive.read(info).decode("utf-8"))
    except ValueError as exc:       # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path}: damaged polyrank model file ({_one_line(exc, 120)})") \
            from exc
    if not isinstance(header, dict) or header.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: not a polyrank model file (its {_HEADER} has no format "
                         f"{MODEL_FORMAT!r})")
    return header


def _load_skops(path: str, data: bytes, trusted: bool):
    """The estimator of a skops archive (its bytes ``data``), refusing
    untrusted types unless ``trusted``."""
    import skops.io as sio
    from skops.io.exceptions import UntrustedTypesFoundException

    try:
        types = model_trusted_types()
        if trusted:
            types += sio.get_untrusted_types(data=data)
        return sio.loads(data, trusted=types)
    except UntrustedTypesFoundException as exc:
        names = sorted(set(sio.get_untrusted_types(data=data)) - set(model_trusted_types()))
        raise ValueError(f"{path}: holds types polyrank does not trust, refused: "
                         f"{_cut(', '.join(names) or _one_line(exc), 200)}") from exc
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:       # skops on a damaged archive: KeyError, TypeError, ...
        raise ValueError(f"{path}: damaged polyrank model file ({type(exc).__name__}: "
                         f"{_one_line(exc, 120)})") from exc


def _load_pickle(path: str, data: bytes):
    """(header, estimator) of a trusted joblib model file of format 1 (its
    bytes ``data``)."""
    import joblib

    try:
        doc = joblib.load(io.BytesIO(data))
    except Exception as exc:     # unpickling arbitrary bytes can raise anything
        raise ValueError(f"{path}: not a polyrank model file (joblib cannot read it: "
                         f"{type(exc).__name__}: {_one_line(exc, 120)})") from exc
    if not isinstance(doc, dict) or doc.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: not a polyrank model file (a joblib file without "
                         "polyrank's metadata)")
    if "estimator" not in doc:
        raise ValueError(f"{path}: incomplete polyrank model file (no estimator)")
    header = {k: v for k, v in doc.items() if k != "estimator"}
    return header, doc["estimator"]


def _check_versions(path, header, expected: int) -> None:
    """ValueError unless the header says format ``expected`` (2 for a skops
    archive, 1 for a joblib pickle), UserWarning for another polyrank
    version."""
    version, written_by = header.get("format_version"), header.get("polyrank_version")
    if version != expected:
        raise ValueError(f"{path}: model file format {version!r} (written by polyrank "
                         f"{written_by}); this polyrank {__version__} reads format "
                         f"{MODEL_FORMAT_VERSION} (and 1 with trusted=True)")
    if written_by != __version__:
        warnings.warn(f"{path}: written by polyrank {written_by}, read by polyrank "
                      f"{__version__}", UserWarning, stacklevel=3)
