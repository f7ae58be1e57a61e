"""What the reproductions of ``m3l-multilabel-zero-shot.txt`` share: the
reference settings of linear and rbf M3L on yeast.
"""

from __future__ import annotations




__all__ = ["LINEAR", "RBF"]


_PAPER = "Hariharan, Vishwanathan & Varma, MLJ 2012"
#: the reference settings of the issue (original M3L code on yeast)
LINEAR = {"kernel": "linear", "C": 0.5}
RBF = {"kernel": "rbf", "gamma": 1.0, "C": 1.0}


_T1_COLUMNS = [
    ("N", "N", str),
    ("linear_m3l_s", "LM3L s", lambda v: f"{v:.3f}"),
    ("liblinear_1vsall_s", "1-vs-All LibLinear s", lambda v: f"{v:.3f}"),
    ("linear_ratio", "LibLinear/LM3L", lambda v: f"{v:.2f}"),
    ("rbf_m3l_s", "KM3L rbf s", lambda v: f"{v:.3f}"),
    ("libsvm_1vsall_s", "1-vs-All LibSVM s", lambda v: f"{v:.3f}"),
    ("rbf_ratio", "LibSVM/KM3L", lambda v: f"{v:.2f}"),
    ("linear_primal_rel_diff", "lin. P rel.diff", lambda v: f"{v:.1e}"),
]
