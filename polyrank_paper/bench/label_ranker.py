"""``polyrank bench sopopo-vs-liblinear`` and ``polyrank bench
label-ranker-defaults``: the SOPOPO batch solver (``sopopo-label-ranking.txt``,
Sec. 4, Fig. 5, with shrinking) against LIBLINEAR, timed in the same run.

* ``sopopo-vs-liblinear``: one-hot targets with ``decomposition="top_vs_rest"``
  and no bias are the Crammer-Singer multiclass SVM (Sec. 2, Related Work),
  which scikit-learn's ``LinearSVC(multi_class="crammer_singer",
  fit_intercept=False)`` solves with LIBLINEAR's Solver_MCSVM_CS.  Both
  objectives are evaluated by one function, :func:`crammer_singer_primal`;
  ours is timed at the loosest tolerance whose primal objective is no worse
  than LinearSVC's (default tol).  Also: the passes of ``LabelRanker`` to a
  relative duality gap of 1e-3 at C = 1 on yeast.
* ``label-ranker-defaults``: ``make_pipeline(StandardScaler(),
  LabelRanker())`` against one-vs-rest ``LinearSVC()`` (both with their
  defaults) on yeast and two ``make_multilabel_classification`` sets: test
  label ranking loss and fit time.

Following ``DESIGN.md``, speed is reported as ratios against a peer timed in
the same run (alternating repeats, medians), never asserted in tests.
"""

from __future__ import annotations

import statistics
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.datasets import load_digits, make_multilabel_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import label_ranking_loss
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from polyrank import LabelRanker
from polyrank.datasets import load_yeast
from polyrank.sopopo import sopopo_batch

from ..registry import (
    ExperimentResult,
    RepeatedBench,
    column,
    fmt_spec,
    record,
    register_bench,
    speed_phrase,
)

__all__ = ["crammer_singer_primal", "bench_sopopo_vs_liblinear",
           "bench_label_ranker_defaults", "multilabel_sets", "CrammerSingerRow", "YeastPasses",
           "SopopoVsLiblinearSummary", "DefaultsRow", "DefaultsSummary"]



@dataclass(frozen=True)
class CrammerSingerRow:
    """One solver on one problem of :func:`bench_sopopo_vs_liblinear`.

    Attributes
    ----------
    problem : str
    solver : str
    seconds : float
        Median wall seconds of a fit.
    objective : float or None
        The Crammer-Singer primal objective reached (None: not computed).
    tol : float or None
        Our tolerance (None: LinearSVC's default).
    passes : int
        Passes (LinearSVC: its iterations).
    """

    problem: str = column("problem")
    solver: str = column("solver")
    seconds: float = column("seconds", fmt_spec(".3f"), order=3)
    objective: float | None = column("primal", (fmt_spec(".6f")), order=2)
    tol: float | None = column("tol", (lambda v: f"{v:g}"), order=1)
    passes: int = column("passes/iter", order=1)


@dataclass(frozen=True)
class YeastPasses:
    """LabelRanker's passes to a relative duality gap of 1e-3 on yeast
    (:func:`bench_sopopo_vs_liblinear`).

    Attributes
    ----------
    setting : str
    shrinking : bool
    passes : int
    full_passes : float
        The active set's share of the pieces, summed over passes.
    converged : bool
    rel_gap : float
        Duality gap / primal at the end.
    seconds : float
        Wall seconds.
    """

    setting: str
    shrinking: bool
    passes: int
    full_passes: float
    converged: bool
    rel_gap: float
    seconds: float


@record
class SopopoVsLiblinearSummary(RepeatedBench):
    """The key figures of :func:`bench_sopopo_vs_liblinear`.

    Attributes
    ----------
    C : float
    ratio_liblinear_over_ours : dict of str to float
        LinearSVC's time over ours per problem (> 1: ours faster).
    yeast : tuple of YeastPasses
    rows : tuple of CrammerSingerRow
    """

    C: float
    ratio_liblinear_over_ours: dict
    yeast: tuple
    rows: tuple


