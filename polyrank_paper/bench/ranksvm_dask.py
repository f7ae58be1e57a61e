"""``polyrank bench ranksvm-dask``: single-process RankSVM against
DaskRankSVM on 1 and 2 workers (issue 31, item 5).

The data are :func:`polyrank.dask.make_ranking`'s LETOR-like problem (46
features on [0, 1], 20 documents per query, relevance 0-2), generated on
the workers of a ``LocalCluster`` (processes, one thread each; one cluster
per worker count) and the same rows generated in this process for the
single-process :class:`polyrank.RankSVM`.  Per size and setting: fit
seconds in total and per Newton step of TRON, CPU seconds (the busiest
worker's too), Newton steps and Hessian-vector products, the payload bytes
sent per Newton step (w, v, gradients and products; dask's serialisation
headers not counted), the milliseconds a round of messages costs without
work, the driver's peak allocations during a fit (tracemalloc; the single
process: its fit's own allocations, the data not counted), the peak
resident set during the fit (the single process: this process, holding the
data; Dask: the largest worker), and the final objective f of Eq. 1.3 with
its relative difference to the single process's.  Single-process and Dask
fits alternate over the repeats, and each Dask setting is shown after the
single-process fits that alternated with it (on a shared machine the load
moves between the settings); the single process runs on one BLAS thread,
as each worker does.

Targets of the issue: 2 workers at the largest size in at most 0.7x the
single-process time, and a driver peak that does not grow with the number
of documents.  The machine's load average is printed before and after: on
a shared 2-core machine, other processes take cores from the 2-worker run.
The notes end with a projection to 1e9 documents on 64 workers from the
measured compute per document and round, the rounds, the latency of a
round and the worker memory per document.
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import time
import tracemalloc
import warnings
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from polyrank.dask import (
    DaskRankSVM,
    import_distributed,
    make_ranking,
    make_ranking_partition,
    query_splits,
)
from polyrank.ranksvm import RankSVM
from polyrank.validation import check_int

from .._harness import load_average
from ..registry import ExperimentResult, RepeatedBench, column, fmt_spec, record, register_bench

__all__ = ["bench_ranksvm_dask", "RankDaskRow", "RankDaskSummary"]

_MB = 2.0 ** 20
#: the projection of the notes: documents and workers
_PROJ_DOCS, _PROJ_WORKERS = 1_000_000_000, 64


def _opt(spec):
    def fmt(v):
        return "-" if v is None else format(v, spec)
    return fmt


@dataclass(frozen=True)
class RankDaskRow:
    """One setting of :func:`bench_ranksvm_dask` at one size.

    Attributes
    ----------
    documents : int
        l, the rows of X.
    setting : str
        ``"Dask, 1 worker"``, ``"Dask, 2 workers"``, each after the
        single-process fits that alternated with it: ``"1 process, beside
        1 worker"`` ... (same size, same stretch of time: the fairest
        pairing on a shared machine).
    total_s : float
        Median wall seconds of ``fit`` (validation, query grouping; for
        Dask also placing the partitions, the checks and starting the
        actors; TRON).
    s_per_iter : float
        Median wall seconds of the TRON phase per Newton step.
    ratio : float
        total_s over that of the single-process row before it.
    cpu_s : float
        Median CPU seconds of the fit: the process's, or the workers' and
        the driver's summed.
    max_worker_cpu_s : float or None
        The busiest worker's CPU seconds (median).
    steps, n_hv : int
        Newton steps and Hessian-vector products.
    bytes_per_iter : float or None
        Payload bytes sent and received per Newton step (None: one process).
    round_ms : float or None
        Milliseconds per round of messages with almost no work (a fit of
        2,000 documents on the same cluster: TRON seconds / rounds).
    driver_mb : float
        Peak of the driver's allocations during a fit (tracemalloc, a fit
        of 2 Newton steps), MiB; for 1 process the fit's own allocations
        (its O(l) workspaces).
    peak_rss_mb : float or None
        The peak resident set during the timed fits, MiB: 1 process this
        process (the data included); Dask the largest worker (its
        partitions included); None where the system cannot reset the peak.
    data_mb : float
        The bytes of X, y and qid, MiB.
    f : float
        f(w) of Eq. 1.3 at the end.
    rel_f : float
        |f - f_single| / f_single.
    """

    documents: int = column("documents", fmt_spec(","))
    setting: str = column("setting")
    total_s: float = column("total s", fmt_spec(".2f"))
    s_per_iter: float = column("s / iter", fmt_spec(".3f"))
    ratio: float = column("/ 1 process", fmt_spec(".2f"))
    cpu_s: float = column("CPU s", fmt_spec(".2f"))
    max_worker_cpu_s: float | None = column("busiest worker CPU s", _opt(".2f"))
    steps: int = column("iter")
    n_hv: int = column("Hv")
    bytes_per_iter: float | None = column("bytes / iter", _opt(",.0f"))
    round_ms: float | None = column("ms / round", _opt(".1f"))
    driver_mb: float = column("driver peak MiB", fmt_spec(",.1f"))
    peak_rss_mb: float | None = column("peak RSS MiB", _opt(",.0f"))
    data_mb: float = column("data MiB", fmt_spec(",.0f"))
    f: float = column("f(w)", fmt_spec(".10g"))
    rel_f: float = column("|f - f1| / f1", fmt_spec(".1e"))


@record
class RankDaskSummary(RepeatedBench):
    """The key figures of :func:`bench_ranksvm_dask`.

    Attributes
    ----------
    largest : int
        The largest number of documents run.
    ratio_2_workers : float or None
        Total seconds of 2 workers over the single process's at ``largest``
        (None without a 2-worker setting).
    time_target_met : bool
        ``ratio_2_workers <= 0.7``.
    cpu_ratio_2_workers : float or None
        The busiest of 2 workers' CPU seconds over the CPU seconds of the
        single-process fits alternating with them, at ``largest``: about the
        time ratio on a machine with a free core per worker.
    core_share : float
        Those single-process fits' CPU seconds over their wall seconds (1:
        a core to themselves; less: other processes took part of it).
    driver_mb : tuple of float
        The Dask drivers' peaks (MiB), one per size (largest worker count).
    memory_target_met : bool or None
        The driver peak at the largest size is at most 1.5x that at the
        smallest (None with one size).
    max_rel_f : float
        The largest relative difference of f to the single process.
    us_per_doc_round : float
        Worker CPU microseconds per document and round of messages (the
        busiest worker, largest size, fewest workers).
    round_ms : float
        Milliseconds per round without work (largest worker count).
    worker_bytes_per_doc : float or None
        Worker peak resident set during the fit less its resident set
        before the data were generated, over its documents, at ``largest``
        (most workers).
    projected_s : float
        Projected TRON seconds for 1e9 documents on 64 workers: the rounds
        at ``largest`` times (us_per_doc_round x 1e9 / 64 + round_ms).
    projected_worker_gib : float or None
        worker_bytes_per_doc x 1e9 / 64, GiB per worker.
    load_before, load_after : float or None
        The machine's 1-minute load average.
    n_cpus : int
    """

    largest: int
    ratio_2_workers: float | None
    time_target_met: bool
    cpu_ratio_2_workers: float | None
    core_share: float
    driver_mb: tuple
    memory_target_met: bool | None
    max_rel_f: float
    us_per_doc_round: float
    round_ms: float
    worker_bytes_per_doc: float | None
    projected_s: float
    projected_worker_gib: float | None
    load_before: float | None
    load_after: float | None
    n_cpus: int



# ------------------------------------------------------------ measurements

def _reset_peak_rss() -> bool:
    """Reset this process's peak resident set (Linux: ``clear_refs``)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mib():
    """This process's peak resident set since the last reset, MiB (None
    where /proc is missing)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def _rss_mib():
    """This process's resident set now, MiB (ru_maxrss where /proc is
    missing)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _local_data(n, npartitions, n_features, docs_per_query, seed):
    """The rows of make_ranking(n, ...), generated here, in one array."""
    cuts = query_splits(n // docs_per_query, npartitions)
    X = np.empty((n, n_features))
    y = np.empty(n)
    qid = np.empty(n, dtype=np.int64)
    at = 0
    for k in range(npartitions):
        Xk, yk, qk = make_ranking_partition(seed, k, int(cuts[k]), int(cuts[k + 1] - cuts[k]),
                                            docs_per_query, n_features)
        X[at:at + qk.size], y[at:at + qk.size], qid[at:at + qk.size] = Xk, yk, qk
        at += qk.size
        del Xk
    return X, y, qid


def _fit_clock(model, *args, client=None, **kw):
    """(wall s, TRON s, CPU s, busiest worker's CPU s or None, peak RSS MiB
    or None) of ``model.fit``: this process's peak for a local fit, the
    largest worker's for a Dask fit."""
    if client is not None:
        before = client.run(time.process_time)
        reset = all(client.run(_reset_peak_rss).values())
    else:
        gc.collect()
        reset = _reset_peak_rss()
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(*args, **kw)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    worker = None
    if client is not None:
        after = client.run(time.process_time)
        used = [after[k] - before[k] for k in after]
        cpu += sum(used)
        worker = max(used)
        peaks = list(client.run(_peak_rss_mib).values())
        peak = max(peaks) if reset and None not in peaks else None
    else:
        peak = _peak_rss_mib() if reset else None
    return wall, float(model.result_.trace.time_s[-1]), cpu, worker, peak


def _driver_peak(model, *args, **kw):
    """The driver's allocation peak (tracemalloc, MiB) during a fit of 2
    Newton steps (the driver's state does not grow with the steps)."""
    model.set_params(max_iter=2)
    gc.collect()
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")                 # max_iter on purpose
            model.fit(*args, **kw)
        return tracemalloc.get_traced_memory()[1] / _MB
    finally:
        tracemalloc.stop()


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _warm_up(client, opts):
    """One small fit in this process and one on the cluster: the numba
    kernels are loaded (or compiled) before the timed fits."""
    kw = dict(n_features=opts["n_features"], docs_per_query=opts["docs_per_query"],
              npartitions=2, seed=12345)
    n = 4 * opts["docs_per_query"]
    Xs, ys, qs = (a.compute() for a in make_ranking(n, **kw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                     # max_iter on purpose
        RankSVM(C=opts["C"], max_iter=2).fit(Xs, ys, qid=qs)
        DaskRankSVM(C=opts["C"], max_iter=2, client=client).fit(*make_ranking(n, **kw))


def _round_ms(client, opts, workers):
    """Milliseconds per round of messages on a problem with almost no work
    per round (2,000 documents)."""
    Xd, yd, qd = make_ranking(2000, n_features=opts["n_features"], docs_per_query=20,
                              npartitions=workers, seed=7)
    model = DaskRankSVM(C=opts["C"], tol=1e-10, max_iter=20, client=client)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                     # max_iter on purpose
        model.fit(Xd, yd, qid=qd)
    return 1e3 * float(model.result_.trace.time_s[-1]) / max(model.result_.n_rounds - 1, 1)


def _row(n, setting, clocks, res, driver, data_mb, f1, latency):
    steps = max(int(res.nit), 1)
    f = float(res.primal_objective)
    traffic = (res.bytes_sent + res.bytes_received) / steps if "bytes_sent" in res else None
    peaks = [c[4] for c in clocks if c[4] is not None]
    return dict(documents=n, setting=setting, total_s=_median(c[0] for c in clocks),
                s_per_iter=_median(c[1] for c in clocks) / steps,
                cpu_s=_median(c[2] for c in clocks),
                max_worker_cpu_s=_median(c[3] for c in clocks), steps=int(res.nit),
                n_hv=int(res.n_hv), bytes_per_iter=traffic, round_ms=latency,
                driver_mb=driver, peak_rss_mb=max(peaks) if peaks else None,
                data_mb=data_mb, f=f, rel_f=0.0 if f1 is None else abs(f - f1) / abs(f1))


def _size_on_cluster(client, n, workers, repeats, opts, seed):
    """The timings at ``n`` documents on one cluster: (single clocks,
    single result, single driver peak, Dask clocks, Dask result, Dask
    driver peak, data MiB, worker baseline RSS MiB)."""
    distributed = import_distributed()
    fit_kw = dict(C=opts["C"], tol=opts["tol"])
    base = max(client.run(_rss_mib).values())
    Xd, yd, qd = client.persist(list(make_ranking(
        n, n_features=opts["n_features"], docs_per_query=opts["docs_per_query"],
        npartitions=opts["npartitions"], seed=seed)))
    distributed.wait([Xd, yd, qd])
    X, y, qid = _local_data(n, opts["npartitions"], opts["n_features"],
                            opts["docs_per_query"], seed)
    data_mb = sum(a.nbytes for a in (X, y, qid)) / _MB
    try:
        single, clocks = [], []
        for _ in range(repeats):
            one = RankSVM(**fit_kw)
            with threadpool_limits(1):          # one thread, as each worker has
                single.append(_fit_clock(one, X, y, qid=qid))
            model = DaskRankSVM(**fit_kw, client=client)
            clocks.append(_fit_clock(model, Xd, yd, qid=qd, client=client))
        with threadpool_limits(1):
            one_mb = _driver_peak(RankSVM(**fit_kw), X, y, qid=qid)
        driver_mb = _driver_peak(DaskRankSVM(**fit_kw, client=client), Xd, yd, qid=qd)
    finally:
        del X, y, qid, Xd, yd, qd
        gc.collect()
    return single, one.result_, one_mb, clocks, model.result_, driver_mb, data_mb, base


def _on_cluster(workers, sizes, repeats, opts, seed, progress):
    """Every size on a fresh LocalCluster of ``workers`` processes."""
    distributed = import_distributed()
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                       processes=True, dashboard_address=None,
                                       silence_logs=40)
    out = {}
    try:
        with distributed.Client(cluster) as client:
            _warm_up(client, opts)
            latency = _round_ms(client, opts, workers)
            for n in sizes:
                out[n] = _size_on_cluster(client, n, workers, repeats, opts, seed) + (latency,)
                if progress:
                    s = out[n]
                    print(f"  {n:,} documents, {workers} worker(s): Dask "
                          f"{_median(c[0] for c in s[3]):.2f} s, 1 process "
                          f"{_median(c[0] for c in s[0]):.2f} s", flush=True)
    finally:
        cluster.close()
    return out


@register_bench("ranksvm-dask")
def bench_ranksvm_dask(*, quick: bool = False, seed: int = 0, progress: bool = False,
                       sizes: tuple | None = None, repeats: int | None = None,
                       workers: tuple = (1, 2), C: float = 0.1, tol: float = 1e-5,
                       n_features: int = 46, docs_per_query: int = 20,
                       npartitions: int = 4) -> ExperimentResult:
    """Time single-process RankSVM against DaskRankSVM (see the module
    docstring).

    Parameters
    ----------
    quick : bool
        Sizes 20,000 and 100,000 documents.
    seed : int
        Seed of the generated data.
    progress : bool
        Print a line per size and worker count as it is done.
    sizes : tuple of int, optional
        Numbers of documents, multiples of ``docs_per_query``; default
        1,000,000 and 10,000,000 (quick: 20,000 and 100,000).
    repeats : int, optional
        Alternating repeats per setting (default 3; quick: 1).
    workers : tuple of int
        The worker counts of the Dask settings (one LocalCluster each).
    C, tol : float
        RankSVM's parameters (the same for both).
    n_features, docs_per_query, npartitions : int
        The generated problem; ``npartitions`` partitions of whole queries.

    Returns
    -------
    ExperimentResult
        rows: :class:`RankDaskRow`; summary: :class:`RankDaskSummary`;
        notes: the two targets and whether each was met, the load average,
        the projection to 1e9 documents on 64 workers.

    Raises
    ------
    ImportError
        Without dask.distributed (``pip install 'polyrank[dask]'``).
    ValueError
        ``repeats`` or a worker count below 1, no worker count.
    """
    sizes = ((20_000, 100_000) if quick else (1_000_000, 10_000_000)) if sizes is None \
        else tuple(sorted(int(s) for s in sizes))
    repeats = (1 if quick else 3) if repeats is None else check_int(repeats, "repeats",
                                                                     minimum=1)
    workers = tuple(sorted(check_int(w, "workers", minimum=1) for w in workers))
    if not workers:
        raise ValueError("workers: at least one worker count")
    opts = dict(C=float(C), tol=float(tol), n_features=int(n_features),
                docs_per_query=int(docs_per_query), npartitions=int(npartitions))
    load_before = load_average()
    runs = {w: _on_cluster(w, sizes, repeats, opts, seed, progress) for w in workers}
    load_after = load_average()
    rows = []
    for n in sizes:
        f1 = float(runs[workers[0]][n][1].primal_objective)
        for w in workers:
            # each Dask setting beside the single-process fits that alternated with it
            single, s_res, s_mb, clocks, res, driver, data_mb, _, latency = runs[w][n]
            one = _row(n, f"1 process, beside {_workers(w)}", single, s_res, s_mb, data_mb,
                       f1, None)
            dask = _row(n, f"Dask, {_workers(w)}", clocks, res, driver, data_mb, f1, latency)
            one["ratio"], dask["ratio"] = 1.0, dask["total_s"] / one["total_s"]
            rows += [RankDaskRow(**one), RankDaskRow(**dask)]
    return _result(rows, runs, sizes, workers, quick, repeats, load_before, load_after, opts)


def _workers(w: int) -> str:
    return f"{w} worker{'s' if w > 1 else ''}"


def _projection(rows, runs, sizes, workers):
    """(us per document and round, ms per round, worker bytes per document,
    projected seconds, projected GiB per worker, rounds)."""
    n, w = sizes[-1], workers[0]
    res = runs[w][n][4]
    row = next(r for r in rows if r.documents == n and r.setting.startswith(f"Dask, {w} "))
    rounds = int(res.n_rounds)
    us_doc = 1e6 * row.max_worker_cpu_s / rounds / (n / w)
    latency = float(runs[workers[-1]][n][8])
    two = next(r for r in rows if r.documents == n and r.setting.startswith(
        f"Dask, {workers[-1]} "))
    base = float(runs[workers[-1]][n][7])        # a worker's resident set before the data
    per_doc = (None if two.peak_rss_mb is None else
               (two.peak_rss_mb - base) * _MB / (n / workers[-1]))
    per_worker = _PROJ_DOCS / _PROJ_WORKERS
    seconds = rounds * (us_doc * 1e-6 * per_worker + latency * 1e-3)
    gib = None if per_doc is None else per_doc * per_worker / 2 ** 30
    return us_doc, latency, per_doc, seconds, gib, rounds


def _result(rows, runs, sizes, workers, quick, repeats, load_before, load_after, opts):
    largest = sizes[-1]
    two = [r for r in rows if r.setting == "Dask, 2 workers"]
    ratio = next((r.ratio for r in two if r.documents == largest), None)
    paired = runs[workers[-1]][largest][0]         # the single fits beside the most workers
    one_wall, one_cpu = _median(c[0] for c in paired), _median(c[2] for c in paired)
    rel = [r.rel_f for r in rows if r.setting.startswith("Dask")]
    cpu_ratio = next((r.max_worker_cpu_s / one_cpu for r in two
                      if r.documents == largest), None)
    share = one_cpu / one_wall
    dask_rows = [r for r in rows if r.setting == f"Dask, {workers[-1]} worker"
                 + ("s" if workers[-1] > 1 else "")]
    driver = tuple(float(r.driver_mb) for r in dask_rows)
    mem_ok = bool(driver[-1] <= 1.5 * driver[0]) if len(driver) > 1 else None
    max_rel = max(rel)
    us_doc, latency, per_doc, seconds, gib, rounds = _projection(rows, runs, sizes, workers)
    n_cpus = os.cpu_count() or 1
    loaded = (f"machine load average {load_before:.1f} before, {load_after:.1f} after, "
              f"on {n_cpus} cores" if load_before is not None else f"{n_cpus} cores")
    notes = []
    if ratio is not None:
        notes.append(f"time: 2 workers at {largest:,} documents take {ratio:.2f}x the time of "
                     f"the single-process fits alternating with them ({one_wall:.3g} s; target "
                     f"<= 0.7x: {'met' if ratio <= 0.7 else 'NOT met'}); in CPU seconds the "
                     f"busiest worker did {cpu_ratio:.2f}x their work, and they had "
                     f"{share:.0%} of a core (CPU s / wall s)")
    notes += [
        f"memory: the driver's peak allocations during a {workers[-1]}-worker fit are "
        + ", ".join(f"{m:.1f} MiB" for m in driver) + " at "
        + ", ".join(f"{n:,}" for n in sizes) + " documents (target: independent of the "
        "documents, largest <= 1.5x smallest: "
        + ("-" if mem_ok is None else "met" if mem_ok else "NOT met") + ")",
        f"objective: f of the Dask fits within {max_rel:.1e} (relative) of the single "
        f"process's (C = {opts['C']:g}, tol = {opts['tol']:g})",
        f"projection, {_PROJ_DOCS:.0e} documents on {_PROJ_WORKERS} workers: {rounds} rounds "
        f"(as at {largest:,}) x ({us_doc:.3f} us of worker CPU per document and round x "
        f"{_PROJ_DOCS // _PROJ_WORKERS:,} documents + {latency:.1f} ms per round) = "
        f"{seconds:.0f} s of TRON"
        + ("" if gib is None else f"; {per_doc:.0f} bytes per document on a worker: "
           f"{gib:.1f} GiB per worker"),
        f"{loaded}; LocalCluster worker processes with one thread each; data generated "
        "on the workers (single process: in this process); median of "
        f"{repeats} alternating repeat(s)"]
    summary = RankDaskSummary(
        bench="ranksvm-dask", quick=quick, repeats=repeats, largest=largest,
        ratio_2_workers=ratio, time_target_met=bool(ratio is not None and ratio <= 0.7),
        cpu_ratio_2_workers=cpu_ratio, core_share=share,
        driver_mb=driver, memory_target_met=mem_ok, max_rel_f=max_rel,
        us_per_doc_round=us_doc, round_ms=latency, worker_bytes_per_doc=per_doc,
        projected_s=seconds, projected_worker_gib=gib, load_before=load_before,
        load_after=load_after, n_cpus=n_cpus)
    return ExperimentResult("ranksvm-dask", "RankSVM in one process vs DaskRankSVM on 1 and 2 "
                            "workers: seconds, bytes and memory per fit", rows, summary,
                            notes=notes)
