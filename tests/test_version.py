"""The version is written once: ``[project] version`` in pyproject.toml.
``polyrank.__version__`` reads it from the installed package's metadata
(issue 32 item 6), so a wheel, an editable install and the ``polyrank
--version`` command can never disagree."""

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

import polyrank

ROOT = Path(__file__).resolve().parents[1]


def test_version_comes_from_the_package_metadata():
    assert polyrank.__version__ == importlib.metadata.version("polyrank")


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
def test_the_metadata_is_the_version_of_pyproject():
    # an editable install made before a version bump fails here: reinstall
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project.get("dynamic", [])
    assert project["version"] == polyrank.__version__


def test_no_module_of_the_core_writes_the_version():
    literal = re.compile(r"""__version__\s*=\s*["']\d+\.\d+""")    # "0+unknown" is no version
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "core").rglob("*.py"))
                 if literal.search(p.read_text())]
    assert not offenders, offenders
