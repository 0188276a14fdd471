"""The PTY read by a process of its own: whole output, a hand-back when it is killed, and
no agent left holding a terminal when tether itself is killed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import supervisor.terminal.session as session_module
from supervisor.terminal.pty_host import PtyHost
from supervisor.terminal.session import AgentSession
from tests.conftest import until

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the reader runs on Linux")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def _run(session: AgentSession, seconds: float = 30) -> None:
    done = asyncio.Event()
    session.exit_listeners.append(lambda status: done.set())
    session.start()
    await asyncio.wait_for(done.wait(), seconds)


async def test_a_flood_arrives_whole_through_the_reader_which_then_ends(tmp_path):
    open_fds = len(os.listdir("/proc/self/fd"))
    session = AgentSession(["seq", "1", "200000"], cols=40, rows=10, cwd=str(tmp_path))
    pieces: list[bytes] = []
    scrolled: list[str] = []
    session.listeners.append(lambda data, result: pieces.append(data))
    session.listeners.append(lambda data, result: scrolled.extend(result.scrolled_off))
    readers: list[int] = []
    session.listeners.append(lambda data, result: readers.append(session.host._reader.pid))
    await _run(session)
    assert b"".join(pieces).split() == [str(n).encode() for n in range(1, 200001)]
    assert scrolled == [str(n) for n in range(1, 200001 - 9)]  # every line that left the top
    assert readers and session.host.read_fd == session.host.fd  # read through a pipe, then done
    assert not os.path.exists(f"/proc/{readers[0]}")  # ended, and reaped
    assert len(os.listdir("/proc/self/fd")) == open_fds  # its pipe closed, the PTY too


async def test_a_killed_reader_hands_the_pty_back_to_the_session(tmp_path):
    """The agent is still there: the session reads its PTY itself from then on."""
    script = "import sys\nprint('before', flush=True)\nsys.stdin.readline()\nprint('after')"
    session = AgentSession([sys.executable, "-c", script], cols=40, rows=10, cwd=str(tmp_path))
    done = asyncio.Event()
    session.exit_listeners.append(lambda status: done.set())
    session.start()
    await until(lambda: "before" in session.emulator.display(), timeout=20)
    reader = session.host._reader
    os.kill(reader.pid, signal.SIGKILL)
    await until(lambda: session.host._reader is None, timeout=20)  # the pipe's end seen
    assert session.host.read_fd == session.host.fd
    session.write(b"go\r")
    await asyncio.wait_for(done.wait(), 20)
    assert "after" in session.emulator.display()
    assert session.exit_status.clean


async def test_reads_without_the_reader_feed_each_read_before_the_next(tmp_path, monkeypatch):
    """Read directly, a read that finds the PTY empty waits for the kernel's next 4 KiB:
    the emulator works between reads, while the kernel moves them in."""
    monkeypatch.setenv("TETHER_PTY_READER", "direct")
    session = AgentSession(["seq", "1", "100000"], cols=40, rows=10, cwd=str(tmp_path))
    calls: list[str] = []
    real_feed = session.emulator.feed

    def feed(data: bytes, *, more: bool = False):
        calls.append("feed" if data else "flush")
        return real_feed(data, more=more)

    session.emulator.feed = feed  # type: ignore[method-assign]
    original_spawn = session.spawn

    def spawn(argv=None) -> None:
        original_spawn(argv)
        host = session.host
        real_read = host.read_chunk

        def read_chunk(size: int = session_module.SLICE):
            data = real_read(size)
            calls.append("read" if data else "none")
            return data

        host.read_chunk = read_chunk  # type: ignore[method-assign]

    session.spawn = spawn  # type: ignore[method-assign]
    await _run(session)
    reads = [c for c in calls if c != "flush"]
    assert reads.count("read") > 100
    assert "read read" not in " ".join(reads)
    assert session.emulator.display()[-2] == "100000"


def test_the_reader_dies_with_tether_and_the_agent_gets_its_hangup(tmp_path):
    """A SIGKILLed tether leaves no reader holding the PTY's master open, so the agent is
    hung up on by the kernel, as it was before the reader existed."""
    code = textwrap.dedent(
        """
        import sys, time
        from supervisor.terminal.pty_host import PtyHost
        host = PtyHost(["sleep", "1000"])
        host.read_through_process()
        print(host.pid, host._reader.pid, flush=True)
        time.sleep(1000)
        """
    )
    tether = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=os.getcwd(), text=True
    )
    try:
        agent, reader = map(int, tether.stdout.readline().split())
        assert _alive(agent) and _alive(reader)
        tether.kill()
        tether.wait(10)
        for pid in (reader, agent):  # orphans now: init reaps them
            for _ in range(1000):
                if not _alive(pid):
                    break
                subprocess.run(["sleep", "0.01"])
            assert not _alive(pid), pid
    finally:
        tether.kill()
        tether.wait(10)


def test_a_host_closed_before_its_child_ends_takes_its_reader_with_it():
    host = PtyHost(["sleep", "1000"])
    host.read_through_process()
    reader = host._reader.pid
    host.terminate()
    assert not os.path.exists(f"/proc/{reader}") and not _alive(host.pid)
