"""What tether repaired on disk since the last payload, for the next one to say.

A running supervisor rolls a wrong cursor within a quarter second and flags gaps
in the artifact indexes; the agent must still hear of it, so the next payload
lists those events (``invariant-fix``, ``artifacts-warning``) since the last
payload was sent.
"""

from __future__ import annotations

from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir

# Kinds of event that sent a payload: repairs before the last of them were told already
# (an injection with ``payload_by`` is a prompt to act on a payload that came another way).
_PAYLOAD_SENT = frozenset({"injection", "auto_rehydrate"})
_REPAIRS_SHOWN = 10


def repairs_since_last_payload(tether: TetherDir, *, look_back: int = 2000) -> list[str]:
    """Invariant repairs and artifact warnings recorded since the last payload, oldest first."""
    found: list[str] = []
    for seen, event in enumerate(fsio.iter_jsonl_reversed(tether.events)):
        kind = event.get("kind")
        if (kind in _PAYLOAD_SENT and not event.get("payload_by")) or seen >= look_back:
            break
        at = str(event.get("at", ""))[11:19]
        if kind == "invariant-fix":
            changes = event.get("changes") or [
                f"cursor {event.get('from_cursor')} → {event.get('to_cursor')}"
            ]
            said = "; ".join(str(change) for change in changes)
            found.append(f"{at}: {said} (was: {event.get('before') or event.get('message')})")
        elif kind == "artifacts-warning":
            found.append(f"{at}: {event.get('warning')}")
        if len(found) >= _REPAIRS_SHOWN:
            break
    return found[::-1]
