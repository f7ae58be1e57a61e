"""numba kernels of sign-constrained Pegasos and SDCA (Kato et al.): the
epochs of binary/regression SC-SDCA (Alg. 2) here, and every other kernel
of :mod:`polyrank.sign` re-exported from the modules that define them
(:mod:`._loss_kernels`: the losses of Table 1 and the shared pieces;
:mod:`._multiclass_kernels`: Sec. 5; :mod:`._pegasos_kernels`: Alg. 1, 3),
so that the solvers, ``polyrank warmup`` and the compile notice find every
kernel of the package in this one module.

Paper file: ``sign-constrained-sdca-pegasos.txt``.  Plain arrays in, numbers
out; no Python objects.  Conventions:

* ``X`` is given in CSR form ``(indptr, indices, data)`` with one *row* per
  example (the paper's ``X`` is d x n with one column per example).
* Binary/regression losses (Table 1) are identified by an integer code
  (:data:`HINGE` ... :data:`ABSOLUTE`); multiclass losses (Sec. 5, Eq. 20-22)
  by :data:`SOFTMAX`, :data:`MAX_HINGE`, :data:`TOP_K_HINGE`.
* Dual variables follow Eq. 14 / Eq. 48: the primal point is recovered as
  ``w = Pi_S(wbar)``, ``wbar = X' alpha / (lam n)``, and the loss enters the
  dual through ``phi_i^*(-alpha_i)``.
* The sign vector ``c`` (Eq. 4) is float64 with entries in {-1, 0, +1}; the
  sign correction of Eq. 11 is ``w_h <- w_h + c_h max(0, -c_h w_h)``.
"""

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._loss_kernels import (
    _DOM_TOL,
    ABSOLUTE,
    HINGE,
    LOGISTIC,
    MAX_HINGE,
    SMOOTH_HINGE,
    SOFTMAX,
    SQUARE,
    TOP_K_HINGE,
    CsrExamples,
    conj_convexity,
    conj_neg,
    conj_sum,
    loss_deriv,
    loss_sum,
    loss_value,
    objectives,
    project_signs,
    row_dot,
    row_sqnorms,
    sdca_delta,
    shuffle,
    sign_correct,
    xt_alpha,
)
from ._multiclass_kernels import (
    McSdcaIterate,
    _margin_vector,
    _topk_indices,
    mc_conj_neg,
    mc_flush_average,
    mc_loss_grad,
    mc_loss_value,
    mc_objectives,
    mc_sdca_delta,
    mc_sdca_epoch,
    project_capped_simplex,
    row_scores,
)
from ._pegasos_kernels import dual_from_primal, mc_dual_from_primal, mc_pegasos_steps, pegasos_steps

__all__ = [
    'ABSOLUTE', 'ActiveRows', 'CsrExamples', 'DenseExamples', 'HINGE', 'LOGISTIC', 'MAX_HINGE',
    'McSdcaIterate', 'SMOOTH_HINGE', 'SOFTMAX', 'SQUARE', 'SdcaIterate', 'SignBox',
    'TOP_K_HINGE', '_DOM_TOL', '_PREFETCH_ROWS', '_VEC', '_axpy_project', '_dot',
    '_dot2', '_margin_vector', '_prefetch', '_prefetch_range', '_topk_indices',
    'active_epochs', 'active_epochs_dense', 'active_rows', 'csr_into_dense',
    'dense_objectives', 'dense_sqnorms', 'dense_xt_alpha', 'rows_gap', 'conj_convexity',
    'conj_neg', 'conj_sum', 'dual_from_primal',
    'flush_average', 'loss_deriv', 'loss_sum', 'loss_value', 'mc_conj_neg',
    'mc_dual_from_primal', 'mc_flush_average', 'mc_loss_grad', 'mc_loss_value',
    'mc_objectives', 'mc_pegasos_steps', 'mc_sdca_delta', 'mc_sdca_epoch', 'objectives',
    'pegasos_steps', 'project_capped_simplex', 'project_signs', 'row_dot', 'row_scores',
    'row_sqnorms', 'sdca_delta', 'sdca_epoch', 'sdca_epoch_dense', 'shuffle',
    'sign_correct', 'xt_alpha',
]

