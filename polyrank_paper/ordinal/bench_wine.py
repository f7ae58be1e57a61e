"""``polyrank bench ordinal-wine``: OrdinalMarginRanker's default (SVOR)
against mord on red wine and white wine (or overlapping grades), and the
growth of its time with n and d (``row-column-generation-ordinal.txt``,
issues 29 and 30).
"""

from __future__ import annotations

import os
import statistics
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

try:                      # the peer of ``ordinal-wine`` (the ``bench`` extra)
    import mord
except ImportError:
    mord = None

from polyrank.datasets import load_winequality_red
from polyrank.exceptions import TrivialModelWarning
from polyrank.io import integral_labels, read_csv
from polyrank.ordinal import (
    OrdinalMarginRanker,
    make_overlapping,
)
from polyrank.ordinal.reference import svor_qp

from .._harness import fmt
from ..registry import (
    ExperimentResult,
    RepeatedBench,
    column,
    fmt_spec,
    format_rows,
    record,
    register_bench,
)

__all__ = ["bench_ordinal_wine", "WineRow", "WineSet", "GrowthRow", "WineSummary"]


@dataclass(frozen=True)
class WineRow:
    """One estimator on one data set of :func:`bench_ordinal_wine`.

    Attributes
    ----------
    data : str
    estimator : str
    seconds : float
        Median seconds of the 3-fold cross-validation over the interleaved
        repeats, each on its own split (the paper's formulation: one run).
    test_mae : float
        Mean absolute error of the folds' test parts (labels' units),
        averaged over the repeats' splits (a single split's MAE varies by
        about 0.01 from split to split on red wine).
    grades_predicted : int
        Distinct grades predicted on the test parts of the first split (1:
        a trivial model).
    """

    data: str = column("data")
    estimator: str = column("estimator")
    seconds: float = column("3-fold CV s", fmt)
    test_mae: float = column("test MAE", fmt_spec(".4f"))
    grades_predicted: int = column("grades")


@dataclass(frozen=True)
class WineSet:
    """The summary's view of one data set of :func:`bench_ordinal_wine`.

    Attributes
    ----------
    data : str
    n, d, grades : int
    mae_ours, mae_mord, mae_paper, mae_mode : float or None
        Test MAE of the default OrdinalMarginRanker, mord's LogisticAT, the
        paper's (S) (``formulation="paper"``) and of predicting the training
        folds' most frequent grade (None: not run).
    ratio_ours_over_mord : float or None
        Median CV time, ours over mord's.
    mae_target_met, time_target_met : bool or None
        mae_ours <= mae_mord + 0.01; ratio <= 1 (None without mord).
    """

    data: str
    n: int
    d: int
    grades: int
    mae_ours: float
    mae_mord: float | None
    mae_paper: float | None
    mae_mode: float
    ratio_ours_over_mord: float | None
    mae_target_met: bool | None
    time_target_met: bool | None


@dataclass(frozen=True)
class GrowthRow:
    """One (n, d) of the growth table of :func:`bench_ordinal_wine`: one fit
    of ours and of mord's on n generated objects with overlapping grades
    (:func:`polyrank.ordinal.make_overlapping` with d features), standardised,
    and the test MAE on :data:`GROWTH_TEST` held-out objects.

    Attributes
    ----------
    n, d : int
    x_mb : float
        The size of the training X in MB (8 n d bytes): past the CPU caches
        each pass over X runs at the memory bandwidth.
    ours_s, mord_s : float or None
        Median seconds of one fit over the interleaved repeats (None: mord
        not installed).
    ratio : float or None
        ours_s / mord_s.
    ours_mae, mord_mae : float or None
        Test MAE.
    ours_ns_per_nd, mord_ns_per_nd : float or None
        Seconds per n d, in nanoseconds (constant when the time is linear
        in n d).
    """

    n: int = column("n", fmt_spec(","))
    d: int = column("d")
    x_mb: float = column("X MB", fmt_spec(".1f"))
    ours_s: float = column("ours s", fmt_spec(".3f"))
    mord_s: float | None = column("mord s", fmt_spec(".3f"))
    ratio: float | None = column("ours/mord", fmt_spec(".2f"))
    ours_mae: float = column("ours MAE", fmt_spec(".4f"))
    mord_mae: float | None = column("mord MAE", fmt_spec(".4f"))
    ours_ns_per_nd: float = column("ours ns/(n d)", fmt_spec(".1f"))
    mord_ns_per_nd: float | None = column("mord ns/(n d)", fmt_spec(".1f"))


