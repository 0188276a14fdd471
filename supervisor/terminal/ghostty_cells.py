"""Reading libghostty-vt's screen in bulk: dirty rows, a row's cells in one call, history text.

Every call through cffi costs far more than the work behind it, so the screen is read
the way a renderer reads it: ``render_state_update`` copies what changed, the row
iterator names the dirty rows, and each row's raw cells come as one array of 64-bit
values (``ROW_DATA_CELLS_RAW``) decoded here; a style is asked for once per run of
cells that share it. Lines that scrolled off come as text from one formatter call.
The bit positions of a raw cell are not ABI, so they are read from the library's own
type manifest (``ghostty_type_json``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import compress, repeat
from operator import is_not

from supervisor.terminal.emulator import DEFAULT_STYLE, CellStyle, Row, Span
from supervisor.terminal.ghostty_ffi import cell_bits, ffi, lib
from supervisor.terminal.ghostty_ffi import check as _check
from supervisor.terminal.sgr import blanked

__all__ = ["RowReader", "format_history", "history_lines", "vt_line_spans"]


_BITS = cell_bits  # {field: (lsb, width)} of a raw cell, from the library's manifest
TAG_MASK = (1 << _BITS["content_tag"][1]) - 1
CONTENT_SHIFT = _BITS["content"][0]
CODEPOINT_MASK = (1 << 21) - 1
STYLE_SHIFT, STYLE_WIDTH = _BITS["style_id"]
STYLE_MASK = (1 << STYLE_WIDTH) - 1
WIDE_SHIFT = _BITS["wide"][0]
# Content tags and widths (GhosttyCellContentTag, GhosttyCellWide).
CODEPOINT, GRAPHEME, BG_PALETTE = 0, 1, 2  # 3 (BG_RGB) is any other: decoded as RGB
SPACER_TAIL, SPACER_HEAD = 2, 3
# A cell that is plain text: no style, no grapheme, narrow (everything above the
# codepoint zero); such rows decode by their codepoints alone.
_NOT_PLAIN = ~(CODEPOINT_MASK << CONTENT_SHIFT) & ((1 << 64) - 1)

# Bits that make a cell's text more than its code point: a grapheme or background-only
# content tag, a wide character or its spacer.
_NOT_TEXT = TAG_MASK | (3 << WIDE_SHIFT)

# Code points one cell shows, as the avt backend keeps: more than any real grapheme cluster.
MAX_CLUSTER = 32

# libghostty-vt also marks the rows the cursor left and entered: when no more rows than
# this are dirty, their cells are compared with what they were.
FEW_ROWS = 4

_STYLE_NONE = lib.GHOSTTY_STYLE_COLOR_NONE
_STYLE_PALETTE = lib.GHOSTTY_STYLE_COLOR_PALETTE


def _colour(c) -> str | None:
    tag = c.tag
    if tag == _STYLE_NONE:
        return None
    if tag == _STYLE_PALETTE:
        return f"color{c.value.palette}"
    rgb = c.value.rgb
    return f"#{rgb.r:02x}{rgb.g:02x}{rgb.b:02x}"


@lru_cache(maxsize=4096)
def _style(key: tuple) -> CellStyle:
    return CellStyle(*key)


class RowReader:
    """The render state of one terminal: which rows changed, and each row as spans."""

    def __init__(self, terminal) -> None:
        self._terminal = terminal
        self._state = ffi.new("GhosttyRenderState*")
        _check(lib.ghostty_render_state_new(ffi.NULL, self._state), "render_state_new")
        self._iter = ffi.new("GhosttyRenderStateRowIterator*")
        _check(lib.ghostty_render_state_row_iterator_new(ffi.NULL, self._iter), "row iterator")
        self._cells = ffi.new("GhosttyRenderStateRowCells*")
        _check(lib.ghostty_render_state_row_cells_new(ffi.NULL, self._cells), "row cells")
        self._view = ffi.new("GhosttyCellsView*")
        self._y = ffi.new("uint16_t*")
        self._false = ffi.new("bool*", False)
        self._clean = ffi.new("GhosttyRenderStateDirty*", lib.GHOSTTY_RENDER_STATE_DIRTY_FALSE)
        self._style_out = ffi.new("GhosttyStyle*")
        self._style_out.size = ffi.sizeof("GhosttyStyle")
        self._glen = ffi.new("uint32_t*")
        self._row_raw = ffi.new("GhosttyRow*")
        self._flag = ffi.new("bool*")
        self._raw: dict[int, bytes] = {}  # the raw cells of each row when last looked at

    def close(self) -> None:
        lib.ghostty_render_state_row_cells_free(self._cells[0])
        lib.ghostty_render_state_row_iterator_free(self._iter[0])
        lib.ghostty_render_state_free(self._state[0])

    def forget(self) -> None:
        """Every row counts as changed on the next look (a resize, a screen switch)."""
        self._raw.clear()

    def update(self) -> None:
        """Bring the render state up to the terminal without asking which rows changed."""
        _check(lib.ghostty_render_state_update(self._state[0], self._terminal), "update")

    def changed_rows(self, cursor_row: int) -> set[int]:
        """Rows whose cells changed since the last call.

        libghostty-vt also marks the rows the cursor left and entered; a row whose raw
        cells are the same bytes, with no style or grapheme whose meaning could have
        changed behind the same ids, did not change. The cells of the cursor's row
        (``cursor_row``, the row it will leave) are kept for that comparison.
        """
        state, it, y, view = self._state[0], self._iter, self._y, self._view
        _check(lib.ghostty_render_state_update(state, self._terminal), "render_state_update")
        _check(
            lib.ghostty_render_state_get(state, lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR, it),
            "row iterator",
        )
        changed: set[int] = set()
        raw_rows = self._raw
        cells_raw = lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW
        dirty = lib.GHOSTTY_RENDER_STATE_ROW_OPTION_DIRTY
        few: list[tuple[int, bytes]] = []
        while lib.ghostty_render_state_row_iterator_next_dirty(it[0], y):
            row = y[0]
            changed.add(row)
            if len(changed) <= FEW_ROWS or row == cursor_row:  # compare the cells (below)
                lib.ghostty_render_state_row_get(it[0], cells_raw, view)
                few.append((row, ffi.buffer(view.ptr, view.len * 8)[:]))
            lib.ghostty_render_state_row_set(it[0], dirty, self._false)
        lib.ghostty_render_state_set(state, lib.GHOSTTY_RENDER_STATE_OPTION_DIRTY, self._clean)
        if len(changed) > FEW_ROWS:  # a scroll or a redraw: every one of them changed
            for row in changed:
                raw_rows.pop(row, None)
            raw_rows.update(item for item in few if item[0] == cursor_row)
            return changed
        for row, raw in few:
            if raw_rows.get(row) == raw and _plain(raw):
                changed.discard(row)
            raw_rows[row] = raw
        return changed

    def rows(self, wanted: set[int], styled: bool = True) -> dict[int, tuple[Row | None, str]]:
        """Spans (None unless ``styled``) and text of the ``wanted`` rows, in one pass of
        the row iterator: the screen detectors read text only, which needs no style.

        Only valid while the render state is current (after :meth:`changed_rows`).
        """
        it = self._iter
        _check(
            lib.ghostty_render_state_get(
                self._state[0], lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR, it
            ),
            "row iterator",
        )
        out: dict[int, tuple[Row | None, str]] = {}
        y = 0
        last = max(wanted)
        read = self._row if styled else self._text
        while y <= last and lib.ghostty_render_state_row_iterator_next(it[0]):
            if y in wanted:
                out[y] = read()
            y += 1
        return out

    def continued_rows(self) -> set[int]:
        """Rows the terminal soft-wrapped onto from the row above (text ran past the edge)."""
        it = self._iter
        _check(
            lib.ghostty_render_state_get(
                self._state[0], lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR, it
            ),
            "row iterator",
        )
        row, flag = self._row_raw, self._flag
        continued: set[int] = set()
        y = 0
        while lib.ghostty_render_state_row_iterator_next(it[0]):
            lib.ghostty_render_state_row_get(it[0], lib.GHOSTTY_RENDER_STATE_ROW_DATA_RAW, row)
            lib.ghostty_row_get(row[0], lib.GHOSTTY_ROW_DATA_WRAP_CONTINUATION, flag)
            if flag[0]:
                continued.add(y)
            y += 1
        return continued

    def _text(self) -> tuple[None, str]:
        it, view = self._iter[0], self._view
        lib.ghostty_render_state_row_get(it, lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW, view)
        values = ffi.unpack(ffi.cast("uint64_t*", view.ptr), view.len)
        if not any(v & _NOT_TEXT for v in values):  # narrow characters, styled or not
            cps = [(v >> CONTENT_SHIFT) & CODEPOINT_MASK for v in values]
            return None, "".join(map(chr, cps)).replace("\0", " ")
        return None, self._row()[1]

    def _row(self) -> tuple[Row, str]:
        it, view = self._iter[0], self._view
        lib.ghostty_render_state_row_get(it, lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW, view)
        values = ffi.unpack(ffi.cast("uint64_t*", view.ptr), view.len)
        if not any(v & _NOT_PLAIN for v in values):  # unstyled narrow text: the common row
            text = "".join(map(chr, [v >> CONTENT_SHIFT for v in values])).replace("\0", " ")
            return (Span(text),), text
        lib.ghostty_render_state_row_get(it, lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS, self._cells)
        chars: list[str] = []
        spans: list[Span] = []
        key = None
        start = 0
        styles: dict[int, CellStyle] = {}
        for x, v in enumerate(values):
            wide = (v >> WIDE_SHIFT) & 3
            if wide == SPACER_TAIL:
                continue
            tag = v & TAG_MASK
            if tag == CODEPOINT:
                cp = (v >> CONTENT_SHIFT) & CODEPOINT_MASK
                ch = chr(cp) if cp and wide != SPACER_HEAD else " "
                k = (v >> STYLE_SHIFT) & STYLE_MASK
            elif tag == GRAPHEME:
                ch = self._grapheme(x)
                k = (v >> STYLE_SHIFT) & STYLE_MASK
            else:  # a blank cell with a background colour only
                ch = " "
                k = -1 - ((v >> CONTENT_SHIFT) & 0xFFFFFF) - (tag << 24)
            if k != key:
                if chars[start:]:
                    spans.append(Span("".join(chars[start:]), self._span_style(key, styles)))
                start = len(chars)
                key = k
                if k > 0 and k not in styles:
                    styles[k] = self._cell_style(x)
            chars.append(ch)
        if chars[start:]:
            spans.append(Span("".join(chars[start:]), self._span_style(key, styles)))
        if any(span.style.conceal for span in spans):  # SGR 8: blanks, as the terminal shows
            spans = [Span(blanked(sp.text), sp.style) if sp.style.conceal else sp for sp in spans]
            return tuple(spans), "".join(span.text for span in spans)
        return tuple(spans), "".join(chars)

    def _span_style(self, key, styles: dict[int, CellStyle]) -> CellStyle:
        if not key:
            return DEFAULT_STYLE
        if key > 0:
            return styles[key]
        value = -1 - key
        tag, content = value >> 24, value & 0xFFFFFF
        if tag == BG_PALETTE:
            return _style((None, f"color{content & 0xFF}", *(False,) * 7))
        r, g, b = content & 0xFF, (content >> 8) & 0xFF, (content >> 16) & 0xFF
        return _style((None, f"#{r:02x}{g:02x}{b:02x}", *(False,) * 7))

    def _cell_style(self, x: int) -> CellStyle:
        cells, st = self._cells[0], self._style_out
        lib.ghostty_render_state_row_cells_select(cells, x)
        lib.ghostty_render_state_row_cells_get(
            cells, lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_STYLE, st
        )
        return _style(
            (
                _colour(st.fg_color),
                _colour(st.bg_color),
                bool(st.bold),
                bool(st.faint),
                bool(st.italic),
                st.underline != 0,
                bool(st.inverse),
                bool(st.strikethrough),
                bool(st.blink),
                bool(st.invisible),
                bool(st.overline),
                st.underline if st.underline > 1 else 0,  # double, curly...: single is 0
                _colour(st.underline_color),
            )
        )

    def _grapheme(self, x: int) -> str:
        cells = self._cells[0]
        lib.ghostty_render_state_row_cells_select(cells, x)
        lib.ghostty_render_state_row_cells_get(
            cells, lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_LEN, self._glen
        )
        n = self._glen[0]
        if not n:
            return " "
        buf = ffi.new("uint32_t[]", n)
        lib.ghostty_render_state_row_cells_get(
            cells, lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_BUF, buf
        )
        text = "".join(map(chr, buf[0 : min(n, MAX_CLUSTER)]))
        return unicodedata.normalize("NFC", text)


def _plain(raw: bytes) -> bool:
    """No cell of the row has a style, a grapheme or a background of its own."""
    return not any(v & _NOT_PLAIN for v in memoryview(raw).cast("Q"))


# -- the lines that scrolled off ----------------------------------------------------


_SELECTION = ffi.new("GhosttySelection*")
_SELECTION.size = ffi.sizeof("GhosttySelection")
_POINT = ffi.new("GhosttyPointS*")
_POINT.tag = lib.GHOSTTY_POINT_TAG_HISTORY
_GRID_REF = ffi.cast(
    "GhosttyResult(*)(GhosttyTerminal, GhosttyPointS, GhosttyGridRef*)",
    ffi.addressof(lib, "ghostty_terminal_grid_ref"),
)
_GRID_REF_SIZE = ffi.sizeof("GhosttyGridRef")
_START = ffi.addressof(_SELECTION.start)
_END = ffi.addressof(_SELECTION.end)


def _options(emit):
    opts = ffi.new("GhosttyFormatterTerminalOptions*")
    opts.size = ffi.sizeof("GhosttyFormatterTerminalOptions")
    opts.extra.size = ffi.sizeof("GhosttyFormatterTerminalExtra")
    opts.extra.screen.size = ffi.sizeof("GhosttyFormatterScreenExtra")
    opts.emit = emit
    opts.unwrap = False
    opts.trim = True
    opts.selection = _SELECTION
    return opts


# Made once: every call through cffi that allocates costs more than the formatter's
# work on a few rows (bench/README.md).
_VT_OPTIONS = _options(lib.GHOSTTY_FORMATTER_FORMAT_VT)
_PLAIN_OPTIONS = _options(lib.GHOSTTY_FORMATTER_FORMAT_PLAIN)
_FORMATTER = ffi.new("GhosttyFormatter*")
_OUT = ffi.new("uint8_t**")
_OUT_LEN = ffi.new("size_t*")


def _format(terminal, options) -> str:
    """The text of :data:`_SELECTION` of ``terminal`` in the format of ``options``."""
    _check(lib.ghostty_formatter_terminal_new(ffi.NULL, _FORMATTER, terminal, options[0]), "format")
    formatter = _FORMATTER[0]
    try:
        _check(lib.ghostty_formatter_format_alloc(formatter, ffi.NULL, _OUT, _OUT_LEN), "format")
        ptr, n = _OUT[0], _OUT_LEN[0]
        try:
            return ffi.buffer(ptr, n)[:].decode("utf-8", "replace")
        finally:
            lib.ghostty_free(ffi.NULL, ptr, n)
    finally:
        lib.ghostty_formatter_free(formatter)


def _grid_ref(terminal, x: int, y: int, out) -> None:
    """Point (x, y) of the history into ``out`` (a pointer to a GhosttyGridRef)."""
    point = _POINT
    point.value.x, point.value.y = x, y
    out.size = _GRID_REF_SIZE
    _check(_GRID_REF(terminal, point[0], out), "grid_ref")


def format_history(terminal, cols: int, rows: int) -> tuple[list[str], list[str]]:
    """Plain text (trailing blanks stripped) and VT text (SGR) of the first ``rows``
    history rows, one string per row."""
    _grid_ref(terminal, 0, 0, _START)
    _grid_ref(terminal, cols - 1, rows - 1, _END)
    text = _format(terminal, _VT_OPTIONS)
    plain = None
    if "\x1b" in text:  # styled: the plain text needs a formatter call of its own
        plain = _format(terminal, _PLAIN_OPTIONS)
    return history_lines(text, plain, rows)


def history_lines(vt_text: str, plain_text: str | None, rows: int) -> tuple[list[str], list[str]]:
    """The formatter's VT text (rows ended by CRLF) and, when it is styled, its plain text
    (rows ended by LF) as ``rows`` plain rows with trailing blanks stripped, and VT rows.

    Unstyled VT text is its own plain text; its rows are stripped only when one of them
    ends in a space. Every row goes through ``str.rstrip`` by ``map``, which gives back
    the row itself when there is nothing to strip, so a row ending in a space is one that
    ``rstrip`` changed: looking at those alone finds it without scanning the text (the
    scan for ``" \\r\\n"`` cost more than the stripping, bench/README.md).
    """
    vt = vt_text.split("\r\n")
    if plain_text is not None:
        plain = list(map(str.rstrip, plain_text.split("\n")))
    else:
        plain = list(map(str.rstrip, vt))
        if plain != vt:  # some row ends in a blank: is one of them a space?
            changed = compress(vt, map(is_not, plain, vt))
            if not any(map(str.endswith, changed, repeat(" "))):
                plain = vt.copy()  # no row ends in a space: nothing is stripped
    return _fit(plain, rows), _fit(vt, rows)


def _fit(lines: list[str], rows: int) -> list[str]:
    """``lines`` cut or padded with empty rows to ``rows``, in place."""
    if len(lines) > rows:
        del lines[rows:]
    elif len(lines) < rows:
        lines.extend(repeat("", rows - len(lines)))
    return lines


# -- SGR text of a history row back to spans -------------------------------------------

_SEQ = re.compile(r"\x1b\[([0-9;:]*)m|\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|.)")
_BASIC = ("bold", "dim", "italic", "underline", "blink", None, "reverse", "conceal", "strike")
_OFF = {22: ("bold", "dim"), 23: ("italic",), 24: ("underline",), 25: ("blink",)}
_OFF |= {27: ("reverse",), 28: ("conceal",), 29: ("strike",), 55: ("overline",)}


def _apply(params: str, st: dict) -> None:
    items = [int(p or 0) for p in re.split("[;:]", params)] if params else [0]
    i = 0
    while i < len(items):
        p = items[i]
        if p == 0:
            st.clear()
        elif 1 <= p <= 9 and _BASIC[p - 1]:
            st[_BASIC[p - 1]] = True
        elif p == 53:
            st["overline"] = True
        elif p in _OFF:
            for name in _OFF[p]:
                st.pop(name, None)
        elif 30 <= p <= 37 or 90 <= p <= 97:
            st["fg"] = f"color{p - 30 if p < 90 else p - 82}"
        elif 40 <= p <= 47 or 100 <= p <= 107:
            st["bg"] = f"color{p - 40 if p < 100 else p - 92}"
        elif p in (39, 49):
            st.pop("fg" if p == 39 else "bg", None)
        elif p in (38, 48, 58) and i + 1 < len(items):
            name = {38: "fg", 48: "bg", 58: "underline_color"}[p]
            if items[i + 1] == 5 and i + 2 < len(items):
                value, i = f"color{items[i + 2]}", i + 2
            elif items[i + 1] == 2 and i + 4 < len(items):
                r, g, b = items[i + 2 : i + 5]
                value, i = f"#{r:02x}{g:02x}{b:02x}", i + 4
            else:
                value, i = None, i + 1
            if name and value:
                st[name] = value
        i += 1


def vt_line_spans(line: str, cols: int, width) -> Row:
    """Spans of one row the VT formatter wrote, padded with blanks to ``cols`` cells."""
    spans: list[Span] = []
    st: dict = {}
    pos = 0
    for m in _SEQ.finditer(line):
        if m.start() > pos:
            spans.append(Span(line[pos : m.start()], _dict_style(st)))
        if m.group(1) is not None:
            _apply(m.group(1), st)
        pos = m.end()
    if pos < len(line):
        spans.append(Span(line[pos:], _dict_style(st)))
    used = sum(len(s.text) if s.text.isascii() else width(s.text) for s in spans)
    if used < cols:
        spans.append(Span(" " * (cols - used)))
    merged: list[Span] = []
    for span in spans:
        if merged and merged[-1].style == span.style:
            merged[-1] = Span(merged[-1].text + span.text, span.style)
        else:
            merged.append(span)
    return tuple(merged)


def _dict_style(st: dict) -> CellStyle:
    if not st:
        return DEFAULT_STYLE
    return _style(
        (
            st.get("fg"),
            st.get("bg"),
            *(st.get(k, False) for k in ("bold", "dim", "italic", "underline")),
            st.get("reverse", False),
            st.get("strike", False),
            st.get("blink", False),
            st.get("conceal", False),
            st.get("overline", False),
            0,
            st.get("underline_color"),
        )
    )
