"""Linear RankSVM by TRON on a dask.distributed cluster (issue 31).

The L2-loss objective of ``large-scale-linear-ranksvm.txt`` (Eq. 1.3) is a
sum over queries, so with every query inside one partition

    f(w) = 1/2 w'w + C sum_k L_k(w),   grad f(w) = w + sum_k g_k(w),
    H v = v + sum_k h_k(w, v),

where partition k's terms come from its own documents only (Eq. 2.9-2.13,
:meth:`polyrank.ranksvm.RankSVMObjective.loss_terms` and ``loss_hv``).  This
is the data-parallel TRON of Lin, Tsai, Lee and Lin, "Large-scale logistic
regression and linear SVM using Spark" (IEEE BigData 2014): the data stay
on the workers, :func:`polyrank.tron.tron` runs on the client over
:class:`DaskRankSVMObjective`, and every function/gradient evaluation and
every Hessian-vector product is one round of messages of d numbers to and
from each worker.

Each worker runs one actor (:class:`RankSVMShard`) holding its partitions
and, per partition, a :class:`~polyrank.ranksvm.RankSVMObjective` with its
query grouping and its :class:`~polyrank.ranksvm.Workspace` (the sorted
order and the counts of the selection tree at the w it was computed for,
Alg. 2).  A Hessian-vector product names the w of the workspace by a key,
so it carries only v.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .._sklearn import fit_context, log_callback, warn_if_not_converged
from ..metrics import ndcg_per_query
from ..ranksvm import RankSVM, RankSVMObjective
from ..ranksvm.objective import LossTerms, l2_dual_bound
from ..tron import tron
from ..validation import as_float_array, check_design
from . import _common as C_

__all__ = ["DaskRankSVM", "DaskRankSVMObjective", "RankSVMShard"]

#: the pieces of a partition, in order
_NAMES = ["X", "y", "qid", "sample_weight"]


def _values(piece):
    """A partition's piece as numpy / scipy (pandas objects by ``to_numpy``)."""
    if piece is None or sp.issparse(piece) or isinstance(piece, np.ndarray):
        return piece
    return piece.to_numpy() if hasattr(piece, "to_numpy") else piece


def _partition_objective(X, y, qid, sw, C, method, partial_pairs):
    """The RankSVMObjective of one partition (validated by its constructor:
    :func:`polyrank.validation.check_design` for X), or None if it has no
    rows."""
    if np.shape(X)[0] == 0:
        return None
    return RankSVMObjective(X, y, qid, C=C, method=method, partial_pairs=partial_pairs,
                            sample_weight=sw)


class RankSVMShard:
    """One worker's partitions of a :class:`DaskRankSVM` fit: a
    dask.distributed Actor (one per worker, created by the fit).

    Parameters
    ----------
    indices : list of int
        The positions of the partitions in the dask collections.
    parts : list of tuple
        Per partition ``(X, y, qid, sample_weight or None)``: numpy arrays,
        scipy sparse matrices or pandas objects.  Each is validated here,
        on its worker (X by :func:`polyrank.validation.check_design`).
    C : float
    method : str
    partial_pairs : bool
        As :class:`polyrank.ranksvm.RankSVMObjective`.
    n_features : int
        The number of columns every partition must have.

    Raises
    ------
    ValueError, TypeError
        As :class:`~polyrank.ranksvm.RankSVMObjective`, the message ending
        with the partition's position; a partition of the wrong width.
    """

    def __init__(self, indices, parts, C, method, partial_pairs, n_features):
        self.n_features = int(n_features)
        self._objs = []
        self._summary = []
        for i, part in zip(indices, parts):
            X, y, qid, sw = (_values(p) for p in part)
            C_.check_partition_width(X, self.n_features, i)
            try:
                obj = _partition_objective(X, y, qid, sw, C, method, partial_pairs)
            except (ValueError, TypeError) as exc:
                raise type(exc)(f"{exc} (partition {i})") from exc
            if obj is not None:
                self._objs.append(obj)
                self._summary.append((int(i), int(obj.X.shape[0]), obj.groups.n_queries,
                                      int(obj.n_pairs)))
        self._w = None
        self._key = None

    def summary(self) -> list:
        """Per non-empty partition: (position, documents, queries, pairs)."""
        return list(self._summary)

    def loss_terms(self, w, key: int) -> LossTerms:
        """The partitions' :class:`~polyrank.ranksvm.objective.LossTerms` at
        ``w``, summed; their workspaces at ``w`` are kept under ``key``."""
        w = np.asarray(w, dtype=np.float64)
        loss = hinge = n_sv = 0.0
        grad = np.zeros(self.n_features)
        for obj in self._objs:
            t = obj.loss_terms(w)
            loss += t.loss
            hinge += t.hinge
            n_sv += t.n_sv
            grad += t.grad
        self._w, self._key = w, key
        return LossTerms(loss, hinge, n_sv, grad)

    def at(self, w, key: int) -> None:
        """Name ``w`` by ``key`` (the workspaces are computed at the next
        product): brings a rebuilt shard to the others' state."""
        self._w, self._key = np.asarray(w, dtype=np.float64), key

    def loss_hv(self, key: int, v, w=None) -> np.ndarray:
        """sum_k (H_k v) at the workspaces kept under ``key`` (or at ``w``,
        computed and kept under ``key``, when given)."""
        if w is not None:
            self._w, self._key = np.asarray(w, dtype=np.float64), key
        elif key != self._key:
            raise RuntimeError(f"the workspaces are at w #{self._key}, the product asked "
                               f"for w #{key}")
        out = np.zeros(self.n_features)
        for obj in self._objs:
            out += obj.loss_hv(self._w, v)
        return out


