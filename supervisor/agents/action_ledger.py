"""A tool hook's report into the ledger: one action, its checkout, and the drift alarms.

Called by `tether hook PostToolUse` / `PostToolUseFailure` (in the hook's own process or
on the supervisor's hook server thread, never on the event loop: it runs git). The
alarms go to events.jsonl as ``drift_alarm`` events, which the supervisor's tick reads
within a quarter of a second; the Events pane, the banner and a notification show them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supervisor import environment
from supervisor.agents.codex_rollout import command_end
from supervisor.config.verify_commands import DEFAULT_RULES, VerifyRules, rules_for_profile
from supervisor.recognize import drift
from supervisor.recognize.tool_actions import PATHS_MAX, ToolAction, action_from_hook
from supervisor.recognize.verification import closing_line
from supervisor.rehydrate.sanitize import sanitize
from supervisor.store import notes
from supervisor.store.checkout import current_checkout, repository_root
from supervisor.store.ledger import Ledger
from supervisor.store.tether_dir import TetherDir

if TYPE_CHECKING:
    from supervisor.rehydrate.live_notes import LiveNotes

EARLIER_MAX = 50  # runs of the same command looked at, newest first
PROFILE_ENV = environment.PROFILE
DEFAULT_AGENT = "claude"


def agent_name() -> str:
    """The supervised agent's profile name, as the hook's environment has it."""
    return environment.current().profile or DEFAULT_AGENT


def verify_rules(agent: str) -> VerifyRules:
    """The profile's verification commands; the defaults when it cannot be read (the hook
    must not fail for a profile problem the supervisor reports anyway)."""
    try:
        return rules_for_profile(agent)
    except Exception:
        return DEFAULT_RULES


def ledger_record(
    action: ToolAction,
    agent: str,
    rules: VerifyRules,
    work_dir: Path,
    *,
    previous_t: float | None = None,
) -> dict[str, Any]:
    """The ledger line of one action: what it did, how it ended, on which checkout.

    A shell command does not say which files it wrote: those git reports changed since
    the previous action (``previous_t``) are counted as its own.
    """
    checkout = current_checkout(work_dir)
    paths = [_relative(path, work_dir) for path in action.paths]
    if action.command is not None and not paths and previous_t is not None:
        root = repository_root(work_dir) or work_dir
        since_ns = int(previous_t * 1e9)
        paths = [
            _relative(str(root / path), work_dir)
            for path, mtime in checkout.dirty
            if mtime > since_ns
        ][:PATHS_MAX]
    record: dict[str, Any] = {
        "agent": agent,
        "tool": action.tool,
        "command": action.command,
        "paths": paths or None,
        "exit": action.exit,
        "error": action.error,
        "ok": action.ok,
        "duration_ms": action.duration_ms,
        "checkout": checkout.to_json(),
        "id": action.tool_use_id,
    }
    kind = rules.kind_of(action.command) if action.command else None
    if kind is not None:
        record["verify"] = {"kind": kind, "result": closing_line(sanitize(action.output))}
    return record


def _relative(path: str, work_dir: Path) -> str:
    """A path inside the working folder as the agent would name it there; others as given."""
    if os.path.isabs(path):
        try:
            inside = os.path.relpath(path, work_dir)
        except ValueError:
            return path
        if not inside.startswith(".."):
            return inside
    return path


def rejected_approaches(tether: TetherDir, live: LiveNotes | None = None) -> list[str]:
    """notes.md's rejected approaches: from the supervision's parse (``live``) when the
    supervisor answers the hook, else read and parsed here."""
    try:
        if live is not None:
            document = live.current().notes
        else:
            document = notes.Document.parse(tether.read_notes())
    except Exception:  # a missing or unreadable notes.md names no rejected approach
        return []
    section = document.find("Rejected approaches")
    return notes.section_items(section.body) if section is not None else []


def _from_codex(payload: dict[str, Any]) -> bool:
    """Codex names its turn in every hook call; Claude Code does not."""
    return isinstance(payload.get("turn_id"), str) and "/sessions/" in str(
        payload.get("transcript_path")
    )


def record_tool_hook(
    event: str,
    payload: dict[str, Any] | None,
    work_dir: str,
    *,
    rules: VerifyRules | None = None,
    source: str = "hook",
    agent: str | None = None,
    live: LiveNotes | None = None,
) -> list[drift.Alarm]:
    """Record the action a tool hook reports (if it acted) and any alarm it raises;
    ``source`` "transcript" for a report read from the session file instead."""
    action = action_from_hook(event, payload)
    if action is None:
        return []
    if action.command is not None and isinstance(payload, dict) and _from_codex(payload):
        end = command_end(payload)  # Codex's hook has no exit code: its rollout has
        if end is not None:
            action.exit = end.exit if end.exit is not None else action.exit
            action.duration_ms = end.duration_ms or action.duration_ms
            action.output = end.output or action.output
    tether = TetherDir.at(work_dir)
    agent = agent or agent_name()  # the hook's process names its agent's profile
    rules = rules if rules is not None else verify_rules(agent)
    ledger = Ledger(tether.root)
    needle = b"\0"  # matches no line: a write has no command to look back for
    if action.command:
        needle = json.dumps(action.command, ensure_ascii=False)[1:-1].encode("utf-8")[:200]
    newest, runs = ledger.history(needle, EARLIER_MAX)
    previous_t = newest.get("t") if newest is not None else None
    if not isinstance(previous_t, int | float):
        previous_t = None
    record = ledger_record(action, agent, rules, tether.work_dir, previous_t=previous_t)
    if source != "hook":
        record["source"] = source
    earlier = [run for run in runs if action.command and run.get("command") == action.command]
    written = ledger.append(record)
    found = drift.alarms(written, earlier, drift.rejected_terms(rejected_approaches(tether, live)))
    for alarm in found:
        tether.record_event(drift.KIND, "ledger", **alarm.to_event())
    return found
