"""Byte pre-filter in front of the emulator backend: tether's query policy and modes.

A backend answers queries by its own idea of what it is, may print the tail of a
sequence it does not know, and knows nothing of the modes the key encoder and the
injector must honour. So every byte the child writes goes through
:class:`Prefilter` first, which parses escape sequences itself with regexes
(plain text passes in one slice) and hands the emulator an ordered list of
segments: clean text any backend draws alike, and events the emulator must act
on at that exact point of the stream.

Query policy (what we claim to be)
----------------------------------
* DA1 ``CSI c`` / ``CSI 0 c`` -> ``CSI ?62;22c``: a VT220 with ANSI colour, no
  sixel (4) and nothing else, so nobody sends graphics.
* DA2 ``CSI > c`` -> ``CSI >1;10;0c`` (VT220, a low firmware version, so no
  program enables xterm-only tricks on the strength of our version).
* DSR ``CSI 5n`` -> ``CSI 0n``; CPR ``CSI 6n`` (and DECXCPR ``CSI ?6n``) is a
  :class:`CursorQuery` event: the emulator answers with its cursor at that
  point of the stream, after all text before the query was drawn.
* XTVERSION ``CSI >q`` / ``CSI >0q`` -> ``DCS >|tether(0.1) ST``. Claude Code then
  sends its second probe batch, all of which we answer or drop below.
* OSC 10/11 ``;?`` (and OSC 4 ``;n;?``) -> the user's terminal's own colours, asked
  at start, else the configured pair (no OSC 4 answer), as ``rgb:rrrr/gggg/bbbb``
  with the query's terminator (colour_answers.py).
* DECRQM ``CSI ? Ps $p`` -> ``CSI ?Ps;0$y`` (not recognized) for every mode but
  2026, synchronized output, which we support: ``;1$y`` while it is set, else
  ``;2$y``. ANSI DECRQM ``CSI Ps $p`` -> ``CSI Ps;0$y``.
* Kitty keyboard ``CSI ?u`` gets NO reply, and OSC 7501 ``;?`` gets none either:
  answering would make the agents switch key encodings (or status channels) we
  do not produce. Window reports (``CSI 14t``/``16t``/``18t``), DCS queries
  (DECRQSS, XTGETTCAP) and the kitty graphics APC query are not answered.

Dropped (never printed): every ``CSI <``, ``CSI =``, ``CSI >`` sequence (kitty
push/pop, modifyOtherKeys ``CSI >4;0m``...), every CSI with intermediates other than
DECRQM/DECSTR/DECSCUSR (its shape is kept in the modes, for the real cursor), window
ops ``CSI t``, unknown finals; DCS/APC/PM/SOS strings; every OSC except 0/2 (title, kept in
:attr:`Prefilter.title`), 4/10/11 queries, 7501 (last Codex state kept in
:attr:`Prefilter.agent_status`); OSC 8 hyperlinks lose the sequence and keep
their text. C0 controls a backend might draw, DEL and C1 controls are removed.

Colon SGR (``38:2::r:g:b``, ``38:2:r:g:b``, ``38:5:n``, ``4:3``) is rewritten to
the semicolon form (avt drops ``4:3`` underlines and reads ``58;2;r;g;b`` as
attributes); underline colour ``58``/``59`` is removed with its arguments.

Modes are tracked in a :class:`TerminalModes` shared with the emulator, in
stream order: 2004, 1004, 1000/1002/1003, 1006, 2026, 1049/47/1047, 1, 25 and
``ESC =`` / ``ESC >``. A sequence or UTF-8 character cut by a read is carried to
the next :meth:`Prefilter.feed`.
"""

from __future__ import annotations

import codecs
import re

