"""The ``polyrank`` command.

Sub-commands::

    polyrank demo              fit the SOPOPO label ranker on yeast, print test metrics
    polyrank bench sopopo      time soft_project against Clarabel and np.sort
    polyrank warmup            compile every numba kernel (cached on disk)
    polyrank reproduce --list  the registered reproductions of the papers' figures
    polyrank reproduce NAME    run one (or ``all``), print a table, write CSV + HTML
"""

from __future__ import annotations

import argparse
import json
import sys
import time

__all__ = ["main", "demo"]


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

    from sklearn.metrics import (coverage_error,
                                 label_ranking_average_precision_score,
                                 label_ranking_loss)
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


def _cmd_bench(args) -> int:
    from .experiments import BENCHES, bench_sopopo, format_table

    if args.name != "sopopo":
        if args.k:
            print("polyrank bench: --k applies to 'sopopo' only", file=sys.stderr)
            return 2
        res = BENCHES[args.name].run(quick=args.quick, seed=args.seed,
                                     progress=not args.json)
        text = sys.stderr if args.json else sys.stdout
        print(f"{args.name}{' (quick)' if args.quick else ''}: {res.title}", file=text)
        print(res.format_table(), file=text)
        for line in res.notes:
            print(line, file=text)
        if args.json:
            print(json.dumps(res.summary, indent=2, allow_nan=False))
        return 0
    ks = tuple(args.k) if args.k else (10, 100, 1000, 10000)
    rows = bench_sopopo(ks=ks, seed=args.seed)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("SOPOPO vs Clarabel vs np.sort on the data of the paper's Fig. 6 (n = 100, "
          "C = 1); seconds per call (median), single-threaded")
    print("  sopopo   = soft_project: the whole of Eq. 7 (U x, Fig. 3, and the k x n matrix W)")
    print("  sopopo19 = solve_reduced: Fig. 3 on the reduced problem Eq. 19 (Clarabel's input)")
    print("  clarabel = Clarabel on Eq. 19 (wall time of the call); cl.solve = its own solve time")
    print("  sort     = np.sort of the k margins")
    print(format_table(rows))
    by_k = {r["k"]: r for r in rows}
    if 100 in by_k:
        r = by_k[100]
        print(f"target k = 100: Clarabel / Fig. 3 on Eq. 19 = {r['ratio_clarabel_reduced']:.0f}x "
              f"(target >= 100x: {'met' if r['ratio_clarabel_reduced'] >= 100 else 'NOT met'}); "
              f"Clarabel / soft_project = {r['ratio_clarabel']:.0f}x")
    if 10000 in by_k:
        r = by_k[10000]
        print(f"target k = 10000: Fig. 3 / np.sort = {r['ratio_sort_reduced']:.1f}x "
              f"(target <= 5x: {'met' if r['ratio_sort_reduced'] <= 5 else 'NOT met'}); "
              f"soft_project / np.sort = {r['ratio_sort']:.0f}x (it also writes W, "
              f"k x n = {10000 * 100:,} numbers)")
    return 0


def _cmd_reproduce(args) -> int:
    from pathlib import Path

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
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
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
        written = [res.write_csv(out_dir / f"{name}.csv"),
                   res.write_html(out_dir / f"{name}.html")]
        print(f"\n== {name}{' (quick)' if args.quick else ''}: {res.title}", file=text)
        print(res.format_table(), file=text)
        for line in res.notes:
            print(line, file=text)
        if args.png:
            try:
                written.append(res.write_png(out_dir / f"{name}.png"))
            except Exception as exc:          # kaleido or Chrome missing: say so, go on
                status = 1
                print(f"could not write {name}.png: {type(exc).__name__}: {exc}", file=text)
        print("wrote " + ", ".join(map(str, written)), file=text, flush=True)
        summaries[name] = res.summary
        index.append((name, res.title, res.notes))
    if len(names) > 1:
        page = _write_index(out_dir / "index.html", index, quick=args.quick)
        print(f"\n{len(names)} experiments in {time.perf_counter() - t_all:.0f} s; "
              f"open {page} in a browser for all figures", file=text, flush=True)
    if args.json:
        doc = summaries if args.name == "all" else summaries[names[0]]
        print(json.dumps(doc, indent=2, allow_nan=False))
    return status


def _write_index(path, entries, quick: bool):
    """Write ``index.html`` linking every experiment's HTML figure and CSV
    table, with its title and notes (what ``reproduce all`` opens with)."""
    from html import escape

    items = "".join(
        f"<li><a href='{escape(name)}.html'><b>{escape(name)}</b></a> "
        f"(<a href='{escape(name)}.csv'>CSV</a>): {escape(title)}"
        + ("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>" if notes else "")
        + "</li>" for name, title, notes in entries)
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        "<title>polyrank reproduce</title></head>"
        "<body style='font-family:sans-serif;max-width:60em;margin:2em auto'>"
        f"<h1>polyrank reproduce all{' --quick' if quick else ''}</h1>"
        f"<ul>{items}</ul></body></html>", encoding="utf-8")
    return path


def _cmd_warmup(args) -> int:
    from . import warmup

    warmup(verbose=True)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``polyrank`` command."""
    parser = argparse.ArgumentParser(
        prog="polyrank", description="Max-margin ranking: solvers, demos and benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True)

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

    from .experiments import BENCHES   # importing the package registers them

    p = sub.add_parser(
        "bench", help="benchmarks (ratios against baselines timed in the same run)",
        description="Benchmarks: " + "; ".join(
            ["sopopo: soft_project vs Clarabel vs np.sort"]
            + [f"{name}: {b.description}" for name, b in BENCHES.items()]))
    p.add_argument("name", choices=["sopopo", *BENCHES])
    p.add_argument("--k", type=int, nargs="+",
                   help="sopopo only: numbers of labels (default 10 100 1000 10000)")
    p.add_argument("--quick", action="store_true", help="reduced sizes (not for 'sopopo')")
    p.add_argument("--seed", type=int, default=0)
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
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=_cmd_reproduce)

    p = sub.add_parser("warmup", help="compile every numba kernel once (cached on disk)")
    p.set_defaults(func=_cmd_warmup)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``polyrank`` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
