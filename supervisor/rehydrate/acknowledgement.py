"""Whether the agent acknowledged a payload: it wrote its rehydration summary.

The payload asks the agent to write a rehydration summary with ``tether note
phase``. An injection counts as acknowledged when the ``## Phase`` section of
notes.md differs from what it was when the payload was sent, or a ``note``
event lands in events.jsonl after the injection. Cheap enough for a timer:
notes.md and the tail of events.jsonl back to the injection, never the whole file.
"""

from __future__ import annotations

from typing import Any

from supervisor.errors import TetherError
from supervisor.store import fsio, notes
from supervisor.store.tether_dir import TetherDir
from supervisor.times import parse_time

BY_PHASE = "phase"
BY_NOTE_EVENT = "note event"


def live_phase(tether: TetherDir) -> str | None:
    """The ``## Phase`` text in notes.md now; None when notes.md cannot be read."""
    try:
        return notes.phase(tether.read_notes())
    except TetherError:
        return None


def note_event_since(tether: TetherDir, at_iso: str, marker: dict[str, Any] | None) -> bool:
    """A `note` event after the injection: read back from the end of events.jsonl.

    Order in the file decides, stopping at the injection's own event (``marker``):
    times are stamped to the millisecond, and a note in the same millisecond as the
    injection happened after it. Without that event, time decides.
    """
    since = parse_time(at_iso)
    for event in fsio.iter_jsonl_reversed(tether.events):
        if marker is not None:
            if event == marker:
                return False
        else:
            at = parse_time(event.get("at"))
            if at is None or since is None:
                continue
            if at <= since:
                return False
        if event.get("kind") == "note":
            return True
    return False


def acknowledged_by(
    tether: TetherDir, phase_before: str | None, at_iso: str, marker: dict[str, Any] | None
) -> str | None:
    """How the agent acknowledged the injection sent at ``at_iso`` (phase, note event), or None."""
    phase = live_phase(tether)
    if phase is not None and phase_before is not None and phase != phase_before:
        return BY_PHASE
    if note_event_since(tether, at_iso, marker):
        return BY_NOTE_EVENT
    return None
