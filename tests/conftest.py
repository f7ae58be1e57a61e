"""Shared test setup."""

import pytest
import sklearn


@pytest.fixture(autouse=True)
def _isolated_sklearn_config():
    """Restore scikit-learn's global configuration after every test: code
    run as written (the README's blocks call
    ``sklearn.set_config(enable_metadata_routing=True)``) must not change
    how later tests route ``sample_weight``."""
    with sklearn.config_context():
        yield
