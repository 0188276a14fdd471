"""The plugin that gives one GitHub Copilot CLI run tether's hooks, touching no file of the user's.

Copilot (1.0.102) loads hooks from ``~/.copilot/settings.json``, from the
project's ``.github/hooks/*.json``, and from a plugin. ``copilot --plugin-dir DIR``
loads a plugin for that run only, with no consent screen: ``DIR/plugin.json``
(``{"name", "version", "hooks": "hooks.json"}``) and ``DIR/hooks.json`` in the
hooks file format (``{"version": 1, "hooks": {event: [{"type": "command",
"bash": ..., "timeoutSec": ...}]}}``). tether writes both under
``.tether/agent/copilot-plugin/`` at every start, so they always name the tether
that runs. Copilot itself keeps a small ``~/.copilot/plugin-data/_direct/<hash>/``
folder for such a plugin; nothing else changes.

The events are Copilot's own names, so ``tether hook`` tells them from Claude
Code's and Codex's (:mod:`supervisor.agents.copilot_answer`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from supervisor.agents.claude_settings import HOOK_TIMEOUT_S, hook_command
from supervisor.store import fsio

PLUGIN_DIR = "copilot-plugin"
PLUGIN_NAME = "tether"
# Seen firing in 1.0.102: all but postToolUse were run; postToolUse is for the ledger.
HOOK_EVENTS = (
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "preCompact",
    "agentStop",
    "postToolUse",
)


def hooks(work_dir: Path, argv: list[str] | None = None) -> dict[str, Any]:
    """The hooks file: every event in :data:`HOOK_EVENTS` runs `tether hook EVENT`."""
    return {
        "version": 1,
        "hooks": {
            event: [
                {
                    "type": "command",
                    "bash": hook_command(event, work_dir, argv),
                    "timeoutSec": HOOK_TIMEOUT_S,
                }
            ]
            for event in HOOK_EVENTS
        },
    }


def write_plugin(tether_root: Path, argv: list[str] | None = None) -> Path:
    """Write ``<.tether>/agent/copilot-plugin/`` (atomically, file by file); its path."""
    tether_root = Path(tether_root).absolute()
    folder = tether_root / "agent" / PLUGIN_DIR
    folder.mkdir(parents=True, exist_ok=True)
    fsio.atomic_write_json(folder / "hooks.json", hooks(tether_root.parent, argv))
    manifest = {
        "name": PLUGIN_NAME,
        "version": "1.0.0",
        "description": "tether's hooks for this run: record and rehydrate",
        "hooks": "hooks.json",
    }
    fsio.atomic_write_json(folder / "plugin.json", manifest)
    return folder


def plugin_args(tether_root: Path, argv: list[str] | None = None) -> list[str]:
    """``["--plugin-dir", <folder>]`` for the agent's command line."""
    return ["--plugin-dir", str(write_plugin(tether_root, argv))]
