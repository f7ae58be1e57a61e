"""numba kernels of M3L: kernelised SMO (Alg. 1-2), kernelised
example-major coordinate ascent on a precomputed Gram matrix
(:func:`cd_epoch`) and linear dual coordinate ascent with shrinkage
(Sec. 6).

Source: ``m3l-multilabel-zero-shot.txt`` (Hariharan, Vishwanathan, Varma),
Sec. 5.1 (Eq. 26-36), Sec. 6 (Eq. 37-45) and Appendix A (Alg. 1, Alg. 2,
Eq. 46-58).

Notation (all arrays are plain float64/int64 numpy arrays):

* ``Y`` (N, L) labels in {-1, +1}; ``alpha`` (N, L) dual variables in
  [0, C_i]; ``Cv`` (N,) the per-example bounds C_i = C w_i (sample weights
  w_i; 0 pins an example's variables at 0); ``R`` (L, L) the symmetric
  positive-definite label prior.
* The linear solver reads X through ``(X, Xdata, Xind, Xptr)``: a dense X,
  or an empty X and a CSR matrix (:mod:`polyrank._csr`).
* With the Hamming loss, Delta^-_il - Delta^+_il = 2, so the gradient of
  the dual D2 (Eq. 25, Eq. 29) is ``G[i, l] = 2 - 2 y_il f_l(x_i)`` where
  ``f_l(x) = z_l' phi(x) = 2 sum_k R_lk sum_j K(x, x_j) y_jk alpha_jk``.
* The projected gradient (Eq. 31, 55) is G on (0, C), min(0, G) at C and
  max(0, G) at 0.

The kernels are free functions over arrays (no jitclass, no callbacks):
one call of :func:`smo_pass` (a sweep) or :func:`dca_run` (epochs up to a
duality-gap check) is one chunk of work of the Python drivers in
:mod:`polyrank.m3l.solver`.

They live in one module per algorithm, all re-exported here (the names the
drivers, the tests and :func:`polyrank.warmup` read: every dispatcher of
this module is a kernel of the package):

* :mod:`~polyrank.m3l._kernels_base`: the argument tuples, kernel codes,
  the 1-D step and the linear solvers' row operations (:func:`linear_state`);
* :mod:`~polyrank.m3l._kernels_smo`: SMO (Alg. 1-2) and its kernel-row cache;
* :mod:`~polyrank.m3l._kernels_cd`: coordinate ascent on the whole Gram matrix;
* :mod:`~polyrank.m3l._kernels_dca`: linear dual coordinate ascent, any R (Sec. 6);
* :mod:`~polyrank.m3l._kernels_ovr`: linear, diagonal R (LIBLINEAR's per-label solve).
"""

from __future__ import annotations

from ._kernels_base import (  # noqa: F401  (re-exported)
    _FAST,
    DCA_BUDGET,
    DCA_SOLVED,
    KIND_LINEAR,
    KIND_POLY,
    KIND_RBF,
    CdIterate,
    DcaState,
    DcaWork,
    GramProblem,
    KernelCache,
    KernelSpec,
    LabelRows,
    LinearRows,
    OvrState,
    SmoArrays,
    _abs_projected,
    _daxpy,
    _ddot,
    _saxpy,
    _sdot,
    _snap,
    linear_state,
    projected,
    solve_1d,
)
from ._kernels_cd import (  # noqa: F401  (re-exported)
    _decisions,
    _push_row,
    cd_epoch,
    cd_state,
)
from ._kernels_dca import (  # noqa: F401  (re-exported)
    _dca_between_epochs,
    _dca_epoch_order,
    _flush,
    dca_run,
)
from ._kernels_ovr import (  # noqa: F401  (re-exported)
    ovr_run,
)
from ._kernels_smo import (  # noqa: F401  (re-exported)
    _FAST_MAX,
    _claim_slot,
    _delayed_update,
    _first_max,
    _gains,
    _gains_at,
    _label_max,
    _label_max_at,
    _pair_step,
    _pg_scan,
    _q2,
    _update2,
    _update2_at,
    _vmax,
    cache_get,
    kernel_row,
    kernel_row_at,
    smo_pass,
    solve_2d,
)

__all__ = ["CdIterate", "DCA_BUDGET", "DCA_SOLVED", "DcaState", "DcaWork", "GramProblem",
           "KIND_LINEAR", "KIND_POLY", "KIND_RBF", "KernelCache", "KernelSpec",
           "LabelRows", "LinearRows", "OvrState", "SmoArrays", "linear_state", "projected",
           "solve_1d", "_FAST", "_abs_projected", "_daxpy", "_ddot", "_saxpy", "_sdot",
           "_snap", "cache_get", "kernel_row", "kernel_row_at", "smo_pass", "solve_2d",
           "_FAST_MAX", "_claim_slot", "_delayed_update", "_first_max", "_gains",
           "_gains_at", "_label_max", "_label_max_at", "_pair_step", "_pg_scan", "_q2",
           "_update2", "_update2_at", "_vmax", "cd_epoch", "cd_state", "_decisions",
           "_push_row", "dca_run", "_dca_between_epochs", "_dca_epoch_order", "_flush",
           "ovr_run"]
