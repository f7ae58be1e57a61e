"""Reproductions of the papers' figures and tables, as functions returning
tidy tables (lists of dict rows); notebooks and the ``polyrank`` CLI call them.

- :func:`bench_sopopo`, :func:`format_table`: run-time of a single soft
  projection, SOPOPO vs Clarabel vs ``np.sort``
  (``sopopo-label-ranking.txt``, Sec. 5, Fig. 6).
"""

from .bench import bench_sopopo, format_table

__all__ = ["bench_sopopo", "format_table"]
