"""The app's layout in figures, for the CSS and for sizing the agent before any widget exists.

`tether run` spawns the agent at the view's size before Textual has laid anything
out (run/launch.py), so that size and the CSS must agree: the side pane takes
SIDE_PANE_PERCENT of the width, at least SIDE_PANE_MIN_COLS; the loss banner above
the agent's view, the status bar and the footer below it take a row each.
tests/app/test_app_terminal.py holds these to the real layout.
"""

from __future__ import annotations

SIDE_PANE_PERCENT = 38
SIDE_PANE_MIN_COLS = 40
CHROME_ROWS = 3
# The side pane's own width rule, for the app's slot and the pane alone.
SIDE_PANE_WIDTH_CSS = f"width: {SIDE_PANE_PERCENT}%; min-width: {SIDE_PANE_MIN_COLS};"
