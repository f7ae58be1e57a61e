"""The ``polyrank`` command (also ``python -m polyrank``).

Sub-commands::

    polyrank demo              fit the SOPOPO label ranker on yeast, print test metrics
    polyrank bench sopopo      time soft_project against Clarabel and np.sort
    polyrank warmup            compile every numba kernel (cached on disk)
    polyrank reproduce --list  the registered reproductions of the papers' figures
    polyrank reproduce NAME    run one (or ``all``), print a table, write CSV + HTML
    polyrank train METHOD DATA MODEL [options]
                               fit an estimator on a data file, save it to MODEL
    polyrank predict DATA MODEL OUT [options]
                               predict DATA, one line per row to OUT, print metrics
    polyrank --version

Training and prediction on your own files, like liblinear's ``train`` and
``predict``::

    polyrank train ranksvm train.txt rank.model -C 0.1       # LETOR / SVMlight with qid:
    polyrank predict test.txt rank.model scores.txt          # Pairwise Accuracy, Mean NDCG
    polyrank train ordinal winequality-red.csv wine.model --target quality --standardize
    polyrank train m3l yeast-train.arff yeast.model --labels 14 -C 1
    polyrank train sign data.svm sign.model --lam 1e-4 --signs 1,1,0,-1 --bias 1

=============  ===================================  =================================
METHOD         estimator                            DATA (default first)
=============  ===================================  =================================
ranksvm        RankSVM                              SVMlight/LETOR, ``qid:`` = queries
sign           SignConstrainedClassifier            SVMlight, or CSV with ``--target``
               (``--regression``: ...Regressor)
ordinal        OrdinalMarginRanker                  CSV with ``--target NAME``, SVMlight
m3l            M3LClassifier                        SVMlight multi-label, or ARFF with
labelranker    LabelRanker                          ``--labels N`` (the last N attributes)
=============  ===================================  =================================

MODEL is a model file that cannot run code when it is loaded (a skops
archive, see :func:`polyrank.io.save_model`) holding the fitted estimator (a
pipeline with ``--standardize``) and its metadata (polyrank version, method,
data format, number and names of the features, label names); ``predict``
checks DATA against it.  A pickle/joblib model file (polyrank 0.1's format)
is refused unless ``--trust-pickle`` says you trust its source.  Ranking
data take their queries from ``qid:`` fields, from ``--query FILE`` (a
LightGBM/SVMlight ``.query`` file: one query size per line), or from
``DATA.query`` beside DATA, which is used automatically as LightGBM does
(and ignored, with a message, when DATA has ``qid:`` fields, as LightGBM
does).  ``predict`` writes scores (ranksvm), labels (sign, ordinal) or 0/1 label
rows (m3l, labelranker; ``--scores``: real scores) and, when DATA carries
targets, prints liblinear-ranksvm's ``Pairwise Accuracy`` (ties in the
scores count as correct) and ``Mean NDCG`` (LETOR), liblinear's
``Accuracy`` or ``Mean squared error``, the mean absolute error (ordinal),
or the Hamming and ranking losses (multi-label).  A user's mistake (a
missing or malformed file, an unwritable path, an output that is one of the
inputs, a bad option) ends with a one-line message on stderr (with the line
number for a data error) and exit status 2; ``--debug`` shows the traceback.
Every file is written atomically: a failed or interrupted run leaves the
file that was there before.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import io
import json
import os
import sys
import tempfile
import time
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags

from . import (
    LabelRanker,
    M3LClassifier,
    OrdinalMarginRanker,
    RankSVM,
    SignConstrainedClassifier,
    SignConstrainedRegressor,
    __version__,
)
from ._files import atomic_open, same_file, write_text
from .io import _cut as _clip
from .io import (
    _one_line,
    integral_labels,
    label_names_from_xml,
    load_model,
    read_arff,
    read_csv,
    read_query,
    read_svmlight,
    save_model,
)

__all__ = ["main", "demo", "build_parser"]


def demo(C: float = 0.1, decomposition: str = "all_pairs", tol: float = 1e-3,
         bias: float = 1.0, seed: int = 0, progress: bool = True) -> dict:
    """Fit :class:`polyrank.LabelRanker` on the bundled yeast split and
    evaluate it on the test split.

    Parameters
    ----------
    C, decomposition, tol, bias : see :class:`polyrank.LabelRanker`.
    seed : int
        ``random_state`` of the piece order.
    progress : bool
        Show a tqdm progress bar of the relative duality gap per pass.

    Returns
    -------
    dict
        ``label_ranking_loss``, ``coverage_error``,
        ``label_ranking_average_precision`` (scikit-learn's metrics on the
        917 test examples), ``passes``, ``primal``, ``dual``, ``gap``,
        ``relative_gap`` and ``fit_seconds``.
    """
    import time

    from sklearn.metrics import (
        coverage_error,
        label_ranking_average_precision_score,
        label_ranking_loss,
    )
    from tqdm.auto import tqdm

    from . import LabelRanker, warmup
    from .datasets import load_yeast

    data = load_yeast()
    warmup()
    bar = tqdm(total=None, desc="SOPOPO passes", unit="pass", disable=not progress,
               file=sys.stderr)

    def show(info):
        bar.update(1)
        bar.set_postfix(rel_gap=f"{info.gap / info.primal:.2e}")

    model = LabelRanker(C=C, decomposition=decomposition, tol=tol, bias=bias,
                        random_state=seed)
    t = time.perf_counter()
    model.fit(data.X_train, data.Y_train, callback=show)
    seconds = time.perf_counter() - t
    bar.close()
    S = model.decision_function(data.X_test)
    res = model.result_
    return {
        "label_ranking_loss": float(label_ranking_loss(data.Y_test, S)),
        "coverage_error": float(coverage_error(data.Y_test, S)),
        "label_ranking_average_precision": float(
            label_ranking_average_precision_score(data.Y_test, S)),
        "passes": int(res.nit),
        "primal": res.primal_objective,
        "dual": res.dual_objective,
        "gap": res.gap,
        "relative_gap": res.gap / res.primal_objective,
        "fit_seconds": seconds,
    }


def _cmd_demo(args) -> int:
    out = demo(C=args.C, decomposition=args.decomposition, tol=args.tol,
               bias=args.bias, seed=args.seed, progress=not args.json)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print("SOPOPO label ranking on yeast (MULAN split: 1500 train / 917 test, 14 labels)")
    print(f"  C={args.C}, decomposition={args.decomposition}, bias={args.bias}, tol={args.tol}")
    print(f"  passes                       {out['passes']}")
    print(f"  fit time                     {out['fit_seconds']:.2f} s")
    print(f"  primal / dual objective      {out['primal']:.6f} / {out['dual']:.6f}")
    print(f"  final duality gap            {out['gap']:.3e} (relative {out['relative_gap']:.2e})")
    print("test metrics (scikit-learn)")
    print(f"  label ranking loss           {out['label_ranking_loss']:.4f}")
    print(f"  coverage error               {out['coverage_error']:.4f}")
    print(f"  label ranking avg precision  {out['label_ranking_average_precision']:.4f}")
    return 0


#: the generated block of README.md that ``polyrank bench NAME --readme README.md`` updates
README_BENCH_START = ("<!-- polyrank bench: generated by "
                      "`polyrank bench NAME --readme README.md` -->")
README_BENCH_END = "<!-- polyrank bench: end -->"
_README_HEADER = ("| command | what is timed | result (ratios measured in the same run) | run |\n"
                  "| --- | --- | --- | --- |")


def _readme_row(command: str, title: str, notes) -> str:
    def cell(text):
        return " ".join(str(text).split()).replace("|", "\\|")

    machine = f"{time.strftime('%Y-%m-%d')}, {os.cpu_count() or 1} cores"
    try:
        machine += f", load {os.getloadavg()[0]:.1f}"
    except (OSError, AttributeError):
        pass
    return (f"| `{command}` | {cell(title)} | {'<br>'.join(cell(n) for n in notes)} | "
            f"{machine} |")


def update_readme_bench(path, command: str, title: str, notes) -> Path:
    """Replace (or add) the row of ``command`` in the generated benchmark
    table of the README at ``path`` (between :data:`README_BENCH_START` and
    :data:`README_BENCH_END`), keeping the other rows; the file is written
    atomically.  Returns the path.

    A row's first cell is the command that measured it, so it says the run's
    kind: a ``--quick`` run replaces a quick row of its bench, never a full
    run's row (ValueError); a full run replaces either.

    Raises
    ------
    ValueError
        If the README has no such block, or ``command`` is a ``--quick`` run
        and the bench's row comes from a full run.
    """
    path, head, body, tail = _readme_block(path, README_BENCH_START, README_BENCH_END,
                                           "benchmark")
    rows = [line for line in body.splitlines() if line.startswith("| `")]
    name = _bench_name(command)
    _refuse_quick_over_full(path, command, [name], _full_bench_names(rows))
    new = _readme_row(command, title, notes)
    rows = [new if _bench_name(r.split("`")[1]) == name else r for r in rows]
    if new not in rows:
        rows.append(new)
    return _write_readme_block(path, head, README_BENCH_START, _README_HEADER, rows,
                               README_BENCH_END, tail)


def _is_quick(command: str) -> bool:
    """Whether a command (as written in a README row) is a ``--quick`` run."""
    return "--quick" in command.split()


def _bench_name(command: str) -> str:
    """``polyrank bench NAME`` of a bench command (its options dropped)."""
    return command.split(" --")[0].strip()


def _full_bench_names(rows) -> set:
    """The benches whose row in the generated table comes from a full run."""
    commands = [r.split("`")[1] for r in rows]
    return {_bench_name(c) for c in commands if not _is_quick(c)}


def _full_paper_names(rows) -> set:
    """The experiments with rows from a full run in the paper table (the
    last cell names the command: ``date, `polyrank reproduce NAME ...```)."""
    def run_cell(row):
        return row.rstrip().rstrip("|").rsplit("|", 1)[-1].replace("`", " ")

    return {r.split("`")[1] for r in rows if r.startswith("| `") and not _is_quick(run_cell(r))}


def _refuse_quick_over_full(path, command: str, names, full: set) -> None:
    """ValueError if ``command`` is a ``--quick`` run and any of ``names``
    has a README row from a full run."""
    clash = [n for n in names if n in full]
    if _is_quick(command) and clash:
        raise ValueError(f"{path}: the rows of {_clip(', '.join(clash), 120)} come from full "
                         "runs; a --quick run does not replace them (run without --quick, "
                         "or give --readme a copy of the file)")


def check_readme_quick(path, kind: str, command: str, names) -> None:
    """Before a ``--quick`` run with ``--readme``: ValueError if the README at
    ``path`` holds a full run's rows for any of ``names`` (bench commands
    ``polyrank bench NAME`` for ``kind="bench"``, experiment names for
    ``kind="reproduce"``), which the run would not be allowed to replace.

    Raises
    ------
    ValueError
        As above, or the README has no generated block of ``kind``.
    """
    if not _is_quick(command):
        return
    start, end, what = ((README_BENCH_START, README_BENCH_END, "benchmark") if kind == "bench"
                        else (README_PAPER_START, README_PAPER_END, "paper-vs-polyrank"))
    path, _, body, _ = _readme_block(path, start, end, what)
    rows = [line for line in body.splitlines() if line.startswith("| `")]
    full = _full_bench_names(rows) if kind == "bench" else _full_paper_names(rows)
    _refuse_quick_over_full(path, command, names, full)


def _readme_block(path, start: str, end: str, what: str):
    """(path as a Path, the text before, inside and after the generated
    ``what`` block between the lines ``start`` and ``end`` of a README)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise ValueError(f"{path}: no generated {what} block (the lines "
                         f"{start!r} ... {end!r})")
    head, rest = text.split(start, 1)
    body, tail = rest.split(end, 1)
    return path, head, body, tail


