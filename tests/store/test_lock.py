"""One supervisor per folder, and a dead one is recognised."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

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
