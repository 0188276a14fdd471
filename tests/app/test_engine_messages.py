"""The engine reaches the app as messages from its one EngineLink; the tick reads off the loop."""

from __future__ import annotations

import json
import sys
import threading

from supervisor.app import TetherApp
from supervisor.engine_link import EngineLink
from supervisor.recognize.observations import TRANSCRIPT, USAGE, Observation
from supervisor.run.supervision import RunConfig
from tests.conftest import wait_until

CAT = [sys.executable, "-c", "import sys\nfor line in sys.stdin: print(line, end='')"]


def make_app(tmp_path, env) -> TetherApp:
    return TetherApp(RunConfig(argv=CAT, workdir=tmp_path, env=env, side_pane=False))


async def test_what_the_engine_decides_arrives_as_messages_and_updates_the_status_bar(
    tmp_path, shell_env
):
    heard: list = []
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(100, 30), message_hook=heard.append) as pilot:
        app.supervision.observe(
            Observation(USAGE, TRANSCRIPT, 0.0, details={"used": 1000, "window": 4000})
        )
        await wait_until(pilot, lambda: app.status_bar.context.startswith("1,000/4,000"))
        meters = [m for m in heard if isinstance(m, EngineLink.MeterChanged)]
        assert meters and meters[-1].meter.used == 1000
        app.session.write(b"\x04")  # end of input: the agent exits on its own
        await wait_until(pilot, lambda: any(isinstance(m, EngineLink.AgentExited) for m in heard))
        await wait_until(pilot, lambda: app.status_bar.agent_state.startswith("exited"))


async def test_a_hook_event_on_disk_is_read_on_a_worker_and_applied_on_the_loop(
    tmp_path, shell_env
):
    app = make_app(tmp_path, shell_env)
    readers: list[str] = []
    read_tick = app.supervision.read_tick

    def spy(*args, **kwargs):
        readers.append(threading.current_thread().name)
        return read_tick(*args, **kwargs)

    app.supervision.read_tick = spy
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: readers, what="a tick")
        record = {"at": "2026-01-01T00:00:00.000Z", "kind": "hook", "source": "hook"}
        record.update(event="PostCompact", payload={"trigger": "manual"})
        with open(app.supervision.tether.events, "a") as events:
            events.write(json.dumps(record) + "\n")
        await wait_until(pilot, lambda: app.supervision.fusion.incidents, what="the incident")
        assert threading.main_thread().name not in readers
        await wait_until(pilot, lambda: "compacted" in app.banner.text.lower(), what="banner")


async def test_the_side_panes_watcher_wakes_a_read_without_waiting_for_the_poll(
    tmp_path, shell_env, monkeypatch
):
    import supervisor.app

    monkeypatch.setattr(supervisor.app, "TICK_SECONDS", 3600.0)  # the poll never comes
    app = TetherApp(RunConfig(argv=CAT, workdir=tmp_path, env=shell_env, side_pane=True))
    async with app.run_test(size=(140, 30)) as pilot:
        # Mounted: its watcher started, and the watches are placed as it starts (inotify
        # keeps what changes from then on, the observer's thread up or not).
        await wait_until(pilot, lambda: app.query("#side") and app.query_one("#side").is_mounted)
        record = {"at": "2026-01-01T00:00:00.000Z", "kind": "hook", "source": "hook"}
        record.update(event="PostCompact", payload={"trigger": "auto"})
        with open(app.supervision.tether.events, "a") as events:
            events.write(json.dumps(record) + "\n")
        await wait_until(pilot, lambda: app.supervision.fusion.incidents, what="the incident")


async def test_the_agents_output_reaches_the_view_as_messages_and_a_flood_queues_no_backlog(
    tmp_path, shell_env
):
    from textual.widget import Widget

    heard: list = []
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(100, 30), message_hook=heard.append) as pilot:
        await wait_until(pilot, lambda: app.session.running, what="the agent")
        (listener,) = app.session.screen_listeners  # the link's, not a widget's method
        assert not isinstance(getattr(listener, "__self__", None), Widget)
        await pilot.press(*"echo me", "enter")
        await wait_until(pilot, lambda: "echo me" in "\n".join(app.session.emulator.display()))
        assert any(isinstance(m, EngineLink.ScreenChanged) for m in heard)

        def handled() -> int:  # the hook hears each message as it is dispatched
            return sum(isinstance(m, EngineLink.ScreenChanged) for m in heard)

        before = handled()
        for n in range(100):  # 100 reads, with no turn of the loop between them
            app.session.process_output(f"line {n}\r\n".encode())
        await wait_until(pilot, lambda: handled() > before, what="the repaint's message")
        await pilot.pause()
        assert handled() - before <= 3  # the queued ones replaced one another
        shown = "\n".join(app.terminal.render_line(y).text for y in range(app.terminal.size.height))
        assert "line 99" in shown