class DenseExamples(NamedTuple):
    """The examples of :func:`sdca_epoch_dense` as one argument: a dense X
    with the labels and the example weights (the dense twin of
    :class:`CsrExamples`)."""

    X: np.ndarray              # float64 (n, d), C-contiguous: one row per example
    y: np.ndarray              # float64 (n,) labels
    sw: np.ndarray             # float64 (n,): example weights s_i, mean 1


class SignBox(NamedTuple):
    """The sign constraints of Eq. 4 as the box Pi_S clips to (Eq. 11), one
    argument of :func:`sdca_epoch_dense`: ``lo = 0`` where c = +1, ``hi =
    0`` where c = -1, else -inf / +inf."""

    lo: np.ndarray             # float64 (d,): lower bounds of w
    hi: np.ndarray             # float64 (d,): upper bounds of w


class SdcaIterate(NamedTuple):
    """The iterate of binary/regression SC-SDCA, one argument of
    :func:`sdca_epoch` and :func:`sdca_epoch_dense` (all updated in place
    except ``w_prev``)."""

    alpha: np.ndarray          # float64 (n,): dual variables (Eq. 14)
    wbar: np.ndarray           # float64 (d,): X' alpha / (lam n)
    w: np.ndarray              # float64 (d,): Pi_S(wbar)
    wsum: np.ndarray           # float64 (d,): lazy running sum of w (averaging)
    last: np.ndarray           # int64 (d,): step of each coordinate's last change
    w_prev: np.ndarray         # float64 (d,): the previous epoch's iterate (track)
    z_prev: np.ndarray         # float64 (n,): receives <w_prev, x_i> (track)


@intrinsic
def _prefetch(typingctx, arr, offset):
    """Hint the CPU to load the cache line holding element ``offset`` of the
    C-contiguous array ``arr`` (flat index; LLVM's ``llvm.prefetch``, read,
    high locality).  No effect on results."""
    if not isinstance(arr, types.Array) or not isinstance(offset, types.Integer):
        return None
    sig = types.void(arr, offset)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


#: rows ahead whose memory an epoch asks for before it needs them: the
#: epochs visit rows in random order, which the hardware prefetcher cannot
#: follow
_PREFETCH_ROWS = 6


@njit(cache=True, nogil=True)
def _prefetch_range(arr, start, stop):
    """Prefetch the cache lines of the flat elements [start, stop) (8 float64
    or int64 per 64-byte line)."""
    for q in range(start, stop, 8):
        _prefetch(arr, q)
    if stop > start:
        _prefetch(arr, stop - 1)


@njit(cache=True, nogil=True)
def sdca_epoch(rows, code, smoothing, lam, sqnorm, s_lb, it, c, perm, t0, average, track):
    """One epoch of SC-SDCA (Alg. 2) on CSR rows: for i in ``perm``, the
    coordinate step (step 4, :func:`sdca_delta`), the update of wbar (step
    5) and the sign correction of the coordinates of x_i (step 6; the other
    coordinates of wbar are unchanged, so Eq. 11 leaves them as they are).

    If ``average``, accumulates ``wsum += w^(t-1)`` for every step t of the
    epoch lazily (``last[h]`` is the step at which coordinate h last changed;
    flush with :func:`flush_average`), the sum of Alg. 2, step 8.  ``t0`` is
    the number of steps before this epoch.

    If ``track``, also stores ``z_prev[i] = <w_prev, x_i>`` while row i is
    in cache: the margins of the previous epoch's iterate, from which
    :func:`loss_sum` gives its primal objective without another pass over X.

    ``sw`` (n,) are the example weights s_i (mean 1 over all n rows): the
    loss of row i is s_i phi_i, whose dual variable alpha_i = s_i a_i has
    the step s_i :func:`sdca_delta` (z, a_i, y_i, s_i qq) (rows of weight 0
    are skipped).  With every s_i = 1 the step is Alg. 2's exactly.

    ``rows``: :class:`CsrExamples` (X, y, sw); ``it``: :class:`SdcaIterate`
    (alpha, wbar, w, wsum, last, w_prev, z_prev); ``sqnorm`` (n,) the
    ||x_i||^2; ``c`` (d,) the signs.

    Returns the number of dual variables alpha_i that changed.
    """
    indptr, indices, data, y, sw = rows.indptr, rows.indices, rows.data, rows.y, rows.sw
    alpha, wbar, w, wsum, last = it.alpha, it.wbar, it.w, it.wsum, it.last
    w_prev, z_prev = it.w_prev, it.z_prev
    n = perm.shape[0]
    inv_lam_n = 1.0 / (lam * y.shape[0])
    changed = 0
    for j in range(n):
        if j + _PREFETCH_ROWS < n:
            r = perm[j + _PREFETCH_ROWS]
            _prefetch_range(indices, indptr[r], indptr[r + 1])
            _prefetch_range(data, indptr[r], indptr[r + 1])
        i = perm[j]
        z = row_dot(indptr, indices, data, i, w)
        if track:
            z_prev[i] = row_dot(indptr, indices, data, i, w_prev)
        s = sw[i]
        if s == 0.0:
            continue
        d = s * sdca_delta(code, z, alpha[i] / s, y[i], sqnorm[i] * inv_lam_n * s, smoothing,
                           s_lb)
        if d == 0.0:
            continue
        changed += 1
        alpha[i] += d
        scale = d * inv_lam_n
        t = t0 + j              # steps done before this one
        for p in range(indptr[i], indptr[i + 1]):
            h = indices[p]
            if average:
                wsum[h] += w[h] * (t + 1 - last[h])
                last[h] = t + 1
            wbar[h] += scale * data[p]
            w[h] = sign_correct(wbar[h], c[h])
    return changed


