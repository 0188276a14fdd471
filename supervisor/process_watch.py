"""The process source: how the agent ended, and whether tether itself died last time.

An agent killed by a signal or exiting non-zero lost its context as surely as
one that compacted (``crash``); a clean exit is recorded but is no loss. The
`.tether/lock` file holds the supervisor's pid while it runs; finding one whose
pid is gone at the next start means tether was stopped uncleanly, and the
agent it supervised may have lost its place (``unclean_exit``).
"""

from __future__ import annotations

import json
import os
import signal as signals
from pathlib import Path

from supervisor import fsio
from supervisor.observations import CLEAN_EXIT, CRASH, LOCK, PROCESS, UNCLEAN_EXIT, Observation


def exit_observation(
    exit_code: int | None, signal: int | None, at: float, *, requested: bool = False
) -> Observation:
    """Classify an ended agent. ``requested``: tether itself asked it to stop (quit)."""
    details: dict[str, object] = {"exit_code": exit_code, "signal": signal}
    if signal:
        try:
            details["signal_name"] = signals.Signals(signal).name
        except ValueError:
            pass
    if requested or (not signal and exit_code == 0):
        return Observation(CLEAN_EXIT, PROCESS, at, details=details)
    how = f"killed by {details.get('signal_name', signal)}" if signal else f"exit code {exit_code}"
    return Observation(CRASH, PROCESS, at, details={**details, "how": how})


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_lock(lock: Path) -> dict | None:
    try:
        data = json.loads(Path(lock).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"pid": None, "started_at": None, "unreadable": True}
    return data if isinstance(data, dict) else {"pid": None, "unreadable": True}


def stale_lock_observation(lock: Path, at: float) -> Observation | None:
    """An unclean_exit observation if ``lock`` names a supervisor that is gone, else None.

    A lock of a live process is not stale (another tether runs here: the caller
    should refuse to start); an unreadable lock is stale (a torn write).
    """
    data = read_lock(lock)
    if data is None:
        return None
    pid = data.get("pid")
    if isinstance(pid, int) and pid > 0 and pid != os.getpid() and _pid_alive(pid):
        return None
    return Observation(
        UNCLEAN_EXIT, LOCK, at, details={"pid": pid, "started_at": data.get("started_at")}
    )


def write_lock(lock: Path, started_at: str) -> None:
    fsio.atomic_write_json(Path(lock), {"pid": os.getpid(), "started_at": started_at})


def release_lock(lock: Path) -> None:
    """Remove our own lock on a clean stop (never another process's)."""
    data = read_lock(lock)
    if data is not None and data.get("pid") == os.getpid():
        Path(lock).unlink(missing_ok=True)
