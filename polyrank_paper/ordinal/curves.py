"""Sec. 9 (Fig. 1-3) of ``row-column-generation-ordinal.txt`` redone on the red
wine quality data: two attributes, the contours of f at the thresholds of
(S) and two (S~) models; and the full 11-attribute data against PRank.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from polyrank.datasets import load_winequality_red
from polyrank.kernels import kernel_matrix
from polyrank.ordinal import prank, rank_loss, solve_ordinal
from polyrank.ordinal.generation import predict_labels
from polyrank.ordinal.prank import prank_decision

from .._harness import fmt, progress_bar
from ..registry import ExperimentResult, PaperItem, RunInfo, column, record, register
from ._common import POLY4

__all__ = ["WINE_FEATURES", "CURVE_MODELS", "wine_two_features", "ordinal_curves", "CurveRow",
           "CurveModel", "CurvesSummary"]


@dataclass(frozen=True)
class CurveRow:
    """One model of :func:`ordinal_curves`.

    Attributes
    ----------
    data : str
        ``"wine, 2 features"`` or ``"wine, 11 features"``.
    model, algorithm, status : str
    iterations : int
        Sub-problems (PRank: passes).
    W : int
        Working-set size (PRank: support).
    n_train : int
    objective : float or None
        None for PRank.
    thresholds : str
        p_1 .. p_l, space separated, 3 decimals.
    ordered : bool
        p_1 < ... < p_l (PRank: <=).
    train_rank_loss, test_mae, test_accuracy : float
        Training rank loss, test mean absolute error (= average rank loss)
        and test accuracy.
    time_s : float
        Seconds of the fit.
    """

    data: str = column("data")
    model: str = column("model")
    algorithm: str = column()
    status: str = column()
    iterations: int = column("# iter")
    W: int = column("|W|")
    n_train: int = column("n")
    objective: float | None = column()
    thresholds: str = column("p_1..p_l")
    ordered: bool = column()
    train_rank_loss: float = column("train loss", fmt)
    test_mae: float = column("test MAE", fmt)
    test_accuracy: float = column("test acc", fmt)
    time_s: float = column()


@dataclass(frozen=True)
class CurveModel:
    """The summary's view of one :class:`CurveRow`.

    Attributes
    ----------
    model : str
    iterations, W : int
    objective : float or None
    thresholds : str
    ordered : bool
    train_rank_loss, test_mae, test_accuracy : float
    """

    model: str
    iterations: int
    W: int
    objective: float | None
    thresholds: str
    ordered: bool
    train_rank_loss: float
    test_mae: float
    test_accuracy: float


@record
class CurvesSummary(RunInfo):
    """The key figures of :func:`ordinal_curves`.

    Attributes
    ----------
    features : tuple of str
        The two attributes of the contour plots.
    n_train, n_test, n_train_full, add_per_iter : int
    models : tuple of CurveModel
    all_converged : bool
    full_test_mae, full_test_accuracy : float
        (S) on all 11 attributes.
    prank_best_test_mae : float
    elapsed_s : float
    paper : tuple of PaperItem
    """

    features: tuple
    n_train: int
    n_test: int
    n_train_full: int
    add_per_iter: int
    models: tuple
    all_converged: bool
    full_test_mae: float
    full_test_accuracy: float
    prank_best_test_mae: float
    elapsed_s: float
    paper: tuple


#: the two attributes of the illustrative example redone on wine (Sec. 9)
WINE_FEATURES = ("alcohol", "volatile acidity")
#: the three models of Fig. 1-3: name, keyword arguments of solve_ordinal
CURVE_MODELS = (
    ("(S) linear, c = 15", {"margin": "soft", "c": 15.0, "representation": "primal"}),
    ("(S~) Gaussian, sigma = 0.5, c = 10",
     {"margin": "soft", "c": 10.0, "kernel": "rbf", "gamma": 1.0 / (2 * 0.5 ** 2)}),
    ("(S~) polynomial, d = 4, c = 15", {"margin": "soft", "c": 15.0, **POLY4}),
)


def wine_two_features(n_train: int, seed: int = 0):
    """The red wine data reduced to (alcohol, volatile acidity), min-max
    scaled to [0, 1] on a stratified training sample of ``n_train`` wines.

    Returns
    -------
    dict
        ``X_train`` (n_train, 2), ``y_train``, ``X_test``, ``y_test`` (labels
        quality - 3), ``features``, ``scaler`` (scikit-learn MinMaxScaler).
    """
    d = load_winequality_red()
    idx = [d.feature_names.index(f) for f in WINE_FEATURES]
    Xtr, Xte, ytr, yte = train_test_split(d.X[:, idx], d.labels, train_size=n_train,
                                          stratify=d.labels, random_state=seed)
    sc = MinMaxScaler().fit(Xtr)
    return {"X_train": sc.transform(Xtr), "y_train": ytr, "X_test": sc.transform(Xte),
            "y_test": yte, "features": list(WINE_FEATURES), "scaler": sc}


@register("ordinal-curves", "Sec. 9 (Fig. 1-3) on red wine: threshold contours of (S), "
          "Gaussian and polynomial (S~); 11-feature wine test MAE/accuracy vs PRank")
def ordinal_curves(*, quick: bool = False, seed: int = 0, progress: bool = False,
                   n_train: int | None = None, n_train_full: int | None = None,
                   add_per_iter: int = 10, grid: int | None = None) -> ExperimentResult:
    """The illustrative example of Sec. 9 (Fig. 1-3) redone on real data.

    Two attributes of the red wine quality data, alcohol and volatile
    acidity (the two most correlated with quality), min-max scaled to [0, 1]
    on a stratified training sample; labels quality - 3 (0..5).  Like the
    paper's 44 students the data are not separable, so (H) is infeasible and
    the soft margin is used: (S) by RS (linear, c = 15, Fig. 1), (S~) by
    RC(S~) with the Gaussian kernel (sigma = 0.5, c = 10, Fig. 2) and with
    (1 + x.y)^4 (c = 15, Fig. 3).  The figure draws each model's contours
    f(x) = p_k, labelled with p_k.  Then all 11 attributes (standardised on
    the training part), (S) by RS with c = 1 against kernel PRank (linear;
    one pass and 20 shuffled passes): test MAE (= average rank loss) and
    accuracy on the held-out wines.

    On these heavily overlapping data almost every training object ends in
    W (its slack is positive), so ``add_per_iter`` defaults to 10 instead of
    the 2 of Sec. 10: fewer sub-problems, the same optimum (Lemma 7.2).

    Parameters
    ----------
    quick : bool
        n_train = 120 (two features) and 300 (eleven); otherwise 250 and 800.
    seed : int
        Seed of the stratified split and of PRank's shuffling.
    progress : bool
    n_train, n_train_full : int, optional
        Override the training sizes.
    add_per_iter : int
        Objects added per iteration.
    grid : int, optional
        Grid points per axis of the contour plots (default 50 quick, 100).

    Returns
    -------
    ExperimentResult
        ``rows``: a :class:`CurveRow` per model (``iterations``, ``W``, ``objective``,
        ``thresholds``, train/test rank loss, test accuracy).
    """
    n_train = n_train or (120 if quick else 250)
    n_train_full = n_train_full or (300 if quick else 800)
    grid = grid or (50 if quick else 100)
    t0 = time.perf_counter()
    data = wine_two_features(n_train, seed)
    Xtr, ytr, Xte, yte = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    bar = progress_bar(len(CURVE_MODELS) + 3, "ordinal-curves", progress)
    rows, models = _two_feature_rows(Xtr, ytr, Xte, yte, add_per_iter, bar)
    rows += _eleven_feature_rows(n_train_full, seed, add_per_iter, bar)
    bar.close()
    ours = rows[len(CURVE_MODELS)]
    best_prank = min(rows[len(CURVE_MODELS) + 1:], key=lambda r: r.test_mae)
    shown = [f.name for f in fields(CurveModel)]
    summary = CurvesSummary(
        experiment="ordinal-curves", quick=quick, seed=seed,
        features=tuple(WINE_FEATURES), n_train=n_train, n_test=int(yte.size),
        n_train_full=n_train_full, add_per_iter=add_per_iter,
        models=tuple(CurveModel(**{k: getattr(r, k) for k in shown}) for r in rows),
        all_converged=all(r.status == "converged" for r in rows[:len(CURVE_MODELS) + 1]),
        full_test_mae=ours.test_mae, full_test_accuracy=ours.test_accuracy,
        prank_best_test_mae=best_prank.test_mae, elapsed_s=time.perf_counter() - t0,
        paper=_curves_paper_rows(rows[:len(CURVE_MODELS)], ours, best_prank, n_train,
                                 n_train_full))
    notes = [f"two features: {WINE_FEATURES[0]} (x axis) and {WINE_FEATURES[1]} (y axis), "
             f"min-max scaled on {n_train} training wines; soft margin "
             "(the data are not separable)",
             f"11 features: (S) test MAE {ours.test_mae:.3f} / accuracy "
             f"{ours.test_accuracy:.3f} vs PRank best test MAE {best_prank.test_mae:.3f}"]
    return ExperimentResult("ordinal-curves",
                            "Sec. 9 on red wine: threshold contours of three soft margin models",
                            rows, summary, _curves_data(models, Xtr, ytr, grid), notes=notes)


def _two_feature_rows(Xtr, ytr, Xte, yte, add_per_iter, bar):
    """Fit the models of :data:`CURVE_MODELS` on the two wine features:
    their :class:`CurveRow` rows and, per model, (name, score function,
    thresholds) for the contours."""
    rows, models = [], []
    for name, kw in CURVE_MODELS:
        t = time.perf_counter()
        r = solve_ordinal(Xtr, ytr, add_per_iter=add_per_iter, **kw)
        seconds = time.perf_counter() - t
        params = r.kernel_params

        def score(Z, r=r, kw=kw, params=params):
            if kw.get("representation") == "primal":
                return Z @ r.x
            W = r.working_set
            return kernel_matrix(Z, Xtr[W], kw.get("kernel", "linear"), **params) @ r.x[W]

        pred = predict_labels(score(Xte), r.thresholds)
        rows.append(_model_row("wine, 2 features", name, r, ytr, yte, pred, seconds))
        models.append((name, score, r.thresholds))
        bar.update(1)
    return rows, models


def _eleven_feature_rows(n_train_full, seed, add_per_iter, bar) -> list:
    """The rows on all 11 wine attributes (standardised): (S) linear with
    c = 1, and PRank after 1 and 20 passes."""
    d = load_winequality_red()
    rows = []
    Atr, Ate, btr, bte = train_test_split(d.X, d.labels, train_size=n_train_full,
                                          stratify=d.labels, random_state=seed)
    sc = StandardScaler().fit(Atr)
    Atr, Ate = sc.transform(Atr), sc.transform(Ate)
    t = time.perf_counter()
    r = solve_ordinal(Atr, btr, margin="soft", c=1.0, representation="primal",
                      add_per_iter=add_per_iter)
    seconds = time.perf_counter() - t
    pred = predict_labels(Ate @ r.x, r.thresholds)
    rows.append(_model_row("wine, 11 features", "(S) linear, c = 1", r, btr, bte, pred, seconds))
    bar.update(1)
    for epochs in (1, 20):
        t = time.perf_counter()
        pr = prank(Atr, btr, max_iter=epochs, shuffle=epochs > 1, random_state=seed)
        seconds = time.perf_counter() - t
        f_tr = prank_decision(Atr, pr.x, Atr, "linear", pr.kernel_params)
        f_te = prank_decision(Atr, pr.x, Ate, "linear", pr.kernel_params)
        p_tr = np.searchsorted(pr.thresholds, f_tr, side="right")
        p_te = np.searchsorted(pr.thresholds, f_te, side="right")
        rows.append(CurveRow(
            data="wine, 11 features",
            model=f"PRank linear, {epochs} pass" + ("es" if epochs > 1 else ""),
            algorithm="PRank", status=pr.status, iterations=pr.nit, W=int(pr.support.size),
            n_train=int(btr.size), objective=None,
            thresholds=" ".join(f"{p:.3f}" for p in pr.thresholds),
            ordered=bool(np.all(np.diff(pr.thresholds) >= 0)),
            train_rank_loss=rank_loss(btr, p_tr), test_mae=rank_loss(bte, p_te),
            test_accuracy=float(np.mean(p_te == bte)), time_s=seconds))
        bar.update(1)
    return rows


def _model_row(data, name, r, y_train, y_test, pred, seconds) -> CurveRow:
    """The row of one solve of :func:`~polyrank.ordinal.solve_ordinal`: its
    thresholds, train rank loss, test MAE and accuracy of ``pred``."""
    return CurveRow(data=data, model=name, algorithm=r.algorithm,
                    status=r.status, iterations=r.nit, W=int(r.working_set.size),
                    n_train=int(y_train.size), objective=r.objective,
                    thresholds=" ".join(f"{p:.3f}" for p in r.thresholds),
                    ordered=bool(np.all(np.diff(r.thresholds) > 0)),
                    train_rank_loss=rank_loss(y_train, r.predictions),
                    test_mae=rank_loss(y_test, pred),
                    test_accuracy=float(np.mean(pred == y_test)), time_s=seconds)


def _curves_data(models, Xtr, ytr, grid: int) -> dict:
    """What the contour figure of ``ordinal-curves`` draws: the decision
    function f of each model on a ``grid`` x ``grid`` mesh of [0, 1]^2 (4
    decimals are plenty for a picture and keep the figure's JSON small),
    its thresholds, and the training points."""
    g = np.linspace(0.0, 1.0, grid)
    G = np.array([[a, b] for b in g for a in g])
    return {"grid": g, "X": Xtr, "y": ytr,
            "models": [(name, np.round(score(G).reshape(grid, grid), 4), thr)
                       for name, score, thr in models]}


def _curves_paper_rows(curves, full, prank_best, n_train, n_train_full) -> tuple:
    """The README's paper-vs-polyrank rows of ``ordinal-curves`` (Sec. 9)."""
    two = f"red wine, 2 features, {n_train} training wines (the paper's 44 students: not public)"
    gauss = next(r for r in curves if r.model.startswith("(S~) Gaussian"))
    lin = curves[0]
    return (
        PaperItem(item="Sec. 9, Fig. 1-3: thresholds p_1 < ... < p_l of (S), Gaussian and "
                       "polynomial (S~)",
                  paper="ordered in all three figures",
                  ours=", ".join("ordered" if r.ordered else "not ordered" for r in curves)
                  + ("" if all(r.ordered for r in curves)
                     else " (rare end classes: see notebook 05)"),
                  data=two),
        PaperItem(item="Sec. 9, Fig. 2: the Gaussian kernel (sigma = 0.5, c = 10) over-fits "
                       "(train loss / test MAE)",
                  paper="exposed to the risk of over-fitting",
                  ours=f"{gauss.train_rank_loss:.3f} / {gauss.test_mae:.3f} (linear (S): "
                       f"{lin.train_rank_loss:.3f} / {lin.test_mae:.3f})",
                  data=two),
        PaperItem(item="RC's (S) vs PRank, test MAE (Table 2's comparison on real data)",
                  paper="RC below PRank (Table 2, synthetic)",
                  ours=f"{full.test_mae:.3f} vs {prank_best.test_mae:.3f}",
                  data=f"red wine, 11 features, {n_train_full} training wines"),
    )