def _write_readme_block(path: Path, head: str, start: str, header: str, rows,
                        end: str, tail: str) -> Path:
    """Write the README back, atomically, with the block's table
    (``header``, then ``rows``) between ``start`` and ``end``; returns the
    path."""
    write_text(path, head + start + "\n" + header + "\n" + "\n".join(rows) + "\n" + end
               + tail)
    return path


#: the generated "paper vs polyrank" block of README.md that ``polyrank reproduce
#: NAME --readme README.md`` updates (rows from ``summary["paper"]``)
README_PAPER_START = ("<!-- polyrank reproduce: generated by "
                      "`polyrank reproduce NAME --readme README.md` -->")
README_PAPER_END = "<!-- polyrank reproduce: end -->"
_README_PAPER_HEADER = ("| experiment | item | paper | polyrank | data | run |\n"
                        "| --- | --- | --- | --- | --- | --- |")


def update_readme_paper(path, name: str, command: str, items) -> Path:
    """Replace (or add) the rows of experiment ``name`` in the generated
    "paper vs polyrank" table of the README at ``path`` (between
    :data:`README_PAPER_START` and :data:`README_PAPER_END`), keeping the
    other experiments' rows in registry order; the file is written
    atomically.  A row's last cell names the command that measured it: a
    ``--quick`` run replaces quick rows, never a full run's (ValueError).

    Parameters
    ----------
    path : str or Path
    name : str
        The experiment's registered name.
    command : str
        The command that produced ``items`` (shown in each row).
    items : sequence of PaperItem or dict
        ``summary.paper`` of the experiment
        (:class:`~polyrank.experiments.registry.PaperItem`, or dicts with
        its keys ``item``, ``paper``, ``ours`` and ``data``).

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        If the README has no such block, or ``command`` is a ``--quick`` run
        and the experiment's rows come from a full run.
    """
    from .experiments import EXPERIMENTS
    from .experiments.registry import as_record

    def cell(text):
        return " ".join(str(text).split()).replace("|", "\\|")

    path, head, body, tail = _readme_block(path, README_PAPER_START, README_PAPER_END,
                                           "paper-vs-polyrank")
    rows = {}
    for line in body.splitlines():
        if line.startswith("| `") and "` |" in line:
            rows.setdefault(line[3:line.index("` |")], []).append(line)
    _refuse_quick_over_full(path, command, [name],
                            _full_paper_names([r for rs in rows.values() for r in rs]))
    run = f"{time.strftime('%Y-%m-%d')}, `{command}`"
    items = as_record(items)
    rows[name] = [f"| `{name}` | {cell(it['item'])} | {cell(it['paper'])} | "
                  f"{cell(it['ours'])} | {cell(it['data'])} | {run} |" for it in items]
    order = [n for n in EXPERIMENTS if n in rows] + [n for n in rows if n not in EXPERIMENTS]
    lines = [r for n in order for r in rows[n]]
    return _write_readme_block(path, head, README_PAPER_START, _README_PAPER_HEADER, lines,
                               README_PAPER_END, tail)


