"""GitHub Copilot CLI's ``postToolUse`` hook, in the shape the action ledger reads.

Copilot (1.0.102) reports a finished tool as ``{"toolName", "toolArgs", "toolResult":
{"resultType", "textResultForLlm"}}`` (tests/fixtures/captures/cp102-tool.hooks.jsonl):
its shell tool is ``bash`` with ``{"command", ...}``, and the exit code is only in the
result's text ("<shellId: 0 completed with exit code 3>"), which the ledger's reader
finds there. Claude Code's field names are what :mod:`supervisor.agents.action_ledger`
takes, so the report is renamed, not reinterpreted.
"""

from __future__ import annotations

import json
from typing import Any

# resultType values that mean the tool did not do its job.
_FAILED = frozenset({"failure", "error", "rejected", "denied"})


def claude_shaped(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The ledger event (``PostToolUse`` or ``PostToolUseFailure``) and its payload."""
    args: Any = payload.get("toolArgs")
    if isinstance(args, str):  # some versions send the arguments as a JSON string
        try:
            args = json.loads(args)
        except ValueError:
            args = {"command": args}
    raw = payload.get("toolResult")
    result: dict[str, Any] = raw if isinstance(raw, dict) else {}
    text = result.get("textResultForLlm")
    shaped: dict[str, Any] = {
        "tool_name": payload.get("toolName"),
        "tool_input": args if isinstance(args, dict) else {},
        "tool_response": text if isinstance(text, str) else "",
        "session_id": payload.get("sessionId"),
    }
    if result.get("resultType") in _FAILED:
        shaped["error"] = text if isinstance(text, str) else "failed"
        return "PostToolUseFailure", shaped
    return "PostToolUse", shaped
