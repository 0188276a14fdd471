"""Whether the turn that fires a SessionStart hook was started by tether's own recovery paste.

Codex fires ``SessionStart(compact|clear)`` only when the next turn starts, before
that turn's ``UserPromptSubmit``. When that turn's prompt is the payload F6 pasted,
answering the hook with the payload too would hand the model two copies in one
request (the prompt and a developer message). So the hook looks back from the end
of events.jsonl: a whole recovery ``injection`` (one that asked to restate every
pin: F6, F7's edited payload, a restart's) with no ``UserPromptSubmit``, ``Stop``
or SessionStart answer after it is this turn's prompt, and the hook answers with a
pointer to it instead. A re-send of missing decisions is no whole payload, and an
injection older than :data:`TURN_WINDOW` seconds is not this turn's.
"""

from __future__ import annotations

from typing import Any

from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from supervisor.times import parse_time

# Seconds from the paste to the hook's call that still make one turn: the submit key
# follows the paste within a second; the rest is the agent starting its turn under load.
TURN_WINDOW = 60.0
# A hook event after the paste that means the pasted prompt's turn already started or ended.
_TURN_HOOKS = frozenset({"UserPromptSubmit", "Stop"})
# The answers of earlier SessionStart calls: that turn was answered already.
ANSWERED_KINDS = frozenset({"auto_rehydrate", "auto_rehydrate_skipped"})


def recovery_starting_this_turn(tether: TetherDir, now: float) -> dict[str, Any] | None:
    """The ``injection`` event of the whole recovery payload that is this turn's prompt, or None."""
    for event in fsio.iter_jsonl_reversed(tether.events):
        when = parse_time(event.get("at"))
        if when is not None and now - when.timestamp() > TURN_WINDOW:
            return None
        kind = event.get("kind")
        if kind in ANSWERED_KINDS:
            return None
        if kind == "hook" and event.get("event") in _TURN_HOOKS:
            return None
        if kind == "injection" and event.get("restate") == "all":
            return event
    return None


def pointer(kind: str, incident: Any, injection: dict[str, Any]) -> str:
    """The one line the hook answers with instead of a second copy of the payload."""
    loss = "compaction" if kind == "compaction" else "context wipe"
    number = f" #{incident}" if isinstance(incident, int) else ""
    how = str(injection.get("reason") or "rehydrate")
    return (
        f"tether already sent the recovery for {loss}{number} as this turn's prompt "
        f"({how}): follow that prompt; it is not repeated here."
    )
