"""Warm starts of the estimators: which earlier solution a ``fit`` may start from.

scikit-learn's ``warm_start`` semantics (``sklearn.linear_model.ElasticNet``,
``LogisticRegression``): with ``warm_start=True`` a ``fit`` on the same data
starts from the solution of the previous ``fit`` instead of from zero, which is
what a regularisation path (:mod:`polyrank.path`) or a slider that refits
after ``set_params(C=...)`` needs (LIBLINEAR's parameter search, Chu, Lin et
al., "Warm start for parameter selection of linear classifiers", KDD 2015).

Every estimator keeps, after each fit, a :class:`WarmState`: a
:func:`fingerprint` of the data the solver saw and the solver's final point
(primal ``w``, dual ``alpha``, ... with the penalty it was solved at).  The
next fit asks :func:`previous` for it; the answer is the state, or None and
the reason for a cold start, which the estimator writes to
``result_.warm_start`` ("used" or "cold: <reason>").

What "the same data" means here (:func:`fingerprint`): the same shape and
dtype of X, the same CRC-32 of at most :data:`SAMPLED_ROWS` evenly spaced rows
of X (their values; for CSR also the whole row pointer), and the same CRC-32
of every other array the solver reads in full (targets, query ids, sample
weights), which are O(n).  A change of X outside the sampled rows is not seen:
the warm start is then still correct (every solver converges from any feasible
point to the same optimum), only possibly slower than cold.
"""

from __future__ import annotations

import weakref
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["SAMPLED_ROWS", "USED", "WarmState", "fingerprint", "previous", "keep",
           "state_of", "dual_scale", "prepared"]

#: rows of X hashed by :func:`fingerprint` (evenly spaced, first and last included)
SAMPLED_ROWS = 16
#: ``result_.warm_start`` of a fit that started from the previous solution
USED = "used"

#: estimator -> its :class:`WarmState`, beside the estimator rather than in its
#: ``__dict__``: a model file, a pickle or ``clone`` never carries the solver's
#: end point (a copy of a fitted estimator starts its next warm fit cold)
_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: estimator -> (key, what its solver built from the data), under the same rules
_PREPARED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _crc(a) -> int:
    """CRC-32 of an array's values (C order)."""
    return zlib.crc32(np.ascontiguousarray(a).view(np.uint8).ravel().data)


def fingerprint(X, *arrays) -> tuple:
    """A cheap identity of a data set: shapes, dtypes and CRC-32s.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix, shape (n, d)
        The design matrix the solver reads (after validation).
    *arrays : ndarray or None
        Further arrays read in full (targets, query ids, weights); None
        counts as absent.

    Returns
    -------
    tuple
        Hashable; equal for equal data.  O(:data:`SAMPLED_ROWS` d) for X
        (plus O(n) for a CSR row pointer) and O(size) for ``arrays``.

    Examples
    --------
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> fingerprint(X, np.ones(3)) == fingerprint(X.copy(), np.ones(3))
    True
    >>> fingerprint(X, np.ones(3)) == fingerprint(X, np.zeros(3))
    False
    """
    n = X.shape[0]
    rows = np.unique(np.linspace(0, n - 1, min(n, SAMPLED_ROWS)).round().astype(np.intp))
    if sp.issparse(X):
        Xr = X.tocsr()[rows]
        head: tuple = ("csr", X.shape, X.nnz, _crc(X.tocsr().indptr), _crc(Xr.indices),
                       _crc(Xr.data))
    else:
        Xd = np.asarray(X)
        head = ("dense", Xd.shape, Xd.dtype.str, _crc(Xd[rows]))
    tail = tuple(None if a is None else (np.shape(a), np.asarray(a).dtype.str,
                                         _crc(np.asarray(a))) for a in arrays)
    return head + tail


@dataclass
class WarmState:
    """The end point of one fit, kept for the next fit's warm start.

    Attributes
    ----------
    key : tuple
        :func:`fingerprint` of the data, plus whatever else must match
        (e.g. the solver's name).
    penalty : float
        The regularisation the point was solved at (C, or lam).
    point : dict
        The solver's final variables (arrays), solver specific.
    """

    key: tuple
    penalty: float
    point: dict = field(default_factory=dict)


