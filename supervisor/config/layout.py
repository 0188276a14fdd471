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
