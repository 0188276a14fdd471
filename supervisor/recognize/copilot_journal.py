"""GitHub Copilot CLI's event journal, ``~/.copilot/session-state/<id>/events.jsonl``.

Copilot (1.0.102) writes one typed event a line, ``{"type", "data", "id",
"timestamp", "parentId"}``. A fold is ``session.compaction_start`` (trigger
``manual`` or ``threshold``, the tokens, the model's limit) then
``session.compaction_complete`` (``summaryContent``, the messages removed, the
same ``compactionAttemptId``): the second most trusted source after the hooks,
and the only one with the summary, so the loss audit reads it here. Usage comes
as ``session.usage_record`` (the request's input tokens).

An interactive ``/clear`` writes nothing here: the old journal ends with
``session.shutdown`` and a new session's journal starts at the next prompt, so
a ``session.start`` of another session than the one followed is a wipe that
Copilot reports only at the next turn (:data:`AT_NEXT_TURN`). ``session.resume``
(``copilot --continue``) keeps the session. ``session.context_cleared`` exists
in Copilot's schema for an SDK host's clear; it is taken as a wipe too.
"""

from __future__ import annotations

from typing import Any

from supervisor.recognize.observations import (
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_STARTED,
    MANUAL,
    TRANSCRIPT,
    USAGE,
    WIPE,
    Observation,
)
from supervisor.recognize.transcripts import WINDOW_CHARS, WINDOW_ENTRIES, WINDOW_TOTAL
from supervisor.times import epoch

# Copilot's trigger words -> tether's.
_TRIGGERS = {"manual": MANUAL, "threshold": AUTO, "auto": AUTO}
_ID_PREFIX = "copilot:"


class CopilotJournal:
    """Copilot CLI journal entries -> observations (pure: record in, observations out)."""

    def __init__(self, started_at: float = 0.0) -> None:
        # Entries written before this (the run's start) are history, whatever part of the
        # file they are read from: `copilot --continue` appends to the journal it resumes.
        self.started_at = started_at
        self.session_id: str | None = None
        self.window: int | None = None  # the model's token limit, once a fold names it
        self._said: list[str] = []  # the user's messages since the last fold, for the audit

    def feed(
        self, record: dict[str, Any], now: float | None = None, *, history: bool = False
    ) -> list[Observation]:
        raw = record.get("data")
        data: dict[str, Any] = raw if isinstance(raw, dict) else {}
        kind = record.get("type")
        entry_at = epoch(record.get("timestamp"))
        at = now if now is not None else (entry_at or 0.0)
        history = history or (entry_at is not None and entry_at < self.started_at)
        identity: dict[str, Any] = {"entry_at": entry_at} if entry_at is not None else {}
        if kind == "session.start":
            return self._session(data, at, history)
        if kind == "user.message":
            self._note(data.get("content"))
            return []
        if kind == "session.usage_record":
            found = data.get("usage")
            usage: dict[str, Any] = found if isinstance(found, dict) else {}
            used = usage.get("inputTokens")
            if isinstance(used, int) and usage.get("initiator") != "agent":
                details = {"used": used, "window": self.window, **identity}
                return [Observation(USAGE, TRANSCRIPT, at, details=details)]
            return []
        if kind == "session.compaction_start":
            if isinstance(data.get("tokenLimit"), int):
                self.window = data["tokenLimit"]
            if history:
                return []
            details = {"channel": kind, "current_tokens": data.get("currentTokens"), **identity}
            details.update(self._attempt(data))
            trigger = _TRIGGERS.get(str(data.get("trigger")))
            return [
                Observation(COMPACTION_STARTED, TRANSCRIPT, at, trigger=trigger, details=details)
            ]
        if kind == "session.compaction_complete":
            if history or data.get("success") is False:
                return []
            summary = data.get("summaryContent")
            details = {
                "channel": kind,
                "pre_tokens": data.get("preCompactionTokens"),
                "post_tokens": data.get("postCompactionTokens"),
                "messages_removed": data.get("messagesRemoved"),
                **identity,
                **self._attempt(data),
            }
            if isinstance(data.get("checkpointPath"), str):
                details["checkpoint_path"] = data["checkpointPath"]
            if isinstance(data.get("customInstructions"), str) and data["customInstructions"]:
                details["focus"] = data["customInstructions"]
            folded, self._said = tuple(self._said), []
            return [
                Observation(
                    COMPACTION,
                    TRANSCRIPT,
                    at,
                    trigger=_TRIGGERS.get(str(data.get("trigger"))),
                    summary=summary.strip()
                    if isinstance(summary, str) and summary.strip()
                    else None,
                    details=details,
                    folded=folded,
                )
            ]
        if kind == "session.context_cleared" and not history:
            self._said = []
            return [Observation(WIPE, TRANSCRIPT, at, details={"channel": kind, **identity})]
        return []

    def _session(self, data: dict[str, Any], at: float, history: bool) -> list[Observation]:
        session = data.get("sessionId")
        if not isinstance(session, str) or not session:
            return []
        previous, self.session_id = self.session_id, session
        if history or previous is None or previous == session:
            return []
        self._said = []
        details = {
            "channel": "new_session",
            "session": session,
            "previous_session": previous,
            AT_NEXT_TURN: True,
        }
        return [Observation(WIPE, TRANSCRIPT, at, details=details)]

    def _note(self, content: Any) -> None:
        text = content.strip() if isinstance(content, str) else ""
        if not text or text.startswith("<"):
            return
        self._said.append(text[:WINDOW_CHARS])
        del self._said[:-WINDOW_ENTRIES]
        while len(self._said) > 1 and sum(map(len, self._said)) > WINDOW_TOTAL:
            del self._said[0]

    @staticmethod
    def _attempt(data: dict[str, Any]) -> dict[str, Any]:
        """The id both journal entries of one fold share, for fusion."""
        attempt = data.get("compactionAttemptId")
        return {"compaction_id": _ID_PREFIX + attempt} if isinstance(attempt, str) else {}
