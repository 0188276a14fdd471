"""How the session reads: in turns bounded in time, slices that end with a frame, and the
loop's other work in between."""

from __future__ import annotations

import time

from supervisor.terminal.session import TURN_SECONDS, AgentSession


def test_output_read_in_one_turn_reaches_the_screen_whole(tmp_path):
    import asyncio
    import sys

    async def run() -> AgentSession:
        script = "import sys; sys.stdout.write('x' * 100000 + 'END'); sys.stdout.flush()"
        session = AgentSession([sys.executable, "-c", script], cols=100, rows=5, cwd=str(tmp_path))
        done = asyncio.Event()
        session.exit_listeners.append(lambda status: done.set())
        session.start()
        await asyncio.wait_for(done.wait(), 20)
        return session

    session = asyncio.run(run())
    assert session.bytes_read >= 100003
    assert session.emulator.display()[-1].rstrip().endswith("END")


async def test_a_read_is_worked_off_in_slices_that_yield_to_the_loop(tmp_path, monkeypatch):
    """Even when every slice runs out the turn's time, all output arrives, in order."""
    import asyncio

    import supervisor.terminal.session as session_module

    monkeypatch.setattr(session_module, "TURN_SECONDS", 0.0)
    argv = ["seq", "1", "40000"]
    session = AgentSession(argv, cols=40, rows=10, cwd=str(tmp_path))
    pieces: list[bytes] = []
    session.listeners.append(lambda data, result: pieces.append(data))
    yields = 0
    original = session._drain

    def counting_drain() -> None:
        nonlocal yields
        yields += 1
        original()

    session._drain = counting_drain
    exited = asyncio.Event()
    session.exit_listeners.append(lambda status: exited.set())
    session.start()
    await asyncio.wait_for(exited.wait(), 120)  # every slice read, the child reaped
    text = b"".join(pieces).decode()
    assert text.split() == [str(n) for n in range(1, 40001)]
    assert "40000" in session.emulator.display()
    assert max(map(len, pieces)) <= session_module.SLICE
    # A turn a slice at most: the loop got its turns in between.
    assert yields > len(text) // session_module.SLICE


def test_slices_end_where_a_synchronized_frame_ends(monkeypatch):
    """A turn that stops between slices leaves a whole frame on screen, never half of one."""
    import supervisor.terminal.session as session_module
    from supervisor.terminal.session import SLICE, SYNC_END

    monkeypatch.setattr(session_module, "TURN_SECONDS", 0.0)  # a slice a turn
    frame = b"\x1b[?2026h" + b"\x1b[2K" + b"r" * 5000 + SYNC_END
    backlog = frame * 60 + b"\x1b[?2026h" + b"half a frame"  # handed back cut mid-frame
    session = AgentSession(["true"])
    told: list[tuple[bytes, bool]] = []
    modes = session.emulator.modes
    session.listeners.append(lambda data, result: told.append((data, modes.synchronized_output)))
    session._backlog = backlog
    for _ in range(100):
        if not session._backlog:
            break
        session._drain()
    assert b"".join(data for data, _ in told) == backlog
    assert all(data.endswith(SYNC_END) and not mid for data, mid in told[:-1])
    assert all(len(data) <= SLICE for data, _ in told) and len(told) > 2
    assert told[-1][0].endswith(b"half a frame")  # what was handed back is not held back


def test_a_turn_after_the_loops_other_work_does_one_slice(monkeypatch):
    """The loop just spent a whole turn on something else (a repaint): one slice, then yield."""
    import time

    import supervisor.terminal.session as session_module

    monkeypatch.setattr(session_module, "SHARED_WINDOW", 60.0)
    session = AgentSession(["true"])
    pieces: list[bytes] = []
    session.listeners.append(lambda data, result: pieces.append(data))
    session._backlog = b"y" * (session_module.SLICE * 10)
    session._turn_ended_at, session._turn_ended_cpu = time.perf_counter(), time.thread_time()
    while time.thread_time() - session._turn_ended_cpu < TURN_SECONDS:
        pass  # the loop's other work, on this thread
    session._drain()
    assert len(pieces) == 1 and session._backlog_at == session_module.SLICE

    monkeypatch.setattr(session_module, "TURN_SECONDS", 60.0)
    session._turn_ended_at = float("-inf")  # the loop was idle since: a whole turn
    session._drain()
    assert b"".join(pieces) == b"y" * (session_module.SLICE * 10)


