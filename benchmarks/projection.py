"""One soft projection (SOPOPO, Fig. 3) against Clarabel on the same problem.

The data of the paper's Fig. 6 (``sopopo-label-ranking.txt``, Sec. 5): n = 100, the
first k/2 labels relevant (target 1), the rest not (0), x and every u_r standard
normal, C = 1.  ``soft_project`` is the whole of Eq. 7 (the k x n inner products,
Fig. 3 and the update of W, with its input checks); ``solve_reduced`` is Fig. 3 on
the reduced problem Eq. 19, whose input Clarabel gets (``reduced_qp``, the peer).
``track_soft_project_over_clarabel`` is the ratio of the two times measured in the
same process (lower is better: issue 42 reads 1/80 at k = 100 at 6ead872).
"""

from __future__ import annotations

import numpy as np

from .common import best_of


class SoftProject:
    """``soft_project`` / ``solve_reduced`` / Clarabel at k = 10, 100, 10,000."""

    params = [10, 100, 10_000]
    param_names = ["k"]
    timeout = 300

    def setup(self, k):
        from polyrank.sopopo import soft_project, solve_reduced
        from polyrank.sopopo.reference import reduced_qp

        rng = np.random.default_rng(0)
        n = 100
        A = np.arange(k // 2, dtype=np.int64)
        B = np.arange(k // 2, k, dtype=np.int64)
        y = np.zeros(k)
        y[A] = 1.0
        x = rng.standard_normal(n)
        U = rng.standard_normal((k, n))
        f = U @ x
        sq = float(x @ x)
        mu, nu = (y[A] - f[A]) / sq, (f[B] - y[B]) / sq
        self.project = lambda: soft_project(x, y, U, A, B, 1.0)
        self.reduced = lambda: solve_reduced(mu, nu, 1.0)
        self.clarabel = lambda: reduced_qp(mu, nu, 1.0, tol=1e-8)
        self.project()                # compile or load the kernels before timing
        self.reduced()

    def time_soft_project(self, k):
        self.project()

    def time_solve_reduced(self, k):
        self.reduced()

    def time_clarabel_reduced(self, k):
        self.clarabel()

    def track_soft_project_over_clarabel(self, k):
        return best_of(self.project) / best_of(self.clarabel)

    track_soft_project_over_clarabel.unit = "ratio"   # type: ignore[attr-defined]

    def track_solve_reduced_over_clarabel(self, k):
        return best_of(self.reduced) / best_of(self.clarabel)

    track_solve_reduced_over_clarabel.unit = "ratio"   # type: ignore[attr-defined]
