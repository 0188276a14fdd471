"""One supervisor per folder: an advisory ``flock`` on `.tether/lock`.

The kernel releases a ``flock`` when its holder dies, however it dies, so the
lock itself never goes stale. The file's *content* (``{"pid", "started_at"}``)
outlives a crash on purpose: a clean exit empties it, so content found under a
free lock means the previous supervisor died without cleaning up, and the next
start can raise an ``unclean-exit`` incident.

The file is opened through :func:`fsio.open_regular` (a link or a device planted
there by a cloned repository is refused, never truncated or read without end).
It is rewritten in place rather than atomically renamed: a ``flock``
belongs to an inode, and replacing the inode would let a second supervisor
lock the new file while the first still holds the old one. A crash mid-write
can leave unreadable content; that is reported as a stale lock with unknown pid.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass

from supervisor.errors import TetherError
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from supervisor.times import utc_now


@dataclass(frozen=True, slots=True)
class LockInfo:
    """What a lock file says about the supervisor that wrote it."""

    pid: int | None
    started_at: str | None
    pid_alive: bool = False

    def describe(self) -> str:
        pid = "unknown pid" if self.pid is None else f"pid {self.pid}"
        started = f", started {self.started_at}" if self.started_at else ""
        return pid + started


def _pid_alive(pid: int | None) -> bool:
    if not pid or pid <= 0 or pid >= 1 << 31:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _parse(data: bytes) -> LockInfo | None:
    """``None`` for an empty file (a clean exit); otherwise what it says, as far as readable."""
    if not data.strip():
        return None
    record, why = fsio.loads_why(data)
    if why is not None:
        return LockInfo(None, None)
    if not isinstance(record, dict):
        return LockInfo(None, None)
    pid = record.get("pid")
    pid = pid if isinstance(pid, int) and not isinstance(pid, bool) and 0 < pid < 1 << 31 else None
    started = record.get("started_at")
    return LockInfo(pid, started if isinstance(started, str) else None, _pid_alive(pid))


#: A lock file holds one short JSON object; more than this is not one of ours.
LOCK_LIMIT = 4096


def _read_fd(fd: int) -> bytes:
    """The lock's content, bounded: more than :data:`LOCK_LIMIT` reads as unreadable."""
    data = os.pread(fd, LOCK_LIMIT + 1, 0)
    return b"{unreadable" if len(data) > LOCK_LIMIT else data


class SupervisorLock:
    """The held lock; ``previous`` is the supervisor that died without cleaning up, if any."""

    def __init__(self, tether: TetherDir, fd: int, previous: LockInfo | None) -> None:
        self.tether = tether
        self.previous = previous
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Empty the file (a clean exit) and drop the lock. Safe to call twice."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
            os.fsync(fd)
        except OSError:
            pass  # then the next start reports a stale lock: the truth, if a noisy one
        finally:
            os.close(fd)

    def __enter__(self) -> SupervisorLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire(tether: TetherDir) -> SupervisorLock:
    """Take the folder's supervisor lock or refuse, naming the pid that holds it."""
    tether.check_door()
    try:
        fd = fsio.open_regular(tether.lock, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:
        raise TetherError(f"no .tether/ in {tether.work_dir}; run `tether init`") from None
    except OSError as error:
        raise TetherError(
            f"cannot open {tether.lock}: {error.strerror}; {fsio.write_hint(error)}"
        ) from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _parse(_read_fd(fd)) or LockInfo(None, None)
        os.close(fd)
        raise TetherError(
            f"another tether ({holder.describe()}) is supervising {tether.work_dir}; "
            f"stop it first, or use another folder (lock: {tether.lock})"
        ) from None
    try:
        previous = _parse(_read_fd(fd))
        data = json.dumps({"pid": os.getpid(), "started_at": utc_now()}).encode() + b"\n"
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data)
        os.fsync(fd)
    except OSError as error:
        os.close(fd)
        raise TetherError(
            f"cannot write {tether.lock}: {error.strerror}; {fsio.write_hint(error)}"
        ) from error
    tether.sweep_temp_files()  # litter of writes a crash cut short
    opened = tether.make_private()
    if opened is not None:  # notes and recordings can hold what the user typed
        tether.record_event("made_private", "supervisor", mode_before=oct(opened), mode="0o700")
    return SupervisorLock(tether, fd, previous)


def inspect(tether: TetherDir) -> tuple[str, LockInfo | None]:
    """The lock's state without taking it: ``("free"|"held"|"stale", info)``.

    ``stale`` means content is left behind but nobody holds the lock: the
    supervisor that wrote it died without a clean exit.
    """
    try:
        fd = fsio.open_regular(tether.lock, os.O_RDONLY)
    except FileNotFoundError:
        return "free", None
    try:
        info = _parse(_read_fd(fd))
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return "held", info or LockInfo(None, None)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return ("stale", info) if info is not None else ("free", None)
    finally:
        os.close(fd)
