"""The pyte backend of :class:`supervisor.terminal.emulator.Emulator`.

pyte keeps the grid and implements most cursor and editing operations;
:mod:`supervisor.terminal.prefilter` cleans the stream in front of it, and since the
cleaned stream has only a few well-formed shapes, one regex tokenizes it and
calls the Screen's methods directly (pyte's own parser walks a generator per
character and was most of the cost). What pyte gets wrong on real agent output
is fixed in a Screen subclass: drawing (zero-width joiners and VS16 stopped
pyte's draw and ate the rest of the text; wide characters were cut at the right
edge), erase with the cursor's attributes instead of the background, a DECSC
stack instead of a slot, SGR dim and colour forms, SU/SD/REP/CHT/CBT, NEL, the
alternate screen (pyte has none) and a capped scrollback of the main screen.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections import deque
from collections.abc import Iterable
from functools import lru_cache
from operator import itemgetter
from typing import Any, NamedTuple

import pyte
from pyte import modes as mo
from pyte.charsets import LAT1_MAP
from pyte.screens import Margins, Savepoint, StaticDefaultDict
from wcwidth import wcswidth, wcwidth

from supervisor.terminal.emulator import (
    DEFAULT_STYLE,
    CellStyle,
    Cursor,
    Row,
    Span,
)
from supervisor.terminal.prefilter import AltScreen
from supervisor.terminal.prefiltered_screen import PrefilteredScreen

__all__ = ["PyteEmulator"]

ZWJ = "\u200d"
VS16 = "\ufe0f"
_NAMED = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")
MAX_REPEAT = 65536


class Cell(NamedTuple):
    """pyte's ``Char`` plus ``dim``; colours are already in :class:`CellStyle` form."""

    data: str = " "
    fg: str | None = None
    bg: str | None = None
    bold: bool = False
    italics: bool = False
    underscore: bool = False
    strikethrough: bool = False
    reverse: bool = False
    blink: bool = False
    dim: bool = False


BLANK = Cell()
_FIRST = itemgetter(0)
_STUB = ""  # the cell after a wide character


def _narrow_class() -> str:
    """A regex class of characters that always take exactly one cell on their own.

    Text made of these (ASCII, Latin, box drawing, braille spinners, arrows...)
    is drawn in bulk; anything else goes through the per-character path.
    """
    ranges = [(0x20, 0x7E), (0xA0, 0x2FF), (0x2010, 0x205E), (0x2190, 0x21FF)]
    ranges += [(0x2500, 0x259F), (0x2800, 0x28FF)]
    chars = [
        chr(c)
        for lo, hi in ranges
        for c in range(lo, hi + 1)
        if wcwidth(chr(c)) == 1 and not unicodedata.combining(chr(c))
    ]
    return "".join(re.escape(c) for c in chars)


# group 1: a run of narrow characters; otherwise a single other character.
_NARROW_RUN = re.compile(f"([{_narrow_class()}]+)|.", re.S)


@lru_cache(maxsize=4096)
def _width(ch: str) -> int:
    return wcwidth(ch)


@lru_cache(maxsize=1024)
def _cluster_wide(data: str) -> bool:
    """Whether a cell's text takes two columns (wide base, emoji VS16 or ZWJ cluster)."""
    if not data:
        return False
    if _width(data[0]) == 2:
        return True
    return len(data) > 1 and wcswidth(data) == 2


@lru_cache(maxsize=1024)
def _style(key: tuple) -> CellStyle:
    fg, bg, bold, italics, underscore, strike, reverse, blink, *rest = key
    dim = bool(rest and rest[0])
    style = CellStyle(fg, bg, bold, dim, italics, underscore, reverse, strike, blink)
    return DEFAULT_STYLE if style == DEFAULT_STYLE else style


def _colour(value: Any) -> str | None:
    """Map a colour as pyte would store it to the interface form (for foreign cells)."""
    if value is None or value == "default":
        return None
    if isinstance(value, str):
        if value.startswith(("#", "color")):
            return value
        if value in _NAMED:
            return f"color{_NAMED.index(value)}"
        if value.startswith("bright") and value[6:] in _NAMED:
            return f"color{_NAMED.index(value[6:]) + 8}"
        if len(value) == 6:
            return "#" + value.lower()
    return None


