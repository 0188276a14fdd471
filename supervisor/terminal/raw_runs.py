"""Runs of a child's output a backend may take as raw bytes, past the pre-filter.

The pre-filter parses with Python regexes (~20 MB/s on Ink frames); most of what agents
write is text, SGR and cursor moves it copies unchanged, or titles and mode sets it only
notes. A backend that parses those itself (libghostty-vt) finds such runs with RE2, a
DFA about ten times faster here, feeds them as they are, and has the pre-filter note
what they say (:class:`RawRunNotes`, given the pre-filter); the rest still goes through
the pre-filter, in its place in the stream.
"""

from __future__ import annotations

import re
from functools import lru_cache

import re2

from supervisor.terminal.prefilter import Prefilter
from supervisor.terminal.sgr import sgr_conceals

__all__ = [
    "DEC_MODE_SETS",
    "RAW_RUN",
    "RawRunNotes",
    "before_concealing",
    "before_screen_modes",
    "plain_text",
    "safe_cut",
    "utf8_cut",
]

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.max_mem = 32 << 20  # the DFA of the raw-run pattern, built once
_RE2_OPTIONS.encoding = re2.Options.Encoding.LATIN1  # bytes, not UTF-8 characters
_RE2_OPTIONS.never_capture = True

# Bytes that need the pre-filter: anything but text, tab, CR and LF (C0 controls, ESC,
# DEL, C1 controls in UTF-8). Plain text has none and goes to libghostty-vt as it is.
_NEEDS_FILTER = re.compile(rb"[^\t\n\r\x20-\x7e\x80-\xff]|\xc2[\x80-\x9f]")
# A run the pre-filter would copy unchanged, taken by RE2 (a DFA: ~10x Python's re here):
# text, BEL..SI, SGR (colons and underline colour too: libghostty-vt parses them), the
# cursor and erase CSIs with as many numbers as they take, DEC mode sets, titles and
# OSC 7501 reports (all noted by RawRunNotes.passed_raw), DECSC/DECRC, index, charsets, and
# the key-protocol and cursor-style CSIs the pre-filter drops (``CSI > 4;0 m``...: state
# inside libghostty-vt that nothing reads; its replies are never sent). Whatever else (a
# query, a screen switch, another OSC, a DCS) goes through the pre-filter, in its place.
_NUM = rb"[0-9]{0,5}"
RAW_RUN = re2.compile(
    rb"(?:[\x07-\x0f\x20-\x7e\x80-\xc1\xc3-\xff]|\xc2[\xa0-\xbf]"
    rb"|\x1b\[(?:" + _NUM + rb"[:;]){0,31}" + _NUM + rb"m"
    rb"|\x1b\[" + _NUM + rb"(?:;" + _NUM + rb")?[Hfr]"
    rb"|\x1b\[" + _NUM + rb"[@A-HJKPXdg]|\x1b\[(?:[1-9][0-9]{0,4})?[ILMSTZae]"
    rb"|\x1b\[\?[0-9;]*[hl]"
    rb"|\x1b\[[<=>][0-9;]*[abd-pr-zA-Z]|\x1b\[[0-9]* q"
    rb"|\x1b[78DEHM]|\x1b[()][0-9A-Za-z]|\x1b#8"
    rb"|\x1b\](?:0|2|7501);[\x20-\x7e\x80-\xff]*(?:\x07|\x1b\\))*",
    _RE2_OPTIONS,
)
# DEC modes a raw run stops before: alternate screens, 132 columns, grapheme clustering.
_SCREEN_SWITCH = re.compile(rb"\x1b\[\?(?:[0-9;]*;)?0*(?:3|47|1047|1049|2027)(?:;[0-9;]*)?[hl]")
_PLAIN_ASCII = b"\t\n\r" + bytes(range(0x20, 0x7F))
DEC_MODE_SETS = re.compile(rb"\x1b\[\?([0-9;]*)([hl])")
_OTHER_DEC_SET = re.compile(rb"\x1b\[\?(?!25[hl]|2026[hl])([0-9;]*)([hl])")
# An SGR in which an 8 may be read as a code (SGR 8), not as a colour's argument: the
# numbers are read as sgr.conceals does, a colour introducer (38, 48, 58) taking 5 and one
# argument or 2 and three. Ink writes a truecolour such as 38;2;116;168;8 in every frame:
# it must not stop a raw run. The pattern may find more (05 and 02 are read both ways, as
# normalize_sgr rewrites them; any SGR with a colon and an 8), never less: each SGR found is
# then read by sgr_conceals, the pre-filter's own rule. RE2: Python's re took half the
# feed's time on an Ink redraw flood. test_raw_run_colours.py checks it against the rule.
_ITEM = rb"[0-9:]*"
_INTRO = rb"0*[345]8"
_WIDE = rb"[1-9][0-79]|[12679]8|[1-9][0-9]{2,}"  # two digits or more, not an introducer
_CODE = rb"(?:[1-79]|" + _WIDE + rb")"  # after its zeros: neither 8 nor an introducer
_AFTER_INTRO = rb"(?:0+" + _CODE + rb"?|[134679]|" + _WIDE + rb"|)"  # nor exactly 5 or 2
_SGR_WITH_8 = re2.compile(
    rb"\x1b\[(?:0*" + _CODE + rb"?;|(?:" + _INTRO + rb";)+(?:0*5;" + _ITEM + rb";"
    rb"|0*2;" + _ITEM + rb";" + _ITEM + rb";" + _ITEM + rb";|" + _AFTER_INTRO + rb";))*"
    rb"(?:" + _INTRO + rb";)*0*8(?:;" + _ITEM + rb")*m"
    rb"|\x1b\[(?:[0-9;]*:[0-9;:]*8|[0-9;]*8[0-9;]*:)[0-9;:]*m",
    _RE2_OPTIONS,
)
_CURSOR_SHAPE = re.compile(rb"\x1b\[([0-9]*) q")
_OSC_BYTES = re.compile(rb"\x1b\]((?:0|2|7501);[^\x00-\x1f\x7f]*)(?:\x07|\x1b\\)")
MAX_OSC = 65536  # as the pre-filter: longer OSC strings are discarded unread


