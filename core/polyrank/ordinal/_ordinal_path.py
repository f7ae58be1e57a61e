"""The regularisation path of :class:`~polyrank.OrdinalMarginRanker`
(issue 45, item 2), in the manner of :func:`sklearn.linear_model.lasso_path`.
"""

from __future__ import annotations

from ..path import N_GRID, PathResult, estimator_path, reject_grid_params
from .estimator import OrdinalMarginRanker

__all__ = ["ordinal_path"]


def ordinal_path(X, y, *, cs=None, n_cs: int = N_GRID, sample_weight=None,
                 warm: bool = True, **params) -> PathResult:
    """OrdinalMarginRanker fitted along a grid of c, each fit warm-started.

    In the manner of :func:`sklearn.linear_model.lasso_path`: the grid is
    solved from the smallest c (the strongest regularisation) up.  SVOR
    (``formulation="svor"``): TRON from the previous (w, b), or dual
    coordinate descent from the previous multipliers scaled by c_new /
    c_old (LIBLINEAR's warm start across C, Chu, Lin et al., KDD 2015); the
    paper's row and column generation (``formulation="paper"``,
    ``row-column-generation-ordinal.txt``) from the previous working set
    instead of W^0 (Sec. 10).

    Parameters
    ----------
    X : {array_like, sparse matrix}, shape (n, n_features)
    y : array_like, shape (n,)
        Ordered labels, as :meth:`OrdinalMarginRanker.fit`.
    cs : array_like of shape (n_grid,), optional
        The grid of c (> 0, finite; solved in increasing order).  Default:
        ``n_cs`` values log-spaced over two decades around the c the
        parameters resolve to (``c``, or the formulation's default).
    n_cs : int, default=20
        Points of the default grid.
    sample_weight : array_like, shape (n,), optional
    warm : bool, default=True
        False fits every point cold.
    **params
        Other parameters of :class:`OrdinalMarginRanker` (not ``c`` nor
        ``warm_start``).

    Returns
    -------
    PathResult
        ``param`` is ``"c"``; ``coefs``: ``coef_`` per c for a linear
        model, else ``dual_coef_``; ``min_C`` = 0.0: with the squared-norm
        regulariser no c > 0 gives w = 0 unless every c does, so there is
        no analogue of :func:`sklearn.svm.l1_min_c`.

    Raises
    ------
    ValueError
        ``cs`` empty, not 1-d, with NaN/inf or values <= 0 (the message
        names ``cs``); as :meth:`OrdinalMarginRanker.fit`.
    TypeError
        ``c`` or ``warm_start`` in ``params``, or an unknown parameter.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> path = ordinal_path(X, [0, 0, 1, 1, 2, 2], cs=[0.1, 1.0, 10.0])
    >>> path.warm_start[1:], path.objectives.shape
    (['used', 'used'], (3,))
    """
    reject_grid_params(params, ("c",))
    est = OrdinalMarginRanker(**params)
    return estimator_path(est, X, y, cs, n=n_cs, param="c", center=est._penalty(),
                          name="cs", warm=warm, fit_params={"sample_weight": sample_weight})
