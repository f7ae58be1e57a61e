"""Compile the numba kernels early, and say so where the user waits (issue 41, item 3).

On a fresh install (an empty numba cache) every solver package compiles its
kernels on first use: seconds to a minute per package on a small machine.
This module makes that wait short and honest:

- :func:`compile_in_background` starts compiling the kernels of every
  package that is not in numba's on-disk cache yet, in worker processes
  (``python -c``: one per core, at most two), and returns at once.  The
  workers write the kernels to the cache; the notebook or script goes on
  (loading data, drawing) while they compile.  Packages are compiled in the
  order the tour uses them, and a fit that waits for a package moves it to
  the front of the queue.
- every estimator's ``fit`` (``polyrank._sklearn.fit_context``) runs in
  :func:`compile_guard`: when a background worker compiles (or will compile)
  the estimator's package, the fit waits for it (no second compile in this
  process) and then loads the kernels from the cache; when nothing does and
  the fit itself compiles, it says so.  Either way the waiting cell (or the
  terminal, on stderr) shows one line, updated in place::

      compiling the numba kernels of polyrank.sopopo (first use only; cached for
      later sessions): 12 of 41, ~20 s left

  with the time left estimated from what was measured so far in this session
  (the seconds per kernel of the packages and kernels already compiled), and
  only when a kernel really compiles: with a warm cache nothing is shown.
- :class:`CompileNotice` is the same report for any callable (the widgets put
  it in their status line).

Progress is counted in kernels: a worker counts the ends of numba's
``numba:compile`` events (its documented event API) of its package's
kernels; a fit that compiles in this process (no background worker: a
script, ``polyrank train``; or a type specialisation the worker did not
compile) counts them the same way, "k compiled", with the seconds so far
and no estimate of the time left (a fit compiles only the kernels it calls,
for the types it passes: an unknown part).

The background half lives here, above the five solver subpackages (it
imports them: they register their kernels with ``polyrank._jit``); the
notice each fit shows lives below them, in ``polyrank._compile_notice``,
whose public names this module re-exports.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from . import _compile_notice
from ._compile_notice import (
    CompileNotice,
    CompileProgress,
    _counting,
    _KernelCounter,
    compile_guard,
    current,
)
from ._jit import SOLVER_PACKAGES, _is_cached, compile_state, kernel_dispatchers, package_of
from ._warmup_all import _warm_package

__all__ = ["compile_in_background", "BackgroundCompile", "CompileProgress", "CompileNotice",
           "compile_guard", "current", "package_of"]

#: the order in which the background workers take the packages: the tour's
PACKAGE_ORDER = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")
#: the first line a worker protocol message starts with (other output is ignored)
_TAG = "@polyrank-compile"


@dataclass
class _Package:
    """A package's state in a :class:`BackgroundCompile` (under its lock)."""

    name: str
    status: str = "queued"           # queued, running, done, failed
    total: int | None = None
    done: int = 0
    started: float = math.nan
    ended: float = math.nan
    error: str = ""


def _resolve_workers(n_jobs) -> int:
    if n_jobs is None:
        return max(1, min(2, os.cpu_count() or 1))
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs: expected None, a positive int or -1, got {n_jobs!r}")
    return os.cpu_count() or 1 if n_jobs == -1 else n_jobs


