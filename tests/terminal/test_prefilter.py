"""The byte pre-filter: query policy, dropped sequences, colon SGR, carry-over, modes."""

from __future__ import annotations

import pytest

from supervisor.terminal.emulator import TerminalModes
from supervisor.terminal.prefilter import (
    AltScreen,
    CursorQuery,
    HardReset,
    Prefilter,
    Reply,
)
from supervisor.terminal.sgr import normalize_sgr


def run(*chunks: bytes, pf: Prefilter | None = None) -> tuple[str, list]:
    """Text the backend would get and the events, over several reads."""
    pf = pf or Prefilter()
    text, events = [], []
    for chunk in chunks:
        for seg in pf.feed(chunk):
            (text if isinstance(seg, str) else events).append(seg)
    return "".join(text), events


def replies(*chunks: bytes) -> bytes:
    _, events = run(*chunks)
    return b"".join(e.data for e in events if isinstance(e, Reply))


# -- query policy ------------------------------------------------------------


@pytest.mark.parametrize("query", [b"\x1b[c", b"\x1b[0c"])
def test_da1_is_answered_as_a_vt220_without_sixel(query):
    assert replies(query) == b"\x1b[?62;22c"


def test_da2_is_answered_with_a_low_version():
    assert replies(b"\x1b[>c") == b"\x1b[>1;10;0c"


def test_dsr_status_is_ok():
    assert replies(b"\x1b[5n") == b"\x1b[0n"


@pytest.mark.parametrize("query", [b"\x1b[>0q", b"\x1b[>q"])
def test_xtversion_names_tether(query):
    assert replies(query) == b"\x1bP>|tether(0.1)\x1b\\"


def test_cpr_is_left_to_the_emulator_at_its_place_in_the_stream():
    _, events = run(b"ab\x1b[6ncd")
    assert events == [CursorQuery(private=False)]
    pf = Prefilter()
    segs = pf.feed(b"ab\x1b[6ncd")
    assert segs == ["ab", CursorQuery(), "cd"]


def test_osc_colour_queries_reply_with_the_terminator_they_used():
    pf = Prefilter(foreground="#102030", background="#a0b0c0")
    _, events = run(b"\x1b]10;?\x1b\\\x1b]11;?\x07", pf=pf)
    assert [e.data for e in events] == [
        b"\x1b]10;rgb:1010/2020/3030\x1b\\",
        b"\x1b]11;rgb:a0a0/b0b0/c0c0\x07",
    ]


def test_kitty_keyboard_query_gets_no_reply_and_leaves_no_trace():
    text, events = run(b"a\x1b[?ub")
    assert events == []
    assert text == "ab"


def test_osc_7501_probe_gets_no_reply():
    assert replies(b"\x1b]7501;?\x1b\\") == b""


def test_decrqm_reports_unknown_modes_as_not_recognized():
    assert replies(b"\x1b[?1007$p") == b"\x1b[?1007;0$y"
    assert replies(b"\x1b[?1016$p") == b"\x1b[?1016;0$y"
    assert replies(b"\x1b[4$p") == b"\x1b[4;0$y"


def test_decrqm_reports_synchronized_output_as_supported_with_its_state():
    assert replies(b"\x1b[?2026$p") == b"\x1b[?2026;2$y"
    assert replies(b"\x1b[?2026h\x1b[?2026$p") == b"\x1b[?2026;1$y"
    assert replies(b"\x1b[?2026h\x1b[?2026l\x1b[?2026$p") == b"\x1b[?2026;2$y"


