"""``polyrank bench paths``: regularisation paths warm-started (issue 45, item 2).

For each of the seven estimators on its bundled data set, the path function's
default grid (20 values of C, lam or c over two decades around the default)
is timed three ways, interleaved in the same minutes (medians of CPU seconds
over the repeats, after one untimed fit that compiles and fills the caches):

* the path, warm-started (each fit from the previous solution);
* the same grid solved cold (every fit from zero);
* one cold fit at the grid's middle value.

The target (issue 45): the whole warm path costs at most 3x the cold fit at
the grid's middle.  PRank has no penalty: its "path" is the grid of passes
1..20 (``max_iter``), warm = one pass at a time continued, cold = each
``max_iter`` from scratch, middle = 10 passes.  The objectives of the warm and
the cold grid are printed (their largest relative difference, and both at the
middle): the warm path must reach the same optimum.
"""

from __future__ import annotations

import statistics
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.preprocessing import StandardScaler

from polyrank import PRank
from polyrank.datasets import load_mq2008, load_phishing, load_winequality_red, load_yeast
from polyrank.m3l import m3l_path
from polyrank.ordinal import ordinal_path
from polyrank.path import N_GRID
from polyrank.ranksvm import ranksvm_path
from polyrank.sign import sign_path
from polyrank.sopopo import label_ranking_path

from .._harness import load_average
from ..registry import ExperimentResult, RepeatedBench, column, fmt_spec, record, register_bench

__all__ = ["bench_paths", "PathRow", "PathSummary", "TARGET"]

#: the issue's target: the warm path costs at most this many cold middle fits
TARGET = 3.0


@dataclass(frozen=True)
class PathRow:
    """One estimator of :func:`bench_paths`.

    Attributes
    ----------
    estimator : str
        Estimator and data set.
    grid : str
        The grid (parameter, first and last value, points).
    warm_s, cold_s, middle_s : float
        Median CPU seconds of the warm path, of the same grid cold, and of
        one cold fit at the grid's middle.
    ratio : float
        warm_s / middle_s (the target: at most :data:`TARGET`).
    speedup : float
        cold_s / warm_s.
    iters_warm, iters_cold : int
        Solver iterations summed over the grid (the solver's unit).
    max_rel_obj_diff : float
        The largest |P_warm - P_cold| / |P_cold| over the grid (NaN for PRank,
        which has no objective).
    obj_mid_warm, obj_mid_cold : float
        The objective at the grid's middle, warm and cold.
    """

    estimator: str = column("estimator, data")
    grid: str = column("grid")
    warm_s: float = column("warm path s", fmt_spec(".2f"))
    cold_s: float = column("cold grid s", fmt_spec(".2f"))
    middle_s: float = column("middle fit s", fmt_spec(".3f"))
    ratio: float = column("warm / middle (target <= 3)", fmt_spec(".1f"))
    speedup: float = column("cold / warm", fmt_spec(".1f"))
    iters_warm: int = column("iters warm", fmt_spec(","))
    iters_cold: int = column("iters cold", fmt_spec(","))
    max_rel_obj_diff: float = column("max rel. obj. diff", fmt_spec(".1e"))
    obj_mid_warm: float = column("P mid warm", fmt_spec(".6g"))
    obj_mid_cold: float = column("P mid cold", fmt_spec(".6g"))


@record
class PathSummary(RepeatedBench):
    """The key figures of :func:`bench_paths`.

    Attributes
    ----------
    n_met : int
        Estimators whose warm path costs at most :data:`TARGET` middle fits.
    n_estimators : int
    worst_ratio : float
        The largest warm / middle ratio.
    load_average : float or None
        The 1-minute load average at the end of the run.
    """

    n_met: int
    n_estimators: int
    worst_ratio: float
    load_average: float | None


def _yeast():
    d = load_yeast()
    return StandardScaler().fit_transform(d.X_train), d.Y_train


def _wine():
    d = load_winequality_red()
    return StandardScaler().fit_transform(d.X), d.quality


def _cases():
    """(name, path function, X, y, keyword arguments) of the seven estimators."""
    mq = load_mq2008()
    Xp, yp = load_phishing()
    Xp = StandardScaler(with_mean=False).fit_transform(Xp)
    Xy, Yy = _yeast()
    Xw, yw = _wine()
    yield ("RankSVM, MQ2008", ranksvm_path, mq.X_train, mq.y_train, {"qid": mq.qid_train})
    yield ("SignConstrainedClassifier, phishing", sign_path, Xp, yp, {"random_state": 0})
    yield ("SignConstrainedRegressor(signs=+1), red wine", sign_path, Xw,
           yw - yw.mean(), {"regression": True, "signs": np.ones(Xw.shape[1]),
                            "bias": 0.0, "random_state": 0})
    yield ("LabelRanker, yeast", label_ranking_path, Xy, Yy, {"random_state": 0})
    yield ("OrdinalMarginRanker, red wine", ordinal_path, Xw, yw, {})
    yield ("M3LClassifier, yeast", m3l_path, Xy, Yy, {"random_state": 0})
    yield ("PRank, red wine", None, Xw, yw, {"random_state": 0})


