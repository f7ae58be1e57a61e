"""``polyrank bench compare REV``: the asv suite of ``benchmarks/``, REV against HEAD.

A thin wrapper of airspeed velocity's ``asv continuous -f FACTOR REV HEAD --bench
REGEX``, run from the root of the source checkout (where ``asv.conf.json`` is): asv
builds both commits into its own environment (``.asv/env``), runs the selected
benchmarks of the working tree's suite on each, prints the comparison, and exits 1
when a benchmark got worse by more than FACTOR.  The habit (CONTRIBUTING.md): before a
change lands, compare it with main on the benchmarks it touches and put the table in
the commit body; a slowdown that stays is explained in the CHANGELOG.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["asv_continuous_command", "checkout_root", "run_compare"]


def checkout_root(start: Path | None = None) -> Path:
    """The root of the source checkout holding ``asv.conf.json``.

    Parameters
    ----------
    start : Path or None
        Where to look from (default: the current directory), then its parents.

    Returns
    -------
    Path

    Raises
    ------
    FileNotFoundError
        If no ``asv.conf.json`` is found in ``start`` or above (not a checkout).
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "asv.conf.json").is_file():
            return folder
    raise FileNotFoundError(f"no asv.conf.json in {here} or above: run `polyrank bench "
                            "compare` inside a polyrank source checkout")


def asv_continuous_command(rev: str, *, head: str = "HEAD", benches=(),
                           factor: float = 1.1) -> list[str]:
    """The ``asv continuous`` command line of :func:`run_compare`.

    Parameters
    ----------
    rev : str
        The base revision (a branch, tag or commit), e.g. ``"main"``.
    head : str, default "HEAD"
        The revision compared with it.
    benches : sequence of str
        Regular expressions of benchmark names (asv's ``--bench``; empty: all).
    factor : float, default 1.1
        A ratio above which a change is reported (asv's ``-f``), > 1.

    Returns
    -------
    list of str
        ``[python, "-m", "asv", "continuous", ...]``.

    Raises
    ------
    ValueError
        If ``rev`` or ``head`` is empty or starts with ``-``, or ``factor <= 1``.

    Examples
    --------
    >>> " ".join(asv_continuous_command("main", benches=["fit.RankSVM"])[3:])
    'continuous -f 1.1 --no-only-changed --sort ratio --show-stderr --bench fit.RankSVM main HEAD'
    """
    for name, value in (("rev", rev), ("head", head)):
        if not value or value.startswith("-"):
            raise ValueError(f"{name}: expected a revision, got {value!r}")
    if not factor > 1:
        raise ValueError(f"factor: expected a ratio > 1, got {factor!r}")
    # --no-only-changed: the table lists every benchmark run, for the commit body
    cmd = [sys.executable, "-m", "asv", "continuous", "-f", f"{factor:g}", "--no-only-changed",
           "--sort", "ratio", "--show-stderr"]
    for regex in benches:
        cmd += ["--bench", regex]
    return cmd + [rev, head]


def run_compare(rev: str, *, benches=(), factor: float = 1.1, head: str = "HEAD",
                root: Path | None = None) -> int:
    """Run ``asv continuous`` (:func:`asv_continuous_command`) in the checkout's root,
    its output streamed to this process's stdout and stderr; the table at its end lists
    every benchmark run (changed or not) with the ratio, for the commit body.

    Parameters
    ----------
    rev, benches, factor, head
        As :func:`asv_continuous_command`.
    root : Path or None
        The checkout (default :func:`checkout_root`).

    Returns
    -------
    int
        asv's exit status: 0, or 1 if a benchmark got worse by more than ``factor``
        (or failed).

    Raises
    ------
    FileNotFoundError
        Outside a checkout.
    ValueError
        As :func:`asv_continuous_command`.
    """
    cmd = asv_continuous_command(rev, head=head, benches=benches, factor=factor)
    root = checkout_root() if root is None else root
    if not (Path.home() / ".asv-machine.json").is_file():
        # asv asks about the machine on first use; take its defaults
        subprocess.run([sys.executable, "-m", "asv", "machine", "--yes"], cwd=root,
                       check=True, capture_output=True)
    print("$ " + " ".join(["asv", *cmd[3:]]) + f"    (in {root})", flush=True)
    return subprocess.run(cmd, cwd=root, check=False).returncode
