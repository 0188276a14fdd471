"""The hook's stdin, read within bounds: the agent's JSON, whatever the agent (or a
person at a shell) connected instead.

A hook runs on the agent's critical path, so the read never outlasts
:data:`DEADLINE_S` (a pipe left open and silent), never counts more than
:data:`COUNT_LIMIT` bytes (``/dev/zero``), keeps at most ``limit`` + 1 of them, and
a closed stdin or a terminal is a fact to record, not an exception. Imports only
``os`` and ``select``: the fast path of `tether hook` reads with it.
"""

from __future__ import annotations

import os
import select

from supervisor.agents.hook_client import STDIN_LIMIT

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~8 ms)
if TYPE_CHECKING:
    from typing import BinaryIO

# Claude Code writes the hook's JSON at once and closes the pipe; a stdin still open this
# long after the hook started is not going to bring it (the hook's answer is due in 10 s).
DEADLINE_S = 3.0
# Bytes past the limit are read and counted (so the agent's write does not fail) up to this.
COUNT_LIMIT = 64 * 1024 * 1024
_CHUNK = 1 << 16


class StdinRead:
    """What a hook's stdin gave: its first bytes, how many there were, and what went wrong."""

    __slots__ = ("data", "total", "why")

    def __init__(self, data: bytes, total: int, why: str | None = None) -> None:
        self.data = data  # at most limit + 1 bytes
        self.total = total  # bytes read in all
        self.why = why  # None when stdin ended in time


def read_stdin(
    stream: BinaryIO | None, limit: int = STDIN_LIMIT, deadline_s: float = DEADLINE_S
) -> StdinRead:
    """Read ``stream`` to its end, within the bounds (see the module)."""
    if stream is None:
        return StdinRead(b"", 0, "no stdin (closed)")
    try:
        if stream.isatty():
            return StdinRead(b"", 0, "no stdin (a terminal)")
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # an in-memory stream (the hook server's)
        return _read_stream(stream, limit)
    return _read_fd(fd, limit, deadline_s)


def _read_fd(fd: int, limit: int, deadline_s: float) -> StdinRead:
    import time

    deadline = time.monotonic() + deadline_s
    ready = select.poll()
    ready.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    chunks: list[bytes] = []
    kept = total = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not ready.poll(max(1, int(left * 1000))):
            return StdinRead(b"".join(chunks), total, f"stdin still open after {deadline_s:g} s")
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            continue
        except OSError as error:
            return StdinRead(b"".join(chunks), total, f"cannot read stdin: {error.strerror}")
        if not chunk:
            return StdinRead(b"".join(chunks), total)
        total += len(chunk)
        if kept <= limit:
            chunks.append(chunk[: limit + 1 - kept])
            kept += len(chunks[-1])
        if total >= COUNT_LIMIT:
            return StdinRead(b"".join(chunks), total, f"stdin not read past {total} bytes")


def _read_stream(stream: BinaryIO, limit: int) -> StdinRead:
    try:
        data = stream.read(limit + 1) or b""
        total = len(data)
        while total < COUNT_LIMIT and (chunk := stream.read(_CHUNK)):
            total += len(chunk)
    except (OSError, ValueError) as problem:
        return StdinRead(b"", 0, f"cannot read stdin: {problem}")
    return StdinRead(data, total)
