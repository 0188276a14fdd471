"""Hook events recorded by `tether hook` (events.jsonl lines) turned into observations.

Kept apart from :mod:`supervisor.agents.hook_command` so the hook process itself
imports nothing it does not need.
"""

from __future__ import annotations

from typing import Any

from supervisor.recognize.copilot_hook_events import (
    COPILOT_EVENTS,
    observations_from_copilot_hook,
)
from supervisor.recognize.gemini_hook_events import (
    GEMINI_EVENTS,
    observations_from_gemini_hook,
)
from supervisor.recognize.observations import (
    AGENT_STATE,
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_STARTED,
    HOOK,
    MANUAL,
    SCHEDULED_TRIGGERS,
    SESSION,
    WIPE,
    Observation,
)
from supervisor.recognize.transcripts import summary_text


def observations_from_hook(
    event: str, payload: dict[str, Any] | None, at: float
) -> list[Observation]:
    """One hook call -> what it tells about the agent (losses, session, state)."""
    payload = payload if isinstance(payload, dict) else {}
    if event in COPILOT_EVENTS:
        return observations_from_copilot_hook(event, payload, at)
    if event in GEMINI_EVENTS:
        return observations_from_gemini_hook(event, payload, at)
    channel = {"channel": event}
    session = {k: payload[k] for k in ("session_id", "transcript_path") if payload.get(k)}
    known = (MANUAL, AUTO, *SCHEDULED_TRIGGERS)
    trigger = payload.get("trigger") if payload.get("trigger") in known else None
    if event == "PreCompact":
        return [Observation(COMPACTION_STARTED, HOOK, at, trigger=trigger, details=channel)]
    if event == "PostCompact":
        raw = payload.get("compact_summary")
        summary = summary_text(raw) if isinstance(raw, str) and raw.strip() else None
        details = {**channel, **session}
        turn = payload.get("turn_id")  # Codex names the compaction's turn, as its rollout does
        if isinstance(turn, str) and turn:
            details["compaction_id"] = "turn:" + turn
        return [
            Observation(COMPACTION, HOOK, at, trigger=trigger, summary=summary, details=details)
        ]
    if event == "SessionStart":
        # Any other source (startup, resume, and fork in newer Claude Code) starts a session.
        source = payload.get("source")
        late = {AT_NEXT_TURN: True}
        if source == "compact":
            return [Observation(COMPACTION, HOOK, at, details={**channel, **session, **late})]
        if source == "clear":
            return [Observation(WIPE, HOOK, at, details={**channel, **session, **late})]
        return [Observation(SESSION, HOOK, at, details={**session, "start": source})]
    if event == "SessionEnd":
        if payload.get("reason") == "clear":
            return [Observation(WIPE, HOOK, at, details={**channel, **session})]
        return [Observation(SESSION, HOOK, at, details={**session, "end": payload.get("reason")})]
    if event == "UserPromptSubmit":
        return [Observation(AGENT_STATE, HOOK, at, details={"state": "busy", **channel})]
    if event in ("Stop", "Notification"):
        return [Observation(AGENT_STATE, HOOK, at, details={"state": "waiting", **channel})]
    return []


def observations_from_event(record: dict[str, Any], at: float) -> list[Observation]:
    """An events.jsonl line written by `tether hook` -> observations ([] for other lines)."""
    if record.get("kind") != "hook" or not isinstance(record.get("event"), str):
        return []
    return observations_from_hook(record["event"], record.get("payload"), at)
