"""
Sign-constrained classification of your own LIBSVM file
=======================================================

Fit :class:`polyrank.SignConstrainedClassifier` on a binary LIBSVM file with each weight's
sign fixed in advance (here: the sign of the feature's correlation with the label on the
training rows, as in the paper's experiments; in practice, what you know of each
feature), on a random 70 % of the rows, and score the other 30 %: accuracy (higher is
better). No weight has the wrong sign, which the script checks.

Your file: ``python examples/sign_constraints_libsvm.py DATA.libsvm``. Without arguments
the script uses the LIBSVM phishing file bundled with polyrank (11,055 sites, 68
binary features).
"""

# sphinx_gallery_thumbnail_path = '_static/thumbnails/03_sign_constraints.png'

import sys

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler

from polyrank import SignConstrainedClassifier
from polyrank.datasets import data_path
from polyrank.io import read_svmlight

# %%
# Read the file (sparse rows, labels in any two values): yours, or the bundled one
data_file = sys.argv[1] if len(sys.argv) == 2 else str(data_path("phishing", "phishing"))
data = read_svmlight(data_file)
print(f"{data_file}: {data.X.shape[0]} rows, {data.X.shape[1]} features")
X_train, X_test, y_train, y_test = train_test_split(
    data.X, data.y, test_size=0.3, random_state=0, stratify=data.y)

# %%
# The signs: +1 where a feature goes with the larger label, -1 against it
centred = np.where(y_train == y_train.max(), 1.0, -1.0)
signs = np.sign(np.asarray(X_train.T @ (centred - centred.mean())).ravel()).astype(int)
print(f"signs: {np.sum(signs > 0)} positive, {np.sum(signs < 0)} negative")

# %%
# Fit with the defaults; MaxAbsScaler keeps the rows sparse and the signs unchanged
model = make_pipeline(MaxAbsScaler(), SignConstrainedClassifier(signs=signs))
model.fit(X_train, y_train)
w = model[-1].coef_.ravel()
print("weights of the wrong sign:", int(np.sum(w * signs < 0)))
print(f"test accuracy (higher is better): {accuracy_score(y_test, model.predict(X_test)):.4f}")
