"""Sign-constrained regularized loss minimization: SC-Pegasos and SC-SDCA.

Source: T. Kato, M. Kobayashi, D. Sano, "Sign-Constrained Regularized Loss
Minimization" (``sign-constrained-sdca-pegasos.txt``).

- :class:`Loss`, :func:`r_loss`, :data:`LOSSES`: the losses of Table 1 and
  Sec. 5 (value, (sub)gradient, conjugate, r_loss, SDCA step).
- :func:`sc_sdca`: SC-SDCA (Alg. 2, Alg. 4), with duality gap.
- :func:`sc_pegasos`: SC-Pegasos (Alg. 1, Alg. 3).
- :mod:`polyrank.sign.reference`: independent references (Clarabel QPs,
  scipy L-BFGS-B with bounds).
- :class:`SignConstrainedClassifier`, :class:`SignConstrainedRegressor`:
  the scikit-learn estimators.
"""

from .._jit import register_solver_package
from . import _kernels
from .estimator import SignConstrainedClassifier, SignConstrainedRegressor, sign_path
from .losses import BINARY_LOSSES, LOSSES, MULTICLASS_LOSSES, REGRESSION_LOSSES, Loss, r_loss
from .solvers import sc_pegasos, sc_sdca

__all__ = ["Loss", "r_loss", "LOSSES", "BINARY_LOSSES", "REGRESSION_LOSSES",
           "MULTICLASS_LOSSES", "sc_sdca", "sc_pegasos",
           "SignConstrainedClassifier", "SignConstrainedRegressor", "sign_path"]


def _tiny():
    import numpy as np

    rng = np.random.default_rng(0)
    return (rng.normal(size=(8, 3)), np.array([1.0, -1.0] * 4),
            np.array([0, 1, 2, 0, 1, 2, 0, 1]))


_BINARY = ("hinge", "smoothed_hinge", "logistic", "square", "absolute")


def _warmup_sdca(layout: str) -> None:
    """SC-SDCA of every binary and regression loss, X dense or CSR (and, for
    the dense storage, X given as a CSR matrix: its dense form's scatter)."""
    import scipy.sparse as sp

    X, yb, _ = _tiny()
    for loss in _BINARY:
        sc_sdca(X, yb, loss, 0.1, [1, -1, 0], max_iter=2, average_from=0,
                layout=layout, shrinking=True)
    if layout == "dense":
        sc_sdca(sp.csr_matrix(X), yb, "hinge", 0.1, max_iter=1, layout=layout)


def _warmup_pegasos() -> None:
    """SC-Pegasos of every binary and regression loss."""
    X, yb, _ = _tiny()
    for loss in _BINARY:
        sc_pegasos(X, yb, loss, 0.1, [1, -1, 0], batch_size=2, max_iter=4)


def _warmup_multiclass() -> None:
    """SC-SDCA and SC-Pegasos of the multiclass losses."""
    import numpy as np

    X, _, yc = _tiny()
    for loss in ("softmax", "max_hinge", "top_k_hinge"):
        sc_sdca(X, yc, loss, 0.1, np.ones((3, 3)), top_k=2, max_iter=1, average_from=0)
        sc_pegasos(X, yc, loss, 0.1, np.ones((3, 3)), top_k=2, batch_size=2, max_iter=4)


#: the parts of :func:`_warmup`, each one task of :func:`polyrank.warmup`'s workers:
#: SC-SDCA (the default solver) of the binary and regression losses
_WARMUP_PARTS = {
    "sdca_dense": lambda: _warmup_sdca("dense"),
    "sdca_csr": lambda: _warmup_sdca("csr"),
}
#: the rare variants, compiled on first use (with the compile notice) or by
#: ``polyrank warmup --all``: SC-Pegasos, the multiclass losses
_RARE_PARTS = {
    "pegasos": _warmup_pegasos,
    "multiclass": _warmup_multiclass,
}
#: the kernels of ``_kernels`` that only the rare variants call
_LAZY_KERNELS = (
    "row_scores", "pegasos_steps", "dual_from_primal", "_margin_vector", "_topk_indices",
    "mc_loss_value", "mc_loss_grad", "mc_conj_neg", "project_capped_simplex",
    "mc_sdca_delta", "mc_sdca_epoch", "mc_flush_average", "mc_pegasos_steps",
    "mc_objectives", "mc_dual_from_primal",
)


def _warmup() -> None:
    """Compile (or load from cache) the sign-constrained kernels of the
    default variants on a tiny problem (``_RARE_PARTS``: the others); called
    by :func:`polyrank.warmup`."""
    for part in _WARMUP_PARTS.values():
        part()


register_solver_package("sign", _kernels, _warmup, parts=_WARMUP_PARTS, rare=_RARE_PARTS,
                        lazy=_LAZY_KERNELS)
