"""Jupyter display and observer plumbing shared by every widget class, and the
static images (PNG) that keep a stored notebook readable without a kernel, in
the same output as the live widget or figure (:func:`static_images`)."""

from __future__ import annotations

import base64
import io
import os
import re
import threading
import uuid
import warnings
import weakref
from contextlib import contextmanager

from plotly.io._base_renderers import MimetypeRenderer

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


def figure_png(fig, scale: float = 1.0, width: int | None = None) -> bytes:
    """A plotly figure as PNG bytes through kaleido, reusing one headless
    Chromium for the whole process (the first call starts it, ~2 s; later
    ones take ~0.15 s).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure or FigureWidget
    scale : float, optional
        Pixels per CSS px of the image.
    width : int, optional
        Width in CSS px (default: the figure's design width,
        :func:`~polyrank_widgets._layout.design_width`, else kaleido's 700).

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

    from ._layout import design_width

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
                return go.Figure(fig).to_image(format="png", scale=scale,
                                               width=width or design_width(fig))
        except Exception as exc:
            raise RuntimeError(f"{_NEEDS}: {type(exc).__name__}: {exc}") from exc


#: colours of the palette a stored PNG is reduced to: plotly's figures are
#: flat colours on white, so 128 keep them as drawn at about a quarter of the
#: bytes (a notebook stays under 250 kB)
STORED_PNG_COLORS = 128
#: the plotly renderer of :func:`static_images` that adds the reduced PNG
PNG_RENDERER = "polyrank_png"


def compact_png(png: bytes, colors: int = STORED_PNG_COLORS) -> bytes:
    """A PNG reduced to a palette of ``colors`` colours (Pillow's fast
    octree quantiser, no dithering) and saved optimised: what a stored
    notebook keeps as a figure's static image.

    Parameters
    ----------
    png : bytes
    colors : int, optional
        2 to 256.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        If ``colors`` is outside 2..256.
    RuntimeError
        If Pillow is missing (a dependency of ``polyrank-widgets``).
    """
    if not 2 <= int(colors) <= 256:
        raise ValueError(f"colors: expected 2 to 256, got {colors!r}")
    try:
        from PIL import Image
    except ImportError as exc:
        raise RuntimeError("reducing a static image needs Pillow: "
                           "pip install polyrank-widgets") from exc
    image = Image.open(io.BytesIO(png)).convert("RGB")
    reduced = image.quantize(colors=int(colors), method=Image.Quantize.FASTOCTREE,
                             dither=Image.Dither.NONE)
    buf = io.BytesIO()
    reduced.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


class _CompactPngRenderer(MimetypeRenderer):
    """plotly renderer: the figure's PNG (:func:`figure_png`), reduced by
    :func:`compact_png`.

    ``width`` (px): the image's width when the figure sent to the page has
    none; ``fluid``: send the image as HTML (``<img>`` at most as wide as the
    output area) instead of ``image/png``. Both are set by
    :class:`~polyrank_widgets._layout.FluidFigure`: JupyterLab's plotly
    renderer shows a bundle's ``image/png`` at its natural size in place of
    the figure until the pointer enters it (a 1,250 px picture in a 600 px
    panel), while it ignores ``text/html``, which kernel-less renderers
    (nbconvert, GitHub, a docs site) show when there is no plotly."""

    width: int | None = None
    fluid: bool = False

    def to_mimebundle(self, fig_dict):
        import html

        import plotly.graph_objects as go
        fig = go.Figure(fig_dict)
        png = base64.b64encode(compact_png(figure_png(fig, width=self.width))).decode("ascii")
        if not self.fluid:
            return {"image/png": png}
        return {"text/html": (f'<img src="data:image/png;base64,{png}" '
                              f'alt="{html.escape(_plain_title(fig), quote=True)}" '
                              'style="max-width: 100%; height: auto;"/>')}


def _plain_title(fig) -> str:
    """The figure's title as plain text for an ``alt`` attribute: plotly's
    markup (``<br>``, ``<sup>``, ...) becomes spaces; "figure" if none."""
    text = re.sub(r"<[^>]*>", " ", fig.layout.title.text or "")
    return " ".join(text.split()) or "figure"


#: a PNG stored in a notebook output as an ``<img>`` (what
#: :class:`_CompactPngRenderer` writes with ``fluid``)
_IMG_PNG = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def stored_png(data: dict) -> str | None:
    """The base64 PNG of a stored notebook output's ``data``: its
    ``image/png``, or the ``<img>`` a paper figure (FluidFigure) stores as
    ``text/html``; None if it has neither.

    Parameters
    ----------
    data : dict
        The ``data`` of an nbformat output (mime type -> str or list of str).

    Returns
    -------
    str or None
        Base64 text of the PNG.

    Examples
    --------
    >>> stored_png({"text/html": '<img src="data:image/png;base64,iVBO" alt="x"/>'})
    'iVBO'
    >>> stored_png({"image/png": "iVBO"}), stored_png({"text/plain": "x"})
    ('iVBO', None)
    """
    if "image/png" in data:
        return data["image/png"]
    found = _IMG_PNG.match("".join(data.get("text/html", "")))
    return None if found is None else found.group(1)


#: the environment variable that turns static images on when
#: :mod:`polyrank_widgets` is imported (``tools/execute_notebooks.py`` sets it
#: for the kernels whose notebooks it stores)
STATIC_IMAGES_ENV = "POLYRANK_STATIC_IMAGES"

_STATIC = False                                  # static_images() is on
_SHOWN: weakref.WeakValueDictionary = weakref.WeakValueDictionary()   # display id -> widget
_FINGERPRINT: dict[str, int] = {}                # display id -> figures drawn in its PNG
_HOOKED = False                                  # the post_run_cell hook is registered


def static_images(enable: bool = True) -> str:
    """Store a static PNG with every figure a notebook shows, so that the
    stored notebook is readable without a kernel (GitHub, nbviewer,
    ``jupyter nbconvert --to html``, a docs site), in the same output as the
    live figure: one output per figure.

    - A plotly figure is displayed as one MIME bundle with the plotly JSON
      and its PNG (``plotly.io.renderers.default`` becomes
      ``"plotly_mimetype+polyrank_png"``; ``enable=False``: back to
      ``"plotly_mimetype"``).
    - A polyrank widget is displayed as one MIME bundle with the widget view
      and a PNG of its figures (stacked when it has several). After every
      cell the PNG of each widget whose figures changed in that cell is
      refreshed in place (``update_display_data``), so the stored image is
      the widget as the cell left it.

    JupyterLab with a kernel shows the live figure or widget only; a
    renderer without a kernel shows the image only. Off by default: the
    images cost a headless Chromium (kaleido) in the kernel, which an
    interactive session does not need. ``tools/execute_notebooks.py`` turns
    them on for the notebooks it stores by setting
    ``POLYRANK_STATIC_IMAGES=1`` (read when :mod:`polyrank_widgets` is
    imported).

    Parameters
    ----------
    enable : bool, optional

    Returns
    -------
    str
        The plotly renderer now in use.

    Raises
    ------
    TypeError
        If ``enable`` is not a bool.
    RuntimeError
        If kaleido or Chrome/Chromium is missing (``enable=True``).
    """
    global _STATIC
    import plotly.graph_objects as go
    import plotly.io as pio

    if not isinstance(enable, bool):
        raise TypeError(f"enable: expected a bool, got {type(enable).__name__}")
    if enable:
        # plotly warns on every export that kaleido's server ignores its options
        warnings.filterwarnings("ignore", message="The kopts argument", category=UserWarning)
        figure_png(go.Figure())                 # starts Chromium; fails loudly if missing
        pio.renderers[PNG_RENDERER] = _CompactPngRenderer()
        pio.renderers.default = f"plotly_mimetype+{PNG_RENDERER}"
        _hook_post_run_cell()
    else:
        pio.renderers.default = "plotly_mimetype"
    _STATIC = enable
    return pio.renderers.default


def _hook_post_run_cell() -> None:
    """Register :func:`refresh_static_images` to run after every cell of the
    IPython session (once; nothing outside IPython)."""
    global _HOOKED
    if _HOOKED:
        return
    try:
        from IPython import get_ipython
    except ImportError:                 # pragma: no cover - ipywidgets needs IPython
        return
    shell = get_ipython()
    if shell is None:
        return
    shell.events.register("post_run_cell", lambda *args: refresh_static_images())
    _HOOKED = True


def refresh_static_images() -> int:
    """Refresh, in place, the PNG of every shown widget whose figures changed
    since its PNG was drawn (what :func:`static_images` runs after each
    cell); returns how many were refreshed (0 when static images are off).

    Raises
    ------
    RuntimeError
        If kaleido, Chrome/Chromium or Pillow is missing.
    """
    if not _STATIC:
        return 0
    from IPython.display import update_display

    for gone in set(_FINGERPRINT) - set(_SHOWN):      # widgets no longer alive
        del _FINGERPRINT[gone]
    n = 0
    for display_id, obj in list(_SHOWN.items()):
        fingerprint = obj._fingerprint()
        if _FINGERPRINT.get(display_id) == fingerprint:
            continue
        update_display(obj._bundle(display_id, fingerprint), raw=True, display_id=display_id)
        n += 1
    return n


def stack_png(images: list[bytes]) -> bytes:
    """PNG images stacked top to bottom, left-aligned on white (Pillow), as
    one PNG; a single image is returned as it is.

    Raises
    ------
    ValueError
        If ``images`` is empty.
    RuntimeError
        If Pillow is missing (a dependency of ``polyrank-widgets``).
    """
    if not images:
        raise ValueError("images: expected at least one PNG, got none")
    if len(images) == 1:
        return images[0]
    try:
        from PIL import Image
    except ImportError as exc:
        raise RuntimeError("stacking a widget's figures into one static image needs "
                           "Pillow: pip install polyrank-widgets") from exc
    parts = [Image.open(io.BytesIO(b)).convert("RGB") for b in images]
    out = Image.new("RGB", (max(p.width for p in parts), sum(p.height for p in parts)),
                    "white")
    y = 0
    for part in parts:
        out.paste(part, (0, y))
        y += part.height
    buf = io.BytesIO()
    out.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


class Snapshot:
    """Static PNG images of a widget's figures, as :meth:`WidgetDisplay.snapshot`
    returns them (e.g. to save or embed elsewhere). Displayed as one PNG
    output per figure.

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
    is what Jupyter shows when the object is the value of a cell, or passed
    to ``display``: one output, a MIME bundle with the widget view, a short
    ``text/plain`` and, under :func:`static_images`, a PNG of its figures."""

    def _ipython_display_(self) -> None:
        from IPython.display import display
        if not _STATIC:
            display(self._bundle(None), raw=True)
            return
        display_id = uuid.uuid4().hex
        _SHOWN[display_id] = self
        display(self._bundle(display_id), raw=True, display_id=display_id)

    def _repr_mimebundle_(self, **kwargs):
        return self._bundle(None)

    def _bundle(self, display_id: str | None, fingerprint: int | None = None) -> dict:
        """The MIME bundle shown for this widget; with ``display_id`` (static
        images on) it carries the PNG of the figures as they are now
        (``fingerprint``: their :meth:`_fingerprint`, if already computed)."""
        data = dict(self.widget._repr_mimebundle_())
        data["text/plain"] = (f"{type(self).__name__}: an interactive widget "
                              f"(run the notebook to use it)")
        if display_id is not None:
            _FINGERPRINT[display_id] = (self._fingerprint() if fingerprint is None
                                        else fingerprint)
            png = compact_png(stack_png([figure_png(f) for f in self._figures()]))
            data["image/png"] = base64.b64encode(png).decode("ascii")
        return data

    def _fingerprint(self) -> int:
        """A hash of the figures as drawn (their full plotly JSON)."""
        return hash(tuple(f.to_json() for f in self._figures()))

    def _figures(self) -> list:
        """The plotly figures :meth:`snapshot` exports (default: ``fig``)."""
        fig = getattr(self, "fig", None)
        return [] if fig is None else [fig]

    def snapshot(self, scale: float = 1.0) -> Snapshot:
        """Static PNG images of the widget's figures as they are now (e.g. to
        save them to files). A notebook does not need them: under
        :func:`static_images` the widget's own output carries its image.

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
