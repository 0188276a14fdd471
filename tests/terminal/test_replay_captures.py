"""Real Claude Code and Codex PTY captures replayed through prefilter + each emulator backend.

The reference screens in ``tests/fixtures/captures/screens/`` come from tmux, an independent
emulator, fed the same bytes at 120x40 (see ``tests/make_replay_screens.py``,
which regenerates them): ``<capture>.txt`` is the final screen and
``<capture>.checkpoints.txt`` the screen at every point where the recorder typed.
"""

from __future__ import annotations

import json
import random
import re
from functools import cache

import pytest

from supervisor.terminal.emulator import Emulator
from tests.locations import CAPTURES, SCREENS

COLS, ROWS = 120, 40

NAMES = sorted(p.stem for p in SCREENS.glob("*.txt") if not p.stem.endswith(".checkpoints"))

# Pieces of escape sequences that a faithful screen never shows.
STRAY = [
    re.compile(r"1;1u"),
    re.compile(r"Gi=31"),
    re.compile(r"4;[02]m"),
    re.compile(r">[57]u"),
    re.compile(r"\$p"),
    re.compile(r"\$y"),
    re.compile(r"^u", re.M),
    re.compile(r"\x1b"),
    re.compile(r"7501"),
    re.compile(r"\[\?"),
    re.compile(r"rgb:"),
]


@cache
def raw(name: str) -> bytes:
    return (CAPTURES / f"{name}.raw").read_bytes()


@cache
def events(name: str) -> dict:
    return json.loads((CAPTURES / f"{name}.events.json").read_text())


def reference(name: str) -> list[str]:
    return (SCREENS / f"{name}.txt").read_text().split("\n")[:ROWS]


def checkpoints(name: str) -> list[tuple[int, list[str]]]:
    text = (SCREENS / f"{name}.checkpoints.txt").read_text()
    blocks = re.findall(rf"@@ offset (\d+)\n((?:.*\n){{{ROWS}}})", text)
    return [(int(offset), screen.split("\n")[:ROWS]) for offset, screen in blocks]


def replay(emulator_class, chunks) -> Emulator:
    emu = emulator_class(COLS, ROWS)
    for chunk in chunks:
        emu.feed(chunk)
    return emu


def split(data: bytes, sizes) -> list[bytes]:
    out, i = [], 0
    for size in sizes:
        if i >= len(data):
            break
        out.append(data[i : i + size])
        i += size
    if i < len(data):
        out.append(data[i:])
    return out


def assert_screen(actual: list[str], expected: list[str], what: str) -> None:
    if actual != expected:
        lines = [
            f"row {y}:\n  emulator: {a!r}\n  tmux:     {b!r}"
            for y, (a, b) in enumerate(zip(actual, expected, strict=True))
            if a != b
        ]
        pytest.fail(f"{what} differs from tmux in {len(lines)} rows:\n" + "\n".join(lines[:8]))


def test_every_capture_has_a_reference_screen():
    captures = sorted(p.stem for p in CAPTURES.glob("*.raw"))
    assert captures, f"no .raw captures in {CAPTURES}"
    assert captures == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_final_screen_matches_tmux(emulator_class, name):
    emu = replay(emulator_class, [raw(name)])
    assert_screen(emu.display(), reference(name), f"{name} final screen")


@pytest.mark.parametrize("name", NAMES)
def test_screen_matches_tmux_whenever_the_user_typed(emulator_class, name):
    data = raw(name)
    points = checkpoints(name)
    assert points, f"{name}: no checkpoints in the reference file"
    emu, done = emulator_class(COLS, ROWS), 0
    for offset, expected in points:  # input offsets are read boundaries: feed read by read
        emu.feed(data[done:offset])
        done = offset
        assert_screen(emu.display(), expected, f"{name} at byte {offset}")


@pytest.mark.parametrize("name", NAMES)
def test_recorded_reads_and_random_splits_give_the_same_screen(emulator_class, name):
    data = raw(name)
    expected = reference(name)
    reads = [length for _t, _offset, length in events(name)["read_chunks"]["list"]]
    assert sum(reads) == len(data)
    assert replay(emulator_class, split(data, reads)).display() == expected
    for seed in range(3):
        rnd = random.Random(f"{name}-{seed}")
        sizes = [rnd.choice((1, 2, 3, 5, 8, 64, 700)) for _ in range(len(data))]
        emu = replay(emulator_class, split(data, sizes))
        assert emu.display() == expected, f"{name}: random split seed {seed}"


