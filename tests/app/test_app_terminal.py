"""The app around real children in real PTYs, driven by Pilot like a person would."""

from __future__ import annotations

import select
import sys
import textwrap
import time
from contextlib import asynccontextmanager

import pytest

from supervisor.app import RunConfig, TetherApp
from supervisor.errors import TetherError
from supervisor.run.launch import start_early, view_size
from supervisor.store import lock
from supervisor.store.tether_dir import TetherDir, init
from tests.conftest import wait_for_screen, wait_until
from widgets.terminal_view import TerminalView

BASH = ["bash", "--norc", "--noprofile"]


def make_app(tmp_path, argv, env, side_pane=False) -> TetherApp:
    return TetherApp(RunConfig(argv=argv, workdir=tmp_path, env=env, side_pane=side_pane))


@asynccontextmanager
async def bash_app(workdir, env, **run_test):
    """The app running bash in ``workdir``, 100x30 and driven by Pilot, from bash's first
    prompt on: the app and its pilot."""
    app = make_app(workdir, BASH, env)
    async with app.run_test(size=(100, 30), **run_test) as pilot:
        await wait_for_screen(pilot, app, r"^\$$")
        yield app, pilot


async def test_typed_text_echoes_and_runs(tmp_path, shell_env):
    async with bash_app(tmp_path, shell_env) as (app, pilot):
        await pilot.press(*"echo tether-$((6*7))", "enter")
        await wait_for_screen(pilot, app, r"^tether-42$")


async def test_ctrl_c_interrupts_sleep(tmp_path, shell_env):
    async with bash_app(tmp_path, shell_env) as (app, pilot):
        await pilot.press(*"sleep 300", "enter")
        await wait_for_screen(pilot, app, r"sleep 300")
        await pilot.pause(0.3)
        await pilot.press("ctrl+c")
        # bash's next prompt: a line typed before it may be dropped with the interrupted job's
        await wait_for_screen(pilot, app, r"\^C\s*\n\$")
        await pilot.press(*"echo after-$((1+1))", "enter")
        await wait_for_screen(pilot, app, r"^after-2$")
        assert app.session.running


async def test_alternate_screen_program_restores_the_main_screen(tmp_path, shell_env):
    script = tmp_path / "fullscreen.py"
    script.write_text(
        textwrap.dedent("""
        import sys, tty, termios
        out = sys.stdout
        out.write("\\x1b[?1049h\\x1b[H\\x1b[2JFULLSCREEN APP\\r\\npress a key")
        out.flush()
        fd = sys.stdin.fileno(); saved = termios.tcgetattr(fd); tty.setraw(fd)
        sys.stdin.read(1)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        out.write("\\x1b[?1049l"); out.flush()
    """)
    )
    async with bash_app(tmp_path, shell_env) as (app, pilot):
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
    async with bash_app(tmp_path, shell_env) as (app, pilot):
        view = app.query_one(TerminalView)
        rows, cols = view.size.height, view.size.width
        await pilot.press(*"stty size", "enter")
        await wait_for_screen(pilot, app, rf"^{rows} {cols}$")
        await pilot.resize_terminal(120, 40)
        await wait_until(pilot, lambda: view.size.width != cols, what="the view to resize")
        rows, cols = view.size.height, view.size.width
        await pilot.press(*"clear; stty size", "enter")
        await wait_for_screen(pilot, app, rf"^{rows} {cols}$")


async def test_colours_arrive_as_styles_in_the_view(tmp_path, shell_env):
    async with bash_app(tmp_path, shell_env) as (app, pilot):
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


async def test_standard_colours_reach_the_screen_as_ansi_and_others_stay_exact(tmp_path, shell_env):
    """ESC[34m must leave tether as ESC[34m (the user's own blue), not as the theme's RGB."""
    from rich.color import ColorSystem, ColorType
    from textual.geometry import Region

    async with bash_app(tmp_path, shell_env) as (app, pilot):
        command = (
            r"printf '\e[34mBLUE\e[0m \e[41mONRED\e[0m \e[38;5;208mORANGE\e[0m "
            r"\e[38;2;10;200;30mTRUE\e[0m\n'"
        )
        await pilot.press(*command, "enter")
        await wait_for_screen(pilot, app, r"^BLUE ONRED ORANGE TRUE$")
        await pilot.pause(0.1)
        view = app.query_one(TerminalView)
        emulator = app.session.emulator
        row = next(y for y in range(emulator.rows) if emulator.row_text(y).startswith("BLUE"))
        # What the compositor paints: the widget's lines after the app's line filters.
        (strip,) = view.render_lines(Region(0, row, view.size.width, 1))
        styles = {seg.text.strip(): seg.style for seg in strip if seg.text.strip()}
        assert styles["BLUE"].color.type == ColorType.STANDARD
        assert styles["BLUE"].color.number == 4
        assert styles["ONRED"].bgcolor.type == ColorType.STANDARD
        assert styles["ONRED"].bgcolor.number == 1
        assert styles["ORANGE"].color.type == ColorType.EIGHT_BIT
        assert styles["ORANGE"].color.number == 208
        assert styles["TRUE"].color.triplet == (10, 200, 30)
        out = "".join(
            seg.style.render(seg.text, color_system=ColorSystem.TRUECOLOR)
            for seg in strip
            if seg.style
        )
        assert "\x1b[34mBLUE" in out
        assert "38;5;208" in out and "38;2;10;200;30" in out


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
            "ctrl+c": "03",
            "ctrl+r": "12",
            "ctrl+o": "0f",
            "escape": "1b",
            "shift+tab": "1b5b5a",
            "tab": "09",
            "enter": "0d",
            "up": "1b5b41",
            "f2": "1b4f51",
            "f4": "1b4f53",  # tether's only while a dead tether's agent is left to end
            "alt+x": "1b78",
        }
        for key, hex_bytes in expected.items():
            await pilot.press(key)
            await wait_for_screen(pilot, app, rf"^{hex_bytes}$")
        bound = {key for key, active in app.active_bindings.items() if active.node is app}
        assert bound == {"f3", "f6", "f7", "f8", "f9", "f10", "f12"}
        assert bound.isdisjoint(expected)
        await pilot.press("q")


