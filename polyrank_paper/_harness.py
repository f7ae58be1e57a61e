"""What every experiment does the same way: a progress bar, a mean and
standard deviation, median timings, and the number formats of the tables.

The table layout itself is :func:`polyrank_paper.registry.format_rows`;
the single-threaded baseline under a time budget is
:mod:`polyrank_paper._baseline`.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from tqdm.auto import tqdm

__all__ = ["progress_bar", "mean_sd", "median_times", "fmt", "cpu_time", "load_average"]


def progress_bar(total: int, desc: str, enabled: bool, leave: bool = True):
    """A tqdm progress bar of ``total`` steps on stderr (disabled when not
    ``enabled``; ``leave=False`` erases it when done)."""
    return tqdm(total=total, desc=desc, disable=not enabled, file=sys.stderr,
                leave=leave, dynamic_ncols=True)


def mean_sd(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample standard deviation of the values that are not None
    (sd 0.0 for one value; (None, None) for none)."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    return float(statistics.fmean(values)), (float(statistics.stdev(values))
                                             if len(values) > 1 else 0.0)


def median_times(fn: Callable[[], object], repeats: int,
                 warmup: bool = False) -> tuple[float, float]:
    """Median wall and CPU (process) seconds of ``repeats`` calls of ``fn``,
    after one untimed call when ``warmup``.  On a shared machine the CPU time
    is the better measure of the work done by a single-threaded solver (the
    wall time includes waiting for a core)."""
    if warmup:
        fn()                                            # compile, fill caches
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def cpu_time(fn: Callable[[], object]) -> float:
    """CPU (process) seconds of one call of ``fn`` (for benches that
    interleave single calls of two peers)."""
    t = time.process_time()
    fn()
    return time.process_time() - t


def fmt(v: float | None, digits: int = 3) -> str:
    """``v`` with ``digits`` decimals; ``-`` for None (a table cell)."""
    return "-" if v is None else f"{v:.{digits}f}"


def load_average() -> float | None:
    """The 1-minute load average (printed beside a bench's times: the
    ratios of a loaded machine are read with it), None where the platform
    has none."""
    try:
        return float(os.getloadavg()[0])
    except (OSError, AttributeError):
        return None
