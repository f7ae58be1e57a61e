"""
Multi-label classification of your own ARFF files (M3L)
=======================================================

Fit :class:`polyrank.M3LClassifier` (max-margin multi-label learning with a label prior)
on MULAN ARFF files and score its 0/1 label predictions on the test file: Hamming loss
(lower is better) and micro-averaged F1 (higher is better).

Your files: ``python examples/multilabel_m3l_arff.py TRAIN.arff TEST.arff N_LABELS``.
Without arguments the script uses the MULAN yeast split bundled with polyrank.
"""

# sphinx_gallery_thumbnail_path = '_static/thumbnails/06_m3l_zero_shot.png'

import sys

from sklearn.metrics import f1_score, hamming_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import M3LClassifier
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
      f"{len(train.label_names)} labels")

# %%
# Fit with the defaults (linear kernel, no label prior); raw features standardised
model = make_pipeline(StandardScaler(), M3LClassifier()).fit(train.X, train.y)
res = model[-1].result_
print(f"{res.status} after {res.nit} {res.unit}; duality gap relative to the primal "
      f"objective {res.gap / abs(res.primal_objective):.1e}")

# %%
# Score the predicted label sets on the test file
Y_pred = model.predict(test.X)
print(f"test Hamming loss (lower is better): {hamming_loss(test.y, Y_pred):.4f}")
print(f"test micro F1 (higher is better): {f1_score(test.y, Y_pred, average='micro'):.4f}")