@pytest.mark.parametrize("name", NAMES)
def test_one_byte_reads_give_the_same_screen_title_and_replies(emulator_class, name):
    data = raw(name)
    whole = emulator_class(COLS, ROWS)
    replies = whole.feed(data).replies
    emu = emulator_class(COLS, ROWS)
    byte_replies = b"".join(emu.feed(data[i : i + 1]).replies for i in range(len(data)))
    assert emu.display() == whole.display() == reference(name)
    assert byte_replies == replies
    assert emu.title == whole.title


@pytest.mark.parametrize("name", NAMES)
def test_no_escape_fragments_reach_the_screen(emulator_class, name):
    data = raw(name)
    emu, done, screens = emulator_class(COLS, ROWS), 0, []
    for offset in [offset for offset, _ in checkpoints(name)] + [len(data)]:
        emu.feed(data[done:offset])
        done = offset
        screens.append(emu.display())
    for screen in screens:
        text = "\n".join(screen)
        for pattern in STRAY:
            assert not pattern.search(text), f"{name}: stray {pattern.pattern!r} on screen"


@pytest.mark.parametrize("name", NAMES)
def test_markers_are_on_screen_where_the_recorder_saw_them(emulator_class, name):
    """Every marker the README lists is visible after the read where the recorder saw it."""
    data = raw(name)
    seen = 0
    marked = [e for e in events(name)["events"] if "marker" in e and "screen" in e]
    emu, done = emulator_class(COLS, ROWS), 0
    for event in sorted(marked, key=lambda e: e["screen"]["after_raw_offset"]):
        offset = event["screen"]["after_raw_offset"]
        emu.feed(data[done:offset])
        done = offset
        screen = "".join(emu.display())
        assert re.sub(r"\s", "", event["marker"]) in re.sub(r"\s", "", screen), (
            f"{name}: {event['marker']!r} not on screen after byte {offset}"
        )
        seen += 1
    assert seen >= 3


FINAL_TEXT = {
    "cc-compact-manual": ["Compacted (ctrl+o to see full summary)", "Resume this session with:"],
    "cc-compact-manual-da1": ["Compacted (ctrl+o to see full summary)"],
    "cc-hooks": ["Compacted (ctrl+o to see full summary)", "PostCompact] completed successfully"],
    "cc-compact-auto": ["FAKE-REPLY 3: ack 'after auto compact'", "claude --resume 8c1f06b3"],
    "cc-clear": ["❯ /clear", "FAKE-REPLY 1: ack 'after clear'"],
    "cc-context-low-noauto": ["Context limit reached · /compact or /clear to continue"],
    "cc-crash": ["❯ second message SLOW", "esc to interrupt"],
    "cx-compact-auto": ["Token usage:", "codex resume 01a22978-c788-7ad1-8bd5-1cdfe24a9293"],
    "cx-compact-manual": ["Token usage:", "To continue this session, run:"],
    "cx-resume": ["Token usage:", "Or run codex resume and select hello codex."],
    # Claude Code 2.1.332 runs in the alternate screen: a clean exit leaves the resume hint alone
    "cc332-compact-manual": ["Resume this session with:"],
    "cc332-compact-auto": ["Resume this session with:"],
    "cc332-clear": ["Resume this session with:"],
    "cc332-context-low": ["Resume this session with:"],
    "cc332-context-low-noauto": ["Resume this session with:"],
    "cc332-resume": ["Resume this session with:"],
    "cc332-crash": ["❯ second message SLOW", "esc to interrupt", "Claude Code v2.1.332"],
    "cx171-compact-manual": ["Token usage:", "To continue this session, run:"],
    "cx171-compact-auto": ["Token usage:", "To continue this session, run:"],
    "cx171-clear": ["Token usage:", "Or run codex resume and select after clear."],
    "cx171-resume": ["Token usage:", "Or run codex resume and select hello codex."],
    "cx171-hooks": ["Token usage:", "Or run codex resume and select after clear."],
    "cx171-crash": ["› second prompt SLOW", "esc to interrupt", "OpenAI Codex (v0.171.0)"],
}
# SIGKILLed: no teardown, so the modes the agent set are still on (and 2.1.332 and Codex
# are still in the alternate screen)
KILLED = {"cc-crash": False, "cc332-crash": True, "cx171-crash": True}


