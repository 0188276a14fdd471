"""The early painter: the agent's first screen shown before the UI, and no byte lost to it."""

from __future__ import annotations

import asyncio
import os
import sys
import time

from supervisor.terminal.early_painter import ENTER, LEAVE, EarlyPainter
from supervisor.terminal.session import AgentSession

SCRIPT = (
    "import sys,time; sys.stdout.write('\\x1b[31mfirst\\x1b[0m frame\\r\\nline two');"
    " sys.stdout.flush(); time.sleep(30)"
)


def _drain(fd: int) -> bytes:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _wait(predicate, what: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def test_the_first_screen_is_painted_below_the_banner_and_every_byte_handed_back():
    session = AgentSession([sys.executable, "-c", SCRIPT], cols=40, rows=6)
    seen: list[bytes] = []
    session.listeners.append(lambda data, result: seen.append(data))
    read_fd, write_fd = os.pipe()
    session.spawn()
    try:
        painter = EarlyPainter(session, top=1, out_fd=write_fd).start()
        _wait(lambda: painter.frames >= 1 and b"line two" in b"".join(painter._chunks), "painted")
        held = painter.finish()
        terminal = _drain(read_fd)
        assert terminal.startswith(ENTER)
        # Row 0 of the agent goes to the terminal's row 2 (row 1 is the banner's), in red.
        assert b"\x1b[2;1H\x1b[0;38;5;1mfirst\x1b[0m frame" in terminal
        assert b"\x1b[3;1H" in terminal and b"line two" in terminal
        assert held.startswith(b"\x1b[31mfirst") and b"line two" in held
        assert session.bytes_read == 0  # the session has processed nothing yet

        session.hand_back(held)

        async def read_on() -> None:
            session.read_on(asyncio.get_running_loop())
            while session.bytes_read < len(held):
                await asyncio.sleep(0.01)

        asyncio.run(asyncio.wait_for(read_on(), 15))
        assert b"".join(seen) == held  # the recorder and detectors get the very same bytes
        assert session.emulator.display()[:2] == ["first frame", "line two"]
        painter.release()
        assert _drain(read_fd) == LEAVE  # only when no UI took the screen over
    finally:
        session.stop()
        os.close(read_fd)
        os.close(write_fd)


def test_nothing_is_painted_or_given_back_while_the_agent_is_silent():
    session = AgentSession([sys.executable, "-c", "import time; time.sleep(30)"], cols=20, rows=4)
    read_fd, write_fd = os.pipe()
    session.spawn()
    try:
        painter = EarlyPainter(session, out_fd=write_fd).start()
        assert painter.finish() == b""
        painter.release()
        assert _drain(read_fd) == b"" and painter.frames == 0
    finally:
        session.stop()
        os.close(read_fd)
        os.close(write_fd)
