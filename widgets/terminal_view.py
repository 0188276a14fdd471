"""The agent's terminal, drawn with Textual's Line API.

Each screen row becomes a cached :class:`Strip`; when the agent writes, only
the rows the emulator marks dirty are rebuilt and repainted (all of them when
most changed, and then at most FRAME_SECONDS apart). Every key goes to the agent
except tether's own few, which the app binds with priority. The user can scroll
the capped scrollback with the mouse wheel or shift+PageUp/PageDown without the
agent noticing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.filter import ANSIToTruecolor, LineFilter
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from supervisor.terminal.emulator import CellStyle, Row
from supervisor.terminal.keys import (
    DEFAULT_SHIFT_ENTER,
    as_the_agent_asked,
    encode_key,
    encode_mouse_wheel,
)
from supervisor.terminal.session import AgentSession
from widgets.missed_resize import ResizeWatch
from widgets.widget_message import WidgetMessage

# Keys the view keeps for itself: scrolling tether's scrollback, as terminals do.
SCROLL_KEYS = {"shift+pageup": -1, "shift+pagedown": 1}


@lru_cache(maxsize=4096)
def _color(spec: str | None) -> Color | None:
    if spec is None:
        return None
    if spec.startswith("color"):
        return Color.from_ansi(int(spec[5:]))
    try:
        return Color.parse(spec)
    except Exception:
        return None


@lru_cache(maxsize=4096)
def rich_style(style: CellStyle) -> Style:
    """The rich Style for a cell style (cached: agents reuse a handful of styles)."""
    return Style(
        color=_color(style.fg),
        bgcolor=_color(style.bg),
        bold=style.bold or None,
        dim=style.dim or None,
        italic=style.italic or None,
        underline=(style.underline and style.underline_style != 2) or None,
        underline2=style.underline_style == 2 or None,  # double (curly shows single)
        reverse=style.reverse or None,
        strike=style.strike or None,
        blink=style.blink or None,
        conceal=style.conceal or None,
        overline=style.overline or None,
    )


def row_strip(row: Row, width: int) -> Strip:
    """Spans of one emulator row to a Strip exactly ``width`` cells wide."""
    segments = [Segment(span.text, rich_style(span.style)) for span in row if span.text]
    return Strip(segments).adjust_cell_length(width)


CURSOR_STYLE = Style(reverse=True)


class CursorOut(Protocol):
    """The user's terminal's real cursor (the raw-input driver writes it)."""

    def show_cursor(self, x: int, y: int, shape: int) -> None: ...

    def hide_cursor(self) -> None: ...


# Whole-screen repaints come at most this often: a flood's screens are coalesced (nobody
# reads fifty a second), and the loop keeps its time for the agent's output and the keys.
# A repaint of a few rows (an echo, a spinner) is never held back.
FRAME_SECONDS = 1 / 25


class TerminalView(Widget, can_focus=True):
    """A live view of an :class:`AgentSession`'s screen that forwards input to it."""

    DEFAULT_CSS = """
    TerminalView {
        width: 1fr;
        height: 1fr;
        background: $background;
        color: $foreground;
    }
    """

    scroll_back: reactive[int] = reactive(0, init=False)
    """How many rows of history are shown above the screen (0 = live screen)."""

    @dataclass
    class Sized(WidgetMessage["TerminalView"]):
        """The view knows its size (the first time, and after each resize)."""

        cols: int
        rows: int

    class Typed(Message, bubble=False):
        """What the user typed while the agent had the keys, as their terminal sent it
        (posted by the raw-input driver: no input parser has rewritten it)."""

        def __init__(self, data: bytes) -> None:
            super().__init__()
            self.data = data

    class FocusReported(Message, bubble=False):
        """The user's terminal gained or lost the focus while the agent had the keys: the
        agent hears it if it enabled focus reporting."""

        def __init__(self, gained: bool) -> None:
            super().__init__()
            self.gained = gained

    def __init__(
        self,
        session: AgentSession,
        *,
        shift_enter: str = DEFAULT_SHIFT_ENTER,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.session = session
        self.shift_enter = shift_enter
        self._strips: dict[int, Strip] = {}
        self._cursor_row: int | None = None
        self.repaints = 0  # rows repainted, for tests and the benchmark
        self._full_refreshes = 0
        self._pending_paint = False
        self._held: set[int] = set()  # rows changed while a whole repaint waits its turn
        self._repainted_whole_at = float("-inf")
        self._clock = time.monotonic
        # The real cursor, where the terminal can show it: it then sits at the agent's
        # cursor in the agent's shape (input methods and screen readers follow it), and
        # no cell is painted reversed. None (headless): the painted cell.
        self.cursor_out: CursorOut | None = None
        self.resize_watch = ResizeWatch(self)  # the agent's size follows the view's, always

    # -- painting ----------------------------------------------------------

    def get_line_filters(self) -> list[LineFilter]:
        """The agent's 16 standard colours reach the user's terminal as ANSI colours, so they
        show in the user's own palette as they would in tmux; Textual would otherwise turn them
        into its theme's RGB values. 256 colours and truecolour pass through exactly either way."""
        return [
            line_filter
            for line_filter in super().get_line_filters()
            if not isinstance(line_filter, ANSIToTruecolor)
        ]

    @property
    def emulator(self):
        return self.session.emulator

    def screen_changed(self) -> None:
        """Called after the session fed output: repaint at most once per frame."""
        if not self._pending_paint:
            self._pending_paint = True
            self.call_after_refresh(self._paint_changes)

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, lambda _screen: self._place_cursor())
        self.resize_watch.watch()

    def _place_cursor(self) -> None:
        """The real cursor at the agent's, shown while the agent has the keys and shows one."""
        out = self.cursor_out
        if out is None:
            return
        cursor = self.emulator.cursor
        if cursor.visible and not self.scroll_back and self.takes_keys():
            region = self.content_region
            at = (region.x + cursor.x, region.y + cursor.y)
            out.show_cursor(*at, self.emulator.modes.cursor_shape)
        else:
            out.hide_cursor()

    def _paint_changes(self) -> None:
        self._pending_paint = False
        self._place_cursor()
        emulator = self.emulator
        dirty = self._held | self.session.take_unpainted()
        self._held = set()
        cursor = emulator.cursor
        if self._cursor_row is not None and self._cursor_row != cursor.y:
            dirty.add(self._cursor_row)
        dirty.add(cursor.y)
        self._cursor_row = cursor.y
        rows = emulator.rows
        # Scrolled into history, the rows under the view shift as output arrives: whole.
        if self.scroll_back or len(dirty) * 2 >= rows:
            now = self._clock()
            wait = self._repainted_whole_at + FRAME_SECONDS - now
            if wait > 0:
                self._held = dirty
                self._pending_paint = True
                self.set_timer(wait, self._paint_changes)
                return
            self._repainted_whole_at = now
            self._strips.clear()
            if not self.scroll_back:
                self._full_refreshes += 1
                self.repaints += rows
            self.refresh()
            return
        width = self.size.width
        for y in dirty:
            if 0 <= y < rows:
                self._strips.pop(y, None)
                self.repaints += 1
                self.refresh(Region(0, y, width, 1))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        emulator = self.emulator
        if self.scroll_back:
            history = emulator.history_size
            index = history - self.scroll_back + y
            if index < 0:
                return Strip.blank(width)
            if index < history:
                return row_strip(emulator.history_row(index), width)
            y = index - history
        if y >= emulator.rows:
            return Strip.blank(width)
        strip = self._strips.get(y)
        if strip is None:
            strip = row_strip(emulator.row(y), width)
            self._strips[y] = strip
        cursor = emulator.cursor
        if (
            self.cursor_out is None
            and not self.scroll_back
            and y == cursor.y
            and cursor.visible
            and self.has_focus
            and 0 <= cursor.x < width
        ):
            strip = self._with_cursor(strip, cursor.x)
        return strip

    @staticmethod
    def _with_cursor(strip: Strip, x: int) -> Strip:
        before, cell, after = strip.divide([x, x + 1, strip.cell_length])[:3]
        segments = list(cell) or [Segment(" ")]
        marked = [
            Segment(seg.text or " ", (seg.style or Style()) + CURSOR_STYLE) for seg in segments
        ]
        return Strip.join([before, Strip(marked), after])

    def watch_scroll_back(self) -> None:
        self._strips.clear()
        self.refresh()
        self._place_cursor()

    def on_focus(self) -> None:
        self.refresh()
        self.call_after_refresh(self._place_cursor)  # app.focused is this view by then

    def on_blur(self) -> None:
        self.refresh()
        self._place_cursor()

    # -- size --------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self.resize_watch.told(event.size)
        cols, rows = event.size.width, event.size.height
        if cols < 2 or rows < 2:
            return
        self.session.resize(cols, rows)
        self._strips.clear()
        self.refresh()
        self.post_message(self.Sized(self, cols, rows))

    # -- input -------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        if event.key in SCROLL_KEYS:
            event.stop()
            event.prevent_default()
            self._scroll_page(SCROLL_KEYS[event.key])
            return
        data = encode_key(
            event.key, event.character, self.emulator.modes, shift_enter=self.shift_enter
        )
        if data is None:
            return
        event.stop()
        event.prevent_default()
        if self.scroll_back:
            self.scroll_back = 0
        self.session.send_input(data)

    def takes_keys(self) -> bool:
        """The agent has the keys: this view has the focus on the screen shown (no dialog
        above it). Asked by the raw-input driver from its thread (attribute reads only)."""
        try:
            return self.app.focused is self
        except Exception:  # no screen yet, or the app is closing
            return False

    def on_terminal_view_typed(self, message: Typed) -> None:
        message.stop()
        if self.scroll_back:
            self.scroll_back = 0
        self.session.send_input(as_the_agent_asked(message.data, self.emulator.modes))

    def on_terminal_view_focus_reported(self, message: FocusReported) -> None:
        message.stop()
        if self.emulator.modes.focus_events:
            self.session.send_input(b"\x1b[I" if message.gained else b"\x1b[O")

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if self.scroll_back:
            self.scroll_back = 0
        self.session.paste(event.text)

    def _scroll_page(self, direction: int) -> None:
        step = max(1, self.size.height - 1)
        self._scroll_by(direction * step)

    def _scroll_by(self, rows: int) -> None:
        limit = self.emulator.history_size
        self.scroll_back = max(0, min(limit, self.scroll_back - rows))

    def _wheel(self, event: events.MouseEvent, up: bool) -> None:
        event.stop()
        modes = self.emulator.modes
        if modes.mouse_tracking and not self.scroll_back:
            data = encode_mouse_wheel(up, event.x, event.y, modes)
            if data:
                self.session.send_input(data)
            return
        if modes.alt_screen:
            # Full-screen programs (less, vim) scroll themselves: send arrow keys.
            key = encode_key("up" if up else "down", None, modes)
            if key:
                self.session.send_input(key * 3)
            return
        self._scroll_by(-3 if up else 3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._wheel(event, up=True)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._wheel(event, up=False)
