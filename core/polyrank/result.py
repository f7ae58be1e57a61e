"""Solver results, traces and the callback contract shared by every solver.

Every driver in polyrank follows one pattern (``DESIGN.md``, "The pattern
every solver follows"): it loops over chunks of work done by numba kernels,
appends one row per chunk to a :class:`Trace`, hands an :class:`IterInfo` to
the user's callback, and finally returns a :class:`SolverResult`.

The callback contract copies ``scipy.optimize``: the callback receives one
argument (an :class:`IterInfo`); raising :class:`StopIteration` inside it stops
the solve, and the result records ``status="stopped by callback"``.

Every driver ends with :func:`finish`, which builds the :class:`SolverResult`
from one status-message table (:data:`STATUS_MESSAGES`) and gives ``success``
one meaning: the run ended as designed, its stopping rule met
(``status == STATUS_CONVERGED``) or, for an online algorithm that makes a
fixed number of passes by design, those passes completed
(:data:`STATUS_COMPLETED`).  Reaching the iteration limit, a callback stop, a
stall at rounding level or a numerical failure are not successes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "SolverResult",
    "Trace",
    "IterInfo",
    "CallbackRunner",
    "STATUS_CONVERGED",
    "STATUS_COMPLETED",
    "STATUS_MAX_ITER",
    "STATUS_CALLBACK",
    "STATUS_NUMERICAL",
    "STATUS_STALLED",
    "STATUS_NO_PROGRESS",
    "STATUS_MESSAGES",
    "GAP_ROUNDING",
    "numerical_failure",
    "all_finite",
    "finish",
]

#: ``status`` when the stopping rule (duality gap, gradient norm ...) was met.
STATUS_CONVERGED = "converged"
#: ``status`` of an online algorithm whose fixed number of passes (its design,
#: e.g. PRank's on-line protocol) is done without its early stopping rule
#: being met: not a failure (``success`` is True, no ConvergenceWarning).
STATUS_COMPLETED = "completed the passes"
#: ``status`` when the iteration limit was reached first.
STATUS_MAX_ITER = "maximum number of iterations reached"
#: ``status`` when the callback raised :class:`StopIteration`.
STATUS_CALLBACK = "stopped by callback"
#: ``status`` when an objective is not finite or the duality gap is negative
#: beyond rounding (never reported as converged).
STATUS_NUMERICAL = "numerical failure"
#: ``status`` of a coordinate solver whose pass left the dual unchanged while
#: the gap is still above the tolerance (the tolerance is below what float64
#: resolves for the problem).
STATUS_STALLED = "stalled at rounding level"
#: ``status`` of a trust-region solver whose actual and predicted reductions
#: are at rounding level before the gradient test is met.
STATUS_NO_PROGRESS = "no progress at rounding level"

#: a duality gap P - D below ``-GAP_ROUNDING * max(|P|, |D|)`` is not rounding
GAP_ROUNDING = 1e-10


def numerical_failure(primal: float, dual: float) -> bool:
    """Whether a primal-dual pair means :data:`STATUS_NUMERICAL`.

    Parameters
    ----------
    primal, dual : float
        The objectives P and D of one iterate.

    Returns
    -------
    bool
        True if P or D is not finite, or the duality gap P - D is negative
        beyond rounding (below ``-GAP_ROUNDING * max(|P|, |D|)``): weak
        duality says P >= D, so the iterate cannot be trusted.

    Examples
    --------
    >>> numerical_failure(1.0, 1.0 + 1e-12), numerical_failure(1.0, 1.1)
    (False, True)
    """
    return not (math.isfinite(primal) and math.isfinite(dual)) \
        or primal - dual < -GAP_ROUNDING * max(abs(primal), abs(dual))


def all_finite(value) -> bool:
    """Whether every number in ``value`` is finite: a float, an ndarray, a
    scipy sparse matrix, or a list/tuple/dict of them (other objects count
    as finite).

    Examples
    --------
    >>> all_finite({"w": np.ones(3), "b": [0.5, np.inf]}), all_finite(None)
    (False, True)
    """
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value)
    if isinstance(value, np.ndarray):
        return value.dtype.kind not in "fc" or bool(np.isfinite(value).all())
    if hasattr(value, "tocsr") and hasattr(value, "data"):
        return all_finite(value.data)
    if isinstance(value, dict):
        return all(all_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(all_finite(v) for v in value)
    return True


#: The one table of ``message`` templates, keyed by ``status``.  The fields
#: are filled by :func:`finish`: ``nit`` and ``unit`` (what one iteration is,
#: plural: ``"epochs"``, ``"passes"`` ...), ``rule`` (the stopping rule that
#: was met), ``limit`` (the iteration limit, e.g. ``"max_iter=100"``),
#: ``progress`` (how far from the rule the solve stopped), ``primal``,
#: ``dual`` and ``advice`` (what to change, for a numerical failure).
STATUS_MESSAGES = {
    STATUS_CONVERGED: "{rule} after {nit} {unit}",
    STATUS_COMPLETED: "completed {nit} {unit} ({limit}); {progress}",
    STATUS_MAX_ITER: "{limit} {unit} done; {progress}",
    STATUS_CALLBACK: "callback raised StopIteration after {nit} {unit}; {progress}",
    STATUS_NUMERICAL: ("after {nit} {unit}: primal {primal:.6g}, dual {dual:.6g}: an "
                       "objective is not finite or the duality gap is negative beyond "
                       "rounding{advice}"),
    STATUS_STALLED: ("after {nit} {unit} the last left the dual unchanged with "
                     "{progress}: the tolerance is below what float64 resolves here"),
    STATUS_NO_PROGRESS: ("actual and predicted reductions at rounding level after "
                         "{nit} {unit}; {progress}"),
}


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
    unit : str
        What ``nit`` counts, plural (``"passes"``, ``"epochs"``, ``"steps"``,
        ``"Newton steps"``); the callback's ``iteration`` may count a coarser
        unit (SC-Pegasos: ``nit`` in steps, one callback per epoch).
    success : bool
        True if and only if the run ended as designed: the stopping rule was
        met (``status == STATUS_CONVERGED``) or an online algorithm completed
        its fixed number of passes (:data:`STATUS_COMPLETED`); reaching the
        iteration limit is not success.
    status : str
        A key of :data:`STATUS_MESSAGES`: :data:`STATUS_CONVERGED`,
        :data:`STATUS_COMPLETED`, :data:`STATUS_MAX_ITER`, :data:`STATUS_CALLBACK`,
        :data:`STATUS_NUMERICAL`, :data:`STATUS_STALLED` or
        :data:`STATUS_NO_PROGRESS`.
    message : str
        A human readable account of why the solve stopped.
    solver : str
        The solver's name, e.g. ``"sopopo-batch"``.
    trace : Trace
        One row per iteration.
    warm_start : str
        Set by every estimator's ``fit`` (``result_.warm_start``), absent
        from a driver's own result: ``"used"`` when the solve started from
        the previous fit's solution (``warm_start=True``, the same data),
        else ``"cold: <reason>"`` (``"cold: warm_start=False"``, ``"cold: no
        previous fit"``, ``"cold: the data changed ..."``, or a solver that
        cannot start from a given point).  "The same data" is judged by
        :func:`polyrank._warm.fingerprint`: X's shape and a CRC-32 of 16 of
        its rows, and a CRC-32 of the whole targets, query ids and weights.

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
        through ``extras``.

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


def finish(runner: CallbackRunner, status: str, *, solver: str, x: Any, dual: Any,
           primal: float, dual_objective: float, nit: int, unit: str, rule: str,
           progress: str, limit: str, advice: str = "", gap: float | None = None,
           **extras: Any) -> SolverResult:
    """Build the :class:`SolverResult` that ends every solver driver.

    Parameters
    ----------
    runner : CallbackRunner
        The solve's runner; its ``trace`` becomes
        ``trace``.
    status : str
        A key of :data:`STATUS_MESSAGES`.
    solver : str
        The solver's name, e.g. ``"sc-sdca"``.
    x, dual : object
        The primal solution and the dual variables (solver specific).
    primal, dual_objective : float
        Final primal and dual objectives (NaN where a solver has none).
    nit : int
        Iterations done, in ``unit``.
    unit : str
        What one iteration is, plural (``"epochs"``, ``"Newton steps"``).
    rule : str
        The stopping rule as met, e.g. ``"duality gap 1e-07 <= tol"``
        (used when ``status`` is :data:`STATUS_CONVERGED`).
    progress : str
        How far from the rule the solve is, e.g. ``"duality gap 0.3"``.
    limit : str
        The iteration limit, e.g. ``"max_iter=100"``.
    advice : str, optional
        Appended to the message of :data:`STATUS_NUMERICAL` after ``"; "``.
        (``status`` becomes :data:`STATUS_NUMERICAL` whenever ``x`` holds a
        NaN or infinity, see :func:`all_finite`.)
    gap : float, optional
        The duality gap; default ``primal - dual_objective``.
    **extras
        Further solver-specific keys of the result (documented by each
        driver).

    Returns
    -------
    SolverResult
        With ``x``, ``dual``, ``primal_objective``, ``dual_objective``,
        ``gap``, ``nit``, ``unit``, ``success`` (``status`` is :data:`STATUS_CONVERGED`,
        the stopping rule met, or :data:`STATUS_COMPLETED`; the iteration
        limit is not success),
        ``status``, ``message``, ``solver``, ``trace`` and ``extras``.

    Raises
    ------
    ValueError
        If ``status`` is not a key of :data:`STATUS_MESSAGES`, or an extra
        key repeats a standard one.

    Examples
    --------
    >>> runner = CallbackRunner(None)
    >>> res = finish(runner, STATUS_MAX_ITER, solver="demo", x=None, dual=None,
    ...              primal=2.0, dual_objective=1.5, nit=3, unit="passes",
    ...              rule="", progress="duality gap 0.5", limit="max_iter=3")
    >>> res.success, res.gap, res.message
    (False, 0.5, 'max_iter=3 passes done; duality gap 0.5')
    """
    if status not in STATUS_MESSAGES:
        raise ValueError(f"status: expected one of {sorted(STATUS_MESSAGES)}, got {status!r}")
    primal, dual_objective = float(primal), float(dual_objective)
    if not all_finite(x):
        # a model with NaN or infinity is never "converged", whatever the rule said
        status = STATUS_NUMERICAL
    if gap is None:
        gap = primal - dual_objective
    message = STATUS_MESSAGES[status].format(
        nit=nit, unit=unit, rule=rule, progress=progress, limit=limit, primal=primal,
        dual=dual_objective, advice=f"; {advice}" if advice else "")
    out = SolverResult(
        x=x, dual=dual, primal_objective=primal, dual_objective=dual_objective,
        gap=float(gap), nit=int(nit), unit=str(unit),
        success=status in (STATUS_CONVERGED, STATUS_COMPLETED), status=status,
        message=message, solver=solver, trace=runner.trace)
    clash = set(extras) & set(out)
    if clash:
        raise ValueError(f"extras: {sorted(clash)} repeat standard result keys")
    out.update(extras)
    return out
