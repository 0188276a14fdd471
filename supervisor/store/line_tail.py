"""Following a growing text file by lines: aider's chat history and its LLM history.

Like :class:`~supervisor.store.jsonl_tail.JsonlTail`, but for text: it remembers its
offset, reads only new bytes (at most :data:`READ_LIMIT` a poll), keeps a torn last line
for the next read, starts over when the file was replaced (another inode) or truncated,
and opens an existing file at its end (what is there was written before this run). A
line longer than :data:`LINE_LIMIT` is cut to that length (its rest skipped), so a
runaway line is never buffered whole. Bytes that are not UTF-8 are replaced; what the
lines hold is the caller's to clean before showing it.
"""

from __future__ import annotations

import stat
from pathlib import Path

from supervisor.store.appended import AppendedBytes

READ_LIMIT = 1024 * 1024  # per poll (about 0.15 s of parsing), so a burst cannot stall the tick
LINE_LIMIT = 256 * 1024  # a longer line is cut here


class LineTail:
    """New complete lines of one text file, without their line ends."""

    def __init__(
        self, path: Path, *, from_start: bool = False, follow_symlink: bool = True
    ) -> None:
        """``from_start``: read what the file holds already (a file this run created);
        ``follow_symlink``: False for a file in tether's own folder (a symlink is refused)."""
        self.path = Path(path)
        self._file = AppendedBytes(self.path, follow_symlink=follow_symlink)
        self._partial = bytearray()
        self._cutting = False  # inside a line over LINE_LIMIT: skip to its end
        self.caught_up = True  # the last poll read to the file's end, with no torn line left
        if from_start:
            return
        try:
            info = self.path.stat(follow_symlinks=follow_symlink)
        except (OSError, ValueError):  # missing yet: everything it will hold is new
            return
        if stat.S_ISREG(info.st_mode):
            self._file.offset, self._file.inode = info.st_size, info.st_ino

    @property
    def offset(self) -> int:
        """How far the file was read."""
        return self._file.offset

    @property
    def refused(self) -> str | None:
        """Why the path cannot be followed, None while it can."""
        return self._file.refused

    def poll(self) -> list[str]:
        """The lines completed since the last poll (reads the file)."""
        data, restarted = self._file.read(READ_LIMIT)
        if restarted:
            self._partial, self._cutting = bytearray(), False
        if not data:
            self.caught_up = not self._partial
            return []
        self._file.offset += len(data)
        self.caught_up = len(data) < READ_LIMIT and data.endswith(b"\n")
        lines: list[str] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._keep(data[start:])
                return lines
            self._keep(data[start:end])
            lines.append(self._partial.decode("utf-8", "replace").rstrip("\r"))
            self._partial, self._cutting = bytearray(), False
            start = end + 1

    def _keep(self, piece: bytes) -> None:
        room = LINE_LIMIT - len(self._partial)
        if self._cutting or room <= 0:
            self._cutting = True
            return
        self._partial += piece[:room]
        if len(piece) > room:
            self._cutting = True
