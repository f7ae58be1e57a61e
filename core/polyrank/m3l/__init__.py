"""M3L: max-margin multi-label classification with a label-correlation prior R.

Source: B. Hariharan, S. V. N. Vishwanathan, M. Varma, "Efficient
Max-Margin Multi-Label Classification with Applications to Zero-Shot
Learning", Machine Learning 88, 2012 (``m3l-multilabel-zero-shot.txt``).

- :func:`m3l_smo`: kernelised M3L by SMO with delayed gradient updates and an
  LRU kernel cache (Sec. 5.1, Alg. 1-2), or (a diagonal R and a Gram matrix
  that fits the cache) example-major coordinate ascent on the whole Gram
  matrix, one kernel row serving every label.
- :func:`m3l_dca`: linear M3L by dual coordinate ascent with shrinkage
  (Sec. 6, Eq. 37-45).
- :class:`M3LClassifier`: the scikit-learn estimator.
- :func:`prior_from_classes`, :func:`empirical_prior`,
  :func:`two_label_prior`, :func:`check_R`: label-correlation priors
  (Sec. 3, Sec. 7.2).
- :func:`dual_qp`: the Clarabel reference of the dual D2 (Eq. 25).
- :func:`correlated_pair_subset`, :func:`shifted_subset`, :func:`fig5_pair`,
  :func:`fig5_setup`, :func:`fig5_curve`: zero-shot conditions on a
  multi-label data set (Sec. 7.2, Fig. 5; :mod:`polyrank.m3l.zero_shot`).
"""

from .._jit import register_solver_package
from . import _kernels
from .estimator import M3LClassifier, m3l_path
from .priors import check_R, empirical_prior, labels_pm1, prior_from_classes, two_label_prior
from .reference import dual_qp
from .solver import SMO_KERNELS, dual_gradient, m3l_dca, m3l_objectives, m3l_smo, projected_gradient
from .zero_shot import correlated_pair_subset, fig5_curve, fig5_pair, fig5_setup, shifted_subset

__all__ = ["M3LClassifier", "m3l_path", "m3l_smo", "m3l_dca", "m3l_objectives",
           "projected_gradient",
           "dual_gradient", "SMO_KERNELS", "check_R", "prior_from_classes",
           "empirical_prior", "two_label_prior", "labels_pm1", "dual_qp",
           "correlated_pair_subset", "shifted_subset", "fig5_pair", "fig5_setup", "fig5_curve"]


def _tiny():
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3))
    return X, np.where(rng.normal(size=(8, 2)) > 0, 1.0, -1.0), two_label_prior(0.3)


def _warmup_smo() -> None:
    """The SMO of Alg. 1-2 for every kernel (a tiny LRU cache), and with the
    whole Gram matrix in the cache (filled by BLAS blocks)."""
    X, Y, R = _tiny()
    for kernel in ("linear", "rbf", "poly"):
        m3l_smo(X, Y, R, 1.0, kernel=kernel, gamma=0.5, max_iter=2, cache_mb=1e-4)
    m3l_smo(X, Y, R, 1.0, kernel="rbf", gamma=0.5, max_iter=2)


def _warmup_cd(tol: float) -> None:
    """Coordinate ascent on the whole Gram matrix (R diagonal: method
    "auto"), stored in float32 (tol >= 1e-4) or in float64, to convergence
    (the exact check)."""
    X, Y, _ = _tiny()
    m3l_smo(X, Y, None, 1.0, kernel="rbf", gamma=0.5, tol=tol, random_state=0)


def _warmup_dca() -> None:
    """Linear M3L by dual coordinate ascent, R full and diagonal."""
    X, Y, R = _tiny()
    m3l_dca(X, Y, R, 1.0, max_iter=3, switch_tol=1.0, random_state=0)
    m3l_dca(X, Y, None, 1.0, max_iter=3, random_state=0)


#: the parts of :func:`_warmup`, each one task of :func:`polyrank.warmup`'s workers
#: (coordinate ascent in float32: the default tol = 1e-3 >= 1e-4)
_WARMUP_PARTS = {"smo": _warmup_smo, "cd32": lambda: _warmup_cd(1e-3), "dca": _warmup_dca}
#: the rare variants, compiled on first use (with the compile notice) or by
#: ``polyrank warmup --all``: coordinate ascent in float64 (tol < 1e-4)
_RARE_PARTS = {"cd64": lambda: _warmup_cd(1e-8)}
#: the kernels of ``_kernels`` that only the rare variants call
_LAZY_KERNELS: tuple[str, ...] = ()


def _warmup() -> None:
    """Compile (or load from cache) the M3L kernels of the default variants
    on a tiny problem (``_RARE_PARTS``: the others); called by
    :func:`polyrank.warmup`."""
    for part in _WARMUP_PARTS.values():
        part()


register_solver_package("m3l", _kernels, _warmup, parts=_WARMUP_PARTS, rare=_RARE_PARTS,
                        lazy=_LAZY_KERNELS)
