"""Stored experiment results: the heavy reproductions of the notebooks are
computed once (``tools/store_results.py``) and shipped with the package, so
that a notebook's Run All loads them in a fraction of a second; a button of
:class:`polyrank_paper.result_view.ResultView` (or ``POLYRANK_RECOMPUTE=1``) computes
them afresh.

A stored result is one JSON file (``stored_results/<name>.json`` here)
holding the experiment's name, the options it was called with, where and
when it ran (:class:`Provenance`), its printed table and notes, and its rows
and summary as *tagged* data: every dataclass is written with the import
path of its class, every tuple, dict and array with its kind, so that
:func:`load_result` rebuilds the same typed objects (``result.summary`` of a
loaded Fig. 6 is a ``Fig6Summary`` as after a run).  Loading never runs code
from the file: a class is looked up only inside the ``polyrank`` and
``polyrank_paper`` packages and only if it is a dataclass; anything else is
refused with a ``ValueError``.
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import json
import math
import os
import platform
import time
from dataclasses import dataclass
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

import numpy as np

from polyrank.utils import write_bytes

from .registry import BENCHES, EXPERIMENTS, Experiment, ExperimentResult, get_experiment

__all__ = ["Provenance", "StoredResult", "save_result", "load_result", "load_or_run",
           "run_and_time", "registered", "stored_path", "STORED_DIR", "RECOMPUTE_ENV",
           "FORMAT", "FORMAT_VERSION"]

#: where the package's stored results live (one ``<name>.json`` per experiment)
STORED_DIR = Path(__file__).with_name("stored_results")
#: set to 1 to make :func:`load_or_run` always compute (the nbval run of the
#: notebooks sets it: the notebooks' checks then test the code, not the file)
RECOMPUTE_ENV = "POLYRANK_RECOMPUTE"
#: the ``format`` entry of a stored result, and its version
FORMAT = "polyrank-experiment-result"
FORMAT_VERSION = 1
_DATACLASS, _TUPLE, _DICT, _ARRAY, _FLOAT = "__dataclass__", "__tuple__", "__dict__", \
    "__ndarray__", "__float__"


@dataclass(frozen=True)
class Provenance:
    """Where and when a stored result was computed.

    Attributes
    ----------
    polyrank_version : str
    created : str
        UTC time, ISO 8601.
    machine : str
        ``platform.platform()`` and the processor, as text.
    cpu_count : int
    elapsed_s : float
        Wall-clock seconds the experiment took there.
    """

    polyrank_version: str
    created: str
    machine: str
    cpu_count: int
    elapsed_s: float


@dataclass
class StoredResult(ExperimentResult):
    """An :class:`~polyrank_paper.ExperimentResult` read from a stored
    file: the same rows, summary, notes and figure, plus where it came from.

    Attributes
    ----------
    options : dict
        The keyword arguments of the run (``quick``, ``seed`` and the
        experiment's own).
    provenance : Provenance
    table : str
        The printed table as stored (its column formatters are code, which
        a file does not carry).
    """

    options: dict = dataclasses.field(default_factory=dict)
    provenance: Provenance | None = None
    table: str = ""

    def format_table(self) -> str:
        """The printed table as it was stored."""
        return self.table


def registered(name: str) -> Experiment:
    """The experiment (``polyrank reproduce NAME``) or else the benchmark
    (``polyrank bench NAME``) registered as ``name``.

    Raises
    ------
    ValueError
        If neither is registered.
    """
    if name in BENCHES and name not in EXPERIMENTS:
        return BENCHES[name]
    return get_experiment(name)


def stored_path(name: str, directory=None) -> Path:
    """The file of the stored result of experiment ``name``: ``<name>.json``
    in ``directory`` (default :data:`STORED_DIR`)."""
    return Path(STORED_DIR if directory is None else directory) / f"{name}.json"


# ------------------------------------------------------------------ encoding
def _encode(obj: Any) -> Any:
    """``obj`` as tagged JSON data (see the module docstring)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = type(obj)
        return {_DATACLASS: f"{cls.__module__}:{cls.__qualname__}",
                "fields": {f.name: _encode(getattr(obj, f.name))
                           for f in dataclasses.fields(obj)}}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"cannot store an array of dtype {obj.dtype}")
        return {_ARRAY: _encode(obj.tolist()), "dtype": obj.dtype.str, "shape": list(obj.shape)}
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        v = float(obj)
        return v if math.isfinite(v) else {_FLOAT: repr(v)}
    if obj is None or isinstance(obj, str):
        return obj
    if isinstance(obj, tuple):
        return {_TUPLE: [_encode(v) for v in obj]}
    if isinstance(obj, list):
        return [_encode(v) for v in obj]
    if isinstance(obj, dict):
        return {_DICT: [[_encode(k), _encode(v)] for k, v in obj.items()]}
    raise TypeError(f"cannot store a {type(obj).__name__} in a result file")