@record
class WineSummary(RepeatedBench):
    """The key figures of :func:`bench_ordinal_wine`.

    Attributes
    ----------
    folds : int
    sets : tuple of WineSet
    objective_fold1, objective_clarabel_fold1 : float
        Red wine, first training fold: the SVOR objective at our solution
        and at the same QP's solution by Clarabel.
    targets_met : bool or None
        Every set met both targets (None without mord).
    growth : tuple of GrowthRow
        One fit each, time against n (d fixed) and against d (n fixed).
    """

    folds: int
    sets: tuple
    objective_fold1: float
    objective_clarabel_fold1: float
    targets_met: bool | None
    growth: tuple


#: the estimators of :func:`bench_ordinal_wine`, by name
_OURS = "polyrank OrdinalMarginRanker()"
_MORD = "mord LogisticAT()"
_PAPER = "polyrank OrdinalMarginRanker(formulation='paper')  [the paper's (S)]"
#: the bench's targets: test MAE at most this above mord's, time at most mord's
MAE_MARGIN = 0.01
#: the widths of the red wine sets with random extra features (full run)
WIDE_DIMS = (100, 400)
_WIDE_PREFIX = "red wine + "


def _wine_sets(quick: bool, seed: int, data) -> list:
    """(name, X, y) of the data sets: red wine, white wine from ``data`` or
    the generated stand-in, and (full run) red wine with seeded N(0, 1)
    random features up to each d of :data:`WIDE_DIMS` (issue 30's growth in
    d)."""
    wine = load_winequality_red()
    X, y = wine.X, wine.quality
    rng = np.random.default_rng(seed)
    if quick:
        rows = rng.choice(X.shape[0], 800, replace=False)
        X, y = X[rows], y[rows]
    sets = [("red wine", X, y)]
    if data is not None:
        white = read_csv(data, target="quality")
        grades = integral_labels(white.y)            # mord needs whole numbers
        if grades.dtype.kind not in "iu":
            raise ValueError(f"data {os.fspath(data)!r}: quality must be whole numbers")
        sets.append((f"white wine ({os.path.basename(os.fspath(data))})", white.X, grades))
    else:
        Xg, yg = make_overlapping(1500 if quick else 4898, seed=seed)
        sets.append(("overlapping grades (generated, white wine's grade counts)", Xg, yg + 3))
    if not quick:
        extra = rng.normal(size=(wine.X.shape[0], max(WIDE_DIMS) - wine.X.shape[1]))
        for d in WIDE_DIMS:
            k = d - wine.X.shape[1]
            sets.append((f"{_WIDE_PREFIX}{k} random features (d = {d})",
                         np.hstack([wine.X, extra[:, :k]]), wine.quality))
    return sets


def _cv_runs(X, y, seed, peers, repeats):
    """Interleaved repeats of a 3-fold CV per peer (``peers``: name ->
    (estimator, timed)), repeat r on the split KFold(3, shuffle=True,
    random_state=seed + r), the same for every peer; returns {name: (median
    seconds, mean test MAE over the repeats' splits, grades predicted on
    the first)}.  Untimed peers run once (the first split)."""
    times: dict = {k: [] for k in peers}
    maes: dict = {k: [] for k in peers}
    grades = {}
    for rep in range(repeats):
        cv = KFold(3, shuffle=True, random_state=seed + rep)
        for name, (est, timed) in peers.items():
            if rep and not timed:
                continue
            t0 = time.perf_counter()
            with warnings.catch_warnings():     # the paper's (S) warns on a trivial fit
                warnings.simplefilter("ignore", TrivialModelWarning)
                pred = cross_val_predict(make_pipeline(StandardScaler(), est), X, y, cv=cv)
            times[name].append(time.perf_counter() - t0)
            maes[name].append(float(np.mean(np.abs(pred - y))))
            grades.setdefault(name, int(np.unique(pred).size))
    return {k: (statistics.median(times[k]), float(np.mean(maes[k])), grades[k])
            for k in peers}


