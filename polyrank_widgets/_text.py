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

__all__ = ["escape", "traceback_html", "failure_html"]


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


def traceback_html(text: str) -> str:
    """A traceback folded in a collapsible ``<details>`` block (escaped), for
    a widget's readout.

    Parameters
    ----------
    text : str
        The traceback (:func:`traceback.format_exc`).

    Returns
    -------
    str

    Examples
    --------
    >>> traceback_html("Traceback: <x>")[:36]
    '<details><summary>traceback</summary'
    """
    return ("<details><summary>traceback</summary><pre style='font-size:11px;"
            f"white-space:pre-wrap'>{escape(text)}</pre></details>")


def failure_html(stage: str, exc: BaseException, text: str) -> str:
    """The readout of a step of a widget that raised (issue 44, item 5):
    status "<stage> failed" in red, the message, the traceback folded.

    Parameters
    ----------
    stage : str
        What failed, e.g. ``"fit"``, ``"update"``.
    exc : BaseException
    text : str
        Its traceback (:func:`traceback.format_exc`).

    Returns
    -------
    str
        HTML, every part escaped.

    Examples
    --------
    >>> failure_html("fit", ValueError("C: <0"), "tb")[:52]
    "<b style='color:#d62728'>fit failed</b>: ValueError:"
    """
    return (f"<b style='color:#d62728'>{escape(stage)} failed</b>: "
            f"{escape(type(exc).__name__)}: {escape(exc)}{traceback_html(text)}")
