"""Compute the heavy reproductions the notebooks load and store them in the
package (``polyrank_paper/stored_results/<name>.json``).

Run from the repository root, in the development venv::

    python tools/store_results.py               # every entry of RUNS
    python tools/store_results.py sopopo-fig6   # some of them

Each entry of :data:`RUNS` is the call a notebook makes,
``load_or_run(name, **options)``; ``tests/paper/test_stored_results.py`` checks
that every such call in ``notebooks/`` finds its file (so Run All loads, never
recomputes) and that every file loads into the typed result it was written
from.  Re-run it, then ``python tools/execute_notebooks.py``, after a change
that moves the experiments' numbers or renames a field of their results.
"""

from __future__ import annotations

import argparse
import sys

#: experiment name -> the options its notebook passes to ``load_or_run``
RUNS = {
    "sopopo-fig6": {"quick": True},
    "sopopo-fig7": {"quick": True},
    "ranksvm-fig4": {"quick": True, "tol": 1e-6, "large_k": (4, 300)},
    "ranksvm-methods": {"grid": (1.0, 2.0 ** 3), "cp_max_iter": 20},
    "ranksvm-fig7": {"Cs": (1.0, 1e-4), "cp_max_iter": 30},
    "ranksvm-vs-svr": {"grid": (2.0 ** -6, 2.0 ** -3, 1.0, 2.0 ** 3)},
    "ordinal-wine": {"repeats": 1},
}


def main(argv=None) -> int:
    from polyrank_paper.stored import run_and_time, save_result, stored_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", choices=[[], *RUNS], metavar="NAME",
                        help=f"experiments to store (default: all of {', '.join(RUNS)})")
    names = parser.parse_args(argv).names or list(RUNS)
    for name in names:
        options = {"quick": False, "seed": 0, **RUNS[name]}
        result, seconds = run_and_time(name, **options)
        path = save_result(result, stored_path(name), options=options, elapsed_s=seconds)
        print(f"{name}: {seconds:.1f} s -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
