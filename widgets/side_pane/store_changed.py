"""The one message the side pane sends its panes: a file under `.tether/` changed.

It does not bubble: the side pane posts it to the pane that shows the file,
and a bubbling copy would come straight back to the side pane.
"""

from __future__ import annotations

from pathlib import Path

from textual.message import Message


class StoreChanged(Message, bubble=False):
    """``path`` changed on disk (or is the `.tether/` folder itself: reload everything)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
