"""The machinery shared by the Dask estimators: the client, the partitions of
dask collections placed on the workers that hold them, one actor per worker,
and rounds of O(d) messages with their byte counts.

Nothing here imports dask at module level: :func:`import_distributed` does,
on first use, and says which extra to install when it is missing.
"""

from __future__ import annotations

import asyncio
import numbers
import time
from collections import defaultdict

import numpy as np

from ..validation import check_query_ids

__all__ = ["DASK_EXTRA", "import_dask", "import_distributed", "get_client", "ClientParam",
           "collection_parts", "check_partition_width", "n_columns", "column_names", "balance",
           "place_parts", "partition_rows", "place_rows", "ShardLost", "Rebuilder",
           "start_actors", "Rounds", "payload_bytes", "check_rows", "query_split",
           "check_no_split", "release"]

#: How to install what :mod:`polyrank.dask` needs.
DASK_EXTRA = "pip install 'polyrank[dask]'"


def import_distributed():
    """The ``distributed`` module (dask.distributed), imported on first use.

    Raises
    ------
    ImportError
        If dask.distributed is not installed; the message names the extra.
    """
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("polyrank.dask needs dask.distributed, which is not installed; "
                          f"install the dask extra: {DASK_EXTRA}") from exc
    return distributed


def import_dask():
    """The ``dask`` module, imported on first use.

    Raises
    ------
    ImportError
        If dask is not installed; the message names the extra.
    """
    try:
        import dask
        import dask.array  # noqa: F401  (the collections the estimators build)
    except ImportError as exc:
        raise ImportError(f"polyrank.dask needs dask, which is not installed; install the "
                          f"dask extra: {DASK_EXTRA}") from exc
    return dask


def get_client(client):
    """The client to run on: ``client``, or the default one when None.

    Raises
    ------
    ImportError
        Without dask.distributed.
    ValueError
        ``client`` is None and no client is running.
    TypeError
        ``client`` is not a ``distributed.Client``.
    """
    distributed = import_distributed()
    if client is None:
        try:
            return distributed.default_client()
        except ValueError as exc:
            raise ValueError("client: None given and no Dask client is running; pass "
                             "client=distributed.Client(...) (or create one first)") from exc
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client: expected a distributed.Client or None, got "
                        f"{type(client).__name__}")
    return client


class ClientParam:
    """Mixin of the Dask estimators: the ``client`` parameter is not pickled
    (a fitted model travels without its connection; ``client=None`` then
    means the default client at the next fit)."""

    def __getstate__(self):
        state = dict(super().__getstate__())
        state["client"] = None
        return state


def _kind(obj) -> str:
    """"array", "frame" (DataFrame), "series" or "" for a non-dask object."""
    mod = type(obj).__module__ or ""
    if not mod.startswith(("dask", "dask_expr")) or not hasattr(obj, "to_delayed"):
        return ""
    if hasattr(obj, "chunks") and hasattr(obj, "numblocks"):
        return "array"
    return "frame" if getattr(obj, "ndim", 1) == 2 else "series"


def collection_parts(obj, name: str, ndim: int) -> list:
    """The partitions of a dask array (chunked along rows only), DataFrame
    or Series as a list of ``dask.delayed`` objects.

    Parameters
    ----------
    obj : dask.array.Array, dask.dataframe.DataFrame or Series
    name : str
        The argument's name in messages.
    ndim : int
        2 for X, 1 for a vector (y, qid, sample_weight).

    Raises
    ------
    TypeError
        Not a dask collection (in-memory data belongs to the local
        estimator), or a DataFrame where a vector is expected.
    ValueError
        A dask array of another dimension, or one chunked along its columns.
    """
    kind = _kind(obj)
    if not kind:
        raise TypeError(f"{name}: expected a dask array or dask DataFrame/Series, got "
                        f"{type(obj).__module__}.{type(obj).__name__}; fit in-memory data "
                        "with the local estimator, or wrap it: dask.array.from_array(...)")
    if kind == "array":
        if obj.ndim != ndim:
            raise ValueError(f"{name}: expected a {ndim}-d dask array, got shape {obj.shape}")
        if ndim == 2 and obj.numblocks[1] != 1:
            raise ValueError(f"{name}: the dask array is chunked along its columns "
                             f"({obj.numblocks[1]} column chunks); a partition must hold whole "
                             f"rows: {name}.rechunk({{1: -1}})")
        return list(obj.to_delayed().ravel())
    if kind == "frame" and ndim == 1:
        raise TypeError(f"{name}: expected a dask array or Series, got a dask DataFrame")
    return list(obj.to_delayed())