class BackgroundCompile:
    """Worker processes that compile solver packages into numba's on-disk cache.

    Made by :func:`compile_in_background`; one per process at a time
    (:func:`current`).  Each worker is ``python -c`` running
    ``_worker_main()``: it reads package names on stdin, compiles each
    (``polyrank.<package>._warmup()``) and reports ``start`` (kernels to
    compile), ``kernel`` (kernels done) and ``done`` lines on stdout.  A
    thread per worker hands it the next package of the queue and reads its
    reports.  The workers are this process's children; they end when the
    queue is empty, or at :meth:`close` (terminated by their PIDs).

    Parameters
    ----------
    packages : sequence of str
        The packages to compile, in order.
    n_workers : int
        Worker processes (at most one per package).
    totals : dict or None
        ``{package: kernels to compile}`` as this process sees the cache
        (the "n" of "k of n" until the worker reports its own count).

    Attributes
    ----------
    packages : tuple of str
        The packages handed to the workers.
    n_workers : int
    """

    def __init__(self, packages, n_workers: int, totals: dict | None = None) -> None:
        self.packages = tuple(packages)
        self.n_workers = max(0, min(int(n_workers), len(self.packages)))
        self._state = {p: _Package(p, total=(totals or {}).get(p)) for p in self.packages}
        self._queue = list(self.packages)
        self._cond = threading.Condition()
        self._procs: list[subprocess.Popen] = []
        self._threads: list[threading.Thread] = []
        self.started = time.perf_counter()

    # ------------------------------------------------------------ workers
    def start(self) -> BackgroundCompile:
        """Start the workers (returns at once); they are stopped when this
        process exits (:meth:`close`, registered with :mod:`atexit`)."""
        if self.n_workers:
            atexit.register(self.close)
        for i in range(self.n_workers):
            proc = subprocess.Popen(
                [sys.executable, "-c", "from polyrank.compiling import _worker_main; "
                 "_worker_main()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1)
            self._procs.append(proc)
            t = threading.Thread(target=self._serve, args=(proc,), daemon=True,
                                 name=f"polyrank-compile-{i}")
            self._threads.append(t)
            t.start()
        return self

    def _next(self) -> _Package | None:
        with self._cond:
            if not self._queue:
                return None
            pkg = self._state[self._queue.pop(0)]
            pkg.status, pkg.started = "running", time.perf_counter()
            self._cond.notify_all()
            return pkg

    def _serve(self, proc: subprocess.Popen) -> None:
        """Feed ``proc`` packages until the queue is empty or it dies."""
        assert proc.stdin is not None and proc.stdout is not None
        try:
            while (pkg := self._next()) is not None:
                try:
                    proc.stdin.write(pkg.name + "\n")
                    proc.stdin.flush()
                except OSError:
                    self._end(pkg, "failed", "the worker process exited")
                    break
                if not self._read_reports(proc, pkg):
                    self._end(pkg, "failed", f"the worker process exited ({proc.poll()})")
                    break
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()           # the worker ends at the end of its input
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(60)                # reaped: no zombie
            self._fail_if_orphaned()

    def _read_reports(self, proc: subprocess.Popen, pkg: _Package) -> bool:
        """Read ``proc``'s reports on ``pkg`` until it is done; False if the
        worker died first."""
        assert proc.stdout is not None
        for line in proc.stdout:
            parts = line.split()
            if len(parts) < 3 or parts[0] != _TAG or parts[2] != pkg.name:
                continue                     # a stray print of the worker
            kind, value = parts[1], " ".join(parts[3:])
            with self._cond:
                if kind == "start":       # the worker imported polyrank: its rate from now
                    pkg.total, pkg.started = int(value), time.perf_counter()
                elif kind == "kernel":
                    pkg.done = int(value)
                self._cond.notify_all()
            if kind in ("done", "error"):
                self._end(pkg, "done" if kind == "done" else "failed", value)
                return True
        return False

    def _end(self, pkg: _Package, status: str, detail: str) -> None:
        with self._cond:
            pkg.status, pkg.ended = status, time.perf_counter()
            if status == "done":
                pkg.done = pkg.total if pkg.total is not None else pkg.done
            else:
                pkg.error = detail
            self._cond.notify_all()

    def _fail_if_orphaned(self) -> None:
        """When the last worker is gone, mark the packages still queued as
        failed (a fit waiting for one then compiles it itself)."""
        with self._cond:
            alive = sum(t.is_alive() and t is not threading.current_thread()
                        for t in self._threads)
            if alive == 0:
                for name in self._queue:
                    self._state[name].status = "failed"
                    self._state[name].error = "no worker left"
                self._queue.clear()
            self._cond.notify_all()

    # ------------------------------------------------------------ queries
    def pending(self, package: str) -> bool:
        """Whether ``package`` is queued or being compiled by a worker."""
        with self._cond:
            pkg = self._state.get(package)
            return pkg is not None and pkg.status in ("queued", "running")

    def prioritize(self, package: str) -> None:
        """Hand ``package`` to the next free worker (a fit waits for it)."""
        with self._cond:
            if package in self._queue:
                self._queue.remove(package)
                self._queue.insert(0, package)

    def _seconds_per_kernel(self, now: float) -> float | None:
        """Worker seconds per kernel measured so far (finished packages and
        the kernels done of running ones); None before any kernel."""
        seconds = kernels = 0.0
        for pkg in self._state.values():
            if pkg.status == "done" and pkg.total:
                seconds += pkg.ended - pkg.started
                kernels += pkg.total
            elif pkg.status == "running" and pkg.done:
                seconds += now - pkg.started
                kernels += pkg.done
        return seconds / kernels if kernels else None

    def _left(self, pkg: _Package, now: float, rate: float | None) -> float | None:
        """Estimated seconds until running package ``pkg`` is done: from its
        own seconds per kernel once 3 are done, before that from the
        session's (``rate``), if any."""
        if pkg.total is None:
            return None
        if pkg.done >= 3 or (pkg.done and rate is None):
            return (now - pkg.started) * (pkg.total - pkg.done) / pkg.done
        if rate is not None:
            return rate * (pkg.total - pkg.done)
        return None

    def progress(self, package: str) -> CompileProgress:
        """The :class:`CompileProgress` of ``package``.

        Raises
        ------
        ValueError
            If ``package`` is not one this object compiles.
        """
        if package not in self._state:
            raise ValueError(f"package: expected one of {self.packages}, got {package!r}")
        now = time.perf_counter()
        with self._cond:
            pkg = self._state[package]
            rate = self._seconds_per_kernel(now)
            if pkg.status == "queued":
                running = [self._left(p, now, rate) for p in self._state.values()
                           if p.status == "running"]
                known = [t for t in running if t is not None]
                free = min(known) if known else (None if running else 0.0)
                own = None if rate is None or pkg.total is None else rate * pkg.total
                eta = None if free is None or own is None else free + own
                return CompileProgress(package, 0, pkg.total, True, 0.0, eta, queued=True)
            elapsed = (pkg.ended if pkg.status != "running" else now) - pkg.started
            eta = self._left(pkg, now, rate) if pkg.status == "running" else 0.0
            return CompileProgress(package, pkg.done, pkg.total, True, elapsed, eta)

    def wait(self, package: str, timeout: float | None = None) -> bool:
        """Wait until ``package`` is compiled (moving it to the front of the
        queue); True if it is in the cache now, False if its worker failed
        or ``timeout`` seconds passed."""
        self.prioritize(package)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._state[package].status in ("queued", "running"):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.5 if left is None else min(left, 0.5))
            return self._state[package].status == "done"

    def close(self) -> None:
        """Stop the workers (by their PIDs); packages not compiled yet are
        compiled by the fits that need them."""
        with self._cond:
            self._queue.clear()
        for proc in self._procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self._procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)

    def __repr__(self) -> str:
        with self._cond:
            states = ", ".join(f"{p.name} {p.status}" for p in self._state.values())
        return (f"<BackgroundCompile of polyrank's numba kernels in {self.n_workers} worker "
                f"processes: {states or 'nothing to compile'}>")


