"""The version is written once: ``[project] version`` in pyproject.toml.
``polyrank.__version__`` reads it from the installed package's metadata
(issue 32 item 6), so a wheel, an editable install and the ``polyrank
--version`` command can never disagree.  The other two distributions built
from this repository (dists/polyrank-widgets, dists/polyrank-paper) carry
the same version and pin the floor below them to it exactly; the tests here
fail when one of the three is bumped alone."""

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

import polyrank

ROOT = Path(__file__).resolve().parents[2]
#: each distribution of dists/ and the distribution it pins to its own version
PINS = {"polyrank-widgets": "polyrank", "polyrank-paper": "polyrank-widgets"}


def _project(path: Path) -> dict:
    import tomllib

    return tomllib.loads(path.read_text())["project"]


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


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
@pytest.mark.parametrize("dist", sorted(PINS))
def test_the_other_distributions_carry_the_version_and_pin_it(dist):
    # bump the three together: [project] version of pyproject.toml and of
    # dists/*/pyproject.toml, and the == pins of the latter
    version = _project(ROOT / "pyproject.toml")["version"]
    project = _project(ROOT / "dists" / dist / "pyproject.toml")
    assert project["name"] == dist and project["version"] == version
    assert "version" not in project.get("dynamic", [])
    pins = [d for d in project["dependencies"] if re.match(rf"{PINS[dist]}\b(?!-)", d)]
    assert pins == [f"{PINS[dist]}=={version}"], project["dependencies"]


@pytest.mark.parametrize("dist", sorted(PINS))
def test_the_installed_distributions_agree(dist):
    # an editable install of requirements-dev.txt made before a bump fails here
    try:
        installed = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{dist} is not installed")
    assert installed == polyrank.__version__