#: fast-math flags of the dense inner products: reassociation lets LLVM
#: vectorise the sums (their rounding differs from a left-to-right sum by a
#: few ulp); no flag that changes inf/NaN semantics
_VEC = {"reassoc", "contract", "nsz"}


@njit(cache=True, nogil=True, fastmath=_VEC)
def _dot(x, w):
    acc = 0.0
    for h in range(x.shape[0]):
        acc += x[h] * w[h]
    return acc


@njit(cache=True, nogil=True, fastmath=_VEC)
def _dot2(x, w, v):
    """(<x, w>, <x, v>) in one pass over x."""
    a = 0.0
    b = 0.0
    for h in range(x.shape[0]):
        a += x[h] * w[h]
        b += x[h] * v[h]
    return a, b


@njit(cache=True, nogil=True, fastmath=_VEC)
def _axpy_project(s, x, wbar, w, lo, hi):
    """wbar += s x, then w = Pi_S(wbar) (Eq. 11) written as the clip of
    wbar_h to [lo_h, hi_h] (lo = 0 where c = +1, hi = 0 where c = -1, else
    -inf / +inf)."""
    for h in range(x.shape[0]):
        v = wbar[h] + s * x[h]
        wbar[h] = v
        v = v if v > lo[h] else lo[h]
        w[h] = v if v < hi[h] else hi[h]


@njit(cache=True, nogil=True)
def sdca_epoch_dense(rows, code, smoothing, lam, sqnorm, s_lb, it, box, perm, t0, average,
                     track):
    """:func:`sdca_epoch` for a dense, C-contiguous X (n, d): the same steps
    of Alg. 2 with vectorised inner products and updates (a step touches
    every coordinate, so the sign correction is applied to all of w, as a
    clip to [lo, hi] of ``box``, a :class:`SignBox`).  ``rows``:
    :class:`DenseExamples` (X, y, sw); ``it`` (:class:`SdcaIterate`),
    ``average``, ``track``: as in :func:`sdca_epoch`.

    Returns the number of alpha_i that changed.
    """
    X, y, sw = rows.X, rows.y, rows.sw
    lo, hi = box.lo, box.hi
    alpha, wbar, w, wsum, last = it.alpha, it.wbar, it.w, it.wsum, it.last
    w_prev, z_prev = it.w_prev, it.z_prev
    n = perm.shape[0]
    d = X.shape[1]
    inv_lam_n = 1.0 / (lam * y.shape[0])
    changed = 0
    for j in range(n):
        if j + _PREFETCH_ROWS < n:
            r = perm[j + _PREFETCH_ROWS] * d
            _prefetch_range(X, r, r + d)
        i = perm[j]
        x = X[i]
        if track:
            z, z_prev[i] = _dot2(x, w, w_prev)
        else:
            z = _dot(x, w)
        s = sw[i]
        if s == 0.0:
            continue
        d_alpha = s * sdca_delta(code, z, alpha[i] / s, y[i], sqnorm[i] * inv_lam_n * s,
                                 smoothing, s_lb)
        if d_alpha == 0.0:
            continue
        changed += 1
        alpha[i] += d_alpha
        if average:
            t = t0 + j
            for h in range(d):
                wsum[h] += w[h] * (t + 1 - last[h])
                last[h] = t + 1
        _axpy_project(d_alpha * inv_lam_n, x, wbar, w, lo, hi)
    return changed


