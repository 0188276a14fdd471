"""Is a SessionStart(startup) a new conversation inside the same agent process (Codex's /new)?

Codex 0.171.0 reports ``/new`` as SessionStart with source ``startup`` and a new
session id, when the next prompt is submitted: to the agent it is a wipe, as
``/clear`` is. The hook process tells it from a real start by what tether recorded
in this run: an earlier SessionStart of another session, with no agent exit or
restart since, after the running supervisor took the folder's lock. It reads
events.jsonl backwards, a bounded number of lines, and imports nothing heavy.
"""

from __future__ import annotations

from typing import Any

from supervisor.store import fsio
from supervisor.store import lock as supervisor_lock
from supervisor.store.tether_dir import TetherDir

SCAN_LIMIT = 5000  # events looked at, newest first; the last SessionStart is near the end
_ENDS = ("agent_exit", "agent_restart")


def started_anew(tether: TetherDir, hook_input: dict[str, Any]) -> bool:
    """True for a ``startup`` SessionStart of a new session in the agent already running."""
    session = hook_input.get("session_id")
    if hook_input.get("source") != "startup" or not isinstance(session, str):
        return False
    state, info = supervisor_lock.inspect(tether)
    if state != "held" or info is None or not info.started_at:
        return False  # no supervisor: nothing says which agent process this is
    own_record_seen = False
    for seen, event in enumerate(fsio.iter_jsonl_reversed(tether.events)):
        if seen >= SCAN_LIMIT or str(event.get("at", "")) < info.started_at:
            return False
        if event.get("kind") in _ENDS:
            return False
        if event.get("kind") != "hook" or event.get("event") != "SessionStart":
            continue
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        if not own_record_seen and payload.get("session_id") == session:
            own_record_seen = True  # `tether hook` recorded this very call first
            continue
        earlier = payload.get("session_id")
        return isinstance(earlier, str) and earlier != session
    return False
