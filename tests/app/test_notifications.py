"""The app calls the user back on an incident and after a long turn, never after a short one."""

from __future__ import annotations

from supervisor.app import TetherApp
from supervisor.config.notify import NotifySettings
from tests.conftest import demo_app, wait_for_screen, wait_until


def notifying_app(tmp_path, shell_env, delay: str, after: float) -> TetherApp:
    """The demo, calling the user back after a turn of ``after`` seconds."""
    notify = NotifySettings(after_busy_seconds=after)
    return demo_app(tmp_path, shell_env, delay, notify=notify)


async def test_an_incident_rings_and_notifies(tmp_path, shell_env):
    app = notifying_app(tmp_path, shell_env, "0.05", after=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")
        await pilot.press(*"hello", "enter")
        await wait_for_screen(pilot, app, r"Working on it: hello")
        assert app.alerts == []  # a quick turn says nothing
        await pilot.press(*"/compact", "enter")
        await wait_until(pilot, lambda: app.alerts, 15, "the call")
        assert app.alerts == [
            "\x1b]9;tether: Context compacted (#1, manual)\x07"
            "\x1b]777;notify;tether;Context compacted (#1, manual)\x07\x07"
        ]


async def test_a_wait_after_a_long_turn_notifies(tmp_path, shell_env):
    app = notifying_app(tmp_path, shell_env, "2.5", after=1.5)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state", timeout=20)
        await wait_until(pilot, lambda: app.alerts, what="the call after the brief's long turn")
        app.alerts.clear()
        await pilot.pause(0.5)
        assert app.alerts == []  # one call for one wait
        await pilot.press(*"a long task", "enter")
        await wait_for_screen(pilot, app, r"Working on it: a long task", timeout=20)
        await wait_until(pilot, lambda: app.alerts, what="the call")
        assert "the agent waits for input after" in app.alerts[0]