@njit(cache=True, nogil=True)
def active_rows(code, alpha, alpha_before, y, sw):
    """The rows kept by the shrinking of :func:`polyrank.sign.sc_sdca`: those
    whose alpha_i changed in the last full epoch or lies inside the domain
    of phi_i^* (not at a bound: y alpha in {0, 1} for the hinge losses,
    |alpha| = 1 for the absolute loss; the logistic and square losses have
    no reachable bound, so all their rows stay), bounds scaled by the weight
    s_i; rows of weight 0 never.  int64 indices, ascending."""
    n = alpha.shape[0]
    keep = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        if sw[i] == 0.0:
            continue
        a = alpha[i] / sw[i]
        if code == HINGE or code == SMOOTH_HINGE:
            b = a * y[i]
            bound = b == 0.0 or b == 1.0
        elif code == ABSOLUTE:
            bound = a == 1.0 or a == -1.0
        else:
            bound = False
        if alpha[i] != alpha_before[i] or not bound:
            keep[k] = i
            k += 1
    return keep[:k].copy()


@njit(cache=True, nogil=True)
def flush_average(w, wsum, last, t):
    """Bring the lazy sum of :func:`sdca_epoch` up to step t: adds w[h] for
    every step since coordinate h last changed."""
    for h in range(w.shape[0]):
        wsum[h] += w[h] * (t - last[h])
        last[h] = t


#: the shrinking epochs of a warm start look at the active rows' gap after
#: every this many epochs (the look costs about half an epoch)
_GAP_EVERY = 4


class ActiveRows(NamedTuple):
    """The rows of the shrinking epochs of :func:`active_epochs` and
    :func:`active_epochs_dense` with the uniforms of their shuffles."""

    rows: np.ndarray           # int64 (|A|,): the active rows, shuffled in place
    u: np.ndarray              # float64 (k |A|,): k shuffles' uniforms (k epochs at most)
    done: int                  # epochs done before (the gap is looked at every
                               # _GAP_EVERY epochs, counted from the first)



@njit(cache=True, nogil=True)
def rows_gap(code, smoothing, y, sw, alpha, rows, z):
    """sum over the rows i = ``rows[j]`` (margins z_i = ``z[j]``) of
    s_i phi_i(z_i) + s_i phi_i^*(-alpha_i / s_i) + alpha_i z_i.  Each term is
    >= 0 (Fenchel-Young); at z_i = <w, x_i>, w = Pi_S(X' alpha / (lam n)),
    the sum over all n rows divided by n is the duality gap P - D of Eq. 1
    and 48 (lam ||w||^2 = 1/n sum_i alpha_i z_i, since <w, wbar - w> = 0 for
    the projection of Eq. 11)."""
    acc = 0.0
    for j in range(rows.shape[0]):
        i = rows[j]
        s = sw[i]
        if s != 0.0:
            acc += (s * loss_value(code, z[j], y[i], smoothing)
                    + s * conj_neg(code, alpha[i] / s, y[i], smoothing) + alpha[i] * z[j])
    return acc


