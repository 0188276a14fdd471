"""The avt backend of :class:`~supervisor.terminal.emulator.Emulator`: asciinema's Rust parser.

pyavt parses tens of MB/s (bench/README.md) and renders the real captures exactly
as tmux does. The pre-filter stays in front (query policy, modes, title,
alternate screen and synchronized output events); avt gets its clean text. What
avt does not do the adapter adds:

* Scrollback: avt runs with none, so every line leaving the top of the main
  screen comes back from ``feed_str`` at once; the adapter reports its text
  (``scrolled_off``) and keeps the styled lines in its own capped deque.
* Erase with the background colour only (xterm's BCE): avt erases with the
  whole pen, so an erase that left bold/underline/colour cells is redone with
  the background alone and the pen is put back, read from the erased cell.
* Grapheme clusters: avt gives zero-width joiners, VS16, skin tones and
  combining marks cells of their own. Clusters are drawn as one private
  placeholder character of the cluster's width and mapped back when rows are
  read, so cursor movement, overwrite and scrolling treat them as one cell.
* CPR: answered from avt's cursor at the query's place in the stream.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from functools import lru_cache
from typing import Any

import avt

from supervisor.terminal.avt_frames import SOFT_RESET, frame_text, page_text
from supervisor.terminal.avt_pens import bg_only, colour_sgr, pen_sgr, pen_style
from supervisor.terminal.emulator import (
    DEFAULT_STYLE,
    CellStyle,
    Cursor,
    Row,
    Span,
)
from supervisor.terminal.prefilter import AltScreen
from supervisor.terminal.prefiltered_screen import PrefilteredScreen

__all__ = ["AvtEmulator"]

ZWJ = "\u200d"
# Placeholder pools: unassigned plane-3 code points (wide in avt) and the top of
# plane-16 private use (narrow), which no font or agent uses.
# Code points one cell keeps: more than any real grapheme cluster (a family emoji is
# 7-11); the rest of a combining storm (60,000 marks on one cell) is dropped, so the
# work and the memory it costs stop growing with it.
MAX_CLUSTER = 32
PEN_STYLES_KEPT = 4096  # distinct pens whose style _spans remembers (truecolour has many)
WIDE_POOL = (0x3C000, 0x3FFFD)
NARROW_POOL = (0x10C000, 0x10FFFD)


def _zero_width_ranges(wcwidth) -> list[tuple[int, int]]:
    """Code points wcwidth measures as zero width (combining, ZWJ, VS...), plus skin tones."""
    try:
        from wcwidth.table_zero import ZERO_WIDTH

        version = max(ZERO_WIDTH, key=lambda v: tuple(int(p) for p in v.split(".")))
        ranges = [(max(lo, 0xA0), hi) for lo, hi in ZERO_WIDTH[version] if hi >= 0xA0]
    except (ImportError, ValueError, TypeError):  # a wcwidth with another table layout
        ranges = [(0x300, 0x36F), (0x200B, 0x200F), (0xFE00, 0xFE0F), (0xE0000, 0xE0FFF)]
    ranges = [(lo, hi) for lo, hi in ranges if wcwidth(chr(lo)) == 0]
    return [*ranges, (0x1F3FB, 0x1F3FF)]


def _class(ranges) -> str:
    return "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in ranges)


class _Clusters:
    """wcwidth and the patterns built on its zero-width table, made on the first text that
    is not ASCII: importing wcwidth takes 15-40 ms, on `tether run`'s way to the agent's
    first frame (the early painter needs an emulator), and ASCII never needs them."""

    _made: _Clusters | None = None

    def __init__(self) -> None:
        from wcwidth import wcswidth, wcwidth

        self.wcwidth, self.wcswidth = wcwidth, wcswidth
        ranges = _zero_width_ranges(wcwidth)
        pools = _class((WIDE_POOL, NARROW_POOL))
        # Whether text needs the cluster pass, in two steps, because a class with astral
        # ranges tests every range for every character (bench/README.md): the BMP
        # zero-width characters (a bitmap) first, then, only if the text has astral
        # characters, the astral ones.
        bmp = _class((lo, hi) for lo, hi in ranges if hi <= 0xFFFF)
        astral = _class((lo, hi) for lo, hi in ranges if hi > 0xFFFF)
        self.zero_bmp = re.compile(f"[{bmp}]")
        self.zero_astral = re.compile(f"[{astral}{pools}]")
        # The zero-width characters (and ZWJ-joined characters) that join one base character.
        self.marks = re.compile(f"(?:{ZWJ}{_PRINTABLE}?|[{_class(ranges)}])*")

    @classmethod
    def get(cls) -> _Clusters:
        made = cls._made
        if made is None:  # two threads may both make it: the same tables either way
            made = cls._made = cls()
        return made


# One range is a fast scan; max(text) would iterate in Python objects.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _needs_clusters(text: str) -> bool:
    tables = _Clusters.get()
    if tables.zero_bmp.search(text) is not None:
        return True
    return _ASTRAL.search(text) is not None and tables.zero_astral.search(text) is not None


_PRINTABLE = r"[^\x00-\x1f\x7f-\x9f]"
# The escape sequences of the pre-filtered stream: a character ending one is no base.
_ESCAPE = re.compile(r"\x1b(?:\[\??[0-9;]*[@-~]|[()].|#8|[78DEHM])", re.S)
# Erases whose blank cells must carry the background colour only.
_ERASE = re.compile(r"\x1b\[\??([0-9]*)([JKX])")
_ORIGIN_ON = "\x1b[?6h"
_CONTROLS = frozenset(map(chr, [*range(0x20), *range(0x7F, 0xA0)]))
_MARGINS = re.compile(r"(?:\x9b|\x1b\[)(\d+);(\d+)r")


@lru_cache(maxsize=1024)
def _cluster_wide(data: str) -> bool:
    """Whether a cluster takes two columns (wide base, emoji VS16 or ZWJ sequence)."""
    tables = _Clusters.get()
    if tables.wcwidth(data[0]) == 2:
        return True
    return len(data) > 1 and tables.wcswidth(data) == 2


class AvtEmulator(PrefilteredScreen):
    """A terminal screen fed with the child's raw output (avt behind our pre-filter)."""

    def __init__(
        self, cols: int = 80, rows: int = 24, scrollback: int = 5000, **options: Any
    ) -> None:
        super().__init__(cols, rows, **options)  # colours, sync_timeout: PrefilteredScreen
        self._vt_cols = max(2, self.cols)  # avt panics reflowing wide characters into 1 column
        self._vt = avt.Vt(self._vt_cols, self.rows, scrollback_limit=0)
        self._vt.feed_str("")  # a new Vt reports every row changed once: we start dirty anyway
        self._history: deque = deque(maxlen=max(0, scrollback))
        self._pen_styles: dict[str, CellStyle] = {}  # repr(pen) -> style, for _spans
        self._dirty: set[int] = set(range(self.rows))
        self._rows: dict[int, Row] = {}  # spans of screen rows not changed since read
        self._in_alt = False
        self._origin_seen = False  # ?6h went by: CPR may have to be margin-relative
        self._joining = False  # the last cluster drawn ended in a ZWJ
        # Grapheme clusters drawn as one placeholder character, both ways.
        self._placeholders: dict[str, str] = {}
        self._clusters: dict[str, str] = {}
        self._next = {True: WIDE_POOL[0], False: NARROW_POOL[0]}

    # -- interface -------------------------------------------------------------

    @property
    def in_alt_screen(self) -> bool:
        return self._in_alt

    def _alt_screen(self, switch: AltScreen) -> None:
        self._joining = False
        self._write(f"\x1b[?{switch.mode}{'h' if switch.on else 'l'}")
        self._in_alt = switch.on
        self._all_dirty()

    def _hard_reset(self) -> None:
        self._joining = False
        self._write("\x1bc")
        self._in_alt = False
        self._origin_seen = False
        self._all_dirty()

    def _leave_for_next_process(self, alt: bool) -> None:
        self._joining = False
        self._origin_seen = False
        frame = list(self._vt.view()) if alt else None
        if alt:
            self._write("\x1b[?1049l")
            self._in_alt = False
        cursor = self._vt.cursor
        self._write(f"{SOFT_RESET}\x1b[{cursor.row + 1};{cursor.col + 1}H")
        if frame is not None:
            self._write(page_text(list(self._vt.view()), self.rows) + frame_text(frame))
        self._all_dirty()

    def _page(self) -> None:
        self._joining = False
        self._write(page_text(list(self._vt.view()), self.rows))
        self._all_dirty()

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = max(1, cols), max(1, rows)
        if (cols, rows) == (self.cols, self.rows):
            return
        self.cols, self.rows = cols, rows
        self._vt_cols = max(2, cols)
        _changed, gone = self._vt.resize(self._vt_cols, rows)
        if gone:
            self._scroll_off(gone)
        self._dirty.clear()
        self._all_dirty()

    @property
    def cursor(self) -> Cursor:
        c = self._vt.cursor
        return Cursor(
            min(c.col, self.cols - 1), min(c.row, self.rows - 1), self.modes.cursor_visible
        )

    def row(self, y: int) -> Row:
        if not 0 <= y < self.rows:
            return ()
        spans = self._rows.get(y)
        if spans is None:
            spans = self._rows[y] = self._spans(self._vt[y])
        return spans

    def row_text(self, y: int) -> str:
        if not 0 <= y < self.rows:
            return ""
        return self._line_text(self._vt[y])

    def display(self) -> list[str]:
        return [self._line_text(line).rstrip() for line in self._vt.view()]

    def continued_rows(self) -> set[int]:
        """Rows that continue the row above: text ran past the last column (a soft wrap).

        avt joins wrapped rows in ``text()``; each of its lines is matched to the rows
        it covers. A line that does not match its rows is taken as unwrapped.
        """
        if self.cols < self._vt_cols:
            return set()
        rows = [line.text for line in self._vt.view()]
        continued: set[int] = set()
        y = 0
        for line in self._vt.text():
            if y >= len(rows):
                break
            start, joined, target = y, rows[y], line.rstrip()
            while joined.rstrip() != target and y + 1 < len(rows) and len(joined) < len(target):
                y += 1
                joined += rows[y]
            if joined.rstrip() == target:
                continued.update(range(start + 1, y + 1))
            else:
                y = start
            y += 1
        return continued

    @property
    def history_size(self) -> int:
        return len(self._history)

    def history_row(self, index: int) -> Row:
        return self._spans(self._history[index])

    def history_text(self, index: int) -> str:
        return self._line_text(self._history[index])

    # -- feeding ---------------------------------------------------------------

    def _text(self, text: str) -> None:
        if _ORIGIN_ON in text:
            self._origin_seen = True
        if self._joining or (not text.isascii() and _needs_clusters(text)):
            self._clustered(text)
            return
        if "\x1b[" in text and _ERASE.search(text):
            self._with_erases(text)
        else:
            self._write(text)

    def _write(self, text: str) -> None:
        changed, gone = self._vt.feed_str(text)
        if changed:
            self._dirty.update(changed)
            rows = self._rows
            if rows:
                for y in changed:
                    rows.pop(y, None)
        if gone:
            self._scroll_off(gone)

    def _all_dirty(self) -> None:
        self._dirty.update(range(self.rows))
        self._rows.clear()

    def _scroll_off(self, lines) -> None:
        if self._in_alt:  # the alternate screen has no scrollback
            return
        if self._history.maxlen:
            self._history.extend(lines)
        if self._clusters or self.cols < self._vt_cols:
            text = self._line_text
            self._scrolled.extend([text(line).rstrip() for line in lines])
        else:  # the common case, inlined: a flood scrolls off thousands of lines a second
            self._scrolled.extend([line.text.rstrip() for line in lines])

    def _with_erases(self, text: str) -> None:
        """Feed ``text`` up to each erase, then make the erased cells background-only."""
        pos = 0
        for m in _ERASE.finditer(text):
            self._write(text[pos : m.end()])
            pos = m.end()
            if m.group(2) == "J" and m.group(1) == "3":
                if not self._in_alt:  # xterm: ED 3 erases the saved lines only
                    self._history.clear()
                continue
            c = self._vt.cursor
            x, y = min(c.col, self._vt_cols - 1), c.row
            pen = self._vt[y][x].pen
            if not bg_only(pen):
                bg = pen.background
                blank = "\x1b[0m" if bg is None else f"\x1b[0;{colour_sgr(bg, '48')}m"
                self._write(f"{blank}{m.group()}{pen_sgr(pen)}")
        if pos < len(text):
            self._write(text[pos:])

    # -- grapheme clusters -------------------------------------------------------

    def _clustered(self, text: str) -> None:
        """Draw ``text`` with each grapheme cluster as one placeholder character."""
        out: list[str] = []
        pos = 0
        if self._joining:
            # The previous segment ended in a ZWJ: its cluster takes this character.
            self._joining = False
            if text and text[0] not in _CONTROLS:
                pos = _Clusters.get().marks.match(text, 1).end()
                self._rejoin(text[:pos])
        tables = _Clusters.get()
        found = {m.start() for m in tables.zero_bmp.finditer(text, pos)}
        if _ASTRAL.search(text, pos) is not None:
            found.update(m.start() for m in tables.zero_astral.finditer(text, pos))
        for i in sorted(found):
            if i < pos:
                continue  # already part of a cluster
            if _in_pool(text[i]):  # a literal pool character: drawn as a cluster of one
                out.append(text[pos:i])
                out.append(self._placeholder(text[i]))
                pos = i + 1
                continue
            end = tables.marks.match(text, i).end()
            marks = text[i:end]
            if i > pos and text[i - 1] not in _CONTROLS and not _ends_escape(text, i):
                out.append(text[pos : i - 1])
                out.append(self._placeholder(text[i - 1] + marks))
            else:  # no base in this segment: join the cell left of the cursor
                out.append(text[pos:i])
                self._flush(out)
                self._rejoin(marks)
            pos = end
            self._joining = end == len(text) and marks.endswith(ZWJ)
        out.append(text[pos:])
        self._flush(out)

    def _flush(self, out: list[str]) -> None:
        chunk = "".join(out)
        out.clear()
        if chunk:
            if "\x1b[" in chunk and _ERASE.search(chunk):
                self._with_erases(chunk)
            else:
                self._write(chunk)

    def _rejoin(self, marks: str) -> None:
        """Zero-width characters with no base in their segment join the cell left of the cursor."""
        c = self._vt.cursor
        x, y = min(c.col, self._vt_cols) - 1, c.row
        if x < 0:
            return
        line = self._vt[y]
        if line[x].width == 0 and x > 0:
            x -= 1
        cell = line[x]
        base = self._clusters.get(cell.char, cell.char)
        self._joining = marks.endswith(ZWJ)
        if len(base) >= MAX_CLUSTER:
            return  # a full cell takes no more marks: a storm of them costs nothing more
        cluster = base + marks
        self._write(f"\x1b[{x + 1}G{self._placeholder(cluster)}")

    def _placeholder(self, cluster: str) -> str:
        """The one character avt draws for ``cluster`` (cut to :data:`MAX_CLUSTER`)."""
        cluster = cluster[:MAX_CLUSTER]
        if len(cluster) > 1 and any(unicodedata.combining(ch) for ch in cluster):
            cluster = unicodedata.normalize("NFC", cluster)
        if len(cluster) == 1 and not _in_pool(cluster):
            return cluster
        glyph = self._placeholders.get(cluster)
        if glyph is not None:
            return glyph
        wide = _cluster_wide(cluster)
        code = self._next[wide]
        limit = WIDE_POOL[1] if wide else NARROW_POOL[1]
        if code > limit:  # pool exhausted: draw the base alone
            return cluster[0] if not _in_pool(cluster[0]) else "\ufffd"
        self._next[wide] = code + 1
        glyph = chr(code)
        self._placeholders[cluster] = glyph
        self._clusters[glyph] = cluster
        return glyph

    # -- reading ---------------------------------------------------------------

    def _line_text(self, line) -> str:
        if self.cols < self._vt_cols:
            cell = line[0]
            return self._clusters.get(cell.char, cell.char) if cell.width == 1 else " "
        text = line.text
        if self._clusters and not text.isascii():
            clusters = self._clusters
            text = "".join([clusters.get(ch, ch) for ch in text])
        return text

    def _spans(self, line) -> Row:
        # The characters come in one call (``line.text`` skips the second column of a
        # wide character, as this loop does); the cells are walked for their pens only.
        text = line.text
        spans: list[Span] = []
        start = i = 0
        pen = None
        style = DEFAULT_STYLE
        styles = self._pen_styles
        for cell in line.cells:
            if cell.width == 0:
                continue  # the second column of a wide character
            p = cell.pen
            if pen is None or p != pen:
                if i > start:
                    spans.append(Span(text[start:i], style))
                start = i
                pen = p
                key = repr(p)  # avt's pens are not hashable; their repr is every field
                style = styles.get(key)
                if style is None:
                    if len(styles) >= PEN_STYLES_KEPT:
                        styles.clear()
                    style = styles[key] = pen_style(p)
            i += 1
        if i > start:
            spans.append(Span(text[start:i], style))
        clusters = self._clusters
        if clusters and not text.isascii():  # placeholders back to their clusters
            spans = [
                Span("".join([clusters.get(ch, ch) for ch in span.text]), span.style)
                for span in spans
            ]
        if self.cols < self._vt_cols:  # one column shown of avt's two
            first = spans[0]
            text = first.text[0] if line[0].width == 1 else " "
            return (Span(text, first.style),)
        return tuple(spans)

    def _cursor_report(self, private: bool) -> bytes:
        c = self._vt.cursor
        x = min(c.col, self.cols - 1) + 1
        y = min(c.row, self.rows - 1) + 1
        if self._origin_seen:
            y -= self._origin_offset()
        return f"\x1b[{'?' if private else ''}{y};{x}R".encode()

    def _origin_offset(self) -> int:
        """The top margin when origin mode is on (avt shows its modes only in its dump)."""
        dump = self._vt.dump()
        if dump.rfind("?6h") <= dump.rfind("?6l"):
            return 0
        margins = _MARGINS.findall(dump)
        return int(margins[-1][0]) - 1 if margins else 0


def _ends_escape(text: str, i: int) -> bool:
    """Whether ``text[i - 1]`` is the last character of an escape sequence."""
    j = text.rfind("\x1b", 0, i)
    if j < 0:
        return False
    m = _ESCAPE.match(text, j)
    return m is not None and m.end() == i


def _in_pool(ch: str) -> bool:
    code = ord(ch)
    return WIDE_POOL[0] <= code <= WIDE_POOL[1] or NARROW_POOL[0] <= code <= NARROW_POOL[1]
