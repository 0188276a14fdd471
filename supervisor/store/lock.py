"""One supervisor per folder: an advisory ``flock`` on `.tether/lock`.

The kernel releases a ``flock`` when its holder dies, however it dies, so the
lock itself never goes stale. The file's *content* (``{"pid", "started_at"}``)
outlives a crash on purpose: a clean exit empties it, so content found under a
free lock means the previous supervisor died without cleaning up, and the next
start can raise an ``unclean-exit`` incident.

The content also names the agent the supervisor ran (``agent_pid`` and the
process's start time, so a recycled pid is not taken for it; and the process must
be one that supervisor started, :func:`started_by`, as a clone can ship a lock
naming any process of the user's): an agent that
ignores SIGHUP outlives a killed supervisor, orphaned, and the next start can
say it still runs and offer to end it. The file's mtime is touched while the
supervisor lives (:meth:`SupervisorLock.heartbeat`), so after a crash it says
about when the supervisor died.

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
import signal
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from supervisor.errors import TetherError
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from supervisor.times import utc_now


@dataclass(frozen=True, slots=True)
class LockInfo:
    """What a lock file says about the supervisor that wrote it.

    ``last_alive``: epoch seconds of its last sign of life (the lock's heartbeat or
    its recording, whichever is later), known only for a previous supervisor.
    ``agent_alive``: the agent it ran is still running (same pid, same start time).
    """

    pid: int | None
    started_at: str | None
    pid_alive: bool = False
    agent_pid: int | None = None
    agent_start: int | None = None
    last_alive: float | None = None
    agent_alive: bool = False
    recording: str | None = None  # the `.cast` it writes, a file name in sessions/

    def describe(self) -> str:
        pid = "unknown pid" if self.pid is None else f"pid {self.pid}"
        started = f", started {self.started_at}" if self.started_at else ""
        return pid + started

    def lifetime(self) -> str:
        """When it started and about when it died, in words for the banner."""
        started = f"started {_clock(self.started_at)}" if self.started_at else "start unknown"
        if self.last_alive is None:
            return f"{started}, died at an unknown time"
        died = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.last_alive))
        return f"{started}, last alive {died}"

    def span(self) -> str:
        """The same, short, for the banner: ``ran 2026-05-01 09:00:00 → 09:41:00 UTC``."""
        start = _clock(self.started_at).removesuffix(" UTC") if self.started_at else "?"
        if self.last_alive is None:
            return f"started {start} UTC, died at an unknown time"
        end = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(self.last_alive))
        if end[:10] == start[:10]:
            end = end[11:]
        return f"ran {start} → {end} UTC"


def _clock(stamp: str) -> str:
    """``2026-12-01T08:10:02.123Z`` as ``2026-12-01 08:10:02 UTC``."""
    return stamp.replace("T", " ").split(".")[0].rstrip("Z") + " UTC"


def process_start(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22)."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()  # the name may hold spaces and parens
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def parent_pid(pid: int) -> int | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
        return int(data[data.rfind(b")") + 2 :].split()[1])
    except (OSError, IndexError, ValueError):
        return None


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


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _parse(data: bytes) -> LockInfo | None:
    """``None`` for an empty file (a clean exit); otherwise what it says, as far as readable."""
    if not data.strip():
        return None
    record, why = fsio.loads_why(data)
    if why is not None:
        return LockInfo(None, None)
    if not isinstance(record, dict):
        return LockInfo(None, None)
    pid = _int(record.get("pid"))
    pid = pid if pid is not None and 0 < pid < 1 << 31 else None
    started = record.get("started_at")
    agent_pid, agent_start = _int(record.get("agent_pid")), _int(record.get("agent_start"))
    agent_alive = bool(
        agent_pid
        and agent_start
        and not _gone(agent_pid, agent_start)
        and started_by(agent_pid, pid)
    )
    recording = record.get("recording")
    return LockInfo(
        pid,
        started if isinstance(started, str) else None,
        _pid_alive(pid),
        agent_pid=agent_pid,
        agent_start=agent_start,
        agent_alive=agent_alive,
        recording=recording if isinstance(recording, str) and "/" not in recording else None,
    )


#: The variable naming the hook socket tether gives every agent it starts, in a folder
#: named after that tether's pid (supervisor.agents.hook_client, a layer above this one).
AGENT_SOCKET_ENV = b"TETHER_HOOK_SOCKET="
ENVIRON_LIMIT = 1 << 20


def started_by(pid: int, supervisor_pid: int | None) -> bool:
    """Whether process ``pid`` is an agent that the tether ``supervisor_pid`` started.

    A lock a clone ships can name any pid with its right start time (both are easy to
    read in /proc), and F4 would end that process. Only an agent tether started has
    this user as its owner and, in its environment, the hook socket in the folder named
    after its tether's pid (``…/tether-hook-<pid>-<random>/s``); a planted lock cannot
    give another process that environment, so anything else is never signalled.
    """
    if supervisor_pid is None or pid <= 0:
        return False
    try:
        if os.stat(f"/proc/{pid}").st_uid != os.getuid():
            return False
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read(ENVIRON_LIMIT)
    except OSError:
        return False
    folder = f"/tether-hook-{supervisor_pid}-".encode()
    for entry in environ.split(b"\0"):
        if entry.startswith(AGENT_SOCKET_ENV):
            return folder in entry and entry.endswith(b"/s")
    return False


def end_process(pid: int, start: int | None, grace: float = 2.0) -> bool:
    """End a left-over agent: SIGTERM, then SIGKILL after ``grace`` seconds; True once gone.

    ``start`` guards against a recycled pid: nothing is signalled unless the
    process still has that start time. Blocks up to ``grace``: run it off the loop.
    """
    if start is None:
        return False  # no start time to check the pid against: never signal a stranger
    if _gone(pid, start):
        return True  # already gone (or the pid is another process's now)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if _gone(pid, start):
                return True
            time.sleep(0.02)
    return _gone(pid, start)


def _gone(pid: int, start: int) -> bool:
    """Not that process any more: exited, another one's pid now, or a zombie nobody reaped."""
    if process_start(pid) != start:
        return True
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return data[data.rfind(b")") + 2 :].split()[:1] == [b"Z"]


