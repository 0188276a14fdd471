"""The screen's layout in numbers: how wide the side pane is, and when it gets out of the way.

Both the app (widgets/side_slot.py) and `tether run`, which spawns the agent at its
view's size before the UI exists (supervisor/run/launch.py), need the same answer.
"""

from __future__ import annotations

# The app's layout (supervisor/app.py, widgets/side_slot.py): the side pane takes this share
# of the width, at least SIDE_PANE_MIN_COLS, but leaves the agent AGENT_MIN_COLS or collapses;
# the loss banner above the agent's view, the status bar and the footer below it take a row
# each. tests/app/test_app_terminal.py holds this to the real layout.
SIDE_PANE_PERCENT = 38
SIDE_PANE_MIN_COLS = 40
AGENT_MIN_COLS = 100
CHROME_ROWS = 3


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
