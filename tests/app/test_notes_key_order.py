"""Keys to the Notes editor apply in the order they arrive, under any burst (issue 26, 6).

A terminal sends a burst (F9, ctrl+Home, Down ×4, End, "Y" typed fast or pasted by tmux)
in one read: the driver posts every key before the app has handled the first. F9's
focus change must not let a later key overtake an earlier one, and the save's reload
must not move the cursor under the keys that follow.
"""

from __future__ import annotations

from textual import events

from supervisor.app import RunConfig, TetherApp
from tests.conftest import wait_until
from tests.pane_screens import write_fixture
from widgets.side_pane import SidePane
from widgets.side_pane.notes_pane import NotesPane

BASH = ["bash", "--norc", "--noprofile"]


def burst(app: TetherApp, *keys: str) -> None:
    """Post the keys as the driver does for one read: all of them, before any is handled."""
    for key in keys:
        character = key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


def expected(text: str, line: int, insert: str) -> str:
    lines = text.split("\n")
    lines[line] += insert
    return "\n".join(lines)


async def test_a_burst_after_f9_moves_then_types_in_the_order_sent(tmp_path, shell_env) -> None:
    write_fixture(tmp_path)
    app = TetherApp(RunConfig(argv=BASH, workdir=tmp_path, env=shell_env, side_pane=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.query(NotesPane), what="the notes pane")
        pane = app.query_one(NotesPane)
        await wait_until(pilot, lambda: pane.editor.text, what="notes.md in the editor")
        before = pane.editor.text
        await pilot.press("f9")
        await wait_until(pilot, lambda: pane.editor.has_focus, what="the editor focused")
        burst(app, "ctrl+home", "down", "down", "down", "down", "end", "Y")
        await wait_until(pilot, lambda: "Y" in pane.editor.text, what="the Y typed")
        assert pane.editor.text == expected(before, 4, "Y")
        assert app.query_one(SidePane).has_focus_within
        # and again, with the editor focused and a save landing between the keys
        burst(app, "ctrl+home", "down", "down", "end", "Z")
        pane.save_now()
        burst(app, "ctrl+end", "W")
        await wait_until(pilot, lambda: "W" in pane.editor.text, what="the W typed")
        after = expected(expected(before, 4, "Y"), 2, "Z")
        assert pane.editor.text == after + "W"
