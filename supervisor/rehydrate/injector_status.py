"""What the banner shows of the injector: the state of the last payload, in words.

Apart from :mod:`.injector` so that the words stay in one small place; the injector
re-exports the class and its states.
"""

from __future__ import annotations

from dataclasses import dataclass

from supervisor.rehydrate.recall_check import RecallCheck

SENT = "sent"
QUEUED = "queued"
IDLE = "idle"
UNACKNOWLEDGED = "unacknowledged"
ACKNOWLEDGED = "acknowledged"
# How a payload made elsewhere (the SessionStart hook's) is on its way to the model.
_STAGE_WORDS = {
    "held": ", held for its next prompt",
    "prompted": ", then tether's prompt to take it",
}


@dataclass(frozen=True, slots=True)
class InjectorStatus:
    """What the banner shows: ``state`` is idle, queued, sent, unacknowledged or acknowledged."""

    state: str
    reason: str = ""
    seconds: float = 0.0  # how long the state has lasted
    queued: int = 0
    incident: int | str | None = None
    why: str = ""  # queued: why it waits, from the supervisor (busy, a typed line...)
    recall: RecallCheck | None = None  # the recall check of the last send, once recorded
    stage: str = ""  # a payload made elsewhere: "held" for the agent's next prompt, "prompted"

    def describe(self) -> str:
        if self.state == QUEUED:
            if self.why:
                return f"Payload queued: {self.why}"
            return "Payload queued: the agent is busy; it goes in when the agent waits for input"
        if self.recall is not None:
            return self.recall.describe()
        if self.state == SENT and self.reason == "auto_rehydrate":
            how = _STAGE_WORDS.get(self.stage, "")
            return (
                f"Payload given by the agent's SessionStart hook {self.seconds:.0f} s ago{how}; "
                "waiting for the agent's `tether ack`"
            )
        if self.state == SENT:
            return f"Payload sent {self.seconds:.0f} s ago; waiting for the agent's `tether ack`"
        if self.state == UNACKNOWLEDGED:
            return f"Payload not acknowledged after {self.seconds:.0f} s: no `tether ack` yet"
        if self.state == ACKNOWLEDGED:
            return "Payload acknowledged with `tether ack`"
        return ""
