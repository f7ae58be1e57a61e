"""Model files: a fitted estimator (or pipeline) and its metadata in a
format that cannot run code when it is loaded (:func:`~polyrank.io.save_model`,
:func:`~polyrank.io.load_model`: a skops archive with polyrank's JSON header; the members'
sizes bounded before any is read).
"""

from __future__ import annotations

import contextlib
import io
import json
import lzma
import math
import os
import stat
import warnings
import zipfile
import zlib

import numpy as np

from .. import __version__, _memory
from .._files import write_bytes
from .._memory import format_bytes
from .._text import cut as _cut
from .._text import one_line as _one_line

__all__ = ["save_model", "load_model", "model_trusted_types", "MODEL_FORMAT",
           "MODEL_FORMAT_VERSION", "MODEL_MAX_RATIO", "MODEL_RATIO_FLOOR"]

# polyrank.io.MODEL_FORMAT: documented there
MODEL_FORMAT = "polyrank-model"
# polyrank.io.MODEL_FORMAT_VERSION: documented there
MODEL_FORMAT_VERSION = 2
#: header: format tag, versions and the metadata given to :func:`save_model`.
_HEADER = "polyrank-model.json"
#: The largest header :func:`load_model` reads (a header is a few kB).
_HEADER_MAX_BYTES = 1 << 24
# polyrank.io.MODEL_MAX_RATIO: documented there
MODEL_MAX_RATIO = 200.0
# polyrank.io.MODEL_RATIO_FLOOR: documented there
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
#: paper subpackage); tests/core/io/test_io_model_files.py checks each resolves to its
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
    :data:`~polyrank.io.MODEL_FORMAT`, :data:`~polyrank.io.MODEL_FORMAT_VERSION`, the versions of
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
    max_ratio : float or None, default :data:`~polyrank.io.MODEL_MAX_RATIO`
        The most a member of the archive larger than
        :data:`~polyrank.io.MODEL_RATIO_FLOOR` bytes may inflate, relative to its
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
                _check_members(path, archive, max_ratio, _memory.available_bytes())
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
    budget = _memory.available_bytes()
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
    :data:`~polyrank.io.MODEL_RATIO_FLOOR` bytes), all together to at most ``budget``
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