def _cmd_bench(args) -> int:
    from .experiments import BENCHES, bench_sopopo, format_table
    from .experiments.registry import as_record

    command = (f"polyrank bench {args.name}{' --quick' if args.quick else ''}"
               + (f" --data {Path(args.data).name}" if args.data else ""))
    if args.readme is not None:
        if not Path(args.readme).is_file():
            raise UsageError(f"--readme {args.readme!r}: no such file")
        with _user_errors("--readme", args.readme):      # before a long run
            check_readme_quick(args.readme, "bench", command, [_bench_name(command)])
    if args.name != "sopopo":
        if args.k:
            print("polyrank bench: --k applies to 'sopopo' only", file=sys.stderr)
            return 2
        extra = {}
        if args.data is not None:
            if "data" not in inspect.signature(BENCHES[args.name].func).parameters:
                raise UsageError(f"--data: bench {args.name!r} takes no data file")
            if not Path(args.data).is_file():
                raise UsageError(f"--data {args.data!r}: no such file")
            extra["data"] = args.data
        res = BENCHES[args.name].run(quick=args.quick, seed=args.seed,
                                     progress=not args.json, **extra)
        text = sys.stderr if args.json else sys.stdout
        print(f"{args.name}{' (quick)' if args.quick else ''}: {res.title}", file=text)
        print(res.format_table(), file=text)
        for line in res.notes:
            print(line, file=text)
        if args.json:
            print(json.dumps(res.summary_record(), indent=2, allow_nan=False))
        if args.readme is not None:
            with _user_errors("--readme", args.readme):
                update_readme_bench(args.readme, command, res.title, res.notes)
            print(f"updated the row of '{command}' in {args.readme}", file=text)
        return 0
    ks = tuple(args.k) if args.k else ((10, 100, 1000) if args.quick else (10, 100, 1000, 10000))
    rows = bench_sopopo(ks=ks, seed=args.seed, **({"repeats": 3} if args.quick else {}))
    if args.json:
        print(json.dumps(as_record(rows), indent=2))
        return 0
    print("SOPOPO vs Clarabel vs np.sort on the data of the paper's Fig. 6 (n = 100, "
          "C = 1); seconds per call (median), single-threaded")
    print("  sopopo   = soft_project: the whole of Eq. 7 (U x, Fig. 3, and the k x n matrix W)")
    print("  sopopo19 = solve_reduced: Fig. 3 on the reduced problem Eq. 19 (Clarabel's input)")
    print("  clarabel = Clarabel on Eq. 19 (wall time of the call); cl.solve = its own solve time")
    print("  sort     = np.sort of the k margins")
    print(format_table(rows))
    by_k = {r.k: r for r in rows}
    notes = []
    if 100 in by_k:
        r = by_k[100]
        notes.append(f"k = 100: Fig. 3 on Eq. 19 is {r.ratio_clarabel_reduced:.0f}x faster "
                     f"than Clarabel on the same problem; soft_project (all of Eq. 7) "
                     f"{r.ratio_clarabel:.0f}x")
    if 10000 in by_k:
        r = by_k[10000]
        notes.append(f"k = 10000: Fig. 3 on Eq. 19 takes {r.ratio_sort_reduced:.1f}x the "
                     f"time of np.sort of the k margins; soft_project {r.ratio_sort:.0f}x "
                     f"(it also writes W, k x n = {10000 * 100:,} numbers)")
    for line in notes:
        print(line)
    if args.readme is not None:
        with _user_errors("--readme", args.readme):
            update_readme_bench(args.readme, command, "soft_project (Eq. 7) and Fig. 3 on "
                                "Eq. 19 vs Clarabel vs np.sort, n = 100, C = 1, k = "
                                + ", ".join(map(str, ks)), notes)
        print(f"updated the row of '{command}' in {args.readme}")
    return 0


def _cmd_reproduce(args) -> int:
    from .experiments import EXPERIMENTS, run_experiment

    if args.list:
        width = max(len(name) for name in EXPERIMENTS)
        for name, exp in EXPERIMENTS.items():
            print(f"{name:<{width}}  {exp.description}")
        return 0
    if args.name is None:
        print("polyrank reproduce: give an experiment NAME, 'all', or --list; registered: "
              + ", ".join(EXPERIMENTS), file=sys.stderr)
        return 2
    if args.name != "all" and args.name not in EXPERIMENTS:
        print(f"polyrank reproduce: unknown experiment {args.name!r}; registered: "
              + ", ".join(EXPERIMENTS) + " (or 'all')", file=sys.stderr)
        return 2
    names = list(EXPERIMENTS) if args.name == "all" else [args.name]
    if args.readme is not None:
        if not Path(args.readme).is_file():
            raise UsageError(f"--readme {args.readme!r}: no such file")
        with _user_errors("--readme", args.readme):      # before a long run
            check_readme_quick(args.readme, "reproduce",
                               f"polyrank reproduce{' --quick' if args.quick else ''}", names)
    out_dir = _out_dir(args.out)
    # with --json, stdout carries only the JSON document
    text = sys.stderr if args.json else sys.stdout
    summaries = {}
    status = 0
    index = []
    t_all = time.perf_counter()
    for k, name in enumerate(names, 1):
        if len(names) > 1:
            print(f"[{k}/{len(names)}] {name}: {EXPERIMENTS[name].description}",
                  file=sys.stderr, flush=True)
        res = run_experiment(name, quick=args.quick, seed=args.seed,
                             progress=not args.no_progress)
        no_figure = None
        with _user_errors("--out"):
            written = [res.write_csv(out_dir / f"{name}.csv")]
            try:
                written.append(res.write_html(out_dir / f"{name}.html", plotlyjs="directory"))
            except ImportError as exc:        # no figure builder: the jupyter extra is missing
                no_figure = exc
        print(f"\n== {name}{' (quick)' if args.quick else ''}: {res.title}", file=text)
        print(res.format_table(), file=text)
        for line in res.notes:
            print(line, file=text)
        if no_figure is not None:
            status = 1
            print(f"could not write {name}.html: {no_figure}", file=text)
        elif args.png:
            try:
                written.append(res.write_png(out_dir / f"{name}.png"))
            except Exception as exc:          # kaleido or Chrome missing: say so, go on
                status = 1
                print(f"could not write {name}.png: {type(exc).__name__}: {exc}", file=text)
        print("wrote " + ", ".join(map(str, written)), file=text, flush=True)
        summaries[name] = res.summary_record()
        index.append((name, res, [p.name for p in written]))
        paper = summaries[name].get("paper")
        if args.readme is not None and paper:
            command = f"polyrank reproduce {name}{' --quick' if args.quick else ''}"
            with _user_errors("--readme", args.readme):
                update_readme_paper(args.readme, name, command, paper)
            print(f"updated the rows of {name} in {args.readme}", file=text)
    if len(names) > 1:
        with _user_errors("--out"):
            page = _write_index(out_dir / "index.html", index, quick=args.quick)
        print(f"\n{len(names)} experiments in {time.perf_counter() - t_all:.0f} s; "
              f"open {page} in a browser for all figures", file=text, flush=True)
    if args.json:
        doc = summaries if args.name == "all" else summaries[names[0]]
        print(json.dumps(doc, indent=2, allow_nan=False))
    return status


