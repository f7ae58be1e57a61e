"""``polyrank bench ranksvm-liblinear``: RankSVM on two threads against
liblinear-ranksvm's ``train -s 8`` (issue 30, item 4).

The data are :func:`polyrank.dask.make_ranking_partition`'s LETOR-like
problem (46 features on [0, 1], 20 documents per query, relevance 0-2),
generated in this process.  Per size, interleaved repeats (the order turns
each repeat) of

- liblinear-ranksvm's ``train()`` with ``-s 8 -c 1 -e 0.001`` (Tree-TRON in
  C++, one thread: the package has no OpenMP), called in this process
  through ctypes on the problem in memory (see
  :mod:`polyrank_paper.bench._liblinear_ranksvm`; ``train``'s text
  parsing is left out);
- ``RankSVM(n_jobs=2).fit(X, y, qid=qid)`` (validation, query grouping and
  Tree-TRON; numba threads over fixed blocks of whole queries);
- ``RankSVM().fit(...)`` (one thread, the default),

with f of Eq. 1.3 of each w (the peer's evaluated by
:class:`~polyrank.ranksvm.RankSVMObjective`), the ratio of each time to the
peer's, and the time per million documents (the growth table).  Target of
the issue: at 1M and 3M documents RankSVM(n_jobs=2) in at most 0.5x the
peer's time, with the same objective to every printed digit.
"""

from __future__ import annotations

import gc
import math
import os
import statistics
import time
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.dask import make_ranking_partition
from polyrank.ranksvm import RankSVM, RankSVMObjective
from polyrank.validation import check_int

from .._harness import load_average, progress_bar
from ..registry import ExperimentResult, RepeatedBench, column, fmt_spec, record, register_bench
from ._liblinear_ranksvm import LiblinearRankSVM, find_peer

__all__ = ["bench_ranksvm_liblinear", "RankLiblinearRow", "RankLiblinearSummary"]

#: the printed digits of f (the "same objective" test compares these)
F_DIGITS = ".9g"
_PEER = "liblinear-ranksvm train -s 8 (1 thread)"
_TARGET = 0.5
_TARGET_SIZES = (1_000_000, 3_000_000)


def _ours(n_jobs) -> str:
    return "RankSVM()" if n_jobs is None else f"RankSVM(n_jobs={n_jobs})"


def _opt_ratio(v) -> str:
    return "-" if v is None else f"{v:.2f}x"


@dataclass(frozen=True)
class RankLiblinearRow:
    """One solver at one size of :func:`bench_ranksvm_liblinear`.

    Attributes
    ----------
    documents : int
    solver : str
    seconds, cpu_s : float
        Median wall and CPU seconds per fit.
    s_per_million : float
        ``seconds`` per million documents (the growth table).
    f : float
        f(w) of Eq. 1.3 at the solver's w.
    newton_steps : int or None
        TRON's accepted steps (None: the peer, which does not report them).
    ratio : float or None
        ``seconds`` over the peer's (None: no peer).
    """

    documents: int = column("documents", lambda v: f"{v:,}")
    solver: str = column("solver")
    seconds: float = column("s / fit", fmt_spec(".3f"))
    cpu_s: float = column("CPU s", fmt_spec(".3f"))
    s_per_million: float = column("s / 1M docs", fmt_spec(".3f"))
    f: float = column("f(w) (Eq. 1.3)", fmt_spec(F_DIGITS))
    newton_steps: int | None = column("Newton steps")
    ratio: float | None = column("/ peer", _opt_ratio, default=None)


@record
class RankLiblinearSummary(RepeatedBench):
    """The key figures of :func:`bench_ranksvm_liblinear`.

    Attributes
    ----------
    n_jobs : int
        RankSVM's threads in the timed two-thread fits.
    peer : str or None
        The peer's library (None: not found, nothing compared).
    ratios : dict
        Documents (str) -> RankSVM(n_jobs) time over the peer's.
    target_met : bool or None
        Every ratio at 1M and 3M documents <= 0.5 (None: not measured).
    same_f : bool or None
        f of RankSVM(n_jobs) and of the peer equal to every printed digit
        at every size (None: no peer).
    bitwise_same : bool
        RankSVM(n_jobs) and an untimed RankSVM(n_jobs=1) found bitwise the
        same w at every size.
    load_before, load_after : float or None
        The machine's 1-minute load average.
    n_cpus : int
    """

    n_jobs: int
    peer: str | None
    ratios: dict
    target_met: bool | None
    same_f: bool | None
    bitwise_same: bool
    load_before: float | None
    load_after: float | None
    n_cpus: int



