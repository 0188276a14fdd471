"""The PTY host against real children: size, environment, exit codes, signals."""

import os
import signal
import sys
import time

import pytest

from supervisor.errors import TetherError
from supervisor.terminal.pty_host import PtyHost


def read_until(host: PtyHost, needle: bytes, timeout: float = 10.0) -> bytes:
    buffer = b""
    deadline = time.monotonic() + timeout
    while needle not in buffer and time.monotonic() < deadline:
        chunk = host.read_chunk()
        if chunk is None:
            break
        if not chunk:
            time.sleep(0.01)
        buffer += chunk
    assert needle in buffer, buffer[-500:]
    return buffer


def test_child_sees_the_window_size_and_a_truecolor_terminal():
    host = PtyHost(
        [
            sys.executable,
            "-c",
            "import os,shutil; print('SIZE', os.get_terminal_size(1)); "
            "print('ENV', os.environ['TERM'], os.environ['COLORTERM'])",
        ],
        cols=123,
        rows=45,
    )
    out = read_until(host, b"truecolor")
    assert b"columns=123, lines=45" in out
    assert b"ENV xterm-256color truecolor" in out
    assert host.wait_exit().code == 0


def test_resize_reaches_the_child():
    host = PtyHost(["bash", "--norc", "--noprofile"], cols=80, rows=24)
    host.write(b"stty size\r")
    read_until(host, b"24 80")
    host.resize(100, 30)
    host.write(b"stty size\r")
    read_until(host, b"30 100")
    host.terminate()


def test_exit_code_and_signal_are_reported():
    host = PtyHost([sys.executable, "-c", "import sys; sys.exit(7)"])
    while host.read_chunk() is not None:
        time.sleep(0.01)
    status = host.wait_exit()
    assert status.code == 7 and status.signal is None and not status.clean

    host = PtyHost(["sleep", "30"])
    os.kill(host.pid, signal.SIGKILL)
    status = host.wait_exit()
    assert status.signal == signal.SIGKILL
    assert "SIGKILL" in status.describe()


def test_missing_command_is_a_clear_error():
    with pytest.raises(TetherError, match="command not found: 'no-such-agent-xyz'"):
        PtyHost(["no-such-agent-xyz"])


def test_the_agent_starts_with_default_signals_whatever_tether_inherited():
    """A tether started as a script's background job has SIGINT ignored; the agent must not
    inherit that, or its ctrl+c interrupts nothing (a terminal resets them too)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGQUIT])
    try:
        host = PtyHost(["sh", "-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status; echo END"])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, previous)
    out = read_until(host, b"END").decode()
    masks = dict(line.split(":\t") for line in out.replace("\r", "").splitlines() if ":\t" in line)
    ignored, blocked_now = int(masks["SigIgn"], 16), int(masks["SigBlk"], 16)
    assert not ignored & (1 << (signal.SIGINT - 1)), out
    assert not blocked_now & (1 << (signal.SIGQUIT - 1)), out
    host.wait_exit()
