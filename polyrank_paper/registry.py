"""A registry of reproducible experiments and the result they return.

Every reproduction of a paper's figure or table is a function registered
here under a short name (``"sopopo-fig6"`` ...) with a one-line
description; ``polyrank reproduce --list`` prints them and ``polyrank
reproduce NAME`` runs one through :func:`run_experiment`.

An experiment returns an :class:`ExperimentResult`: tidy rows (a tuple of
frozen dataclasses, one per measurement, each experiment defining its row
class), a ``summary`` dataclass of the key figures, and the arrays a figure
needs beyond the rows (``data``).  A row class names its printed columns in
its fields' metadata (:func:`column`), so one helper (:func:`table_columns`)
builds every table; :func:`as_record` turns rows and summaries into the
plain dicts written as CSV and JSON (the keys are the field names, or
``metadata["key"]`` where the written name is no identifier).  A summary
starts with the fields of a base of this module (:class:`RunInfo`,
:class:`BenchInfo` ...), documented there once, and is declared with
:func:`record`, which says so in its docstring.  The experiments
compute; they never draw: the drawing lives in :mod:`polyrank_paper.figures`,
one function per experiment, imported the first time
:attr:`ExperimentResult.figure` is read, as scikit-learn's Display classes
compute first and plot after.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import math
import os
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, dataclass_transform

from polyrank.utils import atomic_open, atomic_path, write_bytes, writes_through

__all__ = ["ExperimentResult", "Experiment", "EXPERIMENTS", "register",
           "get_experiment", "list_experiments", "run_experiment",
           "format_rows", "BENCHES", "register_bench", "speed_phrase",
           "figure_builders", "PaperItem", "ExperimentInfo", "SeedInfo", "RunInfo", "SourceInfo",
           "BenchInfo", "BenchRunInfo", "RepeatsInfo", "RepeatedBench", "column",
           "leading_columns", "record", "table_columns", "as_record", "record_keys", "fmt_time",
           "fmt_spec"]

@functools.lru_cache(maxsize=1)
def figure_builders() -> dict:
    """The figure builders of :mod:`polyrank_paper.figures` (experiment name
    -> ``builder(result)``); imported once, on the first figure drawn.

    Returns
    -------
    dict
        Empty if plotly (the ``paper`` extra) is not installed.
    """
    try:
        from .figures import FIGURES
    except ImportError:           # plotly is missing
        return {}
    return dict(FIGURES)


def _draw(result: ExperimentResult):
    """The figure of ``result`` drawn by its builder in :mod:`polyrank_paper.figures`."""
    builders = figure_builders()
    if builders and result.name not in builders:
        raise ValueError(f"{result.name}: no figure is drawn for this experiment")
    builder = builders.get(result.name)
    if builder is None:
        raise ImportError(
            f"{result.name}: drawing the figure needs plotly; install the paper wing, "
            "pip install polyrank-paper (from a clone: pip install -e dists/polyrank-widgets "
            "-e dists/polyrank-paper)")
    from polyrank_widgets.utils import FluidFigure

    # drawn at the output area's width in a notebook, at its design width in exports
    return FluidFigure(builder(result))


def _fmt_default(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return f"{v:.4g}"
    return str(v)


def fmt_time(s: float) -> str:
    """A duration in seconds as text with 3 significant digits and a unit
    (s, ms, us or ns).

    Examples
    --------
    >>> fmt_time(2.5e-6), fmt_time(0.0123), fmt_time(4.0)
    ('2.5 us', '12.3 ms', '4 s')
    """
    if s >= 1.0:
        return f"{s:.3g} s"
    if s >= 1e-3:
        return f"{s * 1e3:.3g} ms"
    if s >= 1e-6:
        return f"{s * 1e6:.3g} us"
    return f"{s * 1e9:.3g} ns"


def fmt_spec(spec: str) -> Callable[[Any], str]:
    """A cell formatter: the value formatted by the format spec ``spec``
    (``".3f"``, ``".2e"``, ``".6g"``, ``","`` ...).

    Examples
    --------
    >>> fmt_spec(".2f")(3.14159), fmt_spec(".1e")(0.000123), fmt_spec(",")(12345)
    ('3.14', '1.2e-04', '12,345')
    """
    return lambda v: format(v, spec)


def column(header: str | None = None, fmt: Callable[[Any], str] | None = None, *,
           key: str | None = None, omit_none: bool = False, order: int = 0, **kwargs):
    """A dataclass field of a row or summary class, with how it is printed
    and written.

    Parameters
    ----------
    header : str, optional
        The field's header in the printed table (:func:`table_columns`);
        None: the field is written (CSV, JSON) but not printed.
    fmt : callable, optional
        Turns a value (never None) into the printed cell; None: 4
        significant digits for floats, ``yes``/``no`` for bools.
    key : str, optional
        The name written to CSV and JSON when it is no Python identifier
        (``"n_rel_above_1e-6"``, ``"pass"``); default: the field's name.
    omit_none : bool, default False
        Leave the key out of :func:`as_record` when the value is None (a
        summary entry that exists only for some settings).
    order : int, default 0
        Printed columns are sorted by it, stably (1: after the others).
    **kwargs
        Passed to :func:`dataclasses.field` (``default`` ...).

    Returns
    -------
    dataclasses.Field
    """
    meta = {"header": header, "fmt": fmt, "key": key, "omit_none": omit_none, "order": order}
    return field(metadata=meta, **kwargs)


def leading_columns(*names: str, printed: bool = False) -> type:
    """A frozen dataclass of the str fields ``names``, which a row class
    inherits *last* to have them first: ``class Row(Base,
    leading_columns("kind"))`` has the fields ``kind``, then those of
    ``Base`` (a label put in front of a row that is also used alone).

    Parameters
    ----------
    *names : str
        The fields, in order.
    printed : bool, default False
        Print each under its own name (:func:`column`); else written only.

    Returns
    -------
    type

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Row:
    ...     t: float
    >>> @dataclass(frozen=True)
    ... class Labelled(Row, leading_columns("kind")):
    ...     pass
    >>> record_keys(Labelled)
    ['kind', 't']
    """
    specs = [(n, "str", column(n) if printed else field()) for n in names]
    return dataclasses.make_dataclass("Leading_" + "_".join(names), specs, frozen=True)


def _key(f: dataclasses.Field) -> str:
    return f.metadata.get("key") or f.name


def record_keys(cls) -> list[str]:
    """The keys :func:`as_record` writes for instances of the dataclass
    ``cls`` (field names, or their ``key`` metadata), in field order; the
    CSV header of rows of ``cls``."""
    return [_key(f) for f in dataclasses.fields(cls)]


def as_record(obj: Any) -> Any:
    """``obj`` as plain JSON-ready data: a dataclass becomes a dict keyed by
    :func:`record_keys` (fields marked ``omit_none`` left out when None),
    recursively through dicts, lists and tuples (tuples become lists);
    other values are returned as they are.

    Examples
    --------
    >>> @dataclass(frozen=True)
    ... class Row:
    ...     k: int
    ...     n_big: int = column(key="n_above_1e-6")
    >>> as_record((Row(10, 2),))
    [{'k': 10, 'n_above_1e-6': 2}]
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if v is None and f.metadata.get("omit_none"):
                continue
            out[_key(f)] = as_record(v)
        return out
    if isinstance(obj, dict):
        return {k: as_record(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [as_record(v) for v in obj]
    return obj


def table_columns(cls, headers: dict | None = None) -> list[tuple]:
    """The printed columns of the row dataclass ``cls``: (key, header,
    formatter) for every field given a ``header`` by :func:`column`, in
    field order (stably sorted by ``order``; see :func:`format_rows`).

    Parameters
    ----------
    cls : dataclass type
    headers : dict, optional
        Field name -> header overriding the field's own (a header that
        depends on the run, e.g. a window length).

    Returns
    -------
    list of (str, str, callable or None)
    """
    headers = headers or {}
    shown = sorted((f for f in dataclasses.fields(cls) if f.metadata.get("header") is not None),
                   key=lambda f: f.metadata.get("order", 0))
    return [(_key(f), headers.get(f.name, f.metadata["header"]), f.metadata.get("fmt"))
            for f in shown]


def _public_path(cls: type) -> str:
    """``cls``'s dotted path without its private modules (the package that
    exports it): ``polyrank_paper.ordinal._common.GroupRow`` ->
    ``polyrank_paper.ordinal.GroupRow``."""
    parts = [p for p in cls.__module__.split(".") if not p.startswith("_")]
    return ".".join(parts + [cls.__qualname__])


@dataclass_transform(frozen_default=True, field_specifiers=(field, column))
def record(cls: type) -> type:
    """Class decorator: ``cls`` as a frozen dataclass whose docstring says
    which fields come first, those of its dataclass bases.

    A summary or row class that extends bases (:class:`RunInfo` ...)
    documents its own fields only: ``The fields of :class:`Base`, then:`` is
    put before its Attributes section, naming the bases in the order of
    their fields, so that the note follows the class statement.

    Examples
    --------
    >>> @record
    ... class Summary(RunInfo):
    ...     '''The key figures.
    ...
    ...     Attributes
    ...     ----------
    ...     k : int
    ...     '''
    ...     k: int
    >>> record_keys(Summary)
    ['experiment', 'quick', 'seed', 'k']
    >>> Summary.__doc__.splitlines()[2].strip()
    'The fields of :class:`~polyrank_paper.registry.RunInfo`, then:'
    """
    cls = dataclass(frozen=True)(cls)
    bases = [b for b in reversed(cls.__bases__) if dataclasses.is_dataclass(b)]
    doc = cls.__doc__ or ""
    at = doc.find("Attributes\n")
    if bases and at >= 0:
        indent = doc[doc.rfind("\n", 0, at) + 1:at]
        names = " and ".join(f":class:`~{_public_path(b)}`" for b in bases)
        note = textwrap.fill(f"The fields of {names}, then:", 99, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)
        cls.__doc__ = doc[:at - len(indent)] + note + "\n\n" + doc[at - len(indent):]
    return cls


@dataclass(frozen=True)
class ExperimentInfo:
    """The first fields of an experiment's summary: which experiment, at
    which size.

    Attributes
    ----------
    experiment : str
        The registered name.
    quick : bool
        Run at the reduced sizes.
    """

    experiment: str
    quick: bool


@dataclass(frozen=True)
class SeedInfo:
    """The seed of a run, which a summary's first fields end with: a class
    inheriting ``(SeedInfo, Base)`` has the fields of ``Base``, then it.

    Attributes
    ----------
    seed : int
        Seed of the data and of the solvers' random orders.
    """

    seed: int


@dataclass(frozen=True)
class RunInfo(SeedInfo, ExperimentInfo):
    """The first fields of many experiments' summaries: those of
    :class:`ExperimentInfo`, then those of :class:`SeedInfo`."""


@dataclass(frozen=True)
class SourceInfo:
    """The first fields of the summary of a reproduction that names its
    source: the experiment (as in :class:`ExperimentInfo`) and the paper
    part it reproduces.

    Attributes
    ----------
    experiment : str
    source : str
        The paper, section and figure or table.
    """

    experiment: str
    source: str


@dataclass(frozen=True)
class BenchInfo:
    """The first fields of a benchmark's summary: those of
    :class:`ExperimentInfo`, the first named ``bench`` (a name of
    :data:`BENCHES`)."""

    bench: str
    quick: bool


@dataclass(frozen=True)
class BenchRunInfo(SeedInfo, BenchInfo):
    """The fields of :class:`BenchInfo`, then those of :class:`SeedInfo`."""


@dataclass(frozen=True)
class RepeatsInfo:
    """How often a benchmark repeated each timing, which a summary's first
    fields end with (as :class:`SeedInfo`).

    Attributes
    ----------
    repeats : int
        Timing repeats (the benchmark's ``repeats`` argument).
    """

    repeats: int


@dataclass(frozen=True)
class RepeatedBench(RepeatsInfo, BenchInfo):
    """The fields of :class:`BenchInfo`, then those of :class:`RepeatsInfo`."""


@dataclass(frozen=True)
class PaperItem:
    """One row of the README's generated "paper vs polyrank" table: an item
    of a paper's figure or table, the paper's value and ours.

    Attributes
    ----------
    item : str
        What is compared (figure or table, and the quantity).
    paper : str
        The paper's statement or value.
    ours : str
        The value measured by polyrank (with its unit).
    data : str
        The data it was measured on.
    """

    item: str
    paper: str
    ours: str
    data: str


def format_rows(rows: Sequence[dict], columns: Sequence[tuple] | None = None) -> str:
    """Format rows as a plain-text table.

    Parameters
    ----------
    rows : sequence of dataclass or dict
        The rows (dataclasses are read through :func:`as_record`); a
        missing key or a ``None`` value is shown as ``-``.
    columns : sequence of (key, header, formatter), optional
        Which columns to show, their headers, and a callable turning a
        value into a string (``None``: a default, 4 significant digits for
        floats).  Default: the columns of the first row's class
        (:func:`table_columns`) if it names any, else every key of the
        first row, in order.

    Returns
    -------
    str
        A header line, a rule and one right-aligned line per row.

    Examples
    --------
    >>> print(format_rows([{"k": 10, "t": 0.5}, {"k": 20, "t": None}]))
     k    t
    --  ---
    10  0.5
    20    -
    """
    if columns is None and rows and dataclasses.is_dataclass(rows[0]):
        columns = table_columns(type(rows[0])) or None
    rows = [as_record(r) if dataclasses.is_dataclass(r) else r for r in rows]
    if columns is None:
        columns = [(key, key, None) for key in (rows[0] if rows else {})]
    header = [title for _, title, _ in columns]
    body = []
    for row in rows:
        cells = []
        for key, _, fmt in columns:
            v = row.get(key)
            cells.append("-" if v is None else (fmt or _fmt_default)(v))
        body.append(cells)
    widths = [max([len(h)] + [len(r[j]) for r in body]) for j, h in enumerate(header)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


@dataclass
class ExperimentResult:
    """What an experiment returns.

    Attributes
    ----------
    name : str
        The registered name, e.g. ``"sopopo-fig6"``.
    title : str
        One line saying what was measured and what it reproduces.
    rows : tuple of dataclass
        Tidy rows, one frozen dataclass per measurement (each experiment
        defines its row class; fields are str, int, float, bool or ``None``,
        not measured).  Written to CSV by :meth:`write_csv`.  (Dicts are
        read too, as by :func:`format_rows`: a stand-in result needs no
        class.)
    summary : dataclass
        The key figures, a frozen dataclass of the experiment (nested
        dataclasses, tuples, and dicts keyed by a str such as k); as plain
        data by :meth:`summary_record` (JSON-serialisable, never NaN).
    data : dict or None
        What the figure needs beyond ``rows`` and ``summary`` (arrays such
        as a contour grid or a correlation matrix); not written to CSV or
        JSON.  None: nothing.
    columns : list of (key, header, formatter)
        The columns of the printed table (see :func:`format_rows`); empty:
        those the row class names (:func:`table_columns`).
    table_rows : tuple of dataclass or None
        The rows to print when ``rows`` is too long to read (Fig. 8 has one
        row per update); None: print ``rows``.
    notes : list of str
        Human-readable lines on the key figures and targets, printed under
        the table by ``polyrank reproduce``.
    figure : plotly.graph_objects.Figure
        The reproduced figure, drawn on first access by the builder of
        ``name`` in :mod:`polyrank_paper.figures` and kept.

    Raises
    ------
    ImportError
        On reading ``figure`` (or writing HTML/PNG) when plotly (the
        ``paper`` extra) is not installed.
    ValueError
        On reading ``figure`` when the installed builders draw none for
        ``name`` (the benchmarks have no figure).
    """

    name: str
    title: str
    rows: Sequence[Any]
    summary: Any
    data: dict | None = None
    columns: list = field(default_factory=list)
    table_rows: list | None = None
    notes: list = field(default_factory=list)
    _figure: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.rows and dataclasses.is_dataclass(self.rows[0]):
            self.rows = tuple(self.rows)

    @property
    def figure(self):
        """The reproduced figure (plotly), drawn once by the builder of
        ``name``; raises ImportError if plotly is not installed."""
        if self._figure is None:
            self._figure = _draw(self)
        return self._figure

    def format_table(self) -> str:
        """The printed table: ``table_rows`` (or ``rows``) in ``columns``."""
        rows = self.rows if self.table_rows is None else self.table_rows
        return format_rows(rows, self.columns or None)

    def row_records(self) -> list[dict]:
        """``rows`` as a list of plain dicts (:func:`as_record`), the form
        written to CSV."""
        return [as_record(row) for row in self.rows]

    def summary_record(self) -> Any:
        """``summary`` as plain JSON-ready data (:func:`as_record`), the
        document ``polyrank reproduce --json`` prints."""
        return as_record(self.summary)

    def to_frame(self):
        """``rows`` as a pandas DataFrame, one column per CSV column.

        Raises
        ------
        ImportError
            If pandas (installed with ``polyrank-widgets``) is missing.
        """
        import pandas as pd  # optional: installed with polyrank-widgets, as Trace.to_pandas

        return pd.DataFrame(self.row_records())

    def write_csv(self, path) -> Path:
        """Write ``rows`` to ``path`` as CSV (csv module; the header is the
        keys of the row class, :func:`record_keys`, or for dict rows their
        union in order of first appearance; ``None`` is an empty cell,
        floats keep full precision), atomically.  Returns the path."""
        path = Path(path)
        records = self.row_records()
        fields: dict[str, None] = {}
        for row in records:
            fields.update(dict.fromkeys(row))
        with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(fields), restval="")
            writer.writeheader()
            for row in records:
                writer.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v)
                                 for k, v in row.items()})
        return path

    def write_html(self, path, plotlyjs: str = "inline") -> Path:
        """Write the figure as an interactive HTML file, atomically (a
        temporary file moved into place; see :mod:`polyrank._files`).
        Returns the path.

        Parameters
        ----------
        path : str or Path
        plotlyjs : {"inline", "directory"}, default="inline"
            ``"inline"`` embeds plotly.js (~4.6 MB; one self-contained file
            that works offline); ``"directory"`` writes ``plotly.min.js``
            once next to ``path`` and refers to it, so the figures of one
            directory share it (``polyrank reproduce``); inline for a
            ``path`` written through (a device, FIFO or ``/dev/stdout``).

        Raises
        ------
        ValueError
            If ``plotlyjs`` is neither value.
        ImportError
            If no figure builder is installed (see :attr:`figure`).
        """
        if plotlyjs not in ("inline", "directory"):
            raise ValueError(f"plotlyjs: expected 'inline' or 'directory', got {plotlyjs!r}")
        path = Path(path)
        figure = self.figure
        with atomic_path(path) as page:
            # a device or pipe (written through) has no directory to share plotly.min.js
            if plotlyjs == "inline" or writes_through(path):
                figure.write_html(str(page), full_html=True, include_plotlyjs=True)
                return path                        # leaving the block moves page to path
            # plotly writes plotly.min.js beside the page, in place: let it write both into
            # a fresh directory, then move them into place atomically
            with tempfile.TemporaryDirectory(dir=page.parent, prefix=".plotly-") as tmp:
                figure.write_html(os.path.join(tmp, "figure.html"), full_html=True,
                                  include_plotlyjs="directory")
                os.replace(os.path.join(tmp, "figure.html"), page)
                js, shared = Path(tmp, "plotly.min.js"), page.parent / "plotly.min.js"
                if not _same_bytes(js, shared):
                    with atomic_path(shared) as new_js:
                        os.replace(js, new_js)
        return path

    def write_png(self, path, scale: float = 2.0) -> Path:
        """Write the figure as a static PNG, atomically (plotly's
        ``to_image``; needs the optional ``kaleido`` package and a
        Chrome/Chromium).  Returns the path.

        Raises
        ------
        ImportError, RuntimeError
            If no figure builder is installed (see :attr:`figure`), or
            kaleido or a browser is missing (plotly's messages).
        """
        return write_bytes(path, self.figure.to_image(format="png", scale=scale))