@njit(cache=True, nogil=True)
def active_epochs(rows, code, smoothing, lam, sqnorm, s_lb, it, c, act, t0, average, gap_stop):
    """The shrinking epochs of SC-SDCA on CSR rows: up to k = len(u) // |A|
    epochs of :func:`sdca_epoch` over the active rows ``act.rows``
    (:class:`ActiveRows`), each in a fresh order (:func:`shuffle` with the
    next |A| of ``act.u``).  Ends after an epoch that changes no alpha_i or,
    if ``gap_stop > 0``, whose active rows' :func:`rows_gap` is <=
    ``gap_stop`` (looked at after every :data:`_GAP_EVERY` epochs).
    Returns (steps taken, |A| per epoch done; whether it ended early)."""
    active = act.rows
    na = active.shape[0]
    z = np.empty(na)
    taken = 0
    for e in range(act.u.shape[0] // na):
        shuffle(active, act.u[e * na:(e + 1) * na])
        # track as np.bool_: a literal False would compile sdca_epoch a second time
        moved = sdca_epoch(rows, code, smoothing, lam, sqnorm, s_lb, it, c, active, t0 + taken,
                           average, np.bool_(False))
        taken += na
        if moved == 0:
            return taken, True
        if gap_stop > 0.0 and (act.done + e) % _GAP_EVERY == _GAP_EVERY - 1:
            for j in range(na):
                z[j] = row_dot(rows.indptr, rows.indices, rows.data, active[j], it.w)
            if rows_gap(code, smoothing, rows.y, rows.sw, it.alpha, active, z) <= gap_stop:
                return taken, True
    return taken, False


@njit(cache=True, nogil=True)
def active_epochs_dense(rows, code, smoothing, lam, sqnorm, s_lb, it, box, act, t0, average,
                        gap_stop):
    """:func:`active_epochs` with :func:`sdca_epoch_dense` (``rows``:
    :class:`DenseExamples`, ``box``: :class:`SignBox`)."""
    active = act.rows
    na = active.shape[0]
    z = np.empty(na)
    taken = 0
    for e in range(act.u.shape[0] // na):
        shuffle(active, act.u[e * na:(e + 1) * na])
        moved = sdca_epoch_dense(rows, code, smoothing, lam, sqnorm, s_lb, it, box, active,
                                 t0 + taken, average, np.bool_(False))
        taken += na
        if moved == 0:
            return taken, True
        if gap_stop > 0.0 and (act.done + e) % _GAP_EVERY == _GAP_EVERY - 1:
            for j in range(na):
                z[j] = _dot(rows.X[active[j]], it.w)
            if rows_gap(code, smoothing, rows.y, rows.sw, it.alpha, active, z) <= gap_stop:
                return taken, True
    return taken, False


# ------------------------------------------- the dense form of X (layout "dense")

@njit(cache=True, nogil=True)
def dense_sqnorms(X):
    """||x_i||^2 of every row of a dense X (n, d): :func:`row_sqnorms`'s sums
    (a zero entry adds an exact 0, so the sums equal those over a CSR form's
    stored entries bit for bit)."""
    n, d = X.shape
    out = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for h in range(d):
            acc += X[i, h] * X[i, h]
        out[i] = acc
    return out


@njit(cache=True, nogil=True)
def dense_xt_alpha(X, alpha, lam_n, out):
    """out = X' alpha / (lam n) for a dense X (n, d) and alpha (n,):
    :func:`xt_alpha`'s binary case, summed in the same order."""
    out[:] = 0.0
    inv = 1.0 / lam_n
    for i in range(X.shape[0]):
        a = alpha[i] * inv
        if a != 0.0:
            for h in range(X.shape[1]):
                out[h] += X[i, h] * a


@njit(cache=True, nogil=True)
def dense_objectives(X, y, sw, code, smoothing, lam, w, alpha, w_dual):
    """:func:`objectives` (P of Eq. 1, D of Eq. 48) for a dense X (n, d); the
    margins are summed left to right as :func:`row_dot` sums a CSR row."""
    n, d = X.shape
    loss = 0.0
    for i in range(n):
        if sw[i] != 0.0:
            acc = 0.0
            for h in range(d):
                acc += X[i, h] * w[h]
            loss += sw[i] * loss_value(code, acc, y[i], smoothing)
    P = 0.5 * lam * np.dot(w, w) + loss / n
    D = -0.5 * lam * np.dot(w_dual, w_dual) - conj_sum(code, alpha, y, smoothing, sw) / n
    return P, D


@njit(cache=True, nogil=True)
def csr_into_dense(indptr, indices, data, out):
    """Scatter a CSR X (n, d) into the zeroed dense ``out`` (n, >= d): the
    one copy of X that layout "dense" reads (a bias column may follow)."""
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            out[i, indices[p]] = data[p]
