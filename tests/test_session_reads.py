"""How much the session reads per loop turn: a budget sized by how fast output was processed."""

from __future__ import annotations

from supervisor.session import (
    MAX_READ_PER_TURN,
    READ_PER_TURN,
    TURN_SECONDS,
    AgentSession,
)


def test_a_slow_emulator_keeps_one_small_read_per_turn():
    session = AgentSession(["true"])
    session._adapt_budget(READ_PER_TURN, TURN_SECONDS * 4)  # 8 KiB took 32 ms (pyte)
    assert session._turn_bytes == READ_PER_TURN


def test_a_fast_emulator_reads_more_per_turn_up_to_the_cap():
    session = AgentSession(["true"])
    for _ in range(20):  # every turn processed in a tenth of the time allowed
        session._adapt_budget(session._turn_bytes, TURN_SECONDS / 10)
    assert session._turn_bytes == MAX_READ_PER_TURN
    session._adapt_budget(MAX_READ_PER_TURN, TURN_SECONDS * 2)  # then a slow turn: back off
    assert READ_PER_TURN < session._turn_bytes < MAX_READ_PER_TURN


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
