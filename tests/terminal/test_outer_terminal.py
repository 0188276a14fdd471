"""The start-up probe of the user's terminal, and the emulator following what it found
(issue 27): emoji widths as the terminal draws them, colour queries with its colours."""

from __future__ import annotations

import os
import sys
import textwrap

import ptyprocess
import pytest
from rich.cells import cell_len

from supervisor.terminal.outer_terminal import OuterTerminal, parse_answers
from supervisor.terminal.prefilter import Prefilter, Reply
from tests.locations import REPO
from widgets.terminal_view import row_strip

LEGACY = OuterTerminal(vs16_cells=1, modifier_cells=4)  # tmux 3.3a, xterm, VTE...
CHECK_LINE = b"a\xe2\x9c\x94\xef\xb8\x8f\x1b[20G|"  # printf 'a✔️\033[20G|'
THUMB_LINE = "a\U0001f44d\U0001f3fd\x1b[20G|".encode()


def test_the_answers_give_widths_and_colours():
    answers = (
        b"\x1b[12;2R\x1b[12;5R"  # ✔️ in one cell, 👍🏽 in four
        b"\x1b]10;rgb:1c1c/1c1c/1c1c\x1b\\\x1b]11;rgb:ff/ff/f0\x07"
        b"\x1b]4;1;rgb:cdcd/0000/0000\x1b\\\x1b[?62;22c"
    )
    outer = parse_answers(answers)
    assert (outer.vs16_cells, outer.modifier_cells) == (1, 4)
    assert (outer.foreground, outer.background) == ("#1c1c1c", "#fffff0")
    assert outer.palette == {1: "#cd0000"}
    assert outer.adapts_widths


def test_no_answer_leaves_the_defaults():
    assert parse_answers(b"") == OuterTerminal()
    assert not OuterTerminal().adapts_widths


PROBING_CHILD = textwrap.dedent(
    """
    import sys
    from supervisor.terminal.outer_terminal import probe
    outer = probe(timeout=float(sys.argv[1]))
    print("RESULT", outer.vs16_cells, outer.modifier_cells, outer.background, flush=True)
    """
)


def _probing_child(timeout: str) -> ptyprocess.PtyProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return ptyprocess.PtyProcess.spawn(
        [sys.executable, "-c", PROBING_CHILD, timeout], env=env, dimensions=(24, 80)
    )


def _read_until(child: ptyprocess.PtyProcess, marker: bytes) -> bytes:
    seen = b""
    while marker not in seen:
        seen += child.read(4096)
    return seen


def test_the_probe_asks_the_real_tty_and_reads_its_answers():
    child = _probing_child("30")
    try:
        asked = _read_until(child, b"\x1b[c")  # the DA1 that ends the batch
        assert "✔️".encode() + b"\x1b[6n" in asked and b"\x1b]11;?" in asked
        child.write(b"\x1b[1;2R\x1b[1;5R\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62c")
        assert b"RESULT 1 4 #ffffff" in _read_until(child, b"#ffffff")
    finally:
        child.terminate(force=True)


def test_a_terminal_that_does_not_answer_gets_the_defaults():
    child = _probing_child("0.2")
    try:
        assert b"RESULT 2 2 None" in _read_until(child, b"None")
    finally:
        child.terminate(force=True)


@pytest.mark.parametrize("line", [CHECK_LINE, THUMB_LINE], ids=["vs16", "skin-tone"])
def test_the_bar_lands_at_column_20_on_a_legacy_terminal(emulator_class, line):
    emulator = emulator_class(30, 3)
    emulator.follow(LEGACY)
    emulator.feed(line)
    strip = row_strip(emulator.row(0), 30)
    painted = "".join(segment.text for segment in strip)
    before_bar = painted[: painted.index("|")]
    assert cell_len(before_bar) == 19  # Textual's count of the cells before the bar...
    assert _legacy_width(before_bar) == 19  # ...and the terminal's: the bar at column 20
    assert strip.cell_length == 30 == _legacy_width(painted)  # the row fills the view


@pytest.mark.parametrize("line", [CHECK_LINE, THUMB_LINE], ids=["vs16", "skin-tone"])
def test_a_grapheme_terminal_keeps_the_emoji_as_it_came(emulator_class, line):
    emulator = emulator_class(30, 3)
    emulator.follow(OuterTerminal())
    emulator.feed(line)
    painted = "".join(segment.text for segment in row_strip(emulator.row(0), 30))
    assert line.split(b"\x1b")[0].decode() in painted
    assert cell_len(painted[: painted.index("|")]) == 19


def _legacy_width(text: str) -> int:
    """Cells as tmux 3.3a counts them: wcwidth per code point (VS16 0, a modifier 2)."""
    import unicodedata

    width = 0
    for char in text:
        if unicodedata.combining(char) or char in "\ufe0f\u200d":
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def test_colour_queries_get_the_users_colours():
    prefilter = Prefilter()
    prefilter.colours.follow("#fdf6e3", "#002b36", {0: "#073642", 9: "#cb4b16"})
    replies = [
        seg.data
        for seg in prefilter.feed(b"\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]4;0;?;9;?;200;?\x07")
        if isinstance(seg, Reply)
    ]
    assert replies == [
        b"\x1b]10;rgb:fdfd/f6f6/e3e3\x07",
        b"\x1b]11;rgb:0000/2b2b/3636\x1b\\",
        b"\x1b]4;0;rgb:0707/3636/4242\x07",
        b"\x1b]4;9;rgb:cbcb/4b4b/1616\x07",
    ]


def test_without_an_answer_the_colour_queries_get_todays_fallback():
    replies = [seg for seg in Prefilter().feed(b"\x1b]11;?\x07\x1b]4;1;?\x07") if seg]
    assert replies == [Reply(b"\x1b]11;rgb:0000/0000/0000\x07")]
