"""What makes :class:`~polyrank_widgets.SolverLab` answer at once (issue 45,
item 3; issue 46, item 4): the data canonicalised once, a cache of the fits
keyed by the penalty, warm starts from the nearest solution the lab holds, and
a background thread that precomputes the slider's positions around the
current value.

- :func:`canonical_data`: X (and the test split) validated and converted once;
  for a :class:`~sklearn.pipeline.Pipeline` whose leading steps do not depend
  on the controls, those steps are fitted and applied once, and every refit
  fits the last step on the same transformed array (no copy of X per refit).
- :class:`SolutionCache`: per setting of the other parameters (``signs``,
  ``R``, a kernel ...), the fitted models by penalty value; a move to a cached
  value redraws from it with no fit.
- :class:`WarmPool`: the estimators that hold a solver's end point (their
  ``warm_start=True`` state, :mod:`polyrank.path`'s public contract): a fit at
  C takes the one whose last fit is nearest to C (in log C), so that it starts
  from the nearest solution (LIBLINEAR's parameter search, Chu, Lin et al.,
  KDD 2015; glmnet's pathwise warm starts).
- :class:`Precomputer`: a daemon thread that fits, one slider position at a
  time, nearest first, the positions around the current value while the
  person reads; a generation counter (checked between fits and by the solver's
  callback, which raises ``StopIteration``: ``DESIGN.md``'s callback
  contract) cancels it at once when a control moves; it runs at a lower
  priority (:data:`NICE`, Linux); it never touches a widget (the lab hands
  its results to the kernel's own thread).

The numba kernels release the GIL (``nogil=True``, tests/core/test_nogil.py), so a
background fit leaves the kernel free to handle the next slider message; only
its Python parts (validation, the callback) take the GIL, for microseconds
between the solver's passes.
"""

from __future__ import annotations

import copy
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.pipeline import Pipeline

__all__ = ["Solution", "SolutionCache", "WarmPool", "Precomputer", "canonical_data",
           "settings_key", "slider_positions", "snapshot", "PENALTIES"]

#: the regularisation parameters a lab warm-starts and precomputes along
PENALTIES = ("C", "c", "lam")
#: two penalty values closer than this in log10 are the same cache entry (a
#: slider's value computed in the browser vs the same position computed here)
SAME_DECADES = 1e-6
#: the estimators that hold a solver's end point for warm starts, per setting
POOL_SIZE = 2
#: a background fit whose nearest warm start is farther than this (decades)
#: starts a second lineage (one cold fit) while the pool has room
SPAWN_DECADES = 0.3
#: the slider steps precomputed around the current value, nearest first
#: (both sides): the neighbours, then coarser to about a decade away
RING = (1, 2, 3, 4, 6, 8, 12, 16, 20)
#: seconds the background waits after a settled move before its first fit
#: (the front end draws the new figure first; a quick second move cancels nothing)
IDLE_S = 0.3


#: the background thread's niceness (Linux: per thread), so that the browser
#: drawing the figures and the kernel's next cells go first on a busy machine
NICE = 10


def _lower_priority() -> None:
    """Raise the calling thread's niceness by :data:`NICE` where the platform
    allows it per thread (Linux); elsewhere nothing."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                       min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICE))
    except (AttributeError, OSError):
        pass


def log_distance(a: float, b: float) -> float:
    """|log10 a - log10 b| (inf if either is not > 0)."""
    if not (a > 0 and b > 0):
        return math.inf
    return abs(math.log10(a) - math.log10(b))


def _freeze(value):
    """A hashable stand-in of a parameter value (arrays by shape and bytes)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def settings_key(values: dict, penalty: str | None) -> tuple:
    """The identity of every parameter but the penalty: fits with equal keys
    differ only in the penalty (one cache, one warm pool).

    Parameters
    ----------
    values : dict
        The parameters of the next fit (:meth:`SolverLab.values`).
    penalty : str or None
        The penalty's name (left out of the key).

    Returns
    -------
    tuple
        Hashable.

    Examples
    --------
    >>> settings_key({"C": 1.0, "bias": 0.0}, "C") == settings_key({"C": 2.0, "bias": 0.0}, "C")
    True
    """
    return tuple(sorted((k, _freeze(v)) for k, v in values.items() if k != penalty))


def slider_positions(center: float, lo_exp: float, hi_exp: float, step: float,
                     ring=RING) -> list[float]:
    """The log slider's values around ``center``, nearest first.

    A :class:`ipywidgets.FloatLogSlider` takes the values 10^(min + k step);
    these are k0 +- r for r in ``ring`` (k0 the position nearest ``center``),
    inside [min, max], the nearer side first at equal r.

    Parameters
    ----------
    center : float
        The current value (> 0).
    lo_exp, hi_exp, step : float
        The slider's ``min``, ``max`` (exponents of 10) and ``step``.
    ring : sequence of int
        Distances in steps.

    Returns
    -------
    list of float

    Examples
    --------
    >>> [round(v, 4) for v in slider_positions(1.0, -1.0, 1.0, 0.5, ring=(1, 2, 3))]
    [3.1623, 0.3162, 10.0, 0.1]
    """
    if not (center > 0 and step > 0):
        return []
    k0 = round((math.log10(center) - lo_exp) / step)
    k_max = int(math.floor((hi_exp - lo_exp) / step + 1e-9))
    out = []
    for r in ring:
        for k in (k0 + r, k0 - r):
            if 0 <= k <= k_max:
                out.append(10.0 ** (lo_exp + k * step))
    return out


