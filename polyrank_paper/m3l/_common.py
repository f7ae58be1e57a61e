"""What the reproductions of ``m3l-multilabel-zero-shot.txt`` share: the
reference settings of linear and rbf M3L on yeast, and the row of Table 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry import column, fmt_spec

__all__ = ["LINEAR", "RBF", "Table1Row"]


_PAPER = "Hariharan, Vishwanathan & Varma, MLJ 2012"
#: the reference settings of the issue (original M3L code on yeast)
LINEAR = {"kernel": "linear", "C": 0.5}
RBF = {"kernel": "rbf", "gamma": 1.0, "C": 1.0}




@dataclass(frozen=True)
class Table1Row:
    """One training-set size of :func:`~polyrank_paper.m3l_table1`
    (and of ``polyrank bench m3l``): CPU seconds of M3L and 1-vs-All.

    Attributes
    ----------
    N : int
        Training points.
    linear_m3l_s, liblinear_1vsall_s : float
        Linear M3L and 1-vs-All LinearSVC, seconds (median).
    linear_ratio : float
        liblinear_1vsall_s / linear_m3l_s (> 1: M3L faster).
    rbf_m3l_s, libsvm_1vsall_s : float
        Kernel (rbf) M3L and 1-vs-All SVC, seconds.
    rbf_ratio : float
        libsvm_1vsall_s / rbf_m3l_s.
    linear_primal_rel_diff : float
        |P(M3L) - P(LinearSVC)| / P(LinearSVC) (same problem).
    rbf_test_hamming_m3l_pct, rbf_test_hamming_libsvm_pct : float
        Test Hamming losses of the rbf models, percent.
    rbf_cache_misses : int
        Kernel-row cache misses of rbf M3L.
    """

    N: int = column("N", str)
    linear_m3l_s: float = column("LM3L s", fmt_spec(".3f"))
    liblinear_1vsall_s: float = column("1-vs-All LibLinear s", fmt_spec(".3f"))
    linear_ratio: float = column("LibLinear/LM3L", fmt_spec(".2f"))
    rbf_m3l_s: float = column("KM3L rbf s", fmt_spec(".3f"))
    libsvm_1vsall_s: float = column("1-vs-All LibSVM s", fmt_spec(".3f"))
    rbf_ratio: float = column("LibSVM/KM3L", fmt_spec(".2f"))
    linear_primal_rel_diff: float = column("lin. P rel.diff", fmt_spec(".1e"))
    rbf_test_hamming_m3l_pct: float = column()
    rbf_test_hamming_libsvm_pct: float = column()
    rbf_cache_misses: int = column()
