"""Warnings and errors of polyrank (as :mod:`sklearn.exceptions`).

Convergence problems use scikit-learn's own
:class:`~sklearn.exceptions.ConvergenceWarning`; what polyrank adds lives
here.
"""

from __future__ import annotations

__all__ = ["TrivialModelWarning", "NumericalError", "FeatureScaleWarning"]


class TrivialModelWarning(UserWarning):
    """A fit ended with a trivial model: every weight zero, or one predicted
    value for every training row although the targets hold several.

    The message names the reason and the remedy (a parameter to change, a
    scaler to add).  Filter it like any warning::

        warnings.simplefilter("error", TrivialModelWarning)
    """


class NumericalError(ValueError):
    """A solve met a value that is not finite (overflow, NaN) and has no
    usable model: the estimator is left unfitted.

    A subclass of :class:`ValueError`, as scikit-learn's
    :class:`~sklearn.linear_model.SGDClassifier` raises a ValueError on
    floating-point overflow; the message names the iteration, the
    objectives and the remedy (scale X, lower C).  The solver's
    :class:`~polyrank.SolverResult` (status ``"numerical failure"``) is in
    the attribute ``result``.

    Parameters
    ----------
    message : str
    result : SolverResult, optional
    """

    def __init__(self, message: str, result=None) -> None:
        super().__init__(message)
        self.result = result


class FeatureScaleWarning(UserWarning):
    """The training features are far from standardised (columns on scales
    that differ by orders of magnitude, or rows dominated by their common
    mean), which makes a dual coordinate solver crawl and lets the L2
    penalty weigh the features by their units.

    Issued before the solve starts, with the statistics that triggered it
    and the fix (``make_pipeline(StandardScaler(), Estimator())``).
    Filter it like any warning::

        warnings.simplefilter("ignore", FeatureScaleWarning)
    """
