"""Following a growing JSONL file by offset: events.jsonl, the agents' transcripts.

Reading is incremental and bounded: :class:`JsonlTail` remembers its offset,
reads only new bytes (at most :data:`READ_LIMIT` a poll), keeps a torn last line
for the next read, starts over when the file was replaced or truncated, and on
first opening an existing file starts at its end (optionally backing up a
window, returned as history, to pick up the latest usage).
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from supervisor.store.appended import AppendedBytes

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
        self._file = AppendedBytes(self.path)
        self._buffer = JsonlBuffer()
        self._history_until = 0
        try:
            info = self.path.stat()
            size = info.st_size if stat.S_ISREG(info.st_mode) else 0
            self._file.inode = info.st_ino
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

    @property
    def offset(self) -> int:
        """How far the file was read."""
        return self._file.offset

    @offset.setter
    def offset(self, value: int) -> None:
        self._file.offset = value

    @property
    def refused(self) -> str | None:
        """Why the path cannot be followed (a folder, a named pipe...), None while it can."""
        return self._file.refused

    def poll(self) -> Iterator[tuple[dict[str, Any], bool]]:
        """New records since the last poll, each with ``history`` (read from before start).

        Only a regular file is read: the path is opened without blocking (a named pipe
        would wait for a writer for ever) and what was opened is checked; anything
        else is :attr:`refused`, named, and yields nothing.
        """
        data, restarted = self._file.read(READ_LIMIT)
        if data is None:
            return
        if restarted:
            self._buffer, self._history_until = JsonlBuffer(), 0
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