@dataclass(frozen=True)
class DefaultsRow:
    """One model on one set of :func:`bench_label_ranker_defaults`.

    Attributes
    ----------
    dataset, model : str
    rank_loss : float
        Test label ranking loss (lower is better).
    fit_s : float
        Median fit seconds.
    passes : int or None
        LabelRanker's passes (None for the peer).
    warnings : int or None
        LabelRanker's warnings (None for the peer).
    """

    dataset: str = column("dataset")
    model: str = column("model")
    rank_loss: float = column("test rank loss", fmt_spec(".4f"))
    fit_s: float = column("fit s", fmt_spec(".2f"))
    passes: int | None = column("passes", (str))
    warnings: int | None = column("warnings", (str))


@record
class DefaultsSummary(RepeatedBench):
    """The key figures of :func:`bench_label_ranker_defaults`.

    Attributes
    ----------
    lower_rank_loss_everywhere : bool
        LabelRanker's test loss is lower on every set.
    rows : tuple of DefaultsRow
    """

    lower_rank_loss_everywhere: bool
    rows: tuple

#: tolerances tried, loosest first, until our primal is no worse than LinearSVC's:
#: four per decade (a factor 1.78), so that the one timed is at most that
#: much tighter than needed (a grid of factors 3 timed us up to 3x too long)
_TOLS = tuple(float(t) for t in np.logspace(-3, -7, 17))


def crammer_singer_primal(W, X, y, C: float) -> float:
    """The Crammer-Singer primal objective without bias,
    ``1/2 sum_r ||w_r||^2 + C sum_i max(0, 1 + max_{r != y_i} w_r.x_i -
    w_{y_i}.x_i)``, which is Eq. 6 of ``sopopo-label-ranking.txt`` for
    one-hot targets and the top_vs_rest decomposition (and LIBLINEAR's
    ``-s 4`` objective).

    Parameters
    ----------
    W : ndarray, shape (k, n)
    X : ndarray, shape (m, n)
    y : ndarray of int, shape (m,)
        Classes 0..k-1.
    C : float

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the shapes do not match or a class is outside 0..k-1.

    Examples
    --------
    >>> crammer_singer_primal(np.zeros((3, 2)), np.ones((4, 2)), np.array([0, 1, 2, 0]), 1.0)
    4.0
    """
    W = np.asarray(W, dtype=float)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if W.ndim != 2 or X.ndim != 2 or W.shape[1] != X.shape[1] or y.shape != (X.shape[0],):
        raise ValueError(f"W, X, y: expected (k, n), (m, n), (m,), got {W.shape}, "
                         f"{X.shape}, {y.shape}")
    if y.min() < 0 or y.max() >= W.shape[0]:
        raise ValueError(f"y: classes must be in 0..{W.shape[0] - 1}")
    F = X @ W.T
    rows = np.arange(len(y))
    fy = F[rows, y].copy()
    F[rows, y] = -np.inf
    return float(0.5 * np.sum(W * W) + C * np.sum(np.maximum(0.0, 1.0 + F.max(axis=1) - fy)))


def _cs_problems(quick: bool, seed: int) -> dict:
    digits = load_digits()
    X = StandardScaler().fit_transform(digits.data)
    y = digits.target.astype(np.int64)
    out = {"digits (k=10)": (X[:600], y[:600]) if quick else (X, y)}
    m, d, k = (1000, 50, 20) if quick else (5000, 50, 20)
    rng = np.random.default_rng(seed)
    Xs = rng.standard_normal((m, d))
    ys = np.argmax(Xs @ rng.standard_normal((k, d)).T + 2.0 * rng.standard_normal((m, k)),
                   axis=1).astype(np.int64)
    out[f"synthetic m={m}, d={d}, k={k}"] = (Xs, ys)
    return out


