"""A registry of reproducible experiments and the result they return.

Every reproduction of a paper's figure or table is a function registered
here under a short name (``"sopopo-fig6"`` ...) with a one-line
description; ``polyrank reproduce --list`` prints them and ``polyrank
reproduce NAME`` runs one through :func:`run_experiment`.

An experiment returns an :class:`ExperimentResult`: tidy rows (a list of
dicts, one per measurement), a JSON-serialisable ``summary`` of the key
figures, and the arrays a figure needs beyond the rows (``data``).  The core
computes; it never draws (``DESIGN.md``: it imports no plotting library).
The drawing lives in ``polyrank_widgets.figures``, one function per
experiment, found through the entry-point group ``polyrank.figures``
(:data:`FIGURES_GROUP`) the first time :attr:`ExperimentResult.figure` is
read, as scikit-learn's Display classes compute first and plot after.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["ExperimentResult", "Experiment", "EXPERIMENTS", "register",
           "get_experiment", "list_experiments", "run_experiment",
           "format_rows", "BENCHES", "register_bench", "speed_phrase", "FIGURES_GROUP",
           "figure_builders"]

#: The entry-point group naming the figure builders: each entry point loads a
#: dict mapping an experiment's name to ``builder(result) -> figure``
#: (``polyrank_widgets.figures:FIGURES``, registered in ``pyproject.toml``).
FIGURES_GROUP = "polyrank.figures"


@functools.lru_cache(maxsize=1)
def figure_builders() -> dict:
    """The figure builders installed under the entry-point group
    :data:`FIGURES_GROUP`, merged into one dict (experiment name ->
    ``builder(result)``); loaded once.

    Returns
    -------
    dict
        Empty if no package registers the group, or if every one that does
        fails to import (its extra is not installed).
    """
    builders: dict = {}
    for ep in entry_points(group=FIGURES_GROUP):
        try:
            builders.update(ep.load())
        except ImportError:       # the widgets' extra (plotly, ipywidgets) is missing
            continue
    return builders


def _draw(result: "ExperimentResult"):
    """The figure of ``result`` drawn by its registered builder."""
    builders = figure_builders()
    if builders and result.name not in builders:
        raise ValueError(f"{result.name}: no figure is drawn for this experiment")
    builder = builders.get(result.name)
    if builder is None:
        raise ImportError(
            f"{result.name}: no figure builder installed (entry-point group "
            f"{FIGURES_GROUP!r}); install the widgets' extra, pip install 'polyrank[jupyter]' "
            "(an editable install registers the entry point when it is reinstalled)")
    return builder(result)


def _fmt_default(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return f"{v:.4g}"
    return str(v)


def format_rows(rows: Sequence[dict], columns: Sequence[tuple] | None = None) -> str:
    """Format rows as a plain-text table.

    Parameters
    ----------
    rows : sequence of dict
        The rows; a missing key or a ``None`` value is shown as ``-``.
    columns : sequence of (key, header, formatter), optional
        Which columns to show, their headers, and a callable turning a
        value into a string (``None``: a default, 4 significant digits for
        floats).  Default: every key of the first row, in order.

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
    rows : list of dict
        Tidy rows, one per measurement; values are str, int, float, bool or
        ``None`` (not measured).  Written to CSV by :meth:`write_csv`.
    summary : dict
        The key figures (JSON-serialisable: str, int, float, bool, None,
        lists and dicts with str keys; never NaN).
    data : dict or None
        What the figure needs beyond ``rows`` and ``summary`` (arrays such
        as a contour grid or a correlation matrix); not written to CSV or
        JSON.  None: nothing.
    columns : list of (key, header, formatter)
        The columns of the printed table (see :func:`format_rows`).
    table_rows : list of dict or None
        The rows to print when ``rows`` is too long to read (Fig. 8 has one
        row per update); None: print ``rows``.
    notes : list of str
        Human-readable lines on the key figures and targets, printed under
        the table by ``polyrank reproduce``.
    figure : plotly.graph_objects.Figure
        The reproduced figure, drawn on first access by the builder
        registered for ``name`` (see :data:`FIGURES_GROUP`) and kept.

    Raises
    ------
    ImportError
        On reading ``figure`` (or writing HTML/PNG) when no figure builder
        is installed (the ``jupyter`` extra).
    ValueError
        On reading ``figure`` when the installed builders draw none for
        ``name`` (the benchmarks have no figure).
    """

    name: str
    title: str
    rows: list
    summary: dict
    data: dict | None = None
    columns: list = field(default_factory=list)
    table_rows: list | None = None
    notes: list = field(default_factory=list)
    _figure: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def figure(self):
        """The reproduced figure (plotly), drawn once by the builder
        registered for ``name``; raises ImportError if none is installed."""
        if self._figure is None:
            self._figure = _draw(self)
        return self._figure

    def format_table(self) -> str:
        """The printed table: ``table_rows`` (or ``rows``) in ``columns``."""
        rows = self.rows if self.table_rows is None else self.table_rows
        return format_rows(rows, self.columns or None)

    def write_csv(self, path) -> Path:
        """Write ``rows`` to ``path`` as CSV (csv module; the header is the
        union of the rows' keys in order of first appearance; ``None`` is
        an empty cell, floats keep full precision).  Returns the path."""
        path = Path(path)
        fields: dict[str, None] = {}
        for row in self.rows:
            fields.update(dict.fromkeys(row))
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(fields), restval="")
            writer.writeheader()
            for row in self.rows:
                writer.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v)
                                 for k, v in row.items()})
        return path

    def write_html(self, path, plotlyjs: str = "inline") -> Path:
        """Write the figure as an interactive HTML file.  Returns the path.

        Parameters
        ----------
        path : str or Path
        plotlyjs : {"inline", "directory"}, default="inline"
            ``"inline"`` embeds plotly.js (~4.6 MB; one self-contained file
            that works offline); ``"directory"`` writes ``plotly.min.js``
            once next to ``path`` and refers to it, so the figures of one
            directory share it (``polyrank reproduce``).

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
        self.figure.write_html(str(path), full_html=True,
                               include_plotlyjs=True if plotlyjs == "inline" else "directory")
        return path

    def write_png(self, path, scale: float = 2.0) -> Path:
        """Write the figure as a static PNG (plotly's ``write_image``; needs
        the optional ``kaleido`` package and a Chrome/Chromium).  Returns
        the path.

        Raises
        ------
        ImportError, RuntimeError
            If no figure builder is installed (see :attr:`figure`), or
            kaleido or a browser is missing (plotly's messages).
        """
        path = Path(path)
        self.figure.write_image(str(path), scale=scale)
        return path


