"""What the user's own terminal does, asked once at start: emoji widths and its colours.

tether draws the agent's screen into the user's terminal, which has its own idea of
how wide an emoji is. Terminals that follow Unicode's grapheme rules (ghostty, kitty,
WezTerm) draw a VS16 emoji (✔️) and a skin-toned one (👍🏽) in two cells; tmux 3.3a
and many others draw ✔️ in one cell and 👍🏽 in four. When tether's screen counts
otherwise, everything after the emoji on that row moves. So before the UI takes the
terminal, :func:`probe` prints each on the real tty and asks for the cursor position
(CPR) after it, and asks the terminal's foreground, background and 16-colour palette
(OSC 10, 11, 4), which the agent's own colour queries then get as answers. A DA1
query ends the batch: every terminal answers it, so the wait ends as soon as the
answers are in, and after :data:`PROBE_SECONDS` at worst.

:func:`adapt_widths` then rewrites the agent's output so both backends count as the
terminal draws: VS16 goes where the terminal ignores it, and a skin-tone modifier
the terminal draws as its own two cells becomes two blank cells (U+3000) that
every party (backend, painter, terminal) counts alike.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field

__all__ = ["PROBE_SECONDS", "OuterTerminal", "adapt_widths", "parse_answers", "probe"]

PROBE_SECONDS = 0.5

VS16_PROBE = "\u2714\ufe0f"  # ✔️: a text-default symbol made emoji by VS16
MODIFIER_PROBE = "\U0001f44d\U0001f3fd"  # 👍🏽: an emoji and a skin-tone modifier
_VS16 = "\ufe0f".encode()
_MODIFIERS = re.compile(rb"\xf0\x9f\x8f[\xbb-\xbf]")  # U+1F3FB..U+1F3FF
_WIDE_BLANK = "\u3000".encode()  # ideographic space: two blank cells everywhere

_CPR = re.compile(rb"\x1b\[(\d+);(\d+)R")
_OSC = re.compile(rb"\x1b\](10|11|4;\d+);([^\x07\x1b]*)(?:\x07|\x1b\\)")
_DA1 = re.compile(rb"\x1b\[\?[0-9;]*c")
_RGB = re.compile(r"rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})\Z")


@dataclass(frozen=True, slots=True)
class OuterTerminal:
    """The user's terminal as the probe found it; the defaults are what tether assumes
    when it cannot ask (no tty, no answer): grapheme widths, its own fixed colours."""

    vs16_cells: int = 2  # cells the terminal gives ✔️
    modifier_cells: int = 2  # cells it gives 👍🏽
    foreground: str | None = None  # "#rrggbb"
    background: str | None = None
    palette: dict[int, str] = field(default_factory=dict)  # 0..15 -> "#rrggbb"

    @property
    def adapts_widths(self) -> bool:
        """The agent's output must be rewritten for this terminal's widths."""
        return self.vs16_cells == 1 or self.modifier_cells == 4


def adapt_widths(data: bytes, outer: OuterTerminal) -> bytes:
    """``data`` with VS16 and skin-tone modifiers spelled as ``outer`` draws them.

    Byte-level: UTF-8 is self-synchronising, so no other character can match. A
    character cut between two reads is left as it is (rare: the row may then be off).
    """
    if outer.vs16_cells == 1 and _VS16 in data:
        data = data.replace(_VS16, b"")
    if outer.modifier_cells == 4 and b"\xf0\x9f\x8f" in data:
        data = _MODIFIERS.sub(_WIDE_BLANK, data)
    return data


def _colour(spec: bytes) -> str | None:
    """``rgb:rrrr/gggg/bbbb`` (1 to 4 hex digits each) -> ``#rrggbb``."""
    m = _RGB.match(spec.decode("ascii", "replace"))
    if m is None:
        return None
    parts = []
    for component in m.groups():
        value = int(component, 16) / (16 ** len(component) - 1)
        parts.append(f"{round(value * 255):02x}")
    return "#" + "".join(parts)


def parse_answers(answers: bytes) -> OuterTerminal:
    """The terminal's answers to :func:`probe`'s queries, in the order they were asked."""
    cprs = [int(m.group(2)) - 1 for m in _CPR.finditer(answers)]
    vs16 = cprs[0] if len(cprs) > 0 and cprs[0] in (1, 2) else 2
    modifier = cprs[1] if len(cprs) > 1 and cprs[1] in (2, 4) else 2
    colours: dict[str, str] = {}
    palette: dict[int, str] = {}
    for m in _OSC.finditer(answers):
        code, colour = m.group(1).decode(), _colour(m.group(2))
        if colour is None:
            continue
        if code.startswith("4;"):
            index = int(code[2:])
            if 0 <= index < 16:
                palette[index] = colour
        else:
            colours[code] = colour
    return OuterTerminal(vs16, modifier, colours.get("10"), colours.get("11"), palette)


def _queries() -> bytes:
    cpr = b"\x1b[6n"
    widths = b"\r" + VS16_PROBE.encode() + cpr + b"\r" + MODIFIER_PROBE.encode() + cpr
    erase = b"\r\x1b[K"
    colours = b"\x1b]10;?\x1b\\\x1b]11;?\x1b\\"
    palette = b"".join(b"\x1b]4;%d;?\x1b\\" % index for index in range(16))
    return widths + erase + colours + palette + b"\x1b[c"


def probe(in_fd: int = 0, out_fd: int = 1, timeout: float = PROBE_SECONDS) -> OuterTerminal:
    """Ask the terminal on ``in_fd``/``out_fd``; the defaults when either is no tty or it
    does not answer within ``timeout`` (the answers that came are used)."""
    if not (os.isatty(in_fd) and os.isatty(out_fd)):
        return OuterTerminal()
    import select
    import termios  # POSIX only, as the probe: the emulators import this module everywhere

    try:
        saved = termios.tcgetattr(in_fd)
    except termios.error:
        return OuterTerminal()
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ICANON)  # answers are read, not shown
    answers = b""
    try:
        termios.tcsetattr(in_fd, termios.TCSANOW, quiet)
        os.write(out_fd, _queries())
        deadline = time.monotonic() + timeout
        while _DA1.search(answers) is None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([in_fd], [], [], left)[0]:
                break
            chunk = os.read(in_fd, 4096)
            if not chunk:
                break
            answers += chunk
    except OSError:
        pass
    finally:
        try:
            termios.tcsetattr(in_fd, termios.TCSANOW, saved)
        except termios.error:
            pass
    return parse_answers(answers)
