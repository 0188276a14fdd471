"""A SIGTERM that reaches the running app ends it as the quit key does: the agent hung up
on, the lock emptied, the hook folder gone, events.jsonl saying why."""

from __future__ import annotations

import asyncio
import json
import os
import signal

from supervisor.app import TetherApp
from supervisor.run.hangup import Hangups
from supervisor.run.supervision import RunConfig
from supervisor.store.tether_dir import init
from tests.conftest import until, wait_until


async def test_a_sigterm_ends_the_app_cleanly(tmp_path, shell_env, monkeypatch):
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    work = tmp_path / "work"
    work.mkdir()
    init(work)
    hangups = Hangups()
    hangups.caught = (signal.SIGTERM,)  # on the app's loop only: the test's own stays as is
    before = signal.getsignal(signal.SIGTERM)
    app = TetherApp(RunConfig(argv=["bash", "--norc"], workdir=work, env=shell_env), None, hangups)
    loop = asyncio.get_running_loop()
    try:
        async with app.run_test(size=(120, 30)) as pilot:
            await wait_until(pilot, lambda: app.session.host is not None, what="the agent")
            agent = app.session.host.pid
            assert [p.name.split("-")[2] for p in temp.iterdir()] == [str(os.getpid())]
            os.kill(os.getpid(), signal.SIGTERM)
            await until(lambda: not app.is_running, what="the app to end")
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
        signal.signal(signal.SIGTERM, before)
    assert app.return_value == 128 + signal.SIGTERM  # what `tether run` exits with
    assert not os.path.exists(f"/proc/{agent}") or app.session.exit_status is not None
    assert (work / ".tether" / "lock").read_text() == ""
    assert list(temp.iterdir()) == []
    lines = (work / ".tether" / "events.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    assert (last["kind"], last["reason"]) == ("tether_ended", "terminated (SIGTERM)")


async def test_a_quit_records_the_agents_end_and_takes_a_last_checkpoint(tmp_path, shell_env):
    """The quit key hangs up on the agent: its end is in events.jsonl before tether's, and
    the state it left is the newest checkpoint, as when an agent exits on its own."""
    work = tmp_path / "work"
    work.mkdir()
    init(work)
    app = TetherApp(RunConfig(argv=["bash", "--norc"], workdir=work, env=shell_env))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.session.host is not None, what="the agent")
        await pilot.press("f10")
        await wait_until(pilot, lambda: len(app.screen_stack) > 1, what="the quit question")
        await pilot.press("y")
        await until(lambda: not app.is_running, what="the app to end")
    events = [
        json.loads(line) for line in (work / ".tether/events.jsonl").read_text().split("\n") if line
    ]
    kinds = [event["kind"] for event in events]
    assert kinds[-1] == "tether_ended" and "agent_exit" in kinds
    ended = next(event for event in reversed(events) if event["kind"] == "agent_exit")
    assert ended["description"] == app.session.exit_status.describe()
    newest = sorted((work / ".tether/checkpoints").glob("*.json"))[-1]
    assert json.loads(newest.read_text())["reason"] == f"agent {ended['description']}"
    assert not [e for e in events if e["kind"] == "incident"]  # a quit is not a crash
