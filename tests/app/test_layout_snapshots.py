"""SVG snapshots of the whole app at 80x24, 120x40 and 200x50: the agent's width, the side
pane hidden and shown, the status bar while it is hidden, the agent's own ANSI colours.

The agent is a real child in a real PTY printing fixed text; the `.tether/` is the fixed
one of tests/pane_screens.py. Regenerate after an intended change with ``pytest
tests/app/test_layout_snapshots.py --snapshot-update`` and look at the pictures.
"""

from __future__ import annotations

import os
import time
from functools import partial

import pytest
from textual.widgets import TextArea

from supervisor.app import RunConfig, TetherApp
from supervisor.run.banner_text import checkpoint_age
from tests.conftest import wait_for_a_still_picture, wait_for_screen, wait_until
from tests.pane_screens import write_fixture
from widgets.side_pane import SidePane
from widgets.side_slot import SideSlot

COLOURS = (
    r"printf '\033[34mblue (ESC[34m)\033[0m \033[31mred\033[0m \033[35mmagenta\033[0m "
    r"\033[1;32mbold green\033[0m \033[38;5;208m256-colour 208\033[0m "
    r"\033[38;2;255;160;60mtruecolour\033[0m\n'; sleep 600"
)


def build(tmp_path, shell_env) -> TetherApp:
    tether = write_fixture(tmp_path)
    old = time.time() - 1800
    for path in tether.checkpoints.iterdir():
        os.utime(path, (old, old))
    config = RunConfig(
        argv=["sh", "-c", COLOURS], workdir=tmp_path, env=shell_env, side_pane=True, record=False
    )
    app = TetherApp(config)
    # "30 min ago" however long the snapshot takes on a busy machine (a minute more said 31)
    supervision = app.supervision
    supervision.checkpoint_age = lambda: checkpoint_age(supervision.last_checkpoint, old + 1830)
    return app


async def settle(pilot, keys: tuple[str, ...] = ()) -> None:
    app = pilot.app
    await wait_for_screen(pilot, app, r"truecolour")
    await wait_until(
        pilot, lambda: app.query(SidePane) and app.query_one(SidePane).is_mounted, 60, "the pane"
    )
    for area in app.query(TextArea):
        area.cursor_blink = False
    slot, side = app.query_one(SideSlot), app.query_one(SidePane)
    handled = {  # what each key brings: a pause does not say a loaded machine handled it
        "f5": lambda: slot.wanted is not None,
        "f9": lambda: side.has_focus_within,
    }
    for key in keys:
        await pilot.press(key)
        await wait_until(pilot, handled[key], 60, f"{key} handled")
    view = app.terminal
    await wait_until(
        pilot,
        lambda: app.session.emulator.cols == view.size.width and not view._pending_paint,
        60,  # a busy machine: the condition decides, the bound only ends a hung test
        "the agent's new size, painted",
    )
    # The status bar says "waiting" once the agent has been quiet for a while: on a loaded
    # machine that comes later than the pane.
    await wait_until(pilot, lambda: app.status_bar.agent_state == "waiting", 60, "waiting")
    await wait_for_a_still_picture(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)])
@pytest.mark.parametrize("pane", ["by-width", "toggled", "focused"])
def test_layout_snapshot(snap_compare, tmp_path, shell_env, size, pane):
    """``focused``: F9 put the keys in the pane (a hidden one floats over the agent), whose
    border lights up and whose keys the footer shows."""
    app = build(tmp_path, shell_env)
    keys = {"by-width": (), "toggled": ("f5",), "focused": ("f9",)}[pane]
    assert snap_compare(app, terminal_size=size, run_before=partial(settle, keys=keys))
