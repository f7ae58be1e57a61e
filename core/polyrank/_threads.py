"""``n_jobs`` for numba-parallel kernels: the scikit-learn convention turned
into a number of numba threads, and a context that runs kernels on that many
threads and restores the caller's setting afterwards.

numba's thread count (:func:`numba.set_num_threads`) is a per-thread
setting; it is set only around each parallel kernel call, under a lock, so
that two Python threads never launch parallel kernels at once (numba's
default ``workqueue`` threading layer does not allow concurrent launches).
"""

from __future__ import annotations

import numbers
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numba

__all__ = ["resolve_n_jobs", "numba_threads"]

_LOCK = threading.RLock()


def _max_threads() -> int:
    """The most threads numba may run (``NUMBA_NUM_THREADS``, by default
    the number of CPUs)."""
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def resolve_n_jobs(n_jobs, name: str = "n_jobs") -> int:
    """The number of numba threads for an ``n_jobs`` argument.

    scikit-learn's convention: None means 1, -1 all CPUs, -2 all but one
    (``cpus + 1 + n_jobs``, at least 1, as joblib counts).  A positive
    value above the threads numba may run (``NUMBA_NUM_THREADS``, by
    default the number of CPUs) is capped there.

    Parameters
    ----------
    n_jobs : int or None
    name : str
        The argument's name, for the error messages.

    Returns
    -------
    int
        The threads to use, >= 1.

    Raises
    ------
    TypeError
        If ``n_jobs`` is not None or an int (bools are rejected).
    ValueError
        If ``n_jobs`` is 0.

    Examples
    --------
    >>> resolve_n_jobs(None), resolve_n_jobs(1)
    (1, 1)
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"{name}: expected None or an int, got {type(n_jobs).__name__}")
    n = int(n_jobs)
    if n == 0:
        raise ValueError(f"{name}: must not be 0 (None or 1: one thread; -1: all CPUs)")
    cpus = os.cpu_count() or 1
    if n < 0:
        n = max(cpus + 1 + n, 1)
    return min(n, _max_threads())


@contextmanager
def numba_threads(n: int) -> Iterator[None]:
    """Run the numba-parallel kernels called inside on ``n`` threads.

    Holds a process-wide lock (parallel kernels never run from two Python
    threads at once) and restores the calling thread's numba thread count on
    exit.

    Parameters
    ----------
    n : int
        Threads, from :func:`resolve_n_jobs` (capped at ``NUMBA_NUM_THREADS``).
    """
    with _LOCK:
        old = numba.get_num_threads()
        numba.set_num_threads(max(1, min(int(n), _max_threads())))
        try:
            yield
        finally:
            numba.set_num_threads(old)
