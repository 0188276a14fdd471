"""The SGR both writers use: the style (or avt pen) a child set comes back as the same SGR."""

from __future__ import annotations

import avt
import pytest

from supervisor.terminal.avt_pens import pen_sgr
from supervisor.terminal.emulator import CellStyle
from supervisor.terminal.style_sgr import style_sgr


def test_styles_become_the_sgr_that_draws_them():
    assert style_sgr(CellStyle()) == "\x1b[0m"
    style = CellStyle(fg="#ff8000", bg="color17", bold=True, underline=True, reverse=True)
    assert style_sgr(style) == "\x1b[0;1;4;7;38;2;255;128;0;48;5;17m"
    assert style_sgr(CellStyle(dim=True, italic=True, strike=True)) == "\x1b[0;2;3;9m"


@pytest.mark.parametrize(
    ("written", "again"),
    [
        ("0", "\x1b[0m"),
        ("1;4;38;2;255;128;0;48;5;17", "\x1b[0;1;4;38;2;255;128;0;48;5;17m"),
        ("2;3;9;7;5", "\x1b[0;2;3;5;7;9m"),
        ("91;42", "\x1b[0;38;5;9;48;5;2m"),
        ("1;22;31", "\x1b[0;38;5;1m"),  # bold, then its reset: only the colour stays
    ],
)
def test_a_pen_the_child_set_is_written_back_as_the_same_sgr(written, again):
    vt = avt.Vt(4, 1)
    vt.feed_str(f"\x1b[{written}mX")
    assert pen_sgr(vt[0][0].pen) == again
