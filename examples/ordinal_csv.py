"""
Ordinal regression on your own CSV file (RCG ordinal ranking)
=============================================================

Fit :class:`polyrank.OrdinalMarginRanker` on a CSV file whose target column holds ordered
grades (e.g. wine quality 3..8), on a random 70 % of the rows, and score the predicted
grades of the other 30 %: mean absolute error (lower is better) and the share of exact
grades (higher is better).

Your file: ``python examples/ordinal_csv.py DATA.csv TARGET_COLUMN``. Without arguments
the script uses the UCI red wine quality file bundled with polyrank (1599 wines, 11
features, target ``quality``).
"""

# sphinx_gallery_thumbnail_path = '_static/thumbnails/05_ordinal_rcg.png'

import sys

from sklearn.metrics import accuracy_score, mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from polyrank import OrdinalMarginRanker
from polyrank.datasets import data_path
from polyrank.io import read_csv

# %%
# Read the file (the delimiter is sniffed): yours, or the bundled red wines
if len(sys.argv) == 3:
    data_file, target = sys.argv[1], sys.argv[2]
else:
    data_file, target = str(data_path("winequality", "winequality-red.csv")), "quality"
data = read_csv(data_file, target)
print(f"{data_file}: {data.X.shape[0]} rows, features {data.feature_names}")
X_train, X_test, y_train, y_test = train_test_split(
    data.X, data.y, test_size=0.3, random_state=0, stratify=data.y)

# %%
# Fit with the defaults; raw features are standardised first
model = make_pipeline(StandardScaler(), OrdinalMarginRanker()).fit(X_train, y_train)
print("grades", model[-1].classes_.tolist(), "| fitted c", model[-1].c_)

# %%
# Score the predicted grades of the held-out rows
y_pred = model.predict(X_test)
print(f"test mean absolute error (lower is better): {mean_absolute_error(y_test, y_pred):.4f}")
print(f"test exact grades (higher is better): {accuracy_score(y_test, y_pred):.4f}")
