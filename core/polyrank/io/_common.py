"""What the readers of :mod:`polyrank.io` share: :class:`DataFile`, the
limits of what they read (:data:`~polyrank.io.MAX_LINE_BYTES`,
:data:`~polyrank.io.QUOTE_CHARS`), the quoting of a file's text in messages,
the search for the line a parser refuses, and the finiteness check that
names a line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DataFile", "integral_labels", "QUOTE_CHARS", "MAX_LINE_BYTES"]

# polyrank.io.QUOTE_CHARS: documented there
QUOTE_CHARS = 80
# polyrank.io.MAX_LINE_BYTES: documented there
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