from supervisor.terminal.colour_answers import ColourAnswers
from supervisor.terminal.csi_controls import controls_inside
from supervisor.terminal.emulator import TerminalModes
from supervisor.terminal.prefilter_events import (
    AltScreen,
    CursorQuery,
    Event,
    HardReset,
    Reply,
    SoftReset,
)
from supervisor.terminal.sgr import blanked, conceals, normalize_sgr, sgr_conceals

__all__ = ["AltScreen", "CursorQuery", "Event", "HardReset", "Prefilter", "Reply", "SoftReset"]

DA1_REPLY = b"\x1b[?62;22c"
DA2_REPLY = b"\x1b[>1;10;0c"
XTVERSION_REPLY = b"\x1bP>|tether(0.1)\x1b\\"
SYNC_MODE = 2026
ALT_MODES = frozenset({47, 1047, 1049})
MOUSE_MODES = frozenset({1000, 1002, 1003})
# DEC private modes the backend's screen implements (reverse video, origin, autowrap).
SCREEN_PRIVATE_MODES = frozenset({5, 6, 7})
# ANSI modes the backend's screen implements (insert, linefeed/newline).
SCREEN_ANSI_MODES = frozenset({4, 20})
# CSI finals (no prefix, no intermediates) the emulator's stream dispatches.
PASS_FINALS = frozenset("@ABCDEFGHIJKLMPSTXZabdefgr")

MAX_SEQUENCE = 4096  # a CSI/ESC longer than this is garbage, not a sequence
MAX_OSC = 65536  # longer OSC strings (clipboard pastes) are discarded unread


# Everything that is not plain text the backend can take as is: ESC starts a sequence;
# other C0 controls except BEL..SI, plus DEL and C1, are dropped.
_SPECIAL = re.compile(r"[\x00-\x06\x10-\x1f\x7f-\x9f]")
_JUNK_RUN = re.compile(r"[\x00-\x06\x10-\x1a\x1c-\x1f\x7f-\x9f]+")
_CSI = re.compile(r"\x1b\[([0-?]*)([ -/]*)([@-~])")
_CSI_PARTIAL = re.compile(r"\x1b\[[0-?]*[ -/]*\Z")
_ESC = re.compile(r"\x1b([ -/]*)([0-~])")
_ESC_PARTIAL = re.compile(r"\x1b[ -/]*\Z")
# Ends (or aborts) an OSC: BEL, ST, another ESC, CAN, SUB.
_OSC_END = re.compile(r"[\x07\x18\x1a]|\x1b")
_STRING_END = re.compile(r"[\x18\x1a]|\x1b")
_PARAMS_OK = re.compile(r"[0-9;:]*\Z")
# A run that passes through unchanged: text, BEL..SI, and the sequences that would be
# copied verbatim below (SGR without colons or 58, cursor/erase CSIs, DECSC/DECRC),
# with no number over five digits.
# Matched in one step, so floods skip the loop.
_VERBATIM_RUN = re.compile(
    r"(?:[^\x00-\x06\x10-\x1f\x7f-\x9f]++"
    r"|\x1b(?:\[(?:(?![0-9;]*58)[0-9]{0,5}(?:;[0-9]{0,5})*+m"
    r"|[0-9]{0,5}(?:;[0-9]{0,5})?[Hfr]"
    r"|[0-9]{0,5}[@A-HJKPXdg]"
    r"|(?:[1-9][0-9]{0,4})?[ILMSTZae]"  # a 0 count is 1: see ZERO_IS_ONE
    r"|\?(?:25|2026)[hl])"  # the modes every Ink frame sets: applied after the run
    r"|[78]))++"
)
# A whole SGR with an 8 among its numbers (08 too): SGR 8, or only a colour's argument
# (38;5;8, 38;2;116;168;8, in every Ink frame): sgr_conceals tells them apart.
_SGR_WITH_8 = re.compile(r"\x1b\[((?:[0-9]*;)*0*8(?:;[0-9]*)*)m")
_SYNC_SET = re.compile(r"\x1b\[\?2026([hl])")
_LONG_NUMBER = re.compile(r"\d{5,}")
_REP_AT_END = re.compile(r"\x1b\[[0-9]*b\Z")
# CSI finals whose count 0 means 1, as in xterm; libghostty-vt takes 0 as 0 for these
# (CHT, IL, DL, SU, SD, CBT, HPR, VPR), so a zero count is sent as the default.
ZERO_IS_ONE = frozenset("ILMSTZae")
MAX_PARAM = 65535  # xterm's MAX_I_PARAM: a larger parameter is clamped to it
SOFT_RESET = "\x1b[0m\x1b[4l\x1b[?6l\x1b[?7h\x1b[r\x1b(B"