@pytest.mark.parametrize("name", sorted(FINAL_TEXT))
def test_final_screen_shows_what_the_readme_describes(emulator_class, name):
    emu = replay(emulator_class, [raw(name)])
    screen = "\n".join(emu.display())
    for text in FINAL_TEXT[name]:
        assert text in screen, f"{name}: {text!r} missing from the final screen"
    if name in KILLED:
        assert "Resume this session with:" not in screen
        assert "To continue this session" not in screen
        assert emu.in_alt_screen == KILLED[name]
        assert emu.modes.bracketed_paste and emu.modes.focus_events
    else:
        assert not emu.in_alt_screen
        assert not emu.modes.bracketed_paste and emu.modes.cursor_visible
    if name == "cc-crash":
        assert not emu.modes.cursor_visible
    if name.startswith("cc332-") and name not in KILLED:  # the conversation was in the alt screen
        assert "FAKE-REPLY" not in screen and "Claude Code v" not in screen


@pytest.mark.parametrize("name", ["cx-compact-manual", "cx171-compact-manual"])
def test_codex_runs_in_the_alternate_screen_and_leaves_the_shell_screen_intact(
    emulator_class, name
):
    data = raw(name)
    marks: dict[str, int] = {}
    for event in events(name)["events"]:
        marks.setdefault(event["kind"], event["raw_offset"])
    emu = emulator_class(COLS, ROWS)
    emu.feed(data[: marks["alt_screen_enter"]])
    before = emu.display()
    assert before[0].startswith("WARNING: proceeding")
    emu.feed(data[marks["alt_screen_enter"] : marks["input"]])
    assert emu.in_alt_screen and emu.modes.alt_screen
    assert emu.modes.mouse_tracking == 1003 and emu.modes.mouse_sgr
    assert emu.modes.bracketed_paste and emu.modes.focus_events
    assert emu.agent_status == "state=idle:app=codex"
    assert "WARNING" not in "\n".join(emu.display())
    emu.feed(data[marks["input"] : marks["alt_screen_leave"]])
    assert emu.modes.mouse_tracking == 0 and not emu.modes.mouse_sgr
    emu.feed(data[marks["alt_screen_leave"] : marks["alt_screen_leave"] + 8])
    assert not emu.in_alt_screen
    assert emu.display()[:2] == before[:2]


def test_claude_332_draws_in_the_alternate_screen_with_mouse_tracking(emulator_class):
    """2.1.197 drew inline; 2.1.332 takes the alternate screen and the mouse (any motion)."""
    first_input = next(e for e in events("cc332-compact-manual")["events"] if e["kind"] == "input")
    emu = emulator_class(COLS, ROWS)
    emu.feed(raw("cc332-compact-manual")[: first_input["raw_offset"]])
    assert emu.in_alt_screen and emu.modes.mouse_tracking == 1003 and emu.modes.mouse_sgr
    assert "Claude Code v2.1.332" in "\n".join(emu.display())
    old = emulator_class(COLS, ROWS)
    old.feed(raw("cc-compact-manual"))
    assert b"\x1b[?1049h" not in raw("cc-compact-manual") and not old.in_alt_screen


def test_queries_in_the_captures_get_the_policy_replies(emulator_class):
    claude = emulator_class(COLS, ROWS).feed(raw("cc-compact-manual")).replies
    assert claude == b"\x1bP>|tether(0.1)\x1b\\" + b"\x1b[?62;22c"
    # 2.1.332 also asks for kitty keyboard flags and probes OSC 7501: neither is answered
    assert b"\x1b[?u" in raw("cc332-compact-manual") and b"\x1b]7501;?" in raw(
        "cc332-compact-manual"
    )
    claude332 = emulator_class(COLS, ROWS).feed(raw("cc332-compact-manual")).replies
    assert claude332 == claude
    codex = emulator_class(COLS, ROWS).feed(raw("cx-resume")).replies
    assert b"\x1b[?1007;0$y" in codex and b"\x1b[?62;22c" in codex
    assert re.search(rb"\x1b\[\d+;\d+R", codex)
    assert b"\x1b]10;rgb:" in codex and b"\x1b]11;rgb:" in codex
    assert b"u" not in codex.replace(b"rgb", b"")  # kitty CSI ?u is never answered
