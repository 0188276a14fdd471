"""Is the agent busy, waiting for input, or gone? Injection waits for "waiting".

Several sources report it, none perfectly: Codex's OSC 7501 state and Claude's
Stop / UserPromptSubmit hooks are explicit; the prompt cue on screen ("? for
shortcuts", "Ask Codex to do anything") and a busy cue ("esc to interrupt")
are visible; and a screen that keeps changing means work is going on. The
latest explicit report wins; "waiting" also needs the output to have been
quiet for ``quiet_after`` seconds, so text is never injected mid-redraw.

Idle output counts too: a working agent animates its spinner and timer every
second or faster, so output silent for ``idle_after`` seconds means it waits,
whatever a stale cue on screen last said (a resumed Claude Code was seen
leaving an old "esc to interrupt" row behind), and a plain command with no
cues at all can be rehydrated.
"""

from __future__ import annotations

import base64

from supervisor.recognize.observations import (
    AGENT_STATE,
    CLEAN_EXIT,
    CRASH,
    STREAM,
    Observation,
)

BUSY, WAITING, EXITED, UNKNOWN = "busy", "waiting", "exited", "unknown"

# Codex's OSC 7501 state -> tether's agent state
OSC7501_STATES = {
    "idle": WAITING,
    "done": WAITING,
    "blocked": WAITING,
    "working": BUSY,
    "clear": EXITED,
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


class StatusReports:
    """Codex's OSC 7501 state reports, read from the terminal's pre-filter.

    The pre-filter already takes every OSC out of the byte stream (and carries one
    split across reads); it keeps the last 7501 payload as the emulator's
    ``agent_status``. Reading that after each read costs nothing, where matching
    every read's bytes again would; a change of report is one observation. Only the
    last report of a read counts, which is the one that says what the agent does now.
    """

    def __init__(self, current: str = "") -> None:
        self._last = current

    def read(self, status: str, at: float) -> list[Observation]:
        if status == self._last:
            return []
        self._last = status
        fields = parse_osc7501(status)
        raw_state = fields.get("state", "")
        state = OSC7501_STATES.get(raw_state)
        if state is None:
            return []
        details = {"state": state, "raw_state": raw_state, "channel": "osc7501"}
        if fields.get("app"):
            details["app"] = fields["app"]
        if fields.get("msg"):
            details["message"] = fields["msg"]
        return [Observation(AGENT_STATE, STREAM, at, details=details)]


class AgentState:
    """Fold agent_state / exit observations and output times into one state."""

    def __init__(self, *, quiet_after: float = 0.4, idle_after: float = 3.0) -> None:
        self._quiet_after = quiet_after
        self._idle_after = idle_after
        self._reported = UNKNOWN
        self._reported_at = 0.0
        self._last_output = 0.0

    def note_output(self, now: float) -> None:
        self._last_output = now

    def observe(self, observation: Observation) -> None:
        if self._reported == EXITED:
            return
        if observation.kind in (CRASH, CLEAN_EXIT):
            self._reported, self._reported_at = EXITED, observation.at
        elif observation.kind == AGENT_STATE:
            state = observation.details.get("state")
            if state in (BUSY, WAITING, EXITED):
                self._reported, self._reported_at = state, observation.at

    def restart(self) -> None:
        """A new agent process was started (resume after a crash)."""
        self._reported, self._reported_at = UNKNOWN, 0.0
        self._last_output = 0.0  # the old process's silence says nothing about the new one

    def state(self, now: float) -> str:
        if self._reported == WAITING and now - self._last_output < self._quiet_after:
            return BUSY if self._last_output > self._reported_at + self._quiet_after else WAITING
        if self._idle(now):
            return WAITING
        return self._reported

    def _idle(self, now: float) -> bool:
        """Silent for idle_after seconds since output began (not before the first byte)."""
        return (
            self._reported != EXITED
            and self._last_output > 0
            and now - self._last_output >= self._idle_after
        )

    def ready_for_input(self, now: float) -> bool:
        """True when injected text would land in an idle prompt."""
        quiet = now - self._last_output >= self._quiet_after
        return (self._reported == WAITING and quiet) or self._idle(now)
