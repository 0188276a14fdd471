"""The Checkpoints tab over megabytes of notes: a preview shows the head of each file, and
a new checkpoint does not rebuild the preview of the one still highlighted.

At 4 MB of notes the whole preview took the loop 0.6 s to build and seconds to lay
out, on every checkpoint (each paste takes one).
"""

from __future__ import annotations

from textual.widgets import OptionList

from supervisor.store import checkpoints
from supervisor.store.tether_dir import init
from tests.app.test_panes import Recorder, pane_text
from tests.conftest import wait_until
from tests.pane_screens import PaneHarness
from widgets.side_pane.checkpoint_list import PREVIEW_LINES, CheckpointList

DONE_LINES = 60_000  # 4 MB of notes


async def test_a_preview_shows_the_head_of_big_notes_and_a_new_checkpoint_keeps_it(tmp_path):
    tether = init(tmp_path, goal="count to 400").tether
    line = "- [2026-12-01T10:00:00Z] wrote artifact {} with a long description of it\n"
    done = "".join(line.format(n) for n in range(DONE_LINES))
    tether.write_notes(tether.read_notes() + "\n## Done\n" + done)
    checkpoints.take(tether, "first", git=None)
    seen = Recorder()
    app = PaneHarness(tether, "checkpoints", watch=True)
    async with app.run_test(size=(90, 40), message_hook=seen) as pilot:
        await wait_until(pilot, lambda: seen.of(CheckpointList.Shown), what="the preview")
        view = pane_text(pilot, "#cp-view")
        assert "artifact 0 " in view and f"artifact {DONE_LINES - 1} " not in view
        assert "more lines: `tether show 1`" in view
        assert len(view.splitlines()) < 2 * PREVIEW_LINES + 20
        checkpoints.take(tether, "second", git=None)  # the watcher sees it; the list grows
        options = app.query_one("#cp-list", OptionList)
        await wait_until(pilot, lambda: options.option_count == 2, what="the new checkpoint")
        await pilot.pause()
        assert app.query_one(CheckpointList).highlighted == 1  # still the one shown
        assert len(seen.of(CheckpointList.Shown)) == 1  # not built again


async def test_the_checkpoints_tab_opens_on_the_newest(tmp_path):
    """Issue 26, item 7: the list filled while the tab was hidden kept its highlight on the
    first checkpoint, so the tab opened on the oldest."""
    from textual.widgets import TabbedContent

    tether = init(tmp_path, goal="count to 3").tether
    checkpoints.take(tether, "first", git=None)
    app = PaneHarness(tether, "notes", watch=True)
    async with app.run_test(size=(90, 40)) as pilot:
        listed = app.query_one(CheckpointList)
        options = app.query_one("#cp-list", OptionList)
        await wait_until(pilot, lambda: options.option_count == 1, what="the first checkpoint")
        checkpoints.take(tether, "second", git=None)
        checkpoints.take(tether, "third", git=None)
        await wait_until(pilot, lambda: options.option_count == 3, what="three checkpoints")
        app.query_one(TabbedContent).active = "tab-checkpoints"
        await wait_until(pilot, lambda: listed.highlighted == 3, what="#3 highlighted")
        # The preview is loaded on a worker (no file I/O on the loop): wait for its title.
        await wait_until(
            pilot,
            lambda: pane_text(pilot, "#cp-title").startswith("checkpoint #3"),
            what="the newest checkpoint's preview",
        )
