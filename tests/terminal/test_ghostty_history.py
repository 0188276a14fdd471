"""The ghostty backend's scrolled-off rows: stripped and split as they always were, cheaper."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supervisor.terminal.backends import ghostty_class

if ghostty_class() is None:
    pytest.skip("pyghostty is not installed", allow_module_level=True)  # the imports below need it

from supervisor.terminal import ghostty_cells
from supervisor.terminal.ghostty_cells import format_history, history_lines
from supervisor.terminal.ghostty_ffi import Vt, check, ffi, lib

EXAMPLES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _old_history_lines(text: str, plain_text: str | None, rows: int):
    """What ``format_history`` did with the formatter's text before (8e5c7bd)."""
    vt = text.split("\r\n")
    plain = plain_text.split("\n") if plain_text is not None else vt
    if plain is not vt or " \r\n" in text or text.endswith(" "):
        plain = [line.rstrip() for line in plain]
    plain = plain[:rows] + [""] * (rows - len(plain))
    vt = vt[:rows] + [""] * (rows - len(vt))
    return plain, vt


def _old_format(terminal, selection, emit) -> str:
    opts = ffi.new("GhosttyFormatterTerminalOptions*")
    opts.size = ffi.sizeof("GhosttyFormatterTerminalOptions")
    opts.extra.size = ffi.sizeof("GhosttyFormatterTerminalExtra")
    opts.extra.screen.size = ffi.sizeof("GhosttyFormatterScreenExtra")
    opts.emit = emit
    opts.unwrap = False
    opts.trim = True
    opts.selection = selection
    formatter = ffi.new("GhosttyFormatter*")
    check(lib.ghostty_formatter_terminal_new(ffi.NULL, formatter, terminal, opts[0]), "format")
    ptr = ffi.new("uint8_t**")
    n = ffi.new("size_t*")
    check(lib.ghostty_formatter_format_alloc(formatter[0], ffi.NULL, ptr, n), "format")
    text = ffi.buffer(ptr[0], n[0])[:].decode("utf-8", "replace")
    lib.ghostty_free(ffi.NULL, ptr[0], n[0])
    lib.ghostty_formatter_free(formatter[0])
    return text


def _old_format_history(terminal, cols: int, rows: int):
    """The old ``format_history``, its own selection and formatter options each call."""
    sel = ffi.new("GhosttySelection*")
    sel.size = ffi.sizeof("GhosttySelection")
    for (x, y), ref in (((0, 0), sel.start), ((cols - 1, rows - 1), sel.end)):
        point = ffi.new("GhosttyPointS*")
        point.tag = lib.GHOSTTY_POINT_TAG_HISTORY
        point.value.x, point.value.y = x, y
        ref.size = ffi.sizeof("GhosttyGridRef")
        check(ghostty_cells._GRID_REF(terminal, point[0], ffi.addressof(ref)), "grid_ref")
    text = _old_format(terminal, sel, lib.GHOSTTY_FORMATTER_FORMAT_VT)
    plain = None
    if "\x1b" in text:
        plain = _old_format(terminal, sel, lib.GHOSTTY_FORMATTER_FORMAT_PLAIN)
    return _old_history_lines(text, plain, rows)


# Every kind of blank ``str.rstrip`` strips, lone CR and LF, and text that is not blank.
_BLANKS = [" ", "  ", "\t", "\xa0", "\u3000", "\x0b", "\x0c", "\x1c", "\x85", "\u2028"]
_ROW_PART = st.one_of(
    st.sampled_from([*_BLANKS, "\r", "\n", "x", "word", "é", "─", "\x1b[1m", "\x1b[0m"]),
    st.text(max_size=8),
)
_ROW = st.lists(_ROW_PART, max_size=6).map("".join)


def _joined(sep: str):
    return st.tuples(st.lists(_ROW, max_size=8), st.sampled_from(["", sep, " ", "\t"])).map(
        lambda rows_end: sep.join(rows_end[0]) + rows_end[1]
    )


@EXAMPLES
@given(
    text=_joined("\r\n"),
    plain=st.one_of(st.none(), _joined("\n")),
    rows=st.integers(0, 10),
)
def test_rows_are_what_the_per_row_strip_made_of_any_text(text, plain, rows):
    """Any text, a row ending in a space or not, in another blank, in a lone CR or LF:
    both lists are the ones the old per-row ``rstrip`` made, cut or padded to ``rows``."""
    assert history_lines(text, plain, rows) == _old_history_lines(text, plain, rows)


def test_unstyled_rows_are_stripped_only_when_one_ends_in_a_space():
    assert history_lines("a\xa0\r\nb", None, 2) == (["a\xa0", "b"], ["a\xa0", "b"])
    assert history_lines("a\xa0\r\nb ", None, 2) == (["a", "b"], ["a\xa0", "b "])
    assert history_lines("a \r\nb\t\r\n", None, 4) == (["a", "b", "", ""], ["a ", "b\t", "", ""])


def test_the_two_lists_are_lists_of_their_own():
    plain, vt = history_lines("one\r\ntwo", None, 2)
    assert plain == vt and plain is not vt


_STYLE = st.sampled_from(["", "\x1b[1m", "\x1b[31m", "\x1b[0m", "\x1b[48;5;4m", "\x1b[7m"])
_WORD = st.sampled_from(["log", "line", "é", "─", "界", "  ", " ", "\t", "x" * 30])
_LINE = st.lists(st.tuples(_STYLE, _WORD).map("".join), max_size=8).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_LINE, min_size=1, max_size=40),
    styled=st.booleans(),
    trailing=st.sampled_from(["", " ", "   "]),
)
def test_scrolled_off_rows_read_from_a_terminal_are_what_they_were(lines, styled, trailing):
    """A real libghostty-vt terminal, rows with trailing blanks, styles (or none at all)
    and wide characters scrolled off its top: the history reads back as it did before."""
    cols, rows = 20, 4
    if not styled:
        lines = [ghostty_cells._SEQ.sub("", line) for line in lines]
    term = Vt(cols, rows, 1000, lambda _reply: None)
    term.feed("".join(line + trailing + "\r\n" for line in lines).encode())
    n = term.scrollback_rows
    if not n:
        return
    assert format_history(term.handle, cols, n) == _old_format_history(term.handle, cols, n)
    term.close()


def test_a_row_ending_in_a_space_is_stripped_in_the_plain_text_only():
    term = Vt(20, 4, 1000, lambda _reply: None)
    term.feed(b"one  \r\ntwo\r\n\x1b[1mbold\x1b[0m \r\nfour\r\n" + b"\r\n" * 4)
    plain, vt = format_history(term.handle, 20, term.scrollback_rows)
    assert plain[:3] == ["one", "two", "bold"]
    assert vt[0] == "one  " and vt[2].endswith("bold\x1b[0m ")
    term.close()