class DaskRankSVMObjective:
    """f, grad f, H v and the dual of Eq. 1.3 summed over the shards: the
    fun/grad/Hv object that :func:`polyrank.tron.tron` runs over on the
    client.

    Each :meth:`fun`/:meth:`grad` pair at a new w is one round (w to every
    shard; L_k, H_k, |SV_k| and g_k back); each :meth:`Hv` one round (v to
    every shard, h_k back).  The client holds O(d) numbers.

    Parameters
    ----------
    rounds : polyrank.dask._common.Rounds
        The calls to the shards (:class:`RankSVMShard`).
    n_features : int
    C : float

    Attributes
    ----------
    rounds : polyrank.dask._common.Rounds
        ``n_rounds``, ``bytes_sent``, ``bytes_received``.
    """

    def __init__(self, rounds, n_features: int, C: float):
        self.rounds = rounds
        self.n_features = int(n_features)
        self.C = float(C)
        self._key = 0            # names the w of the shards' workspaces
        self._ws_w = None        # that w
        self._at = None          # (w, f, LossTerms) of the last evaluation
        self.n_fun = self.n_hv = 0

    def restore(self, shard) -> None:
        """Bring a rebuilt shard (an actor handle) to the point of the
        others' workspaces (:meth:`RankSVMShard.at`): the repeated product
        is then the one that was lost."""
        if self._ws_w is not None:
            shard.at(self._ws_w, self._key).result(timeout=60)

    def terms(self, w):
        """(f(w), the summed LossTerms) at ``w``: one round unless the
        shards' workspaces are at an equal w."""
        w = as_float_array(w, "w", ndim=1, shape=(self.n_features,))
        if self._at is not None and np.array_equal(self._at[0], w):
            return self._at[1], self._at[2]
        self._key += 1
        self._ws_w = w.copy()
        self.n_fun += 1
        parts = self.rounds("loss_terms", w, self._key)
        t = LossTerms(math.fsum(p.loss for p in parts), math.fsum(p.hinge for p in parts),
                      math.fsum(p.n_sv for p in parts), np.sum([p.grad for p in parts], 0))
        f = 0.5 * float(w @ w) + self.C * t.loss
        if not math.isfinite(f):
            raise ValueError(f"X: f(w) is not finite in float64 (C = {self.C:.3g}); scale "
                             "X, e.g. with sklearn.preprocessing.StandardScaler, or lower C")
        self._at = (w.copy(), f, t)
        return f, t

    def fun(self, w) -> float:
        """f(w) of Eq. 1.3."""
        return self.terms(w)[0]

    def grad(self, w) -> np.ndarray:
        """grad f(w) = w + sum_k 2C X_k'r_k (Eq. 2.13); shape (n,)."""
        w = as_float_array(w, "w", ndim=1, shape=(self.n_features,))
        return w + self.terms(w)[1].grad

    def Hv(self, w, v) -> np.ndarray:
        """The generalised Hessian at ``w`` times ``v`` (Eq. 2.5, 2.9):
        v + sum_k h_k; one round (w travels too only when the shards'
        workspaces are at another point)."""
        w = as_float_array(w, "w", ndim=1, shape=(self.n_features,))
        v = as_float_array(v, "v", ndim=1, shape=(self.n_features,))
        self.n_hv += 1
        if self._ws_w is not None and np.array_equal(self._ws_w, w):
            parts = self.rounds("loss_hv", self._key, v)
        else:
            self._key += 1
            self._ws_w = w.copy()
            parts = self.rounds("loss_hv", self._key, v, w)
        out = v + np.sum(parts, 0)
        with np.errstate(over="ignore", invalid="ignore"):
            if not math.isfinite(float(out @ out)):
                raise ValueError("X: ||H v||^2 is not finite in float64; scale X or lower C")
        return out

    def dual(self, w) -> float:
        """The L2-SVM dual bound at alpha(w), as
        :meth:`polyrank.ranksvm.RankSVMObjective.dual` (through
        :func:`polyrank.ranksvm.objective.l2_dual_bound`)."""
        f, t = self.terms(w)
        return l2_dual_bound(self.C, t.hinge, t.loss, f, -t.grad)


