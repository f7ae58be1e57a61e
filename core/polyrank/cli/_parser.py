"""The parser of the ``polyrank`` command, its plugins (the entry-point group
:data:`COMMANDS_GROUP`) and :func:`main`.
"""

from __future__ import annotations

import argparse
import functools
import sys
from importlib.metadata import entry_points

from .. import __version__
from .._text import cut as _clip
from .._text import one_line as _one_line
from ._datasets import add_datasets
from ._errors import MESSAGE_CHARS, UsageError, fail, silence_stdout, warnings_as_lines
from ._lab import add_lab
from ._predict import add_predict
from ._train import add_train, advice_options
from ._warmup import add_warmup

__all__ = ["main", "build_parser", "COMMANDS_GROUP", "CORE_COMMANDS", "PAPER_COMMANDS",
           "PAPER_INSTALL"]


# polyrank.cli.COMMANDS_GROUP: documented there
COMMANDS_GROUP = "polyrank.commands"
#: the sub-commands of the paper wing; without it each says which distribution to install
PAPER_COMMANDS = ("demo", "bench", "reproduce")
# polyrank.cli.CORE_COMMANDS: documented there
CORE_COMMANDS = ("lab", "warmup", "train", "predict", "datasets")
#: how to install the paper wing (the ``polyrank-paper`` distribution, which
#: needs ``polyrank-widgets``), published or from a clone's root
PAPER_INSTALL = ("pip install polyrank-paper (from a clone: "
                 "pip install -e dists/polyrank-widgets -e dists/polyrank-paper)")


def _add_plugin_commands(sub) -> None:
    """Add the sub-commands of every plugin of :data:`COMMANDS_GROUP`; a
    plugin that fails to import (its extra is missing) adds none.  Each
    command of :data:`PAPER_COMMANDS` that no plugin added gets a stand-in
    that names the distribution to install.  A plugin found twice (the same
    name and object, e.g. a stale ``polyrank.egg-info`` of the one-distribution
    layout in the working directory beside the installed ``polyrank-paper``)
    is registered once."""
    reasons, seen = [], set()
    for ep in entry_points(group=COMMANDS_GROUP):
        if (ep.name, ep.value) in seen:
            continue
        seen.add((ep.name, ep.value))
        try:
            register = ep.load()
        except ImportError as exc:           # the plugin's dependencies are missing
            why = f"{exc.name} is missing" if exc.name else _one_line(exc, 120)
            reasons.append(f"plugin {ep.name!r} not loaded: {why}")
            continue
        register(sub)
    for name in PAPER_COMMANDS:
        if name not in sub.choices:
            p = sub.add_parser(name, add_help=False, prefix_chars="\0",
                               help="(needs the paper wing: pip install polyrank-paper)")
            p.add_argument("rest", nargs=argparse.REMAINDER)
            p.set_defaults(func=functools.partial(_cmd_missing, name, "; ".join(reasons)))


def _cmd_missing(name: str, reason: str, args) -> int:
    """A paper command without the paper wing: say which distribution installs it."""
    print(_clip(f"polyrank {name} needs the paper wing: {PAPER_INSTALL}, which also "
                "registers its commands" + (f"; {reason}" if reason else ""), MESSAGE_CHARS),
          file=sys.stderr)
    return 2


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (and exit status 2)."""

    def error(self, message):
        self.exit(2, _clip(f"{self.prog}: error: {_one_line(message, MESSAGE_CHARS)} "
                           f"(see '{self.prog} --help')", MESSAGE_CHARS) + "\n")


def _needs_plugins(argv) -> bool:
    """Whether parsing ``argv`` needs the plugins' sub-commands: a command
    that is not one of :data:`CORE_COMMANDS`, or ``--help`` before any
    command (the list of all commands).  ``--version`` and the core's own
    commands, with their ``--help``, load no plugin (and so not the paper
    wing's modules)."""
    for arg in argv:
        if arg in ("-h", "--help"):
            return True
        if arg == "--version":
            return False
        if not arg.startswith("-"):
            return arg not in CORE_COMMANDS
    return False                   # no command: the usage line names none


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    """The argument parser of the ``polyrank`` command.

    Parameters
    ----------
    plugins : bool, default True
        Add the sub-commands of the plugins of :data:`COMMANDS_GROUP` (or,
        for the paper wing's commands, stand-ins that say what to install).
        False gives the core's commands only, without loading any plugin.

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = _Parser(
        prog="polyrank", allow_abbrev=False,
        description="Max-margin ranking: solvers, demos and benchmarks; training and "
                    "prediction on your own files.")
    parser.add_argument("--version", action="version", version=f"polyrank {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, show the full traceback instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    if plugins:
        _add_plugin_commands(sub)
    add_lab(sub)
    add_warmup(sub)
    add_train(sub)
    add_predict(sub)
    add_datasets(sub)
    for p in sub.choices.values():         # --debug after the command name, too
        if p.prefix_chars != "-":          # a stand-in of a missing plugin takes all
            continue
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="on an error, show the full traceback instead of one line")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``polyrank`` console script and ``python -m polyrank``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 on success; 2 for a user's mistake (a one-line
        message of at most :data:`MESSAGE_CHARS` characters on stderr: a bad
        option, a missing or malformed file, an unwritable path, an output
        that is one of the inputs); 141 when stdout is a pipe whose reader
        has gone (``polyrank reproduce --list | head``); 1 when ``reproduce --png`` could not
        write a PNG, or for an internal error (one line, asking for a
        report); 130 after Ctrl-C.  With ``--debug`` the traceback is shown
        as well.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(plugins=_needs_plugins(argv)).parse_args(argv)
    except SystemExit as exc:            # --help, --version, or a usage error
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    prog = f"polyrank {args.command}"
    try:
        if args.command in ("train", "predict"):
            with warnings_as_lines(prog, advice_options()):
                status = args.func(args)
        else:
            status = args.func(args)
        sys.stdout.flush()             # a closed pipe raises here, not at exit
        return status
    except UsageError as exc:
        return fail(args, f"{prog}: {_one_line(exc, MESSAGE_CHARS)}", 2)
    except KeyboardInterrupt:
        return fail(args, f"{prog}: interrupted", 130)
    except BrokenPipeError:            # `polyrank ... | head`: the reader left; say nothing
        silence_stdout()
        return 141                     # 128 + SIGPIPE, as a shell reports it
    except MemoryError as exc:
        return fail(args, f"{prog}: out of memory ({_one_line(exc, 120) or 'MemoryError'})", 1)
    except Exception as exc:           # a bug, not the user's mistake
        return fail(args, f"{prog}: internal error: {type(exc).__name__}: "
                           f"{_one_line(exc, 120)} (please report it; --debug shows the "
                           "traceback)", 1)

