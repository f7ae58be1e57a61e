"""Warnings and errors of polyrank (as :mod:`sklearn.exceptions`).

Convergence problems use scikit-learn's own
:class:`~sklearn.exceptions.ConvergenceWarning`; what polyrank adds lives
here.
"""

from __future__ import annotations

__all__ = ["TrivialModelWarning"]


class TrivialModelWarning(UserWarning):
    """A fit ended with a trivial model: every weight zero, or one predicted
    value for every training row although the targets hold several.

    The message names the reason and the remedy (a parameter to change, a
    scaler to add).  Filter it like any warning::

        warnings.simplefilter("error", TrivialModelWarning)
    """
