"""Each emulator backend as the rest of tether sees it: screen, styles, cursor, modes, scrollback.

Every test runs once per backend (the ``emulator_class`` fixture).
"""

from __future__ import annotations

import time
import unicodedata

import pytest

from supervisor.terminal.emulator import DEFAULT_STYLE, CellStyle, Cursor, Emulator, Span


def emu_with(emulator_class, data: str | bytes, cols: int = 20, rows: int = 5, **kw) -> Emulator:
    emu = emulator_class(cols, rows, **kw)
    emu.feed(data.encode() if isinstance(data, str) else data)
    return emu


def test_it_implements_the_emulator_interface(emulator_class):
    emu: Emulator = emulator_class()
    assert (emu.cols, emu.rows) == (80, 24)
    assert emu.display() == [""] * 24
    assert emu.cursor == Cursor(0, 0, True)


def test_text_lands_where_the_cursor_moves(emulator_class):
    emu = emu_with(emulator_class, "hello\r\n\x1b[3;5Hworld\x1b[1;10Hx")
    assert emu.display() == ["hello    x", "", "    world", "", ""]
    assert emu.cursor == Cursor(10, 0, True)


def test_cursor_moves_ignore_extra_numbers_as_xterm_does(emulator_class):
    emu = emu_with(emulator_class, "\n\n\x1b[2;3;9Hx\x1b[1;7Ay\x1b[1;2;3;4;5Tz")
    assert emu.display() == ["   yz", "  x", "", "", ""]


def test_words_placed_with_cursor_moves_read_as_words(emulator_class):
    # How Claude Code writes "? for shortcuts".
    emu = emu_with(emulator_class, "?\x1b[5Gfor\x1b[9Gshortcuts")
    assert emu.display()[0] == "?   for shortcuts"


# -- queries answered from the emulator's state ---------------------------------


def test_cpr_reports_the_cursor_where_the_query_sits_in_the_stream(emulator_class):
    emu = emulator_class(80, 24)
    assert emu.feed(b"\x1b[5;10Hab\x1b[6ncd\x1b[6n").replies == b"\x1b[5;12R\x1b[5;14R"


def test_cpr_after_a_split_read_and_at_the_right_edge(emulator_class):
    emu = emulator_class(10, 4)
    emu.feed(b"\r\n0123456789\x1b[")
    assert emu.feed(b"6n").replies == b"\x1b[2;10R"


def test_cpr_is_relative_to_the_scroll_region_in_origin_mode(emulator_class):
    emu = emulator_class(20, 10)
    assert emu.feed(b"\x1b[3;8r\x1b[?6h\x1b[2;4H\x1b[6n").replies == b"\x1b[2;4R"


def test_decxcpr_and_the_static_replies_keep_query_order(emulator_class):
    emu = emulator_class(20, 5)
    out = emu.feed(b"\x1b[c\x1b[2;3H\x1b[?6n\x1b[5n\x1b[?u").replies
    assert out == b"\x1b[?62;22c\x1b[?2;3R\x1b[0n"


# -- styles ------------------------------------------------------------------------


def test_row_merges_cells_of_the_same_style_into_spans(emulator_class):
    emu = emu_with(emulator_class, "ab\x1b[1;31mcd\x1b[0mef", cols=8, rows=1)
    assert emu.row(0) == (
        Span("ab"),
        Span("cd", CellStyle(fg="color1", bold=True)),
        Span("ef  "),
    )


@pytest.mark.parametrize(
    ("sgr", "style"),
    [
        ("31", CellStyle(fg="color1")),
        ("91", CellStyle(fg="color9")),
        ("44", CellStyle(bg="color4")),
        ("104", CellStyle(bg="color12")),
        ("38;5;208", CellStyle(fg="color208")),
        ("48;5;17", CellStyle(bg="color17")),
        ("38;2;215;119;87", CellStyle(fg="#d77757")),
        ("38:2::215:119:87", CellStyle(fg="#d77757")),
        ("48:2:1:2:3", CellStyle(bg="#010203")),
        ("2", CellStyle(dim=True)),
        ("1;2;22", DEFAULT_STYLE),
        ("3;4;7", CellStyle(italic=True, underline=True, reverse=True)),
        ("9;5", CellStyle(strike=True, blink=True)),
        ("31;39", DEFAULT_STYLE),
    ],
)
def test_sgr_maps_to_cell_styles(emulator_class, sgr, style):
    emu = emu_with(emulator_class, f"\x1b[{sgr}mX\x1b[0m", cols=3, rows=1)
    first = emu.row(0)[0]
    assert first.style == style and first.text.startswith("X")


