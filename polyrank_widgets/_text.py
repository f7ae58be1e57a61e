"""Escaping of the strings a user hands in (label, feature, class and data-set
names, parameter values, error messages) before a widget shows them in an
``ipywidgets.HTML`` value or a plotly title, legend, hover, axis or tick text.

Both are HTML: ``ipywidgets.HTML`` puts its value into the page as markup, and
plotly.js reads a small subset of tags (``<b>``, ``<br>``, ``<span style>``,
``<a href>`` ...) out of every text it draws. A name such as
``<img src=x onerror=alert(1)>`` must show as those characters, never become
an element. :func:`escape` is the one helper every widget and figure uses for
such strings; the markup the widgets write themselves is not passed through
it.
"""

from __future__ import annotations

import html

__all__ = ["escape"]


def escape(value) -> str:
    r"""``str(value)`` as text that HTML and plotly.js show literally.

    ``&``, ``<`` and ``>`` become ``&amp;``, ``&lt;``, ``&gt;`` (as
    :func:`html.escape`); the quotes become the numeric references ``&#34;``
    and ``&#39;``, which both a browser and plotly.js decode (plotly.js knows
    only a few named entities: it would show ``&quot;`` as written).

    Source: the HTML standard's character references; plotly.js
    ``svg_text_utils.convertEntities`` (entities plotly decodes).

    Parameters
    ----------
    value : object
        Anything; ``str(value)`` is escaped.

    Returns
    -------
    str
        The escaped text (unchanged when it holds none of ``& < > " '``).

    Examples
    --------
    >>> escape("<img src=x onerror=alert(1)>")
    '&lt;img src=x onerror=alert(1)&gt;'
    >>> escape('Tom & "Jerry\'s" label')
    'Tom &amp; &#34;Jerry&#39;s&#34; label'
    >>> escape(3.5)
    '3.5'
    """
    return (html.escape(str(value), quote=False)
            .replace('"', "&#34;").replace("'", "&#39;"))
