"""Claude Code's SessionStart hook answer: the rehydrate payload, before anyone presses a key.

Claude Code puts ``hookSpecificOutput.additionalContext`` into the model's
context (agent-markers.md 1.2 and its Addendum); ``tether hook SessionStart``
prints it after a compaction or a clear when the profile has ``auto_rehydrate``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from supervisor.rehydrate.payload import build_payload, latest_incident
from supervisor.store import checkpoints, notes, trust
from supervisor.store.tether_dir import TetherDir

AUTO_SOURCES = ("compact", "clear")
PROFILE_ENV = "TETHER_PROFILE"
DEFAULT_HOOK_PROFILE = "claude"


def session_start_answer(
    work_dir: str | os.PathLike[str],
    hook_input: dict[str, Any],
    *,
    profile_name: str | None = None,
) -> str | None:
    """The stdout of ``tether hook SessionStart`` after a compaction or a clear, or ``None``.

    Only when the profile (``$TETHER_PROFILE``, else "claude") has
    ``auto_rehydrate``, and never for a `.tether/` committed to git that the user
    has not said to trust (:mod:`supervisor.store.trust`); a checkpoint is taken
    first, as before every injection, and an ``auto_rehydrate`` event records what
    was sent, with the phase at that moment so the supervisor can watch for the
    agent's acknowledgement.
    """
    from supervisor.config.profiles import load_profile

    source = hook_input.get("source")
    if source not in AUTO_SOURCES:
        return None
    profile = load_profile(profile_name or os.environ.get(PROFILE_ENV) or DEFAULT_HOOK_PROFILE)
    if not profile.auto_rehydrate:
        return None
    tether = TetherDir.at(work_dir)
    untrusted = trust.warning(tether)
    if untrusted is not None:  # another person's notes: not pasted before the user says yes
        tether.record_event("auto_rehydrate_withheld", "hook", hook_source=source, why=untrusted)
        return None
    incident = latest_incident(tether)
    number = incident.get("number") if incident else None
    snapshot = checkpoints.take(tether, "before auto rehydration", incident=number)
    payload = build_payload(tether, profile, checkpoint=snapshot, incident=incident)
    tether.record_event(
        "auto_rehydrate",
        "hook",
        hook_source=source,
        session_id=hook_input.get("session_id"),
        profile=profile.name,
        incident=number,
        checkpoint=snapshot.seq,
        tokens=payload.tokens,
        exact=payload.exact,
        encoding=payload.encoding,
        dropped=len(payload.dropped),
        over_budget=payload.over_budget,
        phase_before=notes.phase(snapshot.notes),
    )
    answer = {"hookEventName": "SessionStart", "additionalContext": payload.text}
    return json.dumps({"hookSpecificOutput": answer}, ensure_ascii=False)
