"""Jupyter display shared by every widget class."""


class WidgetDisplay:
    """Mixin: an object whose ``widget`` attribute (an ipywidgets container)
    is what Jupyter shows when the object is the value of a cell."""

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)
