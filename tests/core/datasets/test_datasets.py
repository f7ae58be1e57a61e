"""The bundled data sets match their documented provenance."""

import hashlib

import numpy as np
import pytest

from polyrank.datasets import data_path, load_yeast
from polyrank.datasets._letor import MQ2008_SHA256

SHA256 = {
    "yeast-train.arff": "e759dc991ff54694a4ff9c4314f3be0d6fd2b1994a4b563f57e416394c6aebbd",
    "yeast-test.arff": "4aaac102bff9669a765bf0b378602e5cc8c3b181048282e2f003117b496d552a",
}


#: (folder, file, SHA-256): yeast as MULAN has it, MQ2008 Fold1 as recorded
BUNDLED = ([("yeast", name, digest) for name, digest in SHA256.items()]
           + [("MQ2008", name, digest) for name, digest in MQ2008_SHA256.items()])


@pytest.mark.parametrize("folder, name, digest", BUNDLED)
def test_bundled_files_are_byte_identical_to_their_sources(folder, name, digest):
    assert hashlib.sha256(data_path(folder, name).read_bytes()).hexdigest() == digest


def test_load_yeast_shapes_labels_and_statistics():
    d = load_yeast()
    assert d.X_train.shape == (1500, 103) and d.X_test.shape == (917, 103)
    assert d.Y_train.shape == (1500, 14) and d.Y_test.shape == (917, 14)
    assert d.label_names == [f"Class{i}" for i in range(1, 15)]
    assert d.feature_names[0] == "Att1" and len(d.feature_names) == 103
    # label cardinality of the MULAN statistics table
    assert round(d.Y_train.sum(1).mean(), 3) == 4.228
    assert round(d.Y_test.sum(1).mean(), 3) == 4.252
    assert set(np.unique(d.Y_train)) == {0, 1}
    assert np.isfinite(d.X_train).all()


def test_yeast_labels_are_matched_by_name_not_position():
    # the XML lists Class6 fourth; the returned columns follow the ARFF names
    xml = data_path("yeast", "yeast.xml").read_text()
    assert xml.index('"Class6"') < xml.index('"Class4"')
    d = load_yeast()
    rows = data_path("yeast", "yeast-train.arff").read_text().splitlines()
    first = next(r for r in rows if r and r[0] in "-0123456789")
    values = first.split(",")
    np.testing.assert_array_equal(d.Y_train[0], np.array(values[103:], dtype=int))