async def test_demo_agent_runs_in_the_app(tmp_path, shell_env):
    shell_env["TETHER_DEMO_DELAY"] = "0.05"
    from supervisor.config.profiles import load_profile

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
    async with bash_app(tmp_path, shell_env) as (app, pilot):
        view = app.query_one(TerminalView)
        await pilot.press(*"seq 1 200", "enter")
        await wait_for_screen(pilot, app, r"^200\n\$$")  # and bash's prompt after it
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


# -- start-up: `tether run` spawns the agent before the UI has loaded -------------------------

LAYOUTS = [(42, 10), (80, 24), (139, 30), (140, 30), (160, 48), (201, 50)]


def side_pane_mounted(app: TetherApp) -> bool:
    """The side pane mounts after the first frame; the test may not end half-way through."""
    sides = app.query("#side")
    return bool(sides) and sides.first().is_mounted


@pytest.mark.parametrize("side_pane", [True, False])
async def test_the_early_size_is_the_size_the_view_gets_and_keeps(tmp_path, shell_env, side_pane):
    """The agent is spawned at view_size() before any layout: the view must get exactly that
    size, and keep it when the side pane mounts after the first frame (no resize, no redraw)."""
    for columns, lines in LAYOUTS:
        sized: dict[int, tuple[int, int]] = {}  # the hook sees a message at each node

        def seen(message, sized=sized):
            if isinstance(message, TerminalView.Sized):
                sized[id(message)] = (message.cols, message.rows)

        config = RunConfig(
            argv=["sleep", "30"], workdir=tmp_path, env=shell_env, side_pane=side_pane
        )
        app = TetherApp(config)
        async with app.run_test(size=(columns, lines), message_hook=seen) as pilot:
            if side_pane:
                await wait_until(pilot, lambda app=app: side_pane_mounted(app), what="the pane")
            await wait_until(pilot, lambda sized=sized: sized, what="the view's size")
            await pilot.pause(0.1)  # a while for a second size, which must not come
        assert list(sized.values()) == [view_size(columns, lines, side_pane=side_pane)]


def test_a_terminal_too_small_for_an_agent_has_no_early_size():
    assert view_size(1, 24, side_pane=True) is None  # the pane collapses: 1 column left
    assert view_size(80, 4, side_pane=False) is None


async def test_output_written_before_the_ui_exists_is_shown_and_recorded(
    tmp_path, shell_env, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "160")  # what the terminal says (shutil.get_terminal_size)
    monkeypatch.setenv("LINES", "48")
    argv = ["sh", "-c", "printf 'written before the UI\\n'; sleep 30"]
    config = RunConfig(argv=argv, workdir=tmp_path, env=shell_env)
    early = start_early(config)
    assert early is not None
    assert select.select([early.session.host.fd], [], [], 10)[0], "the agent never wrote"
    app = TetherApp(config, early)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for_screen(pilot, app, r"^written before the UI$")
        await wait_until(pilot, lambda: side_pane_mounted(app), what="the side pane")
        emulator = app.session.emulator
        assert (emulator.cols, emulator.rows) == view_size(160, 48, side_pane=True)
        assert app.status_bar.agent_state
    early.abandon()  # the app did this already: harmless again
    cast = next((tmp_path / ".tether" / "sessions").glob("*.cast")).read_text()
    assert "written before the UI" in cast
    assert '"r"' not in cast  # the agent kept the size it was spawned at
    lock.acquire(TetherDir.at(tmp_path)).release()  # the app let go of the folder


def test_an_early_start_refuses_a_locked_folder_before_spawning(tmp_path, shell_env):
    init(tmp_path)
    held = lock.acquire(TetherDir.at(tmp_path))
    try:
        config = RunConfig(argv=["sh", "-c", "touch spawned"], workdir=tmp_path, env=shell_env)
        with pytest.raises(TetherError):
            start_early(config)
    finally:
        held.release()
    time.sleep(0.2)
    assert not (tmp_path / "spawned").exists()