def _same_bytes(a: Path, b: Path) -> bool:
    """Whether the files ``a`` and ``b`` exist and hold the same bytes."""
    try:
        return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
    except OSError:
        return False


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: the line ``polyrank reproduce --list``
    shows and the function :func:`run_experiment` calls (or ``polyrank
    bench NAME``, for the entries of :data:`BENCHES`).

    Attributes
    ----------
    name : str
        Short name used by ``polyrank reproduce NAME``.
    description : str
        One line for ``polyrank reproduce --list``.
    func : callable
        ``func(*, quick=False, seed=0, progress=False, **options) ->
        ExperimentResult``.
    """

    name: str
    description: str
    func: Callable[..., ExperimentResult]

    def run(self, *, quick: bool = False, seed: int = 0, progress: bool = False,
            **options) -> ExperimentResult:
        """Run the experiment (see :func:`run_experiment`)."""
        return self.func(quick=quick, seed=seed, progress=progress, **options)


#: The registered experiments in the order of the papers (the prefix of each
#: name, :data:`PAPERS`), each paper's in the order its package registers them,
#: whichever module a process imports first.
EXPERIMENTS: dict[str, Experiment] = {}
#: the papers in their order: the prefixes of the experiments' names
PAPERS = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")


def speed_phrase(ratio: float, ours: str, other: str) -> str:
    """``ratio`` = t(other) / t(ours) as a sentence a user reads: "ours is
    2.31x faster than other" or "ours takes 1.25x the time of other"."""
    if ratio >= 1:
        return f"{ours} is {ratio:.2f}x faster than {other}"
    return f"{ours} takes {1 / ratio:.2f}x the time of {other}"


