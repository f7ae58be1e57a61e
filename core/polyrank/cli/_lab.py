"""``polyrank lab [NOTEBOOK]``: JupyterLab on the tour (or NOTEBOOK) in a
working copy of the repository's notebooks.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ._errors import UsageError, user_errors

__all__ = ["TOUR", "WIDGETS_INSTALL", "add_lab"]

#: how to install the widgets floor and JupyterLab (``polyrank-widgets``)
WIDGETS_INSTALL = ("pip install polyrank-widgets (from a clone: "
                   "pip install -e dists/polyrank-widgets)")


#: the notebook ``polyrank lab`` opens when none is given (in a clone of the repository)
TOUR = Path("notebooks") / "00_tour.ipynb"


def _repo_notebooks() -> Path | None:
    """The repository's ``notebooks/``: in the current folder (a clone), else
    beside the installed package (an editable install of a clone); None."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        if (root / TOUR).is_file():
            return (root / TOUR).parent.resolve()
    return None


def _lab_target(notebook: str | None, workdir: str | None) -> tuple[Path, Path, str]:
    """(folder to copy or None, JupyterLab's root folder, notebook path in it)
    of ``polyrank lab [NOTEBOOK]``: a notebook of the repository opens in the
    working copy ``workdir``, any other notebook where it is."""
    from .._workcopy import default_workdir

    repo = _repo_notebooks()
    if not notebook:
        if repo is None:
            raise UsageError(f"no {TOUR} in {Path.cwd()}: run `polyrank lab` from a clone of "
                             "the repository, or give a notebook: polyrank lab PATH.ipynb")
        path = repo / TOUR.name
    else:
        path = Path(notebook).expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"notebook {notebook!r} not found")
    if repo is not None and repo in path.parents:
        work = Path(workdir).expanduser() if workdir else default_workdir()
        return repo, work.resolve(), path.relative_to(repo).as_posix()
    return None, path.parent, path.name                    # type: ignore[return-value]


def _lab_command(notebook: str | None, port: int | None,
                 workdir: str | None = None) -> list[str]:
    """The JupyterLab command line of ``polyrank lab``: its root the working
    copy (or the folder of a notebook outside the repository), its URL the
    notebook itself (UsageError when the notebook or JupyterLab is missing)."""
    import importlib.util
    from urllib.parse import quote

    _, root, rel = _lab_target(notebook, workdir)
    if importlib.util.find_spec("jupyterlab") is None:
        raise UsageError(f"JupyterLab is not installed: {WIDGETS_INSTALL}")
    # default_url: the URL JupyterLab prints (and opens) is the notebook's,
    # not the Launcher's
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}",
           f"--LabApp.default_url=/lab/tree/{quote(rel)}"]
    if port is not None:
        cmd.append(f"--port={port}")
    # JupyterLab refuses to start as root (a container's default user) without it
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def _cmd_lab(args) -> int:
    import shlex
    import subprocess

    from .._workcopy import sync_working_copy

    cmd = _lab_command(args.notebook, args.port, args.workdir)
    if args.print_command:
        print(shlex.join(cmd))
        return 0
    source, root, _ = _lab_target(args.notebook, args.workdir)
    if source is not None:
        with user_errors("--workdir", str(root)):
            report = sync_working_copy(source, root)
        print(f"polyrank lab: {report.summary()}", file=sys.stderr)
    return subprocess.call(cmd)


def add_lab(sub) -> None:
    """Add ``polyrank lab [NOTEBOOK]`` (:func:`_cmd_lab`) to ``sub``."""
    p = sub.add_parser(
        "lab", help="open the tour (or NOTEBOOK) in JupyterLab, in a working copy",
        description="Start JupyterLab on the tour, notebooks/00_tour.ipynb (from a clone of "
                    "the repository), or on NOTEBOOK, with the options it needs here (as "
                    "root, a container's default user: --allow-root). The repository's "
                    "notebooks open in a working copy (--workdir) that this command keeps up "
                    "to date without overwriting the files you changed, so running them "
                    "leaves the repository as it is; the URL JupyterLab prints opens the "
                    "notebook. Needs polyrank-widgets.")
    p.add_argument("notebook", nargs="?", metavar="NOTEBOOK",
                   help=f"the notebook to open (default {TOUR})")
    p.add_argument("--port", type=int, default=None, help="port of the server (default 8888 "
                   "or the next free one)")
    p.add_argument("--workdir", default=None, metavar="DIR",
                   help="the working copy of the repository's notebooks (default "
                        "$POLYRANK_LAB_DIR or ~/polyrank-notebooks; created if missing)")
    p.add_argument("--print-command", action="store_true",
                   help="print the JupyterLab command line instead of running it (the "
                        "working copy is not touched)")
    p.set_defaults(func=_cmd_lab)
