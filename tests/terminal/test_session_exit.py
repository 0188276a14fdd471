"""How a session learns that its child ended: reaped from the loop, never by holding it."""

from __future__ import annotations

import asyncio

from supervisor.terminal.session import AgentSession


async def test_a_child_that_closes_the_pty_and_lives_on_is_reaped_without_holding_the_loop(
    tmp_path,
):
    script = "exec </dev/null >/dev/null 2>&1; sleep 1; exit 3"
    session = AgentSession(["sh", "-c", script], cwd=str(tmp_path))
    ticks_while_reaping: list[int] = []
    ticks = 0
    original = session._finish

    def finish() -> None:
        ticks_while_reaping.append(ticks)  # the PTY closed: the child still runs
        original()

    session._finish = finish  # type: ignore[method-assign]
    exited = asyncio.Event()
    session.exit_listeners.append(lambda status: exited.set())
    session.start()
    while not exited.is_set():
        await asyncio.sleep(0.01)
        ticks += 1
        assert ticks < 3000, "the child was never reaped"
    assert ticks_while_reaping and ticks - ticks_while_reaping[0] >= 3  # the loop ran meanwhile
    assert session.exit_status is not None and session.exit_status.code == 3


async def test_a_child_that_exits_is_reaped_with_its_status(tmp_path):
    session = AgentSession(["sh", "-c", "echo bye; exit 7"], cwd=str(tmp_path))
    exited = asyncio.Event()
    statuses = []
    session.exit_listeners.append(lambda status: (statuses.append(status), exited.set()))
    session.start()
    await asyncio.wait_for(exited.wait(), 20)
    assert [status.code for status in statuses] == [7]
    assert "bye" in "\n".join(session.emulator.display())