def _mode_mae(X, y, cv) -> float:
    """Test MAE of predicting the training folds' most frequent grade."""
    err = []
    for tr, te in cv.split(X):
        vals, counts = np.unique(y[tr], return_counts=True)
        err.append(np.abs(y[te] - vals[np.argmax(counts)]))
    return float(np.mean(np.concatenate(err)))


def _set_notes(entry: WineSet, rows: dict, repeats: int) -> list:
    ours, mord_row, paper = rows[_OURS], rows.get(_MORD), rows.get(_PAPER)
    head = (f"{entry.data} ({entry.n:,} x {entry.d}, {entry.grades} grades), 3-fold CV: "
            f"test MAE ours {entry.mae_ours:.4f}")
    if mord_row is None:
        return [head + " (mord not installed)"]
    diff = entry.mae_ours - entry.mae_mord
    within = "within" if entry.mae_target_met else "more than"
    lines = [head + f", mord LogisticAT {entry.mae_mord:.4f} (ours - mord = {diff:+.4f}, "
             f"{within} +{MAE_MARGIN}); time ours / mord = {entry.ratio_ours_over_mord:.2f} "
             f"({ours[0]:.3f} s vs {mord_row[0]:.3f} s, medians of {repeats} interleaved "
             f"repeats; MAEs: means over the repeats' {repeats} splits)"]
    if paper is None:
        lines.append(f"  the paper's (S): not run (its primal sub-problems are a QP of size "
                     f"d + l); predicting the most frequent grade: {entry.mae_mode:.4f}")
        return lines
    lines.append(f"  the paper's (S) (formulation='paper', first split): test MAE {paper[1]:.4f}, "
                 f"{paper[2]} grade(s) predicted; predicting the most frequent grade: "
                 f"{entry.mae_mode:.4f}")
    return lines


#: the growth table's (n, d): n grows at d = GROWTH_AT[0], d at n = GROWTH_AT[1]
GROWTH_N = {False: (1000, 4000, 16000), True: (500, 1000, 2000)}
GROWTH_D = {False: (11, 100, 400), True: (11, 20, 50)}
GROWTH_AT = {False: (100, 4000), True: (20, 1000)}
#: held-out objects of each growth cell
GROWTH_TEST = 2000


def _growth_cells(quick: bool) -> list:
    d_at, n_at = GROWTH_AT[quick]
    cells = [(n, d_at) for n in GROWTH_N[quick]]
    return cells + [(n_at, d) for d in GROWTH_D[quick] if (n_at, d) not in cells]


def _one_fit(est, X, y, Xt, yt):
    """(seconds of est.fit(X, y), test MAE on (Xt, yt))."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    seconds = time.perf_counter() - t0
    return seconds, float(np.mean(np.abs(est.predict(Xt) - yt)))


def _growth(quick: bool, seed: int, repeats: int) -> list:
    """The growth table: per (n, d) of :func:`_growth_cells`, interleaved
    single fits of ours and mord's (median seconds), test MAE."""
    rows = []
    for n, d in _growth_cells(quick):
        X, y = make_overlapping(n + GROWTH_TEST, d, seed=seed)
        X = StandardScaler().fit(X[:n]).transform(X)
        parts = (X[:n], y[:n], X[n:], y[n:])
        makers = {"ours": OrdinalMarginRanker}
        if mord is not None:
            makers["mord"] = mord.LogisticAT
        times: dict = {k: [] for k in makers}
        mae = {}
        for _ in range(repeats):
            for name, make in makers.items():
                seconds, mae[name] = _one_fit(make(), *parts)
                times[name].append(seconds)
        med = {k: statistics.median(times[k]) if k in times else None for k in ("ours", "mord")}
        rows.append(GrowthRow(
            n=n, d=d, x_mb=8e-6 * n * d, ours_s=med["ours"], mord_s=med["mord"],
            ratio=None if med["mord"] is None else med["ours"] / med["mord"],
            ours_mae=mae["ours"], mord_mae=mae.get("mord"),
            ours_ns_per_nd=1e9 * med["ours"] / (n * d),
            mord_ns_per_nd=None if med["mord"] is None else 1e9 * med["mord"] / (n * d)))
    return rows


