"""`tether hook EVENT`: record an agent hook call in events.jsonl, quickly and safely.

It runs on the agent's critical path (Claude Code waits for every hook), so it
imports nothing heavy, and it never breaks the agent: stdin is untrusted
(capped at :data:`STDIN_LIMIT`, invalid JSON recorded as such), a missing
`.tether/` is ignored, and every failure still exits 0 without a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from supervisor.agents.hook_stdin import STDIN_LIMIT, StdinRead, read_stdin

if TYPE_CHECKING:  # the hook's fast path imports it only where an answer reads the notes
    from supervisor.rehydrate.live_notes import LiveNotes

_EVENT_MAX = 64
_RAW_HEAD = 200


def read_payload(stream: BinaryIO | StdinRead | None, limit: int = STDIN_LIMIT) -> dict[str, Any]:
    """Read at most ``limit`` bytes of hook JSON; describe what was wrong instead of raising.

    Returns the fields to record: ``payload`` (the parsed JSON or None) and,
    when something was wrong, ``error`` plus what helps to see why. The payload holds
    only what JSON can carry (:func:`supervisor.store.fsio.json_safe`): no NaN or
    Infinity, no lone surrogates, nesting at most :data:`~supervisor.store.fsio.MAX_DEPTH`.
    """
    read = stream if isinstance(stream, StdinRead) else read_stdin(stream, limit)
    data = read.data
    if len(data) > limit:
        return {"payload": None, "error": f"stdin over {limit} bytes", "bytes": read.total}
    if read.why is not None:
        fields: dict[str, Any] = {"payload": None, "error": read.why}
        if data:
            fields["raw_head"] = _head(data)
        return fields
    if not data.strip():
        return {"payload": None, "error": "empty stdin"}
    from supervisor.store import fsio

    payload, why = fsio.loads_why(data)
    if why is not None:
        return {"payload": None, "error": f"invalid JSON: {why}", "raw_head": _head(data)}
    try:
        payload = fsio.json_safe(payload)
    except ValueError as problem:  # nested deeper than an agent's JSON ever is
        return {"payload": None, "error": f"invalid JSON: {problem}", "raw_head": _head(data)}
    if not isinstance(payload, dict):
        return {"payload": payload, "error": "not a JSON object"}
    return {"payload": payload}


def _head(data: bytes) -> str:
    from supervisor.store.fsio import json_safe

    return str(json_safe(data[:_RAW_HEAD].decode("utf-8", "replace")))


def clean_event_name(event: str) -> str:
    name = "".join(ch for ch in event if ch.isalnum() or ch in "_-")[:_EVENT_MAX]
    return name or "unknown"


def answer_for(
    event: str,
    payload_json: dict[str, Any] | None,
    work_dir: str = ".",
    *,
    profile: str | None = None,
    live: LiveNotes | None = None,
) -> str | None:
    """What to print on stdout for the agent, or None to print nothing.

    For ``PreCompact``: plain text that Claude Code appends to its compaction
    prompt as additional instructions: keep the pinned decisions word for word,
    the rejected approaches and the next step
    (:mod:`supervisor.rehydrate.summary_instructions`).

    For ``SessionStart`` with source ``compact`` or ``clear``, or ``startup`` of a new
    session in the running agent (Codex's ``/new``, see :mod:`.new_session`): the rehydrate
    payload as ``{"hookSpecificOutput": {"hookEventName": "SessionStart",
    "additionalContext": ...}}`` when the profile's ``auto_rehydrate`` is on,
    so Claude Code rehydrates before anyone presses a key. The payload builder
    (and tiktoken) is imported only in that branch, so every other hook stays fast.

    ``live``: the supervisor's parse of notes.md and task.md, when it answers in its own
    process; None (a hook alone): the answer parses them from disk, once.
    """
    if event in ("sessionStart", "userPromptSubmitted"):  # GitHub Copilot CLI's names
        from supervisor.agents.copilot_answer import copilot_answer

        return copilot_answer(event, payload_json, work_dir, live=live)
    if event == "BeforeAgent":  # Gemini CLI's: the first prompt after a compression
        from supervisor.agents.gemini_answer import gemini_answer

        return gemini_answer(payload_json, work_dir, live=live)
    if event == "PreCompact":
        from supervisor.rehydrate.summary_instructions import instructions

        return instructions(live or _own_notes(work_dir)) or None
    if event != "SessionStart" or not payload_json:
        return None
    new_session = False
    if payload_json.get("source") == "startup":  # Codex's /new: a wipe, if it is one
        from supervisor.agents.new_session import started_anew
        from supervisor.store.tether_dir import TetherDir

        new_session = started_anew(TetherDir.at(work_dir), payload_json)
    if not new_session and payload_json.get("source") not in ("compact", "clear"):
        return None
    from supervisor.agents.session_start_answer import session_start_answer

    return session_start_answer(
        work_dir, payload_json, new_session=new_session, profile_name=profile, live=live
    )


def _own_notes(work_dir: str) -> LiveNotes:
    """A hook alone: notes.md and task.md parsed for this one answer (once, however many
    times the answer reads them)."""
    from supervisor.rehydrate.live_notes import LiveNotes
    from supervisor.store.tether_dir import TetherDir

    return LiveNotes(TetherDir.at(work_dir))


def handle(
    event: str,
    work_dir: str,
    stdin: BinaryIO | StdinRead | None,
    stdout: TextIO,
    stderr: TextIO | None = None,
    *,
    profile: str | None = None,
    heard: Callable[[dict[str, Any]], None] | None = None,
    live: LiveNotes | None = None,
) -> int:
    """Record one hook call under ``work_dir/.tether/``; always returns 0.

    ``stderr`` (default ``sys.stderr``) takes the warnings: the supervisor's hook
    server passes its own, to send them back to the hook's process, and ``profile``,
    the one the hook's process names (default: ``$TETHER_PROFILE`` here). ``heard``: the
    supervisor's hook server hands the recorded event to the supervisor in memory; the
    record says so (``served_by``: its pid), and the supervisor's tail skips it. ``live``:
    the supervision's parse of the notes, which its answers read (:func:`answer_for`).
    """
    stderr = stderr if stderr is not None else sys.stderr
    event = clean_event_name(event)
    fields = read_payload(stdin)
    tether_root = os.path.join(os.path.abspath(work_dir), ".tether")
    if not os.path.isdir(tether_root):
        return 0  # not a supervised folder: nothing to record, never an error for the agent
    if event == "postToolUse" and isinstance(fields.get("payload"), dict):  # Copilot CLI's
        from supervisor.agents.copilot_actions import claude_shaped

        event, shaped = claude_shaped(fields["payload"])
        fields = {**fields, "payload": shaped}
    if event in ("PostToolUse", "PostToolUseFailure"):  # an action: the ledger, not events
        return _record_action(event, fields, work_dir, stderr, profile, live)
    from supervisor.store.tether_dir import TetherDir  # light: json, os, fcntl

    if heard is not None:
        fields["served_by"] = os.getpid()
    try:
        recorded = TetherDir.at(work_dir).record_event("hook", "hook", event=event, **fields)
    except Exception as problem:  # a full disk must not break the agent's hook
        print(f"tether hook: not recorded: {problem}", file=stderr)
        return 0
    if heard is not None:
        heard(recorded)
    payload = fields.get("payload")
    try:
        answer = answer_for(
            event,
            payload if isinstance(payload, dict) else None,
            work_dir,
            profile=profile,
            live=live,
        )
    except Exception as problem:
        print(f"tether hook: no answer: {problem}", file=stderr)
        return 0
    if answer:
        stdout.write(answer)
        stdout.flush()
    return 0


def _record_action(
    event: str,
    fields: dict[str, Any],
    work_dir: str,
    stderr: TextIO,
    profile: str | None,
    live: LiveNotes | None,
) -> int:
    """A tool hook: its action into `.tether/ledger.jsonl` (see :mod:`.action_ledger`)."""
    payload = fields.get("payload")
    if not isinstance(payload, dict):
        return 0
    try:
        from supervisor.agents.action_ledger import record_tool_hook

        record_tool_hook(event, payload, work_dir, agent=profile, live=live)
    except Exception as problem:  # a full disk or a broken repository must not break the agent
        print(f"tether hook: action not recorded: {problem}", file=stderr)
    return 0
