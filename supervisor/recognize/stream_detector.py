"""Markers in the raw byte stream that never stay on the screen.

Codex reports its state out of band (``ESC ] 7501 ; state=working:app=codex
ESC \\``), and the emulator's pre-filter swallows OSC strings, so these must be
read from the bytes before the emulator sees them. A sequence split across
reads is carried over (bounded, so garbage cannot grow the buffer).
"""

from __future__ import annotations

import base64
import re

from supervisor.recognize.observations import AGENT_STATE, STREAM, Observation

_OSC7501 = re.compile(rb"\x1b\]7501;([^\x07\x1b]{0,512})(?:\x07|\x1b\\)")
_CARRY_LIMIT = 600

# OSC 7501 state -> tether's agent state
STATE_MAP = {
    "idle": "waiting",
    "done": "waiting",
    "blocked": "waiting",
    "working": "busy",
    "clear": "exited",
}


def parse_osc7501(body: str) -> dict[str, str]:
    """``state=idle:app=codex:msg=<b64>`` -> a dict, base64 fields decoded where they decode."""
    fields: dict[str, str] = {}
    for part in body.split(":"):
        key, _, value = part.partition("=")
        if not key:
            continue
        if key in ("msg", "title") and value:
            try:
                value = base64.b64decode(value, validate=True).decode("utf-8", "replace")
            except ValueError:
                pass
        fields[key] = value
    return fields


class StreamDetector:
    """Feed every chunk of agent output, in order; get agent-state observations back."""

    def __init__(self) -> None:
        self._carry = b""

    def feed(self, data: bytes, now: float) -> list[Observation]:
        buffer = self._carry + data
        observations = []
        end = 0
        for match in _OSC7501.finditer(buffer):
            end = match.end()
            fields = parse_osc7501(match.group(1).decode("utf-8", "replace"))
            raw_state = fields.get("state", "")
            state = STATE_MAP.get(raw_state)
            if state is None:
                continue
            details = {"state": state, "raw_state": raw_state, "channel": "osc7501"}
            if fields.get("app"):
                details["app"] = fields["app"]
            if fields.get("msg"):
                details["message"] = fields["msg"]
            observations.append(Observation(AGENT_STATE, STREAM, now, details=details))
        rest = buffer[end:]
        start = rest.rfind(b"\x1b]7501;")
        if start == -1 and rest.endswith((b"\x1b", b"\x1b]", b"\x1b]7", b"\x1b]75", b"\x1b]750")):
            start = rest.rfind(b"\x1b")
        self._carry = rest[start:][-_CARRY_LIMIT:] if start != -1 else b""
        return observations