def _last_alive(fd: int, tether: TetherDir) -> float | None:
    """The later of the lock's heartbeat and the newest recording's last write."""
    times = [os.fstat(fd).st_mtime]
    try:
        names = sorted(p.name for p in tether.sessions.iterdir())[-2:]
        times += [(tether.sessions / name).stat().st_mtime for name in names]
    except OSError:
        pass
    return max(times)


#: A lock file holds one short JSON object; more than this is not one of ours.
LOCK_LIMIT = 4096


def _read_fd(fd: int) -> bytes:
    """The lock's content, bounded: more than :data:`LOCK_LIMIT` reads as unreadable."""
    data = os.pread(fd, LOCK_LIMIT + 1, 0)
    return b"{unreadable" if len(data) > LOCK_LIMIT else data


class SupervisorLock:
    """The held lock; ``previous`` is the supervisor that died without cleaning up, if any.

    Used from several threads (the heartbeat from the tick's reader, the release from
    the loop's end or the shutdown deadline's): every use of the descriptor holds
    ``_using``, so none of them reaches a descriptor that was closed, or whose number
    the process has given to another file since.
    """

    def __init__(self, tether: TetherDir, fd: int, previous: LockInfo | None) -> None:
        self.tether = tether
        self.previous = previous
        self._fd: int | None = fd
        self._record: dict[str, object] = {}
        self._using = threading.Lock()

    def record_agent(self, pid: int) -> None:
        """Name the agent this supervisor runs, so a next start can find it orphaned (if
        the write fails, the lock still holds; only the orphan check loses its pid)."""
        self._remember(agent_pid=pid, agent_start=process_start(pid))

    def record_recording(self, name: str) -> None:
        """Name the `.cast` this supervisor writes: `tether transcript` reads that one
        while the lock is held, never a newer-named file a clone shipped (if the write
        fails, it picks the recording written last)."""
        self._remember(recording=name)

    def _remember(self, **fields: object) -> None:
        """Add ``fields`` to the lock's record and write it, while the lock is held."""
        with self._using:
            if self._fd is None:
                return
            self._record.update(fields)
            try:
                _write(self._fd, self._record)
            except OSError:
                pass  # the lock still holds: only what the record names is older

    def heartbeat(self) -> None:
        """Touch the lock file: its mtime says the supervisor was alive until now."""
        with self._using:
            if self._fd is not None:
                try:
                    os.utime(self._fd)
                except OSError:
                    pass

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Empty the file (a clean exit) and drop the lock. Safe to call twice."""
        with self._using:
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
        if previous is not None:
            previous = replace(previous, last_alive=_last_alive(fd, tether))
        record: dict[str, object] = {"pid": os.getpid(), "started_at": utc_now()}
        _write(fd, record)
    except OSError as error:
        os.close(fd)
        raise TetherError(
            f"cannot write {tether.lock}: {error.strerror}; {fsio.write_hint(error)}"
        ) from error
    tether.sweep_temp_files()  # litter of writes a crash cut short
    opened = tether.make_private()
    if opened is not None:  # notes and recordings can hold what the user typed
        tether.record_event("made_private", "supervisor", mode_before=oct(opened), mode="0o700")
    lock = SupervisorLock(tether, fd, previous)
    lock._record = record
    return lock


def _write(fd: int, record: dict[str, object]) -> None:
    data = json.dumps(record).encode() + b"\n"
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)
    os.fsync(fd)


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
