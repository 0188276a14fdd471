"""Whatever a child writes, the emulator neither raises nor hangs, and splits don't matter."""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supervisor.terminal.emulator import Emulator

EXAMPLES = int(os.environ.get("TETHER_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def time_limit(seconds: int):
    """Fail instead of hanging the suite (the inputs are bounded; a hang is a bug)."""

    def alarm(signum, frame):
        raise TimeoutError(f"emulator took more than {seconds}s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


params = st.lists(
    st.one_of(
        st.integers(0, 20).map(str),
        st.integers(0, 10**12).map(str),
        st.sampled_from(["", "65535", "99999999999", "2026", "1049", "38", "5", "2"]),
    ),
    max_size=8,
).map(";".join)
csi = st.builds(
    lambda lead, p, colon, inter, final: f"\x1b[{lead}{p}{colon}{inter}{final}",
    st.sampled_from(["", "", "?", ">", "<", "="]),
    params,
    st.sampled_from(["", "", ":2::1:2:3", ":5:9", ":3"]),
    st.sampled_from(["", "", "", "$", " ", "!", '"', "#"]),
    st.characters(min_codepoint=0x40, max_codepoint=0x7E),
)
string_seq = st.builds(
    lambda intro, body, end: f"\x1b{intro}{body}{end}",
    st.sampled_from(["]", "]0;", "]8;;", "]10;", "]11;", "]7501;", "P", "_G", "^", "X"]),
    st.text(max_size=40),
    st.sampled_from(["", "\x07", "\x1b\\", "\x1b", "\x18"]),
)
esc = st.builds(
    lambda inter, final: f"\x1b{inter}{final}",
    st.sampled_from(["", "(", ")", "#", "%", " ", "*"]),
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
)
text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("\r\n\t\b\x07\x0e\x0f\u200d\ufe0f漢😀👩e\u0301")),
    ),
    max_size=30,
)
chunk = st.one_of(csi, string_seq, esc, text)
streams = st.lists(chunk, max_size=40).map(lambda parts: "".join(parts).encode())
sizes = st.tuples(st.integers(1, 200), st.integers(1, 60))


def exercise(emu: Emulator) -> None:
    """Read everything a view would read: it must not raise either."""
    emu.take_dirty()
    assert len(emu.display()) == emu.rows
    for y in range(emu.rows):
        emu.row(y)
        emu.row_text(y)
    for i in range(emu.history_size):
        emu.history_row(i)
    c = emu.cursor
    assert 0 <= c.x < emu.cols and 0 <= c.y < emu.rows


def pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at each of ``cuts`` that falls inside it, as reads from a PTY would be."""
    ends = [*sorted({c for c in cuts if c < len(data)}), len(data)]
    return [data[start:end] for start, end in zip([0, *ends], ends, strict=False)]


def survives(emulator_class, data: bytes, size: tuple[int, int]) -> None:
    """Feed ``data`` to a fresh emulator of ``size`` and read it all back, in bounded time."""
    with time_limit(20):
        emu = emulator_class(*size, scrollback=50)
        emu.feed(data)
        exercise(emu)


@FUZZ
@given(st.binary(max_size=2000), sizes)
def test_random_bytes_never_raise(emulator_class, data, size):
    survives(emulator_class, data, size)


@FUZZ
@given(streams, sizes)
def test_generated_escape_sequences_never_raise(emulator_class, data, size):
    survives(emulator_class, data, size)


def test_pieces_are_the_whole_cut_where_asked():
    assert pieces(b"abcdef", [4, 1, 4, 99]) == [b"a", b"bcd", b"ef"]
    assert pieces(b"", [0, 3]) == [b""]
    assert b"".join(pieces(b"abc", [0])) == b"abc"


@FUZZ
@given(streams, st.lists(st.integers(0, 4000), max_size=30))
def test_any_split_gives_the_same_screen(emulator_class, data, cuts):
    with time_limit(20):
        whole = emulator_class(30, 8)
        whole_replies = whole.feed(data).replies
        split = emulator_class(30, 8)
        replies = [split.feed(piece).replies for piece in pieces(data, cuts)]
        assert split.display() == whole.display()
        assert split.title == whole.title
        assert b"".join(replies) == whole_replies
        assert split.cursor == whole.cursor


@FUZZ
@given(
    st.lists(
        st.one_of(streams, st.tuples(st.integers(1, 160), st.integers(1, 50))),
        max_size=8,
    )
)
def test_resizes_interleaved_with_output_never_raise(emulator_class, steps):
    with time_limit(20):
        emu = emulator_class(20, 5, scrollback=20)
        for step in steps:
            if isinstance(step, tuple):
                emu.resize(*step)
                assert (emu.cols, emu.rows) == step
            else:
                emu.feed(step)
            exercise(emu)


def test_huge_parameters_are_clamped(emulator_class):
    with time_limit(20):
        emu = emulator_class(80, 24)
        emu.feed(
            b"\x1b[99999999999A\x1b[65535;65535H\x1b[99999999999@\x1b[9999999999b"
            b"\x1b[99999999999L\x1b[99999999999M\x1b[99999999999P\x1b[99999999999X"
            b"\x1b[99999999999S\x1b[99999999999T\x1b[99999999999I\x1b[99999999999Z"
            b"\x1b[" + b"9" * 5000 + b"m\x1b[" + b"1;" * 3000 + b"H"
        )
        exercise(emu)
        assert emu.cursor.y == 0


def test_resize_to_one_by_one_with_everything_on(emulator_class):
    with time_limit(20):
        emu = emulator_class(80, 24)
        emu.feed("\x1b[?1049h\x1b[5;20r\x1b[?6h漢字😀".encode())
        emu.resize(1, 1)
        emu.feed("漢\x1b[2;2Hx\x1b[6n\x1b[?1049l\x1b[K\x1b[J\x1b[S\x1b[T".encode())
        exercise(emu)
        emu.resize(80, 24)
        exercise(emu)


def test_unterminated_strings_across_many_reads_stay_fast(emulator_class):
    with time_limit(20):
        emu = emulator_class(80, 24)
        for intro in (b"\x1b]0;", b"\x1bP", b"\x1b_G"):
            emu.feed(intro)
            for _ in range(2000):
                emu.feed(b"x" * 50)
            emu.feed(b"\x1b\\visible")
        assert emu.display()[0] == "visiblevisiblevisible"


# -- the nasty-escape grammar: what a hostile or broken child can send -------------------------

huge_number = st.integers(6, 5000).map(lambda n: "9" * n)
nasty_params = st.one_of(
    huge_number,
    st.integers(1, 3000).map(lambda n: ";".join(["1"] * n)),  # thousands of parameters
    st.integers(1, 3000).map(lambda n: ":" * n),
    st.lists(st.one_of(huge_number, st.integers(0, 2**64).map(str)), max_size=6).map(";".join),
)
nasty_csi = st.builds(
    lambda lead, p, final: f"\x1b[{lead}{p}{final}",
    st.sampled_from(["", "?", ">", "<", "="]),
    nasty_params,
    st.sampled_from([*"ABCDEFGHJKLMPSTXZ@`abcdeghilmnqrstu", ""]),
)
unterminated = st.builds(
    lambda intro, n, filler: f"\x1b{intro}" + filler * n,
    st.sampled_from(["]", "]0;", "]8;;", "]52;c;", "P", "Pq", "_G", "^", "X"]),
    st.integers(0, 20000),
    st.sampled_from(["x", "\u00e9", "\x1b[", ";", "y"]),
)
combining_storm = st.builds(
    lambda base, mark, n: base + mark * n,
    st.sampled_from(["", "e", "漢", "😀", "\u200d", " "]),
    st.sampled_from(["\u0301", "\u0336", "\u200d", "\ufe0f", "\U0001f3fb", "\u20dd"]),
    st.integers(1, 5000),
)
nasty_chunk = st.one_of(nasty_csi, unterminated, combining_storm, csi, string_seq, text)
nasty_streams = st.lists(nasty_chunk, max_size=12).map(lambda parts: "".join(parts).encode())
nasty_sizes = st.one_of(st.just((1, 1)), st.just((0, 5)), st.just((5, 0)), st.just((0, 0)), sizes)


@FUZZ
@given(
    st.lists(st.one_of(nasty_streams, nasty_sizes), min_size=1, max_size=6),
    st.lists(st.integers(0, 60000), max_size=10),
)
def test_the_nasty_escape_grammar_never_raises_or_hangs(emulator_class, steps, cuts):
    """Huge CSI parameters, unterminated OSC/DCS, 1x1 and 0-column resizes, combining
    storms, in any order and split anywhere."""
    with time_limit(30):
        emu = emulator_class(20, 5, scrollback=20)
        for step in steps:
            if isinstance(step, tuple):
                emu.resize(*step)
                assert (emu.cols, emu.rows) == (max(1, step[0]), max(1, step[1]))
            else:
                for piece in pieces(step, cuts):
                    emu.feed(piece)
            exercise(emu)


def test_sixty_thousand_combining_marks_on_one_cell_cost_a_cell(emulator_class):
    """Drip-fed as a slow child writes them, the marks stop adding work once the cell is
    full: the cell's text stays bounded however many arrive."""
    with time_limit(30):
        emu = emulator_class(80, 24)
        data = ("e" + "\u0301" * 60000).encode()
        for start in range(0, len(data), 100):
            emu.feed(data[start : start + 100])
            emu.take_dirty()
            emu.row(0)
        emu.feed(b"x")
        text = emu.row_text(0)
        assert text.startswith("\u00e9\u0301") and "x" in text
        assert len(text) <= 80 + 32  # the row and one full cell, not 60,000 marks
