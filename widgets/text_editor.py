"""A text editor with the keys people expect, that leaves tether's own keys to tether.

Textual's TextArea has no key to the start or the end of the whole text, so
ctrl+Home and ctrl+End (with shift: select) are added; it binds F6 and F7 itself
(select line, select all), which would shadow tether's keys, so the F-keys go on
to the app.
"""

from __future__ import annotations

from textual.actions import SkipAction
from textual.binding import Binding
from textual.widgets import TextArea


class Editor(TextArea):
    """A TextArea with ctrl+Home / ctrl+End, F5–F10 left to the app."""

    BINDINGS = [
        Binding("ctrl+home", "text_start", "Start", show=False),
        Binding("ctrl+end", "text_end", "End", show=False),
        Binding("ctrl+shift+home", "text_start(True)", show=False),
        Binding("ctrl+shift+end", "text_end(True)", show=False),
        *(Binding(f"f{n}", "leave_to_app", show=False) for n in range(5, 11)),
    ]

    def action_text_start(self, select: bool = False) -> None:
        self.move_cursor(self.document.start, select=select)

    def action_text_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)

    def action_leave_to_app(self) -> None:
        raise SkipAction()
