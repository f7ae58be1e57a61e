"""Static PNG exports of the widgets, for the README and reports.

Regenerate the README pictures with::

    python tools/readme_figures.py notebooks/figures

(about a minute: one yeast fit, the quick Fig. 8 reproduction and four
exports).

Exporting needs kaleido (the ``dev`` extra) and a Chromium browser
(``/usr/bin/chromium`` on Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from polyrank import LabelRanker
from polyrank._files import write_bytes
from polyrank.datasets import load_yeast
from polyrank_paper import run_experiment
from polyrank_widgets import DecompositionViewer, GapMonitor, KnotExplorer

__all__ = ["render_readme_figures"]


def render_readme_figures(outdir="notebooks/figures", scale: float = 2.0) -> list[Path]:
    """Write the README pictures as PNG files (each atomically: a temporary
    file moved into place).

    - ``knot_explorer.png``: :class:`~polyrank_widgets.KnotExplorer` on the
      paper's Fig. 4 instance (``sopopo-label-ranking.txt``, Sec. 3.4).
    - ``gap_monitor_yeast.png``: :class:`~polyrank_widgets.GapMonitor` during
      a :class:`polyrank.LabelRanker` fit on the bundled yeast data
      (C = 0.1, all-pairs decomposition, bias 1, tol 1e-4).
    - ``decomposition_viewer.png``: :class:`~polyrank_widgets.DecompositionViewer`
      on the paper's γ = (-1, 0, 2, 0, -1), adjacent layers (Sec. 2,
      Fig. 1-2).
    - ``reproduce_sopopo_fig8.png``: the figure ``polyrank reproduce
      sopopo-fig8 --quick`` writes as HTML (Sec. 5, Fig. 8, seed 0).

    Parameters
    ----------
    outdir : str or Path
        Folder to write into (created if missing).
    scale : float
        Pixel scale passed to plotly's ``to_image``.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ValueError
        If ``scale`` is not > 0.
    """
    if not scale > 0:
        raise ValueError(f"scale: must be > 0, got {scale}")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    explorer = KnotExplorer.paper_fig4()
    path = out / "knot_explorer.png"
    write_bytes(path, explorer.fig.to_image(format="png", scale=scale))
    written.append(path)

    data = load_yeast()
    monitor = GapMonitor(title="LabelRanker on yeast (C = 0.1, all pairs)")
    LabelRanker(C=0.1, bias=1.0, tol=1e-4, random_state=0).fit(
        data.X_train, data.Y_train, callback=monitor)
    path = out / "gap_monitor_yeast.png"
    write_bytes(path, monitor.fig.to_image(format="png", scale=scale))
    written.append(path)

    viewer = DecompositionViewer(y=(-1, 0, 2, 0, -1), decomposition="adjacent_layers")
    path = out / "decomposition_viewer.png"
    write_bytes(path, viewer.fig.to_image(format="png", scale=scale))
    written.append(path)

    path = out / "reproduce_sopopo_fig8.png"
    run_experiment("sopopo-fig8", quick=True, seed=0).write_png(path, scale=scale)
    written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    for p in render_readme_figures(*(sys.argv[1:2] or ["notebooks/figures"])):
        print(p)
