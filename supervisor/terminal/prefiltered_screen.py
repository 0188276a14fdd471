"""What every emulator backend shares: the pre-filter in front, in stream order.

The pre-filter turns the child's bytes into text for the backend plus events
(query replies, cursor reports, alternate-screen switches, hard resets) at the
exact point they occur; a backend implements how its screen draws text, reports
its cursor, swaps screens and resets. Synchronized output (`?2026`) is a mode,
not an event: it holds repaints here, for every backend, with a timeout from
its last switch on, so a child killed mid-frame cannot freeze the view.
"""

from __future__ import annotations

import time

from supervisor.terminal.emulator import Cursor, FeedResult, TerminalModes
from supervisor.terminal.outer_terminal import OuterTerminal, adapt_widths
from supervisor.terminal.prefilter import (
    SOFT_RESET,
    AltScreen,
    CursorQuery,
    HardReset,
    Prefilter,
    Reply,
    SoftReset,
)


class PrefilteredScreen:
    """Base of the backends: feed() dispatches the pre-filter's output to the hooks below.

    ``sync_timeout`` bounds how long synchronized output may hold repaints, so a
    child killed between ``?2026h`` and ``?2026l`` cannot freeze the view.
    """

    def __init__(
        self,
        cols: int = 80,
        rows: int = 24,
        *,
        foreground: str = "#dddddd",
        background: str = "#000000",
        sync_timeout: float | None = 1.0,
    ) -> None:
        self.cols = max(1, cols)
        self.rows = max(1, rows)
        self.modes = TerminalModes()
        self.sync_timeout = sync_timeout
        self._prefilter = Prefilter(self.modes, foreground=foreground, background=background)
        self._scrolled: list[str] = []  # plain text of lines that left the top, for FeedResult
        self.outer = OuterTerminal()  # the user's terminal: its widths and colours (follow)
        self._sync_since = 0.0

    @property
    def title(self) -> str:
        return self._prefilter.title

    @property
    def agent_status(self) -> str:
        """The last OSC 7501 state the child announced (Codex), e.g. ``state=idle:app=codex``."""
        return self._prefilter.agent_status

    def follow(self, outer: OuterTerminal) -> None:
        """Count emoji as the user's terminal draws them, and answer colour queries with
        its colours (:mod:`~supervisor.terminal.outer_terminal`, asked at start)."""
        self.outer = outer
        self._prefilter.colours.follow(outer.foreground, outer.background, outer.palette)

    def feed(self, data: bytes, *, more: bool = False) -> FeedResult:
        if self.outer.adapts_widths:
            data = adapt_widths(data, self.outer)
        replies: list[bytes] = []
        sync_starts = self._prefilter.sync_starts
        self._filtered(data, replies)
        return self._result(replies, sync_starts)

    def _filtered(self, data: bytes, replies: list[bytes]) -> None:
        """``data`` through the pre-filter: text drawn, events acted on, replies collected."""
        draw = self._text
        for seg in self._prefilter.feed(data):
            if type(seg) is str:
                draw(seg)
            elif isinstance(seg, Reply):
                replies.append(seg.data)
            elif isinstance(seg, CursorQuery):
                replies.append(self._cursor_report(seg.private))
            elif isinstance(seg, AltScreen):
                self._alt_screen(seg)
            elif isinstance(seg, HardReset):
                self._hard_reset()
            elif isinstance(seg, SoftReset):  # the margins' reset homes: back to the cursor
                at = self.cursor  # on the screen, not in the margins (origin mode goes)
                draw(f"{SOFT_RESET}\x1b[{at.y + 1};{at.x + 1}H")

    def _result(self, replies: list[bytes], sync_starts: int) -> FeedResult:
        """What a feed produced; ``sync_starts`` as it was before the feed."""
        if self._prefilter.sync_starts != sync_starts:
            self._sync_since = time.monotonic()
        scrolled, self._scrolled = self._scrolled, []
        return FeedResult(
            replies=b"".join(replies), scrolled_off=scrolled, bell=self._prefilter.take_bell()
        )

    def process_ended(self) -> None:
        """The child is gone: reset the modes it set, keeping its last screen in view.

        A new terminal gives the next child no alternate screen, mouse, bracketed
        paste, focus reports or application keys: the injector and the key encoder
        must not honour a dead process's wishes. The last frame stays visible (moved
        to the main screen when it was on the alternate one; see the backend).
        """
        alt = self.modes.alt_screen
        self._prefilter.process_ended()
        self._sync_since = 0.0
        self._leave_for_next_process(alt)

    def new_page(self) -> None:
        """A new child starts here: the screen goes into scrollback and the cursor home,
        so the child draws on a blank page, as in a new terminal, and nothing the last
        one drew can pass for its output."""
        self._page()

    def take_dirty(self) -> set[int]:
        """Rows changed since the last call; none while synchronized output holds them
        (they are reported once it ends)."""
        self._sync()
        if self._repaints_held():
            return set()
        rows = self._dirty
        self._dirty = set()
        return rows

    def _repaints_held(self) -> bool:
        """Synchronized output is on and has not outlasted ``sync_timeout``."""
        return self.modes.synchronized_output and (
            self.sync_timeout is None or time.monotonic() - self._sync_since < self.sync_timeout
        )

    # -- what a backend provides -------------------------------------------------

    _dirty: set[int]  # rows changed since take_dirty, kept by the backend

    def _sync(self) -> None:
        """Bring ``_dirty`` up to the backend's screen (a backend that marks rows as it
        draws has nothing to do)."""

    @property
    def cursor(self) -> Cursor:
        raise NotImplementedError

    def _text(self, text: str) -> None:
        raise NotImplementedError

    def _cursor_report(self, private: bool) -> bytes:
        raise NotImplementedError

    def _alt_screen(self, switch: AltScreen) -> None:
        raise NotImplementedError

    def _hard_reset(self) -> None:
        raise NotImplementedError

    def _leave_for_next_process(self, alt: bool) -> None:
        """Leave the alternate screen (``alt``) showing its last frame; reset pen and margins."""
        raise NotImplementedError

    def _page(self) -> None:
        raise NotImplementedError