def _out_dir(path: str) -> Path:
    """The ``--out`` directory of ``reproduce``, created and checked
    writable before any experiment runs."""
    out_dir = Path(path)
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {path!r} exists and is not a directory")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as exc:
        raise UsageError(f"--out {path!r}: cannot write there "
                         f"({exc.strerror or _one_line(exc)})") from exc
    return out_dir


_INDEX_CSS = """
body { font-family: system-ui, sans-serif; max-width: 72em; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
h1 { font-weight: 600; } nav a { margin-right: .8em; }
section { border: 1px solid #ddd; border-radius: 6px; padding: .6em 1.2em 1em; margin: 1.4em 0; }
section h2 { font-size: 1.15em; margin-bottom: .2em; } .files a { margin-right: 1em; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; font-size: 12px; }
img { max-width: 100%; border: 1px solid #eee; } ul { padding-left: 1.2em; }
"""


def _write_index(path, entries, quick: bool):
    """Write ``index.html``: for every experiment its title, table, notes and
    links to each file written (interactive figure, CSV, PNG) (what
    ``reproduce all`` opens with)."""
    from html import escape

    nav = " ".join(f"<a href='#{escape(name)}'>{escape(name)}</a>" for name, _, _ in entries)
    sections = []
    for name, res, files in entries:
        kinds = {".html": "interactive figure", ".csv": "table (CSV)", ".png": "figure (PNG)"}
        links = " ".join(f"<a href='{escape(f)}'>{kinds.get(Path(f).suffix, f)}</a>"
                         for f in files)
        png = next((f for f in files if f.endswith(".png")), None)
        notes = "".join(f"<li>{escape(n)}</li>" for n in res.notes)
        sections.append(
            f"<section id='{escape(name)}'><h2>{escape(name)}: {escape(res.title)}</h2>"
            f"<p class='files'>{links}</p>"
            + (f"<a href='{escape(name)}.html'><img src='{escape(png)}' alt='{escape(name)}'>"
               "</a>" if png else "")
            + f"<pre>{escape(res.format_table())}</pre>"
            + (f"<ul>{notes}</ul>" if notes else "") + "</section>")
    write_text(
        path,
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>polyrank reproduce</title><style>{_INDEX_CSS}</style></head><body>"
        f"<h1>polyrank reproduce all{' --quick' if quick else ''}</h1>"
        "<p>The papers' figures and tables as reproduced by polyrank; every figure is "
        "interactive (one shared <code>plotly.min.js</code> in this directory).</p>"
        f"<nav>{nav}</nav>{''.join(sections)}</body></html>")
    return path


def _cmd_warmup(args) -> int:
    from . import warmup

    warmup(verbose=True, n_jobs=args.jobs)
    return 0


# ------------------------------------------------------- train / predict

class UsageError(Exception):
    """A mistake of the user (a file, a path, an option): one line on stderr
    and exit status 2, never a traceback (unless ``--debug``)."""


#: The longest message ``polyrank`` prints for an error or a warning (a
#: longer one is cut, with its length said).
MESSAGE_CHARS = 300


@contextmanager
def _user_errors(what: str, path: str | None = None):
    """Turn the errors a user's file or option causes into a UsageError
    whose message starts with ``what`` (and ``path``, said once)."""
    where = what if path is None else f"{what} {path!r}"
    try:
        yield
    except UsageError:
        raise
    except OSError as exc:
        reason = exc.strerror or _one_line(exc, MESSAGE_CHARS)
        if exc.filename is None or exc.filename == path:
            raise UsageError(f"{where}: {reason}") from exc
        raise UsageError(f"{where}: cannot access {exc.filename!r}: {reason}") from exc
    except (ValueError, TypeError) as exc:
        msg = _one_line(exc, MESSAGE_CHARS)
        if path is not None and msg.startswith(f"{path}"):
            raise UsageError(f"{what} {msg}") from exc      # the reader named the file
        raise UsageError(f"{where}: {msg}") from exc


