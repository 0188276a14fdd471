"""A redraw repeats rows already seen: a resize after a loss is no new loss (issue 26, item 2).

The agents redraw their screen when the window changes size (Ink's full repaint, Codex's
alternate screen), and the emulator reflows what a printer-style agent left. The redrawn
"Conversation compacted" rows are the old compaction's, however long after it the resize
comes and whatever input came between. Real bytes where the captures have them (the
recorded Claude Code and Codex sessions, whose resumed first frame is such a redraw), on
both emulator backends.
"""

from __future__ import annotations

import json

import pytest

from supervisor.config.profiles import load_profile
from supervisor.recognize.observations import COMPACTION, WIPE, Observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.terminal.avt_emulator import AvtEmulator
from supervisor.terminal.backends import ghostty_class
from tests.locations import CAPTURES

BACKENDS = [AvtEmulator, *([ghostty_class()] if ghostty_class() is not None else [])]
SIZES = [(160, 48), (80, 24), (200, 50)]
CLAUDE_NOTICES = [COMPACTION, COMPACTION]  # its two notice rows, which fusion makes one
DEMO_MARK = "✻ Conversation compacted · summary kept"


class Agent:
    """One emulator and the detector looking at it, fed as Supervision feeds them."""

    def __init__(self, backend: type, profile: str, cols: int = 120, rows: int = 40) -> None:
        self.emulator = backend(cols, rows, 1000)
        self.detector = ScreenDetector(load_profile(profile).markers)
        self.now = 0.0

    def feed(self, data: bytes) -> list[Observation]:
        self.now += 1
        scrolled = len(self.emulator.feed(data).scrolled_off)
        dirty = self.emulator.take_dirty()
        return self.detector.scan(self.emulator, self.now, dirty, scrolled=scrolled)

    def type(self) -> None:
        """Input reached the agent (a prompt, F6's payload)."""
        self.detector.note_input()

    def resize(self, cols: int, rows: int) -> list[Observation]:
        self.emulator.resize(cols, rows)
        return self.feed(b"")

    def play(self, name: str, start: int = 0, end: int | None = None) -> list[Observation]:
        """A capture's bytes in its real reads, with the inputs where the user typed."""
        meta = json.loads((CAPTURES / f"{name}.events.json").read_text())
        raw = (CAPTURES / f"{name}.raw").read_bytes()
        end = len(raw) if end is None else end
        inputs = sorted(e["raw_offset"] for e in meta["events"] if e["kind"] == "input")
        found: list[Observation] = []
        position = start
        for _, offset, length in meta["read_chunks"]["list"]:
            stop = min(offset + length, end)
            if stop <= position:
                continue
            while inputs and inputs[0] <= position:
                inputs.pop(0)
                self.type()
            found += self.feed(raw[position:stop])
            position = stop
            if position >= end:
                break
        return found


def losses(observations: list[Observation]) -> list[str]:
    return [o.kind for o in observations if o.kind in (COMPACTION, WIPE)]


def first_frame_end(name: str, marker: str) -> int:
    """Where the read that drew ``marker`` (the resumed session's prompt) ends."""
    meta = json.loads((CAPTURES / f"{name}.events.json").read_text())
    at = next(e["raw_offset"] for e in meta["events"] if e.get("marker") == marker)
    return next(o + n for _, o, n in meta["read_chunks"]["list"] if o + n > at)


def claude_redraw() -> bytes:
    """Claude's resumed first frame: banner, the old "✻ Conversation compacted", the kept
    exchange, the prompt: what it draws again when the window changes size."""
    raw = (CAPTURES / "cc-resume.raw").read_bytes()
    return raw[: first_frame_end("cc-resume", "? for shortcuts")]


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_claude_redrawing_its_compacted_history_after_a_resize_is_no_new_compaction(
    backend: type, size: tuple[int, int]
) -> None:
    agent = Agent(backend, "claude")
    # /compact and its notices ("✻ Conversation compacted", "⎿  Compacted (ctrl+o …)": two
    # sightings of one compaction), then "after compact" typed and answered
    assert losses(agent.play("cc-compact-manual", end=19600)) == CLAUDE_NOTICES
    agent.type()  # F6: the recovery went in
    assert losses(agent.resize(*size)) == []
    # Claude draws its history again, the old notice with it (its resumed first frame is
    # the same drawing: banner, "✻ Conversation compacted", the kept exchange)
    redraw = claude_redraw()
    assert losses(agent.feed(b"\x1b[2J\x1b[3J\x1b[H" + redraw)) == []
    assert losses(agent.feed(redraw)) == []  # a redraw that forgot to clear: still history
    agent.type()  # the next prompt and its answer
    assert losses(agent.feed(b"\r\n> after resize\r\n\r\n  FAKE-REPLY 3: ack\r\n")) == []


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.__name__)
def test_a_real_compact_after_a_resize_is_still_a_new_compaction(backend: type) -> None:
    agent = Agent(backend, "claude")
    assert losses(agent.play("cc-compact-manual", end=19600)) == CLAUDE_NOTICES
    agent.resize(160, 48)
    redraw = claude_redraw()
    assert losses(agent.feed(b"\x1b[2J\x1b[3J\x1b[H" + redraw)) == []
    # /compact typed again: Claude's repaint, its spinner, its new notice
    agent.type()
    assert losses(agent.play("cc-compact-manual", start=9208, end=16400)) == CLAUDE_NOTICES


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_codex_redrawing_its_compacted_history_after_a_resize_is_no_new_compaction(
    backend: type, size: tuple[int, int]
) -> None:
    agent = Agent(backend, "codex")
    assert losses(agent.play("cx-compact-manual", end=18500)) == [COMPACTION]
    agent.type()
    assert losses(agent.resize(*size)) == []
    end = first_frame_end("cx-resume", "FAKE-REPLY 3: ack 'after compact'")
    redraw = (CAPTURES / "cx-resume.raw").read_bytes()[:end]
    assert losses(agent.feed(redraw)) == []
    agent.type()
    assert losses(agent.feed(b"\x1b[30;1H\x1b[2K> after resize\r\n")) == []


def _demo_compact(agent: Agent, n: int) -> list[Observation]:
    agent.type()
    found = agent.feed("❯ /compact\r\n✶ Compacting conversation…\r\n".encode())
    return found + agent.feed(f"{DEMO_MARK}\r\n\r\n⏺ reply {n}\r\n".encode())


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("size", [(160, 48), (40, 12), (120, 40)], ids=str)
def test_the_demo_reflowed_after_three_compacts_and_a_resize_makes_none_then_a_prompt_none(
    backend: type, size: tuple[int, int]
) -> None:
    agent = Agent(backend, "demo", 80, 24)
    found = []
    for n in range(3):
        found += losses(_demo_compact(agent, n))
        for line in range(6):  # some conversation between them
            agent.feed(f"⏺ talk {n}.{line}\r\n".encode())
    assert found == [COMPACTION] * 3
    assert losses(agent.resize(*size)) == []
    agent.type()
    assert losses(agent.feed(b"\xe2\x9d\xaf hello\r\n\xe2\x8f\xba hi there\r\n" * 8)) == []
    assert losses(agent.resize(80, 24)) == []
    agent.type()
    assert losses(agent.feed(b"\xe2\x9d\xaf again\r\n\xe2\x8f\xba yes\r\n" * 8)) == []
    # and the fourth /compact is one compaction
    assert losses(_demo_compact(agent, 4)) == [COMPACTION]
