"""The key encoder speaks xterm: what a real terminal would send for each key."""

import pytest

from supervisor.terminal.emulator import TerminalModes
from supervisor.terminal.keys import encode_key, encode_mouse_wheel, encode_paste


@pytest.mark.parametrize(
    ("key", "character", "expected"),
    [
        ("a", "a", b"a"),
        ("A", "A", b"A"),
        ("ctrl+a", "\x01", b"\x01"),
        ("ctrl+c", "\x03", b"\x03"),
        ("ctrl+r", "\x12", b"\x12"),
        ("ctrl+o", "\x0f", b"\x0f"),
        ("ctrl+space", None, b"\x00"),
        ("alt+x", None, b"\x1bx"),
        ("alt+shift+x", None, b"\x1bX"),
        ("alt+enter", None, b"\x1b\r"),
        ("enter", "\r", b"\r"),
        ("shift+enter", None, b"\x1b\r"),
        ("tab", "\t", b"\t"),
        ("shift+tab", None, b"\x1b[Z"),
        ("escape", "\x1b", b"\x1b"),
        ("backspace", "\x7f", b"\x7f"),
        ("up", None, b"\x1b[A"),
        ("ctrl+up", None, b"\x1b[1;5A"),
        ("shift+left", None, b"\x1b[1;2D"),
        ("ctrl+shift+right", None, b"\x1b[1;6C"),
        ("alt+down", None, b"\x1b[1;3B"),
        ("home", None, b"\x1b[H"),
        ("end", None, b"\x1b[F"),
        ("pageup", None, b"\x1b[5~"),
        ("ctrl+pagedown", None, b"\x1b[6;5~"),
        ("delete", None, b"\x1b[3~"),
        ("insert", None, b"\x1b[2~"),
        ("f1", None, b"\x1bOP"),
        ("f2", None, b"\x1bOQ"),
        ("shift+f3", None, b"\x1b[1;2R"),
        ("f5", None, b"\x1b[15~"),
        ("f12", None, b"\x1b[24~"),
        ("ctrl+f5", None, b"\x1b[15;5~"),
        ("space", " ", b" "),
        ("exclamation_mark", "!", b"!"),
        ("é", "é", "é".encode()),
    ],
)
def test_key_encodes_as_xterm_does(key, character, expected):
    assert encode_key(key, character) == expected


def test_arrows_follow_application_cursor_mode():
    modes = TerminalModes(app_cursor_keys=True)
    assert encode_key("up", None, modes) == b"\x1bOA"
    assert encode_key("home", None, modes) == b"\x1bOH"
    assert encode_key("ctrl+up", None, modes) == b"\x1b[1;5A"


def test_shift_enter_follows_the_profile():
    assert encode_key("shift+enter", None, shift_enter="\\\r") == b"\\\r"


def test_paste_is_bracketed_only_when_the_child_asked():
    assert encode_paste("a\nb") == b"a\rb"
    wrapped = encode_paste("a\nb", TerminalModes(bracketed_paste=True))
    assert wrapped == b"\x1b[200~a\rb\x1b[201~"


def test_wheel_goes_to_the_child_only_when_it_tracks_the_mouse():
    assert encode_mouse_wheel(True, 3, 4, TerminalModes()) is None
    sgr = TerminalModes(mouse_tracking=1000, mouse_sgr=True)
    assert encode_mouse_wheel(True, 3, 4, sgr) == b"\x1b[<64;4;5M"
    assert encode_mouse_wheel(False, 0, 0, TerminalModes(mouse_tracking=1000)) == b"\x1b[Ma!!"