class _Glyphs(dict):
    """Cells of one attribute set, one per character: cells are shared, not rebuilt."""

    __slots__ = ("attrs",)

    def __init__(self, attrs: Cell) -> None:
        super().__init__()
        self.attrs = attrs

    def __missing__(self, ch: str) -> Cell:
        cell = self[ch] = self.attrs._replace(data=ch)
        return cell


# CSI finals and the Screen methods they call: pyte's table plus what agents use
# that pyte lacks (SU, SD, REP, CHT, CBT).
CSI_METHODS = {
    **pyte.Stream.csi,
    "S": "scroll_up",
    "T": "scroll_down",
    "b": "repeat_char",
    "I": "tab_forward",
    "Z": "tab_backward",
}
CONTROL_METHODS = {
    "\x07": "bell",
    "\x08": "backspace",
    "\x09": "tab",
    "\x0a": "linefeed",
    "\x0b": "linefeed",
    "\x0c": "linefeed",
    "\x0d": "carriage_return",
    "\x0e": "shift_out",
    "\x0f": "shift_in",
}
ESC_METHODS = {
    "7": "save_cursor",
    "8": "restore_cursor",
    "D": "index",
    "E": "next_line",
    "H": "set_tab_stop",
    "M": "reverse_index",
}
# The pre-filter only lets through well-formed sequences in these shapes, so one
# regex tokenizes them (pyte's own parser walks a generator per character).
_TOKEN = re.compile(
    r"\x1b(?:\[(\??)([0-9;]*)([@-~])|([()])(.)|#(8)|([78DEHM]))?|([\x07-\x0f])", re.S
)


class _Dispatcher:
    """Feeds pre-filtered text to a Screen: plain runs to ``draw``, sequences to methods."""

    def __init__(self, screen: TetherScreen) -> None:
        self.screen = screen
        self.csi = {final: getattr(screen, name) for final, name in CSI_METHODS.items()}
        self.controls = {ch: getattr(screen, name) for ch, name in CONTROL_METHODS.items()}
        self.escapes = {ch: getattr(screen, name) for ch, name in ESC_METHODS.items()}

    def feed(self, text: str) -> None:
        screen = self.screen
        draw = screen.draw
        csi, controls, escapes = self.csi, self.controls, self.escapes
        pos = 0
        for m in _TOKEN.finditer(text):
            start = m.start()
            if start > pos:
                draw(text[pos:start])
            pos = m.end()
            screen._joining = False  # a ZWJ joins only the character drawn right after it
            control = m.group(8)
            if control is not None:
                controls[control]()
                continue
            final = m.group(3)
            if final is not None:
                handler = csi.get(final)
                if handler is None:
                    continue
                raw = m.group(2)
                params = [min(int(p), 9999) if p else 0 for p in raw.split(";")] if raw else []
                if m.group(1):
                    handler(*params, private=True)
                else:
                    handler(*params)
            elif m.group(4) is not None:
                screen.define_charset(m.group(5), m.group(4))
            elif m.group(6) is not None:
                screen.alignment_display()
            elif m.group(7) is not None:
                escapes[m.group(7)]()
        if pos < len(text):
            draw(text[pos:])


