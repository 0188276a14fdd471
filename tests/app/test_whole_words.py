"""What the side pane says is never cut before its point, at the narrowest pane and wider
(issue 26, item 5): the Checkpoints buttons, the notes-conflict message, the restore
question. Each is read off the screen as drawn, words joined across the rows they wrap to.
"""

from __future__ import annotations

import re

import pytest

from tests.app.test_panes import harness, type_at_end
from tests.conftest import wait_until
from tests.pane_screens import PaneHarness, write_fixture
from widgets.side_pane import notes_pane
from widgets.side_pane.checkpoint_list import CheckpointList, ConfirmRestore
from widgets.side_pane.notes_pane import NotesPane

WIDTHS = [40, 46, 60, 76]  # the side pane's narrowest (layout.SIDE_PANE_MIN_COLS) and more


def screen_rows(app) -> list[str]:
    """The screen as the terminal shows it, row by row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def words_on_screen(app, widget=None) -> str:
    """The text drawn in ``widget``'s region (else the whole screen), rows joined, the box
    drawing gone, runs of spaces made one: a message wrapped over three rows reads whole."""
    rows = screen_rows(app)
    if widget is not None:
        region = widget.region
        rows = [row[region.x : region.right] for row in rows[region.y : region.bottom]]
    text = re.sub(r"[│┃║▊▎▌▐╭╮╰╯─━═▔▁▕▏█▀▄]", " ", " ".join(rows))
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_checkpoint_buttons_are_whole_at_every_pane_width(tmp_path, width):
    app = PaneHarness(write_fixture(tmp_path), "checkpoints")
    async with app.run_test(size=(width, 30)) as pilot:
        listed = app.query_one(CheckpointList)
        await wait_until(pilot, lambda: listed.highlighted is not None, what="the list")
        listed.marked = 1  # "Diff #1": the longest label
        await wait_until(
            pilot, lambda: any("Diff #1" in row for row in screen_rows(app)), what="the label"
        )
        rows = screen_rows(app)
        for label in ("Diff live", "Mark", "Diff #1", "Restore…"):
            assert any(label in row for row in rows), (label, rows)


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_conflict_message_is_whole_at_every_pane_width(tmp_path, monkeypatch, width):
    monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 60.0)
    app = harness(tmp_path)
    async with app.run_test(size=(width, 40)) as pilot:
        pane = app.query_one(NotesPane)
        await type_at_end(pilot, "- mine, unsaved\n")
        app.tether.add_note("done", "theirs, from the agent")
        await wait_until(pilot, lambda: pane.conflicted, what="the conflict")
        await pilot.pause()
        said = notes_pane.conflict_words("notes.md", 1, 1)
        assert said.startswith("Pick one (")
        box = app.query_one("#notes-conflict")
        assert said in words_on_screen(app, box), screen_rows(app)
        for label in ("Keep disk", "Keep mine", "Merge both"):
            assert label in words_on_screen(app, box)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48)])
async def test_the_restore_question_is_whole(tmp_path, size):
    app = PaneHarness(write_fixture(tmp_path), "checkpoints")
    async with app.run_test(size=size) as pilot:
        listed = app.query_one(CheckpointList)
        await wait_until(pilot, lambda: listed.highlighted is not None, what="the list")
        listed.action_restore()
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmRestore), what="asked")
        await pilot.pause()
        question = app.screen.question
        assert question.startswith(f"Restore checkpoint #{listed.highlighted}?")
        box = app.screen.query_one("Vertical")
        assert question in words_on_screen(app, box), screen_rows(app)
        assert "Restore (y)" in words_on_screen(app, box)
