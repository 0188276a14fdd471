"""Fusion: one loss seen by several sources is one incident; two losses are two."""

from __future__ import annotations

import json

from supervisor.recognize.fusion import Fusion
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.observations import Observation
from supervisor.recognize.transcripts import ClaudeTranscript
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.store.tether_dir import TetherDir
from tests.replay import captures_dir


def screen(kind: str, at: float) -> Observation:
    return Observation(kind, "screen", at, details={"channel": "re0", "marker": "x"})


def test_screen_hook_and_transcript_of_one_compaction_make_one_incident_with_three_sources(
    tmp_path,
) -> None:
    (tmp_path / ".tether").mkdir()
    tether = TetherDir.at(tmp_path)
    fusion = Fusion(tether, decisions=lambda: ["keep the FAKE-COMPACT-SUMMARY"])
    hooks = [json.loads(line) for line in (captures_dir() / "cc-hooks.hooks.jsonl").open()]
    records = JsonlBuffer().feed((captures_dir() / "cc-hooks.transcript.jsonl").read_bytes())
    parser = ClaudeTranscript()
    transcript = [o for r in records for o in parser.feed(r, 100.4)]
    observed = [
        *observations_from_hook("PreCompact", hooks[1]["payload"], 97.0),
        screen("compaction", 100.0),
        *observations_from_hook("SessionStart", hooks[2]["payload"], 100.1),
        *observations_from_hook("PostCompact", hooks[3]["payload"], 100.2),
        *transcript,
    ]
    changes = [fusion.observe(o) for o in observed]
    assert [c.new for c in changes if c] == [True, False, False, False, False]
    (incident,) = fusion.incidents
    assert incident.kind == "compaction" and incident.number == 1
    assert incident.sources == ["screen", "hook", "transcript"]
    assert incident.trigger == "manual"  # from PreCompact, before the screen saw anything
    assert incident.summary.startswith("FAKE-COMPACT-SUMMARY")
    assert incident.audit is not None and incident.audit.decisions[0].status == "kept"
    assert incident.title() == "Context compacted (#1, manual)"
    lines = [json.loads(line) for line in tether.events.read_text().splitlines()]
    (recorded,) = [e for e in lines if e["kind"] == "incident"]
    assert recorded["number"] == 1 and recorded["type"] == "compaction"
    assert recorded["sources"] == ["screen"]
    last_update = [e for e in lines if e["kind"] == "incident_update"][-1]
    assert last_update["sources"] == ["screen", "hook", "transcript"]
    assert last_update["summary"].startswith("FAKE-COMPACT-SUMMARY")


def test_a_second_screen_sighting_within_the_window_is_a_second_compaction() -> None:
    fusion = Fusion()
    fusion.observe(screen("compaction", 10.0))
    fusion.observe(screen("compaction", 15.0))
    fusion.observe(Observation("compaction", "transcript", 15.2, trigger="auto"))
    first, second = fusion.incidents
    assert (first.number, second.number) == (1, 2)
    assert first.sources == ["screen"] and second.sources == ["screen", "transcript"]
    assert second.trigger == "auto" and first.trigger is None


def test_sightings_outside_the_window_do_not_fuse() -> None:
    fusion = Fusion(window=10.0)
    fusion.observe(screen("compaction", 0.0))
    change = fusion.observe(Observation("compaction", "transcript", 10.5))
    assert change is not None and change.new
    assert fusion.compaction_count() == 2


def test_compaction_started_opens_nothing_but_lends_its_trigger() -> None:
    fusion = Fusion()
    assert fusion.observe(Observation("compaction_started", "hook", 1.0, trigger="auto")) is None
    assert fusion.incidents == []
    fusion.observe(screen("compaction", 4.0))
    assert fusion.incidents[0].trigger == "auto"


def test_kinds_never_mix_and_crash_wipe_unclean_exit_are_incidents() -> None:
    fusion = Fusion()
    fusion.observe(Observation("wipe", "hook", 1.0, details={"channel": "SessionEnd"}))
    fusion.observe(Observation("wipe", "hook", 1.1, details={"channel": "SessionStart"}))
    fusion.observe(Observation("crash", "process", 2.0, details={"exit_code": 3}))
    fusion.observe(Observation("unclean_exit", "lock", 3.0))
    fusion.observe(Observation("context_low", "screen", 3.5, details={"percent": 4}))
    assert [(i.kind, i.sources) for i in fusion.incidents] == [
        ("wipe", ["hook"]),
        ("crash", ["process"]),
        ("unclean-exit", ["lock"]),
    ]


def test_observations_are_events_but_hook_lines_are_not_written_twice(tmp_path) -> None:
    (tmp_path / ".tether").mkdir()
    tether = TetherDir.at(tmp_path)
    fusion = Fusion(tether)
    fusion.observe(Observation("context_low", "screen", 1.0, details={"percent": 4}))
    fusion.observe(Observation("compaction_started", "hook", 2.0, trigger="manual"))
    fusion.observe(Observation("usage", "transcript", 3.0, details={"used": 5}))
    kinds = [json.loads(line)["kind"] for line in tether.events.read_text().splitlines()]
    assert kinds == ["context_low"]


def test_acknowledging_an_incident_is_recorded_once() -> None:
    fusion = Fusion()
    fusion.observe(screen("compaction", 1.0))
    assert fusion.acknowledge(1) is not None
    assert fusion.incidents[0].acknowledged
    assert fusion.acknowledge(1) is None
