"""The speed comparisons of ``polyrank bench`` that are not one paper's
figure or table: one soft projection (``polyrank bench sopopo``), kernel and
linear M3L against one-vs-all SVMs for growing L, the first fit in a fresh
process, LabelRanker against LIBLINEAR and one-vs-rest, and SOPOPO with
many labels.  :mod:`polyrank_paper` imports these modules, after
the papers' packages, so that they register in that order (this package
imports none of them: the SOPOPO reproduction reuses ``bench.sopopo``).
"""
