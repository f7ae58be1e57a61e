"""Drivers of the M3L solvers: kernelised SMO, kernelised example-major
coordinate ascent on the whole Gram matrix (both behind :func:`m3l_smo`)
and linear dual coordinate ascent with shrinkage.

Both solve the M3L primal P2 (Eq. 11-14 of ``m3l-multilabel-zero-shot.txt``)
with the Hamming loss (Eq. 6) and labels in {-1, +1}::

    P(Z) = 1/2 sum_{l,k} (R^-1)_lk z_l'z_k
           + C sum_{i,l} max(0, 2 - 2 y_il z_l'phi(x_i))

through its dual D2 (Eq. 25)::

    D(alpha) = 2 sum_{i,l} alpha_il - 2 sum_{l,k} R_lk alpha_l' Y_l K Y_k alpha_k,
    0 <= alpha <= C,

with Z = 2 phi(X)' (Y * alpha) R at the optimum (Eq. 23). Writing
G = 2 - 2 Y * F for the dual gradient (F the training decisions), both
objectives and the gap follow from (alpha, G) alone::

    P = sum alpha (1 - G/2) + C sum max(0, G),
    D = sum alpha (1 + G/2),
    P - D = sum [C max(0, G) - alpha G] >= 0.

With R = I the problem splits into L binary SVMs without bias with
penalty 2C (Sec. 3.1, Eq. 15-18).

Sample weights w_i make the bound per example, C_i = C w_i: the box
0 <= alpha_il <= C becomes 0 <= alpha_il <= C_i and C max(0, G) becomes
C_i max(0, G) above (an integer weight is the example repeated; 0 removes
it).

The public drivers :func:`m3l_smo` and :func:`m3l_dca` validate their input
and delegate to :func:`smo` and :func:`dca`, which trust it and take their
settings as one built options object (:class:`SmoOptions`, :class:`DcaOptions`;
the entries of :class:`~polyrank.M3LClassifier`, whose input ``validate_data``
checked).

This module gathers the drivers, which live one module per algorithm:
:mod:`polyrank.m3l.smo` (SMO, Alg. 1-2), :mod:`polyrank.m3l.cd` (coordinate
ascent on the whole Gram matrix), :mod:`polyrank.m3l.dca` (linear, Sec. 6),
:mod:`polyrank.m3l.gram` (Gram matrix, kernel-row cache, ``cache_mb``) and
:mod:`polyrank.m3l.common` (checks, objectives, how a solve starts and ends).
"""

from __future__ import annotations

from .common import dual_gradient, label_gaps, m3l_objectives, projected_gradient
from .dca import DCA_METHODS, STOPPING_RULES, DcaOptions, dca, linear_rows, m3l_dca
from .gram import (
    AUTO_CACHE_FRACTION,
    AUTO_CACHE_MAX_MB,
    AUTO_CACHE_MIN_MB,
    GRAM_DTYPES,
    cache_megabytes,
    expansion,
    gradient_by_rows,
    gram,
    stored_gram,
)
from .smo import SMO_KERNELS, SMO_METHODS, SmoOptions, m3l_smo, smo

__all__ = ["m3l_smo", "m3l_dca", "smo", "dca", "SmoOptions", "DcaOptions", "m3l_objectives",
           "projected_gradient", "dual_gradient", "label_gaps", "cache_megabytes", "gram",
           "stored_gram", "expansion", "gradient_by_rows", "linear_rows", "SMO_KERNELS",
           "SMO_METHODS", "DCA_METHODS", "STOPPING_RULES", "GRAM_DTYPES",
           "AUTO_CACHE_FRACTION", "AUTO_CACHE_MAX_MB", "AUTO_CACHE_MIN_MB"]