def check_partition_width(X, n_features: int, index: int) -> None:
    """ValueError naming partition ``index`` unless its piece ``X`` (numpy,
    scipy sparse or pandas, on a worker) has ``n_features`` columns: a dask
    array assembled from delayed pieces can declare a width its partitions do
    not have, which a solver would otherwise meet as a matmul error.

    Parameters
    ----------
    X : array_like or sparse matrix, shape (rows, columns)
    n_features : int
        The width of the collection (every partition's).
    index : int
        The partition's position in the collection.

    Raises
    ------
    ValueError
        "X: partition i has k columns, expected d ...".
    """
    shape = np.shape(X)
    width = shape[1] if len(shape) == 2 else None
    if width != n_features:
        got = (f"{width} columns" if width is not None
               else f"{len(shape)} dimensions (shape {shape})")
        raise ValueError(f"X: partition {index} has {got}, expected {n_features} columns "
                         "(the width of X): every partition must hold the same columns")


def n_columns(X) -> int:
    """The number of columns of a 2-d dask array or DataFrame."""
    return int(X.shape[1]) if _kind(X) == "array" else len(X.columns)


def column_names(X):
    """The column names of a dask DataFrame when they are all strings (as
    scikit-learn's ``feature_names_in_``), else None."""
    if _kind(X) != "frame":
        return None
    names = list(X.columns)
    return np.asarray(names, dtype=object) if all(isinstance(c, str) for c in names) else None


def check_aligned(named: dict) -> int:
    """The common number of partitions of the collections in ``named``
    (name -> list of parts); ValueError naming the first that differs."""
    items = [(k, v) for k, v in named.items() if v is not None]
    first, parts = items[0]
    for name, other in items[1:]:
        if len(other) != len(parts):
            raise ValueError(f"{name}: has {len(other)} partitions, {first} has {len(parts)}; "
                             "give them the same partitions (e.g. columns of one dask "
                             "DataFrame, or dask arrays with the same row chunks)")
    return len(parts)


def _tuple(*items):
    return items


def balance(holders: list, sizes: list, workers: list) -> list:
    """The worker each partition is to stay on (or move to): greedy, the
    largest partitions first, a partition stays where it is while its
    holder's load is within 10 % of the even share, else it goes to the
    least loaded worker.

    Parameters
    ----------
    holders : list of str
        The worker holding each partition.
    sizes : list of float
        Its bytes.
    workers : list of str
        The cluster's workers.

    Returns
    -------
    list of str
        The worker of each partition; as ``holders`` when they are already
        spread evenly (nothing moves), e.g. data generated or persisted on
        the workers by dask's scheduler.

    Examples
    --------
    >>> balance(["a", "a", "a", "a"], [1, 1, 1, 1], ["a", "b"])
    ['a', 'a', 'b', 'b']
    >>> balance(["a", "b", "b"], [4, 1, 1], ["a", "b"])
    ['a', 'b', 'b']
    """
    workers = sorted(set(workers) | set(holders))
    n_used = min(len(workers), len(sizes))
    share = 1.1 * sum(sizes) / max(n_used, 1)
    load = dict.fromkeys(workers, 0.0)
    out = [None] * len(sizes)
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    for i in order:
        if load[holders[i]] + sizes[i] <= share or load[holders[i]] == 0:
            out[i] = holders[i]
            load[holders[i]] += sizes[i]
    for i in order:
        if out[i] is None:
            out[i] = min(workers, key=lambda w: (load[w], w))
            load[out[i]] += sizes[i]
    return out


