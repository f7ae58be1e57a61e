"""Fixtures of the Dask tests (polyrank.dask and Dask's joblib backend)."""

import pytest


@pytest.fixture(scope="module")
def client():
    """A ``dask.distributed.Client`` of a LocalCluster of 2 worker processes
    with one thread each (separate processes: what a real cluster is), one per
    test module; the tests are skipped without ``distributed`` (the dask
    extra)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()