def _describe(old: tuple, new: tuple) -> str:
    """Why two keys differ, in words (the first difference)."""
    if len(old) != len(new):
        return "the data changed"
    if old[0] != new[0]:
        return f"X changed from {old[0]} to {new[0]}"
    if old[1] != new[1]:
        return f"X's shape changed from {old[1]} to {new[1]}"
    for a, b in zip(old[2:], new[2:]):
        if a != b:
            if isinstance(a, (tuple, int)) and isinstance(b, (tuple, int)) \
                    and not isinstance(a, bool):
                return "the data changed (values of X, y or the weights differ from the " \
                       "previous fit's)"
            return f"a setting the solution depends on changed ({a!r} -> {b!r})"
    return "the data changed"


def previous(estimator, key: tuple) -> tuple[WarmState | None, str]:
    """The state a warm fit starts from, or None and why it starts cold.

    Parameters
    ----------
    estimator : BaseEstimator
        With a ``warm_start`` parameter; its state of the last fit was kept
        by :func:`keep`.
    key : tuple
        The :func:`fingerprint` (plus solver name) of this fit.

    Returns
    -------
    (WarmState or None, str)
        The state and :data:`USED`, or None and ``"cold: <reason>"``.
    """
    if not getattr(estimator, "warm_start", False):
        return None, "cold: warm_start=False"
    state = state_of(estimator)
    if state is None:
        return None, "cold: no previous fit"
    if state.key != key:
        return None, f"cold: {_describe(state.key, key)}"
    return state, USED


def keep(estimator, key: tuple, penalty: float, **point: Any) -> None:
    """Keep this fit's end point for the next warm start of ``estimator``."""
    _STATES[estimator] = WarmState(key, float(penalty), dict(point))


def state_of(estimator) -> WarmState | None:
    """The :class:`WarmState` of ``estimator``'s last fit, or None."""
    return _STATES.get(estimator)


def dual_scale(penalty_new: float, penalty_old: float) -> float:
    """The factor that keeps box-constrained dual variables feasible when the
    penalty changes: C_new / C_old (every bound C c_i scales with C; LIBLINEAR's
    warm start across C, Chu, Lin et al., KDD 2015, Sec. 3).

    Examples
    --------
    >>> dual_scale(2.0, 0.5)
    4.0
    """
    return float(penalty_new) / float(penalty_old) if penalty_old > 0 else 0.0


def prepared(estimator, key: tuple, build: Callable[[], Any]) -> tuple[Any, bool]:
    """What the solver builds from the data (pairs, trees, CSR forms, Gram
    caches), built once per data set while ``warm_start=True``.

    A regularisation path or a slider refits one estimator on the same data
    at many penalties; what depends only on the data need not be rebuilt
    (LIBLINEAR's parameter search keeps its problem in memory across C).
    With ``warm_start=True`` the result of ``build()`` is kept beside the
    estimator (like its :class:`WarmState`: never in a pickle, a model file
    or a ``clone``) and returned again while ``key`` (the
    :func:`fingerprint` of the data, plus every setting ``build`` depends
    on) is unchanged.  With ``warm_start=False`` nothing is kept: each fit
    builds afresh and holds no second copy of the data after it returns.

    Parameters
    ----------
    estimator : BaseEstimator
        With a ``warm_start`` parameter.
    key : tuple
        Identity of the data and the settings ``build`` reads.
    build : callable
        No arguments; returns what the solver reads.  Must not depend on the
        penalty (C, lam), which changes along a path while ``key`` stays.

    Returns
    -------
    (object, bool)
        ``build()``'s result and whether it was reused (True) or built now.
    """
    if getattr(estimator, "warm_start", False):
        kept = _PREPARED.get(estimator)
        if kept is not None and kept[0] == key:
            return kept[1], True
    value = build()
    if getattr(estimator, "warm_start", False):
        _PREPARED[estimator] = (key, value)
    else:
        _PREPARED.pop(estimator, None)
    return value, False
