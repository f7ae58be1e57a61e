"""Re-execute the notebooks and store them the way the repository keeps them.

Run from the repository root, in the development venv (``pip install -r
requirements-dev.txt``; Chromium for the static images, ``apt-get install chromium``)::

    python tools/execute_notebooks.py                  # every notebooks/*.ipynb
    python tools/execute_notebooks.py notebooks/04_ranksvm.ipynb ...
    python -m pytest notebooks/                        # then nbval checks them

Each notebook runs top to bottom in a fresh ``python3`` kernel of this
interpreter, from the notebook's own folder, and is stored with:

- every output, each figure and widget with its static PNG in the same output
  (the kernels run with ``POLYRANK_STATIC_IMAGES=1``: see
  ``polyrank_widgets.static_images``), execution counts 1, 2, ... in order; a
  widget's output keeps its PNG and text but not its view (without the widget
  state JupyterLab would show "model not found" where the picture belongs;
  running the cell brings the live widget back);
- no widget state (``metadata.widgets``: megabytes of plotly JSON that
  nbval ignores and GitHub cannot draw) and no per-cell timing metadata
  (``metadata.execution``: time stamps that change on every run);
- the seeds the notebooks fix themselves (nothing here draws random numbers);
- no fit progress bars (the kernels run with ``POLYRANK_PROGRESS=0``) and
  no compile progress bar: the numba kernels are compiled (``polyrank.warmup()``)
  before the first notebook starts, and the bar ``polyrank.warmup()`` shows when
  loading them from the cache takes over 2 s (a busy machine) is not stored.

A notebook whose execution raises is left untouched and the script exits 1
naming the cell; each file is replaced atomically (temporary file in the same
folder, fsync, ``os.replace``), so an interrupted run never leaves a
truncated notebook.  Re-run it after changes that move the printed numbers
(e.g. after merging a solver change), then commit the notebooks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

__all__ = ["execute_notebook", "main"]

#: the MIME type of a live widget's view
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: how the progress bar of ``polyrank.warmup()`` starts (a tqdm widget, closed at the end)
WARMUP_BAR = "compiling polyrank's numba kernels"


def _is_warmup_bar(output) -> bool:
    data = output.get("data", {})
    return (WIDGET_VIEW in data
            and str(data.get("text/plain", "")).startswith(WARMUP_BAR))


def _stored_output(output):
    """``output`` as the repository stores it: a widget's output that
    carries its PNG keeps the PNG and the text, not the widget view. The
    widget state is not stored, so on opening the notebook JupyterLab would
    draw the view as "Error displaying widget: model not found" instead of
    the picture; running the cell shows the live widget again."""
    data = output.get("data", {})
    if WIDGET_VIEW in data and "image/png" in data:
        del data[WIDGET_VIEW]
    return output


def execute_notebook(path, timeout: float = 1800.0) -> float:
    """Execute the notebook ``path`` in a fresh kernel and store it in place
    (outputs, no widget state, no timing metadata, no warm-up progress bar);
    returns the seconds it took.

    Raises
    ------
    nbclient.exceptions.CellExecutionError
        If a cell raises (the file is not changed).
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                   store_widget_state=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = [_stored_output(o) for o in cell.outputs if not _is_warmup_bar(o)]
    from polyrank._files import atomic_open

    with atomic_open(path, "w", encoding="utf-8") as f:
        nbformat.write(nb, f)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    """Command line: execute the given notebooks (default: all of
    ``notebooks/``) in order; returns the exit code (1 if one failed)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to execute (default: notebooks/*.ipynb)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds one cell may run (default 1800)")
    args = parser.parse_args(argv)
    os.environ.setdefault("JUPYTER_PLATFORM_DIRS", "1")
    # the kernels store a PNG with every figure and widget (polyrank_widgets.static_images)
    os.environ["POLYRANK_STATIC_IMAGES"] = "1"
    # no fit progress bars (tqdm widgets shown after 3 s: whether one shows
    # depends on the machine's speed, and a stored bar is an output without
    # its widget state)
    os.environ["POLYRANK_PROGRESS"] = "0"
    paths = args.notebooks or sorted((REPO / "notebooks").glob("*.ipynb"))
    # compile the numba kernels here first: a kernel that compiles shows a
    # progress bar, which would be stored in the notebook
    import polyrank
    polyrank.warmup()
    failed = []
    for path in paths:
        if not Path(path).is_file():
            print(f"{path}: no such notebook", file=sys.stderr)
            failed.append(path)
            continue
        print(f"{path} ...", end=" ", flush=True)
        try:
            seconds = execute_notebook(path, args.timeout)
        except Exception as exc:        # a cell raised: say which, keep the file
            print(f"FAILED, file unchanged\n{type(exc).__name__}: {str(exc)[-3000:]}",
                  file=sys.stderr)
            failed.append(path)
            continue
        print(f"{seconds:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
