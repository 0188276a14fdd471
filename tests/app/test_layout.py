"""The agent's pane comes first: its width at common terminal sizes, the side pane hidden and
shown by its key, and what the status bar says while the pane is hidden."""

from __future__ import annotations

import pytest

from supervisor.app import RunConfig, TetherApp
from supervisor.config.layout import side_pane_cols
from supervisor.run.launch import view_size
from tests.conftest import demo_app, wait_for_screen, wait_until
from widgets.side_pane import SidePane
from widgets.side_slot import SideSlot

# (terminal size, the agent's columns, whether the pane shows by itself)
SIZES = [((80, 24), 80, False), ((120, 40), 120, False), ((200, 50), 124, True)]


def make_app(tmp_path, shell_env) -> TetherApp:
    config = RunConfig(argv=["sleep", "30"], workdir=tmp_path, env=shell_env, side_pane=True)
    return TetherApp(config)


async def pane_mounted(pilot, app: TetherApp) -> SidePane:
    await wait_until(
        pilot, lambda: app.query(SidePane) and app.query_one(SidePane).is_mounted, what="the pane"
    )
    return app.query_one(SidePane)


def test_the_pane_shrinks_before_the_agent_drops_under_100_columns():
    assert side_pane_cols(200) == 76
    assert side_pane_cols(160) == 60
    assert side_pane_cols(150) == 50  # 38% would leave the agent 93
    assert side_pane_cols(140) == 40
    assert side_pane_cols(139) == 0  # collapses rather than squeeze the agent
    assert side_pane_cols(80, wanted=True) == 40  # the user asked for it
    assert side_pane_cols(200, wanted=False) == 0
    assert view_size(120, 40, side_pane=True) == (120, 37)


@pytest.mark.parametrize(("size", "agent_cols", "shown"), SIZES)
async def test_the_agent_width_at_each_size_and_the_pane_key_hides_and_shows(
    tmp_path, shell_env, size, agent_cols, shown
):
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=size) as pilot:
        await pane_mounted(pilot, app)
        await pilot.pause()
        slot = app.query_one(SideSlot)
        assert app.terminal.size.width == agent_cols
        assert (app.session.emulator.cols, app.session.emulator.rows) == (agent_cols, size[1] - 3)
        assert slot.display is shown
        assert ("F5 pane" in str(app.status_bar.render())) is not shown
        await pilot.press("f5")
        await wait_until(pilot, lambda: slot.display is not shown, what="the pane to toggle")
        await pilot.pause()
        expected = agent_cols - 40 if not shown else size[0]
        await wait_until(
            pilot, lambda: app.terminal.size.width == expected, what="the agent to get the width"
        )
        await wait_until(
            pilot, lambda: app.session.emulator.cols == expected, what="the agent's resize"
        )
        await pilot.press("f5")
        await wait_until(pilot, lambda: slot.display is shown, what="the pane to toggle back")
        await wait_until(pilot, lambda: app.terminal.size.width == agent_cols, what="the width")


async def test_a_hidden_pane_leaves_a_marked_incident_in_the_status_bar(tmp_path, shell_env):
    app = demo_app(tmp_path, shell_env, side_pane=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pane_mounted(pilot, app)
        # The demo agent drops keys while it thinks: type once the brief is answered.
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")
        await pilot.press(*"/compact", "enter")
        await wait_until(
            pilot, lambda: "⚠" in app.status_bar.render().plain, 15, "the incident mark"
        )
        line = app.status_bar.render().plain
        assert line.startswith("⚠ Context compacted (#1")  # first: 80 columns show it
        assert "F5 pane" in line
        await pilot.press("f5")
        await wait_until(
            pilot, lambda: "⚠" not in app.status_bar.render().plain, what="the mark to go"
        )


async def test_the_focus_key_shows_a_hidden_pane_for_a_look(tmp_path, shell_env):
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(80, 24)) as pilot:
        side = await pane_mounted(pilot, app)
        slot = app.query_one(SideSlot)
        assert not slot.display
        cols = app.session.emulator.cols
        await pilot.press("f9")
        await wait_until(pilot, lambda: side.has_focus_within, what="the pane's keys")
        assert slot.display
        await wait_until(pilot, lambda: slot.region.width, what="the look laid out")
        assert slot.region.right == 80 and slot.region.width == 40  # over the agent's right
        await pilot.pause(0.3)
        assert app.terminal.size.width == 80 and app.session.emulator.cols == cols  # no resize
        await pilot.press("f9")
        await wait_until(pilot, lambda: app.terminal.has_focus, what="the agent's keys")
        assert not slot.display
        await pilot.press("f9")
        await wait_until(pilot, lambda: side.has_focus_within, what="the pane's keys")
        assert slot.display
        await pilot.click("#terminal", offset=(2, 2))  # focus back to the agent by the mouse
        await wait_until(pilot, lambda: not slot.display, what="the look to end")
        assert app.terminal.has_focus
        await pilot.press("f9", "f5")  # a look, then the pane key: it stays, focus goes back
        await wait_until(pilot, lambda: slot.wanted is True, what="the pane key")
        assert slot.display and not slot.peeking


async def test_a_banner_too_long_for_the_agents_width_ends_in_an_ellipsis(tmp_path, shell_env):
    app = make_app(tmp_path, shell_env)
    async with app.run_test(size=(80, 24)) as pilot:
        await pane_mounted(pilot, app)
        app.banner.show("Context compacted (#3, auto) — " + "a very long reason " * 8, "warning")
        await pilot.pause()
        row = app.banner.render_line(0).text
        assert row.rstrip().endswith("…")
        assert row.strip().startswith("Context compacted (#3, auto)")


async def test_the_pane_key_is_configurable_and_the_old_one_goes_to_the_agent(tmp_path, shell_env):
    import sys

    from supervisor.config.keymap import Keymap, load_keymap

    keys = tmp_path / "keys.toml"
    keys.write_text('side_pane = "f11"\n')
    assert load_keymap(keys) == Keymap(side_pane="f11")
    logger = "import os,sys,tty\ntty.setraw(0)\nprint('ready',flush=True)\n" + (
        "while True: sys.stdout.write(os.read(0,64).hex()+'\\r\\n'); sys.stdout.flush()"
    )
    config = RunConfig(
        argv=[sys.executable, "-c", logger],
        workdir=tmp_path,
        env=shell_env,
        keymap=load_keymap(keys),
    )
    app = TetherApp(config)
    async with app.run_test(size=(200, 50)) as pilot:
        await pane_mounted(pilot, app)
        await wait_for_screen(pilot, app, r"ready")
        slot = app.query_one(SideSlot)
        await pilot.press("f11")
        await wait_until(pilot, lambda: not slot.display, what="the pane to hide")
        await pilot.press("f5")
        await wait_for_screen(pilot, app, r"1b5b31357e$")  # ESC [ 1 5 ~ reached the agent
        assert not slot.display
        assert "F11 pane" in app.status_bar.render().plain