def partition_rows(columns: list) -> list:
    """One ``dask.delayed`` tuple of pieces per partition: how to compute
    the partition again (from the collections' graph).

    Parameters
    ----------
    columns : list of (list of delayed or None)
        Per collection its parts (None: absent, passed as None).

    Returns
    -------
    list of dask.delayed.Delayed
        Partition i's ``(X_i, y_i, ...)``.
    """
    dask = import_dask()
    n = max(len(c) for c in columns if c is not None)
    return [dask.delayed(_tuple)(*[None if c is None else c[i] for c in columns])
            for i in range(n)]


def place_parts(client, columns: list, spread: bool = False) -> dict:
    """Compute the partitions on the cluster and group them by the worker
    that holds them (the data stay there).

    Parameters
    ----------
    client : distributed.Client
    columns : list of (list of delayed or None)
        Per collection its parts (None: absent, passed as None).
    spread : bool, default False
        Assign the partitions to the cluster's workers evenly by bytes
        (:func:`balance`): the ones that move are sent once, when the
        actors start; the rounds then take about equal time on every worker.

    Returns
    -------
    dict
        worker address -> list of (partition index, future of the tuple of
        the partition's pieces), in partition order.
    """
    return place_rows(client, partition_rows(columns), spread)


def place_rows(client, rows: list, spread: bool = False) -> dict:
    """:func:`place_parts` of the delayed partitions ``rows``
    (:func:`partition_rows`)."""
    futures = client.compute(list(rows))
    import_distributed().wait(futures)
    for f in futures:
        if f.status == "error":
            f.result()                       # raises the partition's error
    who = client.who_has(futures)
    holders = [sorted(who[f.key])[0] for f in futures]
    if spread:
        sizes = client.nbytes([f.key for f in futures], summary=False)
        holders = balance(holders, [float(sizes.get(f.key, 0)) for f in futures],
                          list(client.scheduler_info(n_workers=-1)["workers"]))
    by_worker = defaultdict(list)
    for i, f in enumerate(futures):
        by_worker[holders[i]].append((i, f))
    return dict(sorted(by_worker.items()))


def start_actors(client, by_worker: dict, cls, *args):
    """One actor of class ``cls`` per worker, built there from the futures
    of its partitions: ``cls(indices, parts, *args)``.

    Returns
    -------
    handles : list of distributed.Actor
    futures : list of distributed.Future
        Keep them: an actor lives as long as its future is referenced.
    """
    futures = [client.submit(cls, [i for i, _ in items], [f for _, f in items], *args,
                             actor=True, workers=[addr], allow_other_workers=False,
                             pure=False)
               for addr, items in by_worker.items()]
    try:
        return [f.result() for f in futures], futures
    except BaseException:
        release(futures)
        raise


#: what the errors of a call to an actor whose worker is gone say
_LOST_TEXT = ("Worker holding Actor was lost", "Unable to contact Actor's worker")

#: the seconds between two looks at an actor's worker while a call runs
POLL_SECONDS = 0.5


class ShardLost(RuntimeError):
    """A shard (actor) of a Dask fit was lost with its worker and could not
    be built again; the message names its partitions and the reason."""


def is_lost(exc) -> bool:
    """Whether ``exc``, raised by a call to an actor, says that the actor's
    worker is gone: an ``OSError`` (``CommClosedError``, "Unable to contact
    Actor's worker"), a cancelled future, ``KilledWorker``, or the
    "Worker holding Actor was lost" RuntimeError."""
    distributed = import_distributed()
    kinds = (OSError, distributed.client.FutureCancelledError, distributed.KilledWorker)
    return isinstance(exc, kinds) or any(t in str(exc) for t in _LOST_TEXT)


def _one_line(exc, limit: int = 160) -> str:
    """``Type: message`` of ``exc`` on one line, cut at ``limit`` characters."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _actor_gone(actor) -> str:
    """The status of the actor's future when it is no longer alive, else ""."""
    status = getattr(getattr(actor, "_future", None), "status", "finished")
    return "" if status in ("finished", "pending") else str(status)


