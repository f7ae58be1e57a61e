"""The dependencies of the ``polyrank-paper`` distribution the wing cannot
work without; importing this module (the first thing :mod:`polyrank_paper`
does) raises an ImportError naming the distribution to install when one is
missing (e.g. the package imported from a source tree), before anything is
registered.

The check looks the packages up without importing them, so that ``polyrank
train`` (whose parser loads the paper wing's sub-commands) does not import
plotly.
"""

from __future__ import annotations

import importlib.util

__all__ = ["REQUIRED", "missing"]

#: what the figures need: plotly, contourpy, and polyrank_widgets' ipywidgets and anywidget
REQUIRED = ("plotly", "contourpy", "ipywidgets", "anywidget")


def missing(names=REQUIRED) -> str | None:
    """The first of ``names`` that cannot be imported (looked up, not
    imported), or None."""
    for name in names:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


if (_absent := missing()) is not None:             # e.g. a source tree: no polyrank-paper
    raise ImportError(
        f"polyrank_paper needs its dependencies ({_absent} is missing): pip install "
        "polyrank-paper (from a clone: pip install -e dists/polyrank-widgets "
        "-e dists/polyrank-paper)",
        name=_absent)
