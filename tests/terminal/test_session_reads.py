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
    session.start()
    for _ in range(1000):
        if session.exit_status is not None:
            break
        await asyncio.sleep(0.01)
    text = b"".join(pieces).decode()
    assert text.split() == [str(n) for n in range(1, 40001)]
    assert "40000" in session.emulator.display()
    assert max(map(len, pieces)) <= session_module.SLICE
    # A turn a slice at most: the loop got its turns in between.
    assert yields > len(text) // session_module.SLICE


def test_slices_end_where_a_synchronized_frame_ends():
    """A turn that stops between slices leaves a whole frame on screen, never half of one."""
    from supervisor.terminal.session import SLICE, SYNC_END

    frame = b"\x1b[?2026h" + b"\x1b[2K" + b"r" * 5000 + SYNC_END
    backlog = frame * 60 + b"\x1b[?2026h" + b"half a frame"  # a read cut mid-frame
    session = AgentSession(["true"])
    pieces: list[bytes] = []
    session.process_output = pieces.append  # type: ignore[method-assign]
    session._backlog = backlog
    session._drain()
    assert b"".join(pieces) == backlog
    assert all(piece.endswith(SYNC_END) for piece in pieces[:-1])
    assert all(len(piece) <= SLICE for piece in pieces) and len(pieces) > 2
    assert pieces[-1].endswith(b"half a frame")  # the read's own end is not held back


def test_a_turn_after_the_loops_other_work_does_one_slice(monkeypatch):
    """The loop just spent a whole turn on something else (a repaint): one slice, then yield."""
    import time

    import supervisor.terminal.session as session_module

    monkeypatch.setattr(session_module, "SHARED_WINDOW", 60.0)
    session = AgentSession(["true"])
    pieces: list[bytes] = []
    session.process_output = pieces.append  # type: ignore[method-assign]
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
