"""A /clear typed to Codex is the wipe's first sighting (issue 26, item 4): Codex tells of it
only when the next prompt is submitted, so F6 in between named the previous incident."""

from __future__ import annotations

import json

from supervisor.config.profiles import load_profile
from supervisor.recognize.decision_capture import DecisionCapture
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.transcripts import CodexRollout
from supervisor.recognize.typed_commands import wipe_command
from supervisor.store.jsonl_tail import JsonlBuffer
from tests.locations import CAPTURES

CODEX = load_profile("codex").wipe_commands


def submitted(*keys: bytes) -> list[str]:
    capture = DecisionCapture()
    for data in keys:
        capture.keys(data, 0.0)
    return capture.take_submitted()


def test_the_typed_line_is_taken_as_the_user_finished_it() -> None:
    assert submitted(b"/cl", b"ear", b"\r") == ["/clear"]
    assert submitted(b"/clear now\x7f\x7f\x7f\x7f", b"\r") == ["/clear"]
    assert submitted(b"hello\r", b"/new\r") == ["hello", "/new"]


def test_only_the_command_alone_while_the_agent_waits_is_a_wipe() -> None:
    assert wipe_command("/clear", CODEX, 1.0, waiting=True) is not None
    assert wipe_command("  /new ", CODEX, 1.0, waiting=True) is not None
    assert wipe_command("/clear", CODEX, 1.0, waiting=False) is None  # may be refused
    assert wipe_command("/clear the cache please", CODEX, 1.0, waiting=True) is None
    assert wipe_command("/compact", CODEX, 1.0, waiting=True) is None


def test_codex_clear_is_one_wipe_from_the_typed_command_to_the_next_turns_hook() -> None:
    """The recorded Codex session with tether's hooks: /clear, and a prompt 60 s later
    that brings SessionStart(clear) and the new session's rollout."""
    fusion = Fusion()
    typed = wipe_command("/clear", CODEX, 100.0, waiting=True)
    assert typed is not None
    opened = fusion.observe(typed)
    assert opened is not None and opened.new and opened.incident.number == 1
    calls = [json.loads(line) for line in (CAPTURES / "cx171-hooks.hooks.jsonl").open()]
    clear = next(
        c["payload"]
        for c in calls
        if c["event"] == "SessionStart" and c["payload"].get("source") == "clear"
    )
    for observation in observations_from_hook("SessionStart", clear, 160.0):
        change = fusion.observe(observation)
        assert change is None or not change.new
    rollout = CodexRollout()
    for name in ("cx171-hooks.transcript.jsonl", "cx171-hooks.transcript-2.jsonl"):
        for record in JsonlBuffer().feed((CAPTURES / name).read_bytes()):
            for observation in rollout.feed(record, 160.5):
                if observation.kind == "wipe":
                    change = fusion.observe(observation)
                    assert change is not None and not change.new
    wipes = [i for i in fusion.incidents if i.kind == "wipe"]
    assert len(wipes) == 1 and set(wipes[0].sources) == {"typed", "hook", "transcript"}
