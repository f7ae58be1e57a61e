"""Shared input checks.  Every check raises ``ValueError`` (or ``TypeError``)
with a message that names the offending argument; nothing is repaired.

The one gate for a design matrix X (``DESIGN.md``, "Conventions": no kernel
ever sees a sparse matrix whose structure was not checked) is
:func:`check_design` for the public drivers and :func:`validate_X` for the
estimators (scikit-learn's ``validate_data`` with the same checks around
it).  Both run, in O(nnz):

1. :func:`check_sparse_structure` *before* any conversion (scipy's format
   conversions are compiled code that trusts ``indices`` and ``indptr``): index
   arrays of an integer type, ``indptr`` of length rows + 1 starting at 0
   and non-decreasing, every index inside the shape;
2. conversion to float64 CSR in canonical form (sorted indices, duplicates
   summed, the value of the matrix unchanged) on a copy, never on the
   caller's matrix;
3. :func:`check_magnitude`: no NaN or infinity, and no entry so large that
   squared norms or kernel values overflow float64.

The data beside X are checked here too, once, for every solver: sample
weights by the one :func:`check_sample_weight` (the estimators, RankSVM's
objective and SVOR use it), ranking data and query ids
(:func:`check_ranking_data`, :func:`check_query_ids`, :func:`query_ids`),
ordinal labels (:func:`check_ordinal_labels`), label sets and sign vectors,
and a precomputed kernel matrix (:func:`check_gram`).  A paper package keeps
only the checks of its own settings.

The checks live in three modules, re-exported here (import them from
here): ``_arrays`` (arrays, numbers, X and Gram matrices), ``_labels``
(labels, query ids, signs) and ``_weights`` (sample weights).
"""

from __future__ import annotations

from ._arrays import (
    as_float_array,
    check_dense_unless_linear,
    check_design,
    check_gram,
    check_int,
    check_magnitude,
    check_positive,
    check_sparse_structure,
    dense_targets,
    max_abs_value,
    validate_X,
)
from ._labels import (
    as_label_array,
    check_label_set,
    check_ordinal_labels,
    check_query_ids,
    check_ranking_data,
    check_signs,
    query_ids,
)
from ._weights import check_sample_weight

__all__ = [
    "as_float_array",
    "check_sparse_structure",
    "check_magnitude",
    "max_abs_value",
    "check_design",
    "validate_X",
    "dense_targets",
    "check_sample_weight",
    "check_dense_unless_linear",
    "check_positive",
    "check_label_set",
    "as_label_array",
    "check_int",
    "check_signs",
    "check_query_ids",
    "query_ids",
    "check_ranking_data",
    "check_ordinal_labels",
    "check_gram",
]
