"""What SolverLab and the displays read of an estimator: the step the
controls drive (a Pipeline's last), its resolved penalty, and the test
metric its ``score`` computes (name, direction, sign)."""

from __future__ import annotations

from sklearn.base import is_classifier, is_regressor
from sklearn.pipeline import Pipeline

__all__ = ["last_step", "PENALTIES", "penalty_name", "score_on_test"]

#: the regularisation parameters, in the order a lab or a path view looks for them
PENALTIES = ("C", "c", "lam")

#: the estimators' own methods that resolve a parameter left None (``C=None``:
#: the kernel's default) to the value the fit uses (the fitted ``C_`` / ``c_``)
_RESOLVERS = {"C": "_C", "c": "_penalty"}


def last_step(estimator) -> tuple[str, object]:
    """The routing prefix and the estimator the controls drive: for a
    :class:`~sklearn.pipeline.Pipeline` its last step's ``"name__"`` and that
    step (scikit-learn's own parameter routing: ``set_params(name__C=...)``,
    ``fit(X, y, name__callback=...)``), else ``""`` and the estimator itself.

    Parameters
    ----------
    estimator : estimator or Pipeline

    Returns
    -------
    (str, estimator)
    """
    if isinstance(estimator, Pipeline):
        name, step = estimator.steps[-1]
        return f"{name}__", step
    return "", estimator


def _describe(estimator) -> str:
    """``"LabelRanker"`` or ``"StandardScaler → LabelRanker"`` for a pipeline."""
    if isinstance(estimator, Pipeline):
        return " → ".join(type(step).__name__ for _, step in estimator.steps)
    return type(estimator).__name__


def _start_value(estimator, name: str, value):
    """The value the estimator uses for ``name``: ``value``, or for None the
    default its fit resolves it to (``C=None`` -> the kernel's default C)."""
    method = getattr(estimator, _RESOLVERS.get(name, ""), None) if value is None else None
    if callable(method):
        try:
            return float(method())
        except (TypeError, ValueError, KeyError, AttributeError):
            return value
    return value


def _metric_text(final, scoring) -> tuple[str, float]:
    """The readout's "NAME (higher is better)" and the sign of the shown value."""
    name, higher, sign = _metric(final, scoring)
    return f"{name} ({'higher' if higher else 'lower'} is better)", sign


def _metric(final, scoring) -> tuple[str, bool, float]:
    """(name, higher is better, sign) of the readout's test metric: the
    scorer's name (scikit-learn's convention: higher is better), else what
    the estimator's ``score`` computes, shown as the metric itself (sign -1
    turns a ``score`` of minus the MAE into the MAE, lower is better)."""
    from polyrank import (
        LabelRanker,
        M3LClassifier,
        OrdinalMarginRanker,
        PRank,
        RankSVM,
        SignConstrainedRegressor,
    )

    if scoring is not None:
        name = scoring if isinstance(scoring, str) else getattr(
            scoring, "__name__", type(scoring).__name__)
        return str(name), True, 1.0
    labels = getattr(final, "target_type_", None) in ("binary", "multiclass")
    if isinstance(final, RankSVM):
        return "mean NDCG over queries (LETOR)", True, 1.0
    if isinstance(final, (OrdinalMarginRanker, PRank)):
        return "mean absolute error", False, -1.0
    if isinstance(final, M3LClassifier) and not labels:
        return "1 − Hamming loss", True, 1.0
    if isinstance(final, LabelRanker) and not labels:
        return "label ranking average precision", True, 1.0
    if isinstance(final, SignConstrainedRegressor) or is_regressor(final):
        return "R²", True, 1.0
    if is_classifier(final):
        return "accuracy", True, 1.0
    return "score", True, 1.0



def penalty_name(estimator) -> str | None:
    """The regularisation parameter of ``estimator`` (a Pipeline: of its last
    step) that has a warm start: the first of :data:`PENALTIES` it takes,
    if it also takes ``warm_start``; else None (``PRank``: no penalty).

    Examples
    --------
    >>> from polyrank import LabelRanker, PRank
    >>> penalty_name(LabelRanker()), penalty_name(PRank())
    ('C', None)
    """
    own = last_step(estimator)[1].get_params(deep=False)
    if "warm_start" not in own:
        return None
    return next((p for p in PENALTIES if p in own), None)


def score_on_test(est, X_test, rest, scorer=None, transformed: bool = False) -> float:
    """The test metric's score of the fitted ``est`` (higher is better).

    Parameters
    ----------
    est : estimator or Pipeline
        Fitted.
    X_test : array_like
        The test instances: raw, or (``transformed=True``) already passed
        through a pipeline's leading steps.
    rest : tuple
        ``(y_test,)`` or ``(y_test, qid_test)``.
    scorer : callable, optional
        ``scorer(est, X_test, y_test)`` (on raw ``X_test``).
    transformed : bool
        ``X_test`` is what the last step reads.

    Returns
    -------
    float
        The scorer's value, else the last step's ``score`` on the test X
        passed through the earlier steps (so that ``qid_test`` reaches
        ``RankSVM.score``).
    """
    if scorer is not None:
        return float(scorer(est, X_test, *rest))
    if isinstance(est, Pipeline):
        Xt = X_test if transformed else est[:-1].transform(X_test)
        return float(est[-1].score(Xt, *rest))
    return float(est.score(X_test, *rest))
