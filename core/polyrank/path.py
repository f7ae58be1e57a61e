"""Regularisation paths: one estimator fitted along a grid of penalties, warm-started.

The shared driver of the path functions of every paper (``polyrank.ranksvm.ranksvm_path``,
``polyrank.sign.sign_path``, ``polyrank.sopopo.label_ranking_path``,
``polyrank.ordinal.ordinal_path``, ``polyrank.m3l.m3l_path``), in the manner of
:func:`sklearn.linear_model.lasso_path`: the grid is solved from the strongest
regularisation (small C, large lam) to the weakest, each fit starting from the
previous one's solution (``warm_start=True``, :mod:`polyrank._warm`): glmnet's
pathwise strategy (Friedman, Hastie and Tibshirani, J. Stat. Softw. 33(1), 2010)
and LIBLINEAR's parameter search (Chu, Lin et al., "Warm start for parameter
selection of linear classifiers", KDD 2015).

Every model here has a squared-L2 regulariser, so, unlike the L1 models of
:func:`sklearn.svm.l1_min_c`, there is no smallest C below which the model is
0: the optimality condition at w = 0 does not involve C, and a model that is not
0 at one C > 0 is not 0 at any (``PathResult.min_C`` is 0.0).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone

__all__ = ["PathResult", "check_grid", "default_grid", "regularisation_path", "N_GRID"]

#: points of a default grid (as ``lasso_path``'s ``n_alphas`` ... 100 there; a
#: slider needs fewer)
N_GRID = 20
#: a default grid spans this many decades, centred on the estimator's default
GRID_DECADES = 2.0


@dataclass
class PathResult:
    """The fits of one estimator along a grid of penalties.

    Attributes
    ----------
    param : str
        The penalty's parameter name (``"C"``, ``"lam"``, ``"c"``).
    Cs : ndarray, shape (n_grid,)
        The grid, in the order solved: increasing C (decreasing lam), from
        the strongest regularisation to the weakest.
    coefs : list of ndarray
        Per grid point, the model: ``coef_`` of a linear model, else
        ``dual_coef_`` (its shape may change along the grid).
    objectives, dual_objectives, gaps : ndarray, shape (n_grid,)
        ``result_.primal_objective``, ``dual_objective`` and ``gap`` (NaN
        where the solver has none).
    n_iter : ndarray of int, shape (n_grid,)
        ``n_iter_`` of each fit (the solver's unit, ``result_.unit``).
    fit_times : ndarray, shape (n_grid,)
        Seconds of each ``fit`` (wall clock).
    success : ndarray of bool, shape (n_grid,)
        ``result_.success`` of each fit.
    warm_start : list of str
        ``result_.warm_start`` of each fit ("used" from the second on).
    min_C : float
        The smallest penalty that gives a non-zero model, where a closed
        form exists: 0.0 for every squared-L2 model (see the module
        docstring); NaN where unknown.
    estimator : BaseEstimator
        The estimator fitted at the last grid point.
    """

    param: str
    Cs: np.ndarray
    coefs: list
    objectives: np.ndarray
    dual_objectives: np.ndarray
    gaps: np.ndarray
    n_iter: np.ndarray
    fit_times: np.ndarray
    success: np.ndarray
    warm_start: list = field(default_factory=list)
    min_C: float = 0.0
    estimator: object = None

    def to_pandas(self):
        """One row per grid point (``param``, objective, dual, gap, n_iter,
        fit_time, success, warm_start) as a :class:`pandas.DataFrame`.

        Raises
        ------
        ImportError
            If pandas is not installed (it is optional).
        """
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("PathResult.to_pandas needs pandas (pip install pandas)") \
                from exc

        return pd.DataFrame({self.param: self.Cs, "objective": self.objectives,
                             "dual_objective": self.dual_objectives, "gap": self.gaps,
                             "n_iter": self.n_iter, "fit_time": self.fit_times,
                             "success": self.success, "warm_start": self.warm_start})


def check_grid(Cs, name: str = "Cs", *, descending: bool = False) -> np.ndarray:
    """The grid as a sorted float64 array, or ValueError naming ``name``.

    Parameters
    ----------
    Cs : array_like, shape (n_grid,)
        Penalties: finite, > 0, at least one.
    name : str
        The argument's name in the messages.
    descending : bool, default=False
        Sort decreasing (a grid of lam, whose strongest regularisation is
        the largest value) instead of increasing.

    Returns
    -------
    ndarray, shape (n_grid,)

    Raises
    ------
    ValueError
        Empty, not 1-d, not numbers, NaN/inf or <= 0 entries.

    Examples
    --------
    >>> check_grid([1.0, 0.1, 10.0]).tolist()
    [0.1, 1.0, 10.0]
    """
    try:
        grid = np.asarray(Cs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: expected a 1-d array of positive numbers, got "
                         f"{Cs!r}") from exc
    if grid.ndim != 1 or grid.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-d array of positive numbers, "
                         f"got shape {grid.shape}")
    if not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        bad = grid[~(np.isfinite(grid) & (grid > 0))]
        raise ValueError(f"{name}: every value must be finite and > 0, got "
                         f"{bad[:5].tolist()}")
    grid = np.sort(grid)
    return grid[::-1].copy() if descending else grid


def default_grid(center: float, n: int = N_GRID, *, descending: bool = False) -> np.ndarray:
    """``n`` values log-spaced over :data:`GRID_DECADES` decades around
    ``center`` (the estimator's default penalty), in the order solved.

    Examples
    --------
    >>> g = default_grid(1.0, 5)
    >>> g[0], g[2], g[-1]
    (np.float64(0.1), np.float64(1.0), np.float64(10.0))
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n: expected at least 1 grid point, got {n}")
    half = GRID_DECADES / 2
    grid = float(center) * np.logspace(-half, half, n)
    return grid[::-1].copy() if descending else grid


def _model(est) -> np.ndarray:
    """The fitted model's coefficients: ``coef_`` if any, else ``dual_coef_``."""
    coef = getattr(est, "coef_", None)
    if coef is None:
        coef = getattr(est, "dual_coef_", np.empty(0))
    return np.array(coef, dtype=np.float64, copy=True)


def regularisation_path(estimator, X, y, grid, *, param: str = "C", warm: bool = True,
                        fit_params: dict | None = None, min_C: float = 0.0) -> PathResult:
    """Fit a clone of ``estimator`` at every value of ``grid``, in order.

    Parameters
    ----------
    estimator : BaseEstimator
        A polyrank estimator with a ``warm_start`` parameter and ``param``.
    X, y : array_like
        As the estimator's ``fit`` takes them.
    grid : ndarray, shape (n_grid,)
        Checked by :func:`check_grid`, in the order to solve.
    param : str, default="C"
        The penalty's parameter name.
    warm : bool, default=True
        Warm-start each fit from the previous one (False: every fit cold,
        the reference ``polyrank bench paths`` compares with).
    fit_params : dict, optional
        Further arguments of ``fit`` (``qid``, ``sample_weight`` ...).
    min_C : float, default=0.0
        Recorded as ``PathResult.min_C``.

    Returns
    -------
    PathResult

    Raises
    ------
    ValueError, TypeError
        As the estimator's ``fit``.
    """
    est = clone(estimator).set_params(warm_start=bool(warm))
    fit_params = fit_params or {}
    rows: dict[str, list] = {k: [] for k in ("coef", "P", "D", "gap", "nit", "t", "ok", "ws")}
    for value in grid:
        est.set_params(**{param: float(value)})
        t0 = time.perf_counter()
        est.fit(X, y, **fit_params)
        rows["t"].append(time.perf_counter() - t0)
        res = est.result_
        rows["coef"].append(_model(est))
        rows["P"].append(float(res.primal_objective))
        rows["D"].append(float(res.get("dual_objective", math.nan)))
        rows["gap"].append(float(res.get("gap", math.nan)))
        rows["nit"].append(int(est.n_iter_))
        rows["ok"].append(bool(res.success))
        rows["ws"].append(str(res.get("warm_start", "")))
    return PathResult(param=param, Cs=np.asarray(grid, dtype=np.float64).copy(),
                      coefs=rows["coef"], objectives=np.array(rows["P"]),
                      dual_objectives=np.array(rows["D"]), gaps=np.array(rows["gap"]),
                      n_iter=np.array(rows["nit"], dtype=np.int64),
                      fit_times=np.array(rows["t"]), success=np.array(rows["ok"]),
                      warm_start=rows["ws"], min_C=float(min_C), estimator=est)


def estimator_path(estimator, X, y, Cs, *, n: int, param: str, center: float,
                   name: str = "Cs", descending: bool = False, warm: bool = True,
                   fit_params: dict | None = None) -> PathResult:
    """The body of every paper's path function: the grid (``Cs`` checked, or
    :func:`default_grid` around ``center``), then :func:`regularisation_path`.

    Parameters
    ----------
    estimator : BaseEstimator
        Unfitted, with the user's parameters (``param`` among them is
        overwritten along the grid; giving it is refused by the callers).
    X, y : array_like
    Cs : array_like or None
        The grid (checked by :func:`check_grid` under ``name``) or None.
    n : int
        Points of the default grid.
    param, center, name, descending, warm, fit_params :
        See :func:`check_grid`, :func:`default_grid` and
        :func:`regularisation_path`.

    Returns
    -------
    PathResult

    Raises
    ------
    ValueError
        A bad grid (naming ``name``), ``n`` < 1, or as the estimator's ``fit``.
    """
    grid = (default_grid(center, n, descending=descending) if Cs is None
            else check_grid(Cs, name, descending=descending))
    return regularisation_path(estimator, X, y, grid, param=param, warm=warm,
                               fit_params={k: v for k, v in (fit_params or {}).items()
                                           if v is not None})


def reject_grid_params(params: dict, names) -> None:
    """TypeError if ``params`` (an estimator's keyword arguments given to a
    path function) sets the grid's parameter or ``warm_start`` (the path
    sets both)."""
    clash = sorted(set(params) & (set(names) | {"warm_start"}))
    if clash:
        raise TypeError(f"{clash[0]}: set by the path function (pass the grid as Cs=..., "
                        "and warm=False for cold fits)")