def _interleaved(fns: dict, repeats: int) -> dict:
    """Median wall seconds of each callable, the callables alternating."""
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(t) for name, t in times.items()}


def _yeast_passes(quick: bool, seed: int) -> list[YeastPasses]:
    """Passes of LabelRanker to relative gap 1e-3 at C = 1 on yeast (scaled)."""

    data = load_yeast()
    X = StandardScaler().fit_transform(data.X_train)
    settings = [("LabelRanker(C=1) (defaults otherwise)", {}, 1000),
                ("paper's setting: normalize=False, bias=0", dict(normalize=False, bias=0.0),
                 200 if quick else 1000)]
    rows = []
    for label, kw, max_iter in settings:
        for shrinking in (True, False):
            model = LabelRanker(C=1.0, tol=1e-3, max_iter=max_iter, random_state=seed,
                                shrinking=shrinking, **kw)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(X, data.Y_train)
            res = model.result_
            rows.append(YeastPasses(setting=label, shrinking=shrinking, passes=int(res.nit),
                                    full_passes=float(res.full_passes),
                                    converged=bool(res.success),
                                    rel_gap=float(res.gap / res.primal_objective),
                                    seconds=time.perf_counter() - t0))
    return rows


@register_bench("sopopo-vs-liblinear")
def bench_sopopo_vs_liblinear(*, quick: bool = False, seed: int = 0, progress: bool = False,
                              repeats: int | None = None, C: float = 1.0) -> ExperimentResult:
    """Time SOPOPO (shrinking) and LIBLINEAR on the Crammer-Singer SVM.

    For each problem (scikit-learn's digits, standardised; a synthetic
    Gaussian problem m = 5000, d = 50, k = 20 with noisy labels; ``quick``:
    600 digits and m = 1000), LinearSVC(multi_class="crammer_singer",
    fit_intercept=False, C) at its default tol gives the peer objective; our
    ``sopopo_batch(X, onehot(y), C, decomposition="top_vs_rest")`` runs at
    the loosest tolerance of 1e-3, 3e-4, ..., 1e-6 whose primal objective
    (:func:`crammer_singer_primal`, the same function for both) is no worse.
    Both are then timed with alternating repeats (one thread).  Finally the
    passes of ``LabelRanker(C=1)`` to a relative duality gap of 1e-3 on
    standardised yeast, with and without shrinking, at the defaults and in
    the paper's setting.

    Parameters
    ----------
    quick : bool
        Smaller problems, 200 passes at most in the paper's
        setting on yeast.
    seed : int
        Seed of the synthetic data and of the piece order.
    progress : bool
        Unused.
    repeats : int, optional
        Timing repeats (default 3).
    C : float, default=1.0

    Returns
    -------
    ExperimentResult
        rows: a :class:`CrammerSingerRow` per problem and solver (``problem``, ``solver``,
        ``seconds``, ``objective``, ``tol``, ``passes``) and the yeast rows;
        summary: a :class:`SopopoVsLiblinearSummary`, the ratios LinearSVC
        time / ours per problem (> 1: ours is
        faster) and the yeast passes.
    """

    repeats = 3 if repeats is None else int(repeats)
    rows, ratios, notes = [], {}, []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name, (X, y) in _cs_problems(quick, seed).items():
            k = int(y.max()) + 1
            Y = np.eye(k)[y]
            svc = LinearSVC(multi_class="crammer_singer", fit_intercept=False, C=C)
            svc.fit(X, y)
            f_svc = crammer_singer_primal(svc.coef_, X, y, C)
            for tol in _TOLS:
                res = sopopo_batch(X, Y, C, decomposition="top_vs_rest", tol=tol,
                                   max_iter=1_000_000, random_state=seed)
                f_ours = crammer_singer_primal(res.x, X, y, C)
                if f_ours <= f_svc * (1 + 1e-12):
                    break
            t = _interleaved({
                "svc": lambda X=X, y=y: LinearSVC(multi_class="crammer_singer",
                                                  fit_intercept=False, C=C).fit(X, y),
                "ours": lambda X=X, Y=Y, tol=tol: sopopo_batch(
                    X, Y, C, decomposition="top_vs_rest", tol=tol, max_iter=1_000_000,
                    random_state=seed)},
                repeats)
            ratio = t["svc"] / t["ours"]
            ratios[name] = ratio
            rows.append(CrammerSingerRow(
                problem=name, solver="LinearSVC(crammer_singer), default tol",
                seconds=t["svc"], objective=f_svc, tol=None, passes=int(np.max(svc.n_iter_))))
            rows.append(CrammerSingerRow(
                problem=name, solver="SOPOPO top_vs_rest, shrinking", seconds=t["ours"],
                objective=f_ours, tol=tol, passes=int(res.nit)))
            reached = "no worse than" if f_ours <= f_svc * (1 + 1e-12) else "still above"
            notes.append(f"{name}: at tol={tol:.3g} our primal {f_ours:.6f} is {reached} "
                         f"LinearSVC's {f_svc:.6f}; " + speed_phrase(ratio, "SOPOPO",
                                                                      "LinearSVC"))
    yeast = _yeast_passes(quick, seed)
    for r in yeast:
        rows.append(CrammerSingerRow(
            problem="yeast, C=1, gap 1e-3",
            solver=f"LabelRanker {r.setting}, shrinking={r.shrinking}", seconds=r.seconds,
            objective=None, tol=1e-3, passes=r.passes))
        work = (f" ({r.full_passes:.1f} passes' work: the active set's share of the "
                "pieces, summed)" if r.shrinking else "")
        notes.append(f"yeast C=1, {r.setting}, shrinking={r.shrinking}: "
                     + (f"relative gap 1e-3 after {r.passes} passes{work}"
                        if r.converged else
                        f"relative gap {r.rel_gap:.2g} after {r.passes} passes{work} "
                        "(not yet 1e-3)") + f", {r.seconds:.1f} s")
    notes.append("one thread; seconds = median wall time over alternating repeats")
    summary = SopopoVsLiblinearSummary(
        bench="sopopo-vs-liblinear", quick=quick, repeats=repeats, C=C,
        ratio_liblinear_over_ours=ratios, yeast=tuple(yeast), rows=tuple(rows))
    return ExperimentResult("sopopo-vs-liblinear", "Crammer-Singer SVM: SOPOPO batch with "
                            "shrinking vs LIBLINEAR (LinearSVC) to the same primal objective",
                            rows, summary, notes=notes)


