"""Helpers the other distributions (``polyrank_widgets``, ``polyrank_paper``)
and extensions of polyrank build on, in the manner of :mod:`sklearn.utils`.

Each name is defined in a private module of the core and re-exported here,
its public home: code outside ``polyrank`` imports it from here, never from
the private module (``tests/architecture/test_layering.py``).

Files (written atomically: a temporary file in the same folder, renamed over
the target; see ``docs/security.md``):

- :func:`atomic_open`, :func:`atomic_path`, :func:`write_text`,
  :func:`write_bytes`; :func:`writes_through` tells a path written through
  (a device, a FIFO, standard output) from one replaced atomically.

Text for messages: :func:`one_line`, :func:`cut`.

Data: :func:`row_arrays` (a matrix as the arrays of polyrank's kernels),
:func:`encode_targets` and :data:`INDICATOR` (multi-label targets),
:func:`package_of` (the solver package of an estimator).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:       # the same names, for mypy and IDEs (loaded lazily below)
    from .._csr import row_arrays
    from .._files import atomic_open, atomic_path, write_bytes, write_text, writes_through
    from .._jit import package_of
    from .._multilabel import INDICATOR, encode_targets
    from .._text import cut, one_line

__all__ = ["atomic_open", "atomic_path", "write_text", "write_bytes", "writes_through",
           "one_line", "cut",
           "row_arrays", "encode_targets", "INDICATOR", "package_of"]

#: name -> the private module (relative) that defines it
_OBJECTS = {"atomic_open": ".._files", "atomic_path": ".._files", "write_text": ".._files",
            "write_bytes": ".._files", "writes_through": ".._files",
            "one_line": ".._text", "cut": ".._text",
            "row_arrays": ".._csr", "encode_targets": ".._multilabel",
            "INDICATOR": ".._multilabel", "package_of": ".._jit"}

if not TYPE_CHECKING:
    def __getattr__(name: str):
        """Import a public name of the module on its first use (PEP 562).

        Raises
        ------
        AttributeError
            ``name`` is not a public name of polyrank.utils.
        """
        if name in _OBJECTS:
            value = getattr(importlib.import_module(_OBJECTS[name], __name__), name)
            globals()[name] = value          # later lookups are plain attribute reads
            return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's attributes and every public name, loaded or not."""
    return sorted(set(globals()) | set(__all__))
