"""
Label ranking on your own MULAN ARFF files (SOPOPO)
===================================================

Fit :class:`polyrank.LabelRanker` on a multi-label data set stored as MULAN ARFF files
(the label attributes last) and score its label ranking on the test file: ranking loss
and coverage (lower is better), label ranking average precision (higher is better).

Your files: ``python examples/label_ranking_arff.py TRAIN.arff TEST.arff N_LABELS``
(``N_LABELS``: how many attributes at the end are labels). Without arguments the script
uses the MULAN yeast split bundled with polyrank (103 features, 14 labels).
"""

# sphinx_gallery_thumbnail_path = '_static/thumbnails/01_sopopo_label_ranking.png'

import sys

from sklearn.metrics import (
    coverage_error,
    label_ranking_average_precision_score,
    label_ranking_loss,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import LabelRanker
from polyrank.datasets import data_path
from polyrank.io import read_arff

# %%
# Read the files: yours, or the bundled yeast split
if len(sys.argv) == 4:
    train_file, test_file, n_labels = sys.argv[1], sys.argv[2], int(sys.argv[3])
else:
    train_file = str(data_path("yeast", "yeast-train.arff"))
    test_file = str(data_path("yeast", "yeast-test.arff"))
    n_labels = 14
train = read_arff(train_file, n_labels)
test = read_arff(test_file, n_labels, feature_names=train.feature_names)
print(f"{train_file}: {train.X.shape[0]} rows, {train.X.shape[1]} features, "
      f"labels {train.label_names}")

# %%
# Fit with the defaults; raw features are standardised first
model = make_pipeline(StandardScaler(), LabelRanker()).fit(train.X, train.y)
res = model[-1].result_
print(f"{res.status} after {res.nit} {res.unit}; duality gap relative to the primal "
      f"objective {res.gap / abs(res.primal_objective):.1e}")

# %%
# Score the ranking of the labels on the test file
scores = model.decision_function(test.X)
print(f"test ranking loss (lower is better): {label_ranking_loss(test.y, scores):.4f}")
print(f"test coverage (lower is better): {coverage_error(test.y, scores):.3f}")
print("test label ranking average precision (higher is better): "
      f"{label_ranking_average_precision_score(test.y, scores):.4f}")