def register(name: str, description: str):
    """Decorator registering an experiment function under ``name``.

    Raises
    ------
    ValueError
        If ``name`` is already registered or is ``"all"`` (reserved by the
        CLI).
    """
    if name in EXPERIMENTS or name == "all":
        raise ValueError(f"name: {name!r} is already registered or reserved")
    return _registrar(EXPERIMENTS, name, description)


def _registrar(table: dict, name: str, description: str):
    """The decorator adding ``func`` to ``table`` as ``Experiment(name, ...)``
    and keeping ``table`` in its order (:func:`_rank`): a process that imports
    one experiment module before the others (e.g. loading a stored result)
    lists them as one that imports the package."""
    def deco(func):
        table[name] = Experiment(name, description, func)
        ordered = sorted(table.items(), key=lambda item: _rank(table, item[0]))
        table.clear()
        table.update(ordered)              # sorted() is stable: a paper's own order stays
        return func
    return deco


def _rank(table: dict, name: str) -> int:
    """The position of ``name``'s group: its index in :data:`BENCH_CATALOG`
    for a benchmark, its paper's in :data:`PAPERS` for an experiment."""
    if table is BENCHES:
        return list(BENCH_CATALOG).index(name)
    prefix = name.split("-", 1)[0]
    return PAPERS.index(prefix) if prefix in PAPERS else len(PAPERS)


