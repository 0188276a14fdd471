"""Colours with an 8 in them are not SGR 8: they neither conceal text nor take the slow path.

Ink writes a truecolour such as ``38;2;116;168;8`` in every frame. Read as a possible
SGR 8 it cut the libghostty-vt backend's raw runs at each colour, and each cut matched the
rest of the read again: the redraw flood fell from ~60 to ~3 MB/s. These tests count the
bytes that go through the pre-filter instead of timing anything.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.terminal.backends import ghostty_class
from supervisor.terminal.prefilter import Prefilter
from supervisor.terminal.raw_runs import before_concealing
from supervisor.terminal.sgr import sgr_conceals

# Numbers that decide how an SGR reads: codes, colour introducers and kinds, the zeros
# normalize_sgr strips, colon groups.
ITEMS = ["", "0", "8", "08", "00008", "5", "05", "2", "02", "38", "038", "48", "58", "1"]
ITEMS += ["28", "255", "38:5:8", "8:1", "2:8", "18", "80"]


@pytest.mark.parametrize(
    ("params", "concealed"),
    [
        ("38;2;116;168;8", False),  # blue component 8
        ("1;38;2;8;8;8", False),
        ("48;5;8", False),  # colour index 8 (bright black)
        ("38:2::116:168:8", False),  # the colon form
        ("58;2;1;2;8;4", False),  # underline colour, dropped with its arguments
        ("38;5", False),  # a colour cut short takes nothing after it
        ("8", True),
        ("08", True),
        ("1;8", True),
        ("38;1;8", True),  # 1 is not a colour kind: 8 is a code again
        ("38;5;38;5;8", True),  # the second 38 is the first one's argument
        ("8;0", False),  # revealed again in the same sequence
    ],
)
def test_an_sgr_conceals_only_with_8_as_a_code(params, concealed):
    assert sgr_conceals(params) is concealed


def _stops_raw_run(params: str) -> bool:
    sgr = f"x\x1b[{params}my".encode()
    return before_concealing(sgr, 0, len(sgr)) == 1


def test_a_raw_run_stops_before_every_sgr_that_conceals_and_no_other():
    for n in range(1, 4):
        for items in itertools.product(ITEMS, repeat=n):
            params = ";".join(items)
            assert _stops_raw_run(params) is sgr_conceals(params), params


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ITEMS), min_size=4, max_size=9))
def test_longer_sgrs_stop_a_raw_run_as_the_pre_filter_reads_them(items):
    params = ";".join(items)
    assert _stops_raw_run(params) is sgr_conceals(params)


@pytest.mark.parametrize("colour", ["38;2;116;168;8", "48;5;8", "38;2;8;1;2"])
def test_the_pre_filter_keeps_text_after_a_colour_with_an_8(colour):
    prefilter = Prefilter()
    out = prefilter.feed(f"\x1b[{colour}mvisible\x1b[39m".encode())
    assert "".join(s for s in out if isinstance(s, str)) == f"\x1b[{colour}mvisible\x1b[39m"
    assert not prefilter.concealed


def test_sgr_08_conceals_in_a_verbatim_run_too():
    prefilter = Prefilter()
    out = "".join(s for s in prefilter.feed(b"a\x1b[08mbc\x1b[mD") if isinstance(s, str))
    assert out == "a\x1b[08m  \x1b[mD"


def _ink_frame(frame: int) -> bytes:
    """An Ink redraw: erase the last frame's lines, then coloured words, in a sync update."""
    words = []
    for i in range(20):
        colour = (f"38;2;116;168;{8 if i % 2 else 28}", "38;5;8", "1;48;2;8;8;8")[i % 3]
        words.append(f"\x1b[{colour}mword{frame}.{i}\x1b[39;49;22m ")
    body = "\x1b[2K\x1b[1A" * 6 + "\x1b[2K\x1b[G" + "".join(words) + "\r\n" * 6
    return f"\x1b[?2026h{body}\x1b[?2026l".encode()


@pytest.mark.skipif(ghostty_class() is None, reason="pyghostty is not installed")
def test_an_ink_redraw_with_8s_in_its_colours_stays_on_the_raw_path():
    emu = ghostty_class()(120, 10)
    filtered: list[bytes] = []
    feed = emu._prefilter.feed

    def spy(data: bytes):
        filtered.append(data)
        return feed(data)

    emu._prefilter.feed = spy
    for frame in range(50):
        emu.feed(b"".join(_ink_frame(frame * 4 + k) for k in range(4)))
    assert filtered == []
    assert "word199.19" in "".join(emu.display())


@pytest.mark.skipif(ghostty_class() is None, reason="pyghostty is not installed")
def test_sgr_8_still_leaves_the_raw_path_and_conceals():
    emu = ghostty_class()(40, 2)
    filtered: list[bytes] = []
    feed = emu._prefilter.feed

    def spy(data: bytes):
        filtered.append(data)
        return feed(data)

    emu._prefilter.feed = spy
    emu.feed(b"a\x1b[38;2;1;2;8mb\x1b[8msecret\x1b[28mc\x1b[08md\x1b[me")
    assert emu.display()[0] == "ab      c e"
    # the colour went raw; from each SGR 8 to the next SGR, the pre-filter draws the text
    assert filtered == [b"\x1b[8msecret", b"\x1b[28mc", b"\x1b[08md", b"\x1b[me"]
