"""The bundled Animals-with-Attributes tables (PROVENANCE.md) and the prior
of Sec. 7.2.1 of m3l-multilabel-zero-shot.txt built from them."""

import hashlib

import numpy as np

from polyrank.datasets import data_path, load_awa_classes
from polyrank.datasets._awa import AWA_SHA256
from polyrank.m3l import prior_from_classes


def test_checksums_and_shapes():
    for name, digest in AWA_SHA256.items():
        assert hashlib.sha256(data_path("awa", name).read_bytes()).hexdigest() == digest
    awa = load_awa_classes()
    assert awa.binary.shape == awa.continuous.shape == (50, 85)
    assert set(np.unique(awa.binary)) == {0, 1}
    assert np.isnan(awa.continuous).sum() == 4 and np.isnan(awa.continuous[0, :4]).all()
    assert len(awa.train_classes) == 40 and len(awa.test_classes) == 10
    assert not set(awa.train_classes) & set(awa.test_classes)
    # the README: binary = continuous thresholded at the overall mean (-1s included)
    raw = np.where(np.isnan(awa.continuous), -1.0, awa.continuous)
    np.testing.assert_array_equal(awa.binary, (raw > raw.mean()).astype(np.int8))


def test_prior_of_the_test_classes():
    awa = load_awa_classes()
    A = awa.attributes_of(awa.test_classes)
    R = prior_from_classes(A)
    assert R.shape == (85, 85)
    np.testing.assert_allclose(np.diag(R), 1.0)
    assert np.linalg.matrix_rank(R) <= 10            # PSD, singular: needs a ridge
    assert np.linalg.eigvalsh(R).min() > -1e-12
    i, j = awa.attribute_names.index("black"), awa.attribute_names.index("weak")
    # Sec. 7.2.1: "has black" and "is weak" are negatively correlated on the test animals
    assert R[i, j] < 0
