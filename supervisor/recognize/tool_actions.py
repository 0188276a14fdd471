"""What an agent's tool hook reports it did, as one :class:`ToolAction`.

Claude Code calls ``PostToolUse`` after a tool succeeded and ``PostToolUseFailure``
after it failed, with ``tool_name``, ``tool_input`` and ``tool_response`` (or
``error``); Codex 0.171.0 calls ``PostToolUse`` with the same fields. Only what
acts is kept: shell commands and file writes. Reads and searches change nothing
and are left out, which keeps the ledger to what can be checked.

Everything here is untrusted input (hook stdin): each field is type-checked and cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

COMMAND_MAX = 2000
PATH_MAX = 500
PATHS_MAX = 50
ERROR_MAX = 500
OUTPUT_TAIL = 16 * 1024  # of a tool's output, enough for its closing lines

SHELL_TOOLS = frozenset(
    {"Bash", "bash", "shell", "exec_command", "local_shell", "container.exec", "run_command"}
)
WRITE_TOOLS = frozenset(
    {"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch", "write_file", "edit_file"}
)
LEDGER_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})

_EXIT = re.compile(r"(?:exit code|exited with code|exit status)[:= ]+(-?\d{1,4})", re.IGNORECASE)
_WALL = re.compile(r"Wall time:\s*([0-9.]+)\s*s", re.IGNORECASE)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.M)


@dataclass(slots=True)
class ToolAction:
    """One action as its integration reported it (no checkout yet)."""

    tool: str
    command: str | None = None
    paths: list[str] = field(default_factory=list)
    exit: int | None = None
    error: str | None = None
    duration_ms: int | None = None
    output: str = ""  # the tail of what it printed, for a verification's closing line
    tool_use_id: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.exit is None or self.exit == 0)


def _text(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    return value[:limit]


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or abs(value) > 2**31:  # NaN or absurd
        return None
    return int(value)


def _command_of(tool_input: dict[str, Any]) -> str | None:
    for key in ("command", "cmd"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return value[:COMMAND_MAX]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            shell = len(value) == 3 and value[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
            words = value[2:] if shell and value[1] in ("-c", "-lc") else value
            return " ".join(words)[:COMMAND_MAX]
    return None


def _output_of(response: Any) -> str:
    if isinstance(response, str):
        return response[-OUTPUT_TAIL:]
    if isinstance(response, dict):
        parts = []
        for key in ("stdout", "output", "aggregated_output", "formatted_output", "stderr"):
            value = response.get(key)
            if isinstance(value, str) and value:
                parts.append(value[-OUTPUT_TAIL:])
        content = response.get("content")
        if isinstance(content, list):
            for block in content[:20]:
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    parts.append(block["text"][-OUTPUT_TAIL:])
        return "\n".join(parts)[-OUTPUT_TAIL:]
    if isinstance(response, list):
        return "\n".join(_output_of(item) for item in response[:20])[-OUTPUT_TAIL:]
    return ""


def _paths_of(tool: str, tool_input: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            found.append(value[:PATH_MAX])
    if tool == "apply_patch" or "*** Begin Patch" in str(tool_input.get("input", ""))[:100]:
        patch = tool_input.get("input") or tool_input.get("patch") or tool_input.get("command")
        if isinstance(patch, list):
            patch = "\n".join(str(p) for p in patch)
        if isinstance(patch, str):
            for match in _PATCH_FILE.finditer(patch[: 1 << 20]):
                found.append((match.group(1) or match.group(2)).strip()[:PATH_MAX])
    unique = list(dict.fromkeys(found))
    return unique[:PATHS_MAX]


def action_from_hook(event: str, payload: dict[str, Any] | None) -> ToolAction | None:
    """The action a ``PostToolUse`` / ``PostToolUseFailure`` hook reports, or None when the
    tool only looked (a read, a search) or the input is not a tool report."""
    if event not in LEDGER_EVENTS or not isinstance(payload, dict):
        return None
    tool = _text(payload.get("tool_name"), 100)
    tool_input = payload.get("tool_input")
    if not tool:
        return None
    if not isinstance(tool_input, dict):
        tool_input = {"command": tool_input} if isinstance(tool_input, str) else {}
    if tool == "apply_patch" and isinstance(tool_input.get("command"), str):
        tool_input = {"input": tool_input["command"]}
    shell = tool in SHELL_TOOLS
    writes = tool in WRITE_TOOLS
    if not shell and not writes:
        return None
    response = payload.get("tool_response")
    action = ToolAction(tool=tool, tool_use_id=_text(payload.get("tool_use_id"), 200))
    if shell:
        action.command = _command_of(tool_input)
        if action.command is None:
            return None
    action.paths = _paths_of(tool, tool_input)
    action.output = _output_of(response)
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "return_code", "status_code"):
            if (code := _int(response.get(key))) is not None:
                action.exit = code
                break
        for key in ("duration_ms", "durationMs", "duration"):
            if (took := _int(response.get(key))) is not None:
                action.duration_ms = took
                break
        if response.get("interrupted") is True:
            action.error = "interrupted"
    if action.exit is None and shell and (found := _EXIT.search(action.output[:4096])):
        action.exit = int(found.group(1))
    if action.duration_ms is None and (wall := _WALL.search(action.output[:4096])):
        try:
            action.duration_ms = round(float(wall.group(1)) * 1000)
        except ValueError:
            pass
    if event == "PostToolUseFailure":
        error = payload.get("error")
        text = error if isinstance(error, str) else "failed"
        action.error = text[:ERROR_MAX]
        if action.exit is None and (found := _EXIT.search(text[:4096])):
            action.exit = int(found.group(1))
        if not action.output:
            action.output = text[-OUTPUT_TAIL:]
        if shell and action.exit is None:
            action.exit = 1
    elif shell and action.exit is None:
        action.exit = 0  # Claude Code reports a non-zero exit as a failure
    return action
