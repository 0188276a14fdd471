"""Key events to the bytes xterm sends, so the agent sees a real terminal's keys.

Textual names keys like ``ctrl+a``, ``alt+x``, ``shift+tab``, ``ctrl+shift+up``,
``f5``, ``pageup``. We answer in xterm's legacy encoding (no kitty keyboard
protocol: the pre-filter never claims it), honouring application cursor mode.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import TYPE_CHECKING

from supervisor.errors import TetherError
from supervisor.terminal.emulator import TerminalModes

if TYPE_CHECKING:
    from supervisor.config.keymap import Keymap

ESC = "\x1b"
CSI = ESC + "["

# Textual's name for a key -> (final char, uses "1;m" form) for cursor keys.
_CURSOR_KEYS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
# "~" keys: name -> number.
_TILDE_KEYS = {
    "insert": 2,
    "delete": 3,
    "pageup": 5,
    "pagedown": 6,
    "f5": 15,
    "f6": 17,
    "f7": 18,
    "f8": 19,
    "f9": 20,
    "f10": 21,
    "f11": 23,
    "f12": 24,
}
_SS3_FKEYS = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
_PLAIN = {
    "enter": "\r",
    "tab": "\t",
    "escape": ESC,
    "backspace": "\x7f",
    "space": " ",
}
# Textual spells some printable keys by name; their characters.
_NAMED_CHARS = {
    "space": " ",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "backslash": "\\",
    "circumflex_accent": "^",
    "underscore": "_",
    "question_mark": "?",
    "at": "@",
}
_MODIFIERS = ("shift", "alt", "meta", "ctrl", "super", "hyper")

# What shift+enter sends when the profile does not say: ESC CR, which both
# Claude Code and Codex read as "insert a newline" without the kitty protocol.
DEFAULT_SHIFT_ENTER = "\x1b\r"


def split_modifiers(key: str) -> tuple[frozenset[str], str]:
    """``"ctrl+shift+up"`` -> ({"ctrl", "shift"}, "up")."""
    parts = key.split("+")
    mods: set[str] = set()
    while len(parts) > 1 and parts[0] in _MODIFIERS:
        mods.add(parts.pop(0))
    return frozenset(mods), "+".join(parts)


def _modifier_param(mods: frozenset[str]) -> int:
    return 1 + ("shift" in mods) + 2 * ("alt" in mods or "meta" in mods) + 4 * ("ctrl" in mods)


def _ctrl_char(name: str) -> str | None:
    if len(name) == 1 and "a" <= name.lower() <= "z":
        return chr(ord(name.lower()) - 96)
    return {
        "space": "\x00",
        "@": "\x00",
        "at": "\x00",
        "[": ESC,
        "left_square_bracket": ESC,
        "\\": "\x1c",
        "backslash": "\x1c",
        "]": "\x1d",
        "right_square_bracket": "\x1d",
        "^": "\x1e",
        "circumflex_accent": "\x1e",
        "_": "\x1f",
        "underscore": "\x1f",
        "?": "\x7f",
        "question_mark": "\x7f",
    }.get(name)


def encode_key(
    key: str,
    character: str | None,
    modes: TerminalModes | None = None,
    *,
    shift_enter: str = DEFAULT_SHIFT_ENTER,
) -> bytes | None:
    """The bytes for one key event, or None when xterm would send nothing."""
    modes = modes or TerminalModes()
    mods, name = split_modifiers(key)
    text = _encode(mods, name, character, modes, shift_enter)
    return None if text is None else text.encode("utf-8", "surrogateescape")


def _encode(
    mods: frozenset[str], name: str, character: str | None, modes: TerminalModes, shift_enter: str
) -> str | None:
    if name in _CURSOR_KEYS:
        final = _CURSOR_KEYS[name]
        if mods:
            return f"{CSI}1;{_modifier_param(mods)}{final}"
        return (ESC + "O" + final) if modes.app_cursor_keys else (CSI + final)
    if name in _TILDE_KEYS:
        number = _TILDE_KEYS[name]
        if mods:
            return f"{CSI}{number};{_modifier_param(mods)}~"
        return f"{CSI}{number}~"
    if name in _SS3_FKEYS:
        final = _SS3_FKEYS[name]
        return f"{CSI}1;{_modifier_param(mods)}{final}" if mods else ESC + "O" + final
    if name == "tab" and mods == {"shift"}:
        return CSI + "Z"
    if name == "enter" and "shift" in mods:
        return shift_enter
    alt = "alt" in mods or "meta" in mods
    prefix = ESC if alt else ""
    if "ctrl" in mods:
        control = _ctrl_char(name)
        if control is not None:
            return prefix + control
        if name in _PLAIN:
            return prefix + _PLAIN[name]
        return None
    if name in _PLAIN:
        return prefix + _PLAIN[name]
    if character and (alt or mods <= {"shift"}):
        if alt and len(character) == 1 and ord(character) < 32:
            return prefix + character
        if alt and len(name) == 1:
            return prefix + (name.upper() if "shift" in mods else name)
        return prefix + character
    if name in _NAMED_CHARS:
        return prefix + _NAMED_CHARS[name]
    if len(name) == 1:
        return prefix + (name.upper() if "shift" in mods else name)
    return character or None


def encode_paste(text: str, modes: TerminalModes | None = None) -> bytes:
    """Pasted text, wrapped in bracketed-paste markers when the child asked for them.

    Newlines become CR as a terminal sends them. The text must already be free
    of control sequences (see the sanitizer) so it cannot end the paste early.
    """
    modes = modes or TerminalModes()
    body = text.replace("\r\n", "\r").replace("\n", "\r")
    if modes.bracketed_paste:
        body = "\x1b[200~" + body + "\x1b[201~"
    return body.encode("utf-8", "surrogateescape")


def encode_mouse_wheel(up: bool, x: int, y: int, modes: TerminalModes) -> bytes | None:
    """A wheel step for a child that enabled mouse reporting (SGR or legacy)."""
    if not modes.mouse_tracking:
        return None
    button = 64 if up else 65
    if modes.mouse_sgr:
        return f"{CSI}<{button};{x + 1};{y + 1}M".encode()
    if x > 222 or y > 222:
        return None
    return (CSI + "M" + chr(32 + button) + chr(33 + x) + chr(33 + y)).encode("latin-1")


# What some terminals send for F1-F4 instead of SS3 P..S (rxvt, the Linux console, PuTTY).
_FKEY_ALTERNATES = {
    "f1": (b"\x1b[11~", b"\x1b[[A"),
    "f2": (b"\x1b[12~", b"\x1b[[B"),
    "f3": (b"\x1b[13~", b"\x1b[[C"),
    "f4": (b"\x1b[14~", b"\x1b[[D"),
    "f5": (b"\x1b[[E",),
}


def key_sequences(key: str) -> frozenset[bytes]:
    """Every byte sequence a terminal may send for the key Textual calls ``key``: how
    tether finds its own keys in the raw input (both cursor-key modes, F1-F5's variants)."""
    found: set[bytes] = set()
    for modes in (TerminalModes(), TerminalModes(app_cursor_keys=True)):
        data = encode_key(key, None, modes)
        if data:
            found.add(data)
    mods, name = split_modifiers(key)
    if not mods:
        found.update(_FKEY_ALTERNATES.get(name, ()))
    return frozenset(found)


def refuse_unsendable(keymap: Keymap) -> None:
    """Refuse a key of ``keys.toml`` that tether cannot tell in what a terminal sends (a
    typo, or a key the encoder does not know such as F13): it would never reach tether,
    and the footer would show a key that does nothing."""
    from supervisor.config.config_dir import config_dir

    for field in fields(keymap):
        key = getattr(keymap, field.name)
        if not key_sequences(key):
            raise TetherError(
                f"{config_dir() / 'keys.toml'}: {field.name} = {key!r} is not a key tether "
                'can tell in what your terminal sends; use a name like "f11", "ctrl+g" or '
                '"alt+x"'
            )


_NORMAL_CURSOR_KEY = re.compile(rb"\x1b\[([ABCDHF])")


def as_the_agent_asked(typed: bytes, modes: TerminalModes) -> bytes:
    """``typed`` as the user's terminal sent it, with the unmodified cursor keys in the
    form the agent asked for: the user's terminal stays in normal cursor mode (ESC [ A),
    and an agent that set DECCKM (vim, less) reads ESC O A, as from tmux or xterm."""
    if not modes.app_cursor_keys or b"\x1b[" not in typed:
        return typed
    return _NORMAL_CURSOR_KEY.sub(b"\x1bO\\1", typed)
