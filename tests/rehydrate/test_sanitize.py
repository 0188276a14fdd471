"""The sanitizer against hostile notes: nothing in a payload can act as a keystroke."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supervisor.rehydrate.sanitize import MAX_LINE, sanitize
from supervisor.terminal.emulator import TerminalModes
from supervisor.terminal.keys import encode_paste

ESC = "\x1b"
ALLOWED_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# (name, hostile note, what must come out)
HOSTILE = [
    ("end of bracketed paste", f"keep {ESC}[201~rm -rf ~{ESC}[200~ going", "keep rm -rf ~ going"),
    ("CSI colour and cursor", f"{ESC}[31mred{ESC}[0m {ESC}[2J{ESC}[Hclear", "red clear"),
    ("private mode", f"a{ESC}[?1049hb{ESC}[?2004lc", "abc"),
    ("OSC 52 clipboard (BEL)", f"x{ESC}]52;c;cm0gLXJmIH4K\x07y", "xy"),
    ("OSC 52 clipboard (ST)", f"x{ESC}]52;c;cm0gLXJmIH4K{ESC}\\y", "xy"),
    ("OSC title", f"{ESC}]0;pwned\x07title", "title"),
    ("OSC 8 hyperlink", f"{ESC}]8;;http://evil{ESC}\\link{ESC}]8;;{ESC}\\", "link"),
    ("DCS string", f"a{ESC}P+q544e{ESC}\\b", "ab"),
    ("APC kitty graphics", f"a{ESC}_Gi=31,a=q;AAAA{ESC}\\b", "ab"),
    ("unterminated OSC eats to end of line", f"a{ESC}]52;c;AAAA\nnext", "a\nnext"),
    ("two-byte ESC forms", f"{ESC}7a{ESC}8b{ESC}(Bc{ESC}cd", "abcd"),
    ("lone ESC at the end", f"done{ESC}", "done"),
    ("ESC ESC [201~", f"a{ESC}{ESC}[201~b", "ab"),
    ("8-bit CSI", "a\x9b201~b", "ab"),
    ("8-bit OSC", "a\x9d52;c;AAAA\x9cb", "ab"),
    ("C1 controls", "a\x85b\x8dc\x84d\x80e\x9a", "abcde"),
    ("8-bit APC string", "a\x9fhidden\x9cb", "ab"),
    ("NUL and C0", "a\x00b\x01c\x07d\x08e\x0bf\x0cg\x1ah\x7fi", "abcdefghi"),
    ("CR submits early", "line one\rline two\r\nline three", "line one\nline two\nline three"),
    ("tab and newline kept", "a\tb\nc", "a\tb\nc"),
    ("ctrl-c and ctrl-d as text", "stop\x03\x04now", "stopnow"),
    (
        "bidi override (Trojan Source)",
        "access = \u202euser\u202c; \u2066admin\u2069",
        "access = user; admin",
    ),
    ("tag characters smuggle text", "hi\U000e0069\U000e0067\U000e006e there", "hi there"),
    ("unicode line separator", "a\u2028b\u2029c", "a\nb\nc"),
    ("lone surrogate", "a\ud800b", "a\ufffdb"),
]


@pytest.mark.parametrize(("name", "hostile", "expected"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_note_is_neutralised(name, hostile, expected):
    assert sanitize(hostile) == expected


def test_rtl_marks_and_plain_unicode_survive():
    text = "שלום\u200f world — naïve café ✻ ⏺ 日本語"
    assert sanitize(text) == text


def test_overlong_line_is_cut_with_a_marker_and_other_lines_stay():
    text = "short\n" + "x" * 10_000 + "\nafter"
    out = sanitize(text)
    first, cut, last = out.split("\n")
    assert (first, last) == ("short", "after")
    assert len(cut) <= MAX_LINE
    assert cut.startswith("x" * 1900) and cut.endswith("more characters]")
    assert "line cut" in cut


def test_sanitizing_twice_changes_nothing():
    for _, hostile, _ in HOSTILE:
        once = sanitize(hostile + "y" * 5000)
        assert sanitize(once) == once


def test_hostile_text_cannot_end_a_bracketed_paste_early():
    hostile = f"note {ESC}[201~\rtyped as keys\r{ESC}[200~"
    data = encode_paste(sanitize(hostile), TerminalModes(bracketed_paste=True))
    assert data.startswith(b"\x1b[200~") and data.endswith(b"\x1b[201~")
    assert data.count(b"\x1b") == 2
    assert data.count(b"\x1b[201~") == 1


@given(st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)))
def test_no_control_character_survives_any_input(text):
    out = sanitize(text)
    assert not ALLOWED_CONTROLS.search(out)
    assert "\x1b" not in out and "\r" not in out
    out.encode("utf-8")  # no lone surrogates: they became U+FFFD
    assert sanitize(out) == out
