"""The notebooks tier: every nbval item (a notebook cell) is marked
``notebooks``, so that ``pytest -m "not notebooks"`` leaves them out and
``pytest -m notebooks`` (or ``pytest notebooks/``) runs them alone.

Under pytest-xdist (``-n 2 --dist loadfile``: each notebook runs whole in one
worker, its cells in order in one kernel) every worker gets its own numba
cache directory below ``NUMBA_CACHE_DIR`` when that is set, so that two
kernels compiling into an empty cache never write the same index files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    base = os.environ.get("NUMBA_CACHE_DIR")
    if worker and base:                    # the kernels inherit this environment
        os.environ["NUMBA_CACHE_DIR"] = str(Path(base) / worker)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if str(item.fspath).endswith(".ipynb"):
            item.add_marker(pytest.mark.notebooks)
