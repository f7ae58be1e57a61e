"""The L2-loss RankSVM objective (Eq. 1.3) as a fun/grad/Hv object for
:func:`polyrank.tron.tron`, and the query grouping it is built on.

Source: C.-P. Lee and C.-J. Lin, "Large-Scale Linear RankSVM", Neural
Computation 26, 2014 (``large-scale-linear-ranksvm.txt``), Sec. 2.2-2.5
(Eq. 2.3-2.23, Alg. 2) and Sec. 3.1 (PRSVM+).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._threads import resolve_n_jobs
from ..tron import TronDualObjective
from ..validation import (
    as_float_array,
    check_design,
    check_positive,
    check_ranking_data,
    check_sample_weight,
)
from . import _kernels

__all__ = ["METHODS", "QueryGroups", "group_queries", "RankSVMObjective",
           "Workspace", "LossTerms", "l2_dual_bound", "check_ranking_data",
           "check_sample_weight", "not_finite_error", "query_blocks", "block_docs"]

#: The counting methods for l_i^+, l_i^-, gamma_i^+, gamma_i^- (Sec. 4.3):
#: ``"selection_tree"`` (Sec. 2.4, the default; Tree-TRON),
#: ``"y_tree"`` (order-statistic tree keyed by y, Sec. 2.3),
#: ``"direct"`` (direct counting, end of Sec. 2.2, O(lk)) and
#: ``"prsvm_plus"`` (PRSVM+, Sec. 3.1, O(lk)).
METHODS = {"selection_tree": _kernels.SELECTION_TREE, "y_tree": _kernels.Y_TREE,
           "direct": _kernels.DIRECT, "prsvm_plus": _kernels.PRSVM_PLUS}


@dataclass(frozen=True)
class QueryGroups:
    """Queries grouped once (the ``perm/start/count`` blocks of LIBLINEAR's
    ranksvm).

    Attributes
    ----------
    perm : ndarray of int64, shape (l,)
        Document indices ordered by query (stable: input order inside a
        query).
    start : ndarray of int64, shape (n_queries + 1,)
        The documents of query ``q`` are ``perm[start[q]:start[q+1]]``.
    level : ndarray of int64, shape (l,)
        Dense rank 0 .. k_q - 1 of ``y[i]`` among the distinct values of
        its query (ties in y share a level).
    kq : ndarray of int64, shape (n_queries,)
        k_q, the number of relevance levels of each query.
    n_pairs : int
        p = |P| of Eq. 1.1 (or the number of adjacent-level pairs when
        built with ``adjacent=True``, Sec. 5).
    qids : ndarray, shape (n_queries,)
        The query id of each group (sorted).
    """

    perm: np.ndarray
    start: np.ndarray
    level: np.ndarray
    kq: np.ndarray
    n_pairs: int
    qids: np.ndarray

    @property
    def n_queries(self) -> int:
        return int(self.start.size - 1)


def group_queries(y, qid, adjacent: bool = False) -> QueryGroups:
    """Group documents by query once and rank relevance levels per query.

    Parameters
    ----------
    y : ndarray of float, shape (l,)
        Relevance labels.
    qid : ndarray of int, shape (l,)
        Query ids (documents of one query need not be contiguous).
    adjacent : bool
        Count only pairs of adjacent levels in ``n_pairs`` (Sec. 5).

    Returns
    -------
    QueryGroups

    Examples
    --------
    >>> g = group_queries(np.array([2.0, 0.0, 1.0, 1.0]), np.array([7, 7, 3, 7]))
    >>> g.qids.tolist(), g.kq.tolist(), g.n_pairs
    ([3, 7], [1, 3], 3)
    """
    perm = np.argsort(qid, kind="stable").astype(np.int64)
    qs = qid[perm]
    cut = np.flatnonzero(np.diff(qs)) + 1
    start = np.concatenate([[0], cut, [qs.size]]).astype(np.int64)
    level, kq, n_all, n_adj = _kernels.query_levels(np.asarray(y, dtype=np.float64),
                                                    perm, start)
    n_pairs = int(n_adj if adjacent else n_all)
    return QueryGroups(perm, start, level, kq, n_pairs, qs[start[:-1]])


def _on_threads(n_threads: int, n_blocks: int, run) -> None:
    """Call ``run(b0, b1)`` on ``n_threads`` contiguous ranges of the blocks
    ``0 .. n_blocks-1`` at once (the blocked kernels release the GIL), the
    first range on the calling thread; the ranges are numba's static
    schedule of a ``prange`` over the blocks.  An exception in a range is
    raised here."""
    cuts = [n_blocks * k // n_threads for k in range(n_threads + 1)]
    ranges = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
    if len(ranges) <= 1:
        for a, b in ranges:
            run(a, b)
        return
    with ThreadPoolExecutor(len(ranges) - 1, thread_name_prefix="polyrank-ranksvm") as ex:
        futures = [ex.submit(run, a, b) for a, b in ranges[1:]]
        run(*ranges[0])
        for f in futures:
            f.result()


#: documents per block of whole queries for ``n_jobs > 1`` (a fixed size:
#: the blocks do not depend on the number of threads)
BLOCK_DOCS = 4096


def query_blocks(start: np.ndarray, docs: int = BLOCK_DOCS) -> np.ndarray:
    """Cut the queries into blocks of whole queries of about ``docs``
    documents each (the units of work of the parallel kernels).

    Parameters
    ----------
    start : ndarray of int64, shape (n_queries + 1,)
        ``QueryGroups.start``.
    docs : int
        Documents per block (a block ends at the first query boundary at or
        after each multiple of ``docs``; a larger query is a block alone).

    Returns
    -------
    ndarray of int64, shape (n_blocks + 1,)
        Block ``b`` holds the queries ``blocks[b] .. blocks[b+1] - 1``;
        ``blocks[0] = 0``, ``blocks[-1] = n_queries``.

    Examples
    --------
    >>> query_blocks(np.array([0, 3, 5, 9, 10]), docs=4).tolist()
    [0, 2, 3, 4]
    """
    nq = start.size - 1
    cuts = np.searchsorted(start, np.arange(docs, start[-1], docs))
    return np.unique(np.concatenate([[0], cuts, [nq]])).astype(np.int64)


#: the most doubles the query blocks' partial n-vectors of X'r may take
#: (32 MB): a very wide sparse X gets fewer, larger blocks
_PARTIAL_DOUBLES = 2 ** 22


def block_docs(l: int, n: int) -> int:
    """Documents per query block for an X of shape (l, n):
    :data:`BLOCK_DOCS`, or more when the blocks' partial n-vectors of X'r
    would take over 2^22 doubles (depends on the shape only)."""
    return max(BLOCK_DOCS, -(-l * n // _PARTIAL_DOUBLES))


def _as_design(X):
    """X as float64 C-contiguous ndarray or canonical CSR matrix."""
    return check_design(X)


#: the rounding of the L2 dual relative to the sum of its terms (16 eps)
_DUAL_ROUNDING = 16 * 2.0 ** -52


def l2_dual_bound(C: float, hinge: float, loss: float, f: float, d: np.ndarray,
                  not_finite=None) -> float:
    """The lower bound of :meth:`RankSVMObjective.dual` from its pieces.

    D = 2C H - 1/2 ||d||^2 - C L (the L2-SVM dual of the appendix of
    ``large-scale-linear-ranksvm.txt`` at alpha_ij = 2C c_ij max(0, 1 -
    w'(x_i - x_j)), computed without pairs), returned as min(D, f); NaN when
    D < 0 beyond the rounding of its three terms (see
    :meth:`RankSVMObjective.dual`).  The pieces add over partitions that
    hold disjoint sets of queries, which is how :mod:`polyrank.dask` gets
    the same bound.

    Parameters
    ----------
    C : float
        The loss weight.
    hinge : float
        H = sum over SV(w) of c_ij (1 - w'(x_i - x_j)).
    loss : float
        L = sum over P of c_ij max(0, 1 - w'(x_i - x_j))^2.
    f : float
        f(w) = 1/2 w'w + C L.
    d : ndarray, shape (n,)
        w - grad f(w) = sum alpha_ij (x_i - x_j).
    not_finite : callable, optional
        ``not_finite(what) -> Exception`` raised when D is not finite
        (default: a ValueError that says to scale X or lower C).

    Returns
    -------
    float
        min(D, f), or NaN.

    Raises
    ------
    ValueError
        If D is not finite in float64.
    """
    terms = (2.0 * C * hinge, 0.5 * float(d @ d), C * loss)
    out = terms[0] - terms[1] - terms[2]
    if not math.isfinite(out):
        if not_finite is not None:
            raise not_finite("the dual objective")
        raise ValueError(f"X: the dual objective is not finite in float64 (C = {C:.3g}); "
                         "scale X, e.g. with sklearn.preprocessing.StandardScaler, or "
                         "lower C")
    if out < -_DUAL_ROUNDING * sum(terms):
        return math.nan
    # min f <= f(w): the bound is min(D, f(w)), which only differs from D
    # by rounding near the optimum (so the gap f(w) - bound is >= 0)
    return min(out, f)


@dataclass(frozen=True)
class LossTerms:
    """The data terms of f at w over a set of whole queries: what one
    partition of the queries contributes to f, grad f and the dual.

    f(w) = 1/2 w'w + sum_k loss_k and grad f(w) = w + sum_k grad_k over
    partitions k holding disjoint sets of queries (Eq. 1.3 is a sum over
    queries; Eq. 2.12-2.13 per partition); the dual needs sum_k hinge_k.

    Attributes
    ----------
    loss : float
        L_k = sum over the pairs of the partition of c_ij max(0, 1 -
        w'(x_i - x_j))^2 (f = 1/2 w'w + C sum_k L_k).
    hinge : float
        sum over SV(w) of c_ij (1 - w'(x_i - x_j)).
    n_sv : float
        |SV(w)| (or the sum of its pair weights).
    grad : ndarray, shape (n,)
        2C X'(A_w'A_w X w - A_w'e_w), the data part of Eq. 2.13.
    """

    loss: float
    hinge: float
    n_sv: float
    grad: np.ndarray


@dataclass
class Workspace:
    """Everything of the objective that depends on w only, tied to that w.

    Attributes
    ----------
    w : ndarray, shape (n,)
        A copy of the point the workspace was computed at.
    z : ndarray, shape (l,)
        X w.
    order : ndarray of int64, shape (l,)
        Documents sorted by query then ascending z (Alg. 2, step 2).
    lplus, lminus : ndarray of float64, shape (l,)
        l_i^+(w), l_i^-(w): whole numbers without weights, sums of the
        partners' weights with weights.
    gplus, gminus : ndarray, shape (l,)
        gamma_i^+(w, w), gamma_i^-(w, w).
    r : ndarray, shape (l,)
        A_w'A_w X w - A_w'e_w (grad f = w + 2C X'r, Eq. 2.13).
    f : float
        f(w), Eq. 2.12.
    p_w : int (float with weights)
        |SV(w)| (Eq. 2.8), or the sum of its pair weights.
    hinge : float
        sum over SV(w) of c_ij (1 - w'(x_i - x_j)).
    loss : float
        sum over P of c_ij max(0, 1 - w'(x_i - x_j))^2 (c_ij = 1 without
        weights).
    grad : ndarray, shape (n,), or None
        grad f(w), once computed.
    xr : ndarray, shape (n,), or None
        X'r, computed with f when ``n_jobs`` is an int (None otherwise).
    """

    w: np.ndarray
    z: np.ndarray
    order: np.ndarray
    lplus: np.ndarray
    lminus: np.ndarray
    gplus: np.ndarray
    gminus: np.ndarray
    r: np.ndarray
    f: float
    p_w: int | float
    hinge: float
    loss: float
    grad: np.ndarray | None = None
    xr: np.ndarray | None = None


class RankSVMObjective(TronDualObjective):
    """f(w) = 1/2 w'w + C sum_{(i,j) in P} c_ij max(0, 1 - w'(x_i - x_j))^2
    (Eq. 1.3; c_ij = s_i s_j with document weights s, else 1) with fun,
    grad and generalised Hessian-vector products computed through l_i^+,
    l_i^-, gamma_i^+, gamma_i^- (Eq. 2.9-2.13).

    Source: ``large-scale-linear-ranksvm.txt``, Sec. 2.2 (Eq. 2.3-2.13),
    Sec. 2.3-2.4 (Alg. 2, trees), Sec. 3.1 (PRSVM+), Sec. 5 (partial pairs).

    Parameters
    ----------
    X : array_like or scipy.sparse matrix, shape (l, n)
        Documents (dense or CSR; other sparse formats are converted to CSR).
    y : array_like, shape (l,)
        Relevance labels (any finite reals; equal values are ties).
    qid : array_like of int, shape (l,)
        Query ids; pairs are only formed inside a query.
    C : float
        Loss weight C > 0.
    method : {"selection_tree", "y_tree", "direct", "prsvm_plus"}
        How l^+, l^-, gamma^+, gamma^- are counted (see :data:`METHODS`);
        all give the same objective.
    partial_pairs : bool
        Use only pairs of adjacent relevance levels in each query (Sec. 5);
        then ``method`` is ignored (direct per-level lookup, O(1) per
        query level).
    sample_weight : array_like, shape (l,), optional
        Document weights s_i >= 0.  A pair weighs c_ij = s_i s_j, which is
        what duplicating documents does (a document repeated k times repeats
        each of its pairs k times), so integer weights equal duplicated
        rows; documents of weight 0 are left out (as if absent).  The
        counting methods then sum weights instead of counting.
    n_jobs : int or None
        Threads for the passes over the documents (X v, X'r, the sorts and
        the counts).  None (default): one thread, the sums in LIBLINEAR's
        order (X'r row by row).  An int: that many threads (-1 all
        CPUs, -2 all but one; scikit-learn's convention, see
        :func:`polyrank._threads.resolve_n_jobs`) over fixed blocks of whole
        queries (:func:`query_blocks`, :func:`block_docs`: they depend on
        the data only): one parallel pass per f (with X'r for the gradient)
        and per Hessian-vector product, in which a block's rows get their
        X w entries, its queries are sorted and counted (the same numbers
        as with one thread) and its share of X'r and of the loss sums goes
        to a partial of its own; the partials are added in block order.
        Every int gives bitwise the same f, gradients and products; they
        differ from ``n_jobs=None`` only by that grouping of the sums
        (rounding).

    Attributes
    ----------
    groups : QueryGroups
        Of the documents with positive weight.
    n_pairs : int
        p, the number of preference pairs (among documents with positive
        weight).
    n_features : int
    sample_weight : ndarray or None
        The weights of the kept documents (None when all are 1).
    n_threads : int
        The threads ``n_jobs`` resolved to (1 for None).

    Notes
    -----
    A :class:`polyrank.tron.TronDualObjective` (fun, grad, Hv and dual; the
    protocol :func:`polyrank.tron.tron` minimises, checked by mypy).

    The sorted order and the counts at ``w`` are kept in an explicit
    :class:`Workspace` (see :meth:`workspace`); the object remembers the
    last one and reuses it only for a ``w`` equal to the one it was built
    for, so ``fun``, ``grad`` and ``Hv`` can be called in any order.

    The Hessian-vector product uses the generalised Hessian Eq. 2.5.  The
    dual objective of :meth:`dual` is the L2-SVM dual (appendix) at
    alpha_ij = 2C c_ij max(0, 1 - w'(x_i - x_j)): a lower bound on min f
    that meets f(w) at the optimum.

    Raises
    ------
    ValueError
        Shapes, NaN/inf, C <= 0, unknown method, bad weights, n_jobs = 0; from
        :meth:`fun`, :meth:`grad`, :meth:`Hv`: a value that is not finite
        in float64 (X or C too large, see :func:`not_finite_error`).
    TypeError
        Non-numeric input, non-integer qid, ``n_jobs`` not None or an int.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    >>> obj = RankSVMObjective(X, [2, 0, 1], [1, 1, 1], C=1.0)
    >>> obj.n_pairs, obj.fun(np.zeros(2))
    (3, 3.0)
    >>> RankSVMObjective(X, [2, 0, 1], [1, 1, 1], sample_weight=[2, 1, 1]).fun(np.zeros(2))
    5.0
    """

    def __init__(self, X, y, qid, C: float = 1.0, method: str = "selection_tree",
                 partial_pairs: bool = False, sample_weight=None, n_jobs=None):
        C = check_positive(C, "C")
        resolve_n_jobs(n_jobs)
        if method not in METHODS:
            raise ValueError(f"method: expected one of {sorted(METHODS)}, got {method!r}")
        X = _as_design(X)
        y, qid = check_ranking_data(y, qid, X.shape[0])
        sw = check_sample_weight(sample_weight, X.shape[0])
        self._setup(X, y, qid, C, method, partial_pairs, sw, n_jobs)

    @classmethod
    def _trusted(cls, X, y, qid, C, method, partial_pairs, sample_weight, n_jobs=None):
        """The objective of already validated input (float64 C-ordered
        ndarray or canonical CSR X, float64 y, int64 qid, float64 weights or
        None, valid C and method): what the estimator calls after
        ``validate_data``; ``n_jobs`` None or an int other than 0)."""
        obj = cls.__new__(cls)
        obj._setup(X, y, qid, float(C), method, partial_pairs, sample_weight, n_jobs)
        return obj

    def _setup(self, X, y, qid, C, method, partial_pairs, sw, n_jobs=None):
        self.C = C
        self.method = method
        self.partial_pairs = bool(partial_pairs)
        self._code = _kernels.ADJACENT if self.partial_pairs else METHODS[method]
        if sw is not None:
            keep = sw > 0
            if not keep.all():                  # weight 0: the document is absent
                X, y, qid, sw = X[keep], y[keep], qid[keep], sw[keep]
            if np.all(sw == 1.0):
                sw = None                       # unweighted: p_w is an int
            else:
                sw = np.ascontiguousarray(sw, dtype=np.float64)
        self.X, self.y, self.qid, self.sample_weight = X, y, qid, sw
        # the kernels always take weights (one numba specialisation; unit
        # weights give the unweighted results bit for bit)
        self._weights = np.ones(X.shape[0]) if sw is None else sw
        self.groups = group_queries(self.y, self.qid, adjacent=self.partial_pairs)
        self.n_pairs = self.groups.n_pairs
        self.n_features = self.X.shape[1]
        # n_jobs=None: the one-thread kernels; an int: the blocked ones
        self.n_jobs = n_jobs
        self.n_threads = resolve_n_jobs(n_jobs)
        self._blocked = n_jobs is not None
        if self._blocked:
            self._blocks = query_blocks(self.groups.start, block_docs(*self.X.shape))
            g = self.groups
            self._queries = _kernels.QueryArrays(g.perm, g.start, g.level, g.kq)
        self._ws: Workspace | None = None
        self.n_fun = self.n_grad = self.n_hv = 0

    # ---------------------------------------------------------- internals
    def _matvec(self, v):
        X = self.X
        if sp.issparse(X):
            return _kernels.csr_matvec(X.data, X.indices, X.indptr, v)
        return _kernels.dense_matvec(X, v)

    def _par_rmatvec(self, r):
        # partial sums over the query blocks, added in block order
        g, blocks = self.groups, self._blocks
        part = np.zeros((blocks.size - 1, self.X.shape[1]))
        self._on_blocks(_kernels.csr_rmatvec_blocks, _kernels.dense_rmatvec_blocks,
                        (r, g.perm, g.start, blocks), (part,))
        return _kernels._add_rows(part)

    def _on_blocks(self, csr_kernel, dense_kernel, lead, tail):
        """Run a blocked kernel over the query blocks on the threads:
        ``kernel(X..., *lead, b0, b1, *tail)`` for each range [b0, b1) of
        blocks, X as (data, indices, indptr) with ``csr_kernel`` when it is
        CSR, else dense with ``dense_kernel``."""
        X = self.X
        if sp.issparse(X):
            kernel, xs = csr_kernel, (X.data, X.indices, X.indptr)
        else:
            kernel, xs = dense_kernel, (X,)

        def run(b0, b1):
            kernel(*xs, *lead, b0, b1, *tail)
        _on_threads(self.n_threads, self._blocks.size - 1, run)

    def _new_counts(self):
        l = self.X.shape[0]
        return _kernels.PairCounts(np.empty(l), np.empty(l), np.empty(l), np.empty(l),
                                   self._weights)

    def _par_fun(self, w):
        # one blocked pass: z, order, counts, r, the loss sums and X'r
        blocks, (l, n) = self._blocks, self.X.shape
        counts = self._new_counts()
        out = _kernels.FunBlocks(np.empty(l), np.empty(l, dtype=np.int64), np.empty(l),
                                 np.zeros((blocks.size - 1, 3)),
                                 np.zeros((blocks.size - 1, n)))
        self._on_blocks(_kernels.csr_fun_blocks, _kernels.dense_fun_blocks,
                        (w, self._queries, self._code, blocks), (counts, out))
        return (out.z, out.order, counts.lplus, counts.lminus, counts.gplus, counts.gminus,
                out.r, _kernels._add_rows(out.sums), _kernels._add_rows(out.part))

    def _par_hv(self, ws, v):
        # one blocked pass: X'((l^+ + l^-) u - gamma^+ - gamma^-), u = X v
        blocks, (l, n) = self._blocks, self.X.shape
        counts = self._new_counts()
        arrs = _kernels.HvBlocks(ws.z, ws.order, np.empty(l), np.empty(l),
                                 np.zeros((blocks.size - 1, n)))
        self._on_blocks(_kernels.csr_hv_blocks, _kernels.dense_hv_blocks,
                        (v, self._queries, self._code, blocks), (counts, arrs))
        return _kernels._add_rows(arrs.part)

    def _rmatvec(self, r):
        # X'r accumulated instance by instance, the order of LIBLINEAR's XTv;
        # single-threaded numba loops: multi-threaded BLAS gemv is slower on
        # these shapes on a busy machine, and another summation order moves
        # TRON's iterates at the 1e-6 level after a few dozen CG steps
        if self._blocked:
            return self._par_rmatvec(r)
        X = self.X
        if sp.issparse(X):
            return _kernels.csr_rmatvec(X.data, X.indices, X.indptr, r, X.shape[1])
        return _kernels.dense_rmatvec(X, r)

    def _count(self, z, u, order):
        l = z.size
        lp = np.empty(l)
        lm = np.empty(l)
        gp = np.empty(l)
        gm = np.empty(l)
        g = self.groups
        if self._code == _kernels.SELECTION_TREE:   # compiles the default method only
            _kernels.count_pairs_tree(z, u, order, g.start, g.level, g.kq,
                                      lp, lm, gp, gm, self._weights)
        else:
            _kernels.count_pairs(z, u, order, g.start, g.level, g.kq, self._code,
                                 lp, lm, gp, gm, self._weights)
        return lp, lm, gp, gm

    def _check_w(self, w, name="w"):
        return as_float_array(w, name, ndim=1, shape=(self.n_features,))

    def _finite(self, value: float, what: str) -> None:
        if not math.isfinite(value):
            raise not_finite_error(self.X, self.C, what)

    def _loss_grad(self, ws: Workspace) -> np.ndarray:
        # 2C X'r: grad f(w) - w (Eq. 2.13); with n_jobs X'r came with f
        return 2.0 * self.C * (self._rmatvec(ws.r) if ws.xr is None else ws.xr)

    def _loss_hv(self, ws: Workspace, v: np.ndarray) -> np.ndarray:
        # 2C X'(...): H v - v (Eq. 2.9) with gamma^+(w, v), gamma^-(w, v)
        if self._blocked:
            return 2.0 * self.C * self._par_hv(ws, v)
        u = self._matvec(v)
        lp, lm, gp, gm = self._count(ws.z, u, ws.order)
        t = _kernels.hv_terms(u, lp, lm, gp, gm, self._weights)
        return 2.0 * self.C * self._rmatvec(t)

    def _finite_norm(self, vec: np.ndarray, what: str) -> None:
        # ||vec||^2 must be finite: TRON takes norms of gradients and products
        with np.errstate(over="ignore", invalid="ignore"):
            sq = float(vec @ vec)
        self._finite(sq, what)

    # ---------------------------------------------------------- public API
    def workspace(self, w) -> Workspace:
        """The :class:`Workspace` at ``w`` (computed, or the remembered one
        if it was built for an equal ``w``): Alg. 2 with v = w, then Eq.
        2.11-2.12.  Cost O(l n_bar + l log l + l log k) for the trees."""
        w = self._check_w(w)
        ws = self._ws
        if ws is not None and np.array_equal(ws.w, w):
            return ws
        xr = None
        if self._blocked:
            z, order, lp, lm, gp, gm, r, sums, xr = self._par_fun(w)
            quad, lin, pw = sums
            loss, hinge = quad - 2.0 * lin + pw, pw - lin
        else:
            z = self._matvec(w)
            order = _kernels.sort_within_queries(z, self.groups.perm, self.groups.start)
            lp, lm, gp, gm = self._count(z, z, order)
            r, loss, pw, hinge = _kernels.l2_terms(z, lp, lm, gp, gm, self._weights)
        f = 0.5 * float(w @ w) + self.C * loss
        self._finite(f, "f(w)")
        ws = Workspace(w.copy(), z, order, lp, lm, gp, gm, r, f,
                       int(pw) if self.sample_weight is None else float(pw),
                       float(hinge), float(loss), xr=xr)
        self._ws = ws
        return ws

    def fun(self, w) -> float:
        """f(w) of Eq. 1.3, computed by Eq. 2.12."""
        self.n_fun += 1
        return self.workspace(w).f

    def grad(self, w) -> np.ndarray:
        """grad f(w) = w + 2C X'(A_w'A_w X w - A_w'e_w), Eq. 2.13; shape (n,)."""
        ws = self.workspace(w)
        if ws.grad is None:
            self.n_grad += 1
            g = ws.w + self._loss_grad(ws)
            self._finite_norm(g, "||grad f(w)||^2")
            ws.grad = g
        return ws.grad.copy()

    def Hv(self, w, v) -> np.ndarray:
        """Generalised Hessian (Eq. 2.5) at ``w`` times ``v``: Eq. 2.9 with
        gamma^+(w, v), gamma^-(w, v) from Alg. 2 (one tree sweep per
        product, O(l n_bar + l log k + n)); shape (n,)."""
        ws = self.workspace(w)
        v = self._check_w(v, "v")
        self.n_hv += 1
        out = v + self._loss_hv(ws, v)
        self._finite_norm(out, "||H v||^2")
        return out

    def dual(self, w) -> float:
        """The L2-loss dual objective (appendix) at alpha_ij = 2C c_ij max(0,
        1 - w'(x_i - x_j)): sum alpha - 1/2 ||sum alpha_ij (x_i - x_j)||^2 -
        sum alpha_ij^2 / (4C c_ij).  A lower bound on min f, equal to it at
        the optimum; computed from the workspace without forming pairs
        (sum alpha_ij (x_i - x_j) = w - grad f(w)).  Returns min(D, f(w))
        (also a lower bound on min f), so that f(w) - dual(w) >= 0 even
        when rounding puts D a hair above f(w) at the optimum.

        NaN when D < 0 beyond the rounding of its three terms: such a D is
        below the trivial bound 0 <= min f and says nothing about the
        accuracy of w (far from the optimum, or at a large C, where alpha(w)
        multiplies the error of w by C: at C = 1e12 on MQ2008, D = -8e25 for
        f = 3e16); the duality gap is then not reported (NaN) rather than
        printed as a meaningless number."""
        ws = self.workspace(w)
        g = self.grad(w)
        return l2_dual_bound(self.C, ws.hinge, ws.loss, ws.f, ws.w - g,
                             lambda what: not_finite_error(self.X, self.C, what))

    def loss_terms(self, w) -> LossTerms:
        """The data terms at ``w`` (f, grad f and the dual without the
        regulariser), for a partition of the queries: see
        :class:`LossTerms`.  One pass of Alg. 2 (the workspace at ``w``,
        remembered for :meth:`loss_hv`) and one X'r, O(l n_bar + l log k).

        Raises
        ------
        ValueError
            ``w`` of the wrong shape or not finite; a term that is not
            finite in float64 (see :func:`not_finite_error`).
        """
        ws = self.workspace(w)
        g = self._loss_grad(ws)
        self._finite_norm(g, "||grad f(w)||^2")
        return LossTerms(ws.loss, ws.hinge, float(ws.p_w), g)

    def loss_hv(self, w, v) -> np.ndarray:
        """H v - v at ``w`` (the data part of Eq. 2.9; one tree sweep, as
        :meth:`Hv`), shape (n,): the partition's share of a Hessian-vector
        product.

        Raises
        ------
        ValueError
            ``w`` or ``v`` of the wrong shape or not finite; a product that
            is not finite in float64.
        """
        ws = self.workspace(w)
        v = self._check_w(v, "v")
        self.n_hv += 1
        out = self._loss_hv(ws, v)
        self._finite_norm(out, "||H v||^2")
        return out

    def l1_loss(self, w):
        """The L1 loss of Eq. 1.2 and a subgradient (Eq. 3.4):
        ``(C sum_{SV(w)} c_ij (1 - w'(x_i - x_j)), -C X'(s * (l^- - l^+)))``."""
        ws = self.workspace(w)
        v = (ws.lminus - ws.lplus) * self._weights
        sub = -self.C * self._rmatvec(v)
        self._finite_norm(sub, "||L1 subgradient||^2")
        return self.C * ws.hinge, sub

    def counts(self, w, v=None) -> dict:
        """l^+, l^-, gamma^+(w, v), gamma^-(w, v) for every document (v = w
        by default), as a dict of arrays of shape (l,): l^+ and l^- int64
        without weights, float64 weighted sums with weights (only the
        documents of positive weight).  For tests and
        teaching; the solvers use :meth:`workspace` and :meth:`Hv`."""
        ws = self.workspace(w)
        u = ws.z if v is None else self._matvec(self._check_w(v, "v"))
        lp, lm, gp, gm = self._count(ws.z, u, ws.order)
        if self.sample_weight is None:          # whole numbers: shown as integers
            lp, lm = lp.astype(np.int64), lm.astype(np.int64)
        return {"lplus": lp, "lminus": lm, "gplus": gp, "gminus": gm}


def not_finite_error(X, C: float, what: str) -> ValueError:
    """The ValueError to raise when a quantity of the objective is not
    finite in float64.

    That happens when f(w), a gradient, a Hessian-vector product or a bound
    overflows (features or C far too large, e.g. |x| ~ 1e200) or the
    optimum lies beyond float64 (features far too small): the solver must
    stop instead of reporting convergence.  The message names X and says to
    scale it.
    """
    data = X.data if sp.issparse(X) else X
    big = float(np.max(np.abs(data))) if data.size else 0.0
    return ValueError(
        f"X: {what} is not finite in float64 (largest |x| = {big:.3g}, C = {C:.3g}); "
        "scale X, e.g. with sklearn.preprocessing.StandardScaler, or lower C")
