"""Tail the agents' own session files: Claude Code's session JSONL, Codex rollouts.

They are the second most trusted source (after hooks): Claude Code writes a
``compact_boundary`` entry (trigger, preTokens, postTokens) and the summary as
an ``isCompactSummary`` user message; Codex writes ``compacted`` entries with
the summary and ``token_count`` usage with the model's window.

Reading is incremental and bounded: :class:`JsonlTail` remembers its offset,
reads only new bytes, keeps a torn last line for the next read, and on first
opening an existing file starts at its end (optionally backing up a window to
pick up the latest usage). Entries read from before the session started are
*history*: they feed the meter but never report a loss, so a resumed session's
old compactions are not new incidents. The parsers are pure (record in,
observations out) so tests feed them directly; the app drives a tail from a
watchdog notification or a timer.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from supervisor.recognize.observations import (
    AUTO,
    COMPACTION,
    MANUAL,
    TRANSCRIPT,
    USAGE,
    WIPE,
    Observation,
)

TAIL_WINDOW = 256 * 1024
READ_LIMIT = 4 * 1024 * 1024  # per poll, so one huge burst cannot stall the loop
LINE_LIMIT = 8 * 1024 * 1024  # a "line" longer than this is dropped, not buffered forever


def entry_time(record: dict[str, Any]) -> float | None:
    value = record.get("timestamp")
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class JsonlBuffer:
    """Bytes in, complete JSON objects out; a partial last line waits for the rest."""

    def __init__(self) -> None:
        self._partial = b""
        self.bad_lines = 0

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > LINE_LIMIT:
            self._partial = b""
            self.bad_lines += 1
        records = []
        for line in lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                self.bad_lines += 1
                continue
            if isinstance(record, dict):
                records.append(record)
        return records


class JsonlTail:
    """Follow one growing JSONL file by offset.

    ``start``: "end" (only what is appended from now on), "tail" (also the last
    :data:`TAIL_WINDOW` bytes, returned as history), or a byte offset.
    """

    def __init__(self, path: Path, *, start: str | int = "end") -> None:
        self.path = Path(path)
        self._buffer = JsonlBuffer()
        self._history_until = 0
        self._inode: int | None = None
        try:
            stat = self.path.stat()
            size, self._inode = stat.st_size, stat.st_ino
        except FileNotFoundError:
            size = 0
        if start == "end":
            self.offset = size
        elif start == "tail":
            self.offset = max(0, size - TAIL_WINDOW)
            self._history_until = size
            self._skip_partial = self.offset > 0
        else:
            self.offset = int(start)
        self._skip_partial = start == "tail" and self.offset > 0

    def poll(self) -> Iterator[tuple[dict[str, Any], bool]]:
        """New records since the last poll, each with ``history`` (read from before start)."""
        try:
            handle = open(self.path, "rb")
        except FileNotFoundError:
            return
        with handle:
            stat = os.fstat(handle.fileno())
            if (
                self._inode is not None and stat.st_ino != self._inode
            ) or stat.st_size < self.offset:
                self.offset, self._buffer, self._history_until = 0, JsonlBuffer(), 0
            self._inode = stat.st_ino
            handle.seek(self.offset)
            data = handle.read(min(READ_LIMIT, max(0, stat.st_size - self.offset)))
        start = self.offset
        self.offset += len(data)
        if self._skip_partial:
            cut = data.find(b"\n")
            if cut == -1:
                return
            data, self._skip_partial = data[cut + 1 :], False
        history = start < self._history_until
        for record in self._buffer.feed(data):
            yield record, history


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [block.get("text", "") for block in content if isinstance(block, dict)]
        return "\n".join(part for part in parts if part)
    return ""


WINDOW_ENTRIES = 400  # the folded window kept for the audit: its newest messages...
WINDOW_CHARS = 4000  # ...each cut to this


class _Window:
    """What the conversation said since its last fold: the user's messages and the agent's
    DECISION lines, for the audit of what the next summary drops (bounded)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, text: str) -> None:
        text = text.strip()
        if text and not text.startswith("<") and not text.startswith("# AGENTS.md"):
            self.texts.append(text[:WINDOW_CHARS])
            del self.texts[:-WINDOW_ENTRIES]

    def fold(self) -> tuple[str, ...]:
        folded, self.texts = tuple(self.texts), []
        return folded


_SUMMARY_BLOCK = re.compile(r"<summary>\s*(.*?)\s*</summary>", re.DOTALL)


def summary_text(text: str) -> str:
    """The summary proper: the ``<summary>`` block when there is one, else the text."""
    found = _SUMMARY_BLOCK.search(text)
    return found.group(1) if found else text.strip()