def before_screen_modes(data: bytes, start: int, end: int) -> int:
    """Where a raw run must stop: before a DEC mode set that switches screens, columns or
    grapheme clustering (the pre-filter turns those into events or drops them)."""
    m = _SCREEN_SWITCH.search(data, start, end)
    return end if m is None else m.start()


def before_concealing(data: bytes, start: int, end: int) -> int:
    """Where a raw run must stop: before an SGR that conceals (the pre-filter draws
    concealed text as blanks). A colour with an 8 in it does not stop the run: each stop
    costs a new RAW_RUN match over the rest of the read, a frame's worth per colour."""
    for m in _SGR_WITH_8.finditer(data, start, end):
        if _conceals(m.group()):
            return m.start()
    return end


@lru_cache(maxsize=1024)
def _conceals(sgr: bytes) -> bool:
    """Whether the whole SGR ``sgr`` conceals (a program repeats the same few colours)."""
    return sgr_conceals(sgr[2:-1].decode("ascii"))


def _last_cursor_shape(chunk: bytes) -> bytes | None:
    """The number of the last DECSCUSR (``CSI Ps SP q``) in ``chunk``, else None. Looked
    for from the end, where the shape asked for last is: a findall over the whole run
    cost a regex pass over up to 64 KiB whenever text said " q" (the captures: 170 runs).
    Past a few " q" that end none, the regex takes over (text full of them)."""
    end = len(chunk)
    for _ in range(8):
        at = chunk.rfind(b" q", 0, end)
        if at < 0:
            return None
        start = at
        while start > 0 and 0x30 <= chunk[start - 1] <= 0x39:
            start -= 1
        if start >= 2 and chunk[start - 2 : start] == b"\x1b[":
            return chunk[start:at]
        end = at + 1  # a " q" that ends no DECSCUSR: look before it
    shapes = _CURSOR_SHAPE.findall(chunk, 0, end)
    return shapes[-1] if shapes else None


def plain_text(data: bytes) -> bool:
    """Nothing the pre-filter must see: text, tab, CR and LF only."""
    if data.isascii():  # a C pass; the regex below is ~15x slower on a flood
        return not data.translate(None, _PLAIN_ASCII)
    return _NEEDS_FILTER.search(data) is None


def utf8_cut(data: bytes, start: int, end: int) -> int:
    """Where ``data[start:end]`` stops being whole UTF-8 characters (a read may cut one)."""
    for i in range(end - 1, max(end - 4, start - 1), -1):
        b = data[i]
        if b < 0x80:
            return end
        if b >= 0xC0:
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return end if end - i >= need else i
    return end


def safe_cut(data: bytes, start: int, end: int) -> int:
    """A cut in ``data[start:end]`` before its last ESC, else at a UTF-8 character boundary."""
    esc = data.rfind(b"\x1b", start + 1, end)
    if esc > start:
        return esc
    cut = utf8_cut(data, start, end)
    return cut if cut > start else end


class RawRunNotes:
    """What a :class:`~supervisor.terminal.prefilter.Prefilter` notes of a raw run."""

    def __init__(self, prefilter: Prefilter) -> None:
        self.prefilter = prefilter

    def passed_raw(self, chunk: bytes) -> None:
        """A run a backend took as raw bytes, having checked that the filter would copy
        every byte of it, or drop it having noted what it says: its BEL, its DEC mode sets,
        its titles and OSC 7501 reports, as the filter would take them."""
        prefilter = self.prefilter
        if b"\x1b]" in chunk:  # titles and Codex's state reports (OSC 0, 2, 7501)
            for m in _OSC_BYTES.finditer(chunk):
                body = m.group(1)
                if len(body) <= MAX_OSC:
                    prefilter.note_osc(body.decode("utf-8", "replace"))
            if b"\x07" in _OSC_BYTES.sub(b"", chunk):
                prefilter.bell = True
        elif b"\x07" in chunk:
            prefilter.bell = True
        if b" q" in chunk:  # DECSCUSR: the last shape asked for is the cursor's
            shape = _last_cursor_shape(chunk)
            if shape is not None and len(shape) < 3:
                prefilter.modes.cursor_shape = int(shape or 0)
        if b"\x1b[?" not in chunk:
            return
        pos = 0
        for m in _OTHER_DEC_SET.finditer(chunk):  # rare: mouse, paste, focus... in order
            self._frame_modes(chunk, pos, m.start())
            prefilter.note_dec_modes(m.group(1).decode(), m.group(2) == b"h")
            pos = m.end()
        self._frame_modes(chunk, pos, len(chunk))

    def _frame_modes(self, chunk: bytes, start: int, end: int) -> None:
        """The ``?25`` / ``?2026`` every Ink frame sets, in ``chunk[start:end]``: the last
        of each decides (there are hundreds in a flood)."""
        prefilter = self.prefilter
        modes = prefilter.modes
        last_cursor = chunk.rfind(b"\x1b[?25", start, end)
        if last_cursor >= 0:
            modes.cursor_visible = chunk[last_cursor + 5] == 0x68  # "h"
        on = chunk.rfind(b"\x1b[?2026h", start, end)
        off = chunk.rfind(b"\x1b[?2026l", start, end)
        if on >= 0:
            prefilter.sync_starts += 1  # a switch on: the backend times its release from it
        if on >= 0 or off >= 0:
            modes.synchronized_output = on > off