def test_window_and_graphics_queries_get_no_reply():
    assert replies(b"\x1b[16t\x1b[14t\x1b[18t") == b""
    assert replies(b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\") == b""


def test_replies_keep_the_order_of_the_queries():
    pf = Prefilter()
    segs = pf.feed(b"\x1b[?u\x1b[?1007$p\x1b[c\x1b[6n\x1b]10;?\x1b\\\x1b]11;?\x1b\\")
    kinds = [type(s).__name__ for s in segs]
    assert kinds == ["Reply", "Reply", "CursorQuery", "Reply", "Reply"]
    assert segs[1] == Reply(b"\x1b[?62;22c")


# -- what is dropped -----------------------------------------------------------


@pytest.mark.parametrize(
    "seq",
    [
        b"\x1b[>7u",
        b"\x1b[>5u",
        b"\x1b[<u",
        b"\x1b[<1u",
        b"\x1b[=1;1u",
        b"\x1b[>4;0m",
        b"\x1b[>4;2m",
        b"\x1b[>4m",
        b"\x1b[0 q",
        b"\x1b[2 q",
        b"\x1b[16t",
        b"\x1b[?1016$p",
        b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\",
        b"\x1bP+q544e\x1b\\",
        b"\x1b^private\x1b\\",
        b"\x1bXsos\x1b\\",
        b"\x1b]7501;state=idle:app=codex\x1b\\",
        b"\x1b]52;c;aGVsbG8=\x07",
        b"\x1b]133;A\x07",
        b"\x1b[1:2:3X",
        b"\x00\x01\x7f",
        "\u009b".encode(),
    ],
)
def test_sequences_no_backend_should_see_are_dropped(seq):
    text, _ = run(b"<" + seq + b">")
    assert text == "<>"


def test_osc8_hyperlink_keeps_its_text():
    text, _ = run(b"see \x1b]8;id=1;https://example.com\x07docs\x1b]8;;\x07 now")
    assert text == "see docs now"


def test_title_is_taken_from_osc_0_and_2():
    pf = Prefilter()
    text, _ = run("\x1b]0;✳ Claude Code\x07x".encode(), pf=pf)
    assert pf.title == "✳ Claude Code" and text == "x"
    run(b"\x1b]2;other\x1b\\", pf=pf)
    assert pf.title == "other"
    run(b"\x1b]0;\x07", pf=pf)
    assert pf.title == ""


def test_codex_state_channel_is_kept():
    pf = Prefilter()
    run(b"\x1b]7501;state=working:app=codex\x1b\\", pf=pf)
    assert pf.agent_status == "state=working:app=codex"


def test_sequences_the_backend_handles_pass_through():
    seq = "\x1b[2;5H\x1b[K\x1b[2J\x1b[3A\x1b[12G\x1b[1;31m\x1b7\x1b8\x1b(B\x1b[r\x1bM"
    text, events = run(seq.encode())
    assert text == seq and events == []


@pytest.mark.parametrize(
    ("seq", "clean"),
    [
        # xterm ignores extra numbers; the pre-filter drops them, since libghostty-vt
        # ignores the whole sequence instead
        ("\x1b[1;2;3H", "\x1b[1;2H"),
        ("\x1b[3;4A", "\x1b[3A"),
        ("\x1b[2;7;1r", "\x1b[2;7r"),
        ("\x1b[1;2;3;4;5T", ""),  # xterm mouse highlight tracking, not scroll down
        ("\x1b[2;3T", ""),
        ("\x1b[2T", "\x1b[2T"),
    ],
)
def test_cursor_and_scroll_csis_pass_except_highlight_tracking(seq, clean):
    text, _ = run(f"<{seq}>".encode())
    assert text == f"<{clean}>"


def test_bell_is_noticed_but_not_inside_an_osc():
    pf = Prefilter()
    run(b"\x1b]0;t\x07", pf=pf)
    assert not pf.take_bell()
    run(b"ding\x07", pf=pf)
    assert pf.take_bell() and not pf.take_bell()


# -- colon SGR -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("colon", "semi"),
    [
        ("38:2::255:128:0", "38;2;255;128;0"),
        ("38:2:255:128:0", "38;2;255;128;0"),
        ("48:2::1:2:3", "48;2;1;2;3"),
        ("38:5:208", "38;5;208"),
        ("4:3", "4"),
        ("4:0", "24"),
        ("1;4:3;38:5:1", "1;4;38;5;1"),
        ("58:2::255:0:0;1", "1"),
        ("58;5;3;7", "7"),
        ("58;2;1;2;3;31", "31"),
    ],
)
def test_colon_sgr_becomes_semicolon_sgr(colon, semi):
    assert normalize_sgr(colon) == semi
    text, _ = run(f"\x1b[{colon}m".encode())
    assert text == f"\x1b[{semi}m"


def test_sgr_numbers_are_clamped_when_normalized():
    assert normalize_sgr("38:2::999:0:0;99999999") == "38;2;255;0;0;9999"


# -- carry-over ----------------------------------------------------------------


