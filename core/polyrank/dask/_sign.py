"""Sign-constrained SDCA on a dask.distributed cluster by CoCoA+.

Problem (``sign-constrained-sdca-pegasos.txt``, Eq. 5 and its dual Eq. 48):

    min_w P(w) = lam/2 ||w||^2 + 1/n sum_i s_i phi_i(<w, x_i>)  s.t. c * w >= 0,
    max_alpha D(alpha) = -lam g*(v(alpha)) - 1/n sum_i s_i phi_i^*(-alpha_i/s_i),

with v(alpha) = X'alpha / (lam n), g*(v) = 1/2 ||Pi_S(v)||^2 and the primal
point w = Pi_S(v) (Eq. 49).  The rows are split over K workers (one
:class:`SignShard` actor each).  A round of CoCoA+ (Ma, Smith, Jaggi,
Jordan, Richtarik and Takac, "Adding vs. Averaging in Distributed
Primal-Dual Optimization", ICML 2015) sends v to every worker; worker k
improves its block alpha_[k] by one epoch of SC-SDCA (Alg. 2, the kernel of
:func:`polyrank.sign.sc_sdca`) on its local subproblem

    G_k(dalpha) = -1/n sum_{i in k} s_i phi_i^*(-(alpha_i + dalpha_i)/s_i)
                  - lam/K g*(v + K X_k'dalpha / (lam n)),

and returns dv_k = X_k'dalpha / (lam n); the client adds them (gamma = 1,
sigma' = K): v <- v + sum_k dv_k.  By the convexity of g*,
g*(v + sum_k dv_k) <= 1/K sum_k g*(v + K dv_k), so sum_k G_k is a lower
bound of D(alpha + dalpha) equal to D(alpha) at dalpha = 0 (CoCoA+'s
condition with sigma' = K); with g = 1/2 ||.||^2 (no signs) G_k is CoCoA+'s
own quadratic subproblem.  In the local epoch G_k is SC-SDCA's dual with
lam_k n_k = lam n / K and wbar started at v: the sign correction (Eq. 11)
is applied as in Alg. 2, so every w the solver touches satisfies the signs.

The duality gap P(w) - D(alpha) of the state sent in a round is completed
from the sums the workers return with the next answers (the margins
<w, x_i> are read during the local epoch, as :func:`~polyrank.sign.sc_sdca`
does); a gap <= tol is confirmed on the exact v = X'alpha / (lam n) before
the solve stops.  Binary and regression losses (Table 1) only.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._sklearn import fit_context, log_callback, solver_seed, warn_if_not_converged
from ..result import STATUS_CALLBACK, STATUS_CONVERGED, STATUS_MAX_ITER, CallbackRunner, finish
from ..sign import SignConstrainedClassifier, SignConstrainedRegressor
from ..sign import _kernels as K
from ..sign.data import _as_csr, _check_labels, _choose_layout
from ..sign.estimator import _resolve_signs
from ..sign.losses import BINARY_LOSSES, get_loss
from ..validation import as_float_array, check_design
from . import _common as C_
from ._ranksvm import _values

__all__ = ["SignShard", "DaskSignConstrainedClassifier", "DaskSignConstrainedRegressor"]


def _stack(parts, bias: float):
    """The rows of a worker's partitions as one CSR matrix (validated by
    :func:`polyrank.validation.check_design`), the bias column appended."""
    mats = [_as_csr(_values(p[0])) for p in parts]
    Xc = mats[0] if len(mats) == 1 else sp.vstack(mats, format="csr")
    if bias > 0:
        Xc = sp.hstack([Xc, sp.csr_matrix(np.full((Xc.shape[0], 1), bias))], format="csr")
    Xc.indptr = Xc.indptr.astype(np.int64)
    Xc.indices = Xc.indices.astype(np.int64)
    return Xc


def _weights(parts, n: int):
    if all(p[2] is None for p in parts):
        return None
    sw = [np.ones(np.shape(_values(p[0]))[0]) if p[2] is None else
          as_float_array(_values(p[2]), "sample_weight", ndim=1) for p in parts]
    sw = np.concatenate(sw)
    if sw.shape != (n,):
        raise ValueError(f"sample_weight: {sw.size} weights for {n} rows")
    if sw.min() < 0:
        raise ValueError(f"sample_weight: expected weights >= 0, got {sw.min():.3g}")
    return sw


class SignShard:
    """One worker's rows of a CoCoA+ solve (a dask.distributed Actor).

    Parameters
    ----------
    indices : list of int
        The positions of the partitions in the dask collections.
    parts : list of tuple
        Per partition ``(X, y, sample_weight or None)`` (numpy, scipy sparse
        or pandas); stacked into one CSR block (X validated by
        :func:`polyrank.validation.check_design`).
    bias : float
        The constant column appended when > 0.
    n_features : int, optional
        The number of columns every partition must have
        (:func:`polyrank.dask._common.check_partition_width`).

    Raises
    ------
    ValueError, TypeError
        Bad X, y or weights (the message ends with the partitions); a
        partition of the wrong width (named).
    """

    def __init__(self, indices, parts, bias, n_features=None):
        if n_features is not None:
            for i, part in zip(indices, parts):
                C_.check_partition_width(_values(part[0]), int(n_features), i)
        parts = [p for p in parts if np.shape(_values(p[0]))[0] > 0]
        try:
            self.X = _stack(parts, float(bias)) if parts else None
            n = 0 if self.X is None else self.X.shape[0]
            ys = [_values(p[1]) for p in parts]
            self._y_raw = np.concatenate([np.asarray(y) for y in ys]) if ys else np.zeros(0)
            if self._y_raw.shape != (n,):
                raise ValueError(f"y: {self._y_raw.size} labels for {n} rows of X")
            self._sw_raw = _weights(parts, n)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{exc} (partitions {list(indices)})") from exc
        self.n = n

    def summary(self, labels: bool):
        """(rows, weight sum, columns, distinct labels or None)."""
        total = float(self.n if self._sw_raw is None else self._sw_raw.sum())
        d = None if self.X is None else int(self.X.shape[1])
        found = (np.unique(self._y_raw) if self.n else self._y_raw) if labels else None
        return self.n, total, d, found

    def configure(self, loss, smoothing, lam, c, n_total, weight_scale, n_shards, seed,
                  classes=None):
        """Fix the problem: labels (mapped to -1/+1 by ``classes`` for a
        classifier), weights scaled by ``weight_scale`` (mean 1 over all
        ``n_total`` rows), the local lam_k with lam_k n_k = lam n / K, and
        the epochs' random order (``seed``)."""
        if not self.n:
            return
        code, _ = get_loss(loss, 1)
        y = self._y_raw
        if classes is not None:
            y = np.where(y == classes[1], 1.0, -1.0)
        self.y, _ = _check_labels(y, self.n, loss, False)
        sw = np.ones(self.n) if self._sw_raw is None else self._sw_raw
        self.sw = np.ascontiguousarray(sw * weight_scale)
        self.code, self.smoothing, self.c = code, float(smoothing), np.asarray(c, float)
        self.lam_n = float(lam) * n_total                # lam n of the global problem
        self.lam_local = self.lam_n / (n_shards * self.n)
        self.n_shards = int(n_shards)
        self.sqnorm = K.row_sqnorms(self.X.indptr, self.X.data)
        R2 = float((self.sqnorm * self.sw).max())
        g = float(K.conj_convexity(code, self.smoothing))
        ln = self.lam_local * self.n
        self.s_lb = ln * g / (ln * g + R2) if g > 0 and R2 > 0 else 1.0
        self.layout = _choose_layout("auto", self.X, False)
        if self.layout == "dense":
            self.dense = K.DenseExamples(np.ascontiguousarray(self.X.toarray()), self.y,
                                         self.sw)
            self.box = K.SignBox(np.where(self.c > 0, 0.0, -np.inf),
                                 np.where(self.c < 0, 0.0, np.inf))
        self.alpha = np.zeros(self.n)
        self.alpha_before = np.zeros(self.n)
        self.perm = np.arange(self.n, dtype=np.int64)
        self.z = np.zeros(self.n)
        self.rng = np.random.default_rng(seed)

    def epoch(self, v):
        """One local SC-SDCA epoch on G_k from v: returns (sum_i s_i
        phi_i(<w, x_i>), sum_i s_i phi_i^*(-alpha_i/s_i) before the epoch,
        alpha_i changed, dv_k), w = Pi_S(v)."""
        d = v.shape[0]
        if not self.n:
            return 0.0, 0.0, 0, np.zeros(d)
        self.alpha_before[:] = self.alpha
        conj = float(K.conj_sum(self.code, self.alpha, self.y, self.smoothing, self.sw))
        w = np.empty(d)
        K.project_signs(v, self.c, w)
        wbar = v.copy()
        w_loc = w.copy()
        K.shuffle(self.perm, self.rng.random(self.n))
        dummy_sum, dummy_last = np.zeros(d), np.zeros(d, dtype=np.int64)
        state = K.SdcaIterate(self.alpha, wbar, w_loc, dummy_sum, dummy_last, w, self.z)
        if self.layout == "dense":
            changed = K.sdca_epoch_dense(
                self.dense, self.code, self.smoothing, self.lam_local, self.sqnorm,
                self.s_lb, state, self.box, self.perm, 0, False, True)
        else:
            X = self.X
            rows = K.CsrExamples(X.indptr, X.indices, X.data, self.y, self.sw)
            changed = K.sdca_epoch(rows, self.code, self.smoothing, self.lam_local,
                                   self.sqnorm, self.s_lb, state, self.c, self.perm, 0,
                                   False, True)
        loss = float(K.loss_sum(self.code, self.z, self.y, self.smoothing, self.sw))
        return loss, conj, int(changed), (wbar - v) / self.n_shards

    def rollback(self):
        """alpha back to its value before the last epoch."""
        if self.n:
            self.alpha[:] = self.alpha_before

    def exact_v(self, d: int):
        """X_k'alpha_k / (lam n), summed exactly from alpha (Eq. 49)."""
        out = np.zeros(d)
        if self.n:
            K.xt_alpha(self.X.indptr, self.X.indices, self.X.data, self.alpha.reshape(-1, 1),
                       self.lam_n, out.reshape(-1, 1))
        return out

    def evaluate(self, w):
        """(sum_i s_i phi_i(<w, x_i>), sum_i s_i phi_i^*(-alpha_i/s_i)) at
        the current alpha: the worker's shares of P(w) and D(alpha)."""
        if not self.n:
            return 0.0, 0.0
        z = np.asarray(self.X @ w).ravel()
        return (float(K.loss_sum(self.code, z, self.y, self.smoothing, self.sw)),
                float(K.conj_sum(self.code, self.alpha, self.y, self.smoothing, self.sw)))


