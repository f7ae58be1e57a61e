"""``polyrank bench first-fit``: what a new user waits for on first use.

numba compiles each kernel the first time it runs and caches the machine
code on disk (``cache=True``); a fresh install pays the compilation once.
This bench measures it honestly, each number in a fresh Python process with
an empty numba cache directory (``NUMBA_CACHE_DIR``), so nothing the
developer's machine has cached helps:

* ``import polyrank`` and ``LabelRanker().fit`` on yeast (standardised), cold
  and then warm (second process, same cache directory);
* ``polyrank.warmup()`` of every solver, cold (not with ``quick``): as it runs
  by default (the packages compiled in up to two worker processes) and in one
  process (``n_jobs=1``);
* the peer a user would otherwise fit, one-vs-rest ``LinearSVC`` on the same
  data, in a fresh process (no compilation involved).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass

from ..registry import (
    BenchInfo,
    ExperimentResult,
    column,
    fmt_spec,
    record,
    register_bench,
    speed_phrase,
)

__all__ = ["bench_first_fit", "FirstFitRow", "FirstFitSummary"]


@dataclass(frozen=True)
class FirstFitRow:
    """One measurement of :func:`bench_first_fit`.

    Attributes
    ----------
    what : str
    cache : str
        The numba cache: ``"cold"``, ``"warm"`` or ``"-"`` (none used).
    seconds : float
        Wall seconds of the whole process body (imports, data, fit).
    fit_s : float or None
        Of which the fit, seconds (None: not a fit).
    """

    what: str = column("what")
    cache: str = column("numba cache")
    seconds: float = column("seconds (process)", fmt_spec(".2f"))
    fit_s: float | None = column("of which fit", fmt_spec(".2f"))


@record
class FirstFitSummary(BenchInfo):
    """The key figures of :func:`bench_first_fit` (seconds).

    Attributes
    ----------
    cold_fit_s, warm_fit_s, peer_s : float
        The first LabelRanker process with an empty and a filled cache, and
        the LinearSVC one.
    compile_s : float
        cold_fit_s - warm_fit_s.
    warmup_cold_s, warmup_cold_one_process_s : float or None
        ``polyrank.warmup()`` on an empty cache, in worker processes and in
        one process (None: quick).
    warmup_per_package_s : dict of str to float, or None
        Seconds per solver package.
    """

    cold_fit_s: float
    warm_fit_s: float
    peer_s: float
    compile_s: float
    warmup_cold_s: float | None
    warmup_cold_one_process_s: float | None
    warmup_per_package_s: dict | None

_FIT = """
import json, time
t0 = time.perf_counter()
import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from polyrank.datasets import load_yeast
data = load_yeast()
t1 = time.perf_counter()
{fit}
t2 = time.perf_counter()
print(json.dumps({{"import_s": t1 - t0, "fit_s": t2 - t1, "total_s": t2 - t0}}))
"""

_OURS = ("from polyrank import LabelRanker\n"
         "make_pipeline(StandardScaler(), LabelRanker()).fit(data.X_train, data.Y_train)")
_PEER = ("from sklearn.multiclass import OneVsRestClassifier\n"
         "from sklearn.svm import LinearSVC\n"
         "make_pipeline(StandardScaler(), OneVsRestClassifier(LinearSVC())).fit("
         "data.X_train, data.Y_train)")
_WARMUP = """
import json, time
t0 = time.perf_counter()
import polyrank
t = polyrank.warmup(n_jobs={n_jobs})
workers = t.pop("compiled_in_workers")
print(json.dumps({{"total_s": time.perf_counter() - t0, "per_package": workers or t}}))
"""


def _run(code: str, cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONWARNINGS="ignore")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                         capture_output=True, text=True, timeout=1800, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@register_bench("first-fit")
def bench_first_fit(*, quick: bool = False, seed: int = 0,
                    progress: bool = False) -> ExperimentResult:
    """Time first use (see the module docstring).

    Parameters
    ----------
    quick : bool
        Skip the cold ``polyrank.warmup()`` (the longest part).
    seed, progress
        Unused (the fits are deterministic; each step prints nothing).

    Returns
    -------
    ExperimentResult
        One :class:`FirstFitRow` per measurement: ``what``, ``cache``
        (cold / warm / none),
        ``seconds`` (wall time of the whole process body: imports, data,
        fit); ``summary`` (:class:`FirstFitSummary`) holds the same
        numbers and the per-package warmup
        seconds.
    """
    rows = []
    with tempfile.TemporaryDirectory(prefix="polyrank-numba-cache-") as cache:
        cold = _run(_FIT.format(fit=_OURS), cache)
        warm = _run(_FIT.format(fit=_OURS), cache)
        peer = _run(_FIT.format(fit=_PEER), cache)
        rows += [FirstFitRow(what="import polyrank + make_pipeline(StandardScaler(), "
                                  "LabelRanker()).fit on yeast", cache="cold",
                             seconds=cold["total_s"], fit_s=cold["fit_s"]),
                 FirstFitRow(what="the same, next process", cache="warm",
                             seconds=warm["total_s"], fit_s=warm["fit_s"]),
                 FirstFitRow(what="one-vs-rest LinearSVC in the same pipeline", cache="-",
                             seconds=peer["total_s"], fit_s=peer["fit_s"])]
    wu = wu1 = None
    if not quick:
        with tempfile.TemporaryDirectory(prefix="polyrank-numba-cache-") as cache:
            wu = _run(_WARMUP.format(n_jobs="None"), cache)
        with tempfile.TemporaryDirectory(prefix="polyrank-numba-cache-") as cache:
            wu1 = _run(_WARMUP.format(n_jobs=1), cache)
        rows.append(FirstFitRow(what="polyrank.warmup() (the defaults' kernels; compiled in "
                                     "up to two worker processes)", cache="cold",
                                seconds=wu["total_s"], fit_s=None))
        rows.append(FirstFitRow(what="polyrank.warmup(n_jobs=1) (compiled in this process)",
                                cache="cold", seconds=wu1["total_s"], fit_s=None))
    compile_s = cold["total_s"] - warm["total_s"]
    notes = [f"first LabelRanker fit in a fresh install: {cold['total_s']:.1f} s, of which "
             f"about {compile_s:.1f} s compile numba kernels (cached on disk afterwards: "
             f"{warm['total_s']:.1f} s in the next process)",
             "with a warm cache, " + speed_phrase(peer["total_s"] / warm["total_s"],
                                                  "polyrank's first fit",
                                                  "one-vs-rest LinearSVC's")]
    if wu is not None:
        notes.append(f"polyrank.warmup() on an empty cache (what `polyrank warmup` does "
                     f"once after installing): {wu['total_s']:.0f} s, compiling in worker "
                     "processes (" + ", ".join(
                         f"{k} {v:.0f} s" for k, v in wu["per_package"].items()) + "); "
                     f"in one process (n_jobs=1): {wu1['total_s']:.0f} s, "
                     f"{wu1['total_s'] / wu['total_s']:.2f}x as long")
    summary = FirstFitSummary(
        bench="first-fit", quick=quick, cold_fit_s=cold["total_s"],
        warm_fit_s=warm["total_s"], peer_s=peer["total_s"], compile_s=compile_s,
        warmup_cold_s=None if wu is None else wu["total_s"],
        warmup_cold_one_process_s=None if wu1 is None else wu1["total_s"],
        warmup_per_package_s=None if wu is None else wu["per_package"])
    return ExperimentResult("first-fit", "First use: a fresh process, numba cache empty "
                            "(cold) or filled (warm)", rows, summary, notes=notes)
