"""Where polyrank's cold compile time goes: seconds per numba kernel and signature.

For each solver package, a fresh Python process on an empty numba cache
(``NUMBA_CACHE_DIR`` a new temporary folder) runs ``polyrank._warmup_all._warm_package``
(the package's ``_warmup()``, what ``polyrank warmup`` runs) with a listener on
numba's ``"numba:compile"`` events (:mod:`numba.core.event`), which fire for
every compile of a dispatcher for one signature (never for a cache hit).  A
kernel compiled while its caller is typed is nested in the caller's event; the
table shows the *own* CPU seconds of each compile (its thread's CPU time,
inclusive minus the nested compiles: a shared machine's load stretches wall
time, not CPU time), sorted by them, with the kernel's options
(``parallel``, ``inline``, the number of signatures compiled, NamedTuple
arguments).

Usage::

    python tools/compile_profile.py                      # every package
    python tools/compile_profile.py ranksvm sign --top 30 --json out.json
    python tools/compile_profile.py --tasks              # time the warm-up tasks only

The first compile in a process also pays numba's one-off start-up (about
1-2 s), counted in that kernel's own seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")


def _options(dispatcher) -> dict:
    opts = dispatcher.targetoptions
    return {"parallel": bool(opts.get("parallel")), "inline": opts.get("inline", "never"),
            "fastmath": bool(opts.get("fastmath"))}


def _is_named_tuple(ty) -> bool:
    from numba.core import types

    return isinstance(ty, types.BaseNamedTuple)


def _profile_child(task: str) -> dict:
    """In this (fresh) process: run the warm-up task ``task`` and return the
    compile events as rows (one per dispatcher and signature)."""
    t0 = time.perf_counter()
    import importlib

    from numba.core import event

    import polyrank  # noqa: F401

    try:                                    # older commits: per-package _warmup() only
        from polyrank._warmup_all import _run_task as run
    except ImportError:
        def run(name):
            importlib.import_module(f"polyrank.{name}")._warmup()
    t_import = time.perf_counter() - t0
    listener = _CpuRecordingListener()
    t1, c1 = time.perf_counter(), _cpu_seconds()
    with event.install_listener("numba:compile", listener):
        run(task)
    wall, cpu = time.perf_counter() - t1, _cpu_seconds() - c1
    return {"task": task, "import_s": t_import, "wall_s": wall, "cpu_s": cpu,
            "rows": _rows(listener.buffer)}


def _CpuRecordingListener():
    """numba's ``RecordingListener`` that also notes the thread's CPU seconds
    (``time.thread_time``) at each event: ``buffer`` holds (wall, event, cpu)."""
    from numba.core import event

    class Listener(event.Listener):
        def __init__(self):
            self.buffer = []

        def on_start(self, ev):
            self.buffer.append((time.perf_counter(), ev, time.thread_time()))

        def on_end(self, ev):
            self.buffer.append((time.perf_counter(), ev, time.thread_time()))

    return Listener()


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process (a shared machine's load
    stretches wall time, not CPU time)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rows(buffer) -> list[dict]:
    """Inclusive and own seconds per compile from START/END event pairs."""
    from numba.core import event

    stack: list[list] = []
    rows = []
    for ts, ev, cpu in buffer:
        if ev.status is event.EventStatus.START:
            stack.append([ts, 0.0, cpu, 0.0])
            continue
        start, nested, cpu_start, cpu_nested = stack.pop()
        incl, incl_cpu = ts - start, cpu - cpu_start
        if stack:
            stack[-1][1] += incl
            stack[-1][3] += incl_cpu
        d = ev.data["dispatcher"]
        rows.append({"kernel": f"{d.py_func.__module__}.{d.py_func.__qualname__}",
                     "args": str(ev.data["args"]), "incl_s": incl, "own_s": incl - nested,
                     "own_cpu_s": incl_cpu - cpu_nested,
                     "named_tuple": any(_is_named_tuple(a) for a in ev.data["args"]),
                     **_options(d)})
    return rows


def _run_child(task: str, env_extra: dict | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="polyrank-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, **(env_extra or {}))
        out = subprocess.run([sys.executable, __file__, "--child", task], env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _marginal(results: list[dict]) -> dict:
    """Own seconds per task of the compiles no earlier task of its package did."""
    seen: dict = {}
    out = {}
    for r in results:
        done = seen.setdefault(r["task"].partition(".")[0], set())
        fresh = [x for x in r["rows"] if (x["kernel"], x["args"]) not in done]
        done.update((x["kernel"], x["args"]) for x in r["rows"])
        out[r["task"]] = round(sum(x["own_cpu_s"] for x in fresh), 1)
    return out


def _summary(results: list[dict], top: int) -> str:
    lines = [f"{'task':<22}{'wall s':>8}{'cpu s':>8}{'compiles':>9}{'own-cpu s':>10}"]
    for r in results:
        lines.append(f"{r['task']:<22}{r['wall_s']:8.1f}{r.get('cpu_s', 0.0):8.1f}"
                     f"{len(r['rows']):9d}{sum(x['own_cpu_s'] for x in r['rows']):10.1f}")
    lines.append(f"{'total':<22}{sum(r['wall_s'] for r in results):8.1f}"
                 f"{sum(r.get('cpu_s', 0.0) for r in results):8.1f}")
    lines += ["", "compile CPU seconds after the earlier tasks of the same package "
              "(polyrank._warmup_all._COMPILE_SECONDS):",
              repr(_marginal(results))]
    per_kernel: dict = {}
    for r in results:
        for x in r["rows"]:
            k = per_kernel.setdefault(x["kernel"], {**x, "own_cpu_s": 0.0, "n_sig": 0,
                                                    "tasks": set()})
            k["own_cpu_s"] += x["own_cpu_s"]
            k["n_sig"] += 1
            k["tasks"].add(r["task"])
    lines += ["", f"{'cpu s':>7} {'sigs':>4} {'par':>3} {'NT':>2}  kernel (tasks)"]
    for k in sorted(per_kernel.values(), key=lambda k: -k["own_cpu_s"])[:top]:
        lines.append(f"{k['own_cpu_s']:7.2f} {k['n_sig']:4d} {'P' if k['parallel'] else '':>3} "
                     f"{'NT' if k['named_tuple'] else '':>2}  "
                     f"{k['kernel'].removeprefix('polyrank.')} ({','.join(sorted(k['tasks']))})")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("tasks", nargs="*", help="packages or warm-up tasks (default: all packages)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--all-tasks", action="store_true",
                   help="profile every warm-up task of polyrank._warmup_all, the rare "
                        "variants' too "
                        "(finer than packages)")
    p.add_argument("--top", type=int, default=40, help="kernels shown (default 40)")
    p.add_argument("--json", help="write the rows to this JSON file")
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(_profile_child(args.child)))
        return 0
    tasks = list(args.tasks)
    if args.all_tasks:
        from polyrank import _jit, _warmup_all
        tasks = [t for p in _jit.SOLVER_PACKAGES
                 for t in _warmup_all._package_tasks(p, rare=True)]
    tasks = tasks or list(PACKAGES)
    results = []
    for task in tasks:
        r = _run_child(task)
        print(f"{task}: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, "
              f"{len(r['rows'])} compiles", file=sys.stderr)
        results.append(r)
    print(_summary(results, args.top))
    if args.json:
        from polyrank._files import write_text

        write_text(args.json, json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
