"""Gemini CLI's hooks for one run: its system-defaults layer, moved to a file of tether's.

Gemini CLI (0.61.0) reads hooks only from settings files: the system settings, the
user's ``~/.gemini/settings.json``, the project's ``.gemini/settings.json``, and
below them all the *system defaults*, whose path ``GEMINI_CLI_SYSTEM_DEFAULTS_PATH``
moves (default ``/etc/gemini-cli/system-defaults.json`` beside the system
settings). Hook lists are concatenated across the layers, so a defaults file that
holds tether's hooks adds them to whatever the user and the project configure,
and every other default loses to their settings as before.

What this changes, said plainly: for that run Gemini reads
``.tether/agent/gemini-system-defaults.json`` instead of the machine's system
defaults. tether copies the machine's file into it first (every setting, its hooks
before tether's), so nothing of it is lost; only a machine file that is not valid
JSON is left out, and the run records why. Nothing of the user's is written, and
the next run without tether reads the machine's file again.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from supervisor.agents.claude_settings import hook_command
from supervisor.store import fsio

DEFAULTS_ENV = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"
SYSTEM_SETTINGS_ENV = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
DEFAULTS_NAME = "gemini-system-defaults.json"
HOOK_TIMEOUT_MS = 10_000
MACHINE_FILE_LIMIT = 1024 * 1024
# What tether listens to (Gemini's own names; SessionStart/SessionEnd/Notification are
# Claude Code's words too, and mean the same).
HOOK_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "PreCompress",
    "Notification",
)


def machine_defaults(env: Mapping[str, str] | None = None) -> Path:
    """Where Gemini CLI would read the system defaults without tether."""
    env = os.environ if env is None else env
    if env.get(DEFAULTS_ENV):
        return Path(env[DEFAULTS_ENV])
    if env.get(SYSTEM_SETTINGS_ENV):
        return Path(env[SYSTEM_SETTINGS_ENV]).parent / "system-defaults.json"
    if sys.platform == "darwin":
        return Path("/Library/Application Support/GeminiCli/system-defaults.json")
    if sys.platform == "win32":
        return Path("C:\\ProgramData\\gemini-cli\\system-defaults.json")
    return Path("/etc/gemini-cli/system-defaults.json")


def _read_machine(path: Path) -> tuple[dict[str, Any], str | None]:
    """The machine's defaults (``{}`` when there are none), and why they were left out."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MACHINE_FILE_LIMIT + 1)
    except FileNotFoundError:
        return {}, None
    except OSError as problem:
        return {}, f"{path}: cannot be read ({problem.strerror or problem})"
    if len(data) > MACHINE_FILE_LIMIT:
        return {}, f"{path}: over {MACHINE_FILE_LIMIT} bytes"
    try:
        found = json.loads(data)
    except (ValueError, UnicodeDecodeError) as problem:
        return {}, f"{path}: not valid JSON ({problem})"
    if not isinstance(found, dict):
        return {}, f"{path}: not a JSON object"
    return found, None


def defaults(
    work_dir: Path, machine: dict[str, Any], argv: list[str] | None = None
) -> dict[str, Any]:
    """The machine's defaults with tether's hook group added to each event's list."""
    merged = dict(machine)
    found = machine.get("hooks")
    hooks: dict[str, Any] = dict(found) if isinstance(found, dict) else {}
    for event in HOOK_EVENTS:
        listed = hooks.get(event)
        theirs: list[Any] = listed if isinstance(listed, list) else []
        ours = {
            "hooks": [
                {
                    "type": "command",
                    "name": f"tether-{event}",
                    "command": hook_command(event, work_dir, argv),
                    "timeout": HOOK_TIMEOUT_MS,
                }
            ]
        }
        hooks[event] = [*theirs, ours]
    merged["hooks"] = hooks
    return merged


def insecure_parent(path: Path) -> str | None:
    """Why Gemini CLI would skip the defaults file at ``path``: it refuses one below a
    folder that others may write (seen in 0.61.0: "Skipping system defaults file ...:
    Parent directory '/tmp' is insecure"), so its hooks would not run at all."""
    for folder in Path(path).absolute().parents:
        try:
            mode = folder.stat().st_mode
        except OSError:
            continue
        if mode & 0o022:
            return (
                f"{folder} is writable by group or others: Gemini CLI skips the hooks file "
                f"{path} below it, so tether's hooks do not run (F6 still works)"
            )
    return None


def write_defaults(
    tether_root: Path, env: Mapping[str, str] | None = None, argv: list[str] | None = None
) -> tuple[Path, str | None]:
    """Write ``<.tether>/agent/gemini-system-defaults.json``; its path, and why the machine's
    own defaults were left out of it (None when they were copied or there are none)."""
    tether_root = Path(tether_root).absolute()
    machine, problem = _read_machine(machine_defaults(env))
    folder = tether_root / "agent"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DEFAULTS_NAME
    fsio.atomic_write_json(path, defaults(tether_root.parent, machine, argv))
    said = [found for found in (problem, insecure_parent(path)) if found]
    return path, "; ".join(said) or None


def defaults_env(
    tether_root: Path, env: Mapping[str, str] | None = None
) -> tuple[dict[str, str], str | None]:
    """The variable that points the agent at tether's defaults file (written now), and
    what the user should know about it (None: nothing)."""
    path, problem = write_defaults(tether_root, env)
    return {DEFAULTS_ENV: str(path)}, problem