def _growth_notes(rows: list, quick: bool) -> list:
    """The growth table as printed lines, and the growth factors."""
    d_at, n_at = GROWTH_AT[quick]
    lines = [f"growth: one fit each on generated overlapping grades (make_overlapping(n, d), "
             f"standardised), test MAE on {GROWTH_TEST:,} held-out objects; n grows at "
             f"d = {d_at}, d at n = {n_at:,}; medians of interleaved repeats"]
    lines += ["  " + line for line in format_rows(rows).splitlines()]
    for key, fixed, label in (("n", ("d", d_at), "n"), ("d", ("n", n_at), "d")):
        sel = [r for r in rows if getattr(r, fixed[0]) == fixed[1]]
        sel.sort(key=lambda r: getattr(r, key))
        lo, hi = sel[0], sel[-1]
        grow = getattr(hi, key) / getattr(lo, key)
        peer = ("" if hi.mord_s is None
                else f", mord {hi.mord_s / lo.mord_s:.1f}x")
        lines.append(f"  time x {label}: {label} {getattr(lo, key):,} -> {getattr(hi, key):,} "
                     f"({grow:.0f}x): ours {hi.ours_s / lo.ours_s:.1f}x{peer}")
    return lines


def _fold1_objectives(X, y, cv):
    """Red wine, first training fold: our SVOR objective and Clarabel's on
    the same QP (:func:`polyrank.ordinal.reference.svor_qp`)."""
    train = next(cv.split(X))[0]
    Xs = StandardScaler().fit_transform(X[train])
    codes = np.searchsorted(np.unique(y[train]), y[train])
    ours = OrdinalMarginRanker().fit(Xs, y[train])
    ref = svor_qp(Xs, codes, ours.c_)
    return ours, ref


def _wine_set(name, X, y, seed, repeats):
    """One data set of :func:`bench_ordinal_wine`: (rows, WineSet, notes).
    The paper's (S) runs once, and not on the sets with random features
    (its sub-problem is a dense QP over d + l variables)."""
    peers = {_OURS: (OrdinalMarginRanker(), True)}
    if mord is not None:
        peers[_MORD] = (mord.LogisticAT(), True)
    if not name.startswith(_WIDE_PREFIX):
        peers[_PAPER] = (OrdinalMarginRanker(formulation="paper"), False)
    res = _cv_runs(X, y, seed, peers, repeats)
    rows = [WineRow(data=name, estimator=k, seconds=v[0], test_mae=v[1],
                    grades_predicted=v[2]) for k, v in res.items()]
    m = res.get(_MORD)
    ratio = None if m is None else res[_OURS][0] / m[0]
    paper = res.get(_PAPER)
    entry = WineSet(data=name, n=int(X.shape[0]), d=int(X.shape[1]),
                    grades=int(np.unique(y).size), mae_ours=res[_OURS][1],
                    mae_mord=None if m is None else m[1],
                    mae_paper=None if paper is None else paper[1],
                    mae_mode=_mode_mae(X, y, KFold(3, shuffle=True, random_state=seed)),
                    ratio_ours_over_mord=ratio,
                    mae_target_met=None if m is None else bool(
                        res[_OURS][1] <= m[1] + MAE_MARGIN),
                    time_target_met=None if m is None else bool(ratio <= 1.0))
    return rows, entry, _set_notes(entry, res, repeats)


