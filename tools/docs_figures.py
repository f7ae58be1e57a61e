"""Extract the figures of the documentation site from the stored notebooks.

The notebooks carry a PNG of every figure and widget in its output
(``tools/execute_notebooks.py`` stores them); the site's user guide and
widgets pages show some of them.  This script copies those PNGs, named
below by notebook, cell and output index, into ``docs/_static/figures/``:

    .venv/bin/python tools/docs_figures.py

Run it after re-executing the notebooks; it fails (naming the cell) if a
named output no longer holds a PNG.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

from polyrank._files import write_bytes
from polyrank_widgets._display import stored_png

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "_static" / "figures"

#: file name -> (notebook, cell index, output index)
FIGURES = {
    "solver_lab_tour.png": ("00_tour.ipynb", 4, 0),
    "knot_explorer.png": ("01_sopopo_label_ranking.ipynb", 3, 0),
    "gap_monitor_sopopo.png": ("01_sopopo_label_ranking.ipynb", 9, 0),
    "solver_lab_yeast.png": ("01_sopopo_label_ranking.ipynb", 23, 0),
    "decomposition_viewer.png": ("02_sopopo_reproduction.ipynb", 3, 0),
    "sopopo_fig6.png": ("02_sopopo_reproduction.ipynb", 7, 1),
    "sign_gap_phishing.png": ("03_sign_constraints.ipynb", 5, 0),
    "sign_fig2.png": ("03_sign_constraints.ipynb", 16, 0),
    "ranksvm_lab.png": ("04_ranksvm.ipynb", 5, 0),
    "ranksvm_fig4.png": ("04_ranksvm.ipynb", 11, 1),
    "ranksvm_dask.png": ("04_ranksvm.ipynb", 26, 0),
    "ordinal_gap.png": ("05_ordinal_rcg.ipynb", 5, 0),
    "ordinal_curves.png": ("05_ordinal_rcg.ipynb", 18, 0),
    "m3l_fig5.png": ("06_m3l_zero_shot.ipynb", 12, 0),
    "correlation_slider.png": ("06_m3l_zero_shot.ipynb", 14, 0),
    "m3l_lab.png": ("06_m3l_zero_shot.ipynb", 18, 0),
    "m3l_awa_prior.png": ("06_m3l_zero_shot.ipynb", 27, 0),
}


def extract(out: Path = OUT) -> list[Path]:
    """Write every PNG of :data:`FIGURES` into ``out``; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (notebook, cell, output) in FIGURES.items():
        nb = json.loads((REPO / "notebooks" / notebook).read_text(encoding="utf-8"))
        try:
            data = stored_png(nb["cells"][cell]["outputs"][output]["data"])
            if data is None:
                raise KeyError("image/png")
        except (IndexError, KeyError) as exc:
            raise SystemExit(f"{notebook}, cell {cell}, output {output}: no PNG ({exc!r}); "
                             "update FIGURES in tools/docs_figures.py") from None
        path = write_bytes(out / name, base64.b64decode(data))
        written.append(path)
    return written


if __name__ == "__main__":
    for p in extract(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(p.relative_to(REPO) if p.is_relative_to(REPO) else p)
