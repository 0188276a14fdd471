"""The agent appends to notes.md with `tether note` while the user types in the Notes pane.

The agent is a real subprocess running the real CLI in a loop; the user is
Pilot typing whole lines at the end of the file and, whenever the pane shows
a conflict, choosing "Merge both" as a person would. Afterwards every line of
both is on disk, and the pane shows exactly what is on disk.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from textual.widgets import TextArea

from supervisor.store import tether_dir as store
from tests.conftest import wait_until
from tests.locations import REPO as ROOT
from tests.pane_screens import PaneHarness
from widgets.side_pane.notes_pane import NotesPane

AGENT_LINES = 15
USER_LINES = 12

AGENT = textwrap.dedent(
    """
    import subprocess, sys
    work, count = sys.argv[1], int(sys.argv[2])
    for i in range(count):
        subprocess.run(
            [sys.executable, "-m", "supervisor.cli", "note", "done", f"agent-line-{i}",
             "--dir", work],
            check=True, stdout=subprocess.DEVNULL,
        )
    """
)


async def resolve_by_merging(pilot, pane: NotesPane) -> None:
    if pane.conflicted:
        await pilot.click("#notes-merge")
        await pilot.pause()


async def test_no_line_is_lost_when_the_agent_and_the_user_edit_notes_together(tmp_path):
    tether = store.init(tmp_path, goal="concurrent edits").tether
    app = PaneHarness(tether, "notes", watch=True)
    conflicts: list[NotesPane.Conflict] = []

    def hook(message) -> None:
        if isinstance(message, NotesPane.Conflict) and message not in conflicts:
            conflicts.append(message)

    async with app.run_test(size=(90, 50), message_hook=hook) as pilot:
        pane = app.query_one(NotesPane)
        editor = app.query_one("#notes-editor", TextArea)
        agent = subprocess.Popen(
            [sys.executable, "-c", AGENT, str(tmp_path), str(AGENT_LINES)], cwd=ROOT
        )
        try:
            for i in range(USER_LINES):
                await resolve_by_merging(pilot, pane)
                editor.focus()
                editor.move_cursor(editor.document.end)
                await pilot.press(*f"user-line-{i}", "enter")
                await pilot.pause(0.15)
            deadline = time.monotonic() + 60
            while agent.poll() is None and time.monotonic() < deadline:
                await resolve_by_merging(pilot, pane)
                await pilot.pause(0.1)
            assert agent.wait(timeout=5) == 0
        finally:
            if agent.poll() is None:
                agent.kill()

        async def settled() -> bool:
            await resolve_by_merging(pilot, pane)
            return not pane.dirty and not pane.conflicted and editor.text == tether.read_notes()

        deadline = time.monotonic() + 30
        while not await settled():
            assert time.monotonic() < deadline, "the pane never settled"
            await pilot.pause(0.1)
        await wait_until(pilot, lambda: editor.text == tether.read_notes(), what="a stable file")

    # Conflicts are likely but timing-dependent; each one was resolved by a merge above.
    print(f"{len(conflicts)} conflict(s) merged")
    final = tether.read_notes().split("\n")
    for i in range(AGENT_LINES):
        assert f"- agent-line-{i}" in final, f"the agent's line {i} was lost"
    for i in range(USER_LINES):
        assert f"user-line-{i}" in final, f"the user's line {i} was lost"
    assert final.index("## Phase") < final.index("- agent-line-0"), "the template is intact"