def canonical_x(X):
    """X as every fit reads it: CSR float64 if sparse, else a C-contiguous
    float64 array (the same object when it already is one; a DataFrame's
    values).  Anything else (lists of strings, objects) is returned as given
    and the estimator's own ``fit`` checks it.

    Examples
    --------
    >>> A = np.ones((3, 2))
    >>> canonical_x(A) is A
    True
    """
    if sp.issparse(X):
        return X if (X.format == "csr" and X.dtype == np.float64) \
            else sp.csr_matrix(X, dtype=np.float64)
    try:
        out = np.asarray(X, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        return X
    return out if out.ndim == 2 else X


def _leading_fit_params(fit_params: dict, prefix: str) -> bool:
    """True if a fit parameter is routed to a step before the last."""
    return any("__" in k and not k.startswith(prefix) for k in fit_params)


def canonical_data(estimator, X, test, fit_params: dict, prefix: str):
    """(head, X, test): the data every refit reads, prepared once.

    Parameters
    ----------
    estimator : estimator or Pipeline
        The lab's estimator (never modified).
    X : array_like or sparse matrix, shape (m, n_features)
    test : tuple or None
        ``(X_test, y_test[, qid_test])``.
    fit_params : dict
        The routed fit parameters (a pipeline's ``step__name``).
    prefix : str
        The last step's routing prefix (``"name__"``, or ``""``).

    Returns
    -------
    head : Pipeline or None
        The pipeline's leading steps, fitted once (None without a pipeline,
        or when a fit parameter goes to a leading step: then every fit
        fits the whole pipeline, as before).
    X : ndarray or sparse matrix
        :func:`canonical_x` of X (transformed by ``head``).
    test : tuple or None
        The same, for the test X.

    Raises
    ------
    Exception
        Whatever the leading steps' ``fit_transform`` raises.
    """
    head = None
    if isinstance(estimator, Pipeline):
        if _leading_fit_params(fit_params, prefix) or len(estimator.steps) < 2:
            return None, X, test
        head = clone(Pipeline(estimator.steps[:-1]))
        X = head.fit_transform(X)
        if test is not None:
            test = (head.transform(test[0]), *test[1:])
    if test is not None:
        test = (canonical_x(test[0]), *test[1:])
    return head, canonical_x(X), test


def snapshot(est, X=None):
    """A copy of a fitted estimator that a later fit of ``est`` cannot change:
    its fitted arrays (``coef_``, ``alpha_`` ...) copied, X (if it holds
    it, e.g. a kernel model's support vectors) shared, not copied."""
    out = copy.copy(est)
    for name, value in vars(est).items():
        if not name.endswith("_") or name.startswith("__"):
            continue
        if isinstance(value, np.ndarray) and not (X is not None and isinstance(X, np.ndarray)
                                                  and np.shares_memory(value, X)):
            setattr(out, name, value.copy())
        elif isinstance(value, dict):
            setattr(out, name, copy.copy(value))
    return out


@dataclass
class Solution:
    """One fit the lab keeps.

    Attributes
    ----------
    value : float
        The penalty.
    estimator : estimator
        The fitted model (a :func:`snapshot`; a Pipeline for a pipeline).
    score : float or None
        The test metric's score (None without a test split).
    seconds : float
        Wall seconds of the fit.
    start : str
        How it started: ``"cold"`` or ``"warm from <param> = <value>"``.
    background : bool
        Fitted by the :class:`Precomputer`.
    """

    value: float
    estimator: object
    score: float | None
    seconds: float
    start: str = "cold"
    background: bool = False


@dataclass
class SolutionCache:
    """The lab's fits by setting and penalty value.

    Attributes
    ----------
    entries : dict
        settings key -> list of :class:`Solution`, at most ``max_keys``
        settings kept (the oldest dropped).
    """

    max_keys: int = 4
    entries: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def get(self, key: tuple, value: float) -> Solution | None:
        """The solution at ``value`` (to :data:`SAME_DECADES`), or None."""
        with self._lock:
            for sol in self.entries.get(key, ()):
                if log_distance(sol.value, value) <= SAME_DECADES:
                    return sol
        return None

    def put(self, key: tuple, sol: Solution) -> None:
        """Keep ``sol`` (replacing one at the same value)."""
        with self._lock:
            rows = [s for s in self.entries.pop(key, [])
                    if log_distance(s.value, sol.value) > SAME_DECADES]
            self.entries[key] = rows + [sol]          # most recent key last
            while len(self.entries) > self.max_keys:
                self.entries.pop(next(iter(self.entries)))

    def solutions(self, key: tuple) -> list[Solution]:
        """The solutions of one setting, by increasing value."""
        with self._lock:
            return sorted(self.entries.get(key, ()), key=lambda s: s.value)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(v) for v in self.entries.values())


