"""One supervisor per folder, and a dead one is recognised."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from supervisor.errors import TetherError
from supervisor.store import lock
from supervisor.store.tether_dir import init

HOLDER = """
import sys, time
from supervisor.store import lock
from supervisor.store.tether_dir import TetherDir
held = lock.acquire(TetherDir.at(sys.argv[1]))
print("held", flush=True)
time.sleep(60)
"""


def _hold_in_child(work):
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(work)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "held"
    return child


def test_a_second_tether_on_the_same_folder_is_refused_naming_the_pid(tmp_path):
    tether = init(tmp_path).tether
    child = _hold_in_child(tmp_path)
    try:
        with pytest.raises(TetherError, match=rf"another tether \(pid {child.pid}, started"):
            lock.acquire(tether)
        state, info = lock.inspect(tether)
        assert state == "held" and info.pid == child.pid
    finally:
        child.kill()
        child.wait()


def test_a_sigkilled_holder_leaves_a_stale_lock_the_next_start_reports(tmp_path):
    tether = init(tmp_path).tether
    child = _hold_in_child(tmp_path)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    state, info = lock.inspect(tether)
    assert state == "stale" and info.pid == child.pid and not info.pid_alive
    with lock.acquire(tether) as held:
        assert held.previous is not None and held.previous.pid == child.pid
        assert held.previous.started_at
    assert lock.inspect(tether) == ("free", None)


def test_a_clean_release_leaves_no_previous_supervisor(tmp_path):
    tether = init(tmp_path).tether
    lock.acquire(tether).release()
    with lock.acquire(tether) as held:
        assert held.previous is None


def test_unreadable_lock_content_is_a_stale_lock_with_unknown_pid(tmp_path):
    tether = init(tmp_path).tether
    tether.lock.write_bytes(b'{"pid": 12')
    assert lock.inspect(tether)[0] == "stale"
    with lock.acquire(tether) as held:
        assert held.previous.pid is None and "unknown pid" in held.previous.describe()


def _planted_lock(tether, victim: subprocess.Popen, *, pid: int) -> None:
    """A lock a clone ships: it names one of the user's own processes, start time and all."""
    record = {
        "pid": pid,
        "started_at": "2026-05-01T09:00:00Z",
        "agent_pid": victim.pid,
        "agent_start": lock.process_start(victim.pid),
    }
    tether.lock.write_text(json.dumps(record))


@pytest.mark.parametrize("names", ["a dead tether", "this very process", "no tether"])
def test_a_planted_lock_cannot_name_a_process_for_f4_to_end(tmp_path, names):
    """The right pid and start time are easy to read in /proc: only an agent that tether
    started (its hook socket in its environment) is ever offered to end."""
    tether = init(tmp_path).tether
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        pid = {"a dead tether": 999_999, "this very process": os.getpid(), "no tether": None}
        _planted_lock(tether, victim, pid=pid[names])
        held = lock.acquire(tether)
        try:
            assert held.previous is not None and held.previous.agent_alive is False
        finally:
            held.release()
        assert lock.started_by(victim.pid, pid[names]) is False
    finally:
        victim.kill()
        victim.wait()


def test_an_agent_whose_environment_names_another_tethers_socket_is_not_ours(tmp_path):
    env = dict(os.environ, TETHER_HOOK_SOCKET=f"{tmp_path}/tether-hook-4242-abcdef/s")
    agent = subprocess.Popen(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
        env=env,
        stdout=subprocess.PIPE,
    )
    try:
        assert agent.stdout.readline() == b"up\n"  # its own environment, once it runs
        assert lock.started_by(agent.pid, 4242) is True  # as the tether with pid 4242 sees it
        assert lock.started_by(agent.pid, 424) is False  # a prefix of the pid is not the pid
        assert lock.started_by(agent.pid, 4243) is False
    finally:
        agent.kill()
        agent.wait()


class _WatchedGuard:
    """A lock that says when someone arrives at it (before they wait for it)."""

    def __init__(self, arrived: threading.Event) -> None:
        self._real = threading.Lock()
        self._arrived = arrived
        self._holder: int | None = None

    def __enter__(self) -> None:
        if self._holder is not None and self._holder != threading.get_ident():
            self._arrived.set()  # another thread comes while it is held: it waits
        self._real.acquire()
        self._holder = threading.get_ident()

    def __exit__(self, *_exc: object) -> None:
        self._holder = None
        self._real.release()


def test_a_release_during_a_heartbeat_waits_so_the_touch_never_hits_a_closed_descriptor(
    tmp_path, monkeypatch
):
    """The heartbeat runs on the tick's reader thread, the release on the loop's end: the
    release comes mid-touch here, and the touch still reaches the lock's own file."""
    held = lock.acquire(init(tmp_path).tether)
    release_came = threading.Event()
    held._using = _WatchedGuard(release_came)
    real_utime = os.utime
    touched: list[str] = []
    releaser = threading.Thread(target=lambda: (held.release(), release_came.set()))

    def utime_while_released(fd: int, *args: object, **kwargs: object) -> None:
        releaser.start()
        release_came.wait()  # it waits at the guard (or, unguarded, it has closed the fd)
        try:
            real_utime(fd, *args, **kwargs)
            touched.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError as error:
            touched.append(error.strerror or "error")

    monkeypatch.setattr(os, "utime", utime_while_released)
    held.heartbeat()
    releaser.join()
    assert touched == [str(tmp_path / ".tether" / "lock")]
    assert not held.held and (tmp_path / ".tether" / "lock").read_text() == ""
