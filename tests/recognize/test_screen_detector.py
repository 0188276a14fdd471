"""The screen detector: one observation per marker printed, not per redraw."""

from __future__ import annotations

from supervisor.config.profiles import load_profile
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.terminal.avt_emulator import AvtEmulator

DEMO = load_profile("demo").markers
CLAUDE = load_profile("claude").markers
MARK = "✻ Conversation compacted · summary kept"


class Screen:
    """An AvtEmulator plus a detector, fed text as the agent would print it."""

    def __init__(self, rules=DEMO, *, replaying: bool = False, rows: int = 10) -> None:
        self.emulator = AvtEmulator(60, rows, 100)
        self.detector = ScreenDetector(rules, replaying=replaying)
        self.now = 0.0

    def print(self, text: str) -> list[tuple[str, dict]]:
        self.now += 1
        self.emulator.feed(text.replace("\n", "\r\n").encode())
        found = self.detector.scan(self.emulator, self.now, self.emulator.take_dirty())
        return [(o.kind, o.details) for o in found]

    def kinds(self, text: str) -> list[str]:
        return [kind for kind, _ in self.print(text)]


def test_a_marker_printed_once_is_one_observation() -> None:
    screen = Screen()
    assert screen.kinds(f"⏺ reply one\n{MARK}\n") == ["compaction"]


def test_an_ink_redraw_of_the_same_line_is_not_a_new_observation() -> None:
    screen = Screen()
    screen.print(f"⏺ reply one\n{MARK}\n")
    for _ in range(3):  # erase the marker line and draw it again, in place
        assert screen.kinds(f"\x1b[1A\x1b[2K{MARK}\n") == []  # one frame
        assert screen.kinds("\x1b[1A\x1b[2K") == []  # erased in one read...
        assert not screen.detector.visible("compaction")
        assert screen.kinds(f"{MARK}\n") == []  # ...drawn again in the next


def test_a_marker_scrolled_away_and_redrawn_without_activity_is_history() -> None:
    screen = Screen()
    screen.print(f"⏺ reply one\n{MARK}\n")
    screen.print("line\n" * 12)  # the marker scrolls off the screen
    assert not screen.detector.visible("compaction")
    # a full repaint (as after a resize) draws the old history again
    assert screen.kinds(f"\x1b[2J\x1b[H⏺ reply one\n{MARK}\n") == []


def test_the_same_words_printed_anew_after_input_are_a_new_compaction() -> None:
    screen = Screen()
    screen.print(f"⏺ reply one\n{MARK}\n")
    screen.detector.note_input()
    screen.print("❯ /compact\n")
    assert screen.kinds(f"⏺ reply two\n{MARK}\n") == ["compaction"]


def test_claude_repaint_after_a_second_compact_reports_it_because_of_the_spinner() -> None:
    screen = Screen(CLAUDE, rows=12)
    banner = "╭───╮\n│ Welcome back! │\n╰───╯\n"
    assert screen.kinds(f"{banner}✻ Conversation compacted (ctrl+o for history)\n") == [
        "compaction"
    ]
    screen.print("\x1b[2J\x1b[H✶ Compacting conversation…\n")  # cleared, spinner shows
    again = screen.kinds(f"\x1b[2J\x1b[H{banner}✻ Conversation compacted (ctrl+o for history)\n")
    assert again == ["compaction"]


def test_a_resumed_session_replays_markers_as_history_until_the_first_input() -> None:
    screen = Screen(replaying=True)
    assert screen.kinds(f"⏺ old reply\n{MARK}\n❯ \n") == []
    screen.detector.note_input()
    screen.print("after resume\n")
    assert screen.kinds(f"\x1b[2J\x1b[H⏺ old reply\n{MARK}\n") == []  # redraw: still history
    assert screen.kinds(f"⏺ new reply\n{MARK}\n") == ["compaction"]


def test_context_low_is_reported_once_per_percentage() -> None:
    screen = Screen()
    found = screen.print("Context low (9% remaining)\n")
    assert found == [
        ("context_low", {"marker": "Context low (9% remaining)", "channel": "re0", "percent": 9})
    ]
    assert screen.print("\x1b[1A\x1b[2KContext low (9% remaining)\n") == []
    assert [
        d["percent"] for _, d in screen.print("\x1b[1A\x1b[2KContext low (4% remaining)\n")
    ] == [4]


def test_prompt_cue_and_busy_cue_become_agent_state_transitions() -> None:
    screen = Screen(CLAUDE)
    assert screen.print("❯ \n  ? for shortcuts") == [("agent_state", {"state": "waiting"})]
    assert screen.print("\x1b[2K\r✶ Working… (esc to interrupt)") == [
        ("agent_state", {"state": "busy"})
    ]
    assert screen.detector.state == "busy"


def test_a_wipe_marker_is_a_loss_observation() -> None:
    screen = Screen()
    assert screen.kinds("❯ /clear\n(context wiped)\n") == ["wipe"]


def test_text_typed_into_the_prompt_is_not_a_compaction_for_claude() -> None:
    screen = Screen(CLAUDE)
    assert screen.kinds("❯ what does Conversation compacted mean?\n") == []


def test_a_new_marker_arriving_as_an_old_one_scrolls_off_is_still_reported():
    """Long sessions scroll: the marker pushed off the top must not lend its key to the new."""
    from supervisor.config.profiles import load_profile
    from supervisor.recognize.fusion import Fusion
    from supervisor.recognize.screen_detector import ScreenDetector
    from supervisor.terminal.avt_emulator import AvtEmulator

    emulator = AvtEmulator(120, 40)
    detector = ScreenDetector(load_profile("claude").markers)
    fusion = Fusion()
    opened = []
    for step in range(25):  # four rows each: the screen scrolls from the tenth on
        data = (
            f"\r\n● Reply {step}: done with step {step}.\r\n\r\n"
            "✻ Conversation compacted (ctrl+o for history)\r\n"
        ).encode()
        result = emulator.feed(data)
        observations = detector.scan(
            emulator, float(step), emulator.take_dirty(), scrolled=len(result.scrolled_off)
        )
        for observation in observations:
            change = fusion.observe(observation)
            if change and change.new:
                opened.append(step)
    assert opened == list(range(25))


def test_the_same_marker_under_the_same_row_after_input_is_a_new_compaction_each_time():
    screen = Screen(rows=30)
    found = []
    for _ in range(4):
        screen.detector.note_input()
        screen.print("❯ /compact\n")
        found += screen.kinds(f"{MARK}\n\n")
    assert found == ["compaction"] * 4
    assert screen.emulator.display().count(MARK) == 4  # all four on the screen at once


def test_a_redraw_that_leaves_a_stale_copy_of_the_marker_is_one_observation():
    screen = Screen(rows=20)
    assert screen.kinds(f"❯ /compact\n{MARK}\n") == ["compaction"]
    # an Ink redraw that miscounted its lines: the old copy stays, the same rows again below
    assert screen.kinds(f"❯ /compact\n{MARK}\n") == []
    assert screen.emulator.display().count(MARK) == 2


def test_the_demo_marker_says_whether_the_compaction_was_automatic():
    screen = Screen()
    found = screen.detector.scan
    screen.emulator.feed(f"⏺ reply\r\n{MARK} (auto)\r\n".encode())
    (auto,) = found(screen.emulator, 1.0, screen.emulator.take_dirty())
    screen.detector.note_input()
    screen.emulator.feed(f"❯ /compact\r\n{MARK}\r\n".encode())
    (manual,) = found(screen.emulator, 2.0, screen.emulator.take_dirty())
    assert (auto.trigger, manual.trigger) == ("auto", "manual")