@contextmanager
def _warnings_as_lines(prog: str):
    """Show every warning (e.g. a ConvergenceWarning) as one line on stderr."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"{prog}: {category.__name__}: {_one_line(message, MESSAGE_CHARS)}",
              file=sys.stderr)

    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = show
        yield


def _check_writable(path: str, what: str, inputs: dict) -> None:
    """UsageError unless a file can be written at ``path`` (checked before a
    long fit; the file itself is not created here) and ``path`` is none of
    ``inputs`` (``{option name: path}``; the same file also through a
    symbolic or hard link).  Files are written atomically, by a temporary
    file in the same directory, so that directory must be writable; an
    existing file without write permission is not replaced."""
    for name, other in inputs.items():
        if other is not None and same_file(path, other):
            raise UsageError(f"{what} {path!r} is the same file as {name} {other!r}; "
                             f"refusing to overwrite an input (give {what} another name)")
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what} {path!r} is a directory")
    parent = Path(os.path.realpath(p)).parent
    if not parent.is_dir():
        raise UsageError(f"{what} {path!r}: directory {str(p.parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"{what} {path!r}: permission denied")


@dataclass(frozen=True)
class _Method:
    """A METHOD of ``polyrank train``: its estimator, task and data formats."""

    estimator: type
    task: str                   # "ranking", "classification", "ordinal", "multilabel"
    formats: tuple              # accepted DATA formats, the default first
    help: str


_METHODS = {
    "ranksvm": _Method(RankSVM, "ranking", ("svmlight",),
                       "RankSVM (Tree-TRON); LETOR/SVMlight with qid:"),
    "sign": _Method(SignConstrainedClassifier, "classification", ("svmlight", "csv"),
                    "SignConstrainedClassifier (--regression: SignConstrainedRegressor); "
                    "SVMlight or CSV"),
    "ordinal": _Method(OrdinalMarginRanker, "ordinal", ("csv", "svmlight"),
                       "OrdinalMarginRanker; CSV with --target, or SVMlight"),
    "m3l": _Method(M3LClassifier, "multilabel", ("svmlight", "arff"),
                   "M3LClassifier; MULAN ARFF with --labels, or SVMlight multi-label"),
    "labelranker": _Method(LabelRanker, "multilabel", ("svmlight", "arff"),
                           "LabelRanker (SOPOPO); MULAN ARFF with --labels, or SVMlight "
                           "multi-label"),
}

#: estimator options of ``polyrank train``: (dest, flags, type, help, parameter
#: names; the first one the estimator has is set)
_PARAM_OPTIONS = (
    ("C", ("-C", "--C"), float, "slack penalty C (ranksvm, m3l, labelranker)", ("C",)),
    ("c", ("--c",), float, "slack penalty c of the soft margin (ordinal)", ("c",)),
    ("lam", ("--lam",), float, "regularisation lambda (sign)", ("lam",)),
    ("kernel", ("--kernel",), str, "kernel: linear, rbf, poly (ordinal, m3l, labelranker)",
     ("kernel",)),
    ("gamma", ("--gamma",), float, "kernel width gamma (ordinal, m3l, labelranker)",
     ("gamma",)),
    ("smoothing", ("--smoothing",), float, "smoothing of the smoothed hinge (sign)",
     ("smoothing",)),
    ("tol", ("--tol",), float, "stopping tolerance tol", ("tol",)),
    ("max_iter", ("--max-iter",), int, "iteration cap max_iter", ("max_iter",)),
    ("bias", ("--bias",), float,
     "value of a constant feature giving an intercept (sign, m3l, labelranker)", ("bias",)),
    ("seed", ("--seed",), int, "random_state (sign, m3l, labelranker)", ("random_state",)),
)


def _estimator(args) -> object:
    """The unfitted estimator of ``args.method`` with the options set."""
    method = _METHODS[args.method]
    if args.regression and args.method != "sign":
        raise UsageError("--regression applies to method 'sign' only")
    est = SignConstrainedRegressor() if args.regression else method.estimator()
    names = set(est.get_params())
    params = {}
    for dest, flags, _, _, candidates in _PARAM_OPTIONS:
        value = getattr(args, dest)
        if value is None:
            continue
        name = next((c for c in candidates if c in names), None)
        if name is None:
            usable = [f[-1] for d, f, _, _, cs in _PARAM_OPTIONS
                      if any(c in names for c in cs)]
            raise UsageError(f"{flags[-1]} does not apply to method {args.method!r} "
                             f"({type(est).__name__}); its options: "
                             + ", ".join(usable + ["--param NAME=VALUE"]))
        params[name] = value
    if args.verbose:
        if "verbose" not in names:
            raise UsageError(f"--verbose: {type(est).__name__} has no verbose log")
        params["verbose"] = args.verbose
    for item in args.param:
        name, sep, text = item.partition("=")
        if not sep or name not in names:
            raise UsageError(f"--param {item!r}: expected NAME=VALUE with NAME one of "
                             + ", ".join(sorted(names)))
        try:
            params[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            params[name] = text                  # a bare word, e.g. loss=l1
    return est.set_params(**params)


def _labels_option(value):
    """``--labels``: N (the last N ARFF attributes) or a MULAN XML file."""
    try:
        return int(value)
    except ValueError:
        with _user_errors("--labels"):
            return label_names_from_xml(value)


def _train_format(args, method: _Method) -> str:
    """DATA's format: ``--format``, else CSV with ``--target``, ARFF with
    ``--labels``, else the method's default."""
    fmt = args.format or ("csv" if args.target is not None else
                          "arff" if args.labels is not None else method.formats[0])
    if args.format is None and fmt == "svmlight" and args.data.lower().endswith(".arff"):
        fmt = "arff"                 # an ARFF file given without --labels: say what is missing
    if args.format is None and fmt == "svmlight" and args.data.lower().endswith(".csv"):
        fmt = "csv"
    if fmt not in method.formats:
        why = ("--format" if args.format else "--target" if args.target is not None
               else "--labels" if args.labels is not None else "the name of DATA")
        raise UsageError(f"method {args.method!r} reads {' or '.join(method.formats)} data, "
                         f"not {fmt} ({why})")
    if fmt == "csv" and args.target is None:
        others = [f for f in method.formats if f != "csv"]
        raise UsageError("CSV data need --target NAME (the column of the targets)"
                         + (f"; for {others[0]} data give --format {others[0]}"
                            if others else ""))
    if fmt != "csv" and args.target is not None:
        raise UsageError(f"--target applies to CSV data, not {fmt}")
    if fmt == "arff" and args.labels is None:
        raise UsageError("ARFF data need --labels N (the last N attributes are the "
                         "labels) or --labels FILE.xml (MULAN's label file)")
    if fmt != "arff" and args.labels is not None:
        raise UsageError(f"--labels applies to ARFF data, not {fmt}")
    return fmt


def _read(path: str, fmt: str, task: str, meta: dict | None, *, target=None, labels=None):
    """Read DATA for training (``meta`` None) or for a model's prediction."""
    with _user_errors("DATA", path):
        if fmt == "svmlight":
            kw = {} if meta is None else {"n_features": meta["n_features"],
                                          "zero_based": meta["zero_based"]}
            if task == "multilabel":
                kw["labels"] = None if meta is None else meta["label_names"]
            data = read_svmlight(path, query_id=task == "ranking",
                                 multilabel=task == "multilabel", **kw)
        elif fmt == "csv":
            data = read_csv(path, target=target if meta is None else meta["target"],
                            feature_names=None if meta is None else meta["feature_names"],
                            require_target=meta is None)
        else:
            data = read_arff(path, labels if meta is None else meta["label_names"],
                             feature_names=None if meta is None else meta["feature_names"],
                             require_labels=meta is None)
    if data.y is not None and task in ("classification", "ordinal"):
        data.y = integral_labels(data.y)
    if task == "ordinal" and data.y is not None and data.y.dtype.kind not in "iuf":
        raise UsageError(f"DATA {path!r}: ordinal targets must be numbers (ordered "
                         f"labels), got {data.y[0]!r}")
    if task in ("regression", "ranking") and data.y is not None \
            and data.y.dtype.kind not in "iuf":
        raise UsageError(f"DATA {path!r}: the targets must be numbers, got {data.y[0]!r}")
    return data


