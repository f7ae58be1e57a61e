"""A reproduction's figure with a button that recomputes it (the paper
wing's widget: it needs the ``paper`` extra, and the paper wing imports the
widgets' floor, never the reverse).

The notebooks load their heavy reproductions from the results stored in the
package (:func:`polyrank_paper.load_or_run`), so that Run All takes
seconds. :class:`ResultView` shows such a result's figure, says where and
when it was computed, and recomputes it here on request, in a background
thread, updating the figure, the table and the notes in place.
"""

from __future__ import annotations

import threading
import time
from html import escape

import ipywidgets as ipw

from polyrank_widgets.utils import FigureWidget, WidgetDisplay, fluid, wrap_row

from .registry import ExperimentResult
from .stored import StoredResult, registered

__all__ = ["ResultView"]

#: seconds between two updates of the status line while a recompute runs
TICK_S = 0.25


def _origin(result: ExperimentResult, seconds: float | None) -> str:
    """The status line: where the shown result comes from."""
    if isinstance(result, StoredResult) and result.provenance is not None:
        p = result.provenance
        return (f"Stored result: computed {escape(p.created[:10])} with polyrank "
                f"{escape(p.polyrank_version)} in {p.elapsed_s:.0f} s on {p.cpu_count} cores. "
                f"<b>Recompute</b> runs it here.")
    if seconds is None:
        return "Computed in this session."
    return f"Recomputed here in {seconds:.1f} s (the table and notes below are this run's)."


class ResultView(WidgetDisplay):
    """The figure of an experiment's result, where it comes from, and a
    Recompute button.

    Parameters
    ----------
    result : ExperimentResult
        Typically from :func:`polyrank_paper.load_or_run`: a
        :class:`~polyrank_paper.StoredResult` (its provenance is
        shown) or a result computed in this session.
    options : dict, optional
        The keyword arguments of a recompute (default: the stored result's
        ``options``; for a computed result, none: the experiment's
        defaults).

    Attributes
    ----------
    result : ExperimentResult
        The result shown (replaced by a recompute).
    fig : FigureWidget
        ``result.figure`` as a live figure.
    widget : ipywidgets.VBox
        Status line and button, the figure, and after a recompute its table
        and notes.
    seconds_ : float or None
        Wall-clock seconds of the last recompute.
    error_ : str or None
        The exception of a failed recompute (the shown result stays).

    Raises
    ------
    TypeError
        If ``result`` is not an ExperimentResult or ``options`` not a dict.
    ValueError
        If the result's experiment is not registered or draws no figure.

    Notes
    -----
    The figure is the experiment's, drawn by :mod:`polyrank_paper.figures`
    (``ExperimentResult.figure``); the recompute calls
    :func:`polyrank_paper.run_experiment` with the same options.
    """

    def __init__(self, result: ExperimentResult, options: dict | None = None) -> None:
        if not isinstance(result, ExperimentResult):
            raise TypeError(f"result: expected an ExperimentResult, got {type(result).__name__}")
        if options is None:
            options = dict(getattr(result, "options", {}))
        if not isinstance(options, dict):
            raise TypeError(f"options: expected a dict, got {type(options).__name__}")
        self.experiment = registered(result.name)
        self.options = options
        self.result = result
        self.seconds_: float | None = None
        self.error_: str | None = None
        self._thread: threading.Thread | None = None
        self.fig = FigureWidget(result.figure)
        self.button = ipw.Button(description="Recompute", icon="refresh",
                                 tooltip=f"run {result.name} here with {options}",
                                 layout=ipw.Layout(width="auto"))
        self.button.on_click(lambda _: self.recompute())
        self.status = ipw.HTML(_origin(result, None))
        self.details = ipw.HTML("")
        self.widget = ipw.VBox([wrap_row(self.button, self.status), fluid(self.fig),
                                self.details])

    def recompute(self) -> None:
        """Run the experiment again with ``options`` in a background
        thread; the figure, table and notes update when it ends (a second
        press while it runs is ignored)."""
        if self._thread is not None and self._thread.is_alive():
            return
        self.button.disabled = True
        self.status.value = "computing … 0.0 s"
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the running recompute ends (True) or ``timeout``
        seconds pass (False)."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        t0 = time.perf_counter()
        done = threading.Event()

        def tick():
            while not done.wait(TICK_S):
                self.status.value = f"computing … {time.perf_counter() - t0:.1f} s"

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            new = self.experiment.run(**self.options)
            figure = new.figure
        except Exception as exc:    # shown in the status line; the old result stays
            done.set()
            self.error_ = f"{type(exc).__name__}: {exc}"
            self.status.value = (f"<span style='color:#d62728'>recompute failed: "
                                 f"{escape(self.error_)}</span>")
            self.button.disabled = False
            return
        done.set()
        ticker.join()
        self.seconds_ = time.perf_counter() - t0
        self.result, self.error_ = new, None
        with self.fig.batch_update():
            self.fig.data = []
            self.fig.add_traces(figure.data)
            self.fig.layout = figure.layout
            self.fig.layout.width = None          # the box sets the width (see fluid)
        notes = "\n".join(new.notes)
        self.details.value = (f"<pre style='font-size:12px'>{escape(new.format_table())}"
                              f"\n\n{escape(notes)}</pre>")
        self.status.value = _origin(new, self.seconds_)
        self.button.disabled = False