#: where the experiments lived before the paper wing (files stored then name it)
_MOVED = "polyrank.experiments"
#: classes that moved to another module of the paper wing: old module -> (new module,
#: names); a file stored before the move names the old module
_MOVED_CLASSES = {
    # polyrank_paper/ordinal/bench.py split into one module per bench (issue 46)
    "polyrank_paper.ordinal.bench": (
        ("polyrank_paper.ordinal.bench_wine", {"WineRow", "WineSet", "GrowthRow",
                                               "WineSummary"}),
        ("polyrank_paper.ordinal.bench_rc", {"RcPeerRow", "RcSolveRow", "SvcPeerRow",
                                             "WholeQPRow", "RcTable1Row",
                                             "OrdinalRcSummary"})),
}


def _dataclass_type(path: Any) -> type:
    """The dataclass named ``module:qualname``, looked up in polyrank and
    polyrank_paper only (``polyrank.experiments.*``, the experiments' old
    home, is read as ``polyrank_paper.*``)."""
    if not isinstance(path, str) or ":" not in path:
        raise ValueError(f"stored result: bad class reference {path!r}")
    module, qualname = path.split(":", 1)
    if module.split(".")[0] not in ("polyrank", "polyrank_paper"):
        raise ValueError(f"stored result: class {path!r} is outside polyrank; refused")
    if module == _MOVED or module.startswith(_MOVED + "."):     # a file of polyrank 0.1
        module = "polyrank_paper" + module[len(_MOVED):]
    for new, names in _MOVED_CLASSES.get(module, ()):
        if qualname.split(".")[0] in names:
            module = new
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if not (isinstance(obj, type) and dataclasses.is_dataclass(obj)):
        raise ValueError(f"stored result: {path!r} is not a dataclass of polyrank")
    return obj


def _decode(data: Any) -> Any:
    """The objects of tagged JSON data (inverse of :func:`_encode`)."""
    if isinstance(data, list):
        return [_decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if _DATACLASS in data:
        cls = _dataclass_type(data[_DATACLASS])
        values = {k: _decode(v) for k, v in data["fields"].items()}
        names = {f.name for f in dataclasses.fields(cls)}
        if set(values) != names:
            raise ValueError(f"stored result: the fields of {data[_DATACLASS]} changed "
                             f"(stored {sorted(values)}, now {sorted(names)}); store it again")
        init = {f.name: values[f.name] for f in dataclasses.fields(cls) if f.init}
        obj = cls(**init)
        for f in dataclasses.fields(cls):
            if not f.init:
                object.__setattr__(obj, f.name, values[f.name])
        return obj
    if _TUPLE in data:
        return tuple(_decode(v) for v in data[_TUPLE])
    if _DICT in data:
        return {_decode(k): _decode(v) for k, v in data[_DICT]}
    if _ARRAY in data:
        dtype = np.dtype(data["dtype"])
        if dtype.kind not in "biuf":
            raise ValueError(f"stored result: array dtype {dtype} refused")
        return np.asarray(_decode(data[_ARRAY]), dtype=dtype).reshape(data["shape"])
    if _FLOAT in data:
        if data[_FLOAT] not in ("nan", "inf", "-inf"):
            raise ValueError(f"stored result: bad float {data[_FLOAT]!r}")
        return float(data[_FLOAT])
    raise ValueError(f"stored result: untagged object with keys {sorted(data)}")


# ------------------------------------------------------------------ files
def save_result(result: ExperimentResult, path, *, options: dict,
                elapsed_s: float) -> Path:
    """Write ``result`` as a stored result file, atomically (a temporary
    file moved into place).

    Parameters
    ----------
    result : ExperimentResult
        What the experiment returned (``data``: None or a dict of numbers
        and numeric arrays).
    path : str or Path
    options : dict
        The keyword arguments it was run with (``quick``, ``seed`` and the
        experiment's own); :func:`load_or_run` loads the file only for the
        same options.
    elapsed_s : float
        Wall-clock seconds of the run (shown to the user as what a
        recompute costs).

    Returns
    -------
    Path

    Raises
    ------
    TypeError
        If ``result`` holds something that cannot be stored (an object that
        is not a dataclass, number, str, tuple, list, dict or numeric array).
    """
    provenance = Provenance(
        polyrank_version=package_version("polyrank"),
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        machine=f"{platform.platform()} ({platform.processor() or platform.machine()})",
        cpu_count=os.cpu_count() or 1, elapsed_s=float(elapsed_s))
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": result.name,
           "title": result.title, "options": _encode(dict(options)),
           "provenance": _encode(provenance), "table": result.format_table(),
           "notes": list(result.notes), "rows": _encode(tuple(result.rows)),
           "table_rows": _encode(result.table_rows), "summary": _encode(result.summary),
           "data": _encode(result.data)}
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False) + "\n"
    return write_bytes(Path(path), text.encode("utf-8"))


