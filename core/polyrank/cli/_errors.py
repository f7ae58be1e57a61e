"""How the ``polyrank`` command reports a user's mistake, a warning and a
failure: :class:`UsageError` (one line on stderr, exit status 2),
:func:`user_errors`, warnings on one line with the command's advice, the
one-line failure message and a reader that left the pipe.  The standard
library only (tests/architecture/test_startup.py).
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings
from contextlib import contextmanager

from .._text import command_line_advice
from .._text import cut as _clip
from .._text import one_line as _one_line

__all__ = ["UsageError", "MESSAGE_CHARS", "user_errors"]


class UsageError(Exception):
    """A mistake of the user (a file, a path, an option): one line on stderr
    and exit status 2, never a traceback (unless ``--debug``)."""


# polyrank.cli.MESSAGE_CHARS: documented there
MESSAGE_CHARS = 300


@contextmanager
def user_errors(what: str, path: str | None = None):
    """Context manager: turn the errors a user's file or option causes into
    a :class:`UsageError` (one line, exit status 2) whose message starts
    with ``what`` (and ``path``, said once).

    Parameters
    ----------
    what : str
        The option or argument the block reads (e.g. ``"--readme"``).
    path : str or None, default=None
        The file it names, if any.

    Raises
    ------
    UsageError
        From an ``OSError``, ``ValueError`` or ``TypeError`` of the block.
    """
    where = what if path is None else f"{what} {path!r}"
    try:
        yield
    except UsageError:
        raise
    except OSError as exc:
        reason = exc.strerror or _one_line(exc, MESSAGE_CHARS)
        if exc.filename is None or exc.filename == path:
            raise UsageError(f"{where}: {reason}") from exc
        raise UsageError(f"{where}: cannot access {exc.filename!r}: {reason}") from exc
    except (ValueError, TypeError) as exc:
        msg = _one_line(exc, MESSAGE_CHARS)
        if path is not None and msg.startswith(f"{path}"):
            raise UsageError(f"{what} {msg}") from exc      # the reader named the file
        raise UsageError(f"{where}: {msg}") from exc


@contextmanager
def warnings_as_lines(prog: str, options: dict):
    """Show every warning (e.g. a ConvergenceWarning) in full, on one line
    of stderr, its advice in the command's options (``options``: the option
    of each estimator parameter, e.g. ``{"max_iter": "--max-iter"}``), not
    in Python."""
    def show(message, category, filename, lineno, file=None, line=None):
        text = " ".join(str(message).split())
        print(f"{prog}: {category.__name__}: {text}", file=sys.stderr)

    with warnings.catch_warnings(), command_line_advice(options):
        warnings.simplefilter("default")
        warnings.showwarning = show
        yield


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush of a
    pipe whose reader has gone raises nothing (Python's documented recipe
    for SIGPIPE, ``signal`` module notes)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):     # no real stdout (a test's capture)
        pass


def fail(args, message: str, status: int) -> int:
    """Print ``message`` as one line on stderr (after the traceback of the
    exception being handled with ``--debug``); return ``status``."""
    if getattr(args, "debug", False):
        traceback.print_exc(file=sys.stderr)
    print(_clip(message, MESSAGE_CHARS), file=sys.stderr)
    return status

