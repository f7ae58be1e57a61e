"""
Multi-label classification of your own ARFF files (M3L)
=======================================================

Fit :class:`polyrank.M3LClassifier` (max-margin multi-label learning with a label prior)
on MULAN ARFF files whose labels are named by MULAN's XML file, and score its 0/1 label
predictions on the test file: Hamming loss (lower is better) and micro-averaged F1
(higher is better).

Your files: ``python examples/multilabel_m3l_arff.py TRAIN.arff TEST.arff LABELS.xml``.
Without arguments the script uses the MULAN yeast split bundled with polyrank.
"""

# sphinx_gallery_thumbnail_path = '_static/thumbnails/06_m3l_zero_shot.png'

import sys

from sklearn.metrics import f1_score, hamming_loss
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import M3LClassifier
from polyrank.datasets import data_path
from polyrank.io import label_names_from_xml, read_arff

# %%
# The label attributes, by the names MULAN's XML file gives them (any position in the file)
files = sys.argv[1:] if len(sys.argv) == 4 else [
    str(data_path("yeast", name)) for name in ("yeast-train.arff", "yeast-test.arff",
                                               "yeast.xml")]
labels = label_names_from_xml(files[2])
train = read_arff(files[0], labels)
test = read_arff(files[1], labels, feature_names=train.feature_names)
print(f"{files[0]}: {train.X.shape[0]} rows, {train.X.shape[1]} features, "
      f"{len(labels)} labels from {files[2]}")

# %%
# Fit with the defaults (linear kernel, no label prior); raw features standardised
model = make_pipeline(StandardScaler(), M3LClassifier()).fit(train.X, train.y)
fit = model[-1].result_
print(f"{fit.status} after {fit.nit} {fit.unit}")

# %%
# Score the predicted label sets on the test file
Y_pred = model.predict(test.X)
print(f"test Hamming loss (lower is better): {hamming_loss(test.y, Y_pred):.4f}")
print(f"test micro F1 (higher is better): {f1_score(test.y, Y_pred, average='micro'):.4f}")