class TetherScreen(pyte.Screen):
    """pyte's Screen with the fixes real agent output needs (see module docstring)."""

    def __init__(self, columns: int, lines: int, on_scroll_off) -> None:
        self._on_scroll_off = on_scroll_off
        self._glyph_maps: dict[Cell, _Glyphs] = {}
        self._last_char = " "
        self._joining = False
        self.in_alt = False
        self._main_state: tuple[Any, list] | None = None
        super().__init__(columns, lines)
        self.buffer = self._new_buffer()

    # -- state ---------------------------------------------------------------

    @property
    def default_char(self) -> Cell:
        return BLANK._replace(reverse=mo.DECSCNM in self.mode) if hasattr(self, "mode") else BLANK

    def _new_buffer(self):
        from collections import defaultdict

        return defaultdict(lambda: StaticDefaultDict(self.default_char))

    def _blank(self) -> Cell:
        """What erased cells become: the background colour only (xterm's BCE)."""
        attrs = self.cursor.attrs
        if attrs.bg is None and mo.DECSCNM not in self.mode:
            return BLANK
        return BLANK._replace(bg=attrs.bg, reverse=mo.DECSCNM in self.mode)

    def reset(self) -> None:
        super().reset()
        if hasattr(self, "_glyph_maps"):
            self.buffer = self._new_buffer()
        self.cursor.attrs = BLANK
        self.savepoints = []
        self._joining = False

    def _glyphs(self, attrs: Cell) -> _Glyphs:
        maps = self._glyph_maps
        glyphs = maps.get(attrs)
        if glyphs is None:
            if len(maps) > 512:
                maps.clear()
            glyphs = maps[attrs] = _Glyphs(attrs)
        return glyphs

    # -- drawing -------------------------------------------------------------

    def draw(self, data: str) -> None:
        table = self.g1_charset if self.charset else self.g0_charset
        if table is not LAT1_MAP:
            data = data.translate(table)
        if not data:
            return
        if data.isascii() and not self._joining:
            self._draw_narrow(data)
        else:
            for m in _NARROW_RUN.finditer(data):
                run = m.group()
                if m.group(1) is None or self._joining:
                    self._draw_char(run[0])
                    run = run[1:]
                if run:
                    self._draw_narrow(run)
        self._last_char = data[-1]

    def _wrap(self) -> None:
        self.dirty.add(self.cursor.y)
        self.cursor.x = 0
        self.linefeed()

    def _fix_overwrite(self, line, x: int, end: int) -> None:
        """Cells ``x..end-1`` are about to be written: blank any wide-char half left over."""
        if x > 0 and line.get(x) is not None and line[x].data == _STUB:
            line[x - 1] = line[x - 1]._replace(data=" ")
        if end < self.columns:
            after = line.get(end)
            if after is not None and after.data == _STUB:
                line[end] = after._replace(data=" ")

    def _draw_narrow(self, data: str) -> None:
        """Draw characters that each take one cell (checked by the caller)."""
        cursor = self.cursor
        cols = self.columns
        glyphs = self._glyphs(cursor.attrs)
        autowrap = mo.DECAWM in self.mode
        insert = mo.IRM in self.mode
        i, n = 0, len(data)
        while i < n:
            if cursor.x >= cols:
                if autowrap:
                    self._wrap()
                else:
                    cursor.x = cols - 1
            x = cursor.x
            take = min(cols - x, n - i)
            if not autowrap and n - i > take:
                # Without autowrap the rest overwrites the last column: the last one stays.
                data = data[: i + take - 1] + data[-1]
                n = i + take
            line = self.buffer[cursor.y]
            if insert:
                self.insert_characters(take)
            end = x + take
            self._fix_overwrite(line, x, end)
            line.update(
                zip(range(x, end), map(glyphs.__getitem__, data[i : i + take]), strict=True)
            )
            cursor.x = end
            self.dirty.add(cursor.y)
            i += take

    def _prev_cell(self) -> tuple[Any, int, int] | None:
        """The cell a zero-width character joins: left of the cursor, skipping a stub."""
        x, y = self.cursor.x - 1, self.cursor.y
        if x < 0:
            if y == 0:
                return None
            y, x = y - 1, self.columns - 1
        line = self.buffer[y]
        if x > 0 and line[x].data == _STUB:
            x -= 1
        return line, x, y

    def _widen(self, line, x: int, y: int) -> None:
        """A narrow cell became a two-column cluster: take the next column as its stub."""
        if x + 1 >= self.columns:
            return
        if line[x + 1].data == _STUB:
            return
        line[x + 1] = line[x]._replace(data=_STUB)
        if y == self.cursor.y and self.cursor.x == x + 1:
            self.cursor.x = x + 2

    def _draw_char(self, ch: str) -> None:
        w = _width(ch)
        if self._joining or w == 0 or 0x1F3FB <= ord(ch) <= 0x1F3FF:
            prev = self._prev_cell()
            if prev is None:
                self._joining = False
                if w <= 0:
                    return
            else:
                line, x, y = prev
                cell = line[x]
                joined = cell.data + ch
                if w == 0 and unicodedata.combining(ch):
                    joined = unicodedata.normalize("NFC", joined)
                line[x] = cell._replace(data=joined)
                self.dirty.add(y)
                self._joining = ch == ZWJ
                if (ch == VS16 or w == 2) and _cluster_wide(joined):
                    self._widen(line, x, y)
                return
        if w < 0:
            return
        cursor = self.cursor
        cols = self.columns
        autowrap = mo.DECAWM in self.mode
        if cursor.x >= cols or (w == 2 and cursor.x == cols - 1):
            if autowrap:
                if cursor.x < cols:  # a wide char that does not fit: the column stays blank
                    self.buffer[cursor.y][cursor.x] = self._blank()
                self._wrap()
            else:
                cursor.x = cols - w
                if cursor.x < 0:
                    return
        if mo.IRM in self.mode:
            self.insert_characters(w)
        x = cursor.x
        line = self.buffer[cursor.y]
        self._fix_overwrite(line, x, x + w)
        glyphs = self._glyphs(cursor.attrs)
        line[x] = glyphs[ch]
        if w == 2:
            line[x + 1] = glyphs[_STUB]
        cursor.x = x + w
        self.dirty.add(cursor.y)

    def repeat_char(self, count: int | None = None, *args: Any) -> None:
        """REP: draw the last graphic character again ``count`` times."""
        count = min(count or 1, MAX_REPEAT, self.columns * self.lines)
        self.draw(self._last_char * count)

    # -- scrolling and scrollback ------------------------------------------

    def index(self) -> None:
        top, bottom = self.margins or Margins(0, self.lines - 1)
        if self.cursor.y != bottom:
            self.cursor_down()
            return
        buffer = self.buffer
        if top == 0 and not self.in_alt:
            self._on_scroll_off(buffer.get(0), self.columns)
        self.dirty.update(range(top, bottom + 1))
        if top == 0 and bottom == self.lines - 1:
            # The whole screen scrolls: re-key the rows in one pass instead of row by row.
            moved = {y - 1: row for y, row in buffer.items() if 0 < y <= bottom}
            buffer.clear()
            buffer.update(moved)
        else:
            for y in range(top, bottom):
                if y + 1 in buffer:
                    buffer[y] = buffer[y + 1]
                else:
                    buffer.pop(y, None)
            buffer.pop(bottom, None)

    def next_line(self) -> None:
        """NEL: carriage return and index (pyte made it a plain linefeed)."""
        self.cursor.x = 0
        self.index()

    def scroll_up(self, count: int | None = None, *args: Any) -> None:
        """SU: the scroll region moves up ``count`` lines; the cursor stays."""
        top, bottom = self.margins or Margins(0, self.lines - 1)
        x, y = self.cursor.x, self.cursor.y
        self.cursor.y = bottom
        for _ in range(min(count or 1, bottom - top + 1)):
            self.index()
        self.cursor.x, self.cursor.y = x, y

    def scroll_down(self, count: int | None = None, *args: Any) -> None:
        """SD: the scroll region moves down ``count`` lines; the cursor stays."""
        if args:  # CSI Ps;Ps;Ps;Ps;Ps T is xterm's mouse highlight, not SD
            return
        top, bottom = self.margins or Margins(0, self.lines - 1)
        x, y = self.cursor.x, self.cursor.y
        self.cursor.y = top
        for _ in range(min(count or 1, bottom - top + 1)):
            self.reverse_index()
        self.cursor.x, self.cursor.y = x, y

    # -- cursor --------------------------------------------------------------

    def cursor_up(self, count: int | None = None) -> None:
        # pyte clamps to the top margin even when the cursor is above it.
        top = self.margins.top if self.margins and self.cursor.y >= self.margins.top else 0
        self.cursor.y = max(self.cursor.y - (count or 1), top)

    def cursor_down(self, count: int | None = None) -> None:
        last = self.lines - 1
        if self.margins and self.cursor.y <= self.margins.bottom:
            last = self.margins.bottom
        self.cursor.y = min(self.cursor.y + (count or 1), last)

    def cursor_to_line(self, line: int | None = None) -> None:
        y = (line or 1) - 1
        if mo.DECOM in self.mode and self.margins is not None:
            y += self.margins.top
        self.cursor.y = y
        self.ensure_vbounds()

    def tab_forward(self, count: int | None = None, *args: Any) -> None:
        for _ in range(min(count or 1, self.columns)):
            self.tab()

    def tab_backward(self, count: int | None = None, *args: Any) -> None:
        for _ in range(min(count or 1, self.columns)):
            stops = [s for s in self.tabstops if s < self.cursor.x]
            self.cursor.x = max(stops) if stops else 0

    def save_cursor(self, *args: Any) -> None:
        """DECSC keeps one slot per screen (xterm), not pyte's stack."""
        self.savepoints = [
            Savepoint(
                copy.copy(self.cursor),
                self.g0_charset,
                self.g1_charset,
                self.charset,
                mo.DECOM in self.mode,
                mo.DECAWM in self.mode,
            )
        ]

    def restore_cursor(self, *args: Any) -> None:
        """DECRC restores the slot and keeps it (it can be restored again)."""
        if not self.savepoints:
            self.mode.discard(mo.DECOM)
            self.cursor.x = self.cursor.y = 0
            self.cursor.attrs = BLANK
            return
        sp = self.savepoints[-1]
        self.g0_charset, self.g1_charset, self.charset = sp.g0_charset, sp.g1_charset, sp.charset
        for flag, mode in ((sp.origin, mo.DECOM), (sp.wrap, mo.DECAWM)):
            if flag:
                self.mode.add(mode)
            else:
                self.mode.discard(mode)
        self.cursor = copy.copy(sp.cursor)
        self.cursor.x = min(max(0, self.cursor.x), self.columns - 1)
        self.cursor.y = min(max(0, self.cursor.y), self.lines - 1)

    # -- erasing (background colour only, any parameter) -------------------

    def _fill(self, line, xs: Iterable[int], blank: Cell) -> None:
        for x in xs:
            line[x] = blank

    def erase_in_line(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        y = self.cursor.y
        x = min(self.cursor.x, self.columns - 1)
        self.dirty.add(y)
        blank = self._blank()
        if how == 2:
            self.buffer[y] = StaticDefaultDict(blank)
        elif how == 0:
            line = self.buffer[y]
            self._fix_overwrite(line, x, self.columns)
            self._fill(line, range(x, self.columns), blank)
        elif how == 1:
            line = self.buffer[y]
            self._fix_overwrite(line, 0, x + 1)
            self._fill(line, range(x + 1), blank)

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        if how == 3:  # xterm: erase the saved lines only
            if not self.in_alt:
                self._on_scroll_off(None, -1)
            return
        y = self.cursor.y
        if how == 0:
            rows = range(y + 1, self.lines)
        elif how == 1:
            rows = range(y)
        elif how == 2:
            rows = range(self.lines)
        else:
            return
        blank = self._blank()
        for r in rows:
            self.buffer[r] = StaticDefaultDict(blank)
        self.dirty.update(rows)
        if how in (0, 1):
            self.erase_in_line(how)

    def erase_characters(self, count: int | None = None, *args: Any) -> None:
        x = min(self.cursor.x, self.columns - 1)
        end = min(x + (count or 1), self.columns)
        line = self.buffer[self.cursor.y]
        self._fix_overwrite(line, x, end)
        self._fill(line, range(x, end), self._blank())
        self.dirty.add(self.cursor.y)

    def delete_characters(self, count: int | None = None, *args: Any) -> None:
        count = min(count or 1, self.columns)
        super().delete_characters(count)

    def insert_characters(self, count: int | None = None, *args: Any) -> None:
        count = min(count or 1, self.columns)
        super().insert_characters(count)

    # -- SGR -----------------------------------------------------------------

    def select_graphic_rendition(self, *attrs: int, **kwargs: Any) -> None:
        """SGR with dim, 16/256/24-bit colours in the interface's ``colorN``/``#rrggbb`` form."""
        cur = self.cursor.attrs
        if not isinstance(cur, Cell):
            cur = BLANK
        if not attrs or attrs == (0,):
            self.cursor.attrs = BLANK._replace(reverse=mo.DECSCNM in self.mode)
            return
        a = cur._asdict()
        params = list(attrs)
        i, n = 0, len(params)
        while i < n:
            p = params[i]
            i += 1
            if p == 0:
                a.update(BLANK._asdict())
            elif p == 1:
                a["bold"] = True
            elif p == 2:
                a["dim"] = True
            elif p == 3:
                a["italics"] = True
            elif p in (4, 21):
                a["underscore"] = True
            elif p in (5, 6):
                a["blink"] = True
            elif p == 7:
                a["reverse"] = True
            elif p == 9:
                a["strikethrough"] = True
            elif p == 22:
                a["bold"] = a["dim"] = False
            elif p == 23:
                a["italics"] = False
            elif p == 24:
                a["underscore"] = False
            elif p == 25:
                a["blink"] = False
            elif p == 27:
                a["reverse"] = False
            elif p == 29:
                a["strikethrough"] = False
            elif 30 <= p <= 37:
                a["fg"] = f"color{p - 30}"
            elif 40 <= p <= 47:
                a["bg"] = f"color{p - 40}"
            elif 90 <= p <= 97:
                a["fg"] = f"color{p - 82}"
            elif 100 <= p <= 107:
                a["bg"] = f"color{p - 92}"
            elif p == 39:
                a["fg"] = None
            elif p == 49:
                a["bg"] = None
            elif p in (38, 48, 58) and i < n:
                kind = params[i]
                if kind == 5 and i + 1 < n:
                    colour = f"color{min(params[i + 1], 255)}"
                    i += 2
                elif kind == 2 and i + 3 < n:
                    r, g, b = (min(c, 255) for c in params[i + 1 : i + 4])
                    colour = f"#{r:02x}{g:02x}{b:02x}"
                    i += 4
                else:
                    i = n
                    continue
                if p != 58:
                    a["fg" if p == 38 else "bg"] = colour
        self.cursor.attrs = Cell(**a)

    # -- reports pyte would write itself: the prefilter answers them ---------

    def report_device_attributes(self, *args: Any, **kwargs: Any) -> None:
        pass

    def report_device_status(self, *args: Any, **kwargs: Any) -> None:
        pass

    # -- alternate screen ------------------------------------------------------

    def enter_alt(self, save_cursor: bool) -> None:
        if self.in_alt:
            return
        if save_cursor:
            self.save_cursor()
        self._main_state = (self.buffer, self.savepoints)
        self.buffer = self._new_buffer()
        self.savepoints = []
        self.in_alt = True
        self.dirty.update(range(self.lines))

    def leave_alt(self, restore_cursor: bool) -> None:
        if not self.in_alt or self._main_state is None:
            return
        self.buffer, self.savepoints = self._main_state
        self._main_state = None
        self.in_alt = False
        if restore_cursor:
            self.restore_cursor()
        self.dirty.update(range(self.lines))

    # -- resize ----------------------------------------------------------------

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Keep the cursor's line on screen: rows above it scroll off when the height shrinks."""
        lines = max(1, lines or self.lines)
        columns = max(1, columns or self.columns)
        if lines == self.lines and columns == self.columns:
            return
        old_cols = self.columns
        self.buffer = self._reshape(self.buffer, self.cursor, lines, columns, not self.in_alt)
        if self._main_state is not None:
            main_buffer, main_saves = self._main_state
            anchor = main_saves[-1].cursor if main_saves else pyte.screens.Cursor(0, 0)
            self._main_state = (
                self._reshape(main_buffer, anchor, lines, columns, True),
                main_saves,
            )
        for sp in self.savepoints:
            sp.cursor.x = min(sp.cursor.x, columns - 1)
            sp.cursor.y = min(sp.cursor.y, lines - 1)
        self.lines, self.columns = lines, columns
        if columns > old_cols:
            self.tabstops.update(range(((old_cols + 7) // 8) * 8 or 8, columns, 8))
        self.tabstops = {t for t in self.tabstops if t < columns}
        self.margins = None
        self.cursor.x = min(self.cursor.x, columns - 1)
        self.cursor.y = min(self.cursor.y, lines - 1)
        self.dirty.clear()
        self.dirty.update(range(lines))

    def _reshape(self, buffer, cursor, lines: int, columns: int, record: bool):
        excess = max(0, cursor.y - (lines - 1))
        if excess:
            for y in range(excess):
                if record:
                    self._on_scroll_off(buffer.get(y), self.columns)
            cursor.y -= excess
        new = self._new_buffer()
        for y, row in buffer.items():
            ny = y - excess
            if 0 <= ny < lines:
                if columns < self.columns:
                    for x in [x for x in row if x >= columns]:
                        del row[x]
                    last = row.get(columns - 1)
                    if last is not None and _cluster_wide(last.data):
                        row[columns - 1] = last._replace(data=" ")
                new[ny] = row
        return new


class PyteEmulator(PrefilteredScreen):
    """A terminal screen fed with the child's raw output (pyte behind our pre-filter)."""

    def __init__(
        self, cols: int = 80, rows: int = 24, scrollback: int = 5000, **options: Any
    ) -> None:
        super().__init__(cols, rows, **options)  # colours, sync_timeout: PrefilteredScreen
        self._history: deque[tuple[Any, int]] = deque(maxlen=max(0, scrollback))
        self._screen = TetherScreen(self.cols, self.rows, self._scroll_off)
        self._dispatch = _Dispatcher(self._screen)

    # -- interface -------------------------------------------------------------

    @property
    def in_alt_screen(self) -> bool:
        return self._screen.in_alt

    def _text(self, text: str) -> None:
        self._dispatch.feed(text)

    def _alt_screen(self, switch: AltScreen) -> None:
        if switch.on:
            self._screen.enter_alt(save_cursor=switch.mode == 1049)
        else:
            self._screen.leave_alt(restore_cursor=switch.mode == 1049)

    def _hard_reset(self) -> None:
        self._screen.leave_alt(restore_cursor=False)
        self._screen.reset()

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = max(1, cols), max(1, rows)
        self._screen.resize(self.rows, self.cols)

    def take_dirty(self) -> set[int]:
        if self._repaints_held():
            return set()
        dirty = self._screen.dirty
        rows = {y for y in dirty if 0 <= y < self.rows}
        dirty.clear()
        return rows

    @property
    def cursor(self) -> Cursor:
        c = self._screen.cursor
        return Cursor(min(c.x, self.cols - 1), min(c.y, self.rows - 1), self.modes.cursor_visible)

    def row(self, y: int) -> Row:
        if not 0 <= y < self.rows:
            return ()
        return _spans(self._screen.buffer[y], self.cols)

    def row_text(self, y: int) -> str:
        if not 0 <= y < self.rows:
            return ""
        return _text(self._screen.buffer[y], self.cols)

    def display(self) -> list[str]:
        return [_text(self._screen.buffer[y], self.cols).rstrip() for y in range(self.rows)]

    @property
    def history_size(self) -> int:
        return len(self._history)

    def history_row(self, index: int) -> Row:
        line, width = self._history[index]
        return _spans(line, width)

    def history_text(self, index: int) -> str:
        line, width = self._history[index]
        return _text(line, width)

    # -- internals -------------------------------------------------------------

    def _scroll_off(self, line, width: int) -> None:
        if width < 0:  # CSI 3J
            self._history.clear()
            return
        if line is None:
            line = StaticDefaultDict(BLANK)
        if self._history.maxlen:
            self._history.append((line, width))
        self._scrolled.append(_text(line, width).rstrip())

    def _cursor_report(self, private: bool) -> bytes:
        screen = self._screen
        x = min(screen.cursor.x, self.cols - 1) + 1
        y = screen.cursor.y + 1
        if mo.DECOM in screen.mode and screen.margins is not None:
            y -= screen.margins.top
        return f"\x1b[{'?' if private else ''}{y};{x}R".encode()


def _text(line, width: int) -> str:
    n = len(line)
    if n <= width and list(line) == list(range(n)):
        # Written left to right from column 0 (the usual case): join without lookups.
        cells = list(map(_FIRST, line.values()))
        if n < width:
            cells.append(line.default[0] * (width - n))
    else:
        # Only written cells are in the dict: fill the rest from its default.
        cells = [line.default[0]] * width
        for x, cell in line.items():
            if 0 <= x < width:
                cells[x] = cell[0]
    if _STUB in cells:
        cells = _unstub(cells)
    return "".join(cells)


def _unstub(cells: list[str]) -> list[str]:
    """Drop stubs that follow a wide cell; a stub orphaned by an edit shows as a space."""
    out = []
    prev = ""
    for data in cells:
        if data == _STUB:
            if _cluster_wide(prev):
                prev = ""
                continue
            data = " "
        out.append(data)
        prev = data
    return out


def _spans(line, width: int) -> Row:
    spans: list[Span] = []
    run: list[str] = []
    run_key = None
    prev = ""
    for x in range(width):
        cell = line[x]
        data = cell[0]
        if data == _STUB:
            if _cluster_wide(prev):
                prev = ""
                continue
            data = " "
        prev = data
        key = tuple(cell[1:])
        if key != run_key:
            if run:
                spans.append(Span("".join(run), _key_style(run_key)))
            run = [data]
            run_key = key
        else:
            run.append(data)
    if run:
        spans.append(Span("".join(run), _key_style(run_key)))
    return tuple(spans)


def _key_style(key: tuple) -> CellStyle:
    if len(key) < 9:  # a cell pyte made itself (its Char): map its colour names
        fg, bg, *rest = key
        key = (_colour(fg), _colour(bg), *rest, False)
    return _style(key)
