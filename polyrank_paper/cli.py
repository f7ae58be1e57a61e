"""The paper wing's sub-commands of the ``polyrank`` command: ``polyrank
demo``, ``polyrank bench NAME`` and ``polyrank reproduce NAME``.

The core's command (:mod:`polyrank.cli`) never imports this package: it
loads :func:`register` through the entry-point group ``polyrank.commands``
(``pyproject.toml``), which adds these sub-commands to its parser.  A
user's mistake raises :class:`polyrank.cli.UsageError` (one line on stderr,
exit status 2), as in the core's own commands.
"""

from __future__ import annotations

import inspect
import json
import sys
import tempfile
import time
from pathlib import Path

from polyrank.cli import UsageError
from polyrank.cli import user_errors as _user_errors
from polyrank.utils import one_line as _one_line
from polyrank.utils import write_text

from .readme import (
    _bench_name,
    check_readme_quick,
    update_readme_bench,
    update_readme_paper,
)
from .registry import BENCH_CATALOG, as_record

__all__ = ["register", "demo"]


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

    from polyrank import LabelRanker, warmup
    from polyrank.datasets import load_yeast

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


def _cmd_bench(args) -> int:
    if args.name == "compare":
        return _bench_compare(args)
    if args.rev is not None or args.bench or args.factor is not None:
        raise UsageError("REV, --bench and --factor apply to 'polyrank bench compare' only")
    command = (f"polyrank bench {args.name}{' --quick' if args.quick else ''}"
               + (f" --data {Path(args.data).name}" if args.data else ""))
    if args.readme is not None:
        if not Path(args.readme).is_file():
            raise UsageError(f"--readme {args.readme!r}: no such file")
        with _user_errors("--readme", args.readme):      # before a long run
            check_readme_quick(args.readme, "bench", command, [_bench_name(command)])
    if args.name != "sopopo":
        return _bench_registered(args, command)
    return _bench_sopopo(args, command)


def _bench_compare(args) -> int:
    """``polyrank bench compare [REV]``: ``asv continuous -f FACTOR REV HEAD`` on
    the asv suite (:mod:`polyrank_paper.bench.compare`); asv's exit status."""
    from .bench.compare import run_compare

    for option in ("readme", "data", "k"):
        if getattr(args, option):
            raise UsageError(f"--{option}: does not apply to 'polyrank bench compare'")
    with _user_errors("compare"):
        return run_compare(args.rev or "main", benches=args.bench or (),
                           factor=1.1 if args.factor is None else args.factor)


def _bench_registered(args, command: str) -> int:
    """``polyrank bench NAME`` for a bench of the registry but ``sopopo``:
    run it (with ``--data`` if it takes one), print its table and notes (or
    the JSON summary), update the README row with ``--readme``."""
    from . import BENCHES

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


def _bench_sopopo(args, command: str) -> int:
    """``polyrank bench sopopo``: soft_project and Fig. 3 on Eq. 19 vs
    Clarabel vs np.sort for every k of ``--k``; prints the table and the
    ratios at k = 100 and 10000 (or the JSON rows), updates the README row
    with ``--readme``."""
    from . import bench_sopopo, format_table

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
    from . import EXPERIMENTS  # at call time: the registry as it is then

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
    return _reproduce(args, names, _out_dir(args.out))


def _reproduce(args, names: list, out_dir: Path) -> int:
    """Run the experiments ``names`` in turn (:func:`_reproduce_one`); with
    several, write the index page; with ``--json``, print the summaries.
    Returns the exit status (1 if a figure could not be written)."""
    from . import EXPERIMENTS

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
        res, written, ok = _reproduce_one(args, name, out_dir, text)
        status = status if ok else 1
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


def _reproduce_one(args, name: str, out_dir: Path, text):
    """Run experiment ``name``, write its CSV, HTML figure (and PNG with
    ``--png``) to ``out_dir`` and print its table and notes to ``text``.
    Returns (the result, the paths written, False if a figure could not be
    written)."""
    from . import run_experiment

    res = run_experiment(name, quick=args.quick, seed=args.seed,
                         progress=not args.no_progress)
    no_figure = None
    ok = True
    with _user_errors("--out"):
        written = [res.write_csv(out_dir / f"{name}.csv")]
        try:
            written.append(res.write_html(out_dir / f"{name}.html", plotlyjs="directory"))
        except ImportError as exc:        # plotly (polyrank-widgets) is missing
            no_figure = exc
    print(f"\n== {name}{' (quick)' if args.quick else ''}: {res.title}", file=text)
    print(res.format_table(), file=text)
    for line in res.notes:
        print(line, file=text)
    if no_figure is not None:
        ok = False
        print(f"could not write {name}.html: {no_figure}", file=text)
    elif args.png:
        try:
            written.append(res.write_png(out_dir / f"{name}.png"))
        except Exception as exc:          # kaleido or Chrome missing: say so, go on
            ok = False
            print(f"could not write {name}.png: {type(exc).__name__}: {exc}", file=text)
    print("wrote " + ", ".join(map(str, written)), file=text, flush=True)
    return res, written, ok


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


def register(sub) -> None:
    """Add ``demo``, ``bench`` and ``reproduce`` to the sub-commands of the
    ``polyrank`` command (the entry point of the group ``polyrank.commands``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-command parsers of :func:`polyrank.cli.build_parser`.
    """
    _add_demo(sub)
    _add_bench(sub)
    _add_reproduce(sub)


def _add_demo(sub) -> None:
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


def _add_bench(sub) -> None:
    # the catalog, not the registry: no benchmark module is imported to build the parser
    p = sub.add_parser(
        "bench", help="benchmarks (ratios against baselines timed in the same run)",
        description="Benchmarks: " + "; ".join(
            ["sopopo: soft_project vs Clarabel vs np.sort"]
            + [f"{name}: {description}" for name, description in BENCH_CATALOG.items()]
            + ["compare [REV]: the asv suite (benchmarks/), asv continuous -f 1.1 REV "
               "HEAD (default REV main), run in the source checkout"]))
    p.add_argument("name", choices=["sopopo", *BENCH_CATALOG, "compare"])
    p.add_argument("rev", nargs="?", metavar="REV", default=None,
                   help="compare only: the base revision (default main)")
    p.add_argument("--bench", metavar="REGEX", action="append", default=None,
                   help="compare only: the benchmarks to run, a regular expression of "
                        "their names (repeatable; default: all)")
    p.add_argument("--factor", type=float, default=None,
                   help="compare only: report a change above this ratio (default 1.1)")
    p.add_argument("--k", type=int, nargs="+",
                   help="sopopo only: numbers of labels (default 10 100 1000 10000)")
    p.add_argument("--quick", action="store_true",
                   help="reduced sizes (sopopo: k = 10, 100, 1000 and 3 repeats)")
    p.add_argument("--readme", metavar="PATH", default=None,
                   help="also write the result as this bench's row of the generated table "
                        "of the Markdown page at PATH (docs/benchmarks.md)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", metavar="PATH", default=None,
                   help="a data file for the benches that take one (ordinal-wine: "
                        "winequality-white.csv)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_bench)


def _add_reproduce(sub) -> None:
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
    p.add_argument("--readme", metavar="PATH", default=None,
                   help="write each experiment's paper-vs-polyrank rows into the generated "
                        "table of the Markdown page at PATH (docs/reproductions.md; between "
                        "its 'polyrank reproduce' markers)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=_cmd_reproduce)
