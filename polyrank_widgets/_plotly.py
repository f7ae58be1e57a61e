"""plotly's FigureWidget with plotly.js sent to the browser once per kernel,
not once per figure.

plotly's ``FigureWidget`` is an anywidget whose front-end code (``_esm``,
plotly.js and the widget: 5 MB) is part of every figure's state: each
figure sends it over the kernel's websocket and the browser imports it as a
new module, 5 MB parsed and evaluated per figure.  A notebook of ten
figures moved 50 MB and evaluated plotly.js ten times; on a busy machine an
import took longer than the 2 s anywidget allows a model to initialise, and
the figure was never drawn (issue 34, items 3 and 4).

Here the code travels once, in one :class:`PlotlyBundle` model per kernel
(a widget with no view), and each :class:`FigureWidget` carries a 3 kB
loader (:data:`LOADER_JS`) that imports it once per page and hands every
figure to plotly's own widget. The loader also makes plotly's view follow
its box: plotly's anywidget view sizes an autosized figure once, when it
is drawn, and the loader redraws it when the box is resized (the panel,
the sidebar, the window; a ``ResizeObserver``).  The loader's ``initialize`` returns at
once (the import may take seconds) and replays the edits
(``_py2js_*`` messages) that arrived before plotly's model listened, so a
figure edited while plotly.js loads is drawn with its last state.
"""

from __future__ import annotations

import hashlib
import pathlib
import threading

import ipywidgets as ipw
import plotly
import plotly.graph_objects as go
import traitlets

__all__ = ["FigureWidget", "PlotlyBundle", "plotly_bundle", "LOADER_JS"]

#: plotly's front-end module (plotly.js + the FigureWidget's model and view)
_BUNDLE_PATH = pathlib.Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"

#: the ES module of every :class:`FigureWidget`: loads the bundle of the
#: :class:`PlotlyBundle` model named by ``_polyrank_bundle`` (once per page,
#: cached by model id) and delegates to plotly's widget
LOADER_JS = r"""
const CACHE = (globalThis.__polyrankPlotlyBundles ??= new Map());
const PY2JS = ["_py2js_addTraces", "_py2js_deleteTraces", "_py2js_moveTraces",
               "_py2js_restyle", "_py2js_relayout", "_py2js_update", "_py2js_animate",
               "_py2js_removeLayoutProps", "_py2js_removeTraceProps"];

function bundle(model) {
  const id = String(model.get("_polyrank_bundle") || "").replace(/^IPY_MODEL_/, "");
  let loaded = CACHE.get(id);
  if (!loaded) {
    loaded = model.widget_manager.get_model(id).then(async (carrier) => {
      const url = URL.createObjectURL(new Blob([carrier.get("code")],
                                               { type: "text/javascript" }));
      try {
        const mod = await import(/* webpackIgnore: true */ url);
        followBox(mod.FigureView);
        return mod.default;
      } finally {
        URL.revokeObjectURL(url);
      }
    });
    CACHE.set(id, loaded);
  }
  return loaded;
}

// plotly's anywidget view sizes the figure to its box once, when drawn (its
// window-resize handler is installed only on JupyterLab's classic widget
// path): redraw at the box's new width whenever the box is resized (the
// panel, the sidebar, the window), as plotly's autosize promises
function followBox(View) {
  const proto = View && View.prototype;
  if (!proto || proto.__polyrankFollowsBox || typeof ResizeObserver !== "function") return;
  const render = proto.perform_render;
  const remove = proto.remove;
  proto.perform_render = function (...args) {
    const out = render.apply(this, args);
    this.__polyrankObserver = new ResizeObserver(() => {
      // a drawn figure (plotly's _fullLayout) whose width is not its box's:
      // redraw it at the box's width (autosizeFigure leaves a fixed width alone)
      const layout = this.el._fullLayout;
      const w = Math.round(this.el.getBoundingClientRect().width);
      if (!layout || w <= 0 || Math.abs(Math.round(layout.width) - w) <= 1) return;
      try {
        const done = this.autosizeFigure();
        if (done && done.catch) done.catch((err) => console.warn("polyrank: resize", err));
      } catch (err) {
        console.warn("polyrank: resize", err);
      }
    });
    this.__polyrankObserver.observe(this.el);
    return out;
  };
  proto.remove = function (...args) {
    if (this.__polyrankObserver) this.__polyrankObserver.disconnect();
    return remove.apply(this, args);
  };
  proto.__polyrankFollowsBox = true;
}

export default () => {
  let ready = null;
  return {
    initialize(ctx) {
      const model = ctx.model;
      const missed = [];
      const listeners = PY2JS.map((key) => [key, () => {
        const value = model.get(key);
        if (value !== null && value !== undefined) missed.push([key, value]);
      }]);
      for (const [key, fn] of listeners) model.on(`change:${key}`, fn);
      // not awaited: anywidget gives initialize 2 s, plotly.js may take longer
      ready = bundle(model).then((factory) => {
        for (const [key, fn] of listeners) model.off(`change:${key}`, fn);
        const widget = factory();
        widget.initialize(ctx);
        for (const [key, value] of missed) {
          model.set(key, value);
          model.set(key, null);
        }
        return widget;
      });
      ready.catch((err) => console.error("polyrank: plotly.js did not load", err));
    },
    async render(ctx) {
      const widget = await ready;
      return widget.render(ctx);
    },
  };
};
"""


class PlotlyBundle(ipw.Widget):
    """plotly's front-end module as the state of one widget model (no view).

    Every :class:`FigureWidget` of the kernel names this model; the browser
    imports ``code`` once per page.

    Attributes
    ----------
    code : str
        The ES module (plotly's ``widgetbundle.js``, about 5 MB).
    digest : str
        SHA-256 of ``code`` (hex, first 16 digits).
    version : str
        plotly's version.
    """

    code = traitlets.Unicode().tag(sync=True)
    digest = traitlets.Unicode().tag(sync=True)
    version = traitlets.Unicode().tag(sync=True)


_LOCK = threading.Lock()
_BUNDLE: PlotlyBundle | None = None


def plotly_bundle() -> PlotlyBundle:
    """The kernel's :class:`PlotlyBundle` (created at the first call, kept
    open for the life of the kernel).

    Raises
    ------
    OSError
        If plotly's ``widgetbundle.js`` cannot be read.
    """
    global _BUNDLE
    with _LOCK:
        if _BUNDLE is None or _BUNDLE.comm is None:
            code = _BUNDLE_PATH.read_text(encoding="utf-8")
            _BUNDLE = PlotlyBundle(code=code, version=plotly.__version__,
                                   digest=hashlib.sha256(code.encode()).hexdigest()[:16])
        return _BUNDLE


class FigureWidget(go.FigureWidget):
    """A plotly ``FigureWidget`` whose front-end code is the small
    :data:`LOADER_JS` (plotly.js comes once, from :func:`plotly_bundle`).

    Takes the arguments of :class:`plotly.graph_objects.FigureWidget` and
    behaves as it does in Python; in the browser it draws the same figure.
    """

    _esm = LOADER_JS
    _polyrank_bundle = traitlets.Unicode().tag(sync=True)

    @traitlets.default("_polyrank_bundle")
    def _default_bundle(self) -> str:
        return "IPY_MODEL_" + plotly_bundle().model_id