def _gap_parts(lam, n, w, loss, conj):
    P = 0.5 * lam * float(w @ w) + loss / n
    D = -0.5 * lam * float(w @ w) - conj / n
    return P, D


def _exact(rounds, lam, n, c, d):
    """(v, w, P, D) at the shards' alpha, v summed exactly (two rounds)."""
    v = np.sum(rounds("exact_v", d), 0)
    w = np.empty(d)
    K.project_signs(v, c, w)
    parts = rounds("evaluate", w)
    P, D = _gap_parts(lam, n, w, math.fsum(p[0] for p in parts), math.fsum(p[1] for p in parts))
    return v, w, P, D


def _cocoa(rounds, *, lam, c, n, tol, max_iter, callback=None, callback_every=1):
    """The CoCoA+ rounds (see the module docstring) on configured shards.

    Returns
    -------
    SolverResult
        ``x`` (w = Pi_S(v), sign-feasible), ``wbar`` (v), ``primal_objective``,
        ``dual_objective``, ``gap`` (certified on the exact v), ``nit``
        (rounds of local epochs), ``trace`` (P, D, gap per round, extras
        ``n_changed``, ``sign_violation``), ``n_rounds``, ``bytes_sent``,
        ``bytes_received``; ``dual`` is None (alpha stays on the workers).
    """
    runner = CallbackRunner(callback, callback_every)
    d = c.shape[0]
    v = np.zeros(d)
    w = np.zeros(d)
    status = STATUS_MAX_ITER
    P = D = math.nan
    it = 0
    for it in range(1, max_iter + 1):
        parts = rounds("epoch", v)
        P, D = _gap_parts(lam, n, w, math.fsum(p[0] for p in parts),
                          math.fsum(p[1] for p in parts))
        changed = sum(p[2] for p in parts)
        if P - D <= tol:                        # the state sent in this round
            rounds("rollback")
            v, w, P, D = _exact(rounds, lam, n, c, d)
        else:
            v = v + np.sum([p[3] for p in parts], 0)
            K.project_signs(v, c, w)
        stop = runner.record(it, P, D, n_changed=float(changed),
                             sign_violation=float(max(0.0, np.max(-c * w))))
        if P - D <= tol:
            status = STATUS_CONVERGED
            break
        if stop:
            status = STATUS_CALLBACK
            break
    if status != STATUS_CONVERGED:             # the state after the last epoch
        v, w, P, D = _exact(rounds, lam, n, c, d)
    return finish(runner, status, solver="cocoa+-sc-sdca", x=w, dual=None, primal=P,
                  dual_objective=D, nit=it, unit="rounds", rule=f"duality gap {P - D:.3g} <= tol",
                  progress=f"duality gap {P - D:.3g}", limit=f"max_iter={max_iter}",
                  wbar=v, lam=lam, signs=c, n_rounds=rounds.n_rounds,
                  bytes_sent=rounds.bytes_sent, bytes_received=rounds.bytes_received)


