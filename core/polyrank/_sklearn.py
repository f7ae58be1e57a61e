"""Pieces shared by the scikit-learn estimators of every paper.

The estimators are thin layers (``DESIGN.md``, "The pattern every solver
follows"): declarative ``_parameter_constraints``, one
:func:`sklearn.utils.validation.validate_data` at the boundary, then a call
to the paper's driver.  What they have in common lives here:

- :func:`log_callback`: the ``verbose`` log (one line per solver iteration,
  like LIBLINEAR's), chained in front of the user's ``callback``;
- :func:`warn_if_not_converged`: one :class:`~sklearn.exceptions.ConvergenceWarning`
  whenever a solver ends on an iteration cap or stalls, never a silent
  "converged".
"""

from __future__ import annotations

import math
import os
import sys
import warnings

import sklearn

from sklearn.exceptions import ConvergenceWarning

from .result import STATUS_CALLBACK, STATUS_CONVERGED, IterInfo

__all__ = ["log_callback", "warn_if_not_converged", "format_iter_line"]


def format_iter_line(name: str, info: IterInfo) -> str:
    """One log line for an iteration, e.g.
    ``LabelRanker iter    3  primal 1.2345e+02  dual 1.2000e+02  gap 3.45e+00  0.01 s``
    followed by the solver's extras (``name value``).

    Examples
    --------
    >>> format_iter_line("RankSVM", IterInfo(2, 0.5, 3.0, 1.0, 2.0, delta=0.25))
    'RankSVM iter     2  primal 3.0000e+00  dual 1.0000e+00  gap 2.00e+00  delta 0.25  0.50 s'
    """
    parts = [f"{name} iter {info.iteration:5d}"]
    for key, fmt in (("primal", ".4e"), ("dual", ".4e"), ("gap", ".2e")):
        value = getattr(info, key)
        if not math.isnan(value):
            parts.append(f"{key} {value:{fmt}}")
    parts += [f"{k} {v:.4g}" for k, v in info.extras.items()]
    parts.append(f"{info.time_s:.2f} s")
    return "  ".join(parts)


def log_callback(callback, verbose, name: str, file=None):
    """The callback a fit hands to its driver: the ``verbose`` log, then the
    user's ``callback``.

    Parameters
    ----------
    callback : callable or None
        The user's ``callback(info: IterInfo)``; may raise StopIteration.
    verbose : int or bool
        0/False: no log (``callback`` is returned unchanged).  ``v >= 1``:
        one line (:func:`format_iter_line`) for every ``v``-th iteration.
    name : str
        The estimator's name at the start of each line.
    file : file-like, optional
        Where the lines go (default ``sys.stdout``, as LIBLINEAR's and
        scikit-learn's logs).

    Returns
    -------
    callable or None
    """
    if not verbose:
        return callback
    every = int(verbose)

    def log(info):
        if info.iteration % every == 0:
            print(format_iter_line(name, info), file=file or sys.stdout, flush=True)
        if callback is not None:
            callback(info)

    return log


def warn_if_not_converged(estimator, res, hint: str = "") -> None:
    """Issue a ConvergenceWarning unless ``res`` converged or was stopped by
    the callback on purpose.

    Parameters
    ----------
    estimator : object
        Its class name starts the message.
    res : SolverResult
        The driver's result (``status`` and ``message`` are read).
    hint : str
        What the user can do, e.g. ``"increase max_iter or tol"``.
    """
    if res.status in (STATUS_CONVERGED, STATUS_CALLBACK):
        return
    text = f"{type(estimator).__name__}: {res.message}"
    if hint:
        text += f"; {hint}"
    warnings.warn(text, ConvergenceWarning, stacklevel=_user_stacklevel())


#: frames in these packages are not the user's line a warning should point at
_INTERNAL = tuple(os.path.dirname(m.__file__) + os.sep for m in (sklearn, sys.modules[__package__]))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` (called by our caller)
    that names the first frame outside polyrank and scikit-learn, i.e. the
    user's ``fit`` call rather than scikit-learn's ``_fit_context`` wrapper
    or a Pipeline step."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level
