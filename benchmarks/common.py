"""Shared pieces of the asv suite: data, the peers' pair differences, skips.

Every benchmark process runs BLAS/OpenMP on one thread (threadpoolctl), as the
``polyrank bench`` commands do, so that a timing does not depend on what else
the machine runs on its other core.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from threadpoolctl import threadpool_limits

# imported with the suite: once for all benchmarks under `--launch-method forkserver`
import polyrank  # noqa: F401

try:  # asv_runner is installed in every environment asv runs benchmarks in
    from asv_runner.benchmarks.mark import SkipNotImplemented
except ImportError:  # pragma: no cover - imported outside asv (tests, a shell)
    class SkipNotImplemented(NotImplementedError):  # type: ignore[no-redef]
        """asv's "not applicable" for one benchmark (stands in outside asv)."""

threadpool_limits(limits=1)
warnings.simplefilter("ignore")

#: ``POLYRANK_ASV_SMOKE=1`` (the CI smoke run, ``.ci/test``): the compile benchmarks
#: load the kernels from the current numba cache instead of compiling them into an
#: empty one (each benchmark still runs its code once; nothing is timed seriously)
SMOKE = os.environ.get("POLYRANK_ASV_SMOKE", "") not in ("", "0")

#: the solver packages whose ``_warmup()`` compiles their kernels, at every commit
PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")


@dataclass
class Split:
    """A train/test split and the extra ``fit`` arguments (e.g. ``qid``)."""

    X: object
    y: np.ndarray
    X_test: object
    y_test: np.ndarray
    fit_params: dict = field(default_factory=dict)
    qid_test: np.ndarray | None = None


@cache
def yeast() -> Split:
    """The MULAN yeast split: 1,500 x 103 train, 917 test, 14 labels."""
    from polyrank.datasets import load_yeast

    d = load_yeast()
    return Split(d.X_train, d.Y_train, d.X_test, d.Y_test)


@cache
def wine() -> Split:
    """Red wine (1,599 x 11, grades 3..8), a stratified third held out."""
    from sklearn.model_selection import train_test_split

    from polyrank.datasets import load_winequality_red

    d = load_winequality_red()
    X, Xt, y, yt = train_test_split(d.X, d.quality, test_size=1 / 3, random_state=0,
                                    stratify=d.quality)
    return Split(X, y, Xt, yt)


@cache
def phishing() -> Split:
    """phishing (11,055 x 68, sparse 0/1), 30 % held out, stratified."""
    from sklearn.model_selection import train_test_split

    from polyrank.datasets import load_phishing

    X, y = load_phishing()
    X, Xt, y, yt = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    return Split(X, y, Xt, yt)


@cache
def mq2008() -> Split:
    """LETOR 4.0 MQ2008 fold 1: 9,630 x 46 train (471 queries), 2,874 test."""
    from polyrank.datasets import load_mq2008

    d = load_mq2008()
    return Split(d.X_train, d.y_train, d.X_test, d.y_test, {"qid": d.qid_train},
                 d.qid_test)


@cache
def mq2008_pairs() -> tuple[np.ndarray, np.ndarray]:
    """The pair differences of MQ2008's training queries, x_i - x_j for y_i > y_j
    within a query, every other one negated with label -1 (so that LinearSVC sees
    two classes): LinearSVC without intercept on them is the RankSVM problem."""
    d = mq2008()
    rows = []
    for q in np.unique(d.fit_params["qid"]):
        idx = np.flatnonzero(d.fit_params["qid"] == q)
        y = d.y[idx]
        i, j = np.nonzero(y[:, None] > y[None, :])
        rows.append(d.X[idx[i]] - d.X[idx[j]])
    P = np.vstack(rows)
    sign = np.where(np.arange(len(P)) % 2 == 0, 1.0, -1.0)
    return P * sign[:, None], sign


def warm(package: str) -> None:
    """Compile ``polyrank.<package>``'s kernels into the numba cache (or load them),
    its rare variants' too (``_RARE_PARTS``, where the commit has them)."""
    import importlib

    mod = importlib.import_module(f"polyrank.{package}")
    mod._warmup()
    for part in getattr(mod, "_RARE_PARTS", {}).values():
        part()


def final_estimator(model):
    """The last step of a pipeline, or the model itself."""
    return model[-1] if hasattr(model, "steps") else model


def relative_gap(est) -> float:
    """The fit's final duality gap over its primal objective (NaN when the solver
    reports none)."""
    res = getattr(est, "result_", None)
    try:
        return float(res.gap) / abs(float(res.primal_objective))
    except (AttributeError, TypeError, ValueError, ZeroDivisionError):
        return math.nan


def finite_or_skip(value) -> float:
    """``value`` as a float, or asv's skip when it is missing or not finite."""
    if value is None or not math.isfinite(float(value)):
        raise SkipNotImplemented("not reported by this solver at this commit")
    return float(value)


_COMPILE = """
import time
t = time.perf_counter()
import polyrank.{package} as p
t_import = time.perf_counter() - t
p._warmup()
print(time.perf_counter() - t - t_import)
"""


def compile_seconds(package: str) -> float:
    """Seconds of ``polyrank.<package>._warmup()`` (its import excluded) in a fresh
    process on an empty numba cache (:data:`SMOKE`: on the current cache)."""
    with tempfile.TemporaryDirectory(prefix="polyrank-asv-numba-") as empty:
        env = dict(os.environ, PYTHONWARNINGS="ignore")
        if not SMOKE:
            env["NUMBA_CACHE_DIR"] = empty
        out = subprocess.run([sys.executable, "-c", _COMPILE.format(package=package)],
                             env=env, capture_output=True, text=True, check=True,
                             timeout=1800)
    return float(out.stdout.strip().splitlines()[-1])


def best_of(fn, repeats: int = 5) -> float:
    """The shortest of ``repeats`` wall times of ``fn()`` (after one warm call),
    looping each timing until it lasts at least 20 ms."""
    fn()
    number = 1
    while True:
        t = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - t >= 0.02:
            break
        number *= 2
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)
