"""Reproductions of Sec. 6 of ``sign-constrained-sdca-pegasos.txt`` and the
SC-SDCA benchmark.

T. Kato, M. Kobayashi, D. Sano, "Sign-Constrained Regularized Loss
Minimization".

* :func:`sign_convergence` -- Fig. 2 (c): primal objective gap P(w) - P(w*)
  against epochs for SC-Pega (mini-batch 10 and 100) and SC-SDCA on the
  phishing data, smoothed hinge γ = 0.01, lam = 1/n; P(w*) from an
  independent Clarabel QP (cross-checked by L-BFGS-B with bounds).
* :func:`sign_small_sample` -- the protocol of the E. coli experiment
  (Sec. 6.1, Fig. 1) on the Wisconsin breast-cancer data: train SC-SVM and
  SVM on 10 random examples, test on the rest, many trials; ROC AUC and
  PRBEP, and the per-trial differences.
* :func:`bench_sign` -- ``polyrank bench sign``: SC-SDCA time to a duality
  gap of 1e-6 on phishing against L-BFGS-B with bounds to the same primal
  value.

Each returns an :class:`~polyrank_paper.registry.ExperimentResult`
(drawn by ``polyrank_paper.figures.sign``).

One module per experiment; importing this package registers them in the
order of the paper, then its benchmarks (``bench``).
"""

from ._common import FIG2_DATA, FIG2_PAPER_ORDER, SignDataInfo, correlation_signs

# isort: off
# the order of these imports is the order in which the experiments and
# benchmarks register (`polyrank reproduce --list`, `polyrank bench --list`)
from .convergence import ConvergenceRow, sign_convergence
from .fig2 import sign_fig2
from .small_sample import sign_small_sample
from .bench import bench_sign
# isort: on

__all__ = ["sign_convergence", "sign_fig2", "sign_small_sample", "bench_sign", "correlation_signs",
           "FIG2_DATA", "FIG2_PAPER_ORDER", "ConvergenceRow", "SignDataInfo"]
