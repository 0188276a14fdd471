"""Tail the agents' own session files: Claude Code's session JSONL, Codex rollouts.

They are the second most trusted source (after hooks): Claude Code writes a
``compact_boundary`` entry (trigger, preTokens, postTokens) and the summary as
an ``isCompactSummary`` user message; Codex writes ``compacted`` entries with
the summary and ``token_count`` usage with the model's window.

The parsers are pure (record in, observations out), so tests feed them
directly; reading the files is :class:`supervisor.store.jsonl_tail.JsonlTail`'s
(the agents' :mod:`~supervisor.agents.transcript_follower` drives it). Entries
read from before the session started are *history*: they feed the meter but
never report a loss, so a resumed session's old compactions are not new
incidents.
"""

from __future__ import annotations

import re
from typing import Any

from supervisor.recognize.observations import (
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_FAILED,
    MANUAL,
    PRECOMPUTED,
    TRANSCRIPT,
    USAGE,
    WIPE,
    Observation,
)
from supervisor.times import epoch


def entry_time(record: dict[str, Any]) -> float | None:
    """The entry's own ``timestamp`` as epoch seconds, if it has one."""
    try:
        return epoch(record.get("timestamp"))
    except (OverflowError, ValueError, OSError):  # a time no clock reaches (year 1, +14:00)
        return None


def _identity(record: dict[str, Any], ident: Any, prefix: str = "uuid:") -> dict[str, Any]:
    """What names a compaction entry for fusion: its own time, and the id it shares with
    the other sightings of the same compaction (see :mod:`supervisor.recognize.fusion`)."""
    found: dict[str, Any] = {}
    entry_at = entry_time(record)
    if entry_at is not None:
        found["entry_at"] = entry_at
    if isinstance(ident, str) and ident:
        found["compaction_id"] = prefix + ident
    return found


def _dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one: an entry of any shape reads."""
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int:
    """A token count as the agent wrote it, 0 for anything that is not a count."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [block.get("text") for block in content if isinstance(block, dict)]
        return "\n".join(part for part in parts if isinstance(part, str) and part)
    return ""


WINDOW_ENTRIES = 400  # the folded window kept for the audit: its newest messages...
WINDOW_CHARS = 4000  # ...each cut to this...
WINDOW_TOTAL = 32_000  # ...and this many characters in all (the audit runs on the loop)


# The agent's own decisions: a line that starts with DECISION: (an echo inside a reply is not).
_DECISION_LINE = re.compile(r"^\s*(?:[-*>•●⏺❯›]\s*)?DECISION:")


_PASTE_TAGS = re.compile(r"</?pasted_content(?: [^>]*)?>")
_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    """A message as compared with what tether sent: paste tags gone, spaces collapsed."""
    return _SPACE.sub(" ", _PASTE_TAGS.sub("", text)).strip()


class OwnWords:
    """The texts tether itself sent the agent (payloads, recovery prompts, re-sends).

    They come back in the transcript as user messages; they are not the user's words,
    so they are not in the folded window whose specifics "dropped, not pinned" lists.
    Told by identity: the message is one of them (or holds one, or is held by one, as
    when the agent adds to a paste or shows part of it).
    """

    SHORTEST = 24  # a shorter message is matched only whole

    def __init__(self) -> None:
        self._texts: list[str] = []

    def add(self, text: str) -> None:
        plain = _plain(text)
        if plain and plain not in self._texts:
            self._texts.append(plain)
            del self._texts[:-50]

    def said(self, text: str) -> bool:
        plain = _plain(text)
        if not plain:
            return False
        for own in self._texts:
            if plain == own:
                return True
            if min(len(plain), len(own)) >= self.SHORTEST and (plain in own or own in plain):
                return True
        return False


class _Window:
    """What the conversation said since its last fold: the user's messages and the agent's
    DECISION lines, for the audit of what the next summary drops (bounded); never what
    tether itself sent (``own``)."""

    def __init__(self, own: OwnWords | None = None) -> None:
        self.texts: list[str] = []
        self.own = own

    def add(self, text: str) -> None:
        text = text.strip()
        if self.own is not None and self.own.said(text):
            return
        if text and not text.startswith("<") and not text.startswith("# AGENTS.md"):
            self.texts.append(text[:WINDOW_CHARS])
            del self.texts[:-WINDOW_ENTRIES]
            while len(self.texts) > 1 and sum(map(len, self.texts)) > WINDOW_TOTAL:
                del self.texts[0]

    def fold(self) -> tuple[str, ...]:
        folded, self.texts = tuple(self.texts), []
        return folded


