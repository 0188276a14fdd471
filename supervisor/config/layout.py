"""The app's layout in figures, for the CSS and for sizing the agent before any widget exists.

`tether run` spawns the agent at the view's size before Textual has laid anything
out (run/launch.py), so that size and the layout must agree: the side pane takes
SIDE_PANE_PERCENT of the width, at least SIDE_PANE_MIN_COLS, but leaves the agent
AGENT_MIN_COLS or gets out of the way (widgets/side_slot.py); the loss banner above
the agent's view, the status bar and the footer below it take a row each.
tests/app/test_app_terminal.py and tests/app/test_layout.py hold these to the real layout.
"""

from __future__ import annotations

SIDE_PANE_PERCENT = 38
SIDE_PANE_MIN_COLS = 40
AGENT_MIN_COLS = 100
CHROME_ROWS = 3
# The side pane's own width rule, for the pane alone (in the app, its slot sizes it).
SIDE_PANE_WIDTH_CSS = f"width: {SIDE_PANE_PERCENT}%; min-width: {SIDE_PANE_MIN_COLS};"


def side_pane_cols(columns: int, wanted: bool | None = None) -> int:
    """The side pane's width in a terminal ``columns`` wide; 0 when it is hidden.

    The agent comes first: by itself (``wanted`` None) the pane shrinks so that the agent
    keeps AGENT_MIN_COLS, and collapses when even its minimum would not leave them (Claude
    Code is unusable at 40 columns). ``wanted`` is the user's own choice (the pane key).
    """
    if wanted is False:
        return 0
    share = max(SIDE_PANE_MIN_COLS, columns * SIDE_PANE_PERCENT // 100)
    room = columns - AGENT_MIN_COLS
    if wanted is None and room < SIDE_PANE_MIN_COLS:
        return 0
    return max(SIDE_PANE_MIN_COLS, min(share, room))


def view_size(columns: int, lines: int, *, side_pane: bool) -> tuple[int, int] | None:
    """The agent view's size in a terminal of ``columns`` x ``lines``; None if it is too
    small to show an agent (the view then starts the agent once it has a usable size).

    Here rather than in run/launch.py: `tether run` sizes the agent before the engine
    that launch.py imports (run/early_spawn.py)."""
    cols = columns
    if side_pane:
        cols -= side_pane_cols(columns)
    rows = lines - CHROME_ROWS
    if cols < 2 or rows < 2:
        return None
    return cols, rows
