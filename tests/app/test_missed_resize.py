"""A layout pass that Textual does not announce still reaches the agent and the editor.

Textual (8.2.8) picks whom to send a Resize by comparing a layout with the previous
one, and rebuilds that previous one at the new sizes when asked where a widget is
while the layout is out of date (its compositor's ``_full_map_invalidated``, left set
by any scroll). A loaded run hit it: the agent kept writing 120 columns into an
80-column view after the pane key, and the notes editor never wrapped. The tests
set that flag themselves (the one private touch: it is the condition under test),
ask where a widget is, and look at what the user would see.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static
from textual.widgets._tabbed_content import ContentTab
from textual.widgets._tabs import Underline

from supervisor.app import RunConfig, TetherApp
from tests.conftest import wait_until
from tests.pane_screens import write_fixture
from widgets.side_pane import SidePane
from widgets.text_editor import Editor


def _mounted(app: TetherApp) -> bool:
    return bool(app.query(SidePane)) and app.query_one(SidePane).is_mounted


def _layout_out_of_date_and_asked(app: App[object], asked: Static | SidePane) -> None:
    app.screen._compositor._full_map_invalidated = True  # as a scroll leaves it
    assert asked.region is not None  # "where is it?": the previous layout is rebuilt


async def test_the_agent_takes_the_views_new_width_when_textual_sends_no_resize(
    tmp_path, shell_env
):
    write_fixture(tmp_path)
    argv = ["sh", "-c", "echo ready; sleep 600"]
    config = RunConfig(argv=argv, workdir=tmp_path, env=shell_env, side_pane=True, record=False)
    app = TetherApp(config)
    async with app.run_test(size=(120, 40)) as pilot:  # the pane hidden by the width
        view = app.terminal
        await wait_until(pilot, lambda: _mounted(app), what="the pane")
        await wait_until(pilot, lambda: app.session.emulator.cols == 120, what="120 columns")
        app.action_toggle_pane()  # shown: the agent's view is 80 wide
        _layout_out_of_date_and_asked(app, app.query_one(SidePane))
        await wait_until(pilot, lambda: view.size.width == 80, what="the view at 80")
        await wait_until(pilot, lambda: app.session.emulator.cols == 80, what="the agent at 80")


async def test_the_front_tab_is_underlined_when_textual_sends_the_tab_bar_no_resize(
    tmp_path, shell_env
):
    write_fixture(tmp_path)
    argv = ["sh", "-c", "echo ready; sleep 600"]
    config = RunConfig(argv=argv, workdir=tmp_path, env=shell_env, side_pane=True, record=False)
    app = TetherApp(config)
    async with app.run_test(size=(120, 40)) as pilot:  # the pane hidden by the width
        await wait_until(pilot, lambda: _mounted(app), what="the pane")
        underline = app.query_one(Underline)
        app.action_toggle_pane()
        _layout_out_of_date_and_asked(app, app.query_one(SidePane))
        front = app.query_one(ContentTab)  # Notes, the first tab, in front
        await wait_until(pilot, lambda: front.size.width > 0, what="the tab bar laid out")
        await wait_until(
            pilot,
            lambda: underline.highlight_end - underline.highlight_start == front.size.width,
            what="the front tab underlined",
        )


class _Beside(App[None]):
    CSS = "#editor { width: 1fr; } #pane { width: 20; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Editor("word " * 200, id="editor", soft_wrap=True)
            yield Static("pane", id="pane")

    def on_mount(self) -> None:
        self.query_one("#pane").display = False


async def test_the_editor_wraps_at_its_new_width_when_textual_sends_no_resize():
    app = _Beside()
    async with app.run_test(size=(80, 24)) as pilot:
        editor = app.query_one(Editor)
        pane = app.query_one("#pane", Static)
        await wait_until(pilot, lambda: editor.wrapped_document.height > 1, what="wrapped")
        before = editor.wrapped_document.height
        pane.display = True  # beside it, the editor is narrower: more rows
        _layout_out_of_date_and_asked(app, pane)
        await wait_until(pilot, lambda: editor.size.width < 70, what="the editor narrower")
        await wait_until(
            pilot, lambda: editor.wrapped_document.height > before, what="wrapped narrower"
        )