class Rebuilder:
    """How to build the shards of a fit again after their worker was lost:
    the partitions are computed again from the collections' graph, the
    actor is started on a live worker with the same arguments.

    Parameters
    ----------
    client : distributed.Client
    rows : list of dask.delayed.Delayed
        The partitions (:func:`partition_rows`).
    groups : list of list of int
        The partitions of each shard, in the order of the actors.
    cls : type
        The actor class; ``cls(indices, parts, *args)``.
    args : tuple
    max_rebuilds : int, default 3
        Shards rebuilt per fit at most; the next loss is an error.
    timeout : float, default 30
        Seconds to wait for the data, a live worker and the new actor.
    resumable : bool, default True
        False: the shards keep state that exists nowhere else (the dual
        variables of CoCoA+), so a lost shard ends the fit with a clear
        error at once.

    Attributes
    ----------
    log : list of dict
        Per rebuild: ``partitions``, ``lost`` (the worker's address),
        ``worker`` (the new one), ``seconds``.
    """

    def __init__(self, client, rows, groups, cls, args, max_rebuilds=3, timeout=30.0,
                 resumable=True):
        self.client, self.rows, self.groups = client, list(rows), [list(g) for g in groups]
        self.cls, self.args = cls, tuple(args)
        self.max_rebuilds, self.timeout, self.resumable = int(max_rebuilds), timeout, resumable
        self.log: list = []

    def __call__(self, j: int, lost: str, cause: BaseException):
        """A new actor for shard ``j`` (its worker ``lost`` is gone):
        (handle, future).

        Raises
        ------
        ShardLost
            Not resumable; ``max_rebuilds`` used up; the partitions cannot
            be computed again (data given by ``client.scatter``); no live
            worker within ``timeout`` seconds.
        """
        idx = self.groups[j]
        head = f"partitions {idx}: their worker {lost} was lost mid-fit"
        if not self.resumable:
            raise ShardLost(f"{head}; this fit keeps state on each worker that exists "
                            "nowhere else (the dual variables), so it cannot resume: fit "
                            "again") from cause
        if len(self.log) >= self.max_rebuilds:
            raise ShardLost(f"{head}, after {len(self.log)} shards were rebuilt already "
                            f"(max_rebuilds={self.max_rebuilds})") from cause
        t0 = time.monotonic()
        futures = self._recompute(idx, head)
        try:
            actor, future = self._start(idx, futures, head)
        finally:
            release(futures)
        self.log.append({"partitions": idx, "lost": lost, "worker": actor._address,
                         "seconds": time.monotonic() - t0})
        return actor, future

    def _recompute(self, idx, head):
        distributed = import_distributed()
        futures = self.client.compute([self.rows[i] for i in idx])
        try:
            distributed.wait(futures, timeout=self.timeout)
            for f in futures:
                if f.status != "finished":
                    f.result(timeout=1)
        except Exception as exc:
            release(futures)
            raise ShardLost(
                f"{head}, and their data cannot be computed again ({_one_line(exc)}); "
                "data placed by client.scatter live only on the worker that holds "
                "them: build the collections from files or arrays (dask.array.from_array, "
                "polyrank.io.load_letor_dask, .persist()) so that dask can recompute a lost "
                "partition") from exc
        return futures

    def _start(self, idx, futures, head):
        deadline = time.monotonic() + self.timeout
        workers = list(self.client.scheduler_info(n_workers=-1)["workers"])
        while not workers and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = list(self.client.scheduler_info(n_workers=-1)["workers"])
        if not workers:
            raise ShardLost(f"{head}, and no live worker is left to rebuild them on "
                            f"(waited {self.timeout:g} s)")
        who = self.client.who_has(futures)
        held = [w for f in futures for w in who.get(f.key, ()) if w in workers]
        target = held[0] if held else sorted(workers)[0]
        future = self.client.submit(self.cls, list(idx), futures, *self.args, actor=True,
                                    workers=[target], allow_other_workers=True, pure=False)
        try:
            return future.result(timeout=self.timeout), future
        except Exception as exc:
            release([future])
            raise ShardLost(f"{head}, and their shard could not be started again "
                            f"({_one_line(exc)})") from exc


