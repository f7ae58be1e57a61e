"""Atomic file writes: every file polyrank writes goes through here.

A write that fails or is interrupted (a full disk, an exception in the
serialiser, Ctrl-C, a kill between two calls) must never leave a truncated
file where a good one was.  As pip and conda do, the new contents go to a
temporary file in the target's own directory (so the rename cannot cross a
file system), which is flushed and ``os.fsync``-ed and then moved over the
target with ``os.replace`` (atomic on POSIX and Windows): a reader sees the
old file or the new one, never a mixture.  On any failure, including
``KeyboardInterrupt``, the temporary file is removed and the old file is
left as it was.

- :func:`atomic_path`: a temporary path for writers that want a file name
  (skops, plotly); the file at it replaces the target when the block ends.
- :func:`atomic_open`: a file object (``csv.writer``, line by line output).
- :func:`write_text`, :func:`write_bytes`: a whole string or bytes object.

The target keeps its permission bits when it exists; a new file gets the
bits ``open`` would give it (``0o666`` less the umask).  A symbolic link
as target is followed: the file it points to is replaced, the link stays.

Only a regular file (or a new path) is replaced.  A target that is a
device (``/dev/null``, ``/dev/full``, a terminal), a named FIFO, a socket,
or a process's file descriptor (``/dev/stdout``, ``/dev/fd/N``,
``/proc/self/fd/N``: a pipe or whatever the shell opened) is opened and
written through, as ``open`` would: replacing it by a rename would turn
``/dev/null`` into a regular file for every other process, or leave a
FIFO's reader waiting forever.  Its ``write``, ``flush`` and ``close``
errors (``ENOSPC`` of ``/dev/full``, ``EPIPE``) are raised as ``OSError``;
``fsync``, which such files do not support (``EINVAL``), is skipped.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["atomic_path", "atomic_open", "write_text", "write_bytes", "same_file",
           "writes_through"]


def _umask() -> int:
    """The process's umask (read from /proc on Linux, where reading it does
    not change it; elsewhere set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(directory: Path) -> None:
    """fsync a directory so that a rename in it survives a crash (POSIX;
    a no-op where directories cannot be opened, e.g. Windows)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def writes_through(path) -> bool:
    """Whether a write to ``path`` goes through to the file as it is (True)
    rather than replacing it atomically (False): ``path`` exists and is not
    a regular file or a directory (a character or block device, a FIFO, a
    socket), or it names a file descriptor of a process (``/dev/stdout``,
    ``/dev/fd/N``, ``/proc/self/fd/N``).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    bool

    Examples
    --------
    >>> writes_through("/dev/stdout"), writes_through(__file__)
    (True, False)
    """
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
    except (OSError, ValueError):
        return False                                 # a new path (or a dangling link)
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return True
    parent = os.path.realpath(os.path.dirname(os.path.abspath(name)))
    fd_dirs = ("/proc", "/dev/fd")
    return any(parent == d or parent.startswith(d + "/") for d in fd_dirs) or (
        os.path.abspath(name) in ("/dev/stdout", "/dev/stderr"))


def _fsync_through(fh) -> None:
    """fsync ``fh``'s file, skipped where the file does not support it (a
    pipe, a FIFO, a terminal, ``/dev/null``: EINVAL, EROFS, ENOTSUP)."""
    try:
        os.fsync(fh.fileno())
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.EROFS, errno.ENOTSUP, errno.ENOTTY):
            raise


@contextmanager
def _open_through(path, mode: str, **kwargs) -> Iterator[IO]:
    """``open(path, mode)`` written through (see :func:`writes_through`):
    flushed, fsync-ed where supported and closed when the block ends; a
    ``write``/``flush``/``close`` error (ENOSPC) is raised with
    ``filename`` set to ``path``.  After an exception of the block the file
    is closed and the close's own error, if any, dropped."""
    try:
        fh = open(path, mode, **kwargs)
        ok = False
        try:
            yield fh
            fh.flush()
            _fsync_through(fh)
            ok = True
        finally:
            if ok:
                fh.close()
            else:
                with contextlib.suppress(OSError):
                    fh.close()
    except OSError as exc:
        if exc.filename is None:
            exc.filename = os.fspath(path)
        raise


