"""The working copy of the notebooks that ``polyrank lab`` opens (issue 41, item 4).

Running a notebook in JupyterLab rewrites it (autosave stores new outputs and
widget views, drops the stored pictures), so ``polyrank lab`` never opens the
repository's ``notebooks/``: it keeps a copy in a folder of the user's
(default ``~/polyrank-notebooks``) and opens that.  The repository's
notebooks stay as committed, with their pictures (the documentation renders
them).

A manifest in the copy (``.polyrank-lab.json``) records the SHA-256 of each
file as it was last copied.  :func:`sync_working_copy` then, per file of the
source folder:

- copies it when the copy is missing;
- replaces the copy when the copy is unchanged since it was last copied and
  the source changed (a newer version of the repository);
- keeps the copy otherwise (edited, or run, by the user: never overwritten
  silently; the report names it, and says when the repository holds a newer
  version).

Every file is written atomically (:mod:`polyrank._files`), the manifest last.
The folder keeps the source's layout, so the notebooks' relative links (to
each other, to ``figures/``) work from the copy; the data they read come
from the installed package (:mod:`polyrank.datasets`).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ._files import write_bytes, write_text

__all__ = ["MANIFEST", "SyncReport", "sync_working_copy", "default_workdir", "source_files"]

#: the manifest of a working copy: the SHA-256 of each file as last copied
MANIFEST = ".polyrank-lab.json"
#: files of ``notebooks/`` that belong to the tests, not to a reader
_SKIP_FILES = {"conftest.py", "__init__.py", "sanitize.cfg"}


def default_workdir() -> Path:
    """``$POLYRANK_LAB_DIR``, else ``~/polyrank-notebooks``."""
    env = os.environ.get("POLYRANK_LAB_DIR")
    return Path(env).expanduser() if env else Path.home() / "polyrank-notebooks"


def source_files(source: Path) -> list[str]:
    """The files of ``source`` a working copy holds (POSIX paths relative to
    it, sorted): every file but hidden ones, caches and the test machinery
    (``conftest.py``, ``__init__.py``, ``sanitize.cfg``)."""
    out = []
    for path in sorted(Path(source).rglob("*")):
        rel = path.relative_to(source)
        if not path.is_file() or any(p.startswith(".") or p == "__pycache__"
                                     for p in rel.parts):
            continue
        if rel.name in _SKIP_FILES or rel.suffix == ".pyc":
            continue
        out.append(rel.as_posix())
    return out


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


@dataclass
class SyncReport:
    """What :func:`sync_working_copy` did, file by file (relative paths).

    Attributes
    ----------
    workdir : Path
        The working copy.
    copied : list of str
        Missing in the copy: copied.
    updated : list of str
        Unchanged in the copy since it was last copied, changed in the
        source: replaced by the source's version.
    current : list of str
        The same as the source already.
    kept : list of str
        Changed in the copy since it was copied (or not copied by polyrank):
        left as they are.
    kept_newer : list of str
        Those of ``kept`` whose source changed too (a newer version the copy
        does not get: remove the copy's file to get it).
    """

    workdir: Path
    copied: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    kept_newer: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """A few lines for the terminal: what was copied, kept, and why."""
        n = len(self.copied) + len(self.updated) + len(self.current) + len(self.kept)
        lines = [f"working copy of the notebooks: {self.workdir} ({n} files; the "
                 "repository's notebooks are never opened, so running them leaves "
                 "the repository unchanged)"]
        for what, names in (("copied", self.copied), ("updated from the repository",
                                                     self.updated)):
            if names:
                lines.append(f"  {what}: {', '.join(names)}")
        edited = [p for p in self.kept if p not in self.kept_newer]
        if edited:
            lines.append(f"  kept (changed since they were copied): {', '.join(edited)}")
        if self.kept_newer:
            lines.append(f"  kept although the repository has a newer version (remove "
                         f"your copy to get it): {', '.join(self.kept_newer)}")
        return "\n".join(lines)


def _read_manifest(workdir: Path) -> dict:
    try:
        data = json.loads((workdir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {k: v for k, v in files.items() if isinstance(v, str)} \
        if isinstance(files, dict) else {}


def sync_working_copy(source, workdir) -> SyncReport:
    """Bring the working copy ``workdir`` of the folder ``source`` up to date
    without overwriting a file the user changed.

    Parameters
    ----------
    source : str or path-like
        The folder to copy (the repository's ``notebooks/``).
    workdir : str or path-like
        The working copy; created (with its parents) if missing.

    Returns
    -------
    SyncReport
        What was copied, updated, found current or kept.

    Raises
    ------
    ValueError
        If ``source`` is not a folder, or ``workdir`` is ``source`` or lies
        inside it.
    OSError
        If a file cannot be read or written.

    Examples
    --------
    >>> import tempfile
    >>> src, dst = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp()) / "copy"
    >>> _ = (src / "a.ipynb").write_text("{}")
    >>> sync_working_copy(src, dst).copied
    ['a.ipynb']
    >>> sync_working_copy(src, dst).current
    ['a.ipynb']
    """
    source, workdir = Path(source).resolve(), Path(workdir).expanduser().resolve()
    if not source.is_dir():
        raise ValueError(f"source: {str(source)!r} is not a folder")
    if workdir == source or source in workdir.parents:
        raise ValueError(f"workdir: {str(workdir)!r} must lie outside {str(source)!r}")
    workdir.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(workdir)
    report = SyncReport(workdir)
    for rel in source_files(source):
        src_sha, dst_sha = _sha(source / rel), _sha(workdir / rel)
        last = manifest.get(rel)
        if dst_sha == src_sha:
            report.current.append(rel)
        elif dst_sha is None or dst_sha == last:
            (workdir / rel).parent.mkdir(parents=True, exist_ok=True)
            write_bytes(workdir / rel, (source / rel).read_bytes())
            (report.copied if dst_sha is None else report.updated).append(rel)
        else:
            report.kept.append(rel)
            if last is not None and src_sha != last:
                report.kept_newer.append(rel)
                continue                  # the manifest keeps the version copied
        manifest[rel] = src_sha
    write_text(workdir / MANIFEST, json.dumps(
        {"source": str(source), "files": dict(sorted(manifest.items()))}, indent=1) + "\n")
    return report
