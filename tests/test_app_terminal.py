"""The app around real children in real PTYs, driven by Pilot like a person would."""

from __future__ import annotations

import sys
import textwrap

from supervisor.app import RunConfig, TetherApp
from tests.conftest import wait_for_screen, wait_until
from widgets.terminal_view import TerminalView

BASH = ["bash", "--norc", "--noprofile"]


def make_app(tmp_path, argv, env, side_pane=False) -> TetherApp:
    return TetherApp(RunConfig(argv=argv, workdir=tmp_path, env=env, side_pane=side_pane))


async def test_typed_text_echoes_and_runs(tmp_path, shell_env):
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^\$$")
        await pilot.press(*"echo tether-$((6*7))", "enter")
        await wait_for_screen(pilot, app, r"^tether-42$")


async def test_ctrl_c_interrupts_sleep(tmp_path, shell_env):
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^\$$")
        await pilot.press(*"sleep 300", "enter")
        await wait_for_screen(pilot, app, r"sleep 300")
        await pilot.pause(0.3)
        await pilot.press("ctrl+c")
        await wait_for_screen(pilot, app, r"\^C")
        await pilot.press(*"echo after-$((1+1))", "enter")
        await wait_for_screen(pilot, app, r"^after-2$")
        assert app.session.running


async def test_alternate_screen_program_restores_the_main_screen(tmp_path, shell_env):
    script = tmp_path / "fullscreen.py"
    script.write_text(textwrap.dedent("""
        import sys, tty, termios
        out = sys.stdout
        out.write("\\x1b[?1049h\\x1b[H\\x1b[2JFULLSCREEN APP\\r\\npress a key")
        out.flush()
        fd = sys.stdin.fileno(); saved = termios.tcgetattr(fd); tty.setraw(fd)
        sys.stdin.read(1)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        out.write("\\x1b[?1049l"); out.flush()
    """))
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^\$$")
        await pilot.press(*"echo before-main", "enter")
        await wait_for_screen(pilot, app, r"^before-main$")
        await pilot.press(*f"{sys.executable} {script}", "enter")
        screen = await wait_for_screen(pilot, app, r"FULLSCREEN APP")
        assert "before-main" not in screen
        assert app.session.emulator.modes.alt_screen
        await pilot.press("x")
        screen = await wait_for_screen(pilot, app, r"^before-main$")
        assert "FULLSCREEN APP" not in screen
        assert not app.session.emulator.modes.alt_screen


async def test_resize_reaches_the_child(tmp_path, shell_env):
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TerminalView)
        await wait_for_screen(pilot, app, r"^\$$")
        rows, cols = view.size.height, view.size.width
        await pilot.press(*"stty size", "enter")
        await wait_for_screen(pilot, app, rf"^{rows} {cols}$")
        await pilot.resize_terminal(120, 40)
        await wait_until(pilot, lambda: view.size.width != cols, what="the view to resize")
        rows, cols = view.size.height, view.size.width
        await pilot.press(*"clear; stty size", "enter")
        await wait_for_screen(pilot, app, rf"^{rows} {cols}$")


async def test_colours_arrive_as_styles_in_the_view(tmp_path, shell_env):
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^\$$")
        command = r"printf '\e[1;31mRED\e[0m \e[38;2;10;200;30mTRUE\e[0m \e[4mUNDER\e[0m\n'"
        await pilot.press(*command, "enter")
        await wait_for_screen(pilot, app, r"^RED TRUE UNDER$")
        view = app.query_one(TerminalView)
        emulator = app.session.emulator
        row = next(y for y in range(emulator.rows) if emulator.row_text(y).startswith("RED"))
        await pilot.pause(0.1)
        strip = view.render_line(row)
        segments = {seg.text.strip(): seg.style for seg in strip if seg.text.strip()}
        assert segments["RED"].bold and segments["RED"].color.number == 1
        assert segments["TRUE"].color.triplet == (10, 200, 30)
        assert segments["UNDER"].underline


KEYLOGGER = """
import os, sys, tty
tty.setraw(0)
sys.stdout.write("ready\\r\\n"); sys.stdout.flush()
while True:
    data = os.read(0, 64)
    sys.stdout.write(data.hex() + "\\r\\n"); sys.stdout.flush()
    if data == b"q":
        break
"""


async def test_agent_keys_reach_the_agent_as_xterm_bytes(tmp_path, shell_env):
    app = make_app(tmp_path, [sys.executable, "-c", KEYLOGGER], shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for_screen(pilot, app, r"^ready$")
        expected = {
            "ctrl+c": "03", "ctrl+r": "12", "ctrl+o": "0f", "escape": "1b",
            "shift+tab": "1b5b5a", "tab": "09", "enter": "0d", "up": "1b5b41",
            "f2": "1b4f51", "alt+x": "1b78",
        }
        for key, hex_bytes in expected.items():
            await pilot.press(key)
            await wait_for_screen(pilot, app, rf"^{hex_bytes}$")
        bound = set(app._bindings.key_to_bindings)
        assert bound.isdisjoint(expected)
        await pilot.press("q")


async def test_demo_agent_runs_in_the_app(tmp_path, shell_env):
    shell_env["TETHER_DEMO_DELAY"] = "0.05"
    from supervisor.profiles import load_profile

    argv = load_profile("demo").argv()
    app = make_app(tmp_path, argv, shell_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        await pilot.press(*"hello demo", "enter")
        await wait_for_screen(pilot, app, r"⏺ Working on it: hello demo")
        await pilot.press(*"/compact", "enter")
        await wait_for_screen(pilot, app, r"Conversation compacted")
        await pilot.press(*"/crash", "enter")
        await wait_until(pilot, lambda: app.session.exit_status is not None, what="exit")
        assert app.session.exit_status.code == 3


async def test_scrollback_scrolls_without_disturbing_the_agent(tmp_path, shell_env):
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TerminalView)
        await wait_for_screen(pilot, app, r"^\$$")
        await pilot.press(*"seq 1 200", "enter")
        await wait_for_screen(pilot, app, r"^200$")
        await pilot.pause(0.3)
        written = app.session.bytes_read
        await pilot.press("shift+pageup")
        assert view.scroll_back > 0
        top = "".join(seg.text for seg in view.render_line(0)).strip()
        assert top.isdigit() and int(top) < 170  # history, not the live screen
        await pilot.press("shift+pagedown", "shift+pagedown")
        assert view.scroll_back == 0
        await pilot.pause(0.3)
        assert app.session.bytes_read == written  # bash saw nothing: no echo came back
        await pilot.press("shift+pageup")
        await pilot.press("x")  # a key for the agent returns the view to the live screen
        assert view.scroll_back == 0
