"""Whether the user trusts a `.tether/` that came with a repository they cloned.

A `.tether/` committed to git holds another person's task, notes and decisions;
tether pastes those into the user's agent, which then acts on them. So before
the first injection in such a folder tether says so and asks (`tether run`), and
the automatic SessionStart payload stays silent until the user has said yes.

The answer is kept outside the repository, in the user's config folder
(``trusted-folders.txt``, one absolute `.tether/` path a line), so no clone can
arrive already trusted.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from supervisor.config.config_dir import config_dir
from supervisor.errors import TetherError
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir

TRUST_FILE = "trusted-folders.txt"
TRUST_LIMIT = 1024 * 1024


class TrackedFiles:
    """``git ls-files`` of `.tether/`, started at once and read when needed: `tether run`
    starts it before it imports what the agent's spawn needs, so git (10-40 ms on a
    busy machine) runs meanwhile instead of on the way to the first frame."""

    def __init__(self, tether: TetherDir) -> None:
        try:
            self._git: subprocess.Popen[bytes] | None = subprocess.Popen(
                ["git", "-C", str(tether.work_dir), "ls-files", "-z", "--", tether.root.name],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError):
            self._git = None
        self._names: list[str] | None = None

    def names(self) -> list[str]:
        """The files under `.tether/` that git tracks ([] if none, or no git, or no answer)."""
        if self._names is None:
            self._names = self._read()
        return self._names

    def _read(self) -> list[str]:
        git = self._git
        if git is None:
            return []
        try:
            out, _ = git.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            git.kill()
            git.communicate()
            return []
        if git.returncode != 0:
            return []
        return [name for name in out.decode("utf-8", "replace").split("\0") if name]


def tracked_files(tether: TetherDir) -> list[str]:
    """The files under `.tether/` that git tracks in the repository holding it ([] if none)."""
    return TrackedFiles(tether).names()


def _trust_path() -> Path:
    return config_dir() / TRUST_FILE


def _trusted() -> set[str]:
    try:
        data = fsio.read_bounded(_trust_path(), TRUST_LIMIT)
    except (OSError, TetherError):  # missing, unreadable or refused: nothing is trusted
        return set()
    return {line for line in data.decode("utf-8", "surrogateescape").splitlines() if line}


def is_trusted(tether: TetherDir) -> bool:
    return os.fsdecode(tether.root) in _trusted()


def trust(tether: TetherDir) -> None:
    """Remember that the user trusts this `.tether/` (its notes may be pasted)."""
    path = _trust_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = sorted(_trusted() | {os.fsdecode(tether.root)})
    data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")
    fsio.atomic_write_bytes(path, data)


def warning(tether: TetherDir, asked: TrackedFiles | None = None) -> str | None:
    """What to tell the user before the first injection, or None when there is nothing to ask.

    ``asked``: git's answer, started earlier (:class:`TrackedFiles`), else asked now.
    """
    tracked = (asked or TrackedFiles(tether)).names()
    if not tracked or is_trusted(tether):
        return None
    shown = ", ".join(tracked[:3]) + (f" and {len(tracked) - 3} more" if len(tracked) > 3 else "")
    return (
        f"{tether.root} is tracked by git ({shown}): its task, notes and decisions were "
        "written by whoever committed them, and tether pastes them into your agent, which "
        "acts on them. Read them first (`tether payload` shows what would be sent)"
    )