def _before_concealing(chunk: str) -> int:
    """Where the first SGR that conceals starts in a verbatim run (else its end): a
    colour with an 8 in it does not cut the run, which would be matched again from there."""
    for m in _SGR_WITH_8.finditer(chunk):
        if sgr_conceals(m.group(1)):
            return m.start()
    return len(chunk)


def _clamped(number: re.Match[str]) -> str:
    digits = number.group().lstrip("0")  # leading zeros count for nothing, as in xterm
    return str(MAX_PARAM) if len(digits) > 5 else str(min(int(digits or "0"), MAX_PARAM))


class Prefilter:
    """Stateful filter from raw child bytes to (clean text | event) segments.

    ``modes`` is updated in stream order; share it with the emulator so the key
    encoder sees what the child asked for.
    """

    def __init__(
        self,
        modes: TerminalModes | None = None,
        *,
        foreground: str = "#dddddd",
        background: str = "#000000",
    ) -> None:
        self.modes = modes if modes is not None else TerminalModes()
        self.title = ""
        self.agent_status = ""  # last OSC 7501 payload (Codex's state channel)
        self.bell = False
        # Times synchronized output was switched on: a backend holding repaints times
        # its safety release from the last one. Not an event, as nothing in the
        # stream has to happen at that exact point.
        self.sync_starts = 0
        self.colours = ColourAnswers(foreground, background)  # OSC 10, 11 and 4
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""  # an incomplete sequence carried to the next feed
        self._discarding = False  # inside a DCS/APC/PM/SOS (or huge OSC) we drop
        self._discard_bel = False  # BEL also ends the string being dropped (an OSC)
        self._rep_last = False  # the last thing passed was a REP: another repeats nothing
        self.concealed = False  # SGR 8: text is drawn as blanks (avt keeps no such pen)

    def _shown(self, text: str) -> str:
        """``text`` as drawn: blanks of its width while SGR 8 conceals it (see sgr.py)."""
        return blanked(text) if self.concealed else text

    def note_osc(self, body: str) -> None:
        """An OSC a backend took raw (a title, an OSC 7501 report): noted, never answered."""
        self._osc_done(body, "", [], [])

    def note_dec_modes(self, params: str, on: bool) -> None:
        """DEC private modes a backend took raw (``CSI ? params h/l``), noted in order."""
        self._dec_modes(params, on, [], [])

    def take_bell(self) -> bool:
        """Whether BEL was seen since the last call."""
        bell, self.bell = self.bell, False
        return bell

    def at_ground(self) -> bool:
        """No sequence, string or UTF-8 character is half read: the next byte starts afresh."""
        return not (self._pending or self._discarding or self._decoder.getstate()[0])

    def feed(self, data: bytes) -> list[str | Event]:
        """Filter one read; returns text for the backend and events, in stream order."""
        text = self._decoder.decode(data)
        if self._pending:
            text = self._pending + text
            self._pending = ""
        if not text:
            return []
        segments: list[str | Event] = []
        out: list[str] = []  # text pieces of the segment being built
        pos = 0
        if self._discarding:
            pos = self._skip_string(text, 0)
            if pos < 0:
                return segments
        n = len(text)
        search = _SPECIAL.search
        verbatim = _VERBATIM_RUN.match
        while pos < n:
            run = None if self.concealed else verbatim(text, pos)
            if run is not None:
                chunk = run.group()
                if ";8" in chunk or "[8" in chunk or "08" in chunk:
                    chunk = chunk[: _before_concealing(chunk)]  # that SGR is parsed below
                if "\x1b[?" in chunk:
                    self._run_modes(chunk)
                out.append(chunk)
                pos += len(chunk)
                if pos >= n:
                    break
            m = search(text, pos)
            if m is None:
                out.append(self._shown(text[pos:]))
                break
            i = m.start()
            if i > pos:
                out.append(self._shown(text[pos:i]))
            if text[i] != "\x1b":
                pos = _JUNK_RUN.match(text, i).end()
                continue
            if i + 1 >= n:
                self._pending = text[i:]
                break
            kind = text[i + 1]
            if kind == "[":
                pos = self._csi(text, i, out, segments)
            elif kind == "]":
                pos = self._osc(text, i, out, segments)
            elif kind in "P_^X":
                self._discarding = True
                self._discard_bel = False
                pos = self._skip_string(text, i + 2)
            else:
                pos = self._esc(text, i, out, segments)
            if pos < 0:  # carried to the next feed
                break
        if out:
            self._flush(out, segments)
        return segments

    # -- helpers -------------------------------------------------------------

    def _run_modes(self, chunk: str) -> None:
        """Apply the ``?25`` / ``?2026`` sets a verbatim run carries (no event sits inside one)."""
        modes = self.modes
        last_cursor = chunk.rfind("\x1b[?25")
        if last_cursor >= 0:
            modes.cursor_visible = chunk[last_cursor + 5] == "h"
        if "\x1b[?2026" in chunk:
            for m in _SYNC_SET.finditer(chunk):
                self._sync(m.group(1) == "h")

    def _sync(self, on: bool) -> None:
        if self.modes.synchronized_output != on:
            self.modes.synchronized_output = on
            if on:
                self.sync_starts += 1

    def _flush(self, out: list[str], segments: list[str | Event]) -> None:
        chunk = "".join(out)
        out.clear()
        if chunk:
            self._rep_last = chunk[-1] == "b" and _REP_AT_END.search(chunk[-16:]) is not None
            if "\x07" in chunk:
                self.bell = True
            segments.append(chunk)

    def _event(self, event: Event, out: list[str], segments: list[str | Event]) -> None:
        self._flush(out, segments)
        segments.append(event)

    def _carry(self, text: str, i: int, limit: int) -> int:
        """Keep ``text[i:]`` for the next feed unless it is implausibly long."""
        if len(text) - i <= limit:
            self._pending = text[i:]
        return -1

    def _skip_string(self, text: str, pos: int) -> int:
        """Drop a DCS/APC/PM/SOS body up to its ST; -1 when the read ends inside it."""
        end_re = _OSC_END if self._discard_bel else _STRING_END
        m = end_re.search(text, pos)
        if m is None:
            return -1
        j = m.start()
        if text[j] != "\x1b":  # BEL ends an OSC; CAN / SUB abort any string
            self._discarding = False
            return j + 1
        if j + 1 >= len(text):
            self._pending = "\x1b"
            return -1
        self._discarding = False
        # ESC \ is ST; any other ESC aborts the string and starts a sequence.
        return j + 2 if text[j + 1] == "\\" else j

    def _esc(self, text: str, i: int, out: list[str], segments: list[str | Event]) -> int:
        m = _ESC.match(text, i)
        if m is None:
            if _ESC_PARTIAL.match(text, i):
                return self._carry(text, i, MAX_SEQUENCE)
            return i + 1  # ESC followed by a control or non-ASCII: drop the ESC
        inter, final = m.group(1), m.group(2)
        end = m.end()
        if not inter:
            if final in "78DEHM":
                out.append(text[i:end])
            elif final == "=":
                self.modes.app_keypad = True
            elif final == ">":
                self.modes.app_keypad = False
            elif final == "c":
                self._reset_modes()
                self._event(HardReset(), out, segments)
            return end
        if inter in ("(", ")") or (inter == "#" and final == "8"):
            out.append(text[i:end])
        return end

    def _reset_modes(self) -> None:
        fresh = TerminalModes()
        for name in TerminalModes.__slots__:
            setattr(self.modes, name, getattr(fresh, name))

    def process_ended(self) -> None:
        """The child is gone: the next one starts as in a new terminal, so nothing the dead
        one set or left half-written carries over (modes, a cut sequence, its OSC 7501 state).

        Kitty keyboard flags are not tracked: tether never claims the protocol and drops
        its pushes, so there is nothing of them to reset.
        """
        self._reset_modes()
        self._decoder.reset()
        self._pending = ""
        self._discarding = self._discard_bel = False
        self.agent_status = ""

    def _osc(self, text: str, i: int, out: list[str], segments: list[str | Event]) -> int:
        n = len(text)
        pos = i + 2
        while True:
            m = _OSC_END.search(text, pos)
            if m is None:
                if n - i > MAX_OSC:
                    self._discarding = True
                    self._discard_bel = True
                    return -1
                return self._carry(text, i, MAX_OSC)
            j = m.start()
            c = text[j]
            if c == "\x07":
                self._osc_done(text[i + 2 : j], "\x07", out, segments)
                return j + 1
            if c != "\x1b":  # CAN/SUB abort
                return j + 1
            if j + 1 >= n:
                return self._carry(text, i, MAX_OSC)
            if text[j + 1] == "\\":
                self._osc_done(text[i + 2 : j], "\x1b\\", out, segments)
                return j + 2
            return j  # ESC + anything else aborts the OSC

    def _osc_done(self, body: str, term: str, out: list[str], segments: list[str | Event]) -> None:
        code, _, arg = body.partition(";")
        if code in ("0", "2"):
            self.title = arg
        elif code == "7501" and arg != "?":
            self.agent_status = arg
        elif code in ("4", "10", "11"):
            for reply in self.colours.answer(code, arg, term):
                self._event(Reply(reply), out, segments)

    def _csi(self, text: str, i: int, out: list[str], segments: list[str | Event]) -> int:
        m = _CSI.match(text, i)
        if m is None:
            if _CSI_PARTIAL.match(text, i):
                return self._carry(text, i, MAX_SEQUENCE)
            return self._csi_with_controls(text, i, out, segments)
        params, inter, final = m.groups()
        end = m.end()
        lead = ""
        if params and params[0] in "<=>?":
            lead, params = params[0], params[1:]
        if not _PARAMS_OK.match(params):
            return end
        if len(params) > 4 and _LONG_NUMBER.search(params):
            params = _LONG_NUMBER.sub(_clamped, params)
        if inter:
            if inter == "$" and final == "p" and lead in ("", "?"):
                self._decrqm(lead, params, out, segments)
            elif inter == " " and final == "q" and not lead and len(params) < 3:
                if params.isdigit() or not params:  # DECSCUSR: the real cursor's shape
                    self.modes.cursor_shape = int(params or 0)
            elif inter == "!" and final == "p" and not lead:  # DECSTR soft reset
                self.modes.cursor_visible = True
                self.modes.app_cursor_keys = False
                self.modes.app_keypad = False
                self._event(SoftReset(), out, segments)
            return end
        if lead == "?":
            if final in "hl":
                self._dec_modes(params, final == "h", out, segments)
            elif final in "JK" and ":" not in params:
                out.append(f"\x1b[{params}{final}")
            elif final == "n" and params == "6":
                self._event(CursorQuery(private=True), out, segments)
            return end
        if lead == ">":
            if final == "q" and params in ("", "0"):
                self._event(Reply(XTVERSION_REPLY), out, segments)
            elif final == "c" and params in ("", "0"):
                self._event(Reply(DA2_REPLY), out, segments)
            return end
        if lead:
            return end
        if final == "m":
            if ":" in params or "58" in params:
                params = normalize_sgr(params)
            self.concealed = conceals(params, self.concealed)
            out.append(f"\x1b[{params}m")
            return end
        if ":" in params:
            return end
        if (
            final == "b"
            and (  # REP: after a REP it repeats nothing (xterm)
                (out and out[-1][-1:] == "b" and _REP_AT_END.search(out[-1][-16:]))
                or (not out and self._rep_last)
            )
        ):
            return end
        if final == "`":  # HPA: the column, as CHA
            final = "G"
        if final in PASS_FINALS:
            if final == "T" and ";" in params:  # mouse highlight tracking, not scroll down
                return end
            if final in ZERO_IS_ONE and params and not params.strip("0;"):
                params = ""
            keep = 2 if final in "Hfr" else 1
            if params.count(";") >= keep:  # xterm ignores the extra numbers; libghostty-vt
                params = ";".join(params.split(";")[:keep])  # drops the whole sequence
            out.append(f"\x1b[{params}{final}")
        elif final == "c":
            if params in ("", "0"):
                self._event(Reply(DA1_REPLY), out, segments)
        elif final == "n":
            if params == "5":
                self._event(Reply(b"\x1b[0n"), out, segments)
            elif params == "6":
                self._event(CursorQuery(), out, segments)
        elif final in "hl":
            keep = [p for p in params.split(";") if p.isdigit() and int(p) in SCREEN_ANSI_MODES]
            if keep:
                out.append(f"\x1b[{';'.join(keep)}{final}")
        elif final in "su" and not params:  # SCOSC / SCORC
            out.append("\x1b7" if final == "s" else "\x1b8")
        return end

    def _csi_with_controls(
        self, text: str, i: int, out: list[str], segments: list[str | Event]
    ) -> int:
        """A CSI with C0 controls inside (see :func:`controls_inside`)."""
        found = controls_inside(text, i)
        if found is None:
            return self._carry(text, i, MAX_SEQUENCE)
        controls, sequence, end = found
        out.append(controls)
        if sequence:
            self._csi(sequence, 0, out, segments)
        return end

    def _decrqm(self, lead: str, params: str, out: list[str], segments: list[str | Event]) -> None:
        first = params.split(";")[0]
        mode = int(first) if first.isdigit() else 0
        state = 0
        if lead == "?" and mode == SYNC_MODE:
            state = 1 if self.modes.synchronized_output else 2
        reply = f"\x1b[{lead}{mode};{state}$y".encode()
        self._event(Reply(reply), out, segments)

    def _dec_modes(
        self, params: str, on: bool, out: list[str], segments: list[str | Event]
    ) -> None:
        modes = self.modes
        final = "h" if on else "l"
        for p in params.split(";"):
            if not p.isdigit() or len(p) > 9:  # no mode has that many digits
                continue
            mode = int(p)
            if mode in SCREEN_PRIVATE_MODES:
                out.append(f"\x1b[?{mode}{final}")
            elif mode == 25:
                modes.cursor_visible = on
            elif mode == 1:
                modes.app_cursor_keys = on
            elif mode == 2004:
                modes.bracketed_paste = on
            elif mode == 1004:
                modes.focus_events = on
            elif mode in MOUSE_MODES:
                modes.mouse_tracking = mode if on else 0
            elif mode == 1006:
                modes.mouse_sgr = on
            elif mode == 1048:
                out.append("\x1b7" if on else "\x1b8")
            elif mode == SYNC_MODE:
                self._sync(on)
            elif mode in ALT_MODES and modes.alt_screen != on:
                modes.alt_screen = on
                self._event(AltScreen(on, mode), out, segments)
