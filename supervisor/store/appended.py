"""The bytes appended to a followed file since the last read, read safely.

The one read both tails share (:class:`~supervisor.store.jsonl_tail.JsonlTail` for
JSONL, :class:`~supervisor.store.line_tail.LineTail` for text): the path is opened
without blocking (a named pipe would wait for a writer for ever), only a regular file is
read, at most a given number of bytes a read, and a file replaced (another inode) or
truncated is read again from its start.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class AppendedBytes:
    """Where one file was read to, and what was appended to it since."""

    def __init__(self, path: Path, *, follow_symlink: bool = True) -> None:
        """``follow_symlink``: False for a file in tether's own folder (a symlink is refused)."""
        self.path = path
        self._flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
        if not follow_symlink:
            self._flags |= os.O_NOFOLLOW
        self.offset = 0
        self.inode: int | None = None
        #: Why the path cannot be followed (a folder, a named pipe...), None while it can.
        self.refused: str | None = None

    def read(self, limit: int) -> tuple[bytes | None, bool]:
        """The bytes appended since :attr:`offset` (at most ``limit``; None if unreadable),
        and whether the file started over (then :attr:`offset` is 0 and the bytes are its
        start). The caller moves :attr:`offset` past what it took."""
        try:
            fd = os.open(self.path, self._flags)
        except FileNotFoundError:
            return None, False
        except (OSError, ValueError) as error:  # refused, or a name with a NUL in it
            self.refused = getattr(error, "strerror", None) or str(error)
            return None, False
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                self.refused = _kind(info.st_mode)
                return None, False
            self.refused = None
            replaced = self.inode is not None and info.st_ino != self.inode
            restarted = replaced or info.st_size < self.offset  # rotated or truncated
            if restarted:
                self.offset = 0
            self.inode = info.st_ino
            want = min(limit, max(0, info.st_size - self.offset))
            return (os.pread(fd, want, self.offset) if want else b""), restarted
        except OSError as error:
            self.refused = error.strerror or "unreadable"
            return None, False
        finally:
            os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe, not a file"
    return "not a regular file"
