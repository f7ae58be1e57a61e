"""The notebooks tier: every nbval item (a notebook cell) is marked
``notebooks``, so that ``pytest -m "not notebooks"`` leaves them out and
``pytest -m notebooks`` (or ``pytest notebooks/``) runs them alone.

Under pytest-xdist (``-n 2 --dist loadfile``: each notebook runs whole in one
worker, its cells in order in one kernel) every worker gets its own numba
cache directory below ``NUMBA_CACHE_DIR`` when that is set, so that two
kernels compiling into an empty cache never write the same index files.
With ``POLYRANK_NUMBA_CACHE_SEED`` set to a cache directory (``.ci/test``
fills one with ``polyrank warmup``, both cores compiling for a generic CPU)
each worker's directory starts as a copy of it, instead of every worker
compiling every kernel again.  The kernels run with ``POLYRANK_PROGRESS=0``
(no fit progress bars, as in the stored notebooks) and ``POLYRANK_RECOMPUTE=1``:
the heavy reproductions a user's Run All loads from the package
(``polyrank_paper.load_or_run``) are computed afresh, so the notebooks'
checks test the code, not the stored files.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


def pytest_configure(config):
    # the kernels show no fit progress bar (a tqdm widget after 3 s of a fit:
    # on a slow machine an output the stored notebook does not have)
    os.environ["POLYRANK_PROGRESS"] = "0"
    # the checks of the notebooks test the code: no stored results
    os.environ["POLYRANK_RECOMPUTE"] = "1"
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = os.environ.get("NUMBA_CACHE_DIR")
    if worker and base:                    # the kernels inherit this environment
        mine = Path(base) / worker
        seed = os.environ.get("POLYRANK_NUMBA_CACHE_SEED")
        if seed:
            shutil.copytree(seed, mine, dirs_exist_ok=True)
        os.environ["NUMBA_CACHE_DIR"] = str(mine)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if str(item.fspath).endswith(".ipynb"):
            item.add_marker(pytest.mark.notebooks)