# Claude Code's answer to a /compact it refused, in its local command's output
_REFUSED_COMPACT = re.compile(
    r"<local-command-std(?:err|out)>[^<]*(?:No messages|Not enough messages) to compact"
)

_SUMMARY_BLOCK = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.DOTALL)


def summary_text(text: str) -> str:
    """The summary proper: the ``<summary>`` block when there is one, else the text."""
    found = _SUMMARY_BLOCK.search(text)
    return found.group(1) if found else text.strip()


class ClaudeTranscript:
    """Claude Code session JSONL entries -> observations."""

    def __init__(self, own: OwnWords | None = None) -> None:
        self.session_id: str | None = None
        self.window = _Window(own)
        self._boundary: str | None = None  # the uuid of the last compact_boundary read

    def feed(
        self, record: dict[str, Any], now: float | None = None, *, history: bool = False
    ) -> list[Observation]:
        at = now if now is not None else (entry_time(record) or 0.0)
        session = record.get("sessionId")
        details: dict[str, Any] = {"session": session} if isinstance(session, str) else {}
        if isinstance(session, str):
            self.session_id = session
        kind = record.get("type")
        self._note_window(record)
        if kind == "assistant" and not record.get("isSidechain"):
            usage = _dict(record.get("message")).get("usage")
            if isinstance(usage, dict):
                used = sum(
                    _count(usage.get(key))
                    for key in (
                        "input_tokens",
                        "cache_creation_input_tokens",
                        "cache_read_input_tokens",
                    )
                )
                usage_details = {**details, "used": used, **_identity(record, None)}
                return [Observation(USAGE, TRANSCRIPT, at, details=usage_details)]
            return []
        if history:
            return []
        if kind == "system" and record.get("subtype") == "compact_boundary":
            meta = _dict(record.get("compactMetadata"))
            trigger = meta.get("trigger") if meta.get("trigger") in (MANUAL, AUTO) else None
            if trigger == AUTO and meta.get("precomputed") is True:
                # 2.1.332 marks a fold that swapped in a summary written in the background
                # (while the user was away); its hooks say only "auto".
                trigger = PRECOMPUTED
            extra = {
                "pre_tokens": _count(meta.get("preTokens")) or None,
                "post_tokens": _count(meta.get("postTokens")) or None,
                "channel": "compact_boundary",
                **_identity(record, record.get("uuid")),
            }
            self._boundary = record.get("uuid") if isinstance(record.get("uuid"), str) else None
            return [
                Observation(
                    COMPACTION, TRANSCRIPT, at, trigger=trigger, details={**details, **extra}
                )
            ]
        if kind == "user" and record.get("isCompactSummary"):
            text = _text_of(_dict(record.get("message")).get("content"))
            return [
                Observation(
                    COMPACTION,
                    TRANSCRIPT,
                    at,
                    summary=summary_text(text) or None,
                    details={
                        **details,
                        "channel": "compact_summary",
                        # the boundary before it in the file (2.1.332 puts attachments
                        # between the two, so its parentUuid is not always the boundary)
                        **_identity(record, self._boundary),
                    },
                    folded=self.window.fold(),
                )
            ]
        if kind in ("user", "system"):
            text = _text_of(_dict(record.get("message")).get("content")) or _text_of(
                record.get("content")
            )
            if _REFUSED_COMPACT.search(text):
                refused = {**details, "channel": "local_command", "said": text.strip()[:200]}
                return [Observation(COMPACTION_FAILED, TRANSCRIPT, at, details=refused)]
        if kind == "user":
            text = _text_of(_dict(record.get("message")).get("content"))
            if "<command-name>/clear</command-name>" in text:
                extra = {"channel": "clear", **_identity(record, record.get("uuid"))}
                return [Observation(WIPE, TRANSCRIPT, at, details={**details, **extra})]
        return []

    def _note_window(self, record: dict[str, Any]) -> None:
        if record.get("isSidechain") or record.get("isMeta") or record.get("isCompactSummary"):
            return
        content = _dict(record.get("message")).get("content")
        if record.get("type") == "user":
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                return
            self.window.add(_text_of(content))
        elif record.get("type") == "assistant":
            for line in _text_of(content).splitlines():
                if _DECISION_LINE.match(line):
                    self.window.add(line)