def payload_bytes(obj) -> int:
    """The bytes of the numbers in a message: arrays' ``nbytes``, 8 per
    scalar, summed through tuples, lists and dicts (serialisation headers
    not counted)."""
    if obj is None:
        return 0
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    if isinstance(obj, (tuple, list)):
        return sum(payload_bytes(o) for o in obj)
    if isinstance(obj, dict):
        return sum(payload_bytes(o) for o in obj.values())
    if hasattr(obj, "__dataclass_fields__"):
        return sum(payload_bytes(getattr(obj, k)) for k in obj.__dataclass_fields__)
    if isinstance(obj, (numbers.Number, np.generic, bool)):
        return 8
    return 0


class Rounds:
    """Rounds of calls to every actor: each call sends the same arguments to
    all actors and waits for all answers.

    Parameters
    ----------
    actors : list of distributed.Actor
    futures : list of distributed.Future, optional
        The actors' futures (:func:`start_actors`), released by
        :meth:`close`.
    rebuild : Rebuilder, optional
        Builds a lost actor again; None: a lost worker's error is raised.
    restore : callable, optional
        ``restore(actor)`` after a rebuild, before the call is repeated.

    Attributes
    ----------
    actors : list of distributed.Actor
    n_rounds : int
        Rounds done.
    bytes_sent, bytes_received : int
        Payload bytes (:func:`payload_bytes`) of all calls and answers.
    """

    def __init__(self, actors, futures=(), rebuild=None, restore=None):
        self.actors = list(actors)
        self.futures = list(futures)
        self.rebuild = rebuild
        self.restore = restore
        self.n_rounds = 0
        self.bytes_sent = 0
        self.bytes_received = 0

    def __call__(self, method: str, *args) -> list:
        """Call ``method(*args)`` on every actor at once; the answers in the
        order of the actors (the errors of an actor are raised).  An actor
        whose worker is lost is rebuilt by ``rebuild`` (brought to the
        others' state by ``restore(actor)``) and its call repeated."""
        pending = [self._send(j, method, args) for j in range(len(self.actors))]
        out = [self._answer(j, p, method, args) for j, p in enumerate(pending)]
        self.n_rounds += 1
        self.bytes_sent += len(self.actors) * payload_bytes(args)
        self.bytes_received += payload_bytes(out)
        return out

    def _send(self, j: int, method: str, args):
        """The call's future, or the lost-worker error it raised at once."""
        try:
            return getattr(self.actors[j], method)(*args)
        except Exception as exc:
            if not is_lost(exc):
                raise
            return exc

    def _answer(self, j: int, pending, method: str, args):
        while True:
            try:
                if isinstance(pending, BaseException):
                    raise pending
                return self._wait(j, pending)
            except Exception as exc:
                if self.rebuild is None or not is_lost(exc):
                    raise
                actor, future = self.rebuild(j, str(self.actors[j]._address), exc)
                if j < len(self.futures):
                    release([self.futures[j]])
                    self.futures[j] = future
                self.actors[j] = actor
                if self.restore is not None:
                    self.restore(actor)
                pending = self._send(j, method, args)

    def _wait(self, j: int, pending):
        """The answer of a call, looking every :data:`POLL_SECONDS` whether
        the actor's worker is still there (a call to a lost worker may
        otherwise never answer)."""
        while True:
            try:
                return pending.result(timeout=POLL_SECONDS)
            except (TimeoutError, asyncio.TimeoutError):
                gone = _actor_gone(self.actors[j])
                if gone:
                    raise RuntimeError(f"Worker holding Actor was lost.  Status: "
                                       f"{gone}") from None

    def close(self) -> None:
        """Let the actors go: release their futures and the references the
        handles hold (a handle may live on in a reference cycle of dask's
        until Python's garbage collector runs, and would keep its actor and
        the actor's partitions in the worker's memory until then)."""
        handles = [getattr(actor, "_future", None) for actor in self.actors]
        release(self.futures + [f for f in handles if f is not None])
        self.actors, self.futures = [], []

    @property
    def bytes(self) -> int:
        """bytes_sent + bytes_received."""
        return self.bytes_sent + self.bytes_received