def _predict_block(X, w, block_info=None):
    """w'x of one block of rows (its width checked, the partition named:
    dask passes ``block_info``)."""
    if block_info is not None:
        C_.check_partition_width(X, w.shape[0], block_info[0]["chunk-location"][0])
    X = check_design(X, allow_empty=True)
    return np.asarray(X @ w, dtype=np.float64).ravel()


def _ndcg_part(part, w):
    """(sum over the queries of their (weighted) mean NDCG, their number or
    weight sum) of one partition."""
    X, y, qid, sw = (_values(p) for p in part)
    if np.shape(X)[0] == 0:
        return 0.0, 0.0
    s = _predict_block(X, w)
    y = as_float_array(y, "y", ndim=1, shape=s.shape)
    qids, vals = ndcg_per_query(y, s, qid, mean_over_positions=True)
    if sw is None:
        return float(vals.sum()), float(vals.size)
    sw = as_float_array(sw, "sample_weight", ndim=1, shape=s.shape)
    order = np.argsort(qid, kind="stable")
    first = sw[order][np.r_[0, np.flatnonzero(np.diff(np.asarray(qid)[order])) + 1]]
    return float(vals @ first), float(first.sum())


class DaskRankSVM(C_.ClientParam, RankSVM):
    """Linear RankSVM (L2 loss, Tree-TRON) on a dask.distributed cluster.

    The distributed version of :class:`polyrank.RankSVM`, in the manner of
    LightGBM's ``DaskLGBMRanker``: the same parameters plus ``client``;
    ``fit`` takes dask arrays or a dask DataFrame whose partitions each hold
    whole queries; :meth:`to_local` returns a plain fitted
    :class:`~polyrank.RankSVM`.  It minimises the same objective (Eq. 1.3 of
    ``large-scale-linear-ranksvm.txt``) by the same TRON (Sec. 4.1) with
    the same stopping rule; the function values, gradients and
    Hessian-vector products are summed over the partitions (see
    :mod:`polyrank.dask`), so it ends at the single-machine solution up to
    rounding.

    Parameters
    ----------
    C, tol, method, max_iter, partial_pairs, verbose
        As :class:`polyrank.RankSVM`.
    loss : {"l2"}, default="l2"
        Only the L2 loss is distributed (TRON); ``"l1"`` raises ValueError
        in ``fit`` (its solvers run on one machine: use RankSVM).
    solver : {"auto", "tron"}, default="auto"
        "auto" is "tron".
    random_state : None
        Unused (TRON is deterministic); kept for :meth:`to_local`.
    client : distributed.Client or None, default=None
        The client to run on; None: ``distributed.default_client()`` at
        fit time.  Not kept when the model is pickled.
    max_rebuilds : int, default=3
        Shards rebuilt per fit at most after their worker was lost (the
        partitions computed again from the collections' graph, the actor
        started on a live worker, the lost call repeated at the same w: the
        fit goes on as if nothing happened); the next loss raises
        :class:`polyrank.dask.ShardLost`.  0: a lost worker ends the fit.

    Attributes
    ----------
    coef_, result_, n_iter_, n_pairs_, n_queries_, n_features_in_
        As :class:`polyrank.RankSVM` (``result_`` also has ``n_rounds``,
        ``bytes_sent`` and ``bytes_received``: the rounds of messages and
        their payload bytes, and ``rebuilds``: per shard rebuilt after a
        lost worker, a dict with its ``partitions``, the ``lost`` worker,
        the new ``worker`` and the ``seconds`` it took).
    feature_names_in_ : ndarray of str
        Only when ``X`` was a dask DataFrame with string column names.
    n_partitions_ : int
        Non-empty partitions.
    n_workers_ : int
        Workers that held partitions (one actor each).

    Raises
    ------
    ImportError
        In ``fit``, when dask.distributed is not installed
        (``pip install 'polyrank[dask]'``).

    See Also
    --------
    polyrank.RankSVM : the same model on one machine.
    polyrank.io.load_letor_dask : LETOR / SVMlight files as dask arrays,
        split at query boundaries.

    Notes
    -----
    Every query must lie in one partition (``fit`` checks it on the
    workers and says how to repartition).  Each worker keeps its
    partitions and their per-partition state (query grouping, sorted order,
    selection-tree counts) in an actor across the TRON iterations; per
    iteration the client sends and receives 2 (1 + CG steps) vectors of d
    floats per worker.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from polyrank.datasets import load_mq2008
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                        dashboard_address=None)
    >>> client = Client(cluster)
    >>> d = load_mq2008()
    >>> cut = int(np.flatnonzero(np.diff(d.qid_train))[200]) + 1   # at a query boundary
    >>> chunks = ((cut, d.qid_train.size - cut),)
    >>> X = da.from_array(d.X_train, chunks=(chunks[0], -1))
    >>> y, qid = da.from_array(d.y_train, chunks), da.from_array(d.qid_train, chunks)
    >>> model = DaskRankSVM(C=0.1, tol=1e-6, client=client).fit(X, y, qid=qid)
    >>> local = RankSVM(C=0.1, tol=1e-6).fit(d.X_train, d.y_train, qid=d.qid_train)
    >>> bool(abs(model.result_.primal_objective - local.result_.primal_objective)
    ...      <= 1e-8 * local.result_.primal_objective)
    True
    >>> model.to_local().score(d.X_test, d.y_test, qid=d.qid_test) > 0.4
    True
    >>> client.close(); cluster.close()
    """

    _parameter_constraints: dict = {**RankSVM._parameter_constraints,
                                    "client": "no_validation",
                                    "max_rebuilds": [Interval(Integral, 0, None,
                                                              closed="left")]}

    def __init__(self, C=1.0, loss="l2", tol=1e-3, method="selection_tree", solver="auto",
                 max_iter=1000, partial_pairs=False, random_state=None, verbose=0,
                 client=None, max_rebuilds=3):
        super().__init__(C=C, loss=loss, tol=tol, method=method, solver=solver,
                         max_iter=max_iter, partial_pairs=partial_pairs,
                         random_state=random_state, verbose=verbose)
        self.client = client
        self.max_rebuilds = max_rebuilds

    def _check_solver(self) -> None:
        if self.loss != "l2":
            raise ValueError(f"loss: DaskRankSVM minimises the L2 loss by distributed TRON; "
                             f"loss={self.loss!r} runs on one machine only (use RankSVM)")
        if self.solver not in ("auto", "tron"):
            raise ValueError(f"solver: DaskRankSVM runs 'tron' (or 'auto'), got "
                             f"{self.solver!r}")

    def _collections(self, X, y, qid, sample_weight):
        if qid is None:
            raise ValueError("qid: DaskRankSVM needs the query id of every row (a dask "
                             "array or Series partitioned like X)")
        cols = {"X": C_.collection_parts(X, "X", 2), "y": C_.collection_parts(y, "y", 1),
                "qid": C_.collection_parts(qid, "qid", 1),
                "sample_weight": (None if sample_weight is None else
                                  C_.collection_parts(sample_weight, "sample_weight", 1))}
        C_.check_aligned(cols)
        return list(cols.values())

    def _start(self, client, X, y, qid, sample_weight):
        """Place the partitions, check the queries, start one shard per
        worker: (objective, per-partition summary); ``obj.rounds.close()``
        stops the shards."""
        cols = self._collections(X, y, qid, sample_weight)
        n_features = C_.n_columns(X)
        rows = C_.partition_rows(cols)
        by_worker = C_.place_rows(client, rows, spread=True)
        args = (float(self.C), self.method, bool(self.partial_pairs), n_features)
        try:
            C_.check_rows(client, by_worker, _NAMES)
            C_.check_no_split(client, by_worker, 2)
            actors, futures = C_.start_actors(client, by_worker, RankSVMShard, *args)
        finally:
            C_.release([f for items in by_worker.values() for _, f in items])
        rebuild = C_.Rebuilder(client, rows, [[i for i, _ in items] for items in
                                              by_worker.values()], RankSVMShard, args,
                               max_rebuilds=self.max_rebuilds)
        rounds = C_.Rounds(actors, futures, rebuild)
        try:
            summary = [s for part in rounds("summary") for s in part]
        except BaseException:
            rounds.close()
            raise
        obj = DaskRankSVMObjective(rounds, n_features, self.C)
        rounds.restore = obj.restore
        return obj, summary

    @fit_context
    def fit(self, X, y, qid=None, sample_weight=None, *, callback=None, callback_every=1):
        """Fit w on the cluster.

        Parameters
        ----------
        X : dask array or dask DataFrame, shape (l, n_features)
            Partitioned by rows only (dense or scipy.sparse chunks); every
            query inside one partition.
        y : dask array or Series, shape (l,)
            Relevance labels, partitioned like X.
        qid : dask array or Series of int, shape (l,)
            Query ids, partitioned like X (required).
        sample_weight : dask array or Series, shape (l,), optional
            Document weights, as :meth:`polyrank.RankSVM.fit`.
        callback : callable, optional
            ``callback(info: IterInfo)`` per TRON step, on the client (e.g.
            :class:`polyrank_widgets.TronMonitor`); StopIteration stops.
        callback_every : int, default=1

        Returns
        -------
        self : DaskRankSVM

        Raises
        ------
        ImportError
            Without dask.distributed.
        TypeError
            Inputs that are not dask collections; non-numeric data.
        ValueError
            ``loss="l1"`` or a solver other than TRON; no qid; collections
            with different numbers of partitions; X chunked along columns;
            a query split between partitions (the message says how to
            repartition); any error of :meth:`polyrank.RankSVM.fit` in a
            partition (with its position); no preference pair at all.
        polyrank.dask.ShardLost
            A worker was lost and its shard could not be rebuilt: more than
            ``max_rebuilds`` losses, data that dask cannot compute again
            (``client.scatter``), or no live worker left (within seconds).

        Warns
        -----
        sklearn.exceptions.ConvergenceWarning
            If TRON stops before its tolerance.
        """
        self._check_solver()
        client = C_.get_client(self.client)
        obj, summary = self._start(client, X, y, qid, sample_weight)
        n_workers = len(obj.rounds.actors)
        try:
            n_pairs = sum(s[3] for s in summary)
            if n_pairs == 0:
                raise ValueError("y, qid: no preference pairs (every query has a single "
                                 "relevance level or a single document); the solution "
                                 "would be w = 0")
            res = tron(obj, tol=self.tol, max_iter=self.max_iter,
                       callback=log_callback(callback, self.verbose, type(self).__name__),
                       callback_every=callback_every, solver="dask-tree-tron")
            res.n_sv = obj.terms(res.x)[1].n_sv
        finally:
            obj.rounds.close()
        warn_if_not_converged(self, res, "increase max_iter, or standardise X")
        res.n_pairs, res.C, res.method = n_pairs, float(self.C), self.method
        res.n_rounds = obj.rounds.n_rounds
        res.bytes_sent, res.bytes_received = obj.rounds.bytes_sent, obj.rounds.bytes_received
        res.rebuilds = list(obj.rounds.rebuild.log)
        self._set_fitted(res, X, summary, n_workers)
        return self

    def _set_fitted(self, res, X, summary, n_workers):
        self.__dict__.pop("feature_names_in_", None)
        names = C_.column_names(X)
        if names is not None:
            self.feature_names_in_ = names
        self.result_ = res
        self.coef_ = res.x
        self.n_iter_ = res.nit
        self.n_pairs_ = res.n_pairs
        self.n_queries_ = int(sum(s[2] for s in summary))
        self.n_features_in_ = C_.n_columns(X)
        self.n_partitions_ = len(summary)
        self.n_workers_ = int(n_workers)

    def predict(self, X):
        """Ranking scores w'x of every row, computed on the partitions.

        Parameters
        ----------
        X : dask array or dask DataFrame, shape (m, n_features)

        Returns
        -------
        dask.array.Array, shape (m,)
            Lazy: ``.compute()`` brings the scores.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError, TypeError
            A collection of the wrong width or kind (checked on the
            workers: NaN/inf when computed).
        """
        check_is_fitted(self, "coef_")
        C_.collection_parts(X, "X", 2)
        if C_.n_columns(X) != self.n_features_in_:
            raise ValueError(f"X: has {C_.n_columns(X)} features, DaskRankSVM was fitted "
                             f"with {self.n_features_in_}")
        arr = X if hasattr(X, "chunks") else X.to_dask_array()
        return arr.map_blocks(_predict_block, self.coef_, drop_axis=1, dtype=np.float64)

    def decision_function(self, X):
        """The scores of :meth:`predict` (w'x), a dask array of shape (m,)."""
        return self.predict(X)

    def score(self, X, y, qid=None, sample_weight=None) -> float:
        """Mean NDCG over queries, as :meth:`polyrank.RankSVM.score`,
        computed on the partitions (every query inside one partition).

        Parameters
        ----------
        X : dask array or dask DataFrame, shape (m, n_features)
        y : dask array or Series, shape (m,)
            Relevance labels >= 0.
        qid : dask array or Series of int, shape (m,)
            Query ids, partitioned like X.
        sample_weight : dask array or Series, shape (m,), optional
            Query weights given per row (equal inside a query).

        Returns
        -------
        float in [0, 1]

        Raises
        ------
        ValueError
            Without qid (on a model fitted on several queries), a query
            split between partitions, and the errors of
            :func:`polyrank.metrics.mean_ndcg` in a partition.
        """
        check_is_fitted(self, "coef_")
        if qid is None:
            raise ValueError("qid: DaskRankSVM.score needs the query ids, partitioned like "
                             "X (the rows would otherwise be scored as one query)")
        client = C_.get_client(self.client)
        by_worker = C_.place_parts(client, self._collections(X, y, qid, sample_weight))
        try:
            C_.check_rows(client, by_worker, _NAMES)
            C_.check_no_split(client, by_worker, 2)
            parts = [client.submit(_ndcg_part, f, self.coef_, pure=False)
                     for items in by_worker.values() for _, f in items]
            sums = [p.result() for p in parts]
        finally:
            C_.release([f for items in by_worker.values() for _, f in items])
        total, count = math.fsum(s[0] for s in sums), math.fsum(s[1] for s in sums)
        if count <= 0:
            raise ValueError("sample_weight: the scored queries have total weight 0")
        return total / count

    def to_local(self) -> RankSVM:
        """A plain fitted :class:`polyrank.RankSVM` with this model's
        parameters (without ``client``) and fitted attributes.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        check_is_fitted(self, "coef_")
        params = self.get_params()
        params.pop("client")
        params.pop("max_rebuilds")
        local = RankSVM(**params)
        for name in ("coef_", "result_", "n_iter_", "n_pairs_", "n_queries_",
                     "n_features_in_", "feature_names_in_"):
            if hasattr(self, name):
                setattr(local, name, getattr(self, name))
        return local
