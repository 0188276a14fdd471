"""Whether the user trusts a `.tether/` that came with a repository they cloned.

A `.tether/` committed to git holds another person's task, notes and decisions;
tether pastes those into the user's agent, which then acts on them. So before
the first injection in such a folder tether says so and asks (`tether run`), and
the automatic SessionStart payload stays silent until the user has said yes.

The answer is kept outside the repository, in the user's config folder
(``trusted-folders.txt``, one absolute `.tether/` path a line), so no clone can
arrive already trusted. A `.tether/` that tether itself creates (``tether init``,
the first ``tether run``) is trusted from the start: the user made it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from supervisor.config.config_dir import config_dir
from supervisor.errors import TetherError
from supervisor.store import fsio, safe_git

TYPE_CHECKING = False
if TYPE_CHECKING:  # a type only: tether_dir imports this module (to trust what it made)
    from supervisor.store.tether_dir import TetherDir

TRUST_FILE = "trusted-folders.txt"
TRUST_LIMIT = 1024 * 1024


class TrackedFiles:
    """``git ls-files`` of `.tether/`, started at once and read when needed: `tether run`
    starts it before it imports what the agent's spawn needs, so git (10-40 ms on a
    busy machine) runs meanwhile instead of on the way to the first frame.

    git runs with everything that could start a program off (:mod:`.safe_git`): the
    folder is not trusted yet, which is the question. When git cannot answer (not
    installed, no repository, a repository owned by another user), :meth:`names` is
    None and :attr:`problem` says why: the caller then asks, it never assumes.
    """

    def __init__(self, tether: TetherDir) -> None:
        self.problem: str | None = None
        try:
            self._git: subprocess.Popen[bytes] | None = subprocess.Popen(
                safe_git.command(tether.work_dir, "ls-files", "-z", "--", tether.root.name),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=safe_git.environment(trusted=False),
            )
        except (OSError, subprocess.SubprocessError) as error:
            self._git = None
            self.problem = f"git could not be started: {getattr(error, 'strerror', None) or error}"
        self._names: list[str] | None = None
        self._read_once = False

    def names(self) -> list[str] | None:
        """The files under `.tether/` that git tracks ([] if none), or None when git could
        not tell (:attr:`problem` says why)."""
        if not self._read_once:
            self._names = self._read()
            self._read_once = True
        return self._names

    def _read(self) -> list[str] | None:
        git = self._git
        if git is None:
            return None
        try:
            out, err = git.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            git.kill()
            git.communicate()
            self.problem = "git did not answer in 10 s"
            return None
        if git.returncode != 0:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            said = lines[0].removeprefix("fatal: ") if lines else f"exit code {git.returncode}"
            self.problem = f"git: {said[:200]}"
            return None
        return [name for name in out.decode("utf-8", "replace").split("\0") if name]


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

    Nothing to ask: the user trusts this `.tether/` (said yes, or tether created it
    here), or git says none of it is committed. When git cannot tell, tether asks:
    a `.tether/` that came from elsewhere is not taken for the user's own.
    ``asked``: git's answer, started earlier (:class:`TrackedFiles`), else asked now.
    """
    if is_trusted(tether):
        return None
    asked = asked or TrackedFiles(tether)
    tracked = asked.names()
    if tracked is None:
        return (
            f"{tether.root} was not created by tether here, and git cannot say whether it "
            f"came with the folder ({asked.problem}): its task, notes and decisions may have "
            "been written by someone else, and tether pastes them into your agent, which "
            "acts on them. Read them first (`tether payload` shows what would be sent)"
        )
    if not tracked:
        return None
    shown = ", ".join(tracked[:3]) + (f" and {len(tracked) - 3} more" if len(tracked) > 3 else "")
    return (
        f"{tether.root} is tracked by git ({shown}): its task, notes and decisions were "
        "written by whoever committed them, and tether pastes them into your agent, which "
        "acts on them. Read them first (`tether payload` shows what would be sent)"
    )