def list_experiments() -> list[Experiment]:
    """The registered experiments, in the order of the papers."""
    return list(EXPERIMENTS.values())


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``.

    Raises
    ------
    ValueError
        If no experiment has that name (the message lists the names).
    """
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise ValueError(f"name: unknown experiment {name!r}; registered: "
                         f"{', '.join(EXPERIMENTS)}") from None


def run_experiment(name: str, *, quick: bool = False, seed: int = 0,
                   progress: bool = False, **options) -> ExperimentResult:
    """Run the experiment registered as ``name``.

    Parameters
    ----------
    name : str
        A registered name (see :func:`list_experiments`).
    quick : bool
        Reduced sizes (each experiment documents them; under a minute on
        two cores).
    seed : int
        Seed of the data and of the solvers' random orders.
    progress : bool
        Show a tqdm progress bar on stderr.
    **options
        Passed to the experiment function (e.g. ``ks=(10, 100)``).

    Returns
    -------
    ExperimentResult

    Raises
    ------
    ValueError
        If ``name`` is unknown, or an option is invalid.
    """
    return get_experiment(name).run(quick=quick, seed=seed, progress=progress, **options)


#: The benchmarks of ``polyrank bench NAME`` (other than ``sopopo`` and ``compare``),
#: name -> description, in the order of the papers: the one place their descriptions
#: are written, read by :func:`register_bench` and, without importing any benchmark,
#: by the command's parser (``polyrank bench --help`` starts in a fraction of a second).
BENCH_CATALOG: dict[str, str] = {
    "sign": (
        "SC-SDCA time to duality gap 1e-6 on phishing vs scipy L-BFGS-B with bounds "
        "to the same primal value"
    ),
    "ranksvm": (
        "seconds per solve: Tree-TRON vs direct counting vs PRSVM+ on MQ2008 and a "
        "large-k set (tol = 1e-3, C = 1)"
    ),
    "ranksvm-l1": (
        "L1-loss RankSVM on MQ2008: dual coordinate descent vs LinearSVC (hinge) on "
        "the pair differences at C = 1, and the C grid 2^-6 .. 2^8 against "
        "Tree-TRON's L2 grid"
    ),
    "ranksvm-dask": (
        "RankSVM in one process against DaskRankSVM on 1 and 2 workers (LocalCluster, "
        "one thread each), 1M and 10M generated documents: seconds per TRON iteration "
        "and in total, bytes per iteration, driver and worker peak memory, final "
        "objectives"
    ),
    "ranksvm-liblinear": (
        "RankSVM(n_jobs=2) and RankSVM() against liblinear-ranksvm's train -s 8 "
        "(ctypes, same process) at 300K, 1M and 3M generated documents: seconds per "
        "fit, the ratio, f of both, the growth table"
    ),
    "ordinal": (
        "RC(H~) vs the whole QP (Clarabel) on S.5000 and S.10000 (poly d=4); target "
        ">= 20x faster, same objective"
    ),
    "ordinal-wine": (
        "OrdinalMarginRanker() vs mord's LogisticAT: 3-fold CV test MAE and time on "
        "red wine, white wine (--data winequality-white.csv) or a generated "
        "overlapping-grades stand-in; targets MAE <= mord + 0.01, time <= 1x"
    ),
    "ordinal-rc": (
        "RC(S~) with warm-started SMO sub-problems: vs libsvm SVC on NS.1000.1 (RBF), "
        "Table 1 sizes vs Clarabel sub-problems and the whole QP (same objective to "
        "1e-6)"
    ),
    "m3l": (
        "R = I on yeast: linear M3L vs 1-vs-All LinearSVC, rbf M3L vs 1-vs-All SVC "
        "(ratios)"
    ),
    "m3l-labels": (
        "kernel M3L (R = I, rbf) vs OneVsRestClassifier(SVC) on synthetic 4,000 x 50 "
        "data with L = 10, 20, 40, 80 labels: time, speed-up, test Hamming loss"
    ),
    "m3l-labels-wide": (
        "as m3l-labels with 500 features (kernel rows 10x dearer, as with the paper's "
        "image features), L = 10, 40, one repeat"
    ),
    "m3l-rows": (
        "kernel M3L (rbf, R = I, defaults) vs OneVsRestClassifier(SVC) on resampled "
        "yeast rows, N = 2,000, 8,000, 20,000: time, ratio, test Hamming loss, growth "
        "with N"
    ),
    "m3l-linear": (
        "linear M3LClassifier (R = I, LIBLINEAR's dual CD per label) vs one-vs-rest "
        "LinearSVC(hinge, C = 2C) and LinearSVC() on standardised yeast and generated "
        "400-40,000 x 100 data (10 labels)"
    ),
    "m3l-rows-smo": (
        "kernel M3L forced onto the SMO (cache of a tenth of the Gram matrix) with "
        "LIBSVM's shrinking vs without vs OneVsRestClassifier(SVC) on resampled yeast "
        "rows: time ratios, test Hamming losses, D2"
    ),
    "first-fit": (
        "first use in a fresh process with an empty numba cache: LabelRanker() on "
        "yeast cold and warm, polyrank.warmup() cold, vs one-vs-rest LinearSVC"
    ),
    "first-run": (
        "a new user's first hour in fresh processes, numba cache empty and filled: "
        "import, --version, each solver's compile, polyrank warmup, the tour "
        "(nbclient), beside issue 41's targets"
    ),
    "sopopo-vs-liblinear": (
        "Crammer-Singer: LabelRanker(top_vs_rest, no bias) with shrinking vs "
        "LinearSVC(crammer_singer) to the same primal objective (digits, synthetic); "
        "passes to gap 1e-3 on yeast"
    ),
    "label-ranker-defaults": (
        "make_pipeline(StandardScaler(), LabelRanker()) vs one-vs-rest LinearSVC(): "
        "test label ranking loss and fit time on yeast and two synthetic multi-label "
        "sets"
    ),
    "sopopo-many-labels": (
        "all_pairs with many labels: seconds per pass against top_vs_rest at k = 200, "
        "50 passes and peak memory at k = 1000 (24 examples, half of the labels "
        "relevant)"
    ),
    "paths": (
        "regularisation paths warm-started (issue 45): each estimator's default grid "
        "of 20 penalties warm vs the same grid cold vs one cold fit at the grid's "
        "middle, on its bundled data set; target: the path <= 3x the middle fit"
    ),
    "input-check": (
        "the input gate's cost (sparse structure, canonical CSR, overflow) against "
        "scikit-learn's validate_data and the whole fit, on sparse MQ2008 (RankSVM) "
        "and W8a (SignConstrainedClassifier)"
    ),
    "slider": (
        "SolverLab slider moves (issue 45): a neighbouring and a far penalty, from the "
        "cache vs warm-started vs cold, for each estimator on its bundled data set; "
        "targets: near <= 1 s, any move <= 3 s"
    ),
}

#: The registered benchmarks of ``polyrank bench NAME`` (other than
#: ``sopopo``, which has its own ``--k`` option), in registration order.
BENCHES: dict[str, Experiment] = {}


def register_bench(name: str):
    """Decorator registering a benchmark under ``name`` for ``polyrank bench``,
    with its description from :data:`BENCH_CATALOG`.

    The function has the signature of an experiment,
    ``func(*, quick=False, seed=0, progress=False, **options) ->
    ExperimentResult``: its ``rows`` are the timings, its ``notes`` say
    which ratio is the target and whether it was met, its ``summary`` is
    printed by ``--json``.  Speed is reported as ratios against a baseline
    timed in the same run (``DESIGN.md``).

    Raises
    ------
    ValueError
        If ``name`` is already registered as a benchmark, or is not in
        :data:`BENCH_CATALOG` (add its description there first).
    """
    if name in BENCHES or name == "sopopo":
        raise ValueError(f"name: benchmark {name!r} is already registered")
    if name not in BENCH_CATALOG:
        raise ValueError(f"name: benchmark {name!r} has no description in BENCH_CATALOG")
    return _registrar(BENCHES, name, BENCH_CATALOG[name])