def _timed(fn):
    """(wall s, CPU s, value) of one call."""
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def _size_runs(n, seed, repeats, n_jobs, peer_path, C, tol):
    """The interleaved fits at ``n`` documents: {solver: (walls, cpus,
    last result)}, f at each solver's w, and whether an untimed
    RankSVM(n_jobs=1) found bitwise the w of RankSVM(n_jobs)."""
    X, y, qid = make_ranking_partition(seed, 0, 0, n // 20, 20, 46)
    fits = {_ours(n_jobs): lambda: RankSVM(C=C, tol=tol, n_jobs=n_jobs).fit(X, y, qid=qid),
            _ours(None): lambda: RankSVM(C=C, tol=tol).fit(X, y, qid=qid)}
    for nj in (n_jobs, None):                   # kernels loaded before the clock
        RankSVM(C=C, tol=tol, n_jobs=nj).fit(X[:2000], y[:2000], qid=qid[:2000])
    peer = None
    if peer_path is not None:
        peer = LiblinearRankSVM(peer_path, X, y, qid)
        fits = {_PEER: lambda: peer.fit(C, tol), **fits}
    names = list(fits)
    runs = {k: ([], [], None) for k in names}
    for rep in range(repeats):
        for k in names[rep % len(names):] + names[:rep % len(names)]:
            wall, cpu, out = _timed(fits[k])
            runs[k][0].append(wall)
            runs[k][1].append(cpu)
            runs[k] = (runs[k][0], runs[k][1], out)
    obj = RankSVMObjective(X, y, qid, C=C)
    f = {k: float(obj.fun(v[2] if k == _PEER else v[2].coef_)) for k, v in runs.items()}
    one = RankSVM(C=C, tol=tol, n_jobs=1).fit(X, y, qid=qid).coef_
    return runs, f, bool(np.array_equal(one, runs[_ours(n_jobs)][2].coef_))


def _rows(n, runs, f):
    peer_s = statistics.median(runs[_PEER][0]) if _PEER in runs else None
    rows = []
    for k, (walls, cpus, out) in runs.items():
        s = statistics.median(walls)
        rows.append(RankLiblinearRow(
            documents=n, solver=k, seconds=s, cpu_s=statistics.median(cpus),
            s_per_million=s / (n / 1e6), f=f[k],
            newton_steps=None if k == _PEER else int(out.n_iter_),
            ratio=None if peer_s is None else s / peer_s))
    return rows


@register_bench("ranksvm-liblinear")
def bench_ranksvm_liblinear(*, quick: bool = False, seed: int = 0, progress: bool = False,
                            sizes: tuple | None = None, repeats: int | None = None,
                            n_jobs: int = 2, C: float = 1.0,
                            tol: float = 1e-3) -> ExperimentResult:
    """Time RankSVM on ``n_jobs`` threads and on one against liblinear-ranksvm
    (see the module docstring).

    Parameters
    ----------
    quick : bool
        Sizes 20,000 and 60,000 documents, 2 repeats.
    seed : int
        Seed of the generated data.
    progress : bool
        A progress bar over the sizes.
    sizes : tuple of int, optional
        Numbers of documents (multiples of 20); default 300,000, 1,000,000
        and 3,000,000.
    repeats : int, optional
        Interleaved repeats per size (default 3).
    n_jobs : int
        RankSVM's threads in the parallel fits (>= 2).
    C, tol : float
        Both solvers' C and relative gradient tolerance (``-c``, ``-e``).

    Returns
    -------
    ExperimentResult
        rows: :class:`RankLiblinearRow`; summary: :class:`RankLiblinearSummary`;
        notes: the ratios against the target, the objectives, the growth
        exponents, the load average, what the peer ran on.

    Raises
    ------
    ValueError
        ``repeats`` < 1, ``n_jobs`` < 2, a size that is not a positive
        multiple of 20.
    """
    sizes = ((20_000, 60_000) if quick else (300_000, 1_000_000, 3_000_000)) if sizes is None \
        else tuple(sorted(int(s) for s in sizes))
    if any(s <= 0 or s % 20 for s in sizes):
        raise ValueError(f"sizes: positive multiples of 20 documents, got {sizes}")
    repeats = (2 if quick else 3) if repeats is None else check_int(repeats, "repeats",
                                                                     minimum=1)
    n_jobs = check_int(n_jobs, "n_jobs", minimum=2)
    peer_path = find_peer()
    load_before = load_average()
    rows, bitwise = [], True
    bar = progress_bar(len(sizes), "bench ranksvm-liblinear", progress)
    with threadpool_limits(1):
        for n in sizes:
            runs, f, same = _size_runs(n, seed, repeats, n_jobs, peer_path, C, tol)
            bitwise &= same
            rows += _rows(n, runs, f)
            bar.update()
    bar.close()
    return _result(rows, sizes, quick, repeats, n_jobs, peer_path, bitwise, load_before)


def _growth(rows, solver):
    """Exponents a of t ~ n^a between consecutive sizes, for ``solver``."""
    pts = [(r.documents, r.seconds) for r in rows if r.solver == solver]
    return [math.log(t2 / t1) / math.log(n2 / n1)
            for (n1, t1), (n2, t2) in zip(pts, pts[1:])]


def _result(rows, sizes, quick, repeats, n_jobs, peer_path, bitwise, load_before):
    load_after = load_average()
    ours = _ours(n_jobs)
    ratios = {str(r.documents): r.ratio for r in rows if r.solver == ours and r.ratio is not None}
    peer_f = {r.documents: r.f for r in rows if r.solver == _PEER}
    same_f = (all(format(r.f, F_DIGITS) == format(peer_f[r.documents], F_DIGITS)
                  for r in rows if r.solver == ours) if peer_f else None)
    at_target = [ratios[str(s)] for s in _TARGET_SIZES if str(s) in ratios]
    met = all(v <= _TARGET for v in at_target) if at_target else None
    n_cpus = os.cpu_count() or 1
    notes = []
    if peer_path is None:
        notes.append("liblinear-ranksvm NOT found (set POLYRANK_LIBLINEAR_RANKSVM to its "
                     "liblinear.so.3, built by `make lib` in a scratch folder such as "
                     "/tmp/peers/liblinear-ranksvm): only RankSVM was timed")
    else:
        for r in rows:
            if r.solver == ours:
                notes.append(f"{r.documents:,} documents: {ours} {r.seconds:.2f} s, "
                             f"{r.ratio:.2f}x the {r.seconds / r.ratio:.2f} s of {_PEER}; "
                             f"f = {r.f:{F_DIGITS}} vs {peer_f[r.documents]:{F_DIGITS}}")
        notes.append(f"at most {_TARGET}x the peer's time at 1M and 3M documents: "
                     + ("not measured at these sizes" if met is None
                        else "yes" if met else "no")
                     + f"; same f to every printed digit: {'yes' if same_f else 'NO'}")
    f_ours = {r.documents: format(r.f, F_DIGITS) for r in rows if r.solver == ours}
    default_same = all(format(r.f, F_DIGITS) == f_ours[r.documents] for r in rows
                       if r.solver == _ours(None))
    notes.append(f"{ours} and RankSVM(n_jobs=1) (untimed) found bitwise the same w at every "
                 f"size: {'yes' if bitwise else 'NO'}; RankSVM() (n_jobs=None, LIBLINEAR's "
                 f"order of the sums) has the same f to every printed digit: "
                 f"{'yes' if default_same else 'NO'}")
    for solver in dict.fromkeys(r.solver for r in rows):
        g = _growth(rows, solver)
        if g:
            notes.append(f"growth, {solver}: time ~ n^a with a = "
                         + ", ".join(f"{a:.2f}" for a in g) + " between consecutive sizes")
    notes.append((f"machine load average {load_before:.1f} before, {load_after:.1f} after, "
                  f"on {n_cpus} cores" if load_before is not None else f"{n_cpus} cores")
                 + f"; median of {repeats} interleaved repeat(s); the peer: "
                 + (f"{peer_path} (one thread, no OpenMP in liblinear-ranksvm)"
                    if peer_path else "none"))
    summary = RankLiblinearSummary(
        bench="ranksvm-liblinear", quick=quick, repeats=repeats, n_jobs=n_jobs,
        peer=None if peer_path is None else str(peer_path), ratios=ratios, target_met=met,
        same_f=same_f, bitwise_same=bitwise, load_before=load_before, load_after=load_after,
        n_cpus=n_cpus)
    return ExperimentResult("ranksvm-liblinear", f"{ours} and RankSVM() vs liblinear-ranksvm "
                            "train -s 8 on generated LETOR-like data: seconds per fit",
                            rows, summary, notes=notes)