def test_an_agent_that_cannot_start_early_leaves_the_folder_unlocked(tmp_path, shell_env):
    config = RunConfig(argv=["no-such-agent-xyz"], workdir=tmp_path, env=shell_env)
    with pytest.raises(TetherError, match="command not found"):
        start_early(config)
    lock.acquire(TetherDir.at(tmp_path)).release()


async def test_start_up_objects_are_set_aside_from_the_collector_while_the_app_runs(
    tmp_path, shell_env
):
    """A full collection must not walk Textual's and the tokenizer's lasting objects mid-flood."""
    import gc

    assert gc.get_freeze_count() == 0
    app = make_app(tmp_path, BASH, shell_env)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: gc.get_freeze_count() > 0, 20, "the heap to settle")
        await wait_for_screen(pilot, app, r"^\$$")
    assert gc.get_freeze_count() == 0  # handed back when the app ended


async def test_an_app_started_without_collections_turns_them_on_once_it_has_settled(
    tmp_path, shell_env
):
    """`tether run` disables the collector for its start-up (cli/run.py); the app freezes
    what start-up built without walking it, then collects again as usual."""
    import gc

    gc.disable()
    try:
        app = make_app(tmp_path, BASH, shell_env)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: gc.isenabled(), 20, "the collector to be back")
            assert gc.get_freeze_count() > 0
    finally:
        gc.enable()


async def test_whole_screen_repaints_are_paced_and_a_few_rows_are_not(tmp_path, shell_env):
    """A flood repaints the whole view at most once per frame; an echo is painted at once."""
    from widgets.terminal_view import FRAME_SECONDS

    async with bash_app(tmp_path, shell_env) as (app, pilot):
        view = app.query_one(TerminalView)
        now = [1000.0]
        view._clock = lambda: now[0]
        held: list[tuple[float, object]] = []
        view.set_timer = lambda delay, callback: held.append((delay, callback))  # type: ignore
        rows = app.session.emulator.rows
        view._repainted_whole_at = now[0]  # a whole repaint has just happened

        app.session.process_output(b"\x1b[2J\x1b[H" + b"flood\r\n" * (rows - 1))
        await pilot.pause()
        whole = view._full_refreshes
        assert len(held) == 1 and 0 < held[0][0] <= FRAME_SECONDS  # held for the frame
        app.session.process_output(b"\x1b[Hheld too")  # joins the waiting repaint
        await pilot.pause()
        assert len(held) == 1 and view._full_refreshes == whole

        now[0] += FRAME_SECONDS
        held[0][1]()  # the frame's time has come
        await pilot.pause()
        assert view._full_refreshes == whole + 1
        assert any("held too" in line for line in app.session.emulator.display())

        repaints = view.repaints
        app.session.process_output(b"\x1b[5;1Hecho")  # a few rows, right after a whole one
        await pilot.pause()
        assert len(held) == 1  # not held back
        assert view._full_refreshes == whole + 1 and repaints < view.repaints <= repaints + 3


async def test_the_checkpoint_key_leaves_the_terminal_live_while_git_is_slow(
    tmp_path, shell_env, held_git
):
    from textual.notifications import Notify

    from supervisor.store import checkpoints

    work = tmp_path / "repo"
    head = held_git.repository(work)
    toasts: list[str] = []

    def hook(message) -> None:
        if isinstance(message, Notify):
            toasts.append(message.notification.message)

    tether = TetherDir.at(work)
    async with bash_app(work, shell_env, message_hook=hook) as (app, pilot):
        await pilot.press("f8")
        await wait_until(pilot, lambda: held_git.calls() == 1, what="git to be asked")
        # git is in the middle of its call: the agent's terminal still takes keys and shows output.
        await pilot.press(*"echo live-$((6*7))", "enter")
        await wait_for_screen(pilot, app, r"^live-42$")
        assert checkpoints.list_seqs(tether) == [] and toasts == []
        held_git.release()
        await wait_until(pilot, lambda: toasts, what="the notification")
        assert toasts == ["Checkpoint #1 taken"]
    snapshot = checkpoints.load(tether, 1)
    assert snapshot.reason == "manual (key)"
    assert snapshot.git == {"head": head, "dirty": False}


async def test_quitting_while_git_is_slow_still_writes_the_checkpoint_the_key_asked_for(
    tmp_path, shell_env, held_git
):
    from supervisor.store import checkpoints

    work = tmp_path / "repo"
    head = held_git.repository(work)
    async with bash_app(work, shell_env) as (app, pilot):
        await pilot.press("f8")
        await wait_until(pilot, lambda: held_git.calls() == 1, what="git to be asked")
        for call in range(2, 10):  # quitting asks git itself; the key's call stays held
            held_git.release(call)
        app.exit(0)
    held_git.release(1)  # its late answer: nothing left to write
    tether = TetherDir.at(work)
    assert checkpoints.list_seqs(tether) == [1, 2]  # the key's, then the quit's last one
    snapshot = checkpoints.load(tether, 1)
    assert snapshot.reason == "manual (key)" and snapshot.git == {"head": head, "dirty": False}
    assert checkpoints.load(tether, 2).reason.startswith("agent ")