def multilabel_sets(quick: bool = False) -> dict:
    """The data of ``label-ranker-defaults``: yeast (its standard split) and
    two ``make_multilabel_classification`` sets (60/40 split), as
    ``{name: (X_train, Y_train, X_test, Y_test)}``.  ``quick`` keeps yeast and
    the first synthetic set."""

    d = load_yeast()
    sets = {"yeast": (d.X_train, d.Y_train, d.X_test, d.Y_test)}
    specs = [("synthetic A (m=2000, n=50, k=10)",
              dict(n_samples=2000, n_features=50, n_classes=10, n_labels=3, random_state=1)),
             ("synthetic B (m=3000, n=100, k=20)",
              dict(n_samples=3000, n_features=100, n_classes=20, n_labels=4, random_state=2))]
    for name, kw in specs[:1] if quick else specs:
        X, Y = make_multilabel_classification(**kw)
        Xtr, Xte, Ytr, Yte = train_test_split(X.astype(float), Y, test_size=0.4,
                                              random_state=0)
        sets[name] = (Xtr, Ytr, Xte, Yte)
    return sets


@register_bench("label-ranker-defaults")
def bench_label_ranker_defaults(*, quick: bool = False, seed: int = 0,
                                progress: bool = False,
                                repeats: int | None = None) -> ExperimentResult:
    """The evidence for LabelRanker's defaults (see its docstring).

    On each set of :func:`multilabel_sets`, fits
    ``make_pipeline(StandardScaler(), LabelRanker(random_state=seed))`` and
    ``make_pipeline(StandardScaler(), OneVsRestClassifier(LinearSVC()))`` on
    the training part (alternating repeats, median fit time, one thread) and
    reports the test label ranking loss
    (:func:`sklearn.metrics.label_ranking_loss`, lower is better), whether
    our fit converged without a warning, and its passes.

    Parameters
    ----------
    quick : bool
        yeast and one synthetic set, 1 repeat.
    seed : int
        ``random_state`` of LabelRanker.
    progress : bool
        Unused.
    repeats : int, optional
        Timing repeats (default 3, quick 1).

    Returns
    -------
    ExperimentResult
        rows: a :class:`DefaultsRow` per set and model (``dataset``, ``model``,
        ``rank_loss``, ``fit_s``, ``passes``, ``warnings``); summary: a
        :class:`DefaultsSummary`, the same and whether LabelRanker's loss is lower on every set.
    """

    repeats = (1 if quick else 3) if repeats is None else int(repeats)
    rows, notes, wins = [], [], {}
    with threadpool_limits(1):
        for name, (Xtr, Ytr, Xte, Yte) in multilabel_sets(quick).items():
            ours = make_pipeline(StandardScaler(), LabelRanker(random_state=seed))
            peer = make_pipeline(StandardScaler(), OneVsRestClassifier(LinearSVC()))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                ours.fit(Xtr, Ytr)
            ours_warnings = [str(w.message) for w in caught
                             if "LabelRanker" in str(w.message)]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                peer.fit(Xtr, Ytr)
                t = _interleaved({"ours": lambda ours=ours, Xtr=Xtr, Ytr=Ytr: ours.fit(Xtr, Ytr),
                                  "peer": lambda peer=peer, Xtr=Xtr, Ytr=Ytr: peer.fit(Xtr, Ytr)},
                                 repeats)
            loss_ours = float(label_ranking_loss(Yte, ours.decision_function(Xte)))
            loss_peer = float(label_ranking_loss(Yte, peer.decision_function(Xte)))
            wins[name] = loss_ours < loss_peer
            rows.append(DefaultsRow(dataset=name, model="StandardScaler + LabelRanker()",
                                    rank_loss=loss_ours, fit_s=t["ours"],
                                    passes=int(ours[-1].n_iter_),
                                    warnings=len(ours_warnings)))
            rows.append(DefaultsRow(dataset=name,
                                    model="StandardScaler + one-vs-rest LinearSVC()",
                                    rank_loss=loss_peer, fit_s=t["peer"], passes=None,
                                    warnings=None))
            notes.append(f"{name}: test rank loss {loss_ours:.4f} (LabelRanker) vs "
                         f"{loss_peer:.4f} (one-vs-rest LinearSVC), "
                         + ("lower" if wins[name] else "NOT lower")
                         + f"; fit {t['ours']:.2f} s vs {t['peer']:.2f} s ("
                         + speed_phrase(t["peer"] / t["ours"], "LabelRanker",
                                        "LinearSVC") + ")"
                         + ("" if not ours_warnings else
                            f"; LabelRanker warned: {ours_warnings[0]}"))
    notes.append("LabelRanker() defaults: C=0.3, decomposition='all_pairs', normalize=True, "
                 "bias=1 (None), tol=1e-3, shrinking=True; one thread")
    summary = DefaultsSummary(bench="label-ranker-defaults", quick=quick, repeats=repeats,
                              lower_rank_loss_everywhere=all(wins.values()), rows=tuple(rows))
    return ExperimentResult("label-ranker-defaults", "LabelRanker() vs one-vs-rest LinearSVC() "
                            "after StandardScaler: test label ranking loss and fit time",
                            rows, summary, notes=notes)