# Kept by libghostty-vt; avt's pen has no such attributes: a plain underline there, or none.
RICHER_SGR = [
    ("4:3", CellStyle(underline=True, underline_style=3), CellStyle(underline=True)),
    ("21", CellStyle(underline=True, underline_style=2), DEFAULT_STYLE),
    ("4:2", CellStyle(underline=True, underline_style=2), CellStyle(underline=True)),
    ("58;2;255;0;0;1", CellStyle(bold=True, underline_color="#ff0000"), CellStyle(bold=True)),
    ("58:5:9;4", CellStyle(underline=True, underline_color="color9"), CellStyle(underline=True)),
    ("53", CellStyle(overline=True), DEFAULT_STYLE),
]


@pytest.mark.parametrize(("sgr", "kept", "avt"), RICHER_SGR)
def test_underline_styles_colour_and_overline_are_kept(emulator_class, sgr, kept, avt):
    emu = emu_with(emulator_class, f"\x1b[{sgr}mX\x1b[0m", cols=3, rows=1)
    first = emu.row(0)[0]
    assert first.style == (avt if emulator_class.__name__ == "AvtEmulator" else kept)


def test_concealed_text_is_drawn_blank(emulator_class):
    emu = emu_with(emulator_class, "a\x1b[8msecret\x1b[28mb\x1b[38;5;8mc\x1b[0;8mX\x1b[mY")
    assert emu.row_text(0).startswith("a      bc Y")


def test_erase_uses_the_background_colour_only(emulator_class):
    emu = emu_with(emulator_class, "\x1b[4;1;44mab\x1b[K", cols=5, rows=1)
    assert emu.row(0) == (
        Span("ab", CellStyle(bg="color4", bold=True, underline=True)),
        Span("   ", CellStyle(bg="color4")),
    )


def test_dec_line_drawing_charset(emulator_class):
    emu = emu_with(emulator_class, "\x1b(0lqk\x1b(Bx", cols=5, rows=1)
    assert emu.row_text(0) == "┌─┐x "


# -- wide characters and emoji ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cells"),
    [
        ("漢字", 4),
        ("😀", 2),
        ("👩\u200d💻", 2),  # ZWJ sequence: one glyph of two cells
        ("⚠\ufe0f", 2),  # VS16 asks for the emoji (wide) presentation
        ("👍🏽", 2),  # skin tone modifier joins its base
        ("e\u0301", 1),  # combining accent
        ("⚠", 1),
    ],
)
def test_wide_and_joined_characters_keep_the_rest_of_the_line_in_place(emulator_class, text, cells):
    text = unicodedata.normalize("NFC", text)
    emu = emu_with(emulator_class, f"[{text}]tail", cols=20, rows=1)
    assert emu.row_text(0).startswith(f"[{text}]tail")
    assert emu.cursor.x == 1 + cells + 1 + 4
    # Drawing at an absolute column lands where the app expects: on the "]".
    emu.feed(f"\x1b[{2 + cells}GX".encode())
    line = emu.row_text(0)
    assert line.startswith(f"[{text}Xtail")
    assert len(line) - len(line.rstrip(" ")) == 20 - (1 + cells + 1 + 4)


@pytest.mark.parametrize("cut", [2, 3, 4])
def test_a_cluster_cut_by_a_read_is_still_one_glyph(emulator_class, cut):
    text = "[👩\u200d💻⚠\ufe0f]tail"
    emu = emulator_class(20, 1)
    emu.feed(text[:cut].encode())
    emu.feed(text[cut:].encode())
    assert emu.row_text(0).startswith(text)
    assert emu.cursor.x == 1 + 2 + 2 + 1 + 4


