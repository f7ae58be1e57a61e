"""One way to time a baseline: single-threaded, in a child process, under
a time budget, killed when it exceeds it (:class:`BaselineRunner`).

The experiments compare our solvers with a general QP solver (Clarabel) that
can take minutes where ours take microseconds; every such baseline solve
runs here.  The worker runs with one thread (``RAYON_NUM_THREADS=1`` and the
BLAS variables): Clarabel >= 0.10 is multi-threaded by default, beyond
threadpoolctl's reach.
"""

from __future__ import annotations

import importlib
import math
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

__all__ = ["BaselineRunner", "BaselineError"]


class BaselineError(RuntimeError):
    """A baseline solve raised in the worker; ``detail`` is its
    ``"ExceptionType: message"``."""

    def __init__(self, detail: str):
        super().__init__(f"baseline solve failed: {detail}")
        self.detail = detail

#: seconds allowed on top of the budget (sending the problem to the worker)
_GRACE_S = 1.0
#: seconds allowed for the worker to start and run its warm-up solves
_START_TIMEOUT_S = 300.0
#: environment of the worker: one thread everywhere.  RAYON_NUM_THREADS
#: reaches Clarabel's own (rayon) thread pool, which threadpoolctl does not:
#: by default Clarabel >= 0.10 runs multi-threaded (settings.max_threads = 0)
_WORKER_ENV = {"RAYON_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _sleep(seconds: float) -> dict:
    """A worker task that only waits (used to test the budget)."""
    time.sleep(seconds)
    return {}


def _resolve(path: str, cache: dict):
    """The function named ``"package.module:function"`` (imported once)."""
    if path not in cache:
        module, _, name = path.partition(":")
        cache[path] = getattr(importlib.import_module(module), name)
    return cache[path]


def _worker_main() -> None:
    """Entry point of the worker process.

    Reads pickled ``(path, args)`` requests on stdin until EOF, ``path``
    naming a function as ``"package.module:function"``; answers each
    with a pickled ``("ok", value, seconds)`` (wall time of the call, timed
    here) or ``("error", message, 0.0)`` on stdout."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr                  # stray prints must not corrupt the replies
    funcs: dict = {}
    while True:
        try:
            path, args = pickle.load(inp)
        except EOFError:
            return
        try:
            func = _resolve(path, funcs)
            t0 = time.perf_counter()
            value = func(*args)
            msg = ("ok", value, time.perf_counter() - t0)
        except Exception as exc:             # noqa: BLE001 - reported to the parent
            msg = ("error", f"{type(exc).__name__}: {exc}", 0.0)
        pickle.dump(msg, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()


def _read_replies(stream, replies: queue.Queue) -> None:
    try:
        while True:
            replies.put(pickle.load(stream))
    except Exception:                        # noqa: BLE001 - EOF or a killed worker
        replies.put(("eof", None, 0.0))
    finally:
        stream.close()


class BaselineRunner:
    """A child Python process that runs baseline solves, one at a time.

    It runs single-threaded (see ``_WORKER_ENV``), whatever this process
    did before, and is killed when a solve exceeds its budget; it is
    (re)started on demand, and runs the ``warmup`` requests, untimed, after
    every start.  A separate process (not a fork of this one) also keeps
    Clarabel's thread pool from deadlocking in a child.  Every experiment
    that times a baseline (Clarabel, the whole QP) under a budget uses it.

    Parameters
    ----------
    tasks : dict of str to str
        Short names of the functions the worker may run, each mapped to
        ``"package.module:function"`` (imported in the worker; the function
        takes the request's arguments and returns a picklable value).
    warmup : sequence of (name, args)
        Requests run untimed after every start (imports, first solves).
    grace_s : float, default _GRACE_S
        Seconds allowed on top of a budget before the worker is killed.
    """

    def __init__(self, tasks: dict, warmup: Sequence[tuple] = (), grace_s: float | None = None):
        self.tasks = {"sleep": f"{__name__}:_sleep", **tasks}
        self.warmup = list(warmup)
        self.grace_s = grace_s
        self.proc: subprocess.Popen | None = None
        self.replies: queue.Queue | None = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self) -> None:
        code = f"from {__name__} import _worker_main; _worker_main()"
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     env={**os.environ, **_WORKER_ENV})
        self.replies = queue.Queue()
        threading.Thread(target=_read_replies, args=(self.proc.stdout, self.replies),
                         daemon=True).start()
        # wait until it is ready: the budget of a request must not pay its start
        for name, args in [("sleep", (0.0,))] + self.warmup:
            if self._request(name, args, _START_TIMEOUT_S) is None:
                raise RuntimeError("the baseline worker process did not start in "
                                   f"{_START_TIMEOUT_S:g} s")

    def _request(self, name: str, args: tuple, timeout: float | None):
        try:
            pickle.dump((self.tasks[name], args), self.proc.stdin,
                        protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except OSError:
            self.close(kill=True)
            raise RuntimeError("the baseline worker process died") from None
        try:
            kind, value, dt = self.replies.get(timeout=timeout)
        except queue.Empty:
            self.close(kill=True)
            return None
        if kind == "eof":
            self.close(kill=True)
            raise RuntimeError("the baseline worker process died")
        if kind == "error":
            raise BaselineError(value)
        return value, dt

    def call(self, name: str, args: tuple, budget_s: float):
        """Run ``name(*args)`` in the worker under a time budget.

        Returns
        -------
        value : dict or None
            The reply, or None when the worker was killed at the budget.
        seconds : float
            Wall time of the call in the worker (the budget when killed).
        status : {"ok", "over budget", "stopped at budget"}
        """
        if self.proc is None:
            self._start()
        grace = _GRACE_S if self.grace_s is None else self.grace_s
        timeout = budget_s + grace if math.isfinite(budget_s) else None
        out = self._request(name, args, timeout)
        if out is None:
            return None, budget_s, "stopped at budget"
        value, dt = out
        return value, dt, "over budget" if dt > budget_s else "ok"

    def close(self, kill: bool = False) -> None:
        """Stop the worker (killed, or asked to exit by closing its stdin)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        else:
            try:
                proc.stdin.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if not proc.stdin.closed:
            try:
                proc.stdin.close()
            except OSError:
                pass
