"""Ordinal ranking: support vector ordinal regression (the default model) and
minimum-margin maximisation with row and column generation, with kernels.

Source of the minimum-margin problems: Y. Izunaga, K. Sato, K. Tatsumi and
Y. Yamamoto, "Row and column generation algorithms for minimum margin
maximization of ranking problems", J. Oper. Res. Soc. Japan 58(4):394-409, 2015
(``row-column-generation-ordinal.txt``).

- :func:`solve_svor`: support vector ordinal regression with implicit
  constraints (SVORIM; W. Chu and S. S. Keerthi, Neural Computation 19(3),
  2007, Sec. 3), the default model of :class:`OrdinalMarginRanker`, by
  trust-region Newton (linear) or dual coordinate descent (kernels);
  :func:`loss_thresholds`: thresholds minimising the training MAE (or
  another loss) exactly, by dynamic programming.
- :func:`solve_ordinal`: the problems (H), (H-bar), (H~), (H~+), (S),
  (S-bar), (S~) (Sec. 3, 5, 6, 8, Appendix A) by the algorithms RH,
  RC(H-bar), RC(H~), RS, RC(S-bar), RC(S~) (Sec. 4, 5, 7, 8, 10), or as one
  QP (``method="full"``).
- :func:`prank`: kernel PRank (Crammer & Singer, NIPS 2001), the paper's
  baseline (Sec. 10).
- :class:`OrdinalMarginRanker`, :class:`PRank`: the scikit-learn estimators.
- :func:`make_instance`: the random instances S.n.q and NS.n.q (Sec. 10);
  :func:`make_overlapping`: overlapping grades (where (S) collapses).
"""

import warnings

import scipy.sparse as sp

from .._jit import register_solver_package
from ..exceptions import TrivialModelWarning
from . import _kernels
from ._ordinal_path import ordinal_path
from .estimator import OrdinalMarginRanker, PRank
from .generation import (
    FORMULATIONS,
    METHODS,
    InfeasibleError,
    algorithm_name,
    check_labels,
    formulation_name,
    initial_working_set,
    paper_notation,
    predict_labels,
    solve_ordinal,
)
from .instances import (
    PAPER_THRESHOLDS,
    WHITE_WINE_GRADES,
    make_instance,
    make_overlapping,
    rank_loss,
)
from .prank import prank
from .svor import (
    PAPER_C,
    SVOR_LINEAR_C,
    SVOR_LOSSES,
    THRESHOLD_LOSSES,
    loss_thresholds,
    solve_svor,
)

__all__ = ["solve_svor", "loss_thresholds", "SVOR_LOSSES", "THRESHOLD_LOSSES",
           "SVOR_LINEAR_C", "PAPER_C",
           "make_overlapping", "WHITE_WINE_GRADES",
           "solve_ordinal", "prank", "OrdinalMarginRanker", "PRank", "make_instance",
           "rank_loss", "PAPER_THRESHOLDS", "FORMULATIONS", "METHODS",
           "InfeasibleError", "algorithm_name", "formulation_name", "check_labels",
           "initial_working_set", "paper_notation", "predict_labels", "ordinal_path"]


def _warmup_svor() -> None:
    """SVOR (the default model) with its defaults: TRON on the squared hinge,
    linear kernel, X dense and CSR, and the loss-minimising thresholds."""
    X, labels = make_instance(12, separable=True, seed=0)
    solve_svor(X, labels, tol=1e-3)
    solve_svor(sp.csr_matrix(X), labels, tol=1e-3)
    loss_thresholds(X[:, 0], labels)


def _warmup_svor_rare() -> None:
    """SVOR's other variants: dual CD for the rbf kernel and for the hinge
    loss, X dense and CSR."""
    X, labels = make_instance(12, separable=True, seed=0)
    solve_svor(X, labels, kernel="rbf", tol=1e-3)
    solve_svor(X, labels, loss="hinge", tol=1e-3)
    solve_svor(sp.csr_matrix(X), labels, loss="hinge", tol=1e-3)


def _warmup_generation() -> None:
    """The paper's minimum-margin problems by row and column generation."""
    X, labels = make_instance(12, separable=True, seed=0)
    solve_ordinal(X, labels, margin="hard", kernel="poly", gamma=1.0, degree=2)
    solve_ordinal(X, labels, margin="hard", kernel="poly", gamma=1.0, degree=2,
                  nonneg=True)
    solve_ordinal(X, labels, margin="soft", representation="primal", c=1.0,
                  add_per_iter=1)
    for kernel in ("rbf", "poly"):                  # the SMO sub-problem solver
        solve_ordinal(X, labels, margin="soft", kernel=kernel, gamma=1.0, degree=2)


def _warmup_prank() -> None:
    """Kernel PRank, dense and CSR."""
    X, labels = make_instance(12, separable=True, seed=0)
    with warnings.catch_warnings():      # one pass on 12 objects: a trivial model
        warnings.simplefilter("ignore", TrivialModelWarning)
        for kernel in ("linear", "rbf", "poly"):
            PRank(kernel=kernel).fit(X, labels).predict(X)
        PRank().fit(sp.csr_matrix(X), labels).predict(sp.csr_matrix(X))


#: the parts of :func:`_warmup`, each one task of :func:`polyrank.warmup`'s workers:
#: SVOR's defaults, and the paper's formulation and PRank (the tour runs both)
_WARMUP_PARTS = {"svor": _warmup_svor, "generation": _warmup_generation,
                 "prank": _warmup_prank}
#: the rare variants, compiled on first use (with the compile notice) or by
#: ``polyrank warmup --all``: SVOR by dual coordinate descent (rbf kernel, hinge loss)
_RARE_PARTS = {"svor_dual": _warmup_svor_rare}
#: the kernels of ``_kernels`` that only the rare variants call
_LAZY_KERNELS = (
    "svor_pass_dense", "svor_pass_csr", "svor_pass_gram", "svor_loss", "svor_dual_terms",
)


def _warmup() -> None:
    """Compile (or load from cache) the kernels of this subpackage's
    default variants on a tiny problem (``_RARE_PARTS``: the others); called
    by :func:`polyrank.warmup`."""
    for part in _WARMUP_PARTS.values():
        part()


register_solver_package("ordinal", _kernels, _warmup, parts=_WARMUP_PARTS, rare=_RARE_PARTS,
                        lazy=_LAZY_KERNELS)