class ClaudeTranscript:
    """Claude Code session JSONL entries -> observations."""

    def __init__(self) -> None:
        self.session_id: str | None = None
        self.window = _Window()

    def feed(
        self, record: dict[str, Any], now: float | None = None, *, history: bool = False
    ) -> list[Observation]:
        at = now if now is not None else (entry_time(record) or 0.0)
        session = record.get("sessionId")
        details: dict[str, Any] = {"session": session} if session else {}
        if isinstance(session, str):
            self.session_id = session
        kind = record.get("type")
        self._note_window(record)
        if kind == "assistant" and not record.get("isSidechain"):
            usage = (record.get("message") or {}).get("usage")
            if isinstance(usage, dict):
                used = sum(
                    int(usage.get(key) or 0)
                    for key in (
                        "input_tokens",
                        "cache_creation_input_tokens",
                        "cache_read_input_tokens",
                    )
                )
                return [Observation(USAGE, TRANSCRIPT, at, details={**details, "used": used})]
            return []
        if history:
            return []
        if kind == "system" and record.get("subtype") == "compact_boundary":
            meta = record.get("compactMetadata") or {}
            trigger = meta.get("trigger") if meta.get("trigger") in (MANUAL, AUTO) else None
            extra = {
                "pre_tokens": meta.get("preTokens"),
                "post_tokens": meta.get("postTokens"),
                "channel": "compact_boundary",
            }
            return [
                Observation(
                    COMPACTION, TRANSCRIPT, at, trigger=trigger, details={**details, **extra}
                )
            ]
        if kind == "user" and record.get("isCompactSummary"):
            text = _text_of((record.get("message") or {}).get("content"))
            return [
                Observation(
                    COMPACTION,
                    TRANSCRIPT,
                    at,
                    summary=summary_text(text) or None,
                    details={**details, "channel": "compact_summary"},
                    folded=self.window.fold(),
                )
            ]
        if kind == "user":
            text = _text_of((record.get("message") or {}).get("content"))
            if "<command-name>/clear</command-name>" in text:
                return [Observation(WIPE, TRANSCRIPT, at, details={**details, "channel": "clear"})]
        return []

    def _note_window(self, record: dict[str, Any]) -> None:
        if record.get("isSidechain") or record.get("isMeta") or record.get("isCompactSummary"):
            return
        content = (record.get("message") or {}).get("content")
        if record.get("type") == "user":
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                return
            self.window.add(_text_of(content))
        elif record.get("type") == "assistant":
            for line in _text_of(content).splitlines():
                if "DECISION:" in line:
                    self.window.add(line)


_CODEX_PREFACE = re.compile(r"^Another language model started.*?analysis:\s*", re.DOTALL)


class CodexRollout:
    """Codex rollout entries -> observations.

    The trigger of a compaction is not written in the entry itself. In Codex
    0.171.0 a ``/compact`` runs as its own turn whose ``task_started`` has no
    ``turn_attribution``, while an automatic one runs inside a user turn
    (``turn_trigger: "user"``) before its model request; that is the rule used.
    """

    def __init__(self) -> None:
        self.window: int | None = None
        self._turn_by_user = False
        self.said = _Window()  # the folded window (``window`` is the context size)

    def feed(
        self, record: dict[str, Any], now: float | None = None, *, history: bool = False
    ) -> list[Observation]:
        at = now if now is not None else (entry_time(record) or 0.0)
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
        kind = record.get("type")
        if kind == "response_item" and payload.get("type") == "message":
            if payload.get("role") == "user":
                self.said.add(_text_of(payload.get("content")))
            elif payload.get("role") == "assistant":
                for line in _text_of(payload.get("content")).splitlines():
                    if "DECISION:" in line:
                        self.said.add(line)
        if kind == "event_msg":
            sub = payload.get("type")
            if sub == "task_started":
                attribution = payload.get("turn_attribution") or {}
                self._turn_by_user = attribution.get("turn_trigger") == "user"
                if isinstance(payload.get("model_context_window"), int):
                    self.window = payload["model_context_window"]
            elif sub == "token_count":
                info = payload.get("info") or {}
                if isinstance(info.get("model_context_window"), int):
                    self.window = info["model_context_window"]
                last = info.get("last_token_usage") or {}
                if isinstance(last.get("input_tokens"), int):
                    details = {"used": last["input_tokens"], "window": self.window}
                    return [Observation(USAGE, TRANSCRIPT, at, details=details)]
            elif sub == "context_compacted" and not history:
                return [
                    Observation(
                        COMPACTION,
                        TRANSCRIPT,
                        at,
                        trigger=self._trigger(),
                        details={"channel": "context_compacted"},
                    )
                ]
            return []
        if kind == "compacted" and not history:
            message = payload.get("message")
            summary = _CODEX_PREFACE.sub("", message).strip() if isinstance(message, str) else None
            return [
                Observation(
                    COMPACTION,
                    TRANSCRIPT,
                    at,
                    trigger=self._trigger(),
                    summary=summary or None,
                    details={"channel": "compacted"},
                    folded=self.said.fold(),
                )
            ]
        return []

    def _trigger(self) -> str:
        return AUTO if self._turn_by_user else MANUAL
