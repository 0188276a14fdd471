"""Text tether did not write itself, made safe to show on the user's terminal.

Notes, checkpoints, events, lock files, file names from git, agent transcripts:
anything a cloned repository or an agent can write may hold escape sequences,
and a terminal acts on them (``ESC]52;c;…BEL`` sets the clipboard, ``ESC]2;…``
the window title, ``ESC[2J`` clears the screen to spoof a prompt). Every such
string passes through this module before it reaches a pane, a banner, a dialog,
a notification or a shell command's text output, so no control character is
ever sent: each is shown visibly instead (``^[`` for ESC, ``^?`` for DEL,
``\\x9b`` for a C1 control), so a person sees that something odd was there.
JSON output is not shown text and stays exact.

Shared by every layer (like :mod:`supervisor.errors`), and imports nothing of tether's.
"""

from __future__ import annotations

import re

# C0 but tab and newline, DEL, C1; bidi embeddings, overrides and isolates (they make
# text read differently from what it is: "Trojan Source"); Unicode tag characters
# (invisible); lone surrogates (they cannot even be encoded to the terminal).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f\ud800-\udfff]"
)
_UNSAFE_OR_LINE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f\ud800-\udfff]"
)


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)  # ^[ for ESC, ^@ for NUL, ^M for CR
    if code == 0x7F:
        return "^?"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` with every control character but newline and tab shown visibly."""
    if _UNSAFE.search(text) is None:  # the common case: one scan, no copy
        return text
    return _UNSAFE.sub(_visible, text)


def shown_line(text: str) -> str:
    """``text`` for one line: newlines and tabs are shown visibly too (``^J``, ``^I``)."""
    if _UNSAFE_OR_LINE.search(text) is None:
        return text
    return _UNSAFE_OR_LINE.sub(_visible, text)


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ␛ for ESC, ␀ for NUL
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


def shown_in_place(text: str) -> str:
    """``text`` with each unsafe character replaced by one visible character, so offsets
    into the text stay the same (for an editor showing a file it may save back)."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_picture, text)


# What JSON leaves raw that a terminal may act on: DEL, C1, line separators, bidi and tag
# characters, lone surrogates. JSON escapes C0 itself; these can only be inside strings.
_JSON_RAW = re.compile(
    "[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f\ud800-\udfff]"
)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # a surrogate pair, as JSON spells a character beyond the BMP
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_shown(dumped: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with what a terminal could
    act on written as ``\\u`` escapes: the same data, exactly, and safe to print."""
    if _JSON_RAW.search(dumped) is None:
        return dumped
    return _JSON_RAW.sub(_json_escape, dumped)