_CODEX_PREFACE = re.compile(r"^Another language model started.*?analysis:\s*", re.DOTALL)


class CodexRollout:
    """Codex rollout entries -> observations.

    The trigger of a compaction is not written in the entry itself. In Codex
    0.171.0 a ``/compact`` runs as its own turn whose ``task_started`` has no
    ``turn_attribution``, while an automatic one runs inside a user turn
    (``turn_trigger: "user"``) before its model request; that is the rule used.

    A ``session_meta`` entry with another session id than the one followed so far
    is a wipe: after ``/clear`` (or ``/new``) Codex starts a new rollout file for
    a new session when the next prompt is submitted.
    """

    def __init__(self, own: OwnWords | None = None) -> None:
        self.window: int | None = None
        self.session_id: str | None = None
        self._turn_by_user = False
        self._turn_id: str | None = None  # the turn the entries belong to (task_started)
        self.said = _Window(own)  # the folded window (``window`` is the context size)

    def feed(
        self, record: dict[str, Any], now: float | None = None, *, history: bool = False
    ) -> list[Observation]:
        at = now if now is not None else (entry_time(record) or 0.0)
        payload = _dict(record.get("payload"))
        kind = record.get("type")
        if kind == "session_meta":
            return self._session(payload, at, history)
        if kind == "response_item" and payload.get("type") == "message":
            if payload.get("role") == "user":
                self.said.add(_text_of(payload.get("content")))
            elif payload.get("role") == "assistant":
                for line in _text_of(payload.get("content")).splitlines():
                    if _DECISION_LINE.match(line):
                        self.said.add(line)
        if kind == "event_msg":
            sub = payload.get("type")
            if sub == "task_started":
                turn = payload.get("turn_id")
                self._turn_id = turn if isinstance(turn, str) and turn else None
                attribution = _dict(payload.get("turn_attribution"))
                self._turn_by_user = attribution.get("turn_trigger") == "user"
                if _count(payload.get("model_context_window")):
                    self.window = payload["model_context_window"]
            elif sub == "token_count":
                info = _dict(payload.get("info"))
                if _count(info.get("model_context_window")):
                    self.window = info["model_context_window"]
                last = _dict(info.get("last_token_usage"))
                if isinstance(last.get("input_tokens"), int) and not isinstance(
                    last.get("input_tokens"), bool
                ):
                    details = {"used": last["input_tokens"], "window": self.window}
                    details.update(_identity(record, None))  # when the agent counted it
                    return [Observation(USAGE, TRANSCRIPT, at, details=details)]
            elif sub == "context_compacted" and not history:
                return [self._compaction(at, "context_compacted", record=record)]
            return []
        if kind == "compacted" and not history:
            message = payload.get("message")
            summary = _CODEX_PREFACE.sub("", message).strip() if isinstance(message, str) else None
            return [self._compaction(at, "compacted", summary or None, record)]
        return []

    def _compaction(
        self, at: float, channel: str, summary: str | None = None, record: dict | None = None
    ) -> Observation:
        """One compaction; the entry with the summary also hands over the window it folded.
        Named by its turn, as Codex's PostCompact hook names it."""
        trigger, details = self._trigger(), {"channel": channel}
        details.update(_identity(record or {}, self._turn_id, "turn:"))
        folded = self.said.fold() if summary else ()
        return Observation(
            COMPACTION,
            TRANSCRIPT,
            at,
            trigger=trigger,
            summary=summary,
            details=details,
            folded=folded,
        )

    def _trigger(self) -> str:
        return AUTO if self._turn_by_user else MANUAL

    def _session(self, payload: dict[str, Any], at: float, history: bool) -> list[Observation]:
        session = payload.get("id") or payload.get("session_id")
        if not isinstance(session, str) or not session:
            return []
        sub_agent = isinstance(payload.get("source"), dict)
        if sub_agent or payload.get("thread_source", "user") != "user":
            return []  # a sub-agent's thread: the user's conversation goes on
        previous, self.session_id = self.session_id, session
        if history or previous is None or previous == session:
            return []
        # written when the first prompt after /clear is submitted, however late: it joins
        # the wipe already seen (the typed /clear), as Codex's SessionStart(clear) does
        details = {
            "channel": "new_session",
            "session": session,
            "previous_session": previous,
            AT_NEXT_TURN: True,
        }
        return [Observation(WIPE, TRANSCRIPT, at, details=details)]