_HALF_A_FRAME = r"""
import sys, termios
attrs = termios.tcgetattr(0)
attrs[3] &= ~termios.ECHO  # the key that releases the rest is not echoed mid-frame
termios.tcsetattr(0, termios.TCSANOW, attrs)
w = sys.stdout.buffer.write
w(b"\x1b[?2026h\x1b[H\x1b[2Jframe one\x1b[?2026l")
sys.stdout.flush()
sys.stdin.readline()
w(b"\x1b[?2026h\x1b[H\x1b[2Jframe two, first half")  # a read with nothing else in it
sys.stdout.flush()
sys.stdin.readline()
w(b" and the rest\x1b[?2026l")
sys.stdout.flush()
sys.stdin.readline()
"""


async def test_a_frame_still_being_written_is_held_until_it_ends(tmp_path, monkeypatch):
    """The last whole frame stays on screen while the next one is half read, so that the
    repaint between two turns shows it (the emulator holds repaints mid-frame)."""
    import sys

    import supervisor.terminal.session as session_module
    from tests.conftest import until

    monkeypatch.setattr(session_module, "HOLD_SECONDS", 60.0)
    session = AgentSession(
        [sys.executable, "-c", _HALF_A_FRAME], cols=40, rows=5, cwd=str(tmp_path)
    )
    told: list[bytes] = []
    session.listeners.append(lambda data, result: told.append(data))
    session.start()
    try:
        await until(lambda: session.emulator.display()[0] == "frame one", timeout=20)
        session.write(b"\r")
        await until(lambda: session._held, timeout=20)
        assert session._held.startswith(session_module.SYNC_START)
        assert not session.emulator.modes.synchronized_output
        assert session.take_unpainted()  # the whole frame is there to paint
        session.write(b"\r")
        await until(
            lambda: session.emulator.display()[0] == "frame two, first half and the rest",
            timeout=20,
        )
        assert not session._held and not session.emulator.modes.synchronized_output
        assert all(told)  # no listener heard of output that was not there
    finally:
        session.stop()


async def test_a_frame_that_stops_halfway_is_shown_after_a_moment(tmp_path):
    """An agent that stops writing mid-frame: what it wrote is processed after HOLD_SECONDS."""
    import sys

    from tests.conftest import until

    session = AgentSession(
        [sys.executable, "-c", _HALF_A_FRAME], cols=40, rows=5, cwd=str(tmp_path)
    )
    session.start()
    try:
        await until(lambda: session.emulator.display()[0] == "frame one", timeout=20)
        session.write(b"\r")
        await until(lambda: session.emulator.display()[0] == "frame two, first half", timeout=20)
        assert not session._held
    finally:
        session.stop()


async def test_a_task_that_a_timer_woke_runs_before_the_next_turn(tmp_path):
    """A sleeper (a repaint, a key's task) waits for one turn of a flood, never two."""
    import asyncio
    import sys

    session = AgentSession(
        [sys.executable, "-c", "import sys\nfor _ in range(1500): sys.stdout.write('z' * 4000)"],
        cols=80,
        rows=10,
        cwd=str(tmp_path),
    )
    events: list[str] = []

    def slow_listener(data: bytes, result) -> None:
        started = time.perf_counter()
        while time.perf_counter() - started < 0.002:
            pass  # every turn outlasts the sleeper's 1 ms, so its timer falls due mid-turn

    session.listeners.append(slow_listener)
    original = session._drain

    def turn() -> None:
        events.append("turn")
        original()

    session._drain = turn  # type: ignore[method-assign]
    session.start()

    async def sleeper() -> None:
        while session.exit_status is None:
            await asyncio.sleep(0.001)
            events.append("woke")

    await asyncio.wait_for(sleeper(), 60)
    between = "".join("t" if e == "turn" else "|" for e in events).strip("t").split("|")
    assert events.count("turn") > 20  # a flood of turns, interleaved with the sleeper
    assert max(len(run) for run in between) <= 1, between
