"""Following a growing JSONL file by offset: events.jsonl, the agents' transcripts.

Reading is incremental and bounded: :class:`JsonlTail` remembers its offset,
reads only new bytes (at most :data:`READ_LIMIT` a poll), keeps a torn last line
for the next read, starts over when the file was replaced or truncated, and on
first opening an existing file starts at its end (optionally backing up a
window, returned as history, to pick up the latest usage).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TAIL_WINDOW = 256 * 1024
READ_LIMIT = 4 * 1024 * 1024  # per poll, so one huge burst cannot stall the loop
LINE_LIMIT = 8 * 1024 * 1024  # a "line" longer than this is dropped, not buffered forever


class JsonlBuffer:
    """Bytes in, complete JSON objects out; a partial last line waits for the rest.

    The partial line is kept as the pieces it arrived in and joined once, when its
    newline comes: a long line arriving a little at a time costs its length, not its
    length times the number of pieces.
    """

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._partial_size = 0
        self._dropping = False  # inside a line over LINE_LIMIT: skip to its end
        self.bad_lines = 0

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        cut = data.rfind(b"\n")
        if cut < 0:
            self._keep(data)
            return []
        first = data.find(b"\n")
        head, body, rest = data[:first], data[first + 1 : cut], data[cut + 1 :]
        lines: list[bytes] = []
        if self._dropping:
            self._dropping = False
        elif self._partial_size + len(head) > LINE_LIMIT:
            self.bad_lines += 1
        else:
            self._pieces.append(head)
            lines.append(b"".join(self._pieces))
        self._pieces, self._partial_size = [], 0
        if first < cut:
            lines.extend(body.split(b"\n"))
        self._keep(rest)
        records = []
        for line in lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                self.bad_lines += 1
                continue
            if isinstance(record, dict):
                records.append(record)
        return records

    def _keep(self, piece: bytes) -> None:
        """The start (or more) of a line whose end has not arrived yet."""
        if self._dropping or not piece:
            return
        self._pieces.append(piece)
        self._partial_size += len(piece)
        if self._partial_size > LINE_LIMIT:
            self._pieces, self._partial_size, self._dropping = [], 0, True
            self.bad_lines += 1


class JsonlTail:
    """Follow one growing JSONL file by offset.

    ``start``: "end" (only what is appended from now on), "tail" (also the last
    :data:`TAIL_WINDOW` bytes, returned as history), or a byte offset.
    """

    def __init__(self, path: Path, *, start: str | int = "end") -> None:
        self.path = Path(path)
        self._buffer = JsonlBuffer()
        self._history_until = 0
        self._inode: int | None = None
        #: Why the path cannot be followed (a folder, a named pipe...), None while it can.
        self.refused: str | None = None
        try:
            info = self.path.stat()
            size = info.st_size if stat.S_ISREG(info.st_mode) else 0
            self._inode = info.st_ino
        except (OSError, ValueError):  # missing, unreachable, or a name with a NUL in it
            size = 0
        if start == "end":
            self.offset = size
        elif start == "tail":
            self.offset = max(0, size - TAIL_WINDOW)
            self._history_until = size
        else:
            self.offset = int(start)
        self._skip_partial = start == "tail" and self.offset > 0

    def poll(self) -> Iterator[tuple[dict[str, Any], bool]]:
        """New records since the last poll, each with ``history`` (read from before start).

        Only a regular file is read: the path is opened without blocking (a named pipe
        would wait for a writer for ever) and what was opened is checked; anything
        else is :attr:`refused`, named, and yields nothing.
        """
        data = self._read_new()
        if data is None:
            return
        start = self.offset
        self.offset += len(data)
        if self._skip_partial:
            cut = data.find(b"\n")
            if cut == -1:
                return
            data, self._skip_partial = data[cut + 1 :], False
        history = start < self._history_until
        for record in self._buffer.feed(data):
            yield record, history

    def _read_new(self) -> bytes | None:
        """The bytes appended since the last read (at most READ_LIMIT), None if unreadable."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            self.refused = getattr(error, "strerror", None) or str(error)
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                self.refused = _kind(info.st_mode)
                return None
            self.refused = None
            if (self._inode is not None and info.st_ino != self._inode) or (
                info.st_size < self.offset
            ):
                self.offset, self._buffer, self._history_until = 0, JsonlBuffer(), 0
            self._inode = info.st_ino
            want = min(READ_LIMIT, max(0, info.st_size - self.offset))
            return os.pread(fd, want, self.offset) if want else b""
        except OSError as error:
            self.refused = error.strerror or "unreadable"
            return None
        finally:
            os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe, not a file"
    return "not a regular file"
