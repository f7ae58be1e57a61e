"""Honest first use: say so while numba compiles a solver's kernels.

Every solver's kernels are ``@numba.njit(cache=True)`` functions in
``polyrank.<paper>._kernels`` (``DESIGN.md``, "The pattern every solver
follows").  The first call of a kernel in a fresh environment compiles it
(seconds per solver); later processes load it from numba's on-disk cache in
a fraction of a second.  This module tells the two cases apart *before* a
fit starts, from the dispatchers' state:

- ``loaded``: compiled (or loaded from the cache) in this process already;
- ``cached``: not loaded yet, but numba's cache index on disk holds a
  compiled version for the current source;
- otherwise the kernel will be compiled on first use.

and :class:`polyrank.compiling.CompileNotice` reports "compiling ... (first
use only)" with progress while a fit runs (``polyrank.compiling`` also
compiles in background worker processes).

Only numba's documented dispatcher attributes (``signatures``) and its cache
index (``_cache._cache_file._load_index``, stable since numba 0.50) are read;
if the cache cannot be inspected the state is "unknown".

Each solver subpackage registers itself here when it is imported
(:func:`register_solver_package`: its ``_kernels`` module, the kernels only
its rare variants call, its warm-up parts), so this module, below the paper
subpackages, never imports one of them: the warm-up that compiles all five
(:func:`polyrank.warmup`, ``polyrank._warmup_all``) and the background
compile (:mod:`polyrank.compiling`) sit above them and import them plainly
(``tests/architecture/test_layering.py``).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType

__all__ = ["SOLVER_PACKAGES", "SolverPackage", "register_solver_package", "solver_package",
           "CompileState", "compile_state", "package_of", "kernel_dispatchers"]

#: The subpackages whose ``_kernels`` module holds numba kernels.
SOLVER_PACKAGES = ("sopopo", "sign", "ranksvm", "ordinal", "m3l")


@dataclass(frozen=True)
class SolverPackage:
    """What a solver subpackage tells the compile machinery about itself.

    Attributes
    ----------
    name : str
        One of :data:`SOLVER_PACKAGES`.
    kernels : module
        Its ``_kernels`` module (the ``@numba.njit(cache=True)`` kernels).
    warmup : callable
        ``warmup()`` compiles (or loads) the kernels of the default variants
        on a tiny problem.
    parts : mapping of str to callable
        The parts of ``warmup`` (each one task of :func:`polyrank.warmup`'s
        workers); empty: ``warmup`` is one task.
    rare : mapping of str to callable
        The warm-up parts of the rare variants (compiled on first use, or
        by ``polyrank warmup --all``).
    lazy : tuple of str
        Names of the kernels of ``kernels`` that only the rare variants call.
    """

    name: str
    kernels: ModuleType
    warmup: Callable[[], object]
    parts: Mapping[str, Callable[[], object]] = field(default_factory=dict)
    rare: Mapping[str, Callable[[], object]] = field(default_factory=dict)
    lazy: tuple[str, ...] = ()


_REGISTRY: dict[str, SolverPackage] = {}
#: the package whose compile is reported in this context (by a warm-up's own
#: bar or by a :class:`polyrank.compiling.CompileNotice`): fits inside stay silent
_REPORTING: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "polyrank_compile_reporting", default=None)


def register_solver_package(name: str, kernels: ModuleType, warmup: Callable[[], object], *,
                            parts=None, rare=None, lazy=()) -> SolverPackage:
    """Register solver subpackage ``name`` (called at the end of its
    ``__init__``); see :class:`SolverPackage` for the arguments.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`SOLVER_PACKAGES`.
    """
    if name not in SOLVER_PACKAGES:
        raise ValueError(f"name: expected one of {SOLVER_PACKAGES}, got {name!r}")
    entry = SolverPackage(name, kernels, warmup, dict(parts or {}), dict(rare or {}),
                          tuple(lazy))
    _REGISTRY[name] = entry
    return entry


def solver_package(name: str) -> SolverPackage:
    """The :class:`SolverPackage` registered by ``polyrank.<name>``.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`SOLVER_PACKAGES`, or its subpackage
        was not imported yet (``polyrank.warmup`` and
        :mod:`polyrank.compiling` import all five).
    """
    if name not in SOLVER_PACKAGES:
        raise ValueError(f"package: expected one of {SOLVER_PACKAGES}, got {name!r}")
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"package: polyrank.{name} is not imported yet; import it "
                         "first") from None


def kernel_dispatchers(package: str, rare: bool = False) -> list:
    """The numba dispatchers of ``polyrank.<package>._kernels``.

    Parameters
    ----------
    package : str
        One of :data:`SOLVER_PACKAGES` (``"sopopo"``, ``"sign"`` ...).
    rare : bool, default=False
        Also the kernels only the package's rare variants call (named in its
        ``_LAZY_KERNELS``: compiled on first use, or by ``warmup(rare=True)``).

    Returns
    -------
    list of numba dispatchers, in definition order (those declared
    ``inline="always"`` left out: they are compiled into their callers).

    Raises
    ------
    ValueError
        If ``package`` is not one of :data:`SOLVER_PACKAGES` or not imported
        yet (:func:`solver_package`).
    """
    from numba.core.dispatcher import Dispatcher

    entry = solver_package(package)
    lazy = () if rare else entry.lazy
    # inline="always" functions are compiled into their callers, never alone
    return [v for k, v in vars(entry.kernels).items() if isinstance(v, Dispatcher)
            and v.targetoptions.get("inline") != "always" and k not in lazy]


def _is_cached(dispatcher) -> bool | None:
    """True if numba's on-disk cache holds a version of ``dispatcher`` for
    its current source, False if not, None if it cannot be told."""
    try:
        cache = dispatcher._cache
        if not getattr(cache, "_cache_file", None):      # cache=False: a null cache
            return False
        return bool(cache._cache_file._load_index())
    except Exception:          # a numba without these internals: unknown
        return None


@dataclass(frozen=True)
class CompileState:
    """How many of a package's kernels are ready.

    Attributes
    ----------
    package : str
    n_kernels : int
        Numba kernels in ``polyrank.<package>._kernels``.
    n_loaded : int
        Compiled or loaded in this process.
    n_cached : int
        Not loaded yet but present in numba's on-disk cache.
    n_unknown : int
        Kernels whose cache could not be inspected.
    """

    package: str
    n_kernels: int
    n_loaded: int
    n_cached: int
    n_unknown: int = 0

    @property
    def n_to_compile(self) -> int:
        """Kernels that a first use would compile (an upper bound: a fit
        compiles only the kernels it calls)."""
        return self.n_kernels - self.n_loaded - self.n_cached - self.n_unknown

    @property
    def needs_compiling(self) -> bool | None:
        """True if some kernel is neither loaded nor cached, None if that
        cannot be told (see :attr:`n_unknown`), else False."""
        if self.n_to_compile > 0:
            return True
        return None if self.n_unknown else False


def compile_state(package: str, rare: bool = False) -> CompileState:
    """The :class:`CompileState` of ``polyrank.<package>``'s kernels (with
    ``rare``, also those of its rare variants: see :func:`kernel_dispatchers`).

    Examples
    --------
    >>> import polyrank.sopopo
    >>> s = compile_state("sopopo")
    >>> s.n_kernels == s.n_loaded + s.n_cached + s.n_unknown + s.n_to_compile
    True
    """
    loaded = cached = unknown = 0
    ds = kernel_dispatchers(package, rare)
    for d in ds:
        if d.signatures:
            loaded += 1
            continue
        c = _is_cached(d)
        if c is None:
            unknown += 1
        elif c:
            cached += 1
    return CompileState(package, len(ds), loaded, cached, unknown)


def package_of(obj) -> str | None:
    """The solver package (``"sopopo"`` ...) an estimator, class or function
    belongs to, from its module name; None if it is not one of polyrank's.

    Parameters
    ----------
    obj : object
        An estimator, a class or a function.

    Returns
    -------
    str or None
        One of :data:`SOLVER_PACKAGES`, or None.

    Examples
    --------
    >>> from polyrank import RankSVM
    >>> package_of(RankSVM()), package_of(len)
    ('ranksvm', None)
    """
    import types

    owner = obj if isinstance(obj, (type, types.FunctionType)) else type(obj)
    parts = (getattr(owner, "__module__", "") or "").split(".")
    if len(parts) >= 2 and parts[0] == "polyrank" and parts[1] in SOLVER_PACKAGES:
        return parts[1]
    return None


