"""The libghostty-vt backend of :class:`~supervisor.terminal.emulator.Emulator` (pyghostty).

libghostty-vt is Ghostty's own terminal core: it parses hundreds of MB/s and does
grapheme clusters (mode 2027), wide characters, background-colour erase, origin
mode and reflow itself, so the adapter adds little (bench/README.md has the
figures). Escape-heavy output goes through tether's pre-filter first, for the
query policy, modes, title and events, in stream order; output with no escape
or control at all (a log flood) goes to libghostty-vt as raw bytes, since the
pre-filter would only copy it. Rows are read through the render state: only
dirty rows, each in one call (ghostty_cells.py). Lines that scroll off are taken
from libghostty-vt's history after each feed, in one formatter call, then erased
there (``ED 3``): the adapter keeps its own capped scrollback, as text and as the
formatter's SGR text, turned into spans only when a row is shown.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from supervisor.terminal.emulator import Cursor, FeedResult, Row
from supervisor.terminal.ghostty_cells import RowReader, format_history, vt_line_spans
from supervisor.terminal.ghostty_ffi import Vt
from supervisor.terminal.outer_terminal import adapt_widths
from supervisor.terminal.prefilter import AltScreen
from supervisor.terminal.prefiltered_screen import PrefilteredScreen
from supervisor.terminal.raw_runs import (
    RAW_RUN,
    RawRunNotes,
    before_concealing,
    before_screen_modes,
    plain_text,
    safe_cut,
    utf8_cut,
)
from supervisor.terminal.style_sgr import style_sgr

__all__ = ["GhosttyEmulator"]

# Grapheme clustering (Unicode segmentation, VS16 and ZWJ widths), off by default in
# libghostty-vt; the pre-filter drops the child's own ``?2027`` sets.
GRAPHEMES_ON = b"\x1b[?2027h"
ERASE_SAVED = b"\x1b[3J"
# The most lines one piece of a feed can scroll off (one line per byte at worst): the
# history holds them until they are read back, after each piece.
PIECE = 16 * 1024
# A feed with more to come leaves up to COLLECT_AT scrolled-off lines in libghostty-vt's
# history for the next feed's result: its formatter's cost is mostly per call.
COLLECT_AT = 400
# libghostty-vt's own history only holds the lines of one piece until they are read and
# erased: one line a byte at most, but for sequences that scroll many (``CSI 99999 S``).
HISTORY_ROOM = 2 * PIECE
# What DECSTR resets, and the margins (see avt_frames.SOFT_RESET).
SOFT_RESET = b"\x1b[0m\x1b(B\x1b[4l\x1b[20l\x1b[?5l\x1b[?6l\x1b[?7h\x1b[r"


class GhosttyEmulator(PrefilteredScreen):
    """A terminal screen fed with the child's raw output (libghostty-vt)."""

    def __init__(
        self, cols: int = 80, rows: int = 24, scrollback: int = 5000, **options: Any
    ) -> None:
        super().__init__(cols, rows, **options)  # colours, sync_timeout: PrefilteredScreen
        self._replies: list[bytes] = []
        self._raw_notes = RawRunNotes(self._prefilter)  # what runs fed raw say
        self._term = Vt(self.cols, self.rows, HISTORY_ROOM, self._replies.append)
        self._reader = RowReader(self._term.handle)
        self._write(GRAPHEMES_ON)
        self._history: deque[str] = deque(maxlen=max(0, scrollback))  # plain text
        self._history_vt: deque[str] = deque(maxlen=max(0, scrollback))  # SGR text
        self._tail = b""  # a UTF-8 character cut by the last read, raw path only
        self._stale = True  # fed since the render state was last updated
        self._screen_scrolled = False  # lines left the top since then: every row moved
        self._behind = False  # the render state was not updated for the last changes
        self._dirty: set[int] = set(range(self.rows))
        self._rows: dict[int, tuple[Row | None, str]] = {}  # rows not changed since read
        self._in_alt = False
        self._width = None

    # -- feeding ---------------------------------------------------------------

    def feed(self, data: bytes, *, more: bool = False) -> FeedResult:
        self._replies.clear()  # libghostty-vt's own answers: tether's policy answers instead
        if self.outer.adapts_widths:
            data = adapt_widths(data, self.outer)
        if self._tail:
            data, self._tail = self._tail + data, b""
        prefilter = self._prefilter
        if prefilter.at_ground() and not prefilter.concealed and plain_text(data):  # a flood
            cut = utf8_cut(data, 0, len(data))
            if cut < len(data):
                data, self._tail = data[:cut], data[cut:]
            self._draw(data)
            self._collect(more)
            scrolled, self._scrolled = self._scrolled, []
            return FeedResult(scrolled_off=scrolled, bell=prefilter.take_bell())
        replies: list[bytes] = []
        sync_starts = prefilter.sync_starts
        pos, n = 0, len(data)
        raw_run = RAW_RUN.match
        while pos < n:
            if prefilter.at_ground() and not prefilter.concealed:
                end = raw_run(data, pos).end()
                if end > pos and data.find(b"\x1b[?", pos, end) >= 0:
                    end = before_screen_modes(data, pos, end)
                if end > pos:  # the pre-filter draws concealed text as blanks
                    end = before_concealing(data, pos, end)
                if end > pos:
                    cut = utf8_cut(data, pos, end)
                    if cut > pos:
                        run = data[pos:cut]
                        self._raw_notes.passed_raw(run)
                        self._draw(run)
                    if cut < end and end == n:  # a character cut by the read: next feed
                        self._tail = data[cut:]
                        break
                    if cut > pos:
                        pos = cut
                        continue
            # What the pre-filter must see, up to the next ESC (a sequence it carries
            # over, such as a title's OSC, keeps it from being at ground until done).
            nxt = data.find(b"\x1b", pos + 1)
            if nxt < 0:
                nxt = n
            self._filtered(data[pos:nxt], replies)
            pos = nxt
        self._collect(more)
        return self._result(replies, sync_starts)

    def _text(self, text: str) -> None:
        self._draw(text.encode())

    def _draw(self, data: bytes) -> None:
        if ERASE_SAVED in data:  # the lines that scrolled off before it are kept first
            head, _, rest = data.partition(ERASE_SAVED)
            self._pieces(head)
            self._collect()
            self._write(ERASE_SAVED)
            if not self._in_alt:  # xterm: ED 3 erases the saved lines only
                self._history.clear()
                self._history_vt.clear()
            self._draw(rest)
            return
        self._pieces(data)

    def _pieces(self, data: bytes) -> None:
        """Feed in pieces, taking the scrolled-off lines after each, cut only before an
        ESC or between characters (the pre-filter passes whole sequences only), since
        the ``ED 3`` written after a piece must not land inside a sequence."""
        start, n = 0, len(data)
        while n - start > PIECE:
            end = safe_cut(data, start, start + PIECE)
            self._write(data[start:end])
            self._collect()
            start = end
        self._write(data[start:])

    def _write(self, data: bytes) -> None:
        self._term.feed(data)
        self._stale = True

    def _collect(self, more: bool = False) -> None:
        """Move the lines that scrolled off into the scrollback, and say so (with ``more``,
        only once there are COLLECT_AT: one formatter call for many lines)."""
        n = self._term.scrollback_rows
        if not n or (more and n < COLLECT_AT):
            return
        self._screen_scrolled = True
        plain, vt = format_history(self._term.handle, self.cols, n)
        self._write(ERASE_SAVED)
        if self._in_alt:
            return
        self._scrolled.extend(plain)
        if self._history.maxlen:
            self._history.extend(plain)
            self._history_vt.extend(vt)

    # -- events from the pre-filter ----------------------------------------------

    def _cursor_report(self, private: bool) -> bytes:
        self._replies.clear()
        self._write(b"\x1b[6n")  # libghostty-vt knows origin mode and the margins
        reply = b"".join(self._replies)
        self._replies.clear()
        if private and reply.startswith(b"\x1b["):
            reply = b"\x1b[?" + reply[2:]
        return reply

    @property
    def in_alt_screen(self) -> bool:
        return self._in_alt

    def _alt_screen(self, switch: AltScreen) -> None:
        self._collect()
        self._write(f"\x1b[?{switch.mode}{'h' if switch.on else 'l'}".encode())
        self._in_alt = switch.on
        self._all_dirty()

    def _hard_reset(self) -> None:
        self._collect()
        self._write(b"\x1bc" + GRAPHEMES_ON)
        self._in_alt = False
        self._all_dirty()

    def _leave_for_next_process(self, alt: bool) -> None:
        self._tail = b""
        frame = [self.row(y) for y in range(self.rows)] if alt else None
        if alt:
            self._write(b"\x1b[?1049l")
            self._in_alt = False
        c = self.cursor
        self._write(SOFT_RESET + f"\x1b[{c.y + 1};{c.x + 1}H".encode())
        if frame is not None:
            self._write(self._page_text() + _frame_text(frame))
        self._collect()
        self._all_dirty()

    def _page(self) -> None:
        self._tail = b""
        self._write(self._page_text())
        self._collect()
        self._all_dirty()

    def _page_text(self) -> bytes:
        """Scroll every row down to the last with text into the scrollback, clear, home."""
        lines = self.display()
        used = max((y + 1 for y, line in enumerate(lines) if line.strip()), default=0)
        scroll = f"\x1b[{self.rows};1H" + "\n" * used if used else ""
        return f"\x1b[0m{scroll}\x1b[2J\x1b[H".encode()

    # -- screen ----------------------------------------------------------------

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = max(1, cols), max(1, rows)
        if (cols, rows) == (self.cols, self.rows):
            return
        self.cols, self.rows = cols, rows
        before = self._term.cursor
        self._term.resize(cols, rows)
        self._stale = True
        moved = self._term.cursor[1] - before[1]
        if moved > 0 and not self._in_alt and before[1] < rows:
            # Rows the reflow added above the cursor: tmux (and avt) keep the cursor's
            # row where it was and scroll them into the scrollback; libghostty-vt would
            # move the cursor down instead.
            x, y = self._term.cursor
            scroll = f"\x1b[{rows};1H" + "\n" * moved + f"\x1b[{y - moved + 1};{x + 1}H"
            self._write(scroll.encode())
        self._collect()
        self._dirty.clear()
        self._all_dirty()

    def _all_dirty(self) -> None:
        """Every row changed (tether moved the screen): what libghostty-vt marked since is
        taken now, so that it is not reported again with the next output."""
        self._dirty.update(range(self.rows))
        self._rows.clear()
        self._reader.forget()
        self._reader.changed_rows(self._term.cursor_y)
        self._stale = self._screen_scrolled = self._behind = False

    def _sync(self) -> None:
        """Bring the render state up to the terminal, noting the rows that changed."""
        if not self._stale:
            return
        self._stale = False
        if self._screen_scrolled:  # every row changed: no need to ask which (a flood)
            self._screen_scrolled = False
            self._behind = True
            self._dirty.update(range(self.rows))
            self._rows.clear()
            self._reader.forget()
            return
        self._behind = False
        changed = self._reader.changed_rows(self._term.cursor_y)
        if changed:
            self._dirty |= changed
            rows = self._rows
            if rows:
                for y in changed:
                    rows.pop(y, None)

    @property
    def cursor(self) -> Cursor:
        x, y = self._term.cursor
        return Cursor(min(x, self.cols - 1), min(y, self.rows - 1), self.modes.cursor_visible)

    def _row(self, y: int, styled: bool = True) -> tuple[Row | None, str]:
        """Row ``y`` as (spans, text), read with all rows not read since they changed
        (spans None when only text was asked for and read)."""
        self._sync()
        got = self._rows.get(y)
        if got is None or (styled and got[0] is None):
            if self._behind:  # the rows it reported dirty since are reported again once
                self._reader.update()
                self._behind = False
            cached = self._rows
            missing = {
                r for r in range(self.rows) if r not in cached or (styled and cached[r][0] is None)
            }
            cached.update(self._reader.rows(missing, styled))
            got = cached.get(y, ((), ""))
        return got

    def continued_rows(self) -> set[int]:
        """Rows that continue the row above: text ran past the last column (a soft wrap)."""
        self._sync()
        if self._behind:
            self._reader.update()
            self._behind = False
        return self._reader.continued_rows()

    def row(self, y: int) -> Row:
        if not 0 <= y < self.rows:
            return ()
        return self._row(y)[0]

    def row_text(self, y: int) -> str:
        if not 0 <= y < self.rows:
            return ""
        return self._row(y, styled=False)[1]

    def display(self) -> list[str]:
        return [self._row(y, styled=False)[1].rstrip() for y in range(self.rows)]

    @property
    def history_size(self) -> int:
        return len(self._history)

    def history_row(self, index: int) -> Row:
        if self._width is None:
            from wcwidth import wcswidth

            self._width = wcswidth
        return vt_line_spans(self._history_vt[index], self.cols, self._width)

    def history_text(self, index: int) -> str:
        return self._history[index]


def _frame_text(rows: list[Row]) -> bytes:
    """Redraw ``rows`` from the top left with their styles, leaving the cursor at the
    start of the row under the last text."""
    used = [y for y, row in enumerate(rows) if "".join(s.text for s in row).strip()]
    last = used[-1] if used else -1
    out = ["\x1b[0m\x1b[2J"]
    for y in used:
        out.append(f"\x1b[{y + 1};1H")
        out += [style_sgr(span.style) + span.text for span in rows[y]]
        out.append("\x1b[0m")
    out.append(f"\x1b[{min(last + 2, len(rows))};1H")
    return "".join(out).encode()