#: guards the background compilation of this process (``current()``)
_CURRENT_LOCK = threading.Lock()


def _cold_packages(packages) -> dict[str, int]:
    """``{package: kernels to compile}`` of the packages some of whose
    kernels are neither loaded nor in the cache (or cannot be told)."""
    states = [compile_state(p) for p in packages]
    return {s.package: s.n_to_compile + s.n_unknown for s in states
            if s.needs_compiling is not False}


def compile_in_background(packages=None, n_jobs: int | None = None,
                          verbose: bool = False) -> BackgroundCompile:
    """Start compiling the numba kernels of the packages not in the cache yet,
    in worker processes; returns at once.

    A fit of an estimator whose package a worker compiles waits for it and
    shows "compiling the numba kernels of polyrank.X (first use only; cached
    for later sessions): k of n, ~t s left" in the running cell (or on
    stderr); then it loads the kernels from the cache.  With every kernel in
    the cache no worker is started and nothing is shown.  Calling it again
    while workers run returns the same object.

    Parameters
    ----------
    packages : sequence of str or None, default=None
        Packages of ``polyrank._jit.SOLVER_PACKAGES``; None: all five, in
        the tour's order (``sopopo, sign, ranksvm, ordinal, m3l``).
    n_jobs : int or None, default=None
        Worker processes: None one per core, at most two; -1 one per core.
    verbose : bool, default=False
        Print one line naming the packages it compiles (nothing when none).

    Returns
    -------
    BackgroundCompile
        Its ``packages`` are those being compiled (empty with a warm cache).

    Raises
    ------
    ValueError
        If a package is unknown, or ``n_jobs`` is 0, below -1 or not an int.

    Examples
    --------
    >>> job = compile_in_background(["ordinal"])
    >>> job.wait("ordinal") if job.pending("ordinal") else True
    True
    """
    names = PACKAGE_ORDER if packages is None else tuple(packages)
    bad = [p for p in names if p not in SOLVER_PACKAGES]
    if bad or isinstance(packages, str):
        raise ValueError(f"packages: expected a sequence of {SOLVER_PACKAGES}, got {packages!r}")
    workers = _resolve_workers(n_jobs)
    with _CURRENT_LOCK:
        job = current()
        if job is not None and any(job.pending(p) for p in job.packages):
            return job
        cold = _cold_packages(names)
        job = BackgroundCompile(list(cold), workers, cold).start()
        _compile_notice.set_current(job)
    if verbose and cold:
        print(f"compiling the numba kernels of {', '.join(cold)} in "
              f"{job.n_workers} background processes (first use only; cached for "
              "later sessions): the cells below wait only for the solvers they use")
    return job


