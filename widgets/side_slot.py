"""The side pane's place beside the agent: as wide as the layout allows, or hidden.

The agent's terminal comes first. The slot takes the width
:func:`side_pane_cols` gives for the screen's width and hides itself when the
agent would drop under about 100 columns; the pane key shows or hides it
whatever the width, and that choice then holds across resizes. While the pane
is hidden, F9 (the focus key) shows it for a look, floating over the agent's
terminal so the agent keeps its size (and does not redraw), and hides it again
when focus goes back to the agent.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.message import Message

from supervisor.config.layout import side_pane_cols

FOOTER_ROWS = 2  # the status bar and the footer under the slot


class SideSlot(Vertical):
    """Holds the side pane; sizes and hides it, and says so with :class:`Toggled`."""

    DEFAULT_CSS = """
    SideSlot { height: 1fr; width: 40; }
    """

    class Toggled(Message):
        """The pane was shown or hidden (by the user, by a resize, or for a look)."""

        def __init__(self, slot: SideSlot, shown: bool) -> None:
            super().__init__()
            self.slot = slot
            self.shown = shown

        @property
        def control(self) -> SideSlot:
            return self.slot

    def __init__(self, columns: int, rows: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.wanted: bool | None = None  # the user's choice; None: by the width
        self.peeking = False  # shown for a look while it would be hidden
        self.shown = True
        self._columns = columns
        self._rows = rows
        self._apply(post=False)

    def fit(self, columns: int, rows: int) -> None:
        """The screen is ``columns`` x ``rows`` now."""
        self._columns, self._rows = columns, rows
        self._apply()

    def toggle(self) -> None:
        """The pane key: hide a shown pane, show a hidden one, and keep it so (a pane shown
        for a look stays)."""
        self.wanted = self.peeking or not self.shown
        self.peeking = False
        self._apply()

    def peek(self) -> None:
        """Show a hidden pane until :meth:`unpeek` (focus moved to it and back)."""
        if not self.shown:
            self.peeking = True
            self._apply()

    def unpeek(self) -> None:
        if self.peeking:
            self.peeking = False
            self._apply()

    def on_descendant_blur(self) -> None:
        """A look ends when focus leaves the pane any way (a click on the agent too), so the
        floating pane never hides the agent's text while the agent has the keys."""
        if self.peeking:
            self.call_after_refresh(self._unpeek_if_left)

    def _unpeek_if_left(self) -> None:
        focused = self.screen.focused
        if focused is None or (focused is not self and self not in focused.ancestors):
            self.unpeek()

    def _apply(self, *, post: bool = True) -> None:
        wanted = True if self.peeking else self.wanted
        width = side_pane_cols(self._columns, wanted)
        shown = width > 0
        styles = self.styles
        if width:
            styles.width = width
        if self.peeking:  # over the agent's right edge, out of the layout: no resize
            styles.overlay = "screen"
            styles.position = "absolute"
            styles.offset = (max(0, self._columns - width), 0)
            styles.height = max(1, self._rows - FOOTER_ROWS)
        else:
            styles.overlay = "none"
            styles.position = "relative"
            styles.offset = (0, 0)
            styles.height = "1fr"
        self.display = shown
        if shown != self.shown:
            self.shown = shown
            if post:
                self.post_message(self.Toggled(self, shown))
