"""The second source of the ledger: tool calls as the agent's session file records them.

The tool hooks are the first source; a call they did not report (hooks skipped with
``--bare``, a hook that timed out, an agent version without ``PostToolUseFailure``)
is still in the session file. This turns its lines into the same report a tool hook
gives (an event name and a hook-shaped payload), so one code path records both:

- Claude Code's transcript: an assistant ``tool_use`` block, then the user
  ``tool_result`` block with the same id (``is_error`` for a failure);
- Codex's rollout: an ``item_completed`` event of a ``CommandExecution`` (command,
  exit code, duration, output) or of a file change (its paths).
"""

from __future__ import annotations

from typing import Any

PENDING_MAX = 500  # tool_use blocks waiting for their result (a runaway file cannot grow it)

Report = tuple[str, dict[str, Any]]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block.get("text", "")
            for block in content[:50]
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        )
    return ""


class ToolReports:
    """Feeds on a session file's records; returns the finished tool calls as reports."""

    def __init__(self) -> None:
        self._uses: dict[str, dict[str, Any]] = {}

    def feed(self, record: dict[str, Any]) -> list[Report]:
        kind = record.get("type")
        if kind in ("assistant", "user"):
            return self._claude(record)
        if kind == "event_msg":
            return self._codex(record.get("payload"))
        return []

    def _claude(self, record: dict[str, Any]) -> list[Report]:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return []
        reports: list[Report] = []
        for block in content[:100]:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                if len(self._uses) >= PENDING_MAX:
                    self._uses.pop(next(iter(self._uses)))
                self._uses[block["id"]] = block
            elif block.get("type") == "tool_result":
                use = self._uses.pop(str(block.get("tool_use_id")), None)
                if use is None:
                    continue
                payload: dict[str, Any] = {
                    "tool_name": use.get("name"),
                    "tool_input": use.get("input"),
                    "tool_use_id": use.get("id"),
                }
                text = _text_of(block.get("content"))
                if block.get("is_error") is True:
                    reports.append(("PostToolUseFailure", {**payload, "error": text}))
                else:
                    reports.append(("PostToolUse", {**payload, "tool_response": text}))
        return reports

    def _codex(self, payload: Any) -> list[Report]:
        if not isinstance(payload, dict) or payload.get("type") != "item_completed":
            return []
        item = payload.get("item")
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            return []
        if item.get("type") == "CommandExecution":
            command = item.get("command")
            response: dict[str, Any] = {
                "exit_code": item.get("exit_code"),
                "aggregated_output": item.get("aggregated_output"),
            }
            took = item.get("duration")
            if isinstance(took, dict) and isinstance(took.get("secs"), int):
                nanos = took.get("nanos")
                extra = nanos // 1_000_000 if isinstance(nanos, int) else 0
                response["duration_ms"] = took["secs"] * 1000 + extra
            report = {
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_response": response,
                "tool_use_id": item["id"],
            }
            return [("PostToolUse", report)]
        changes = item.get("changes")
        if isinstance(changes, list):
            paths = [c.get("path") for c in changes[:50] if isinstance(c, dict)]
            patch = "\n".join(f"*** Update File: {p}" for p in paths if isinstance(p, str))
            if patch:
                tool_input = {"input": "*** Begin Patch\n" + patch}
                report = {"tool_name": "apply_patch", "tool_input": tool_input}
                return [("PostToolUse", {**report, "tool_use_id": item["id"]})]
        return []
