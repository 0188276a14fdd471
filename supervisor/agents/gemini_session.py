"""Whether a resumed Gemini CLI has loaded the session it resumes, read from its session file.

Gemini CLI 0.61.0 draws its prompt before it loads a session it resumes and takes no keys
while it loads it. Loading appends ``{"$set":{"sessionId":"…"}}`` to the session file
(``ChatRecordingService.initialize`` with resumed data); nothing else writes that line
alone. The fresh start before it appends its own metadata line (a ``sessionId`` with
``startTime``), to the very same file when the restart falls in the minute the session
began (the file's name is that minute and the session id): a time or size alone cannot
tell the two apart, the line can.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

READ_LIMIT = 1 << 20  # bytes read per poll at most; the rest comes at the next one


def is_load_mark(line: bytes) -> bool:
    """Whether ``line`` is the record a resumed session's loading appends."""
    try:
        record = json.loads(line)
    except ValueError:
        return False
    if not isinstance(record, dict) or list(record) != ["$set"]:
        return False
    update = record["$set"]
    return isinstance(update, dict) and list(update) == ["sessionId"]


class SessionLoadWatch:
    """Follows one session file from its size at the first poll (called off the event loop)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset: int | None = None
        self._partial = b""
        self.loaded = False

    def poll(self) -> bool:
        """Whether a load mark was appended since the first poll."""
        if self.loaded:
            return True
        try:
            size = os.stat(self.path).st_size
        except OSError:
            size = 0
        if self._offset is None or size < self._offset:  # the first look, or rewritten
            self._offset, self._partial = size, b""
            return False
        if size == self._offset:
            return False
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read(min(size - self._offset, READ_LIMIT))
        except OSError:
            return False
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        self.loaded = any(is_load_mark(line) for line in lines)
        return self.loaded
