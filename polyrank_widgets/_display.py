"""Jupyter display shared by every widget class."""


class WidgetDisplay:
    """Mixin: an object whose ``widget`` attribute (an ipywidgets container)
    is what Jupyter shows when the object is the value of a cell.

    A plotly ``FigureWidget`` refreshes the state it sends to the browser
    (its traces and layout) only when it is displayed itself, in its
    ``_repr_mimebundle_``; shown inside a container, the browser would build
    it from the state it had when it was constructed plus the edits sent
    since, and a figure whose traces were replaced before display renders
    without them (found by the real-browser tests, ``tests/browser``).  So
    every ``FigureWidget`` attribute named ``fig`` is refreshed the same way
    before the container is displayed.
    """

    def _sync_figures(self) -> None:
        fig = getattr(self, "fig", None)
        refresh = getattr(fig, "_repr_mimebundle_", None)
        if refresh is not None:
            refresh()          # plotly: copies the current data and layout to the widget state

    def _ipython_display_(self) -> None:
        from IPython.display import display
        self._sync_figures()
        display(self.widget)

    def _repr_mimebundle_(self, **kwargs):
        self._sync_figures()
        return self.widget._repr_mimebundle_(**kwargs)
