"""Whether the agent acknowledged one injection: its own recall check is on disk.

The payload asks the agent to restate the pinned decisions with `tether ack`,
which records a ``recall_check`` event naming the injection it answers
(:mod:`supervisor.rehydrate.recall_check`). That event, and only that one,
acknowledges the injection: whatever the agent wrote before it (the same phase
text as last time, an ack for the previous incident) does not. Cheap enough
for a timer: the tail of events.jsonl back to the injection, never the whole file.
"""

from __future__ import annotations

from typing import Any

from supervisor.rehydrate.recall_check import KIND
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir

BY_ACK = "tether ack"


def recall_event_of(
    tether: TetherDir, injection_at: str, marker: dict[str, Any]
) -> dict[str, Any] | None:
    """The recall check of the injection at ``injection_at``, read back from the end of
    events.jsonl down to the injection's own event (``marker``); None until there is one."""
    for event in fsio.iter_jsonl_reversed(tether.events):
        if event == marker:
            return None
        if event.get("kind") == KIND and event.get("injection_at") == injection_at:
            return event
    return None