def _queries(args, data, prog: str) -> str:
    """Set ``data.qid`` of ranking data: the file's ``qid:`` fields, or
    ``--query FILE``, or ``DATA.query`` beside DATA (LightGBM's convention),
    else one query (as liblinear-ranksvm).  Returns where the queries came
    from, for the log.

    As LightGBM, ``qid:`` fields in DATA win over a ``DATA.query`` found
    beside it (which is then ignored, with a message); ``--query`` given
    with such a DATA is a contradiction and refused.
    """
    n = data.X.shape[0]
    auto = f"{args.data}.query"
    if args.query is not None:
        if data.qid is not None:
            raise UsageError(f"--query {args.query!r}: DATA {args.data!r} has qid: fields "
                             "already; give the queries one way only")
        with _user_errors("--query", args.query):
            data.qid = read_query(args.query, n)
        return f"queries from {args.query}"
    if os.path.isfile(auto):
        if data.qid is not None:
            print(f"{prog}: DATA has qid: fields; ignoring {auto} (as LightGBM does)",
                  file=sys.stderr)
            return "queries from qid:"
        with _user_errors("query file", auto):
            data.qid = read_query(auto, n)
        print(f"{prog}: query sizes from {auto} (found beside DATA, used as LightGBM does)",
              file=sys.stderr)
        return f"queries from {auto}"
    if data.qid is None:
        data.qid = np.zeros(n, dtype=np.int64)   # one query, as liblinear-ranksvm
        return "one query (no qid:, --query or DATA.query)"
    return "queries from qid:"