def _cpu(fn):
    """(CPU seconds, value) of one call of ``fn``."""
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _prank_path(X, y, warm: bool, passes):
    """PRank's grid of ``passes`` (warm: 1, 2, ... continued): (iterations, models)."""
    grid = passes
    models, iters = [], 0
    est = PRank(warm_start=True, max_iter=1, random_state=0)
    for k in grid:
        if not warm:
            est = PRank(max_iter=k, random_state=0)
        est.fit(X, y)
        iters += est.n_iter_
        models.append(est.result_.x.copy())
    return iters, models


def _one(name, f, X, y, kw, repeats, n_grid):
    """The interleaved timings of one estimator: a :class:`PathRow`."""
    if f is None:
        return _prank_row(name, X, y, repeats, n_grid)
    grid_kw = {"sign_path": "lams", "ordinal_path": "cs"}.get(f.__name__, "Cs")
    kw = {**kw, "n_" + grid_kw: n_grid}
    path = f(X, y, **kw)                        # compile, caches; the grid
    mid = float(path.Cs[len(path.Cs) // 2])
    times: dict[str, list] = {"warm": [], "cold": [], "mid": []}
    for _ in range(repeats):
        t, warm = _cpu(lambda: f(X, y, **kw))
        times["warm"].append(t)
        t, cold = _cpu(lambda: f(X, y, warm=False, **kw))
        times["cold"].append(t)
        t, one = _cpu(lambda: f(X, y, warm=False, **{grid_kw: [mid]}, **kw))
        times["mid"].append(t)
    med = {k: statistics.median(v) for k, v in times.items()}
    rel = np.abs(warm.objectives - cold.objectives) / np.abs(cold.objectives)
    i = len(path.Cs) // 2
    return PathRow(
        estimator=name, grid=f"{path.param} {path.Cs[0]:.3g}..{path.Cs[-1]:.3g} "
        f"({path.Cs.size})", warm_s=med["warm"], cold_s=med["cold"], middle_s=med["mid"],
        ratio=med["warm"] / med["mid"], speedup=med["cold"] / med["warm"],
        iters_warm=int(warm.n_iter.sum()), iters_cold=int(cold.n_iter.sum()),
        max_rel_obj_diff=float(rel.max()), obj_mid_warm=float(warm.objectives[i]),
        obj_mid_cold=float(cold.objectives[i]))


def _prank_row(name, X, y, repeats, n_grid):
    """PRank's row: the grid of passes (see the module docstring)."""
    passes = list(range(1, n_grid + 1))
    _prank_path(X, y, True, passes)
    times: dict[str, list] = {"warm": [], "cold": [], "mid": []}
    for _ in range(repeats):
        t, (iw, mw) = _cpu(lambda: _prank_path(X, y, True, passes))
        times["warm"].append(t)
        t, (ic, mc) = _cpu(lambda: _prank_path(X, y, False, passes))
        times["cold"].append(t)
        times["mid"].append(_cpu(lambda: _prank_path(X, y, False, [passes[n_grid // 2]]))[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    same = all(np.allclose(a, b) for a, b in zip(mw, mc))
    return PathRow(estimator=name + (" (same models)" if same else " (models DIFFER)"),
                   grid=f"max_iter 1..{n_grid} ({n_grid})", warm_s=med["warm"],
                   cold_s=med["cold"], middle_s=med["mid"], ratio=med["warm"] / med["mid"],
                   speedup=med["cold"] / med["warm"], iters_warm=iw, iters_cold=ic,
                   max_rel_obj_diff=float("nan"), obj_mid_warm=float("nan"),
                   obj_mid_cold=float("nan"))


@register_bench("paths")
def bench_paths(*, quick: bool = False, seed: int = 0, progress: bool = False,
                repeats: int = 3, n_grid: int = N_GRID) -> ExperimentResult:
    """Time the warm-started paths (see the module docstring).

    Parameters
    ----------
    quick : bool
        One repeat (the whole default grids still).
    seed, progress
        Unused (fixed seeds).
    repeats : int
        Interleaved repeats of each timing (medians are reported).
    n_grid : int
        Points of every grid (the path functions' default: 20).

    Returns
    -------
    ExperimentResult
        One :class:`PathRow` per estimator; ``summary`` (:class:`PathSummary`).
    """
    repeats = 1 if quick else int(repeats)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # ConvergenceWarning of the cold grids' ends
        for name, f, X, y, kw in _cases():
            rows.append(_one(name, f, X, y, kw, repeats, int(n_grid)))
    met = [r for r in rows if r.ratio <= TARGET]
    load = load_average()
    notes = [f"{r.estimator}: warm path {r.ratio:.1f}x one cold fit at the grid's middle "
             f"(target <= {TARGET:g}x: {'met' if r.ratio <= TARGET else 'NOT met'}); "
             f"{r.speedup:.1f}x faster than the same grid cold" for r in rows]
    notes.append(f"load average {load if load is not None else float('nan'):.2f} (CPU "
                 f"seconds, medians of {repeats} interleaved repeats)")
    summary = PathSummary(bench="paths", quick=quick, repeats=repeats, n_met=len(met),
                          n_estimators=len(rows), worst_ratio=max(r.ratio for r in rows),
                          load_average=load)
    return ExperimentResult("paths", "Regularisation paths warm-started vs the same grid "
                            "cold vs one cold fit at the grid's middle", rows, summary,
                            notes=notes)
