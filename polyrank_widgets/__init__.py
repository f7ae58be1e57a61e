"""Jupyter widgets (ipywidgets + plotly ``FigureWidget``) for polyrank.

- :class:`KnotExplorer` draws the reduced SOPOPO problem g(z; mu) + g(z; nu),
  its knots and minimiser z*, with sliders for C and every entry of mu, nu
  (``sopopo-label-ranking.txt``, Sec. 3.3-3.4, Thm. 4, Fig. 3, Fig. 4).
- :class:`DecompositionViewer` draws the feedback graph of a target ranking
  y (the paper's γ), one decomposition into complete bipartite pieces and the loss of
  Eq. 3 piece by piece (``sopopo-label-ranking.txt``, Sec. 2, Eq. 1-3,
  Fig. 1-2).
- :class:`CorrelationSlider` slides r in R = [[1, r], [r, 1]] and refits
  M3L live over the precomputed curve of Fig. 5
  (``m3l-multilabel-zero-shot.txt``, Sec. 7.2.1).
- :class:`GapMonitor` is a solver callback that plots the primal and dual
  objectives and the duality gap live, or replays a finished ``Trace``.
- :class:`SolverLab` refits any estimator when a control is released, with
  a live :class:`GapMonitor`, a test readout and the paper's view of the
  fitted model (Stop button; ``wait()`` for scripts and tests).
- :class:`TronMonitor` draws TRON's log (f, ||grad f||, delta, CG steps) live
  (``large-scale-linear-ranksvm.txt``, Sec. 4.1).
- :class:`RankingDisplay`, :class:`OrdinalDisplay`, :class:`LabelRankingDisplay`
  and :class:`GapDisplay` (:mod:`polyrank_widgets.display`) draw a fitted model's
  results as scikit-learn's ``*Display`` classes do (``from_estimator``,
  ``from_predictions``, ``plot()``, ``figure_``), in plotly.
- :class:`PathDisplay` (:mod:`polyrank_widgets.path_display`) draws a regularisation
  path: the leading coefficients and the test metric along C, the current C marked
  (``from_estimator``, ``from_path``); SolverLab shows the same figure of the fits
  it holds.

Each widget is a Python object that owns its state (the model) and a
``.fig`` / ``.widget`` that only show it; both display themselves in Jupyter.
The monitors record the solver's callback stream into a
:class:`polyrank.result.Trace` (their shared base is ``_monitor.TraceMonitor``);
:class:`DecompositionViewer` draws a
:class:`~polyrank_widgets.decomposition_model.DecompositionModel`, which holds
no widget and takes every piece's loss from :func:`polyrank.sopopo.piece_loss`.
This package imports :mod:`polyrank`, never the reverse, and never the paper
wing above it (:mod:`polyrank_paper`: the reproductions, their figures and
``ResultView``), which imports this package.

Each figure or widget is one output. With :func:`static_images` on (set
``POLYRANK_STATIC_IMAGES=1`` before the import, as ``tools/execute_notebooks.py``
does for the notebooks it stores) that output also carries a PNG, which a
renderer without a kernel (GitHub, nbconvert, a docs site) shows instead.
"""

try:
    import anywidget  # noqa: F401  (plotly's FigureWidget is an anywidget)
    import ipywidgets  # noqa: F401
except ImportError as exc:          # the lean install: polyrank without its widgets
    raise ImportError(
        f"polyrank_widgets needs its dependencies ({exc.name} is missing): "
        "pip install polyrank-widgets (from a clone: pip install -e dists/polyrank-widgets)"
    ) from exc

import os as _os

from ._display import STATIC_IMAGES_ENV as _STATIC_IMAGES_ENV
from ._display import Snapshot, static_images
from .correlation import CorrelationSlider
from .decomposition import DecompositionViewer
from .display import GapDisplay, LabelRankingDisplay, OrdinalDisplay, RankingDisplay
from .gap import GapMonitor
from .knots import KnotExplorer
from .lab import SolverLab
from .path_display import PathDisplay
from .tron import TronMonitor

__all__ = ["Snapshot", "static_images", "CorrelationSlider", "DecompositionViewer", "GapMonitor",
           "KnotExplorer", "SolverLab", "TronMonitor", "RankingDisplay", "OrdinalDisplay",
           "LabelRankingDisplay", "GapDisplay", "PathDisplay"]

# POLYRANK_STATIC_IMAGES=1 (tools/execute_notebooks.py sets it for the kernels
# whose notebooks it stores): every figure and widget carries its PNG
if _os.environ.get(_STATIC_IMAGES_ENV, "") not in ("", "0"):
    static_images()
