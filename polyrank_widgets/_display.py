"""Jupyter display and observer plumbing shared by every widget class."""

from contextlib import contextmanager


class WidgetDisplay:
    """Mixin: an object whose ``widget`` attribute (an ipywidgets container)
    is what Jupyter shows when the object is the value of a cell."""

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    @contextmanager
    def _sync(self):
        """Suppress the widget observers (they check ``self._syncing``) while
        code moves the widgets."""
        self._syncing = True
        try:
            yield
        finally:
            self._syncing = False
