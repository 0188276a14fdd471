"""The app's layout in numbers, for sizing the agent before the UI exists.

`tether run` spawns the agent before Textual is loaded, at the size its view is
going to have; tests/app/test_app_terminal.py holds these to the real layout.
"""

from __future__ import annotations

# The app's layout (supervisor/app.py): the side pane takes this share of the width, at
# least SIDE_PANE_MIN_COLS; the loss banner above the agent's view, the status bar and the
# footer below it take a row each. tests/app/test_app_terminal.py holds this to the real layout.
SIDE_PANE_PERCENT = 38
SIDE_PANE_MIN_COLS = 40
CHROME_ROWS = 3


def view_size(columns: int, lines: int, *, side_pane: bool) -> tuple[int, int] | None:
    """The agent view's size in a terminal of ``columns`` x ``lines``; None if it is too
    small to show an agent (the view then starts the agent once it has a usable size)."""
    cols = columns
    if side_pane:
        cols -= max(SIDE_PANE_MIN_COLS, columns * SIDE_PANE_PERCENT // 100)
    rows = lines - CHROME_ROWS
    if cols < 2 or rows < 2:
        return None
    return cols, rows
