"""Many LETOR / SVMlight files, or byte ranges of them split at query
boundaries, as lazy dask arrays parsed on the workers
(:func:`~polyrank.io.load_letor_dask`; dask is imported when it is called).
"""

from __future__ import annotations

import io
import os
import stat

import numpy as np

from .._input import Lines, compression
from . import _common
from ._common import DataFile
from .svmlight import _check_svmlight, _index_base, _parse_svmlight, read_svmlight

__all__ = ["load_letor_dask"]


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
        cap = _common.MAX_LINE_BYTES
        if chunk >= cap:
            raise ValueError(f"{fh.name}: no data line ends in the {chunk:,} bytes before "
                             f"byte {pos:,} (a line longer than {cap:,} bytes, the "
                             "limit polyrank.io.MAX_LINE_BYTES?)")
        chunk *= 4


def _bounded_readline(fh) -> bytes:
    """The next line of ``fh``; ValueError, naming a byte of it, for a line
    longer than :data:`~polyrank.io.MAX_LINE_BYTES` (after reading that much)."""
    start, cap = fh.tell(), _common.MAX_LINE_BYTES
    line = fh.readline(cap + 1)
    if len(line) > cap and not line.endswith(b"\n"):
        raise ValueError(f"{fh.name}: a line longer than {cap:,} bytes (the limit "
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
                  _common.MAX_LINE_BYTES, line_base=lambda: first_line() - 1)
    X, y, qid, source = _parse_svmlight(path, lines, query_id=True, multilabel=False)
    if qid is None:
        raise ValueError(f"{path}, line {source.line_of_row(0)}: no qid: field (LETOR files "
                         "give every line one)")
    X, _ = _index_base(path, X, zero_based, source)
    _check_svmlight(path, X, y, qid, n_features, zero_based, source)
    X.resize((X.shape[0], n_features))
    return X, np.asarray(y, dtype=np.float64), qid
