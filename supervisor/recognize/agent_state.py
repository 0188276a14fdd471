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

A process that has only just started is another matter: a slow start is silent
too (a resumed Claude Code on a busy machine draws its first frame seconds after
its first bytes), and a paste before it reads its input is lost. So nothing is
"waiting" before the process has drawn its first frame, and for a profile that
has cues (``needs_cue``: a prompt marker, hooks or OSC 7501) silence counts only
after the process itself has once said that it waits.

Some agents draw their prompt before they take keys: a resumed Gemini CLI (0.61.0)
draws it at once, hides it while it loads the resumed session (``isResuming``), and
draws it again. For such a restart nothing is "waiting" before the caller saw the new
process load its session (``awaits_start``, :meth:`session_started`); the prompt on
screen then counts as it stands (the caller says whether it shows), later cues as usual.
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

    def __init__(
        self, *, quiet_after: float = 0.4, idle_after: float = 3.0, needs_cue: bool = False
    ) -> None:
        self._quiet_after = quiet_after
        self._idle_after = idle_after
        self._reported = UNKNOWN
        self._reported_at = 0.0
        self._last_output = 0.0
        self.needs_cue = needs_cue
        self.drawn = False  # the process has drawn its first frame
        self.cued = False  # the process itself has said once that it waits
        self.awaits_start = False  # cues wait until the new process has loaded its session

    @property
    def idle_after(self) -> float:
        return self._idle_after

    def note_output(self, now: float, *, drew: bool = True) -> None:
        """Output at ``now``; ``drew``: it changed the screen (not only a terminal query)."""
        self._last_output = now
        self.drawn = self.drawn or drew

    def observe(self, observation: Observation) -> None:
        if self._reported == EXITED:
            return
        if observation.kind in (CRASH, CLEAN_EXIT):
            self._reported, self._reported_at = EXITED, observation.at
        elif observation.kind == AGENT_STATE:
            state = observation.details.get("state")
            if self.awaits_start and state == WAITING:
                return  # a prompt drawn before the session started takes no keys yet
            if state in (BUSY, WAITING, EXITED):
                self._reported, self._reported_at = state, observation.at
                self.cued = self.cued or state == WAITING

    def restart(self, *, needs_cue: bool | None = None, awaits_start: bool = False) -> None:
        """A new agent process was started (resume after a crash): nothing the old one
        said or drew, nor its silence, says anything about the new one. ``awaits_start``:
        its cues count only once it has loaded its session (:meth:`session_started`)."""
        self._reported, self._reported_at = UNKNOWN, 0.0
        self._last_output = 0.0
        self.drawn = self.cued = False
        self.awaits_start = awaits_start
        if needs_cue is not None:
            self.needs_cue = needs_cue

    def session_started(self, at: float, *, prompt_shown: bool) -> None:
        """The new process was seen to load its session at ``at``; ``prompt_shown``: its
        prompt is on the screen now (it counts as a cue)."""
        if not self.awaits_start:
            return
        self.awaits_start = False
        if prompt_shown and self._reported != EXITED:
            self._reported, self._reported_at = WAITING, at
            self.cued = True

    @property
    def said_waiting(self) -> bool:
        """Whether the agent's last own word (a cue, a report) was that it waits for input:
        the user's typing, echoed, does not change it (a command typed at the prompt)."""
        return self._reported == WAITING and self.drawn

    def state(self, now: float) -> str:
        if self._reported == WAITING and not self.drawn:
            return UNKNOWN  # it cannot wait for input on a screen it has not drawn
        if self._reported == WAITING and now - self._last_output < self._quiet_after:
            return BUSY if self._last_output > self._reported_at + self._quiet_after else WAITING
        if self._idle(now):
            return WAITING
        return self._reported

    def _idle(self, now: float) -> bool:
        """Silent for idle_after seconds since the first frame (and, with cues, since the
        process first said it waits)."""
        return (
            self._reported != EXITED
            and self.drawn
            and not self.awaits_start
            and (self.cued or not self.needs_cue)
            and now - self._last_output >= self._idle_after
        )

    def ready_for_input(self, now: float) -> bool:
        """True when injected text would land in an idle prompt."""
        if not self.drawn:
            return False
        quiet = now - self._last_output >= self._quiet_after
        return (self._reported == WAITING and quiet) or self._idle(now)

    def waits_for(self) -> str:
        """What a new process has yet to show before silence may count: "first frame",
        "session start" (its session loaded), "cue" (its own sign that it waits) or "" (nothing:
        the usual rules apply)."""
        if not self.drawn:
            return "first frame"
        if self.awaits_start:
            return "session start"
        if self.needs_cue and not self.cued:
            return "cue"
        return ""