def _available_bytes() -> int | None:
    """Memory available to a new allocation (Linux: MemAvailable), or None
    where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _design(X, est, dense: bool | None = None):
    """X as the estimator takes it: CSR stays sparse where the estimator's
    tags accept sparse input, else it is made dense.  Returns (X, dense)."""
    if dense is None:
        dense = sp.issparse(X) and not get_tags(est).input_tags.sparse
    if dense and sp.issparse(X):
        need, have = 8 * X.shape[0] * X.shape[1], _available_bytes()
        if have is not None and need > have:
            raise UsageError(f"DATA: {X.shape[0]:,} rows x {X.shape[1]:,} features need "
                             f"{need / 1e9:.1f} GB as the dense array "
                             f"{type(est).__name__} takes; {have / 1e9:.1f} GB are "
                             "available (fewer features, or a linear method that takes "
                             "sparse data)")
        X = X.toarray()
    return X, dense


def _cmd_train(args) -> int:
    method = _METHODS[args.method]
    est = _estimator(args)
    task = "regression" if args.regression else method.task
    fmt = _train_format(args, method)
    labels = _labels_option(args.labels) if args.labels is not None else None
    if args.query is not None and task != "ranking":
        raise UsageError(f"--query applies to ranking data (method 'ranksvm'), not "
                         f"{args.method!r}")
    _check_writable(args.model, "MODEL", {
        "DATA": args.data, "--labels": args.labels, "--signs": args.signs,
        "--query": args.query, "DATA.query": f"{args.data}.query"})
    data = _read(args.data, fmt, task, None, target=args.target, labels=labels)
    if data.y is None:                             # pragma: no cover - readers require it
        raise UsageError(f"DATA {args.data!r} has no targets")
    queries = _queries(args, data, "polyrank train") if task == "ranking" else ""
    if args.signs is not None:
        with _user_errors("--signs"):
            est.set_params(signs=_signs_option(args.signs, data))
    X, dense = _design(data.X, est)
    model = est
    if args.standardize:
        model = Pipeline([("standardize", StandardScaler(with_mean=not sp.issparse(X))),
                          ("estimator", est)])
    fit_params = {}
    if task == "ranking":
        fit_params["estimator__qid" if args.standardize else "qid"] = data.qid
    t = time.perf_counter()
    with _user_errors(f"fitting {type(est).__name__}"):
        model.fit(X, data.y, **fit_params)
    seconds = time.perf_counter() - t
    meta = dict(method=args.method, task=task, data_format=fmt,
                n_features=int(data.X.shape[1]), feature_names=data.feature_names,
                label_names=data.label_names, target=args.target,
                zero_based=data.zero_based, dense=bool(dense),
                standardize=bool(args.standardize), params=est.get_params(deep=False),
                n_samples=int(data.X.shape[0]), train_file=os.path.abspath(args.data))
    with _user_errors("MODEL", args.model):
        save_model(args.model, model, **meta)
    res = getattr(est, "result_", None)
    what = (f"{res.message}, {est.n_iter_} iterations" if res is not None
            and hasattr(est, "n_iter_") else "fitted")
    extra = (f", {np.unique(data.qid).size} queries ({queries})" if task == "ranking"
             else "")
    print(f"{args.method}: {data.X.shape[0]} rows x {data.X.shape[1]} features{extra}; "
          f"{type(est).__name__}: {what} ({seconds:.2f} s); wrote {args.model}")
    return 0


def _signs_option(value: str, data):
    """``--signs``: a comma list or a file of -1/0/+1 (one per feature; a file
    may hold a (features, classes) matrix), or ``FEATURE:SIGN,...`` where
    FEATURE is a CSV/ARFF column name or an SVMlight feature index."""
    if os.path.isfile(value):
        with open(value, encoding="utf-8") as fh:
            text = fh.read().replace(",", " ")
        return np.loadtxt(io.StringIO(text), ndmin=1).astype(np.int64)
    items = [s.strip() for s in value.split(",") if s.strip()]
    if not items:
        raise ValueError("empty list")
    if all(":" not in s for s in items):
        return np.array([int(float(s)) for s in items], dtype=np.int64)
    signs = {}
    offset = 0 if data.zero_based is not False else 1
    for item in items:
        key, _, sign = item.rpartition(":")
        if data.feature_names is not None:
            if key not in data.feature_names:
                raise ValueError(f"{key!r} is not a feature column "
                                 f"({', '.join(data.feature_names)})")
            col = data.feature_names.index(key)
        else:
            col = int(key) - offset
            if not 0 <= col < data.X.shape[1]:
                raise ValueError(f"feature index {key} outside 1..{data.X.shape[1]}")
        signs[col] = int(float(sign))
    return signs


#: metadata ``polyrank train`` stores and ``polyrank predict`` needs
_MODEL_KEYS = ("method", "task", "data_format", "n_features", "feature_names",
               "label_names", "target", "zero_based", "dense")


def _load(path: str, trust_pickle: bool = False):
    """The estimator and metadata of a MODEL file, checked."""
    with _user_errors("MODEL", path):
        est, meta = load_model(path, trusted=trust_pickle)
    missing = [k for k in _MODEL_KEYS if k not in meta]
    if missing:
        raise UsageError(f"MODEL {path!r}: not written by polyrank train (no {missing})")
    method = _METHODS.get(meta["method"])
    final = est[-1] if isinstance(est, Pipeline) else est
    expected = (SignConstrainedRegressor if meta.get("task") == "regression"
                else method.estimator if method is not None else None)
    if method is None or type(final) is not expected:
        raise UsageError(f"MODEL {path!r}: its metadata say method {meta['method']!r} but it "
                         f"holds a {type(final).__name__}")
    return est, meta


def _format(v) -> str:
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return str(v)


def _write_lines(path: str, values) -> None:
    """OUT: one line per row of ``values``, written atomically."""
    with _user_errors("OUT", path):
        with atomic_open(path, "w", encoding="utf-8") as fh:
            for row in values:
                fh.write((" ".join(map(_format, row)) if np.ndim(row) else _format(row))
                         + "\n")


def _metrics(task: str, y, pred, scores, qid) -> list:
    """(key, value, text line) of the field's metrics, liblinear's wording."""
    from sklearn import metrics as skm

    from . import metrics as pm

    n = len(y)
    if task == "ranking":
        try:
            pa = pm.pairwise_accuracy(y, scores, qid)
        except ValueError:                  # no preference pair in DATA
            pa = float("nan")
        ndcg = pm.mean_ndcg(y, scores, qid)
        text = ("Pairwise Accuracy = n/a (no preference pair in DATA)" if np.isnan(pa)
                else f"Pairwise Accuracy = {100 * pa:g}%")
        return [("pairwise_accuracy", pa, text),
                ("mean_ndcg", ndcg, f"Mean NDCG = {ndcg:g}")]
    if task == "regression":
        mse = skm.mean_squared_error(y, pred)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.corrcoef(np.asarray(y, dtype=float), pred)[0, 1] if n > 1 else np.nan
        return [("mean_squared_error", mse, f"Mean squared error = {mse:g} (regression)"),
                ("squared_correlation", r * r,
                 f"Squared correlation coefficient = {r * r:g} (regression)")]
    if task == "multilabel":
        hl = skm.hamming_loss(y, pred)
        rl = skm.label_ranking_loss(y, scores)
        return [("hamming_loss", hl, f"Hamming loss = {hl:g}"),
                ("ranking_loss", rl, f"Ranking loss = {rl:g}")]
    correct = int(np.sum(np.asarray(y) == np.asarray(pred)))
    out = []
    if task == "ordinal":
        mae = skm.mean_absolute_error(y, pred)
        out.append(("mean_absolute_error", mae, f"Mean absolute error = {mae:g}"))
    acc = correct / n
    return out + [("accuracy", acc, f"Accuracy = {100 * acc:g}% ({correct}/{n})")]


def _cmd_predict(args) -> int:
    _check_writable(args.out, "OUT", {"DATA": args.data, "MODEL": args.model,
                                      "--query": args.query,
                                      "DATA.query": f"{args.data}.query"})
    est, meta = _load(args.model, args.trust_pickle)
    task = meta["task"]
    if args.query is not None and task != "ranking":
        raise UsageError(f"--query applies to ranking models (method 'ranksvm'), not "
                         f"{meta['method']!r}")
    data = _read(args.data, meta["data_format"], task, meta)
    if task == "ranking":
        _queries(args, data, "polyrank predict")
    final = est[-1] if isinstance(est, Pipeline) else est
    X, _ = _design(data.X, final, dense=meta["dense"])
    with _user_errors("predict"):
        scores = est.decision_function(X) if task in ("ranking", "multilabel") or \
            (args.scores and task != "regression") else None
        pred = None if task == "ranking" else est.predict(X)
    if args.scores and task == "regression":
        raise UsageError("--scores: a regression model predicts real values already")
    _write_lines(args.out, scores if task == "ranking" or args.scores else pred)
    if data.y is None:
        return 0
    rows = _metrics(task, data.y, pred, scores, data.qid)
    if args.json:
        print(json.dumps({k: (None if np.isnan(v) else float(v)) for k, v, _ in rows},
                         indent=2))
    else:
        for _, _, line in rows:
            print(line)
    return 0


_QUERY_HELP = ("ranksvm: the query sizes, one per line, in the order of the rows (a "
               "LightGBM/SVMlight .query file); default: qid: fields of DATA, else DATA.query "
               "beside DATA, else one query")


def _add_train_predict(sub) -> None:
    formats = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "train", help="fit an estimator on a data file and save it (like liblinear's train)",
        formatter_class=formats,
        description=("Fit METHOD's estimator on DATA and write it, with its metadata, to\n"
                     "the model file MODEL (skops: loading it runs no code).  Options map to\n"
                     "the estimator's parameters; unset ones keep the estimator's defaults."),
        epilog=("methods:\n" + "".join(f"  {k:<12} {m.help}\n" for k, m in _METHODS.items())
                + "\nexamples:\n"
                "  polyrank train ranksvm train.txt rank.model -C 0.1\n"
                "  polyrank train sign data.svm sign.model --lam 1e-4 --signs 3:1,7:-1\n"
                "  polyrank train sign data.csv reg.model --target y --regression "
                "--signs 1,1,1\n"
                "  polyrank train ordinal winequality-red.csv wine.model --target quality "
                "--standardize\n"
                "  polyrank train m3l yeast-train.arff yeast.model --labels 14\n"
                "  polyrank train labelranker data.svm ml.model -C 0.1   "
                "# SVMlight multi-label (1,3 1:0.5 ...)\n"))
    p.add_argument("method", choices=list(_METHODS), metavar="METHOD",
                   help="one of " + ", ".join(_METHODS))
    p.add_argument("data", metavar="DATA", help="training data file")
    p.add_argument("model", metavar="MODEL", help="model file to write")
    for dest, flags, typ, text, _ in _PARAM_OPTIONS:
        p.add_argument(*flags, dest=dest, type=typ, default=None, help=text)
    p.add_argument("--signs", default=None, metavar="SIGNS",
                   help="sign: sign constraints, a comma list of -1/0/1 (one per feature), "
                        "FEATURE:SIGN pairs (CSV column names or SVMlight indices), or a "
                        "file of them (a features x classes matrix for multiclass)")
    p.add_argument("--regression", action="store_true",
                   help="sign: fit SignConstrainedRegressor (real targets)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="any other estimator parameter, e.g. loss=l1 (repeatable)")
    p.add_argument("--standardize", action="store_true",
                   help="put a StandardScaler in front of the estimator (sparse data: "
                        "scaled, not centred)")
    p.add_argument("-v", "--verbose", type=int, nargs="?", const=1, default=0,
                   metavar="N", help="log every N-th solver iteration (default 1)")
    p.add_argument("--format", choices=["svmlight", "csv", "arff"], default=None,
                   help="DATA format (default: csv with --target, arff with --labels, "
                        "else the method's first format, see methods below)")
    p.add_argument("--target", default=None, metavar="NAME",
                   help="CSV: the column of the targets (all others are features)")
    p.add_argument("--labels", default=None, metavar="N",
                   help="ARFF: the last N attributes are the 0/1 labels, or a MULAN XML "
                        "file naming them")
    p.add_argument("--query", default=None, metavar="FILE", help=_QUERY_HELP)
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser(
        "predict", help="predict a data file with a saved model (like liblinear's predict)",
        description=("Predict every row of DATA with MODEL; write one line per row to OUT "
                     "(ranksvm: scores; sign, ordinal: labels; m3l, labelranker: 0/1 label "
                     "rows in the training label order) and, when DATA has targets, print "
                     "the metrics: ranksvm 'Pairwise Accuracy' and 'Mean NDCG' as "
                     "liblinear-ranksvm (pooled pairs, tied scores count as correct; LETOR "
                     "mean NDCG, 0 for a query without relevant documents), sign "
                     "'Accuracy' (regression: mean squared error), ordinal mean absolute "
                     "error and accuracy, multi-label Hamming loss and ranking loss.  MODEL "
                     "is polyrank's safe format; a pickle/joblib file needs --trust-pickle."))
    p.add_argument("data", metavar="DATA", help="data file in the model's format")
    p.add_argument("model", metavar="MODEL", help="model file written by polyrank train")
    p.add_argument("out", metavar="OUT", help="output file, one line per row of DATA")
    p.add_argument("--scores", action="store_true",
                   help="write the real-valued scores (decision_function) instead of labels")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.add_argument("--query", default=None, metavar="FILE", help=_QUERY_HELP)
    p.add_argument("--trust-pickle", action="store_true",
                   help="load a pickle/joblib MODEL (polyrank 0.1's format), which can run "
                        "code: only for a file whose source you trust")
    p.set_defaults(func=_cmd_predict)


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (and exit status 2)."""

    def error(self, message):
        self.exit(2, _clip(f"{self.prog}: error: {_one_line(message, MESSAGE_CHARS)} "
                           f"(see '{self.prog} --help')", MESSAGE_CHARS) + "\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``polyrank`` command."""
    parser = _Parser(
        prog="polyrank", allow_abbrev=False,
        description="Max-margin ranking: solvers, demos and benchmarks; training and "
                    "prediction on your own files.")
    parser.add_argument("--version", action="version", version=f"polyrank {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, show the full traceback instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("demo", help="fit the SOPOPO label ranker on yeast and print test metrics")
    p.add_argument("--C", type=float, default=0.1, help="slack penalty C (default 0.1)")
    p.add_argument("--decomposition", default="all_pairs",
                   choices=["all_pairs", "adjacent_layers", "top_vs_rest"])
    p.add_argument("--tol", type=float, default=1e-3, help="relative duality-gap tolerance")
    p.add_argument("--bias", type=float, default=1.0,
                   help="constant feature appended to x (0: no bias, the paper's model)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.set_defaults(func=_cmd_demo)

    from .experiments import BENCHES  # importing the package registers them

    p = sub.add_parser(
        "bench", help="benchmarks (ratios against baselines timed in the same run)",
        description="Benchmarks: " + "; ".join(
            ["sopopo: soft_project vs Clarabel vs np.sort"]
            + [f"{name}: {b.description}" for name, b in BENCHES.items()]))
    p.add_argument("name", choices=["sopopo", *BENCHES])
    p.add_argument("--k", type=int, nargs="+",
                   help="sopopo only: numbers of labels (default 10 100 1000 10000)")
    p.add_argument("--quick", action="store_true",
                   help="reduced sizes (sopopo: k = 10, 100, 1000 and 3 repeats)")
    p.add_argument("--readme", metavar="PATH", default=None,
                   help="also write the result as this bench's row of the generated table "
                        "in the README at PATH")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", metavar="PATH", default=None,
                   help="a data file for the benches that take one (ordinal-wine: "
                        "winequality-white.csv)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser(
        "reproduce", help="reproduce a paper's figure: table, CSV and interactive HTML",
        description=("Run a registered reproduction of a paper's figure (see --list): "
                     "print a table, write OUT/NAME.csv and OUT/NAME.html (interactive, "
                     "works offline). Times are single-threaded, speed-ups are ratios "
                     "measured in the same run."))
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="a registered experiment (see --list) or 'all'")
    p.add_argument("--list", action="store_true",
                   help="list the registered experiments and exit")
    p.add_argument("--quick", action="store_true",
                   help="reduced sizes (each experiment under a minute on two cores)")
    p.add_argument("--json", action="store_true",
                   help="print the summary as JSON on stdout (the table goes to stderr); "
                        "with 'all', a JSON object keyed by experiment name")
    p.add_argument("--out", default="polyrank-output",
                   help="directory for NAME.csv and NAME.html, and index.html linking them "
                        "all with 'all' (default polyrank-output)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data and solvers")
    p.add_argument("--png", action="store_true",
                   help="also write OUT/NAME.png (needs kaleido and Chrome/Chromium)")
    p.add_argument("--readme", metavar="README", default=None,
                   help="write each experiment's paper-vs-polyrank rows into the generated "
                        "table of this README (between its 'polyrank reproduce' markers)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser("warmup", help="compile every numba kernel once (cached on disk)")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes that compile on an empty cache (default: up to "
                        "two, one per core; 1: compile in this process)")
    p.set_defaults(func=_cmd_warmup)
    _add_train_predict(sub)
    for p in sub.choices.values():         # --debug after the command name, too
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="on an error, show the full traceback instead of one line")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``polyrank`` console script and ``python -m polyrank``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success; 2 for a user's mistake (a one-line
        message of at most :data:`MESSAGE_CHARS` characters on stderr: a bad
        option, a missing or malformed file, an unwritable path, an output
        that is one of the inputs); 1 when ``reproduce --png`` could not
        write a PNG, or for an internal error (one line, asking for a
        report); 130 after Ctrl-C.  With ``--debug`` the traceback is shown
        as well.
    """
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:            # --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    prog = f"polyrank {args.command}"
    try:
        if args.command in ("train", "predict"):
            with _warnings_as_lines(prog):
                return args.func(args)
        return args.func(args)
    except UsageError as exc:
        return _fail(args, f"{prog}: {_one_line(exc, MESSAGE_CHARS)}", 2)
    except KeyboardInterrupt:
        return _fail(args, f"{prog}: interrupted", 130)
    except MemoryError as exc:
        return _fail(args, f"{prog}: out of memory ({_one_line(exc, 120) or 'MemoryError'})", 1)
    except Exception as exc:           # a bug, not the user's mistake
        return _fail(args, f"{prog}: internal error: {type(exc).__name__}: "
                           f"{_one_line(exc, 120)} (please report it; --debug shows the "
                           "traceback)", 1)


def _fail(args, message: str, status: int) -> int:
    """Print ``message`` as one line on stderr (after the traceback of the
    exception being handled with ``--debug``); return ``status``."""
    if getattr(args, "debug", False):
        traceback.print_exc(file=sys.stderr)
    print(_clip(message, MESSAGE_CHARS), file=sys.stderr)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