class _DaskSignMixin(C_.ClientParam):
    """The fit of both Dask estimators: shards, signs, CoCoA+."""

    def _check_dask_params(self):
        if self.solver != "sdca":
            raise ValueError(f"solver: the Dask estimators run SC-SDCA by CoCoA+ ('sdca'), "
                             f"got {self.solver!r}; SC-Pegasos runs on one machine")
        if self.average_from is not None:
            raise ValueError("average_from: CoCoA+ returns the last iterate; use None")
        if self.shrinking is True:
            raise ValueError("shrinking: the local epochs of CoCoA+ run on all rows; use "
                             "'auto' or False")

    def _shards(self, client, X, y, sample_weight):
        cols = {"X": C_.collection_parts(X, "X", 2), "y": C_.collection_parts(y, "y", 1),
                "sample_weight": (None if sample_weight is None else
                                  C_.collection_parts(sample_weight, "sample_weight", 1))}
        C_.check_aligned(cols)
        by_worker = C_.place_parts(client, list(cols.values()), spread=True)
        try:
            C_.check_rows(client, by_worker, list(cols))
            actors, futures = C_.start_actors(client, by_worker, SignShard, float(self.bias),
                                              C_.n_columns(X))
        finally:
            C_.release([f for items in by_worker.values() for _, f in items])
        # alpha lives on the workers only: a lost shard is a clear error, not a resume
        lost = C_.Rebuilder(client, [], [[i for i, _ in items] for items in by_worker.values()],
                            SignShard, (), resumable=False)
        return C_.Rounds(actors, futures, lost)

    def _dask_solve(self, X, y, sample_weight, loss, callback, callback_every, labels=None):
        """Fit on the cluster: (w with the bias weight last, the classes);
        ``labels(distinct labels) -> classes`` for a classifier."""
        self._check_dask_params()
        client = C_.get_client(self.client)
        rounds = self._shards(client, X, y, sample_weight)
        n_workers = len(rounds.actors)
        try:
            info = rounds("summary", labels is not None)
            n = sum(s[0] for s in info)
            total = math.fsum(s[1] for s in info)
            if n == 0:
                raise ValueError("X: no rows")
            if not total > 0:
                raise ValueError("sample_weight: all weights are zero")
            classes = (None if labels is None else
                       labels(np.unique(np.concatenate([s[3] for s in info if s[0]]))))
            d = C_.n_columns(X)
            self.__dict__.pop("feature_names_in_", None)
            names = C_.column_names(X)
            c = _resolve_signs(self.signs, None if names is None else list(names), d)
            cb = np.concatenate([c, [0.0]]) if self.bias > 0 else c
            seed = np.random.default_rng(solver_seed(self.random_state))
            for actor in rounds.actors:
                actor.configure(loss, self.smoothing, self.lam, cb, n, n / total,
                                len(rounds.actors), int(seed.integers(2 ** 31)),
                                classes).result()
            res = _cocoa(rounds, lam=float(self.lam), c=cb, n=n, tol=float(self.tol),
                         max_iter=(self._sdca_epochs if self.max_iter is None
                                   else int(self.max_iter)),
                         callback=log_callback(callback, self.verbose, type(self).__name__),
                         callback_every=callback_every)
        finally:
            rounds.close()
        warn_if_not_converged(self, res, "increase max_iter or tol")
        res.loss, res.layout = loss, "per worker"
        if names is not None:
            self.feature_names_in_ = names
        self.n_features_in_ = d
        self.result_ = res
        self.n_iter_ = res.nit
        self.dual_coef_ = None
        self.signs_ = c
        self.n_workers_ = n_workers
        return res.x, classes

    def _split(self, W):
        if self.bias > 0:
            return W[:-1], W[-1] * float(self.bias)
        return W, 0.0

    def _dask_scores(self, X):
        check_is_fitted(self, "result_")
        C_.collection_parts(X, "X", 2)
        if C_.n_columns(X) != self.n_features_in_:
            raise ValueError(f"X: has {C_.n_columns(X)} features, {type(self).__name__} was "
                             f"fitted with {self.n_features_in_}")
        arr = X if hasattr(X, "chunks") else X.to_dask_array()
        w = np.ravel(self.coef_)
        b = float(np.ravel(self.intercept_)[0])
        return arr.map_blocks(_scores_block, w, b, drop_axis=1, dtype=np.float64)

    def _local(self, cls):
        check_is_fitted(self, "result_")
        params = self.get_params()
        params.pop("client")
        local = cls(**params)
        for name, value in vars(self).items():
            if name.endswith("_") and not name.endswith("__") and name != "n_workers_":
                setattr(local, name, value)
        return local

    def _dask_score(self, X, y, sample_weight, kind):
        check_is_fitted(self, "result_")
        client = C_.get_client(self.client)
        cols = {"X": C_.collection_parts(X, "X", 2), "y": C_.collection_parts(y, "y", 1),
                "sample_weight": (None if sample_weight is None else
                                  C_.collection_parts(sample_weight, "sample_weight", 1))}
        C_.check_aligned(cols)
        local = self.to_local()
        by_worker = C_.place_parts(client, list(cols.values()))
        try:
            C_.check_rows(client, by_worker, list(cols))
            sums = [client.submit(_score_part, f, local, kind, pure=False).result()
                    for items in by_worker.values() for _, f in items]
        finally:
            C_.release([f for items in by_worker.values() for _, f in items])
        s = np.sum(sums, 0)
        if kind == "accuracy":
            return float(s[0] / s[1])
        sw, sy, syy, sres = s
        total = syy - sy * sy / sw
        return float(1.0 - sres / total) if total > 0 else (1.0 if sres == 0 else 0.0)


