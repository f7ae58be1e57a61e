"""Say so while a fit compiles numba kernels: the notice in the running cell.

The lower half of :mod:`polyrank.compiling` (which re-exports its public
names): :class:`CompileNotice`, :func:`compile_guard` (the block around every
estimator's fit, ``polyrank._sklearn``) and :class:`CompileProgress`.  It sits
below the solver subpackages (their estimators use it); the background
compile that starts worker processes for all five sits above them, in
:mod:`polyrank.compiling`, and hands its job to this module with
:func:`set_current` so that a waiting fit finds it (:func:`current`).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ._jit import _REPORTING, SOLVER_PACKAGES, kernel_dispatchers, package_of
from ._progress import _fit_panel

__all__ = ["CompileProgress", "CompileNotice", "compile_guard", "current", "set_current"]

#: the background compile of this process (a polyrank.compiling.BackgroundCompile), if any
_CURRENT: Any = None


def current() -> Any:
    """The :class:`polyrank.compiling.BackgroundCompile` started by
    :func:`polyrank.compiling.compile_in_background` in this process, or None."""
    return _CURRENT


def set_current(job: Any) -> None:
    """Make ``job`` (a :class:`polyrank.compiling.BackgroundCompile` or None)
    the background compile that fits wait for (see :func:`current`)."""
    global _CURRENT
    _CURRENT = job


def _head(package: str) -> str:
    return (f"compiling the numba kernels of polyrank.{package} (first use only; "
            "cached for later sessions)")


@dataclass(frozen=True)
class CompileProgress:
    """Where the compilation of one package's kernels stands.

    Attributes
    ----------
    package : str
        One of ``polyrank._jit.SOLVER_PACKAGES``.
    done : int
        Kernels compiled so far.
    total : int or None
        Kernels to compile (None: not known).
    exact : bool
        Whether ``total`` is known (a background worker compiles the
        package's kernels that are not in the cache); False for a fit that
        compiles itself (only the kernels it calls: ``"k compiled"``).
    elapsed_s : float
        Seconds since the compilation of this package started (0 while queued).
    eta_s : float or None
        Estimated seconds left, from the rates measured so far in this
        session; None before anything was measured.
    queued : bool
        Waiting for a worker.
    """

    package: str
    done: int
    total: int | None
    exact: bool
    elapsed_s: float
    eta_s: float | None
    queued: bool = False

    def text(self) -> str:
        """The one-line report, e.g. ``"compiling the numba kernels of
        polyrank.sign (first use only; cached for later sessions): 3 of 12,
        ~9 s left"``."""
        parts = []
        if self.queued:
            parts.append("waiting for a worker")
        elif self.exact and self.total is not None:
            parts.append(f"{self.done} of {self.total}")
        elif not self.exact:
            parts.append(f"{self.done} compiled")
        if self.eta_s is not None:
            parts.append(f"~{math.ceil(self.eta_s)} s left")
        elif not self.queued:
            parts.append(f"{self.elapsed_s:.0f} s so far")
        return f"{_head(self.package)}: {', '.join(parts)}"


class _KernelCounter:
    """Counts the distinct dispatchers of ``ids`` whose compile ended, and
    calls ``on_first`` when the first one of ``watch`` starts (a numba
    ``Listener``, made by ``_listener()``)."""

    def __init__(self, ids: set | frozenset, on_end: Callable[[int], object],
                 on_first: Callable[[], object] | None = None) -> None:
        self.ids = ids
        self.done: set = set()
        self.on_end = on_end
        self.on_first = on_first
        self.started = False

    def start(self, dispatcher) -> None:
        if not self.started and id(dispatcher) in self.ids:
            self.started = True
            if self.on_first is not None:
                self.on_first()

    def end(self, dispatcher) -> None:
        key = id(dispatcher)
        if key in self.ids and key not in self.done:
            self.done.add(key)
            self.on_end(len(self.done))


def _listener(counter: _KernelCounter):
    """A ``numba.core.event.Listener`` feeding ``counter``."""
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            counter.start((ev.data or {}).get("dispatcher"))

        def on_end(self, ev):
            counter.end((ev.data or {}).get("dispatcher"))

    return Listener()


@contextlib.contextmanager
def _counting(counter: _KernelCounter) -> Iterator[None]:
    """Feed ``counter`` with numba's compile events while the block runs."""
    from numba.core import event

    with event.install_listener("numba:compile", _listener(counter)):
        yield


#: (package, number of imported modules) -> :func:`_package_dispatcher_ids`:
#: the scan of ``sys.modules`` cost 0.3 ms, a third of a warm fit on a path
_DISPATCHER_IDS: dict = {}


def _package_dispatcher_ids(package: str) -> frozenset:
    """ids of every numba dispatcher of ``polyrank.<package>``: its
    ``_kernels`` (the rare variants' too) and the other modules of the
    package imported so far (such as ``polyrank.ranksvm._dcd``).  Kept
    while no module is imported (a reload is not seen: its compiles would
    go unreported, nothing else)."""
    from numba.core.dispatcher import Dispatcher

    key = (package, len(sys.modules))
    kept = _DISPATCHER_IDS.get(key)
    if kept is not None:
        return kept
    ids = {id(d) for d in kernel_dispatchers(package, rare=True)}
    prefix = f"polyrank.{package}."
    for name, mod in list(sys.modules.items()):
        if name.startswith(prefix) and mod is not None:
            ids.update(id(v) for v in vars(mod).values() if isinstance(v, Dispatcher))
    _DISPATCHER_IDS[key] = frozen = frozenset(ids)
    return frozen





def _bars_enabled() -> bool:
    return os.environ.get("POLYRANK_PROGRESS", "1") != "0"


class _Bar:
    """``notify`` of a fit's :class:`CompileNotice`: a ``tqdm.auto`` bar
    (a widget in a notebook: the bar, then the text; one line on stderr in
    a terminal) updated in place and removed when the compile ends;
    nothing with ``POLYRANK_PROGRESS=0``."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.lock = threading.Lock()

    def __call__(self, progress: CompileProgress | None) -> None:
        with self.lock:
            if progress is None:
                if self.bar is not None:
                    self.bar.close()
                    self.bar = None
                return
            if not _bars_enabled():
                return
            total = max(progress.total or 1, 1)
            bar = self.bar = self.bar if self.bar is not None else _new_bar(total)
            if bar.total != total:
                bar.reset(total=total)
            bar.n = min(progress.done, total)
            bar.set_description_str(progress.text(), refresh=True)


def _new_bar(total: int):
    """A tqdm.auto bar showing its description (and, in a notebook, the bar)."""
    from tqdm.auto import tqdm

    notebook = tqdm.__module__.startswith("tqdm.notebook")
    bar = tqdm(total=total, bar_format="{bar}{desc}" if notebook else "{desc}",
               leave=False, dynamic_ncols=True)
    return _fit_panel(bar)


class CompileNotice:
    """Context manager: while its block runs (a fit), report the compilation
    of ``polyrank.<package>``'s numba kernels, if (and only if) some compile.

    Two cases: a background worker (:func:`compile_in_background`) compiles
    the package, and the block waits for it (:meth:`wait`, called by
    :func:`compile_guard`): "k of n" kernels, the time left estimated from
    the rates measured so far; or the block itself compiles: from the first
    ``numba:compile`` event of one of the package's kernels on, "k compiled"
    and the seconds so far (no total, no time left: the block compiles only
    the kernels it calls, for the types it passes, an unknown part).  With a
    warm cache nothing is reported.

    Parameters
    ----------
    package : str or None
        One of ``polyrank._jit.SOLVER_PACKAGES``; None makes the notice a no-op.
    notify : callable or None, default=None
        ``notify(message: str)``, called at the start, every ``interval_s``
        seconds (from a daemon thread: it must be thread-safe; ``print`` and
        setting an ipywidget's value are) and at the end ("compiled ... in
        t s"); None: a ``tqdm.auto`` bar in the running cell, or on
        stderr in a terminal, removed at the end.
    interval_s : float, default=1.0
        Seconds between two reports.

    Attributes
    ----------
    compiling : bool
        Whether a compile was reported.
    seconds : float
        Time spent in the block.

    Examples
    --------
    >>> msgs = []
    >>> with CompileNotice("sopopo", msgs.append) as notice:
    ...     pass                 # a fit would go here
    >>> notice.compiling == bool(msgs)
    True
    """

    def __init__(self, package: str | None, notify: Callable[[str], object] | None = None,
                 *, interval_s: float = 1.0) -> None:
        if package is not None and package not in SOLVER_PACKAGES:
            raise ValueError(f"package: expected None or one of {SOLVER_PACKAGES}, "
                             f"got {package!r}")
        self.package = package
        self.notify = notify
        self._bar = _Bar() if notify is None else None
        self.interval_s = float(interval_s)
        self.compiling = False
        self.seconds = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._job: Any = None
        self._counter: _KernelCounter | None = None
        self._t_first = math.nan
        self._exits = contextlib.ExitStack()

    # ------------------------------------------------------------ reports
    def progress(self) -> CompileProgress | None:
        """The progress now (None when nothing compiles)."""
        if not self.compiling or self.package is None:
            return None
        if self._job is not None:
            return self._job.progress(self.package)
        # neither a total nor the time left: the fit compiles the kernels it
        # calls for the types it passes, an unknown part of the package's
        # (new type specialisations of kernels in the cache too)
        done = len(self._counter.done) if self._counter is not None else 0
        elapsed = time.perf_counter() - self._t_first
        return CompileProgress(self.package, done, None, False, elapsed, None)

    def _report(self) -> None:
        progress = self.progress()
        if progress is None:
            return
        try:
            if self._bar is not None:
                self._bar(progress)
            elif self.notify is not None:
                self.notify(progress.text())
        except Exception:        # a closed widget must not kill the fit
            self._stop.set()

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._report()

    def _begin(self) -> None:
        """Start reporting: one report now (in the calling thread: a bar
        shows in the running cell), then every ``interval_s`` seconds."""
        self.compiling = True
        self._report()
        self._thread = threading.Thread(target=self._tick, daemon=True,
                                        name="polyrank-compile-notice")
        self._thread.start()

    def _first_compile(self) -> None:
        """The block compiles a kernel of the package (called by numba's
        event, in the compiling thread)."""
        self._t_first = time.perf_counter()
        self._begin()

    # ------------------------------------------------------------ block
    def __enter__(self) -> CompileNotice:
        self._t0 = time.perf_counter()
        if self.package is None:
            return self
        self._exits.callback(_REPORTING.reset, _REPORTING.set(self.package))
        job = current()
        if job is not None and job.pending(self.package):
            self._job = job
            job.prioritize(self.package)
            self._begin()
            return self
        self._watch_here()
        return self

    def _watch_here(self) -> None:
        """Count the compiles of the package's kernels in this process (its
        rare variants' too: those no warm-up compiles by default)."""
        assert self.package is not None
        ids = _package_dispatcher_ids(self.package)
        self._counter = _KernelCounter(ids, lambda k: None, self._first_compile)
        self._exits.enter_context(_counting(self._counter))

    def wait(self) -> bool:
        """Wait for the background worker compiling the package, if any;
        True if the kernels are in the cache now (or nothing compiles).  From
        then on the block's own compiles are reported (a rare variant, which
        the worker does not compile, or all of them if the worker failed)."""
        if self._job is None or self.package is None:
            return True
        ok = self._job.wait(self.package)
        # after a compile that ended well the block still says so at its end
        self._job, self.compiling = None, ok
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._stop.clear()
        self._thread = None
        if self._bar is not None:
            self._bar(None)
        self._watch_here()
        return ok

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self._t0
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._exits.close()
        if self._bar is not None:
            self._bar(None)
        elif self.compiling and exc[0] is None and self.notify is not None:
            with contextlib.suppress(Exception):
                self.notify(f"compiled the numba kernels of polyrank.{self.package} in "
                            f"{self.seconds:.1f} s (first use only; later sessions load "
                            "them from the cache)")


@contextlib.contextmanager
def compile_guard(estimator) -> Iterator[None]:
    """The block around every estimator's fit: wait for a background worker
    compiling the estimator's package, and report any compile (see
    :class:`CompileNotice`) in the running cell or on stderr.

    Inside a :class:`CompileNotice` of the same package (a widget reporting
    in its status line) the guard only waits.  For estimators outside the
    five solver packages it does nothing.

    Parameters
    ----------
    estimator : object
        The estimator being fitted (its package from its module,
        ``polyrank._jit.package_of``).
    """
    package = package_of(estimator)
    if package is None:
        yield
        return
    if _REPORTING.get() == package:
        job = current()
        if job is not None and job.pending(package):
            job.wait(package)
        yield
        return
    with CompileNotice(package) as notice:
        notice.wait()
        yield
