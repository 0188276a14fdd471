"""GitHub Copilot CLI's hook calls (recorded by `tether hook`) turned into observations.

Copilot's events have names of their own (``preCompact``, ``sessionStart``, ...)
and camelCase inputs (``sessionId``, ``transcriptPath``). What 1.0.102 sends,
seen in tests/fixtures/captures/cp102-hooks.jsonl:

* ``preCompact {"trigger": "manual"|"auto", "customInstructions"}``: a fold starts;
  no hook fires after it (the journal and the screen say it finished).
* ``sessionStart {"source": "new"|"resume", "initialPrompt"}``, lazily, at the first
  prompt of a session; ``sessionEnd {"reason": "user_exit"}`` on /exit and on /clear
  alike, so the wipe itself is the screen's and the journal's to report.
* ``userPromptSubmitted`` (a turn starts), ``agentStop`` (it ended).
"""

from __future__ import annotations

from typing import Any

from supervisor.recognize.observations import (
    AGENT_STATE,
    AUTO,
    COMPACTION_STARTED,
    HOOK,
    MANUAL,
    SESSION,
    Observation,
)

COPILOT_EVENTS = frozenset(
    {"preCompact", "sessionStart", "sessionEnd", "userPromptSubmitted", "agentStop"}
)


def observations_from_copilot_hook(
    event: str, payload: dict[str, Any], at: float
) -> list[Observation]:
    """One Copilot hook call -> what it tells about the agent."""
    channel = {"channel": event}
    session = {"session_id": payload["sessionId"]} if payload.get("sessionId") else {}
    if isinstance(payload.get("transcriptPath"), str):
        session["transcript_path"] = payload["transcriptPath"]
    if event == "preCompact":
        trigger = payload.get("trigger") if payload.get("trigger") in (MANUAL, AUTO) else None
        return [Observation(COMPACTION_STARTED, HOOK, at, trigger=trigger, details=channel)]
    if event == "sessionStart":
        return [Observation(SESSION, HOOK, at, details={**session, "start": payload.get("source")})]
    if event == "sessionEnd":
        return [Observation(SESSION, HOOK, at, details={**session, "end": payload.get("reason")})]
    if event == "userPromptSubmitted":
        return [Observation(AGENT_STATE, HOOK, at, details={"state": "busy", **channel})]
    if event == "agentStop":
        return [Observation(AGENT_STATE, HOOK, at, details={"state": "waiting", **channel})]
    return []