def load_result(path) -> StoredResult:
    """Read a stored result file written by :func:`save_result`.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    StoredResult

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If it is not a stored result of this format version, names a class
        outside polyrank or one whose fields changed since it was stored
        (store it again: ``python tools/store_results.py``).
    """
    path = Path(path)
    with open(path, encoding="utf-8") as fh:
        try:
            doc = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not a stored result ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path}: not a stored result (format {FORMAT!r} expected)")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path}: stored result format version {doc.get('format_version')!r}, "
                         f"this polyrank reads {FORMAT_VERSION}")
    table_rows = _decode(doc["table_rows"])
    return StoredResult(name=doc["name"], title=doc["title"], rows=_decode(doc["rows"]),
                        summary=_decode(doc["summary"]), data=_decode(doc["data"]),
                        table_rows=None if table_rows is None else list(table_rows),
                        notes=list(doc["notes"]), options=_decode(doc["options"]),
                        provenance=_decode(doc["provenance"]), table=doc["table"])


def _recompute_forced() -> bool:
    return os.environ.get(RECOMPUTE_ENV, "") not in ("", "0")


def load_or_run(name: str, *, quick: bool = False, seed: int = 0, directory=None,
                **options) -> ExperimentResult:
    """The result of experiment ``name`` with these options: the stored one
    if there is a stored result for exactly these options, else a fresh run.

    Notebooks call this for their heavy reproductions, so that Run All takes
    seconds; :class:`polyrank_paper.result_view.ResultView` shows the result with a
    button that recomputes it.  With ``POLYRANK_RECOMPUTE=1`` in the
    environment (the notebooks' nbval run) it always computes.

    Parameters
    ----------
    name : str
        A registered experiment (``polyrank reproduce --list``) or
        benchmark (``polyrank bench NAME``).
    quick, seed, **options
        As for :func:`~polyrank_paper.run_experiment`.
    directory : str or Path, optional
        Where stored results are looked up (default: the package's
        :data:`STORED_DIR`).

    Returns
    -------
    ExperimentResult
        A :class:`StoredResult` (its ``provenance`` says where and when it
        was computed) or the result of a run here.

    Raises
    ------
    ValueError
        If ``name`` is unknown, or the stored file for ``name`` is damaged or
        stale (see :func:`load_result`): nothing is recomputed silently over a
        file that fails to load.
    """
    experiment = registered(name)
    wanted = {"quick": quick, "seed": seed, **options}
    path = stored_path(name, directory)
    if not _recompute_forced() and path.is_file():
        stored = load_result(path)
        if stored.name == name and stored.options == wanted:
            return stored
    return experiment.run(**wanted)


def run_and_time(name: str, **options) -> tuple[ExperimentResult, float]:
    """Run experiment ``name`` with ``options`` and return the result and
    the wall-clock seconds it took."""
    t0 = time.perf_counter()
    result = registered(name).run(**options)
    return result, time.perf_counter() - t0
