"""The hook sockets' private folders in the temporary folder, and the sweep of dead ones.

Each supervisor's socket lives in ``tether-hook-<pid>-<random>/`` (0700), which it
removes on every exit it controls. A tether killed outright (SIGKILL, a crash of
the machine) leaves its folder behind, so a supervisor's start sweeps the folders
whose owner process is gone: only this user's, only real folders (never a link),
never a live process's. Folders named before the pid was in the name
(``tether-hook-<random>/``) are swept once they are a minute old and nobody
answers at their socket.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import threading
import time

PREFIX = "tether-hook-"
LEGACY_AGE_S = 60.0  # an unnamed owner listens within seconds of making its folder
_swept = False  # once per process: a test session starts many servers


def base_folder() -> str:
    return os.environ.get("TMPDIR") or "/tmp"


def owner_pid(name: str) -> int | None:
    """The pid in ``tether-hook-<pid>-<random>``; None for an older name."""
    head, _, rest = name.removeprefix(PREFIX).partition("-")
    return int(head) if rest and head.isdigit() else None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone's (never swept), or not a pid we can judge
    return True


def _answers(socket_path: str) -> bool:
    """Someone listens at this socket (a live supervisor of an older tether)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(socket_path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def is_stale(folder: str, now: float | None = None) -> bool:
    """Whether ``folder`` is a hook folder of ours whose owner is gone."""
    name = os.path.basename(folder)
    if not name.startswith(PREFIX):
        return False
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    pid = owner_pid(name)
    if pid is not None:
        return pid != os.getpid() and not pid_alive(pid)
    now = time.time() if now is None else now
    if now - info.st_mtime < LEGACY_AGE_S:
        return False
    return not _answers(os.path.join(folder, "s"))


def stale_folders(base: str | None = None) -> list[str]:
    base = base or base_folder()
    try:
        names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
    except OSError:
        return []
    now = time.time()
    return [path for n in names if is_stale(path := os.path.join(base, n), now)]


def sweep(base: str | None = None) -> int:
    """Remove the stale hook folders in ``base``; how many went."""
    gone = 0
    for folder in stale_folders(base):
        shutil.rmtree(folder, ignore_errors=True)
        gone += not os.path.lexists(folder)
    return gone


def sweep_soon() -> None:
    """Sweep once in this process, on a thread of its own (a first sweep of a machine
    full of them takes a while, and start-up waits for none of it)."""
    global _swept
    if _swept:
        return
    _swept = True
    threading.Thread(target=sweep, name="tether-hook-sweep", daemon=True).start()
