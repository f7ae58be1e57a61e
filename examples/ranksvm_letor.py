"""
Learning to rank on your own LETOR files (RankSVM)
==================================================

Fit :class:`polyrank.RankSVM` on a learning-to-rank training file in the LETOR /
SVMlight format (``<relevance> qid:<query> <feature>:<value> ...``) and score the ranking
of each test query: NDCG@10 and pairwise accuracy (both higher is better).

Your files: ``python examples/ranksvm_letor.py TRAIN.txt TEST.txt``. Without arguments
the script uses the LETOR 4.0 MQ2008 Fold 1 files bundled with polyrank (46 features,
already normalised per query, as LETOR ships them: no scaler).
"""

# sphinx_gallery_thumbnail_path = '_static/thumbnails/04_ranksvm.png'

import sys

from polyrank import RankSVM
from polyrank.datasets import data_path
from polyrank.io import read_svmlight
from polyrank.metrics import ndcg_at, pairwise_accuracy

# %%
# Read the files with their query ids: yours, or the bundled MQ2008 fold
if len(sys.argv) == 3:
    train_file, test_file = sys.argv[1], sys.argv[2]
else:
    train_file = str(data_path("MQ2008", "train.txt"))
    test_file = str(data_path("MQ2008", "test.txt"))
train = read_svmlight(train_file, query_id=True)
test = read_svmlight(test_file, query_id=True, n_features=train.X.shape[1])
print(f"{train_file}: {train.X.shape[0]} documents, {len(set(train.qid))} queries, "
      f"{train.X.shape[1]} features")

# %%
# Fit with the defaults: pairs are formed within each query
model = RankSVM().fit(train.X, train.y, qid=train.qid)
res = model.result_
print(f"{res.status} after {res.nit} {res.unit}; duality gap relative to the primal "
      f"objective {res.gap / abs(res.primal_objective):.1e}")

# %%
# Score the ranking of every test query
scores = model.decision_function(test.X)
print(f"test NDCG@10 (higher is better): {ndcg_at(test.y, scores, test.qid, 10):.4f}")
print("test pairwise accuracy (higher is better): "
      f"{pairwise_accuracy(test.y, scores, test.qid):.4f}")
