"""The packages of the ``paper`` extra the wing cannot work without; importing
this module (the first thing :mod:`polyrank_paper` does) raises an ImportError
naming the extra when one is missing, before anything is registered.

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


if (_absent := missing()) is not None:             # a base install: no paper extra
    raise ImportError(
        f"polyrank_paper needs the 'paper' extra ({_absent} is missing): "
        "pip install 'polyrank[paper]' (from a clone: pip install -e '.[paper]')",
        name=_absent)
