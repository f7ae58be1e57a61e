"""Memory up front: estimate the bytes of a large allocation and refuse it
before it starts when the machine cannot hold it (issue 28, item 4).

A decomposition of a preference graph with thousands of labels, a Gram
matrix of tens of thousands of rows or an oversized kernel cache is
refused with a :class:`MemoryError` that names its size in GB, the memory
available and the remedy, instead of allocating for minutes and dying with
a bare ``MemoryError`` (or being killed by the kernel's OOM killer).

The memory available is the smallest of Linux's ``MemAvailable``
(``/proc/meminfo``), the free room under a cgroup limit (v2
``memory.max - memory.current``, v1 ``limit_in_bytes - usage_in_bytes``)
and, elsewhere, ``os.sysconf("SC_AVPHYS_PAGES")`` pages.  Where none of them
can be read, nothing is refused.
"""

from __future__ import annotations

import os

__all__ = ["available_bytes", "check_allocation", "format_bytes", "memory_budget"]

_GB = 1024.0 ** 3


def format_bytes(nbytes: float) -> str:
    """``nbytes`` in GB (or MB below 0.1 GB), for messages.

    Examples
    --------
    >>> format_bytes(3 * 1024 ** 3), format_bytes(5 * 1024 ** 2)
    ('3.0 GB', '5.0 MB')
    """
    if nbytes >= 0.1 * _GB:
        return f"{nbytes / _GB:.1f} GB"
    return f"{nbytes / 1024 ** 2:.1f} MB"


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room() -> int | None:
    limit = _read_int("/sys/fs/cgroup/memory.max")
    if limit is not None:
        used = _read_int("/sys/fs/cgroup/memory.current") or 0
        return max(limit - used, 0)
    limit = _read_int("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    if limit is not None and limit < 1 << 60:          # "no limit" is a huge number
        used = _read_int("/sys/fs/cgroup/memory/memory.usage_in_bytes") or 0
        return max(limit - used, 0)
    return None


def available_bytes() -> int | None:
    """The bytes of memory a new allocation can use now, or None if the
    platform does not say.

    Returns
    -------
    int or None
        The smallest of the readings named in the module docstring.
    """
    readings = [r for r in (_meminfo_available(), _cgroup_room()) if r is not None]
    if not readings:
        try:
            readings = [os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")]
        except (ValueError, OSError, AttributeError):
            return None
    return min(readings)


def check_allocation(nbytes: float, what: str, remedy: str) -> None:
    """Refuse an allocation of ``nbytes`` that exceeds the memory available.

    Parameters
    ----------
    nbytes : float
        The estimated size of what is about to be allocated, in bytes.
    what : str
        What it is, e.g. ``"the 60,000 x 60,000 Gram matrix (float32)"``.
    remedy : str
        What the user can change, e.g. ``"use kernel='linear'"``.

    Raises
    ------
    MemoryError
        If ``nbytes`` is larger than :func:`available_bytes` (when known);
        the message names ``what``, both sizes and ``remedy``.

    Examples
    --------
    >>> check_allocation(1024, "a small array", "none needed")
    >>> check_allocation(2.0 ** 70, "a huge array", "ask for less")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    MemoryError: a huge array needs 1099511627776.0 GB, more than the ... GB available; ask for less
    """
    avail = available_bytes()
    if avail is None or nbytes <= avail:
        return
    raise MemoryError(f"{what} needs {format_bytes(nbytes)}, more than the "
                      f"{format_bytes(avail)} available; {remedy}")


def memory_budget(fraction: float, floor: float, cap: float) -> float:
    """A working-memory budget in bytes sized from the memory available now:
    ``fraction`` of :func:`available_bytes`, at most ``cap`` and at least
    ``floor`` (``floor`` itself where the platform does not say).

    What a kernel cache sized "from the machine" uses (issue 30, item 3),
    where LIBSVM takes a fixed ``cache_size`` (100 MB; scikit-learn's SVC
    200 MB).

    Parameters
    ----------
    fraction : float
        Share of the available memory, in (0, 1].
    floor, cap : float
        Bounds of the budget in bytes (0 < floor <= cap).

    Returns
    -------
    float
        Bytes.

    Raises
    ------
    ValueError
        If ``fraction`` is not in (0, 1] or the bounds are not 0 < floor <= cap.

    Examples
    --------
    >>> 2e8 <= memory_budget(0.5, 2e8, 16 * 1024 ** 3) <= 16 * 1024 ** 3
    True
    """
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction: expected a share in (0, 1], got {fraction!r}")
    if not 0.0 < floor <= cap:
        raise ValueError(f"floor, cap: expected 0 < floor <= cap, got {floor!r}, {cap!r}")
    avail = available_bytes()
    if avail is None:
        return float(floor)
    return float(min(cap, max(floor, fraction * avail)))
