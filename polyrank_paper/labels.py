"""Names shared by the experiments and the figures that draw them.

A leaf module: it imports nothing of polyrank_paper, so that the figures
(:mod:`polyrank_paper.figures`, imported by the registry) need not import the
experiments they draw, and the experiments need not import the figures
(``tests/architecture/test_layering.py``: no import circle inside a distribution).
"""

from __future__ import annotations

__all__ = ["METHOD_LABELS", "FIG2_DATA"]

#: RankSVM's methods of counting the pairs (Sec. 3-4 of the paper), as the
#: figures and tables name them
METHOD_LABELS = {"direct": "direct counting", "y_tree": "y-keyed tree",
                 "selection_tree": "selection tree", "prsvm_plus": "PRSVM+"}

#: the data sets of the sign paper's Fig. 2 at hand, with their panel (Covtype,
#: panel a, is not bundled)
FIG2_DATA = {"w8a": "b", "phishing": "c"}
