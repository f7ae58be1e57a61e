"""Messages on one line: the text helpers of the ``polyrank`` command's
errors and of the file readers' messages (:mod:`polyrank.cli`,
:mod:`polyrank.io`).  Standard library only, so that the command can build
its parser and report a usage error without importing numpy.
"""

from __future__ import annotations

__all__ = ["one_line", "cut"]


def one_line(exc, limit: int = 200) -> str:
    """An exception's (or any object's) text on a single line, at most
    ``limit`` characters (a longer text is cut, with its length said).

    Parameters
    ----------
    exc : object
        An exception or any object; its ``str()`` is shown.
    limit : int, default 200
        The most characters returned.

    Returns
    -------
    str
        The text with every run of white space (newlines too) as one space.
    """
    return cut(" ".join(str(exc).split()), limit)


def cut(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and
    how long it was, in ``limit`` characters.

    Parameters
    ----------
    text : str
    limit : int
        The most characters returned.

    Returns
    -------
    str
        ``text``, or its start followed by ``... (N characters)``.
    """
    if len(text) <= limit:
        return text
    tail = f"... ({len(text):,} characters)"
    return text[:max(limit - len(tail), 0)] + tail
