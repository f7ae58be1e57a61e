"""Solver results, traces and the callback contract shared by every solver.

Every driver in polyrank follows one pattern (``DESIGN.md``, "The pattern
every solver follows"): it loops over chunks of work done by numba kernels,
appends one row per chunk to a :class:`Trace`, hands an :class:`IterInfo` to
the user's callback, and finally returns a :class:`SolverResult`.

The callback contract copies ``scipy.optimize``: the callback receives one
argument (an :class:`IterInfo`); raising :class:`StopIteration` inside it stops
the solve, and the result records ``status="stopped by callback"``.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np

__all__ = [
    "SolverResult",
    "Trace",
    "IterInfo",
    "CallbackRunner",
    "STATUS_CONVERGED",
    "STATUS_MAX_ITER",
    "STATUS_CALLBACK",
    "STATUS_NUMERICAL",
]

#: ``status`` when the stopping rule (duality gap, gradient norm ...) was met.
STATUS_CONVERGED = "converged"
#: ``status`` when the iteration limit was reached first.
STATUS_MAX_ITER = "maximum number of iterations reached"
#: ``status`` when the callback raised :class:`StopIteration`.
STATUS_CALLBACK = "stopped by callback"
#: ``status`` when an objective is not finite or the duality gap is negative
#: beyond rounding (never reported as converged).
STATUS_NUMERICAL = "numerical failure"


class SolverResult(dict):
    """The outcome of a solve: a dict with attribute access.

    Modelled on :class:`scipy.optimize.OptimizeResult`.

    Attributes
    ----------
    x : ndarray
        The primal solution (for SOPOPO: ``W`` of shape (k, n), or the dual
        coefficients of shape (m, k) for a kernel model).
    dual : ndarray or dict
        The dual variables (solver specific; documented by each solver).
    primal_objective, dual_objective, gap : float
        Final primal objective P, dual objective D and duality gap P - D.
    nit : int
        Number of iterations (passes, epochs, Newton steps: see the solver).
    success : bool
        True if the stopping rule was met.
    status : str
        One of :data:`STATUS_CONVERGED`, :data:`STATUS_MAX_ITER`,
        :data:`STATUS_CALLBACK`.
    message : str
        A human readable account of why the solve stopped.
    solver : str
        The solver's name, e.g. ``"sopopo-batch"``.
    trace : Trace
        One row per iteration.

    Examples
    --------
    >>> r = SolverResult(x=1.0, gap=0.0)
    >>> r.gap
    0.0
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        del self[name]

    def __dir__(self):
        return list(self.keys())

    def __repr__(self) -> str:
        keys = ["solver", "status", "success", "nit", "primal_objective",
                "dual_objective", "gap", "message"]
        lines = []
        for key in keys + [k for k in self if k not in keys]:
            if key not in self:
                continue
            value = self[key]
            if isinstance(value, np.ndarray):
                text = f"ndarray shape={value.shape} dtype={value.dtype}"
            elif isinstance(value, Trace):
                text = f"Trace with {len(value)} rows"
            elif isinstance(value, dict):
                text = "{" + ", ".join(sorted(value)) + "}"
            else:
                text = repr(value)
            lines.append(f"{key:>17}: {text}")
        return "\n".join(lines)


class IterInfo:
    """What a callback receives once per iteration.

    Parameters
    ----------
    iteration : int
        Iteration counter, starting at 1 (passes over the data for SOPOPO).
    time_s : float
        Seconds elapsed since the solve started (wall clock, excluding
        callback time).
    primal, dual, gap : float
        Primal objective, dual objective and duality gap after the
        iteration (NaN where a solver does not compute one).
    **extras
        Solver-specific quantities (e.g. ``dual_increase`` for SOPOPO,
        ``delta`` and ``cg_iter`` for TRON); readable as attributes and
        through :attr:`extras`.

    Examples
    --------
    >>> info = IterInfo(3, 0.5, 2.0, 1.5, 0.5, dual_increase=0.1)
    >>> info.gap, info.dual_increase
    (0.5, 0.1)
    """

    __slots__ = ("iteration", "time_s", "primal", "dual", "gap", "extras")

    def __init__(self, iteration: int, time_s: float, primal: float,
                 dual: float, gap: float, **extras: float) -> None:
        self.iteration = int(iteration)
        self.time_s = float(time_s)
        self.primal = float(primal)
        self.dual = float(dual)
        self.gap = float(gap)
        self.extras = dict(extras)

    def __getattr__(self, name: str) -> Any:
        extras = object.__getattribute__(self, "extras")
        if name in extras:
            return extras[name]
        raise AttributeError(name)

    def as_dict(self) -> dict:
        """Return every field (extras included) as a flat dict."""
        out = {"iteration": self.iteration, "time_s": self.time_s,
               "primal": self.primal, "dual": self.dual, "gap": self.gap}
        out.update(self.extras)
        return out

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"IterInfo({fields})"


