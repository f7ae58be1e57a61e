"""What a user waits for before any work: compiling, importing, the command.

- ``CompileEmptyCache.track_compile_seconds``: ``polyrank.<paper>._warmup()`` in a
  fresh process on an empty numba cache (``NUMBA_CACHE_DIR`` a new temporary
  directory), its import excluded: the first-use cost of each solver's kernels.  Under
  ``POLYRANK_ASV_SMOKE=1`` (CI) the kernels load from the current cache instead.
- ``timeraw_import_polyrank`` beside ``timeraw_import_sklearn_base`` (issue 41's
  target: at most 0.5 s more), each in a fresh interpreter.
- ``time_polyrank_version``: ``python -m polyrank --version`` as a process, beside
  ``time_python_startup`` (``python -c pass``), the floor no command goes below.
"""

from __future__ import annotations

import subprocess
import sys

from .common import PACKAGES, compile_seconds


class CompileEmptyCache:
    """Seconds to compile one solver package's kernels on an empty numba cache."""

    params = list(PACKAGES)
    param_names = ["package"]
    timeout = 1800
    rounds = 1
    repeat = 1

    def track_compile_seconds(self, package):
        return compile_seconds(package)

    track_compile_seconds.unit = "seconds"   # type: ignore[attr-defined]


class Startup:
    """Imports and the command's start-up, each in a fresh process."""

    timeout = 120
    repeat = (3, 10, 20.0)
    number = 1

    def timeraw_import_polyrank(self):
        return "import polyrank"

    def timeraw_import_sklearn_base(self):
        return "import sklearn.base"

    def time_polyrank_version(self):
        subprocess.run([sys.executable, "-m", "polyrank", "--version"], check=True,
                       capture_output=True)

    def time_python_startup(self):
        subprocess.run([sys.executable, "-c", "pass"], check=True, capture_output=True)
