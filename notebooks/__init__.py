"""The notebooks (run by nbval); a package only so that pytest imports
its conftest.py as ``notebooks.conftest``, apart from ``tests/conftest.py``."""
