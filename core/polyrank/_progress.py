"""Signs of life during long fits (issue 28, item 4).

An estimator's ``fit`` with ``verbose`` set runs its driver inside
:func:`verbosity`; the long phases of the drivers that happen before the
first iteration line (a Gram matrix of tens of thousands of rows, the exact
dual gradient of a kernel solver, a decomposition with millions of pieces)
wrap their loops in :func:`progress`, a :class:`tqdm.tqdm` bar on stderr
that is shown only then.  The verbosity is a :class:`contextvars.ContextVar`,
so that the drivers keep their signatures and a fit in another thread (the
widgets' background refits) does not turn on bars in this one.

In a Jupyter notebook a fit that runs longer than :data:`NOTEBOOK_DELAY_S`
shows a :mod:`tqdm.auto` bar without being asked (issue 30, item 3):
:func:`progress` bars of the long phases, and :func:`fit_bar`, the bar of
the iterations of a solver whose stopping rule is a projected gradient
falling to ``tol``.  With ``verbose`` the iterations print lines instead
(:func:`polyrank._sklearn.log_callback`) and the long phases a line when
they end (:func:`note`).  ``POLYRANK_PROGRESS=0`` in the environment turns
the notebook bars off.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import sys

from tqdm import tqdm
from tqdm.auto import tqdm as tqdm_auto

__all__ = ["verbosity", "progress", "is_verbose", "in_notebook", "note", "fit_bar",
           "NOTEBOOK_DELAY_S"]

#: seconds a fit runs in a notebook before its bar appears
NOTEBOOK_DELAY_S = 3.0


def _fit_panel(bar):
    """Let a notebook bar (tqdm.notebook: an HBox of text, bar, text) wrap
    its text under the bar when the panel is narrow instead of running past
    its right edge (issue 34); other bars are returned unchanged."""
    box = getattr(bar, "container", None)
    layout = getattr(box, "layout", None)
    if layout is not None:
        layout.flex_flow = "row wrap"
        layout.max_width = "100%"
    return bar

_VERBOSE: contextvars.ContextVar[int] = contextvars.ContextVar("polyrank_verbose",
                                                               default=0)


@contextlib.contextmanager
def verbosity(level):
    """Run the body with progress bars on (``level`` true) or off.

    Parameters
    ----------
    level : int or bool
        An estimator's ``verbose``.
    """
    token = _VERBOSE.set(int(bool(level)))
    try:
        yield
    finally:
        _VERBOSE.reset(token)


def is_verbose() -> bool:
    """Whether the current fit asked for progress output."""
    return bool(_VERBOSE.get())


def progress(iterable, *, total: int | None = None, desc: str, unit: str = "it"):
    """``iterable`` itself, or wrapped in a tqdm bar when the current fit is
    verbose (:func:`verbosity`).

    Parameters
    ----------
    iterable : iterable
        The loop of the long phase.
    total : int, optional
        Its length, if ``len(iterable)`` does not give it.
    desc : str
        What is being done, e.g. ``"M3L Gram matrix (60,000 rows)"``.
    unit : str
        The unit of one step.

    Returns
    -------
    iterable
    """
    if _VERBOSE.get():
        return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False,
                    mininterval=0.5, dynamic_ncols=True)
    if in_notebook():
        return _fit_panel(tqdm_auto(iterable, total=total, desc=desc, unit=unit,
                                    leave=False, mininterval=0.5, delay=NOTEBOOK_DELAY_S))
    return iterable


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (an IPython shell of the
    ZMQ kind) with the notebook bars not turned off by
    ``POLYRANK_PROGRESS=0``."""
    if os.environ.get("POLYRANK_PROGRESS", "1") == "0" or "ipykernel" not in sys.modules:
        return False
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def note(message: str, file=None) -> None:
    """Print ``message`` as a progress line when the current fit is verbose.

    Parameters
    ----------
    message : str
        One line, e.g. ``"M3LClassifier: Gram matrix 20,000 x 20,000 in 5.1 s"``.
    file : file-like, optional
        Default ``sys.stdout`` (where the iteration lines go).
    """
    if _VERBOSE.get():
        print(message, file=file or sys.stdout, flush=True)


class _FitBar:
    """The callback of :func:`fit_bar`: a percentage bar of
    log(pg_0 / pg) / log(pg_0 / tol), pg being the iteration's extra
    ``max_pg`` and pg_0 the first one seen (the decades of the stopping
    rule done), with the gap as postfix; then the wrapped callback."""

    def __init__(self, callback, desc: str, tol: float) -> None:
        self.callback = callback
        self.tol = float(tol)
        self.first = math.nan
        self.bar = _fit_panel(tqdm_auto(
            total=100, desc=desc, unit="%", leave=False, delay=NOTEBOOK_DELAY_S,
            mininterval=0.5, bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}"))

    def __call__(self, info) -> None:
        pg = float(info.extras.get("max_pg", math.nan))
        if math.isnan(self.first) and pg > self.tol:
            self.first = pg
        if pg > 0 and self.first > self.tol:
            done = math.log(self.first / max(pg, self.tol)) / math.log(self.first / self.tol)
            self.bar.n = int(100 * min(1.0, max(0.0, done)))
        self.bar.set_postfix_str(f"iter {info.iteration}, max pg {pg:.3g}, gap {info.gap:.3g}",
                                 refresh=False)
        self.bar.refresh()
        if self.callback is not None:
            self.callback(info)

    def close(self) -> None:
        """Remove the bar."""
        self.bar.close()


def fit_bar(callback, desc: str, tol: float):
    """``(callback, bar)``: in a notebook, when the fit is not verbose, a
    callback that moves a :mod:`tqdm.auto` bar (shown once the fit has run
    :data:`NOTEBOOK_DELAY_S`) and then calls ``callback``, and the bar to
    ``close()`` when the fit ends; otherwise ``(callback, None)``.

    Parameters
    ----------
    callback : callable or None
        The fit's callback (the verbose log and the user's).
    desc : str
        What is fitted, e.g. ``"M3LClassifier (20,000 x 14)"``.
    tol : float
        The tolerance the solver's largest projected gradient (the
        iterations' extra ``max_pg``) must fall below: the bar's 100 %.

    Returns
    -------
    (callable or None, object with close() or None)
    """
    if _VERBOSE.get() or not in_notebook():
        return callback, None
    bar = _FitBar(callback, desc, tol)
    return bar, bar
