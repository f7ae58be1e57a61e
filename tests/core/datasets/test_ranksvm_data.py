"""The bundled LETOR 4.0 MQ2008 Fold1 and the LETOR loader (its bytes are checked
in test_datasets.py with the other bundled files)."""

import numpy as np
import pytest
import scipy.sparse as sp

from polyrank.datasets import load_letor, load_mq2008
from polyrank.ranksvm import group_queries


def test_mq2008_statistics_match_table_2():
    d = load_mq2008()
    assert d.X_train.shape == (9630, 46) and d.X_vali.shape == (2707, 46)
    assert d.X_test.shape == (2874, 46)
    g = group_queries(d.y_train, d.qid_train)
    assert g.n_queries == 471 and g.n_pairs == 52325          # Table 2
    assert np.bincount(d.y_train.astype(int)).tolist() == [7820, 1223, 587]
    assert np.unique(d.qid_vali).size == 157 and np.unique(d.qid_test).size == 156
    assert not set(d.qid_train) & set(d.qid_test)
    assert d.X_train.min() >= 0.0 and d.X_train.max() <= 1.0


def test_load_letor_sparse_and_errors(tmp_path):
    f = tmp_path / "tiny.txt"
    f.write_text("2 qid:7 1:0.5 3:1 # doc a\n0 qid:7 2:0.25\n1 qid:9 1:1\n")
    X, y, qid = load_letor(f)
    assert sp.isspmatrix_csr(X) and X.shape == (3, 3)
    assert y.tolist() == [2.0, 0.0, 1.0] and qid.tolist() == [7, 7, 9]
    Xd, _, _ = load_letor(f, n_features=5, dense=True)
    assert Xd.shape == (3, 5) and Xd[1, 1] == 0.25
    with pytest.raises(FileNotFoundError):
        load_letor(tmp_path / "missing.txt")
    bad = tmp_path / "noqid.txt"
    bad.write_text("1 1:0.5\n0 2:1\n")
    with pytest.raises(ValueError, match="qid"):
        load_letor(bad)
