"""Where Claude Code and Codex keep their session files, for an agent run without hooks.

Claude Code records its live session id in ``<config>/sessions/<pid>.json`` and
writes the transcript under ``<config>/projects/<slugged cwd>/<id>.jsonl``;
Codex writes rollouts under ``<home>/sessions/YYYY/MM/DD/``. Both folders
follow the agent's own environment (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
``HOME``), not tether's.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path

from supervisor.errors import TetherError
from supervisor.store import fsio

CLAUDE_TRANSCRIPT = "claude_transcript"  # profile integrations
CODEX_ROLLOUT = "codex_rollout"
COPILOT_JOURNAL = "copilot_journal"
SESSION_FILE_LIMIT = 64 * 1024  # Claude Code's sessions/<pid>.json is a few hundred bytes


def _home(env: Mapping[str, str] | None) -> Path:
    env = os.environ if env is None else env
    return Path(env["HOME"]) if env.get("HOME") else Path.home()


def claude_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's folder in the environment ``env`` (default: tether's own)."""
    value = (os.environ if env is None else env).get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser() if value else _home(env) / ".claude"


def codex_home(env: Mapping[str, str] | None = None) -> Path:
    """Codex's folder in the environment ``env`` (default: tether's own)."""
    value = (os.environ if env is None else env).get("CODEX_HOME")
    return Path(value).expanduser() if value else _home(env) / ".codex"


def copilot_home(env: Mapping[str, str] | None = None) -> Path:
    """GitHub Copilot CLI's folder in the environment ``env`` (``COPILOT_HOME`` moves it)."""
    value = (os.environ if env is None else env).get("COPILOT_HOME")
    return Path(value).expanduser() if value else _home(env) / ".copilot"


def claude_project_dir(cwd: Path, config: Path | None = None) -> Path:
    """`<config>/projects/<cwd with every non-alphanumeric character as "-">/`."""
    slug = re.sub(r"[^a-zA-Z0-9]", "-", str(Path(cwd).absolute()))
    return (config or claude_config_dir()) / "projects" / slug


def claude_session_of_pid(pid: int, config: Path | None = None) -> str | None:
    """The live session id Claude Code records in `<config>/sessions/<pid>.json`."""
    path = (config or claude_config_dir()) / "sessions" / f"{pid}.json"
    try:  # a regular file of a sane size only: never a FIFO's endless wait
        data = json.loads(fsio.read_bounded(path, SESSION_FILE_LIMIT))
    except (OSError, ValueError, RecursionError, TetherError):
        return None
    session = data.get("sessionId") if isinstance(data, dict) else None
    return session if isinstance(session, str) else None


def claude_transcript_path(cwd: Path, session_id: str, config: Path | None = None) -> Path:
    return claude_project_dir(cwd, config) / f"{session_id}.jsonl"


def newest_jsonl(folder: Path, *, since: float = 0.0, pattern: str = "*.jsonl") -> Path | None:
    """The most recently modified matching file changed after ``since`` (a new session
    file after /clear, or the rollout a fresh Codex just created)."""
    best: tuple[float, Path] | None = None
    try:
        candidates = list(folder.rglob(pattern))
    except OSError:
        return None
    for path in candidates:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        if mtime >= since and (best is None or mtime > best[0]):
            best = (mtime, path)
    return best[1] if best else None


def find_transcript(
    integrations: tuple[str, ...] | list[str] | frozenset[str],
    env: Mapping[str, str],
    pid: int,
    workdir: Path,
    *,
    since: float,
    now: float,
) -> Path | None:
    """The session file of the agent ``pid`` started in ``workdir``, if it has one yet.

    Reads folders (a directory walk for Codex): call it off the event loop.
    """
    if CLAUDE_TRANSCRIPT in integrations:
        config = claude_config_dir(env)
        session = claude_session_of_pid(pid, config)
        return claude_transcript_path(workdir, session, config) if session else None
    if CODEX_ROLLOUT in integrations:
        day = time.strftime("%Y/%m/%d", time.localtime(now))
        return newest_jsonl(codex_home(env) / "sessions" / day, since=since)
    if COPILOT_JOURNAL in integrations:
        # A session's events.jsonl appears at its first prompt (a new one after /clear).
        folder = copilot_home(env) / "session-state"
        return newest_jsonl(folder, since=since, pattern="events.jsonl")
    return None
