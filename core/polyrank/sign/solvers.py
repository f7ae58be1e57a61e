"""Drivers of SC-Pegasos (Alg. 1, 3) and SC-SDCA (Alg. 2, 4), gathered:
:mod:`polyrank.sign.sdca` and :mod:`polyrank.sign.pegasos` define them,
:mod:`polyrank.sign.data` their input (checked or trusted).

Paper: T. Kato, M. Kobayashi, D. Sano, "Sign-Constrained Regularized Loss
Minimization" (``sign-constrained-sdca-pegasos.txt``).  Both solve Eq. 5,

    min_w  P(w) = lam/2 ||w||^2 + 1/n sum_i phi_i(<w, x_i>)   s.t.  c * w >= 0,

(Eq. 23 and 27 for a weight matrix W (d, m) and a sign matrix C in the
multiclass case) and record, once per epoch, the primal objective, the dual
objective of Eq. 48 and the duality gap.
"""

from .data import prepare_data, trusted_data
from .pegasos import sc_pegasos, sc_pegasos_trusted
from .sdca import sc_sdca, sc_sdca_trusted

__all__ = ["sc_sdca", "sc_pegasos", "prepare_data", "trusted_data", "sc_sdca_trusted",
           "sc_pegasos_trusted"]
