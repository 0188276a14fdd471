"""Text that is safe to paste into an agent: nothing in it can act as a keystroke.

Everything tether sends into the agent's terminal (payloads, the initial brief,
a person's edit in the preview) passes through :func:`sanitize`. Notes are
written by the agent, by people and by anything that can touch `.tether/`, so
they are untrusted: an ``ESC[201~`` in a note would end a bracketed paste early
and turn the rest of the note into typed keys; an OSC 52 string would write
the clipboard; a lone CR would submit a half-written prompt.

What is removed or changed, and why:

- Escape sequences **whole** (CSI, OSC, DCS, SOS, PM, APC, and two-byte ESC
  forms, in their 7-bit and 8-bit spellings), so no ``[201~`` or clipboard
  payload is left behind as text. A string sequence with no terminator is cut
  to the end of its line.
- Every other control character but newline and tab: C0 (NUL included), DEL
  and C1 (U+0080–U+009F).
- CRLF and lone CR become LF; U+2028/U+2029 (line/paragraph separators) too.
- Lone surrogates become U+FFFD.
- Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are
  removed: they make text read differently to the person previewing it than
  to the model ("Trojan Source"). The plain marks LRM/RLM/ALM are kept, since
  right-to-left text legitimately needs them and they cannot reorder a run.
- Unicode tag characters (U+E0000–U+E007F) are removed: they are invisible on
  screen yet read by a model, the known way to smuggle hidden instructions.
- Lines longer than ``max_line`` characters are cut with a visible marker,
  so one runaway line cannot flood the agent's input box.

The result never contains a control character other than ``\\n`` and ``\\t``,
and sanitizing twice changes nothing.
"""

from __future__ import annotations

import re

MAX_LINE = 2000
CUT_MARKER = " … [line cut: {n} more characters]"

# String sequences: OSC, DCS, SOS, PM, APC (7-bit ESC x or the 8-bit C1 byte), ended by
# BEL or ST (ESC \ or U+009C); without a terminator, up to the end of the line.
_STRING = r"(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\n]*?(?:\x07|\x1b\\|\x9c|(?=\n)|\Z)"
# CSI: parameters, intermediates, final byte (the final may be missing when cut short).
_CSI = r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
# Any other ESC sequence: intermediates and a final byte (ESC 7, ESC ( B, ESC c ...).
_ESC = r"\x1b[\x20-\x2f]*[\x30-\x7e]?"
_SEQUENCES = re.compile(f"{_STRING}|{_CSI}|{_ESC}")

_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1
    "\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides, isolates
    "\U000e0000-\U000e007f]"  # tag characters
)
_SURROGATES = re.compile("[\ud800-\udfff]")
_NEWLINES = re.compile("\r\n|[\r\u2028\u2029]")
_NEWLINE_STARTS = "\r\u2028\u2029"
_SEQUENCE_STARTS = "\x1b\x9b\x9d\x90\x98\x9e\x9f"  # ESC and the C1 introducers


def sanitize(text: str, *, max_line: int = MAX_LINE) -> str:
    """``text`` with every control character but newline and tab removed (see the module)."""
    text = _SURROGATES.sub("\ufffd", text)
    # The two slow patterns only run where their first character occurs: a plain
    # `in` is a memchr, and megabytes of notes rarely hold either.
    if any(ch in text for ch in _NEWLINE_STARTS):
        text = _NEWLINES.sub("\n", text)
    if any(ch in text for ch in _SEQUENCE_STARTS):
        text = _SEQUENCES.sub("", text)
    text = _CONTROLS.sub("", text)
    return cut_long_lines(text, max_line)


def cut_long_lines(text: str, max_line: int = MAX_LINE) -> str:
    """``text`` with each line longer than ``max_line`` cut with the marker (0: none cut).

    The last step of :func:`sanitize`, and all that text joined from sanitized pieces and
    tether's own words still needs: nothing in such text can act as a keystroke (joining
    adds no control character), but an indent or a bullet can lengthen a line."""
    if max_line <= 0 or len(text) <= max_line:
        return text
    return "\n".join(_cut(line, max_line) for line in text.split("\n"))


def _cut(line: str, max_line: int) -> str:
    if len(line) <= max_line:
        return line
    # Make room for the marker so the cut line is itself within the limit (idempotence).
    keep = max_line
    while keep > 0:
        marker = CUT_MARKER.format(n=len(line) - keep)
        if keep + len(marker) <= max_line:
            return line[:keep] + marker
        keep -= 1
    return line[:max_line]