def test_wide_character_spans_skip_the_placeholder_cell(emulator_class):
    emu = emu_with(emulator_class, "a漢b", cols=5, rows=1)
    assert emu.row(0) == (Span("a漢b "),)
    assert emu.display() == ["a漢b"]


def test_rows_the_terminal_wrapped_onto_are_told_from_hard_line_breaks(emulator_class):
    emu = emu_with(emulator_class, "0123456789abc\r\nshort\r\nxyz", cols=10, rows=5)
    assert emu.display() == ["0123456789", "abc", "short", "xyz", ""]
    assert emu.continued_rows() == {1}


def test_a_wide_character_that_does_not_fit_wraps_whole(emulator_class):
    emu = emu_with(emulator_class, "abcd漢", cols=5, rows=2)
    assert emu.display() == ["abcd", "漢"]


def test_overwriting_half_of_a_wide_character_blanks_the_other_half(emulator_class):
    emu = emu_with(emulator_class, "漢字\x1b[2Gx", cols=6, rows=1)
    assert emu.row_text(0) == " x字  "
    emu = emu_with(emulator_class, "漢字\x1b[1Gx", cols=6, rows=1)
    assert emu.row_text(0) == "x 字  "


def test_stray_controls_and_zero_width_characters_do_not_eat_the_line(emulator_class):
    emu = emu_with(emulator_class, "\u200d\ufe0fa\x01b\u0085c\x7fd", cols=8, rows=1)
    assert emu.display() == ["abcd"]


# -- alternate screen ------------------------------------------------------------


def test_alt_screen_restores_the_main_screen_exactly_including_the_cursor(emulator_class):
    emu = emulator_class(20, 5)
    emu.feed(b"shell $ ls\r\n\x1b[1;32mfile\x1b[0m\r\n$ codex\x1b[3;4H")
    main_rows = [emu.row(y) for y in range(5)]
    cursor = emu.cursor
    emu.feed(b"\x1b[?1049h")
    assert emu.modes.alt_screen and emu.display() == [""] * 5
    emu.feed(b"\x1b[2J\x1b[H\x1b[44mTUI\r\n" + b"x\r\n" * 10 + b"\x1b[5;5H")
    assert emu.history_size == 0  # the alt screen has no scrollback
    emu.feed(b"\x1b[?1049l")
    assert [emu.row(y) for y in range(5)] == main_rows
    assert emu.cursor == cursor
    assert not emu.modes.alt_screen


def test_alt_screen_entry_and_exit_mark_every_row_dirty(emulator_class):
    emu = emulator_class(10, 4)
    emu.take_dirty()
    emu.feed(b"\x1b[?1049h")
    assert emu.take_dirty() == {0, 1, 2, 3}
    emu.feed(b"\x1b[?1049l")
    assert emu.take_dirty() == {0, 1, 2, 3}


def test_each_screen_has_its_own_saved_cursor(emulator_class):
    emu = emulator_class(20, 5)
    emu.feed(b"\x1b[2;3H\x1b7\x1b[?1049h\x1b[4;4H\x1b7\x1b[1;1H\x1b8")
    assert emu.cursor == Cursor(3, 3, True)
    emu.feed(b"\x1b[?1049l\x1b[5;5H\x1b8")
    assert emu.cursor == Cursor(2, 1, True)


def test_saved_cursor_is_a_slot_not_a_stack(emulator_class):
    emu = emulator_class(20, 5)
    emu.feed(b"\x1b[2;3H\x1b7\x1b[4;4H\x1b8\x1b[5;5H\x1b8")
    assert emu.cursor == Cursor(2, 1, True)


def test_resize_in_the_alt_screen_keeps_the_main_screen(emulator_class):
    emu = emulator_class(20, 5)
    emu.feed(b"main line\x1b[?1049halt")
    emu.resize(10, 3)
    emu.feed(b"\x1b[?1049l")
    assert emu.display() == ["main line", "", ""]