class Trace:
    """Columnar per-iteration record of a solve.

    Columns are numpy arrays of equal length: always ``iteration``,
    ``time_s``, ``primal``, ``dual``, ``gap``, plus whatever extras a solver
    appends (the first row fixes the set of columns).

    Examples
    --------
    >>> t = Trace()
    >>> t.append(IterInfo(1, 0.1, 2.0, 1.0, 1.0))
    >>> t.gap
    array([1.])
    >>> len(t)
    1
    """

    BASE = ("iteration", "time_s", "primal", "dual", "gap")

    def __init__(self, columns: dict | None = None) -> None:
        self._rows: list[dict] = []
        self._cache: dict[str, np.ndarray] | None = None
        if columns is not None:
            n = len(next(iter(columns.values()))) if columns else 0
            for i in range(n):
                self._rows.append({k: v[i] for k, v in columns.items()})

    def append(self, info: IterInfo) -> None:
        """Append one iteration; raises ``ValueError`` if its extras differ
        from those of the first row."""
        row = info.as_dict()
        if self._rows and set(row) != set(self._rows[0]):
            raise ValueError(
                f"info: columns {sorted(row)} differ from the trace's "
                f"columns {sorted(self._rows[0])}")
        self._rows.append(row)
        self._cache = None

    @property
    def columns(self) -> list[str]:
        """The column names, base columns first."""
        if not self._rows:
            return list(self.BASE)
        extra = [k for k in self._rows[0] if k not in self.BASE]
        return list(self.BASE) + extra

    def _arrays(self) -> dict[str, np.ndarray]:
        if self._cache is None:
            cols = self.columns
            self._cache = {
                c: np.array([r[c] for r in self._rows],
                            dtype=np.int64 if c == "iteration" else np.float64)
                for c in cols}
        return self._cache

    def __getattr__(self, name: str) -> np.ndarray:
        if name.startswith("_"):
            raise AttributeError(name)
        arrays = self._arrays()
        if name in arrays:
            return arrays[name]
        raise AttributeError(name)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._arrays()[name]

    def __len__(self) -> int:
        return len(self._rows)

    def to_dict(self) -> dict[str, np.ndarray]:
        """Return ``{column: ndarray}`` (copies), e.g. for ``pandas.DataFrame``."""
        return {k: v.copy() for k, v in self._arrays().items()}

    def to_pandas(self):
        """Return the trace as a :class:`pandas.DataFrame`, one row per
        iteration, indexed by ``iteration``.

        Raises
        ------
        ImportError
            If pandas is not installed (it is optional: ``pip install pandas``).
        """
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("Trace.to_pandas needs pandas (pip install pandas); "
                              "Trace.to_dict() gives the same columns as numpy "
                              "arrays") from exc
        return pd.DataFrame(self.to_dict()).set_index("iteration")

    def __repr__(self) -> str:
        return f"Trace({len(self)} rows, columns={self.columns})"


class CallbackRunner:
    """Driver-side helper that times a solve, fills the trace and calls the
    user's callback every ``callback_every`` iterations.

    Parameters
    ----------
    callback : callable or None
        ``callback(info: IterInfo)``; may raise :class:`StopIteration`.
    callback_every : int
        Call the callback on iterations divisible by this (>= 1). The trace
        gets every iteration regardless.

    Raises
    ------
    TypeError
        If ``callback`` is not callable or ``callback_every`` not an int.
    ValueError
        If ``callback_every < 1``.
    """

    def __init__(self, callback: Callable[[IterInfo], Any] | None,
                 callback_every: int = 1) -> None:
        if callback is not None and not callable(callback):
            raise TypeError(f"callback: expected a callable or None, got "
                            f"{type(callback).__name__}")
        if isinstance(callback_every, bool) or not isinstance(
                callback_every, (int, np.integer)):
            raise TypeError("callback_every: expected an int, got "
                            f"{type(callback_every).__name__}")
        if callback_every < 1:
            raise ValueError(f"callback_every: expected >= 1, got {callback_every}")
        self.callback = callback
        self.callback_every = int(callback_every)
        self.trace = Trace()
        self._t0 = time.perf_counter()
        self._paused = 0.0

    def elapsed(self) -> float:
        """Seconds since construction, excluding time spent in callbacks."""
        return time.perf_counter() - self._t0 - self._paused

    def record(self, iteration: int, primal: float, dual: float,
               **extras: float) -> bool:
        """Record one iteration and run the callback.

        Returns
        -------
        stop : bool
            True if the callback raised :class:`StopIteration`.
        """
        gap = primal - dual if not (math.isnan(primal) or math.isnan(dual)) else math.nan
        info = IterInfo(iteration, self.elapsed(), primal, dual, gap, **extras)
        self.trace.append(info)
        if self.callback is None or iteration % self.callback_every:
            return False
        t = time.perf_counter()
        try:
            self.callback(info)
        except StopIteration:
            return True
        finally:
            self._paused += time.perf_counter() - t
        return False
