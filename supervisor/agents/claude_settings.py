"""The hook settings file tether passes to Claude Code with ``--settings``.

It lives in `.tether/agent/claude-settings.json` and is regenerated at every
start, so it always points at the tether that is running; the user's own
``~/.claude/settings.json`` and project settings are never read or touched
(Claude Code merges ``--settings`` on top of them).
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from supervisor.store import fsio

# SessionStart with matcher "" fires for startup, resume, clear and compact alike.
HOOK_EVENTS = (
    "SessionStart",
    "PreCompact",
    "PostCompact",
    "Stop",
    "Notification",
    "SessionEnd",
    "UserPromptSubmit",
    # What the agent did, for the ledger: every tool's success and failure.
    "PostToolUse",
    "PostToolUseFailure",
)
# Hooks the agent need not wait for: they only record (the ledger), so every tool call does
# not pay for a `tether hook` process (Claude Code's command hooks take "async": true).
ASYNC_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})
SETTINGS_NAME = "claude-settings.json"
HOOK_TIMEOUT_S = 10


def tether_argv() -> list[str]:
    """How a hook should start this tether: the installed script beside this
    interpreter if there is one, else ``python -m supervisor.cli``."""
    script = Path(sys.executable).with_name("tether")
    if script.is_file():
        return [str(script)]
    found = shutil.which("tether")
    if found and Path(found).resolve().parent == Path(sys.executable).resolve().parent:
        return [found]
    return [sys.executable, "-m", "supervisor.cli"]


def hook_command(event: str, work_dir: Path, argv: list[str] | None = None) -> str:
    base = argv if argv is not None else tether_argv()
    return shlex.join([*base, "hook", event, "--dir", str(Path(work_dir).absolute())])


def settings(work_dir: Path, argv: list[str] | None = None) -> dict[str, Any]:
    """The settings object: every event in :data:`HOOK_EVENTS` runs `tether hook EVENT`."""
    hooks: dict[str, Any] = {}
    for event in HOOK_EVENTS:
        handler: dict[str, Any] = {
            "type": "command",
            "command": hook_command(event, work_dir, argv),
            "timeout": HOOK_TIMEOUT_S,
        }
        if event in ASYNC_EVENTS:
            handler["async"] = True
        hooks[event] = [{"matcher": "", "hooks": [handler]}]
    return {"hooks": hooks}


def write_settings(tether_root: Path, argv: list[str] | None = None) -> Path:
    """Write `<.tether>/agent/claude-settings.json` atomically and return its path
    (for ``claude --settings PATH``)."""
    tether_root = Path(tether_root).absolute()
    agent = tether_root / "agent"
    agent.mkdir(parents=True, exist_ok=True)
    path = agent / SETTINGS_NAME
    fsio.atomic_write_json(path, settings(tether_root.parent, argv))
    return path