# -- synchronized output ---------------------------------------------------------


def test_sync_output_holds_dirty_rows_then_releases_all_of_them(emulator_class):
    emu = emulator_class(10, 6)
    emu.take_dirty()
    emu.feed(b"\x1b[?2026h\x1b[2;1Hone\x1b[5;1Htwo")
    assert emu.modes.synchronized_output
    assert emu.take_dirty() == set()
    emu.feed(b"\x1b[6;1Hthree")
    assert emu.take_dirty() == set()
    emu.feed(b"\x1b[?2026l")
    assert emu.take_dirty() == {1, 4, 5}
    assert emu.take_dirty() == set()


def test_sync_output_cannot_freeze_the_view_past_its_timeout(emulator_class):
    emu = emulator_class(10, 3, sync_timeout=0.05)
    emu.take_dirty()
    emu.feed(b"\x1b[?2026hx")  # a child killed mid-frame never sends ?2026l
    assert emu.take_dirty() == set()
    time.sleep(0.08)
    assert emu.take_dirty() == {0}


def test_output_that_draws_nothing_marks_no_row_after_a_new_page(emulator_class):
    # A restarted agent's title before its first frame must not count as drawing.
    emu = emu_with(emulator_class, "old screen\r\n" * 8, cols=20, rows=5)
    emu.new_page()
    assert emu.take_dirty() == set(range(5))
    emu.feed(b"\x1b]0;slow starter\x07")
    assert emu.take_dirty() == set() and emu.title == "slow starter"


def test_dirty_rows_are_the_rows_that_changed(emulator_class):
    emu = emulator_class(10, 5)
    emu.take_dirty()
    emu.feed(b"\x1b[3;1Hx")
    assert emu.take_dirty() == {2}
    assert emu.take_dirty() == set()


# -- modes, title, bell --------------------------------------------------------------


def test_modes_for_the_key_encoder_and_injector(emulator_class):
    emu = emu_with(
        emulator_class, b"\x1b[?2004h\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[?1h\x1b=\x1b[?25l"
    )
    m = emu.modes
    assert m.bracketed_paste and m.focus_events and m.mouse_sgr
    assert m.mouse_tracking == 1002 and m.app_cursor_keys and m.app_keypad
    assert not m.cursor_visible and not emu.cursor.visible


def test_title_and_bell(emulator_class):
    emu = emulator_class(10, 2)
    result = emu.feed("\x1b]0;⠂ Fake session title\x07".encode())
    assert emu.title == "⠂ Fake session title" and not result.bell
    assert emu.feed(b"\x07").bell


def test_codexs_state_report_is_kept_and_never_drawn(emulator_class):
    emu = emulator_class(30, 2)
    assert emu.agent_status == ""
    emu.feed(b"a\x1b]7501;state=work")  # split across reads, as the PTY may
    emu.feed(b"ing:app=codex\x1b\\b")
    assert emu.agent_status == "state=working:app=codex"
    assert emu.display()[0] == "ab"
    emu.feed(b"\x1b]7501;?\x1b\\")  # a probe is not a report
    assert emu.agent_status == "state=working:app=codex"


# -- scrollback ------------------------------------------------------------------


def test_lines_scrolled_off_the_main_screen_are_reported_and_kept(emulator_class):
    emu = emulator_class(10, 3, scrollback=100)
    result = emu.feed(b"one\r\ntwo\r\nthree\r\nfour\r\nfive")
    assert result.scrolled_off == ["one", "two"]
    assert emu.display() == ["three", "four", "five"]
    assert emu.history_size == 2
    assert emu.history_row(0) == (Span("one       "),)


def test_scrollback_is_capped(emulator_class):
    emu = emulator_class(10, 3, scrollback=50)
    scrolled = []
    for i in range(200):
        scrolled += emu.feed(f"\x1b[31mline {i}\x1b[0m\r\n".encode()).scrolled_off
    assert len(scrolled) == 198
    assert emu.history_size == 50
    assert emu.history_row(0)[0] == Span("line 148", CellStyle(fg="color1"))
    assert emu.history_text(49).rstrip() == "line 197"


