"""Sec. 7.2.1 of ``m3l-multilabel-zero-shot.txt``: the prior R = sum_c p(c)
y_c y_c' of the 10 Animals-with-Attributes test classes (uniform p).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from polyrank.datasets import load_awa_classes
from polyrank.m3l import prior_from_classes

from ..registry import ExperimentResult, PaperItem, RunInfo, column, record, register
from ._common import _PAPER

__all__ = ["m3l_awa_prior", "AwaPriorRow", "AwaPriorSummary"]


@dataclass(frozen=True)
class AwaPriorRow:
    """One off-diagonal entry of the AwA test-class prior R.

    Attributes
    ----------
    attribute_a, attribute_b : str
        The two attributes.
    R : float
        R[a, b], in [-1, 1] (dimensionless).
    """

    attribute_a: str = column("attribute")
    attribute_b: str = column("attribute")
    R: float = column("R", lambda v: f"{v:+.2f}")


@record
class AwaPriorSummary(RunInfo):
    """The key figures of :func:`m3l_awa_prior`.

    Attributes
    ----------
    test_classes : tuple of str
        The 10 AwA test classes.
    R_black_weak : float
        R[black, weak], the pair of Fig. 5.
    rank : int
        Rank of R (85 x 85).
    min_eigenvalue : float
    fraction_negative_offdiagonal, fraction_plus_minus_one_offdiagonal : float
        Fractions of the off-diagonal entries below 0, and equal to +-1.
    paper : tuple of PaperItem
    """

    test_classes: tuple
    R_black_weak: float
    rank: int
    min_eigenvalue: float
    fraction_negative_offdiagonal: float
    fraction_plus_minus_one_offdiagonal: float
    paper: tuple


@register("m3l-awa-prior", "Sec. 7.2.1: the prior R = sum_c p(c) y_c y_c' of the 10 AwA test "
          "classes (uniform p) as a heat map")
def m3l_awa_prior(*, seed: int = 0, quick: bool = False,
                  progress: bool = False) -> ExperimentResult:
    """The Sec. 7.2.1 prior of Animals with Attributes.

    R = sum_c p(c) y_c y_c' over the 10 test classes with uniform p(c) and
    y_c the binary attribute vector in {-1, +1} (:func:`prior_from_classes`),
    85 x 85, drawn as a heat map (attributes ordered as in the data). It has
    rank <= 10, so M3L needs an explicit ridge with it.

    Returns
    -------
    ExperimentResult
        ``rows``: :class:`AwaPriorRow` of the 10 most negative and 10 most
        positive off-diagonal entries; ``summary``: an
        :class:`AwaPriorSummary`, ``R_black_weak`` (the pair of Fig. 5, -0.76
        correlation on the paper's test images), the rank, the smallest
        eigenvalue, the fraction of negative entries.

    Notes
    -----
    Source: ``m3l-multilabel-zero-shot.txt``, Sec. 7.2.1.
    """
    awa = load_awa_classes()
    R = prior_from_classes(awa.attributes_of(awa.test_classes))
    names = awa.attribute_names
    iu = np.triu_indices(len(names), 1)
    order = np.argsort(R[iu], kind="stable")
    pick = list(order[:10]) + list(order[-10:][::-1])
    rows = [AwaPriorRow(attribute_a=names[iu[0][k]], attribute_b=names[iu[1][k]],
                        R=float(R[iu[0][k], iu[1][k]])) for k in pick]
    ib, iw = names.index("black"), names.index("weak")
    eig = np.linalg.eigvalsh(R)
    rank = int(np.linalg.matrix_rank(R))
    negative = float(np.mean(R[iu] < 0))
    notes = [f"R[black, weak] = {R[ib, iw]:+.2f} (Fig. 5's pair: negatively correlated on "
             "the test animals)",
             f"rank {rank} of 85 (10 classes): positive semi-definite only; "
             "M3L needs an explicit ridge (M3LClassifier(R=R, ridge=...))",
             f"{100 * negative:.0f} % of the off-diagonal "
             "entries are negative"]
    summary = AwaPriorSummary(
        experiment="m3l-awa-prior", quick=quick, seed=seed,
        test_classes=tuple(awa.test_classes), R_black_weak=float(R[ib, iw]),
        rank=rank, min_eigenvalue=float(eig[0]), fraction_negative_offdiagonal=negative,
        fraction_plus_minus_one_offdiagonal=float(np.mean(np.abs(R[iu]) == 1)),
        paper=(PaperItem(
            item="Sec. 7.2.1: has black / is weak on the test animals",
            paper="correlation -0.76 (test images)",
            ours=f"R = {R[ib, iw]:+.2f} (class-level prior, uniform p(c))",
            data="AwA class-attribute table, 10 test classes (image features not "
                 "available)"),))
    return ExperimentResult(
        name="m3l-awa-prior",
        title=f"Sec. 7.2.1 ({_PAPER}): AwA test-class prior R (85 x 85)",
        rows=rows, summary=summary, data={"R": R, "names": names}, notes=notes)