@dataclass(frozen=True)
class Experiment:
    """A registered experiment.

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


#: The registered experiments, in registration order.
EXPERIMENTS: dict[str, Experiment] = {}


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

    def deco(func):
        EXPERIMENTS[name] = Experiment(name, description, func)
        return func
    return deco


def list_experiments() -> list[Experiment]:
    """The registered experiments, in registration order."""
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


#: The registered benchmarks of ``polyrank bench NAME`` (other than
#: ``sopopo``, which has its own ``--k`` option), in registration order.
BENCHES: dict[str, Experiment] = {}


def register_bench(name: str, description: str):
    """Decorator registering a benchmark under ``name`` for ``polyrank bench``.

    The function has the signature of an experiment,
    ``func(*, quick=False, seed=0, progress=False, **options) ->
    ExperimentResult``: its ``rows`` are the timings, its ``notes`` say
    which ratio is the target and whether it was met, its ``summary`` is
    printed by ``--json``.  Speed is reported as ratios against a baseline
    timed in the same run (``DESIGN.md``).

    Raises
    ------
    ValueError
        If ``name`` is already registered as a benchmark.
    """
    if name in BENCHES or name == "sopopo":
        raise ValueError(f"name: benchmark {name!r} is already registered")

    def deco(func):
        BENCHES[name] = Experiment(name, description, func)
        return func
    return deco
