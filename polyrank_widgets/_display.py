"""Jupyter display and observer plumbing shared by every widget class, and the
static snapshots (PNG) that keep a notebook readable without a kernel."""

from __future__ import annotations

import os
import threading
import warnings
from contextlib import contextmanager

_KALEIDO_LOCK = threading.Lock()
_KALEIDO_SERVER = None          # None: not tried yet; True: running; False: unavailable
_NEEDS = ("a static image needs kaleido and Chrome/Chromium (pip install kaleido; "
          "apt-get install chromium, or BROWSER_PATH=/path/to/chrome)")


def _browser_missing() -> bool:
    """True when kaleido (1.x, through choreographer) would find no
    Chrome/Chromium to start: ``BROWSER_PATH``, PATH and the usual places.
    kaleido's sync server starts its browser in a thread that dies silently
    when there is none, and every export then waits for it forever."""
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:             # not kaleido 1.x: its own error says what is missing
        return False
    path = Chromium.find_browser(skip_local=False)
    return not (path and os.path.isfile(path) and os.access(path, os.X_OK))


def figure_png(fig, scale: float = 1.0) -> bytes:
    """A plotly figure as PNG bytes through kaleido, reusing one headless
    Chromium for the whole process (the first call starts it, ~2 s; later
    ones take ~0.15 s).

    Raises
    ------
    RuntimeError
        If kaleido or a Chrome/Chromium is missing (the message says what to
        install: ``pip install kaleido`` and Chromium, e.g. ``apt-get install
        chromium``); at once, never after waiting for a browser that does
        not exist.
    """
    global _KALEIDO_SERVER
    import plotly.graph_objects as go

    with _KALEIDO_LOCK:
        if _KALEIDO_SERVER is None:
            if _browser_missing():
                raise RuntimeError(f"{_NEEDS}: no Chrome/Chromium found")
            try:
                import kaleido
                kaleido.start_sync_server(silence_warnings=True)
                _KALEIDO_SERVER = True
            except Exception:           # older kaleido: one browser per image
                _KALEIDO_SERVER = False
        try:
            with warnings.catch_warnings():     # plotly: "kopts ... ignored if using a server"
                warnings.filterwarnings("ignore", message="The kopts argument",
                                        category=UserWarning)
                return go.Figure(fig).to_image(format="png", scale=scale)
        except Exception as exc:
            raise RuntimeError(f"{_NEEDS}: {type(exc).__name__}: {exc}") from exc


def static_images(enable: bool = True) -> str:
    """Make every plotly figure a cell displays also carry a static PNG, so
    that a stored notebook shows its figures without a kernel (GitHub,
    nbviewer, ``jupyter nbconvert --to html``); in JupyterLab plotly's
    renderer shows the PNG and draws the interactive figure as soon as the
    pointer enters it. Widgets keep theirs with :meth:`WidgetDisplay.snapshot`.

    Sets ``plotly.io.renderers.default`` to ``"plotly_mimetype+png"``
    (``enable=False``: back to ``"plotly_mimetype"``) and starts kaleido's
    Chromium once.

    Parameters
    ----------
    enable : bool, optional

    Returns
    -------
    str
        The renderer now in use.

    Raises
    ------
    TypeError
        If ``enable`` is not a bool.
    RuntimeError
        If kaleido or Chrome/Chromium is missing (``enable=True``).
    """
    import plotly.graph_objects as go
    import plotly.io as pio

    if not isinstance(enable, bool):
        raise TypeError(f"enable: expected a bool, got {type(enable).__name__}")
    if enable:
        # plotly warns on every export that kaleido's server ignores its options
        warnings.filterwarnings("ignore", message="The kopts argument", category=UserWarning)
        figure_png(go.Figure())                 # starts Chromium; fails loudly if missing
        pio.renderers.default = "plotly_mimetype+png"
    else:
        pio.renderers.default = "plotly_mimetype"
    return pio.renderers.default


class Snapshot:
    """Static PNG images of a widget's figures: what a notebook keeps for
    readers without a kernel (GitHub, nbviewer, ``jupyter nbconvert --to
    html``). Displayed as one PNG output per figure.

    Attributes
    ----------
    png : list of bytes
        One PNG per figure, in the widget's order.
    """

    def __init__(self, png: list[bytes]) -> None:
        self.png = png

    def _ipython_display_(self) -> None:
        from IPython.display import Image, display
        for data in self.png:
            display(Image(data=data, format="png"))

    def __len__(self) -> int:
        return len(self.png)

    def __repr__(self) -> str:
        return f"Snapshot({len(self.png)} PNG images)"


class WidgetDisplay:
    """Mixin: an object whose ``widget`` attribute (an ipywidgets container)
    is what Jupyter shows when the object is the value of a cell."""

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def _figures(self) -> list:
        """The plotly figures :meth:`snapshot` exports (default: ``fig``)."""
        fig = getattr(self, "fig", None)
        return [] if fig is None else [fig]

    def snapshot(self, scale: float = 1.0) -> Snapshot:
        """Static PNG images of the widget's figures as they are now.

        Make it the last expression of a widget cell (after the widget is
        drawn, e.g. after ``lab.wait()``) so that the stored notebook shows
        the figures without a running kernel.

        Parameters
        ----------
        scale : float, optional
            Pixel scale of the export (default 1).

        Returns
        -------
        Snapshot
            Displays as one PNG output per figure.

        Raises
        ------
        RuntimeError
            If kaleido or Chrome/Chromium is missing.
        """
        return Snapshot([figure_png(f, scale) for f in self._figures()])

    @contextmanager
    def _sync(self):
        """Suppress the widget observers (they check ``self._syncing``) while
        code moves the widgets."""
        self._syncing = True
        try:
            yield
        finally:
            self._syncing = False
