"""What is known about the bundled data without computing it: the signs that
domain knowledge gives the breast-cancer features, the numbers an
independent implementation reached on MQ2008, and the papers' published
tables the reproductions compare with.

Nothing here is computed from data; each constant says where it comes from.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BREAST_CANCER_POSITIVE", "breast_cancer_signs", "LIBLINEAR_RANKSVM_MQ2008",
           "ORDINAL_PAPER_TABLE1", "ORDINAL_PAPER_TABLE2"]

#: breast-cancer features whose larger values indicate malignancy
#: (size, irregular contour, coarse texture of the nuclei; see
#: :func:`breast_cancer_signs`), for the "mean" and "worst" summaries
BREAST_CANCER_POSITIVE = ("radius", "texture", "perimeter", "area", "compactness",
                          "concavity", "concave points")


def breast_cancer_signs(feature_names) -> np.ndarray:
    """Sign vector for scikit-learn's Wisconsin breast-cancer features, with
    malignant as the positive class, from domain knowledge alone.

    +1 for the "mean" and "worst" values of radius, texture, perimeter,
    area, compactness, concavity and concave points: malignant nuclei are
    larger, more irregular in contour (concavities) and coarser in texture
    (Street, Wolberg and Mangasarian, "Nuclear feature extraction for breast
    tumor diagnosis", SPIE 1905, 1993, the data set's source, and standard
    cytopathology); 0 (unconstrained) for smoothness, symmetry, fractal
    dimension and all "error" (standard error) features, whose direction is
    not established a priori.  Never computed from data.

    Parameters
    ----------
    feature_names : sequence of str
        ``load_breast_cancer().feature_names``.

    Returns
    -------
    ndarray of float, shape (30,)

    Examples
    --------
    >>> int(breast_cancer_signs(["mean radius", "radius error",
    ...                          "worst concave points"]).sum())
    2
    """
    c = np.zeros(len(feature_names))
    for j, name in enumerate(feature_names):
        name = str(name)
        for f in BREAST_CANCER_POSITIVE:
            if name in (f"mean {f}", f"worst {f}"):
                c[j] = 1.0
    return c


#: liblinear-ranksvm 2.11 (-s 8, C = 1) on the bundled MQ2008 Fold1 train
#: split (independent implementation; numbers from the issue tracker):
#: converged objective, objective and Newton steps at the default tol, test
#: pairwise accuracy at f* (pooled, ties correct) and mean NDCG of the
#: default-tol model (objectives and metrics only: ``polyrank bench ranksvm``
#: times its peer, LinearSVC on the pair differences, in the same run).
LIBLINEAR_RANKSVM_MQ2008 = {"f_star": 29566.5228, "f_default_eps": 29568.97,
                            "newton_steps_default_eps": 5,
                            "test_pairwise_accuracy": 0.8272,
                            "test_mean_ndcg": 0.457}

#: Tables 1-2 of ``row-column-generation-ordinal.txt`` (Sec. 10; means over the
#: five data sets), keyed by (type, n): RC's sub-problems, added objects and
#: seconds; rank loss of RC and PRank
ORDINAL_PAPER_TABLE1 = {("S", 100): (5.8, 8.6, 0.336), ("S", 500): (8.2, 13.6, 1.018),
                        ("S", 1000): (12.2, 20.8, 3.342), ("S", 5000): (19.4, 35.6, 65.724),
                        ("S", 10000): (23.4, 42.6, 286.731), ("NS", 100): (16.4, 25.2, 2.592),
                        ("NS", 500): (65.6, 109.8, 107.200), ("NS", 1000): (108.4, 193.6, 493.781)}
ORDINAL_PAPER_TABLE2 = {("S", 100): (0.000, 0.458), ("S", 500): (0.000, 0.250),
                        ("S", 1000): (0.000, 0.244), ("S", 5000): (0.000, 0.101),
                        ("S", 10000): (0.000, 0.065), ("NS", 100): (0.058, 0.292),
                        ("NS", 500): (0.059, 0.192), ("NS", 1000): (0.063, 0.260)}