class WarmPool:
    """The estimators that hold a warm start, for one setting at a time.

    Each head is ``[value, estimator, busy]``: an estimator with
    ``warm_start=True`` whose last fit was at ``value``.  :meth:`take` lends
    the free head nearest the new value (the fit then starts from that
    solution) or a cold clone; :meth:`give` returns it after the fit.
    """

    def __init__(self, make: Callable[[], object], size: int = POOL_SIZE) -> None:
        self.make = make
        self.size = size
        self.key: tuple | None = None
        self.heads: list[list] = []
        self._cond = threading.Condition()

    def take(self, key: tuple, value: float, *, spawn_beyond: float = math.inf,
             wait_s: float = 2.0):
        """(estimator, the value its warm start comes from or None).

        A head busy in another fit is waited for (at most ``wait_s``: a
        cancelled fit returns it at its solver's next pass); a nearest head
        farther than ``spawn_beyond`` decades gives a cold clone while the
        pool has room for another lineage.
        """
        with self._cond:
            if key != self.key:
                self.key, self.heads = key, []
            deadline = time.monotonic() + wait_s
            # every head busy (a cancelled fit stops at its next pass): wait for one
            while self.heads and all(h[2] for h in self.heads) \
                    and time.monotonic() < deadline:
                self._cond.wait(max(deadline - time.monotonic(), 0.0))
            free = [h for h in self.heads if not h[2]]
            if free:
                head = min(free, key=lambda h: log_distance(h[0], value))
                room = len(self.heads) < self.size
                if not (room and log_distance(head[0], value) > spawn_beyond):
                    head[2] = True
                    return head[1], head[0]
            return self.make(), None

    def give(self, key: tuple, value: float, est) -> None:
        """Return ``est`` (now at ``value``) to the pool; beyond its size the
        head farthest from ``value`` is dropped."""
        with self._cond:
            if key != self.key:
                self._cond.notify_all()
                return
            for h in self.heads:
                if h[1] is est:
                    h[0], h[2] = value, False
                    break
            else:
                self.heads.append([value, est, False])
            if len(self.heads) > self.size:
                idle = [h for h in self.heads if not h[2]]
                self.heads.remove(max(idle, key=lambda h: log_distance(h[0], value)))
            self._cond.notify_all()


class Precomputer:
    """A daemon thread that fits the values of a plan, nearest first, one
    at a time, until cancelled.

    Parameters
    ----------
    fit_one : callable
        ``fit_one(value, cancelled) -> bool``: fit at ``value`` unless
        ``cancelled()`` becomes true (checked by the solver's callback); True
        if a solution was kept.
    busy : callable
        ``busy() -> bool``: a foreground fit runs (the thread waits).
    """

    def __init__(self, fit_one: Callable, busy: Callable[[], bool]) -> None:
        self.fit_one = fit_one
        self.busy = busy
        self.generation = 0
        self.plan: list[float] = []
        self.n_done = 0
        self.closed = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._idle_since = 0.0
        self._running = False
        #: the message of the last background fit that raised (None: none did)
        self.error: str | None = None

    def restart(self, plan: list[float]) -> None:
        """Cancel the running plan and start ``plan`` (after :data:`IDLE_S`)."""
        with self._cond:
            self.generation += 1
            self.plan = list(plan)
            self._idle_since = time.monotonic()
            if self._thread is None and not self.closed:
                self._thread = threading.Thread(target=self._loop, daemon=True,
                                                name="SolverLab precompute")
                self._thread.start()
            self._cond.notify_all()

    def cancel(self) -> None:
        """Stop the running fit (at its next pass) and drop the plan."""
        with self._cond:
            self.generation += 1
            self.plan = []
            self._cond.notify_all()

    def close(self) -> None:
        """Cancel and end the thread."""
        with self._cond:
            self.closed = True
        self.cancel()

    def idle(self) -> bool:
        """True when nothing is planned and no fit runs."""
        with self._cond:
            return not self.plan and not self._running

    def _next(self):
        """(generation, value) of the next fit, or None once closed."""
        with self._cond:
            while True:
                if self.closed:
                    return None
                wait = self._idle_since + IDLE_S - time.monotonic()
                if self.plan and wait <= 0 and not self.busy():
                    self._running = True
                    return self.generation, self.plan.pop(0)
                self._cond.wait(max(wait, 0.05) if self.plan else None)

    def _loop(self) -> None:
        _lower_priority()
        while True:
            got = self._next()
            if got is None:
                return
            gen, value = got
            try:
                if self.fit_one(value, lambda g=gen: self.generation != g or self.closed):
                    self.n_done += 1
            except Exception as exc:   # kept; a foreground fit at that value reports it
                self.error = f"{type(exc).__name__}: {exc}"
            finally:
                with self._cond:
                    self._running = False
                    self._cond.notify_all()
            time.sleep(0)           # let the kernel's thread take the GIL between fits
