"""What Codex's PostToolUse hook leaves out, read from its rollout: a command's exit code.

Codex 0.171.0 gives its PostToolUse hook the command and its output but not how it
ended; its rollout (the hook's ``transcript_path``) records the same call as an
``item_completed`` event with ``exit_code`` and ``duration``, keyed by the call id (the
hook's ``tool_use_id``). Only the rollout's tail is read, bounded, a few times for a
moment if the line is not written yet; a path that is not a regular ``.jsonl`` file is
not read at all (the hook's input is the agent's word).
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from typing import Any

TAIL_BYTES = 1024 * 1024
WAIT_S = 1.0
POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class CommandEnd:
    exit: int | None
    duration_ms: int | None
    output: str


def _tail(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b""
        start = max(0, info.st_size - TAIL_BYTES)
        return os.pread(fd, info.st_size - start, start)
    finally:
        os.close(fd)


def _find(data: bytes, call_id: str) -> CommandEnd | None:
    needle = json.dumps(call_id).encode()
    for raw in reversed(data.split(b"\n")):
        if needle not in raw or b"item_completed" not in raw:
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        item = ((line.get("payload") or {}) if isinstance(line, dict) else {}).get("item")
        if not isinstance(item, dict) or item.get("id") != call_id:
            continue
        code = item.get("exit_code")
        took = item.get("duration")
        duration = None
        if isinstance(took, dict):
            secs, nanos = took.get("secs"), took.get("nanos")
            if isinstance(secs, int) and isinstance(nanos, int):
                duration = secs * 1000 + nanos // 1_000_000
        output = item.get("aggregated_output")
        return CommandEnd(
            code if isinstance(code, int) and not isinstance(code, bool) else None,
            duration,
            output[-16384:] if isinstance(output, str) else "",
        )
    return None


def command_end(payload: dict[str, Any], *, wait: float = WAIT_S) -> CommandEnd | None:
    """How the call the hook reports ended, from the rollout it names; None if not found."""
    path, call_id = payload.get("transcript_path"), payload.get("tool_use_id")
    if not isinstance(path, str) or not path.endswith(".jsonl") or not isinstance(call_id, str):
        return None
    deadline = time.monotonic() + wait
    while True:
        try:
            found = _find(_tail(path), call_id)
        except OSError:
            return None
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(POLL_S)