@pytest.mark.parametrize(
    "seq",
    [
        b"\x1b[38;2;10;20;30m",
        b"\x1b[?2026$p",
        b"\x1b]0;a title\x07",
        b"\x1b]11;?\x1b\\",
        b"\x1b_Gi=31;AAAA\x1b\\",
        b"\x1b[>7u",
        "é漢😀".encode(),
    ],
)
def test_a_sequence_split_anywhere_is_carried_to_the_next_read(seq):
    whole_text, whole_events = run(b"a" + seq + b"b")
    for cut in range(1, len(seq) + 1):
        text, events = run(b"a" + seq[:cut], seq[cut:] + b"b")
        assert (text, events) == (whole_text, whole_events), cut


def test_split_utf8_decodes_whole():
    data = "❯ 漢字 ✻".encode()
    text, _ = run(*[data[i : i + 1] for i in range(len(data))])
    assert text == "❯ 漢字 ✻"


def test_an_unterminated_string_is_dropped_until_its_end_across_reads():
    text, _ = run(b"a\x1bPq", b"#0;2;0;0;0" * 1000, b"\x1b", b"\\b")
    assert text == "ab"


def test_an_overlong_osc_is_discarded_not_buffered_forever():
    pf = Prefilter()
    run(b"\x1b]52;c;", pf=pf)
    for _ in range(20):
        run(b"A" * 10000, pf=pf)
    text, _ = run(b"\x07after", pf=pf)
    assert text == "after"


# -- modes -----------------------------------------------------------------------


def test_modes_are_tracked_in_stream_order():
    modes = TerminalModes()
    pf = Prefilter(modes)
    pf.feed(b"\x1b[?2004h\x1b[?1004h\x1b[?1000;1006h\x1b[?1h\x1b=\x1b[?25l")
    assert modes.bracketed_paste and modes.focus_events and modes.mouse_sgr
    assert modes.mouse_tracking == 1000 and modes.app_cursor_keys and modes.app_keypad
    assert not modes.cursor_visible
    pf.feed(b"\x1b[?1003h")
    assert modes.mouse_tracking == 1003
    pf.feed(b"\x1b[?1006l\x1b[?1000l\x1b[?2004l\x1b[?1004l\x1b[?1l\x1b>\x1b[?25h")
    assert modes == TerminalModes()


def test_alt_screen_is_an_event_where_it_happens_sync_is_a_mode():
    pf = Prefilter()
    segs = pf.feed(b"a\x1b[?1049hb\x1b[?2026hc\x1b[?2026ld\x1b[?1049le")
    assert segs == [
        "a",
        AltScreen(True, 1049),
        "b\x1b[?2026hc\x1b[?2026ld",
        AltScreen(False, 1049),
        "e",
    ]
    assert not pf.modes.alt_screen and not pf.modes.synchronized_output
    assert pf.sync_starts == 1


def test_sync_starts_counts_switches_on_in_runs_and_in_mixed_sets():
    pf = Prefilter()
    pf.feed(b"\x1b[?2026h\x1b[?2026hframe\x1b[?25l")
    assert pf.modes.synchronized_output and pf.sync_starts == 1
    assert not pf.modes.cursor_visible
    pf.feed(b"\x1b[?2026l\x1b[?25h\x1b[?1;2026h")  # the last one takes the generic path
    assert pf.modes.synchronized_output and pf.sync_starts == 2
    assert pf.modes.cursor_visible and pf.modes.app_cursor_keys
    pf.feed(b"x\x1b[?25l\x1b[?2026l\x1b[?25h")
    assert not pf.modes.synchronized_output and pf.modes.cursor_visible


def test_repeated_mode_sets_give_one_event():
    pf = Prefilter()
    segs = pf.feed(b"\x1b[?1049h\x1b[?1049h\x1b[?47h")
    assert segs == [AltScreen(True, 1049)]


def test_hard_reset_resets_modes():
    pf = Prefilter()
    segs = pf.feed(b"\x1b[?2004h\x1b[?1049h\x1bc")
    assert segs[-1] == HardReset()
    assert pf.modes == TerminalModes()


def test_plain_text_passes_as_one_slice():
    data = ("x" * 79 + "\r\n") * 1000
    segs = Prefilter().feed(data.encode())
    assert segs == [data]