def _scores_block(X, w, b, block_info=None):
    """<w, x> + b of one block of rows (its width checked, the partition
    named: dask passes ``block_info``)."""
    if block_info is not None:
        C_.check_partition_width(X, w.shape[0], block_info[0]["chunk-location"][0])
    X = check_design(X, allow_empty=True)
    return np.asarray(X @ w, dtype=np.float64).ravel() + b


def _score_part(part, local, kind):
    """Per partition: (weighted correct, weight) for accuracy; (weight,
    sum s y, sum s y^2, sum s (y - f)^2) for R^2."""
    X, y, sw = (_values(p) for p in part)
    if np.shape(X)[0] == 0:
        return np.zeros(2 if kind == "accuracy" else 4)
    pred = local.predict(X)
    y = np.asarray(y)
    sw = np.ones(y.shape[0]) if sw is None else as_float_array(sw, "sample_weight", ndim=1)
    if kind == "accuracy":
        return np.array([float(sw @ (pred == y)), float(sw.sum())])
    y = as_float_array(y, "y", ndim=1)
    return np.array([sw.sum(), sw @ y, sw @ (y * y), sw @ ((y - pred) ** 2)])


class DaskSignConstrainedClassifier(_DaskSignMixin, SignConstrainedClassifier):
    """Sign-constrained binary classifier on a dask.distributed cluster
    (SC-SDCA by CoCoA+).

    The distributed version of :class:`polyrank.SignConstrainedClassifier`
    (LightGBM's ``lightgbm.dask`` conventions: the same parameters plus
    ``client``, ``fit`` with dask collections, :meth:`to_local`).  It
    minimises the same Eq. 5 of ``sign-constrained-sdca-pegasos.txt`` under
    the same sign constraints and stops at the same duality gap ``tol``,
    which it certifies (``result_.gap``); the rounds are described in
    :mod:`polyrank.dask`.

    Parameters
    ----------
    lam, signs, loss, smoothing, tol, max_iter, bias, random_state, verbose
        As :class:`polyrank.SignConstrainedClassifier` (``max_iter``:
        rounds; None: 1000).  Two classes and the losses of Table 1 only
        (``"hinge"``, ``"smoothed_hinge"``, ``"logistic"``).
    solver : {"sdca"}, default="sdca"
    top_k, average_from, shrinking, batch_size
        Kept for :meth:`to_local`; ``average_from`` must be None and
        ``shrinking`` not True (the local epochs run on all rows).
    client : distributed.Client or None, default=None
        None: ``distributed.default_client()`` at fit time.

    Attributes
    ----------
    coef_, intercept_, classes_, signs_, result_, n_iter_, n_features_in_, loss_
        As :class:`polyrank.SignConstrainedClassifier`; ``result_.gap`` is
        the certified duality gap, ``result_`` also has ``n_rounds``,
        ``bytes_sent``, ``bytes_received``.
    dual_coef_ : None
        alpha stays on the workers.
    n_workers_ : int
        K, the workers that held rows.

    Raises
    ------
    ImportError
        In ``fit`` without dask.distributed (``pip install 'polyrank[dask]'``).

    Notes
    -----
    CoCoA+ with sigma' = K is safe for any partitioning but conservative: a
    round's K updates are added as if each had the other partitions' rows
    to itself.  When every partition alone nearly determines w (many dense
    rows, few features) it takes many more rounds than single-machine
    SC-SDCA takes epochs: ridge regression (lam = 0.01) on 900 Gaussian rows
    of 6 features takes 14 epochs on one machine and 169 rounds on 2
    workers, even with exact local solves.  It pays off when the rows do not
    fit one machine, or when the partitions are sparse and nearly
    orthogonal (the data of Ma et al.).

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from polyrank import SignConstrainedClassifier
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                        dashboard_address=None)
    >>> client = Client(cluster)
    >>> rng = np.random.default_rng(0)
    >>> Xn = rng.normal(size=(400, 4)); yn = np.where(Xn[:, 0] - Xn[:, 1] > 0, 1, -1)
    >>> X, y = da.from_array(Xn, chunks=(200, 4)), da.from_array(yn, chunks=200)
    >>> clf = DaskSignConstrainedClassifier(lam=1e-2, signs=[1, 1, 0, 0], tol=1e-6,
    ...                                     random_state=0, client=client).fit(X, y)
    >>> local = SignConstrainedClassifier(lam=1e-2, signs=[1, 1, 0, 0], tol=1e-6,
    ...                                   random_state=0).fit(Xn, yn)
    >>> bool(abs(clf.result_.primal_objective - local.result_.primal_objective) <= 2e-6)
    True
    >>> bool(clf.coef_[0, 1] >= 0), clf.result_.gap <= 1e-6
    (True, True)
    >>> client.close(); cluster.close()
    """

    _parameter_constraints: dict = {**SignConstrainedClassifier._parameter_constraints,
                                    "client": "no_validation"}

    def __init__(self, lam=1e-3, signs=None, loss="hinge", solver="sdca", smoothing=0.01,
                 top_k=1, tol=1e-6, max_iter=None, average_from=None, shrinking="auto",
                 batch_size=1, bias=1.0, random_state=None, verbose=0, client=None):
        super().__init__(lam=lam, signs=signs, loss=loss, solver=solver, smoothing=smoothing,
                         top_k=top_k, tol=tol, max_iter=max_iter, average_from=average_from,
                         shrinking=shrinking, batch_size=batch_size, bias=bias,
                         random_state=random_state, verbose=verbose)
        self.client = client

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit on the cluster.

        Parameters
        ----------
        X : dask array or dask DataFrame, shape (n, d)
            Partitioned by rows.
        y : dask array or Series, shape (n,)
            Two class labels, partitioned like X.
        sample_weight : dask array or Series, shape (n,), optional
        callback : callable, optional
            ``callback(info: IterInfo)`` per round, on the client;
            StopIteration stops.
        callback_every : int, default=1

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Not two classes, a multiclass loss, ``solver="pegasos"``,
            ``average_from``, ``shrinking=True``, misaligned collections,
            and the errors of the local estimator (in a partition).
        TypeError
            Inputs that are not dask collections.
        polyrank.dask.ShardLost
            A worker lost mid-fit, within seconds: CoCoA+'s dual variables
            live only on the workers, so the fit cannot resume (fit again).
        """
        if self.loss not in BINARY_LOSSES:
            raise ValueError(f"loss: DaskSignConstrainedClassifier takes the binary losses "
                             f"{sorted(BINARY_LOSSES)}, got {self.loss!r}")

        def labels(found):
            if found.size != 2:
                raise ValueError(f"y: DaskSignConstrainedClassifier needs exactly two "
                                 f"classes, got {found.size} ({found[:5].tolist()}); use "
                                 "SignConstrainedClassifier for more")
            return found

        W, classes = self._dask_solve(X, y, sample_weight, self.loss, callback,
                                      callback_every, labels)
        coef, intercept = self._split(W)
        self.coef_ = coef.reshape(1, -1)
        self.intercept_ = np.array([intercept])
        self.classes_ = classes
        self.loss_ = self.loss
        return self

    def decision_function(self, X):
        """Scores w'x + b (> 0 means ``classes_[1]``): a dask array (n,)."""
        return self._dask_scores(X)

    def predict(self, X):
        """Predicted labels: a dask array (n,)."""
        s = self._dask_scores(X)
        classes = self.classes_
        return s.map_blocks(lambda b: classes[(b > 0).astype(int)], dtype=classes.dtype)

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy, summed on the partitions."""
        return self._dask_score(X, y, sample_weight, "accuracy")

    def to_local(self) -> SignConstrainedClassifier:
        """A plain fitted :class:`polyrank.SignConstrainedClassifier`."""
        return self._local(SignConstrainedClassifier)


class DaskSignConstrainedRegressor(_DaskSignMixin, SignConstrainedRegressor):
    """Sign-constrained linear regression on a dask.distributed cluster
    (SC-SDCA by CoCoA+).

    The distributed version of :class:`polyrank.SignConstrainedRegressor`,
    as :class:`DaskSignConstrainedClassifier` (same parameters plus
    ``client``; losses ``"square"`` and ``"absolute"``).

    Parameters
    ----------
    lam, signs, loss, solver, tol, max_iter, average_from, shrinking, batch_size, bias
        As :class:`polyrank.SignConstrainedRegressor` (restrictions as in
        :class:`DaskSignConstrainedClassifier`).
    random_state, verbose
    client : distributed.Client or None, default=None

    Attributes
    ----------
    coef_, intercept_, signs_, result_, n_iter_, n_features_in_
        As :class:`polyrank.SignConstrainedRegressor`.
    dual_coef_ : None
    n_workers_ : int

    Raises
    ------
    ImportError
        In ``fit`` without dask.distributed.

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                        dashboard_address=None)
    >>> client = Client(cluster)
    >>> rng = np.random.default_rng(0)
    >>> Xn = rng.normal(size=(300, 3)); yn = Xn @ [1.0, -1.0, 0.5]
    >>> reg = DaskSignConstrainedRegressor(lam=0.1, signs=[1, 1, 1], tol=1e-6,
    ...     client=client).fit(da.from_array(Xn, chunks=(150, 3)), da.from_array(yn, 150))
    >>> bool(reg.coef_[1] == 0.0 and reg.coef_[0] > 0), reg.result_.status
    (True, 'converged')
    >>> client.close(); cluster.close()
    """

    _parameter_constraints: dict = {**SignConstrainedRegressor._parameter_constraints,
                                    "client": "no_validation"}

    def __init__(self, lam=1e-3, signs=None, loss="square", solver="sdca", tol=1e-10,
                 max_iter=None, average_from=None, shrinking="auto", batch_size=1,
                 bias=1.0, random_state=None, verbose=0, client=None):
        super().__init__(lam=lam, signs=signs, loss=loss, solver=solver, tol=tol,
                         max_iter=max_iter, average_from=average_from, shrinking=shrinking,
                         batch_size=batch_size, bias=bias, random_state=random_state,
                         verbose=verbose)
        self.client = client

    @fit_context
    def fit(self, X, y, sample_weight=None, *, callback=None, callback_every=1):
        """Fit on the cluster (see :meth:`DaskSignConstrainedClassifier.fit`;
        y real targets).

        Parameters
        ----------
        X : dask array or dask DataFrame, shape (n, d)
        y : dask array or Series, shape (n,)
        sample_weight : dask array or Series, shape (n,), optional
        callback : callable, optional
        callback_every : int, default=1

        Returns
        -------
        self

        Raises
        ------
        polyrank.dask.ShardLost
            A worker lost mid-fit (see :meth:`DaskSignConstrainedClassifier.fit`).
        """
        W, _ = self._dask_solve(X, y, sample_weight, self.loss, callback, callback_every)
        self.coef_, self.intercept_ = self._split(W)
        self.intercept_ = float(self.intercept_)
        return self

    def predict(self, X):
        """Predictions w'x + b: a dask array (n,)."""
        return self._dask_scores(X)

    def score(self, X, y, sample_weight=None) -> float:
        """R^2, summed on the partitions."""
        return self._dask_score(X, y, sample_weight, "r2")

    def to_local(self) -> SignConstrainedRegressor:
        """A plain fitted :class:`polyrank.SignConstrainedRegressor`."""
        return self._local(SignConstrainedRegressor)
