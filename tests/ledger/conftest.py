"""A real git checkout with a `.tether/`, and hook reports as the agents send them."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from supervisor.agents.hook_command import handle
from supervisor.store.tether_dir import init


def git(work: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=work,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit (calc.py) and an initialised `.tether/`."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git(work, "add", "calc.py")
    git(work, "commit", "-qm", "start")
    init(work, goal="fix add")
    return work


def claude_bash(command: str, stdout: str = "") -> dict[str, Any]:
    """Claude Code's PostToolUse input after a Bash call that exited 0."""
    return {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
        "tool_use_id": "toolu_1",
    }


def claude_bash_failed(command: str, output: str, code: int = 1) -> dict[str, Any]:
    """Claude Code's PostToolUseFailure input after a Bash call that exited non-zero."""
    return {
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "error": f"Exit code {code}\n{output}",
        "tool_use_id": "toolu_2",
    }


def claude_write(path: Path, content: str) -> dict[str, Any]:
    path.write_text(content)
    return {
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(path), "content": content},
        "tool_response": {"type": "update", "filePath": str(path)},
        "tool_use_id": "toolu_3",
    }


def hook(work: Path, payload: dict[str, Any]) -> str:
    """Run `tether hook EVENT` in-process, as the supervisor's hook server does."""
    out = io.StringIO()
    data = io.BytesIO(json.dumps(payload).encode())
    handle(payload["hook_event_name"], str(work), data, out, io.StringIO())
    return out.getvalue()


def ledger_lines(work: Path) -> list[dict[str, Any]]:
    path = work / ".tether" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def events_of(work: Path, kind: str) -> list[dict[str, Any]]:
    path = work / ".tether" / "events.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [event for event in lines if event.get("kind") == kind]
