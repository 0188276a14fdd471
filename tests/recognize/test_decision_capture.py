"""Candidate decision lines from the user's keys and from the agent's real screen."""

from __future__ import annotations

from supervisor.recognize.decision_capture import DecisionCapture
from supervisor.terminal.avt_emulator import AvtEmulator


def test_typed_lines_follow_backspace_ctrl_u_and_bracketed_paste():
    capture = DecisionCapture()
    assert capture.keys(b"DECISION: port 8443x\x7f") == []
    assert capture.typed == "DECISION: port 8443"
    assert capture.keys(b"\r") == ["DECISION: port 8443"]
    assert capture.keys(b"junk\x15DECISION: b\r") == ["DECISION: b"]
    assert capture.keys(b"\x1b[200~DECISION: pasted\r\x1b[201~") == ["DECISION: pasted"]
    assert capture.keys(b"\x1b[A") == [] and capture.typed == ""


def feed(screen: AvtEmulator, data: bytes) -> set[int]:
    """The rows ``data`` changed, as the session hands them on."""
    screen.feed(data)
    return screen.take_dirty()


def test_printed_decision_is_taken_once_the_cursor_left_its_row():
    screen = AvtEmulator(40, 4)
    screen.take_dirty()
    capture = DecisionCapture()
    data = b"DECISION: use sqlite"
    assert capture.output(data, 0.0, feed(screen, data), screen) == []  # still being written
    # The line feed changes no cell of the row: it is looked at again all the same.
    assert capture.output(b"\r\n", 0.1, feed(screen, b"\r\n"), screen) == ["DECISION: use sqlite"]


def test_printed_rows_are_not_read_long_after_the_marker_went_by():
    screen = AvtEmulator(40, 4)
    capture = DecisionCapture()
    data = b"DECISION: late\r\n"
    dirty = feed(screen, data)
    assert capture.output(data, 0.0, dirty, screen) == ["DECISION: late"]
    assert capture.output(b"y", 0.5, dirty, screen) == ["DECISION: late"]  # a redraw
    assert capture.output(b"y", 5.0, dirty, screen) == []
