"""Whether the agent acknowledged one injection: its own recall check is on disk.

The payload asks the agent to restate the pinned decisions with `tether ack`,
which records a ``recall_check`` event naming the injection it answers
(:mod:`supervisor.rehydrate.recall_check`). That event, and only that one,
acknowledges the injection: whatever the agent wrote before it (the same phase
text as last time, an ack for the previous incident) does not. Cheap enough
for a timer: the tail of events.jsonl back to the injection, never the whole file.
After the profile's ``recall_timeout`` without an ack, the check is recorded as
``none`` here too, so every recovery has its one check.
"""

from __future__ import annotations

from typing import Any

from supervisor.rehydrate.recall_check import KIND, Recovery, record_none
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir

BY_ACK = "tether ack"


def read_acknowledgement(
    tether: TetherDir,
    sent_event: dict[str, Any],
    *,
    overdue: bool,
    source: str = "supervisor",
    pins: list[str] | None = None,
) -> dict[str, Any] | None:
    """The recall check of the injection whose event is ``sent_event``; when ``overdue``
    (no ack within the profile's timeout) and there is none, the ``none`` it records
    (``pins``: the live pins as the supervisor parsed them; None: read from notes.md).

    File I/O only: the app calls it on a worker thread. Raises TetherError when the
    ``none`` cannot be written.
    """
    recovery = Recovery.of(sent_event)
    if recovery is None:
        return None
    event = recall_event_of(tether, recovery.at, sent_event)
    if event is None and overdue:
        event = record_none(tether, recovery, source=source, live=pins)
    return event


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