def test_every_short_line_of_a_big_read_is_reported_and_kept(emulator_class):
    """`seq 1 20000` in reads of 64 KiB: thousands of lines leave the top in one feed."""
    emu = emulator_class(120, 40, scrollback=30_000)
    data = "".join(f"{n}\r\n" for n in range(1, 20_001)).encode()
    scrolled = []
    for at in range(0, len(data), 64 * 1024):
        scrolled += emu.feed(data[at : at + 64 * 1024]).scrolled_off
    assert scrolled == [str(n) for n in range(1, 20_001 - 39)]
    assert emu.history_size == len(scrolled)
    assert emu.history_text(0).rstrip() == "1" and emu.display()[-2] == "20000"


def test_scroll_region_below_the_top_does_not_feed_the_scrollback(emulator_class):
    emu = emulator_class(10, 5)
    result = emu.feed(b"\x1b[2;4r\x1b[4;1H" + b"x\n" * 5)
    assert result.scrolled_off == [] and emu.history_size == 0


def test_erase_saved_lines_clears_the_scrollback(emulator_class):
    emu = emulator_class(10, 2)
    emu.feed(b"a\r\nb\r\nc\r\n")
    assert emu.history_size == 2
    emu.feed(b"\x1b[3J")
    assert emu.history_size == 0 and emu.display() == ["c", ""]


def test_scroll_up_and_down(emulator_class):
    emu = emu_with(emulator_class, "a\r\nb\r\nc\x1b[S", cols=5, rows=3)
    assert emu.display() == ["b", "c", ""]
    emu.feed(b"\x1b[2T")
    assert emu.display() == ["", "", "b"]


def test_repeat_last_character(emulator_class):
    emu = emu_with(emulator_class, "-\x1b[9b|", cols=12, rows=1)
    assert emu.display() == ["----------|"]


# -- resize ----------------------------------------------------------------------


def test_resize_keeps_the_cursor_line_and_scrolls_the_rest_off(emulator_class):
    emu = emulator_class(10, 4)
    emu.feed(b"1\r\n2\r\n3\r\n4")
    emu.resize(10, 2)
    assert emu.display() == ["3", "4"]
    assert emu.history_size == 2
    emu.resize(5, 3)
    assert (emu.cols, emu.rows) == (5, 3)
    assert emu.display() == ["3", "4", ""]
    emu.feed(b"\x1b[3;1Habcdefgh")
    assert emu.display() == ["4", "abcde", "fgh"]


def test_narrowing_keeps_the_cursor_row_and_scrolls_the_reflowed_rows_off(emulator_class):
    # tmux's reflow: a line that now wraps pushes the rows above the cursor into the
    # scrollback, so the cursor stays on its row (what the app's snapshots show).
    emu = emulator_class(10, 4)
    emu.feed(b"abcdefgh\r\n")
    emu.resize(5, 4)
    assert emu.display() == ["fgh", "", "", ""]
    assert emu.cursor == Cursor(0, 1, True)
    assert [emu.history_text(i).rstrip() for i in range(emu.history_size)] == ["abcde"]


def test_resize_to_one_cell_and_back(emulator_class):
    emu = emu_with(emulator_class, "hello\r\nworld", cols=10, rows=3)
    emu.resize(1, 1)
    emu.feed(b"xyz\x1b[5;5H\x1b[6n")
    assert emu.cursor == Cursor(0, 0, True)
    emu.resize(10, 3)
    emu.feed(b"\x1b[2;2Hok")
    assert emu.display()[1] == " ok"


def test_hard_reset_leaves_the_alt_screen_and_clears(emulator_class):
    emu = emu_with(emulator_class, "main\x1b[?1049halt\x1b[?2004h\x1bc", cols=8, rows=2)
    assert emu.display() == ["", ""]
    assert not emu.modes.alt_screen and not emu.modes.bracketed_paste
    emu.feed(b"x")
    assert emu.display() == ["x", ""]