def _rows(part) -> tuple:
    """The number of rows of each piece of a partition (None: absent)."""
    return tuple(None if p is None else int(np.shape(p)[0]) for p in part)


def check_rows(client, by_worker: dict, names: list) -> None:
    """Raise ValueError if a partition's pieces differ in their numbers of
    rows (y, qid or sample_weight chunked otherwise than X): counted where
    the partitions lie, one integer per piece sent to the client.

    Parameters
    ----------
    client : distributed.Client
    by_worker : dict
        As returned by :func:`place_parts`.
    names : list of str
        The pieces' argument names, X first.
    """
    items = sorted(((i, f) for parts in by_worker.values() for i, f in parts),
                   key=lambda t: t[0])
    counts = client.gather([client.submit(_rows, f, pure=False) for _, f in items])
    for (i, _), rows in zip(items, counts):
        for name, n in zip(names[1:], rows[1:]):
            if n is not None and n != rows[0]:
                raise ValueError(
                    f"{name}: partition {i} has {n} rows, the same partition of {names[0]} "
                    f"has {rows[0]}; give {name} the row chunks of {names[0]} (columns of one "
                    f"dask DataFrame, or dask arrays chunked alike: "
                    f"{name}.rechunk({{0: {names[0]}.chunks[0]}}))")


def _unique_qids(part, position: int):
    """The sorted distinct query ids of a partition (its piece at
    ``position``), checked as :func:`polyrank.validation.check_query_ids`."""
    qid = part[position]
    qid = np.asarray(qid.to_numpy() if hasattr(qid, "to_numpy") else qid)
    return np.unique(check_query_ids(qid, qid.shape[0] if qid.ndim else 1))


def query_split(*uniques):
    """The first query id found in two partitions and the two partition
    positions, or None: the distinct qids of each partition (``uniques``)
    are tested for overlap on one worker."""
    if len(uniques) < 2:
        return None
    sizes = [u.size for u in uniques]
    allq = np.concatenate(uniques)
    owner = np.repeat(np.arange(len(uniques)), sizes)
    order = np.argsort(allq, kind="stable")
    dup = np.flatnonzero(np.diff(allq[order]) == 0)
    if dup.size == 0:
        return None
    k = dup[0]
    return int(allq[order[k]]), int(owner[order[k]]), int(owner[order[k + 1]])


def check_no_split(client, by_worker: dict, position: int) -> None:
    """Raise ValueError if a query id occurs in two partitions (RankSVM's
    pairs live inside a query, so a query must sit in one partition).

    The distinct ids of every partition are computed where it lies and
    compared on one worker; the client receives only the answer.
    """
    items = sorted(((i, f) for parts in by_worker.values() for i, f in parts),
                   key=lambda t: t[0])
    uniques = [client.submit(_unique_qids, f, position, pure=False) for _, f in items]
    found = client.submit(query_split, *uniques, pure=False).result()
    if found is None:
        return
    qid, a, b = found
    raise ValueError(
        f"qid: query {qid} is split between partitions {items[a][0]} and {items[b][0]}; "
        "every query must lie in one partition (its pairs are formed inside it). "
        "Repartition by query, e.g. for a dask DataFrame ddf with a column 'qid': "
        "ddf = ddf.shuffle(on='qid').persist() (or ddf.set_index('qid').persist() for "
        "sorted queries), then pass its columns; or read LETOR files with "
        "polyrank.io.load_letor_dask, which splits at query boundaries")


def release(futures) -> None:
    """Drop the references to ``futures`` (actors stop, their data are
    freed on the workers)."""
    for f in futures:
        f.release()