@contextmanager
def _path_through(path) -> Iterator[Path]:
    """A temporary path (in the temporary directory, never beside a device)
    whose contents are written through to ``path`` when the block ends
    without an exception (:func:`atomic_path` for a non-regular target)."""
    fd, name = tempfile.mkstemp(prefix="polyrank-out.", suffix=Path(os.fspath(path)).suffix)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as src, _open_through(path, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


@contextmanager
def atomic_path(path) -> Iterator[Path]:
    """A temporary path in ``path``'s directory that replaces ``path`` when
    the ``with`` block ends without an exception.

    Parameters
    ----------
    path : str or path-like
        The file to (re)write.  Its directory must exist.

    Yields
    ------
    Path
        A new, empty file ``.NAME.XXXXXX.tmp.SUFFIX`` beside the target
        (the target's suffix kept last, for writers that look at it).
        Write it, by name, inside the block.

    Raises
    ------
    OSError
        The directory does not exist or cannot be written, or the target is
        a directory; nothing is changed then.
    BaseException
        Whatever the block raises (KeyboardInterrupt included) is raised
        again after the temporary file is removed; the target is untouched.

    Notes
    -----
    A target that is not a regular file (:func:`writes_through`: a device,
    a FIFO, ``/dev/stdout``) is not replaced: the temporary file is made in
    the temporary directory and its contents are written through to the
    target when the block ends (an ``OSError`` such as ENOSPC then names
    the target).
    """
    if writes_through(path):
        with _path_through(path) as tmp:
            yield tmp
        return
    target = Path(os.path.realpath(os.fspath(path)))
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                suffix=".tmp" + target.suffix)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)


@contextmanager
def atomic_open(path, mode: str = "w", **kwargs) -> Iterator[IO]:
    """``open(path, mode, **kwargs)`` that writes atomically (see
    :func:`atomic_path`): the file object writes a temporary file, which
    replaces ``path`` when the block ends without an exception.

    Parameters
    ----------
    path : str or path-like
    mode : {"w", "wt", "wb"}, default "w"
        A mode that writes a new file (ValueError for any other).
    **kwargs
        ``encoding``, ``newline`` ... as for :func:`open`.

    Raises
    ------
    ValueError
        Another ``mode`` (reading, appending, exclusive creation).
    OSError
        As :func:`atomic_path`.  A target that is not a regular file
        (:func:`writes_through`) is opened and written through; a
        ``write``/``flush``/``close`` error (ENOSPC of ``/dev/full``) is
        raised with ``filename`` the target.
    """
    if mode not in ("w", "wt", "wb"):
        raise ValueError(f"mode: expected 'w', 'wt' or 'wb', got {mode!r}")
    if writes_through(path):
        with _open_through(path, mode, **kwargs) as fh:
            yield fh
        return
    with atomic_path(path) as tmp:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()


def write_text(path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_path`);
    returns ``Path(path)``.

    Raises
    ------
    OSError
        As :func:`atomic_path`; the old file is then intact.
    """
    with atomic_open(path, "w", encoding=encoding, newline="") as fh:
        fh.write(text)
    return Path(path)


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`);
    returns ``Path(path)``.

    Raises
    ------
    OSError
        As :func:`atomic_path`; the old file is then intact.
    """
    with atomic_open(path, "wb") as fh:
        fh.write(data)
    return Path(path)


def same_file(a, b) -> bool:
    """Whether the paths ``a`` and ``b`` name the same existing file
    (``os.path.samefile``: through symbolic links and hard links); False
    when either does not exist.

    Examples
    --------
    >>> same_file(__file__, __file__), same_file(__file__, "/no/such/file")
    (True, False)
    """
    try:
        return os.path.samefile(os.fspath(a), os.fspath(b))
    except (OSError, ValueError):
        return False
