"""``polyrank bench first-run``: the first hour of a new user, against issue 41's targets.

Every number is the wall time of a fresh process, as a user waits for it, on an empty
numba cache (``NUMBA_CACHE_DIR`` a new temporary directory: "cold") and then again on
the cache the cold run filled ("warm"):

* ``import polyrank``, beside ``import sklearn.base`` (target: at most 0.5 s more);
* ``polyrank --version`` (target: at most 1 s);
* each solver's kernels, ``polyrank.warmup(packages=[<paper>])`` in its own process (import
  included), and the whole ``polyrank warmup`` command (target: at most 40 s cold);
* the tour, ``notebooks/00_tour.ipynb`` executed top to bottom by nbclient in a fresh
  ``python3`` kernel of this interpreter, no browser (targets: at most 60 s cold, 30 s
  warm).  It runs on a copy of the notebooks folder in a temporary directory: the
  repository's notebook is never rewritten.

The targets hold for a quiet 2-core machine; the load average is printed with the
numbers.  Compare :mod:`polyrank_paper.bench.first_fit` (the first fit and
``polyrank.warmup()`` against one-vs-rest LinearSVC).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..registry import BenchInfo, ExperimentResult, column, fmt_spec, record, register_bench

__all__ = ["bench_first_run", "FirstRunRow", "FirstRunSummary", "TOUR", "PACKAGES"]

#: the solver packages, each timed on its own (``polyrank.warmup(packages=[name])``)
PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")
#: the tour in a source checkout (``--data PATH`` names another notebook)
TOUR = Path(__file__).resolve().parents[2] / "notebooks" / "00_tour.ipynb"
#: issue 41's targets, seconds (quiet machine, 2 cores)
TARGETS = {"tour_cold": 60.0, "tour_warm": 30.0, "warmup_cold": 40.0, "version": 1.0,
           "import_over_sklearn": 0.5}


@dataclass(frozen=True)
class FirstRunRow:
    """One measurement of :func:`bench_first_run`.

    Attributes
    ----------
    what : str
        The process body, e.g. ``"import polyrank"``.
    cache : str
        The numba cache: ``"cold"`` (empty), ``"warm"`` (filled by the cold run) or
        ``"-"`` (not used).
    seconds : float
        Wall seconds of the process, start to exit (median of the repeats).
    target : str
        Issue 41's target for this row (``""``: none).
    met : bool or None
        Whether ``seconds`` meets it (None: no target).
    limit : float or None
        The target's seconds (None: none).
    """

    what: str = column("what")
    cache: str = column("numba cache")
    seconds: float = column("seconds", fmt_spec(".2f"))
    target: str = column("target")
    met: bool | None = column("met", lambda v: "yes" if v else "NO")
    limit: float | None = column("limit s", fmt_spec(".2f"))


@record
class FirstRunSummary(BenchInfo):
    """The key figures of :func:`bench_first_run` (seconds).

    Attributes
    ----------
    import_s, import_sklearn_base_s, version_s : float
        ``import polyrank``, ``import sklearn.base`` and ``polyrank --version``
        (fresh processes, medians).
    compile_cold_s, compile_warm_s : dict of str to float, or None
        ``polyrank.warmup(packages=[<paper>])`` per package, empty and filled cache (None:
        quick).
    warmup_cold_s, warmup_warm_s : float
        The ``polyrank warmup`` command.
    tour_cold_s, tour_warm_s : float or None
        The tour executed by nbclient (None: quick, or no tour found).
    load_before, load_after : float
        The 1-minute load average before and after.
    """

    import_s: float
    import_sklearn_base_s: float
    version_s: float
    compile_cold_s: dict | None
    compile_warm_s: dict | None
    warmup_cold_s: float
    warmup_warm_s: float
    tour_cold_s: float | None
    tour_warm_s: float | None
    load_before: float
    load_after: float


def _seconds(cmd: list, cache: str | None, cwd: str | None = None,
             timeout: float = 1800.0) -> float:
    """Wall seconds of the process ``cmd`` (the numba cache ``cache``; None: the
    caller's), which must exit 0."""
    env = dict(os.environ, PYTHONWARNINGS="ignore", POLYRANK_PROGRESS="0")
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {done.returncode}: "
                           + (done.stderr.strip().splitlines() or ["(no output)"])[-1])
    return seconds


