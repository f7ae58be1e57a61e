"""Reading a user's data file once (issue 44, item 1).

A data file is opened once and read once, as a stream, whatever it is: a
regular file, a named FIFO, a pipe (``<(sed ... file)``, ``/dev/fd/N``) or
standard input.  Nothing reopens it by name: the error messages are made
from what was read (the line number and the text of the line at fault).

- :func:`open_input`: one ``open`` of the file; a gzip, bzip2 or xz file
  (told by its first bytes, not its name) is read through the standard
  library's decompressor.
- :class:`Lines`: the lines of such a stream, each at most a given length
  (:data:`polyrank.io.MAX_LINE_BYTES`) and free of NUL bytes, else a
  :class:`InputError` naming the file and the line; a damaged or truncated
  compressed file is an :class:`InputError` naming the line it ends in.

Standard library only.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["InputError", "Lines", "open_input", "compression"]

#: the first bytes of the compressed formats read: (magic, name)
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"),
          (b"BZh", "bzip2"))
#: bzip2's block and end-of-stream magic after "BZh" and the level digit
_BZ2_BLOCKS = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")


class InputError(ValueError):
    """A data file refused while it was read: the message is complete (file,
    line, reason), so readers raise it again unchanged."""


def compression(head: bytes) -> str | None:
    """The compression of a file whose first bytes are ``head`` (at least
    10 when the file has them): ``"gzip"``, ``"bzip2"``, ``"xz"`` or None.

    Examples
    --------
    >>> compression(gzip.compress(b"1 1:2")), compression(b"1 qid:1 1:0.5")
    ('gzip', None)
    """
    for magic, name in _MAGIC:
        if head.startswith(magic):
            if name != "bzip2":
                return name
            if head[3:4].isdigit() and head[4:10] in _BZ2_BLOCKS:
                return name
    return None


class _Prefixed(io.RawIOBase):
    """A raw stream: the bytes ``head`` already read, then the rest of ``raw``."""

    def __init__(self, head: bytes, raw) -> None:
        super().__init__()
        self._head, self._raw = head, raw

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._raw.readinto(b)


def _read_head(raw, n: int) -> bytes:
    """The first ``n`` bytes of ``raw`` (fewer at its end), read once."""
    head = b""
    while len(head) < n:
        chunk = raw.read(n - len(head))
        if not chunk:
            break
        head += chunk
    return head


_DECOMPRESS: dict[str, Callable[[Any], Any]] = {
    "gzip": lambda s: gzip.GzipFile(fileobj=s, mode="rb"),
    "bzip2": lambda s: bz2.BZ2File(s, mode="rb"),
    "xz": lambda s: lzma.LZMAFile(s, mode="rb")}


@contextmanager
def open_input(path) -> Iterator[tuple[Any, str | None]]:
    """Open ``path`` once for reading: ``(binary stream, compression)``.

    The stream yields the file's bytes, decompressed when the first bytes
    are those of a gzip, bzip2 or xz file (:func:`compression`).  It is
    read forward only, so a FIFO or a pipe works as a regular file does.

    Raises
    ------
    OSError
        The file cannot be opened or read.
    """
    raw = open(path, "rb", buffering=0)
    try:
        head = _read_head(raw, 10)
        kind = compression(head)
        stream: Any = io.BufferedReader(_Prefixed(head, raw), 1 << 16)
        if kind is not None:
            stream = _DECOMPRESS[kind](stream)
        yield stream, kind
    finally:
        raw.close()


class Lines:
    """The lines of a stream from :func:`open_input`, checked as they are read.

    Iterating yields each line (bytes, or str for a text stream) with its
    line end.  ``number`` is the number of the last line yielded (1-based,
    counted from ``line_base() + 1``) and ``last`` its text, so a reader that
    fails on a line can name and quote it without reading the file again.

    Parameters
    ----------
    stream : binary or text file object
    path : str
        The file's name, for messages.
    refusal : str
        What a refused line makes the file, e.g. ``"not an SVMlight/LIBSVM
        file"``.
    compressed : str or None
        The compression (:func:`compression`): decompression errors are
        then a damaged or truncated file.
    max_line : int
        The longest line accepted (bytes, or characters of a text stream;
        the line end not counted).
    line_base : callable, optional
        The number of lines before the stream's first (a byte range of a
        file); called only for a message.

    Raises
    ------
    InputError
        While iterating: a line longer than ``max_line``, a NUL byte, or a
        compressed file that is damaged or ends early.
    """

    def __init__(self, stream, path: str, refusal: str, compressed: str | None,
                 max_line: int, line_base: Callable[[], int] | None = None):
        self.stream, self.path, self.refusal, self.compressed = stream, path, refusal, compressed
        self.max_line = int(max_line)
        self.line_base = line_base
        self.number, self.last = 0, None

    def base(self) -> int:
        """The number of the file's lines before the stream's first."""
        return 0 if self.line_base is None else self.line_base()

    def where(self, number: int) -> str:
        """``"PATH, line N"`` for line ``number`` of the stream."""
        return f"{self.path}, line {self.base() + number}"

    def _damaged(self, exc: BaseException) -> InputError:
        return InputError(f"{self.where(self.number + 1)}: damaged or truncated "
                          f"{self.compressed} file ({type(exc).__name__}: {exc})"[:400])

    def _readline(self, cap: int):
        try:
            return self.stream.readline(cap + 1)
        except (EOFError, zlib.error, lzma.LZMAError) as exc:
            raise self._damaged(exc) from exc
        except OSError as exc:       # gzip.BadGzipFile, bz2's "Invalid data stream"
            if self.compressed is None or exc.errno is not None:
                raise
            raise self._damaged(exc) from exc

    def __iter__(self):
        cap = self.max_line
        text = isinstance(self.stream, io.TextIOBase)
        nul, ends = ("\0", ("\n", "\r")) if text else (b"\0", (b"\n",))
        readline = self._readline
        while True:
            line = readline(cap)
            if not line:
                return
            self.number += 1
            if len(line) > cap and line[-1:] not in ends:
                raise InputError(f"{self.where(self.number)}: {self.refusal} (a line longer "
                                 f"than {cap:,} {'characters' if text else 'bytes'}, the "
                                 "limit polyrank.io.MAX_LINE_BYTES)")
            if nul in line:
                raise InputError(f"{self.where(self.number)}: {self.refusal} (a NUL byte at "
                                 f"character {line.index(nul) + 1})")
            self.last = line
            yield line
