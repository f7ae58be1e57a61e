"""Signs of life during long fits (issue 28, item 4).

An estimator's ``fit`` with ``verbose`` set runs its driver inside
:func:`verbosity`; the long phases of the drivers that happen before the
first iteration line (a Gram matrix of tens of thousands of rows, the exact
dual gradient of a kernel solver, a decomposition with millions of pieces)
wrap their loops in :func:`progress`, a :class:`tqdm.tqdm` bar on stderr
that is shown only then.  The verbosity is a :class:`contextvars.ContextVar`,
so that the drivers keep their signatures and a fit in another thread (the
widgets' background refits) does not turn on bars in this one.
"""

from __future__ import annotations

import contextlib
import contextvars

from tqdm import tqdm

__all__ = ["verbosity", "progress", "is_verbose"]

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
    if not _VERBOSE.get():
        return iterable
    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False,
                mininterval=0.5, dynamic_ncols=True)
