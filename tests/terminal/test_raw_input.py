"""The split of the user's terminal's raw input into the agent's bytes and tether's."""

from __future__ import annotations

from supervisor.terminal.keys import key_sequences
from supervisor.terminal.raw_input import ForAgent, ForTether, InputSplitter

F6 = b"\x1b[17~"


def splitter() -> InputSplitter:
    return InputSplitter(key_sequences("f6") | key_sequences("shift+pageup"))


def test_escape_prefixed_keys_reach_the_agent_byte_for_byte() -> None:
    typed = b"\x1b\r\x1b:\x1b.\x1b0\x1bb\x1b\t\x1b\x7f\x08\x1b\x01\x1b]\x1b[\x1bOP"
    assert splitter().split(typed, passthrough=True) == [ForAgent(typed)]


def test_tethers_own_key_is_cut_out_in_its_place() -> None:
    pieces = splitter().split(b"ab" + F6 + b"\x1b[5;2~cd", passthrough=True)
    assert pieces == [
        ForAgent(b"ab"),
        ForTether(F6),
        ForTether(b"\x1b[5;2~"),
        ForAgent(b"cd"),
    ]


def test_mouse_focus_and_replies_are_tethers() -> None:
    data = b"x\x1b[<35;10;5M\x1b[I\x1b[?2026;2$yy"
    assert splitter().split(data, passthrough=True) == [
        ForAgent(b"x"),
        ForTether(b"\x1b[<35;10;5M"),
        ForTether(b"\x1b[I", focus=True),
        ForTether(b"\x1b[?2026;2$y"),
        ForAgent(b"y"),
    ]


def test_a_paste_without_the_keys_is_tethers_to_its_end_marker_even_across_reads() -> None:
    split = splitter()
    first = split.split(b"\x1b[200~one\x1b[2", passthrough=False)
    second = split.split(b"01~\x1b\r", passthrough=False)
    assert b"".join(p.data for p in first + second) == b"\x1b[200~one\x1b[201~\x1b\r"
    assert all(isinstance(p, ForTether) for p in first + second)


def test_a_sequence_cut_by_a_read_is_held_then_handed_on_whole() -> None:
    split = splitter()
    assert split.split(b"a\x1b[17", passthrough=True) == [ForAgent(b"a")]
    assert split.holding()
    assert split.split(b"~", passthrough=True) == [ForTether(F6)]


def test_a_lone_escape_is_handed_on_when_nothing_follows_in_time() -> None:
    split = splitter()
    assert split.split(b"\x1b", passthrough=True) == []
    assert split.flush(passthrough=True) == [ForAgent(b"\x1b")]
    assert not split.holding()


def test_without_the_focus_everything_goes_to_tethers_parser() -> None:
    assert splitter().split(b"ab\x1b\r", passthrough=False) == [ForTether(b"ab\x1b\r")]


def test_a_one_byte_key_of_tethers_is_found_inside_text() -> None:
    split = InputSplitter(key_sequences("ctrl+g"))
    assert split.split(b"a\x07b", passthrough=True) == [
        ForAgent(b"a"),
        ForTether(b"\x07"),
        ForAgent(b"b"),
    ]


def test_function_keys_are_known_in_every_terminals_spelling() -> None:
    assert key_sequences("f3") == {b"\x1bOR", b"\x1b[13~", b"\x1b[[C"}
    assert key_sequences("f6") == {F6}
    assert key_sequences("shift+f6") == {b"\x1b[17;2~"}


def test_a_paste_that_began_with_the_keys_is_the_agents_whole_and_in_order() -> None:
    split = splitter()
    pieces = split.split(b"a\x1b[200~one\rtwo", passthrough=True)
    pieces += split.split(b"\x1b[201~b", passthrough=True)
    assert pieces == [ForAgent(b"a"), ForAgent(b"one\rtwo", pasted=True), ForAgent(b"b")]


def test_a_paste_without_its_end_marker_is_handed_on_in_bounded_parts(monkeypatch) -> None:
    from supervisor.terminal import raw_input

    monkeypatch.setattr(raw_input, "PASTE_PART", 10)
    split = splitter()
    pieces = split.split(b"\x1b[200~" + b"x" * 30, passthrough=True)
    pieces += split.split(b"\x1b[201~", passthrough=True)
    assert all(isinstance(p, ForAgent) and p.pasted for p in pieces) and len(pieces) > 1
    assert b"".join(p.data for p in pieces) == b"x" * 30
