"""Gemini CLI's own hook events (recorded by `tether hook`) turned into observations.

Its ``SessionStart`` (startup|resume|clear), ``SessionEnd`` (reason clear on /clear) and
``Notification`` are Claude Code's names and meanings, read by :mod:`.hook_events`. Its
own: ``PreCompress`` (trigger manual|auto; a compression starts, nothing fires after it),
``BeforeAgent`` (a prompt was submitted), ``AfterAgent`` (the turn ended).
"""

from __future__ import annotations

from typing import Any

from supervisor.recognize.observations import (
    AGENT_STATE,
    AUTO,
    COMPACTION_STARTED,
    HOOK,
    MANUAL,
    Observation,
)

GEMINI_EVENTS = frozenset({"PreCompress", "BeforeAgent", "AfterAgent"})


def observations_from_gemini_hook(
    event: str, payload: dict[str, Any], at: float
) -> list[Observation]:
    channel = {"channel": event}
    if event == "PreCompress":
        trigger = payload.get("trigger") if payload.get("trigger") in (MANUAL, AUTO) else None
        return [Observation(COMPACTION_STARTED, HOOK, at, trigger=trigger, details=channel)]
    if event == "BeforeAgent":
        return [Observation(AGENT_STATE, HOOK, at, details={"state": "busy", **channel})]
    if event == "AfterAgent":
        return [Observation(AGENT_STATE, HOOK, at, details={"state": "waiting", **channel})]
    return []
