"""The user's terminal's raw input, split into the agent's bytes and tether's.

An input parser (Textual's, any) turns bytes into key events, and events back into
bytes lose what the user typed: Alt+Enter (``ESC CR``) comes back as Enter, Esc then
``:`` as ``:``, Alt+b as Ctrl+Left. So while the agent's pane has the focus, its bytes
never go through a parser: :class:`InputSplitter` cuts the stream into the tokens a
terminal sends for one key (a character, ``ESC`` + a character, a CSI or SS3
sequence) and hands each on untouched, except what is tether's: its own keys (the
footer's, as the keymap names them), mouse reports, focus reports, bracketed pastes
and the terminal's answers to the UI toolkit's queries. Those go to the toolkit's
parser as they came.

A sequence cut by a read (``ESC`` alone, ``ESC [ 1 ;``) is held until its end comes or
:data:`HOLD_SECONDS` pass, then handed on as it is: nothing is lost or reordered, and a
split mouse report is not typed into the agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["HOLD_SECONDS", "ForAgent", "ForTether", "InputSplitter", "Piece"]

# How long a sequence cut by a read waits for its end before it is handed on as it is.
HOLD_SECONDS = 0.02
# A paste for the agent is handed on in parts of this size at most (a terminal that never
# sends the end marker cannot make tether hold everything typed after it).
PASTE_PART = 8 << 20

ESC = 0x1B
PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"
FOCUS_IN = b"\x1b[I"
FOCUS_OUT = b"\x1b[O"

_CSI = re.compile(rb"\x1b\[([0-?]*)([ -/]*)([@-~])")
_CSI_PARTIAL = re.compile(rb"\x1b\[[0-?]*[ -/]*\Z")
_SS3 = re.compile(rb"\x1bO[0-9;]*[\x20-\x7e]")
_SS3_PARTIAL = re.compile(rb"\x1bO[0-9;]*\Z")
# Answers a terminal gives to the UI toolkit's own queries, never keys: DECRPM
# (``CSI ? 2026 ; 2 $ y``), kitty keyboard flags (``CSI ? 1 u``), in-band resize
# (``CSI 48 ; rows ; cols ; h ; w t``).
_REPLY = re.compile(rb"\x1b\[\?[0-9;]*\$?[uy]|\x1b\[[0-9;]*\$y|\x1b\[48;[0-9;]*t")


@dataclass(frozen=True, slots=True)
class ForAgent:
    """Bytes the agent gets exactly as the user's terminal sent them; or, ``pasted``, the
    body of a bracketed paste (without its markers), which the agent gets as a paste:
    bracketed again only if it asked for that."""

    data: bytes
    pasted: bool = False


@dataclass(frozen=True, slots=True)
class ForTether:
    """Bytes for tether's own input parser: its keys, the mouse, pastes, focus, replies.

    ``focus`` is set on a focus report (``CSI I`` True, ``CSI O`` False), which the agent
    may also want to hear when it enabled focus reporting."""

    data: bytes
    focus: bool | None = None


Piece = ForAgent | ForTether


def _utf8_length(lead: int) -> int:
    if lead < 0xC0:
        return 1
    return 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


class InputSplitter:
    """Splits raw input into :class:`ForAgent` and :class:`ForTether` pieces, in order.

    ``own_keys``: the exact sequences of tether's keys (see
    :func:`~supervisor.terminal.keys.key_sequences`). With ``passthrough`` off (the
    side pane or a dialog has the focus) every piece is tether's.
    """

    def __init__(self, own_keys: Iterable[bytes]) -> None:
        keys = frozenset(own_keys)
        self._own_keys = keys
        self._own_bytes = re.compile(
            b"[" + b"".join(re.escape(k) for k in keys if len(k) == 1) + b"]"
            if any(len(k) == 1 for k in keys)
            else rb"(?!)"
        )
        self._held = b""
        self._in_paste = False
        self._paste_tail = b""  # the end of the paste so far: its end marker may be cut
        self._paste_body: bytes | None = None  # a paste for the agent, collected whole

    def holding(self) -> bool:
        """Whether a sequence cut by a read waits for its end (see :meth:`flush`)."""
        return bool(self._held)

    def flush(self, *, passthrough: bool) -> list[Piece]:
        """The held bytes, handed on as they are: their end did not come in time."""
        held, self._held = self._held, b""
        if not held:
            return []
        pieces: list[Piece] = []
        self._add(pieces, held, passthrough)
        return pieces

    def split(self, data: bytes, *, passthrough: bool) -> list[Piece]:
        """One read's pieces; a sequence cut at its end is held for the next read."""
        if self._held:
            data = self._held + data
            self._held = b""
        pieces: list[Piece] = []
        pos, n = 0, len(data)
        while pos < n:
            if self._in_paste:
                pos = self._paste(data, pos, pieces)
                continue
            esc = data.find(b"\x1b", pos)
            end = n if esc < 0 else esc
            if end > pos:
                self._plain(data[pos:end], pieces, passthrough)
                pos = end
                continue
            token = self._sequence(data, pos)
            if token is None:  # cut by the read
                self._held = data[pos:]
                break
            self._token(token, pieces, passthrough)
            pos += len(token)
        return pieces

    # -- helpers -------------------------------------------------------------

    def _plain(self, run: bytes, pieces: list[Piece], passthrough: bool) -> None:
        """Characters and C0 controls: the agent's, but for a one-byte key of tether's."""
        start = 0
        for m in self._own_bytes.finditer(run):
            if m.start() > start:
                self._add(pieces, run[start : m.start()], passthrough)
            pieces.append(ForTether(m.group()))
            start = m.end()
        if start < len(run):
            self._add(pieces, run[start:], passthrough)

    def _sequence(self, data: bytes, pos: int) -> bytes | None:
        """The whole key sequence starting with the ESC at ``pos``, or None when cut."""
        n = len(data)
        if pos + 1 >= n:
            return None
        kind = data[pos + 1]
        if kind == 0x5B:  # "["
            m = _CSI.match(data, pos)
            if m is None:
                if _CSI_PARTIAL.match(data, pos):
                    return None
                return data[pos : pos + 2]  # Alt+[ followed by something else
            if m.group(3) == b"M" and not m.group(1) and not m.group(2):
                # An X10 mouse report: CSI M and three bytes.
                return data[pos : pos + 6] if pos + 6 <= n else None
            return m.group()
        if kind == 0x4F:  # "O"
            m = _SS3.match(data, pos)
            if m is None:
                return None if _SS3_PARTIAL.match(data, pos) else data[pos : pos + 2]
            return m.group()
        if kind == ESC:
            return data[pos : pos + 1]  # ESC ESC...: the first is a key of its own
        length = _utf8_length(kind)
        if pos + 1 + length > n:
            return None
        return data[pos : pos + 1 + length]  # ESC + one character: Alt+it

    def _token(self, token: bytes, pieces: list[Piece], passthrough: bool) -> None:
        if token == PASTE_START:
            self._in_paste = True
            self._paste_tail = b""
            if passthrough:  # the agent's, in its place among the keys
                self._paste_body = b""
            else:
                pieces.append(ForTether(token))
        elif token in (FOCUS_IN, FOCUS_OUT):
            pieces.append(ForTether(token, focus=token == FOCUS_IN))
        elif (
            token in self._own_keys
            or token.startswith((b"\x1b[<", b"\x1b[M"))  # mouse reports
            or _REPLY.fullmatch(token)
        ):
            pieces.append(ForTether(token))
        else:
            self._add(pieces, token, passthrough)

    def _paste(self, data: bytes, pos: int, pieces: list[Piece]) -> int:
        """Inside a bracketed paste, up to and with its end marker: tether's (its parser
        makes a Paste of it), or collected for the agent when it began with the keys."""
        window = self._paste_tail + data[pos:]
        found = window.find(PASTE_END)
        end = len(data) if found < 0 else pos + found - len(self._paste_tail) + len(PASTE_END)
        if found < 0:
            self._paste_tail = window[-(len(PASTE_END) - 1) :]
        else:
            self._in_paste = False
            self._paste_tail = b""
        if self._paste_body is None:
            pieces.append(ForTether(data[pos:end]))
        else:
            self._paste_body += data[pos:end]
            if not self._in_paste:
                body, self._paste_body = self._paste_body[: -len(PASTE_END)], None
                pieces.append(ForAgent(body, pasted=True))
            elif len(self._paste_body) > PASTE_PART:  # keep the marker's start for the next
                keep = len(PASTE_END) - 1
                part, self._paste_body = self._paste_body[:-keep], self._paste_body[-keep:]
                pieces.append(ForAgent(part, pasted=True))
        return end

    @staticmethod
    def _add(pieces: list[Piece], data: bytes, passthrough: bool) -> None:
        """Append ``data`` to the last piece when it goes the same way (fewer writes)."""
        if passthrough:
            if pieces and isinstance(pieces[-1], ForAgent) and not pieces[-1].pasted:
                pieces[-1] = ForAgent(pieces[-1].data + data)
            else:
                pieces.append(ForAgent(data))
        elif pieces and isinstance(pieces[-1], ForTether) and pieces[-1].focus is None:
            pieces[-1] = ForTether(pieces[-1].data + data)
        else:
            pieces.append(ForTether(data))