# ------------------------------------------------------------ the worker side

def _todo(package: str) -> list:
    """The kernels of ``package`` neither loaded here nor in the cache."""
    return [d for d in kernel_dispatchers(package)
            if not d.signatures and _is_cached(d) is not True]


def _compile_one(name: str, send: Callable[..., None]) -> None:
    """Compile package ``name`` (its ``_warmup()``), reporting through ``send``."""
    todo = _todo(name)
    send("start", name, len(todo))
    if not todo:
        send("done", name, "0")
        return
    counter = _KernelCounter({id(d) for d in todo}, lambda k: send("kernel", name, k))
    with _counting(counter):
        seconds = _warm_package(name)
    send("done", name, f"{seconds:.3f}")


def _worker_main() -> None:
    """The loop of a background worker process (see :class:`BackgroundCompile`)."""
    out = sys.stdout
    lock = threading.Lock()

    def send(kind: str, name: str, value) -> None:
        with lock:
            out.write(f"{_TAG} {kind} {name} {value}\n")
            out.flush()

    sys.stdout = sys.stderr              # stray prints never reach the protocol
    for line in sys.stdin:
        name = line.strip()
        if not name:
            continue
        try:
            _compile_one(name, send)
        except Exception as exc:          # reported; the fit then compiles it itself
            send("error", name, " ".join(f"{type(exc).__name__}: {exc}".split())[:300])