@register_bench("ordinal-wine")
def bench_ordinal_wine(*, quick: bool = False, seed: int = 0, progress: bool = False,
                       repeats: int | None = None, data=None) -> ExperimentResult:
    """Cross-validate ``make_pipeline(StandardScaler(), OrdinalMarginRanker())``
    against the ordinal model a user would pick from PyPI, mord's
    ``LogisticAT`` (the all-threshold logistic loss), both with default
    parameters, timed in the same process (interleaved repeats, medians).

    Issue 29: the paper's minimum-margin problem (S) collapses to w = 0 on
    overlapping grades (white wine), the default SVOR does not.  Data sets:
    the bundled red wine (1,599 wines, quality 3..8); white wine (4,898 wines,
    quality 3..9) when ``data`` names its CSV file (not bundled; e.g. the UCI
    file ``winequality-white.csv``, ``;`` or ``,`` separated), else a
    generated stand-in with white wine's grade counts
    (:func:`polyrank.ordinal.make_overlapping`, signal 0.6: (S) collapses
    there too); and in a full run red wine with 89 and 389 seeded random
    N(0, 1) features, d = 100 and 400 (issue 30's growth in d).  Each set:
    3-fold CV test MAE and time of ours and mord's, the paper's (S) (one
    run; not on the sets with random features, whose primal sub-problems
    are dense QPs over d + l variables) and the most frequent grade.
    Targets: our test MAE at most mord's + 0.01, our time at most mord's.
    Red wine's first training fold: our objective against the same QP
    solved by Clarabel.  Then the growth table: one fit each on generated
    overlapping grades, time against n (1,000, 4,000, 16,000 at d = 100)
    and against d (11, 100, 400 at n = 4,000), with the seconds per n d and
    the test MAE of both on 2,000 held-out objects.

    Parameters
    ----------
    quick : bool
        800 red wines, a 1,500-object stand-in, 3 repeats and a growth
        table of n <= 2,000, d <= 50; otherwise all, 5 repeats, and the
        d = 100 and d = 400 sets.
    seed : int
        Seeds the fold split, the subsample and the generated data.
    progress : bool
        Unused (the bench is short).
    repeats : int, optional
        Interleaved repeats (each times every peer once).
    data : path-like, optional
        The white wine CSV file (column ``quality``); default: the stand-in.

    Returns
    -------
    ExperimentResult
        ``rows``: a :class:`WineRow` per data set and estimator;
        ``summary``: a :class:`WineSummary` (per set the MAEs, the time
        ratio and whether the targets were met; the growth table as
        :class:`GrowthRow`).

    Raises
    ------
    ValueError, OSError
        ``data`` is not a readable CSV file with a ``quality`` column.
    """
    repeats = repeats or (3 if quick else 5)
    cv = KFold(3, shuffle=True, random_state=seed)
    OrdinalMarginRanker().fit(*make_overlapping(60, 3, counts=(1, 1, 1)))  # numba compiled
    rows, sets, notes = [], [], []
    data_sets = _wine_sets(quick, seed, data)
    for name, X, y in data_sets:
        set_rows, entry, set_notes = _wine_set(name, X, y, seed, repeats)
        rows += set_rows
        sets.append(entry)
        notes += set_notes
    ours, ref = _fold1_objectives(*data_sets[0][1:], cv)
    notes.append(f"red wine, fold 1: SVOR objective (||w||^2 + ||b||^2 + c sum squared "
                 f"hinge, c = {ours.c_:g}) ours {ours.result_.objective:.10g} "
                 f"({ours.result_.svor_solver}, {ours.n_iter_} Newton steps, relative duality "
                 f"gap {ours.result_.gap / ours.result_.primal_objective:.1e}); the same QP "
                 f"by Clarabel {ref.objective:.10g}")
    growth = _growth(quick, seed, repeats)
    notes += _growth_notes(growth, quick)
    met = None if mord is None else all(e.mae_target_met and e.time_target_met for e in sets)
    summary = WineSummary(bench="ordinal-wine", quick=quick, repeats=repeats, folds=3,
                          sets=tuple(sets), objective_fold1=ours.result_.objective,
                          objective_clarabel_fold1=ref.objective, targets_met=met,
                          growth=tuple(growth))
    return ExperimentResult("ordinal-wine", "Ordinal ranking with defaults: polyrank's SVOR "
                            "vs mord's LogisticAT (and the paper's (S))", rows, summary,
                            notes=notes)
