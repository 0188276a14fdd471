"""Decisions from the user's keys and the agent's real screen: whole, once, only if visible."""

from __future__ import annotations

from supervisor.recognize.decision_capture import DecisionCapture, decision_lines
from supervisor.terminal.avt_emulator import AvtEmulator


def feed(screen: AvtEmulator, data: bytes) -> set[int]:
    """The rows ``data`` changed, as the session hands them on."""
    screen.feed(data)
    return screen.take_dirty()


def test_typed_lines_follow_backspace_ctrl_u_and_bracketed_paste():
    capture = DecisionCapture()
    capture.keys(b"DECISION: port 8443x\x7f", 0.0)
    assert capture.typed == "DECISION: port 8443"
    capture.keys(b"\r", 0.0)
    capture.keys(b"junk\x15DECISION: b\r", 0.0)
    capture.keys(b"\x1b[200~DECISION: pasted\r\x1b[201~", 0.0)
    capture.keys(b"\x1b[A", 0.0)
    assert capture.typed == ""
    screen = AvtEmulator(40, 6)
    data = b"DECISION: port 8443\r\nDECISION: b\r\n> DECISION: pasted\r\n"
    found = capture.output(data, 0.1, feed(screen, data), screen)
    assert found == [("port 8443", "typed"), ("b", "typed"), ("pasted", "typed")]


def test_a_typed_decision_the_screen_never_shows_is_dropped():
    capture = DecisionCapture()
    capture.keys(b"DECISION: hunter2\r", 0.0)
    screen = AvtEmulator(40, 4)
    data = b"password: \r\n"
    assert capture.output(data, 0.1, feed(screen, data), screen) == []
    assert capture.output(b"x", 5.0, feed(screen, b"x"), screen) == []  # past its wait
    data = b"\r\nDECISION: hunter2\r\n"  # shown only now, long after: the agent's own line
    assert capture.output(data, 5.1, feed(screen, data), screen) == [("hunter2", "screen")]


def test_printed_decision_is_taken_once_the_cursor_left_its_row():
    screen = AvtEmulator(40, 4)
    screen.take_dirty()
    capture = DecisionCapture()
    data = b"DECISION: use sqlite"
    assert capture.output(data, 0.0, feed(screen, data), screen) == []  # still being written
    # The line feed changes no cell of the row: it is looked at again all the same.
    found = capture.output(b"\r\n", 0.1, feed(screen, b"\r\n"), screen)
    assert found == [("use sqlite", "screen")]


def test_a_decision_is_taken_once_however_often_it_is_redrawn():
    screen = AvtEmulator(40, 4)
    capture = DecisionCapture()
    data = b"DECISION: late\r\n"
    dirty = feed(screen, data)
    assert capture.output(data, 0.0, dirty, screen) == [("late", "screen")]
    assert capture.output(b"y", 0.5, dirty, screen) == []  # a redraw


def test_the_first_row_of_a_wrapped_line_is_never_a_decision_of_its_own():
    screen = AvtEmulator(20, 6)
    capture = DecisionCapture()
    data = b"DECISION: rotate the tokens on every request\r\n"
    assert capture.output(data, 0.0, feed(screen, data), screen) == [
        ("rotate the tokens on every request", "screen")
    ]


def test_decision_lines_are_found_among_screen_lines_once():
    lines = ["DECISION: use port 8443", "  DECISION: use port 8443 ", "x DECISION: not one"]
    lines += ["⏺ DECISION: keep pyte"]  # as Claude Code prints it
    assert decision_lines(lines) == ["use port 8443", "keep pyte"]


def test_decision_lines_need_a_decision_after_the_colon():
    lines = [
        "  DECISION:, /compact, /clear, /crash or /exit.",
        "❯ DECISION: refresh tokens in Redis, 15 minute TTL",
        '⏺ DECISION: "postgres" over sqlite',
        "(start a line with DECISION:), /compact",
    ]
    assert decision_lines(lines) == [
        "refresh tokens in Redis, 15 minute TTL",
        '"postgres" over sqlite',
    ]


def test_a_typed_decision_echoed_with_the_agents_own_wraps_is_pinned_whole_as_typed():
    capture = DecisionCapture()
    typed = "refresh tokens in Redis, 15 minute TTL, rotate on use, because the mobile client"
    capture.keys(f"DECISION: {typed}\r".encode(), 0.0)
    screen = AvtEmulator(40, 8)
    # Echoed as a TUI draws it: its own line breaks, one inside a word, continuation indented.
    data = (
        "❯\u00a0DECISION: refresh tokens in Redis, 15\r\n"
        "  minute TTL, rotate on use, because th\r\n"
        "  e mobile client\r\n\r\n"
    ).encode()
    assert capture.output(data, 0.2, feed(screen, data), screen) == [(typed, "typed")]


def test_copilots_echo_with_the_time_at_the_rows_end_is_the_typed_decision_once():
    """GitHub Copilot CLI 1.0.102 echoes a prompt as `❯ <text>` with the time right-aligned
    on its first row (tests/fixtures/captures/cp102-screens/): pinned once, as typed."""
    capture = DecisionCapture()
    typed = (
        "refresh tokens live in Redis with a 15 min TTL, rotated on every use, because "
        "the auditors require it"
    )
    capture.keys(f"DECISION: {typed}\r".encode(), 0.0)
    screen = AvtEmulator(100, 8)
    data = (
        " ❯ DECISION: refresh tokens live in Redis with a 15 min TTL, rotated on every use, "
        "because   22:14\r\n"
        "   the auditors require it\r\n\r\n"
        " ● FAKE-REPLY 1: ack\r\n"
    ).encode()
    found = capture.output(data, 0.2, feed(screen, data), screen)
    found += capture.output(b"", 0.5, {0, 1, 2}, screen)
    assert found == [(typed, "typed")]


def test_copilots_redrawn_echo_with_the_clock_inside_the_line_is_no_new_decision():
    """Seen in the e2e run: an automatic fold redrew the echo as one logical line with the
    clock in its middle and the input box's edges around the continuation."""
    capture = DecisionCapture()
    typed = "refresh tokens in Redis, because the mobile client cannot persist tokens"
    capture.keys(f"DECISION: {typed}\r".encode(), 0.0)
    screen = AvtEmulator(100, 8)
    echo = f" ❯ DECISION: {typed}\r\n\r\n".encode()
    assert capture.output(echo, 0.2, feed(screen, echo), screen) == [(typed, "typed")]
    redraw = (
        "\x1b[2J\x1b[H ❯ DECISION: refresh tokens in Redis, because the mobile client cannot"
        " persist      22:23   ┃ tokens         ┃\r\n\r\n"
    ).encode()
    assert capture.output(redraw, 5.0, feed(screen, redraw), screen) == []