def _python(code: str) -> list:
    return [sys.executable, "-c", code]


def _polyrank_command(*args: str) -> list:
    """The ``polyrank`` console script beside this interpreter, else ``python -m
    polyrank``."""
    script = Path(sys.executable).with_name("polyrank")
    return [str(script), *args] if script.is_file() else [sys.executable, "-m", "polyrank",
                                                           *args]


_EXECUTE = """
import sys
import nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=1800, kernel_name="python3",
               resources={"metadata": {"path": sys.argv[2]}}).execute()
"""


def _tour_seconds(tour: Path, cache: str) -> float:
    """Execute a copy of ``tour``'s folder's notebook with nbclient (a fresh
    ``python3`` kernel of this interpreter, the numba cache ``cache``); seconds."""
    with tempfile.TemporaryDirectory(prefix="polyrank-tour-") as tmp:
        folder = Path(tmp) / tour.parent.name
        shutil.copytree(tour.parent, folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        copy = folder / tour.name
        return _seconds(_python(_EXECUTE) + [str(copy), str(folder)], cache, cwd=str(folder))


def _median_alternating(cmds: dict, repeats: int, cache: str) -> dict:
    """Median wall seconds of each command of ``cmds`` (name -> argv), the commands
    alternated ``repeats`` times, on the numba cache ``cache``."""
    times: dict = {name: [] for name in cmds}
    for _ in range(repeats):
        for name, cmd in cmds.items():
            times[name].append(_seconds(cmd, cache))
    return {name: statistics.median(v) for name, v in times.items()}


def _cold_warm(cmd: list, cwd: str | None = None) -> tuple[float, float]:
    """``cmd`` on an empty numba cache, then again on the cache it filled."""
    with tempfile.TemporaryDirectory(prefix="polyrank-numba-cache-") as cache:
        return _seconds(cmd, cache, cwd), _seconds(cmd, cache, cwd)


def _row(what: str, cache: str, seconds: float, limit: float | None = None,
         target: str = "") -> FirstRunRow:
    if limit is None:
        return FirstRunRow(what, cache, seconds, target, None, None)
    return FirstRunRow(what, cache, seconds, target or f"<= {limit:g} s", seconds <= limit,
                       limit)


def _command_rows(cache: str, repeats: int) -> tuple[list, dict]:
    """import, ``--version`` and ``polyrank warmup`` on the empty ``cache``, the
    warmup again, then import / sklearn.base / --version alternated on the filled
    cache; the rows and the numbers by name."""
    n = {"import_cold": _seconds(_python("import polyrank"), cache),
         "version_cold": _seconds(_polyrank_command("--version"), cache),
         "warmup_cold": _seconds(_polyrank_command("warmup"), cache),
         "warmup_warm": _seconds(_polyrank_command("warmup"), cache)}
    warm = _median_alternating({"import": _python("import polyrank"),
                                "sklearn": _python("import sklearn.base"),
                                "version": _polyrank_command("--version")}, repeats, cache)
    n.update(import_warm=warm["import"], sklearn=warm["sklearn"], version_warm=warm["version"])
    limit = n["sklearn"] + TARGETS["import_over_sklearn"]
    target = f"<= import sklearn.base + 0.5 s = {limit:.2f} s"
    rows = [_row("import polyrank", "cold", n["import_cold"], limit, target),
            _row("import polyrank", "warm", n["import_warm"], limit, target),
            _row("import sklearn.base (the reference)", "-", n["sklearn"]),
            _row("polyrank --version", "cold", n["version_cold"], TARGETS["version"]),
            _row("polyrank --version", "warm", n["version_warm"], TARGETS["version"]),
            _row("polyrank warmup (the defaults' kernels)", "cold", n["warmup_cold"],
                 TARGETS["warmup_cold"]),
            _row("polyrank warmup", "warm", n["warmup_warm"])]
    return rows, n


def _package_rows() -> tuple[list, dict, dict]:
    """Each package's warm-up in its own process, cold then warm."""
    cold, warm, rows = {}, {}, []
    for name in PACKAGES:
        cold[name], warm[name] = _cold_warm(_python(
            f"import polyrank; polyrank.warmup(progress=False, n_jobs=1, packages=[{name!r}])"))
        what = f"polyrank.warmup(packages=[{name!r}]) (compile its kernels)"
        rows += [_row(what, "cold", cold[name]), _row(what, "warm", warm[name])]
    return rows, cold, warm


def _notes(rows: list, load: tuple) -> list:
    """One line per row with a limit of issue 41 (within it or over it), and the load
    average (the README's table states numbers, never a verdict word)."""
    notes = [f"{r.what} ({r.cache} numba cache): {r.seconds:.2f} s (issue 41: "
             + r.target.replace("<=", "at most") + ("; within" if r.met else
                                                    f"; {r.seconds - r.limit:.2f} s over")
             + ")" for r in rows if r.met is not None]
    notes.append(f"fresh processes, wall time start to exit; warm = the cache the cold run "
                 f"filled; machine load average {load[0]:.1f} before, {load[1]:.1f} after, "
                 f"on {os.cpu_count()} cores (issue 41's limits are for a quiet 2-core "
                 "machine)")
    return notes


@register_bench("first-run")
def bench_first_run(*, quick: bool = False, seed: int = 0, progress: bool = False,
                    data: str | None = None, repeats: int = 3) -> ExperimentResult:
    """Time the first run (see the module docstring) against issue 41's targets.

    Parameters
    ----------
    quick : bool
        Skip the per-package compile and the tour (the longest parts).
    seed : int
        Unused (nothing is random).
    progress : bool
        Print each step on stderr as it starts.
    data : str or None
        The notebook to execute as the tour (default :data:`TOUR`).
    repeats : int
        Alternating repeats of the warm import / ``--version`` timings (>= 1).

    Returns
    -------
    ExperimentResult
        One :class:`FirstRunRow` per measurement, the notes saying which target is
        met, a :class:`FirstRunSummary`.

    Raises
    ------
    ValueError
        If ``repeats`` < 1, or ``data`` is not an existing ``.ipynb`` file.
    RuntimeError
        If a timed process fails (its last stderr line is in the message).
    """
    if int(repeats) != repeats or repeats < 1:
        raise ValueError(f"repeats: expected an int >= 1, got {repeats!r}")
    tour = Path(data) if data is not None else TOUR
    if not quick and (tour.suffix != ".ipynb" or not tour.is_file()):
        raise ValueError(f"data: expected a notebook (.ipynb), got {str(tour)!r}")
    say = (lambda s: print(s, file=sys.stderr, flush=True)) if progress else (lambda s: None)
    load0 = os.getloadavg()[0]
    say("first-run: import, --version, polyrank warmup (cold, warm)")
    with tempfile.TemporaryDirectory(prefix="polyrank-numba-cache-") as cache:
        rows, n = _command_rows(cache, repeats)
    comp_cold = comp_warm = tour_cold = tour_warm = None
    if not quick:
        say("first-run: each package's kernels (cold, warm)")
        package_rows, comp_cold, comp_warm = _package_rows()
        rows += package_rows
        say(f"first-run: the tour {tour.name} (cold, warm)")
        with tempfile.TemporaryDirectory(prefix="polyrank-numba-cache-") as cache:
            tour_cold, tour_warm = _tour_seconds(tour, cache), _tour_seconds(tour, cache)
        rows += [_row(f"{tour.name} executed by nbclient", "cold", tour_cold,
                      TARGETS["tour_cold"]),
                 _row(f"{tour.name} executed by nbclient", "warm", tour_warm,
                      TARGETS["tour_warm"])]
    load = (load0, os.getloadavg()[0])
    summary = FirstRunSummary(
        bench="first-run", quick=quick, import_s=n["import_warm"],
        import_sklearn_base_s=n["sklearn"], version_s=n["version_warm"],
        compile_cold_s=comp_cold, compile_warm_s=comp_warm, warmup_cold_s=n["warmup_cold"],
        warmup_warm_s=n["warmup_warm"], tour_cold_s=tour_cold, tour_warm_s=tour_warm,
        load_before=load[0], load_after=load[1])
    return ExperimentResult("first-run", "First run: fresh processes, numba cache empty "
                            "(cold) or filled (warm), beside issue 41's limits", rows,
                            summary, notes=_notes(rows, load))
