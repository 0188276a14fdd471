"""Fusion: one loss seen by several sources is one incident; two losses are two."""

from __future__ import annotations

import json

from supervisor.recognize.fusion import Fusion
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.observations import Observation
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.store.tether_dir import TetherDir
from tests.replay import captures_dir
from tests.store_records import recent_events


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


def _codex_hooks() -> list[dict]:
    """Codex 0.171.0's hook calls with tether's -c hooks: prompt, prompt, /compact, prompt,
    /clear, prompt (tests/fixtures/captures/README.md)."""
    return [json.loads(line) for line in (captures_dir() / "cx-hooks.hooks.jsonl").open()]


def test_codexs_late_session_start_compact_joins_the_compaction_minutes_later() -> None:
    """Codex fires SessionStart(compact) at the first turn after the compaction, however
    late: it confirms that compaction, it is not a second one."""
    fusion = Fusion()
    calls = _codex_hooks()
    pre, post, start = (
        c
        for c in calls
        if c["event"] in ("PreCompact", "PostCompact")
        or (c["event"] == "SessionStart" and c["payload"]["source"] == "compact")
    )
    for at, call in ((50.0, pre), (50.1, post), (400.0, start)):
        for observation in observations_from_hook(call["event"], call["payload"], at):
            fusion.observe(observation)
    fusion.observe(screen("compaction", 50.2))
    (incident,) = fusion.incidents
    assert incident.kind == "compaction" and incident.trigger == "manual"
    assert incident.sources == ["hook", "screen"]
    assert "at_next_turn" not in incident.details


def test_codexs_session_start_clear_opens_a_wipe_and_the_new_rollout_joins_it() -> None:
    fusion = Fusion()
    clear = next(c for c in _codex_hooks() if c["payload"].get("source") == "clear")
    (observation,) = observations_from_hook("SessionStart", clear["payload"], 200.0)
    assert fusion.observe(observation).new
    rollout = CodexRollout()
    records = JsonlBuffer().feed((captures_dir() / "cx-clear.session-meta.jsonl").read_bytes())
    found = [o for r in records for o in rollout.feed(r, 201.0)]
    assert [o.kind for o in found] == ["wipe"]
    assert not fusion.observe(found[0]).new
    (incident,) = fusion.incidents
    assert incident.kind == "wipe" and incident.sources == ["hook", "transcript"]
    assert incident.details["session"] == clear["payload"]["session_id"]


def test_a_late_sighting_after_another_incident_opens_its_own() -> None:
    """A SessionStart(compact) is late only for the newest incident: after a crash in
    between, a compaction with no sighting of that channel is not reopened."""
    fusion = Fusion()
    fusion.observe(Observation("compaction", "hook", 10.0, details={"channel": "PostCompact"}))
    fusion.observe(Observation("crash", "process", 20.0))
    late = Observation(
        "compaction", "hook", 30.0, details={"channel": "SessionStart", "at_next_turn": True}
    )
    assert fusion.observe(late).new
    again = Observation(
        "compaction", "hook", 31.0, details={"channel": "SessionStart", "at_next_turn": True}
    )
    assert fusion.observe(again).new  # that channel was heard: a second compaction
    assert [i.kind for i in fusion.incidents] == ["compaction", "crash", "compaction", "compaction"]


def test_a_precompact_read_after_the_screen_saw_its_compaction_is_not_kept_for_the_next():
    """Seen in the e2e tier: the screen opened Codex's /compact incident, its PreCompact
    (manual) was read a tick later, and the auto compaction three seconds after took that
    stale trigger. It belongs to the incident it was read after."""
    fusion = Fusion()
    calls = _codex_hooks()
    pre = next(c for c in calls if c["event"] == "PreCompact")["payload"]
    post = next(c for c in calls if c["event"] == "PostCompact")["payload"]
    auto_pre = {**pre, "trigger": "auto"}
    auto_post = {**post, "trigger": "auto"}
    fusion.observe(screen("compaction", 10.0))
    (started,) = observations_from_hook("PreCompact", pre, 10.1)
    change = fusion.observe(started)
    assert change is not None and change.incident.trigger == "manual"
    for observation in observations_from_hook("PostCompact", post, 10.2):
        fusion.observe(observation)
    for observation in observations_from_hook("PreCompact", auto_pre, 13.0):
        assert fusion.observe(observation) is None  # it announces the next one
    fusion.observe(screen("compaction", 13.1))
    for observation in observations_from_hook("PostCompact", auto_post, 13.2):
        fusion.observe(observation)
    first, second = fusion.incidents
    assert (first.trigger, second.trigger) == ("manual", "auto")
    assert first.sources == second.sources == ["screen", "hook"]


def test_session_start_of_a_resume_or_a_fork_is_no_loss() -> None:
    """Newer Claude Code reports a resumed session as source "fork", older ones and Codex as
    "resume": both start a session, neither is a compaction or a wipe."""
    fusion = Fusion()
    for source in ("resume", "fork", "startup"):
        payload = {"session_id": "s", "source": source, "hook_event_name": "SessionStart"}
        (observation,) = observations_from_hook("SessionStart", payload, 1.0)
        assert observation.kind == "session" and observation.details["start"] == source
        assert fusion.observe(observation) is None
    assert fusion.incidents == []


T = 1_796_115_300.0  # 2026-12-01T08:55:00Z: entries carry their own time, as the files do


def _stamp(at: float) -> str:
    import datetime

    moment = datetime.datetime.fromtimestamp(at, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def claude_compaction(parser: ClaudeTranscript, at: float, uuid: str, read_at: float):
    """A compaction's two transcript entries (boundary, then summary), read at ``read_at``."""
    boundary = {
        "type": "system", "subtype": "compact_boundary", "uuid": uuid,
        "timestamp": _stamp(at), "compactMetadata": {"trigger": "auto"},
    }  # fmt: skip
    summary = {
        "type": "user", "isCompactSummary": True, "uuid": uuid + "-s", "parentUuid": "other",
        "timestamp": _stamp(at - 0.1), "message": {"content": f"<summary>{uuid}</summary>"},
    }  # fmt: skip
    return parser.feed(boundary, read_at) + parser.feed(summary, read_at)


def test_a_late_transcript_entry_joins_the_compaction_it_belongs_to_not_the_newer() -> None:
    """Two compactions 5 s apart on the screen; the transcript of the first is read after
    the second: its entries' own time (and the boundary uuid they share) put them on #1."""
    fusion = Fusion()
    parser = ClaudeTranscript()
    fusion.observe(screen("compaction", T))
    fusion.observe(screen("compaction", T + 5.0))
    for observation in claude_compaction(parser, T - 0.05, "first", read_at=T + 6.0):
        fusion.observe(observation)
    for observation in claude_compaction(parser, T + 4.95, "second", read_at=T + 6.5):
        fusion.observe(observation)
    first, second = fusion.incidents
    assert (first.summary, second.summary) == ("first", "second")
    assert first.sources == second.sources == ["screen", "transcript"]


def test_a_late_rollout_entry_joins_the_compaction_of_its_turn() -> None:
    """Codex: the rollout's `compacted` entry names the turn, as PostCompact does."""
    fusion = Fusion()
    rollout = CodexRollout()

    def post(turn: str, at: float) -> None:
        payload = {"turn_id": turn, "trigger": "auto", "hook_event_name": "PostCompact"}
        for observation in observations_from_hook("PostCompact", payload, at):
            fusion.observe(observation)

    def compacted(turn: str, at: float, read_at: float) -> None:
        started = {"timestamp": _stamp(at - 2), "type": "event_msg",
                   "payload": {"type": "task_started", "turn_id": turn}}  # fmt: skip
        entry = {"timestamp": _stamp(at), "type": "compacted",
                 "payload": {"message": f"summary of {turn}"}}  # fmt: skip
        for observation in rollout.feed(started, read_at) + rollout.feed(entry, read_at):
            fusion.observe(observation)

    fusion.observe(screen("compaction", T))
    post("turn-a", T + 0.1)
    fusion.observe(screen("compaction", T + 4.0))
    post("turn-b", T + 4.1)
    compacted("turn-a", T - 0.05, read_at=T + 5.0)  # read late, after the second
    compacted("turn-b", T + 3.95, read_at=T + 5.2)
    first, second = fusion.incidents
    assert (first.summary, second.summary) == ("summary of turn-a", "summary of turn-b")
    assert first.sources == second.sources == ["screen", "hook", "transcript"]


def test_a_compact_claude_refused_ends_its_start_and_leaves_no_trigger_behind(tmp_path):
    """Issue 26, item 7: "Not enough messages to compact" left a compaction_started with no
    end, whose "manual" the next (automatic) compaction took. The words are Claude Code's
    (agent-markers.md 1.1, seen running it); PreCompact fires even so."""
    from supervisor.config.profiles import load_profile
    from supervisor.recognize.screen_detector import ScreenDetector
    from supervisor.store.tether_dir import TetherDir, init
    from supervisor.terminal.avt_emulator import AvtEmulator
    from widgets.side_pane.event_words import describe

    init(tmp_path, goal="g")
    tether = TetherDir.at(tmp_path)
    fusion = Fusion(tether)
    (started,) = observations_from_hook("PreCompact", {"trigger": "manual"}, 10.0)
    assert fusion.observe(started) is None
    emulator = AvtEmulator(100, 12, 100)
    detector = ScreenDetector(load_profile("claude").markers)
    emulator.feed("❯ /compact\r\n  ⎿  Not enough messages to compact.\r\n".encode())
    (refused,) = detector.scan(emulator, 10.5, emulator.take_dirty())
    assert refused.kind == "compaction_failed"
    fusion.observe(refused)
    later = Observation("compaction", "transcript", 15.0, details={"channel": "compact_boundary"})
    change = fusion.observe(later)
    assert change is not None and change.incident.trigger is None  # not the refused one's
    events, _ = recent_events(tether, 20)
    kinds = [e["kind"] for e in events]
    assert kinds[-3:] == ["compaction_failed", "compaction", "incident"]
    ended = next(e for e in events if e["kind"] == "compaction_failed")
    assert describe(ended).what.startswith("compaction refused or failed: ⎿  Not enough")


def test_a_shell_exiting_127_is_no_crash_but_an_exit_whose_command_was_not_found():
    """Issue 26, item 7: `bash` ending with status 127 was called "Agent crashed"."""
    from supervisor.recognize.process_watch import exit_observation

    fusion = Fusion()
    ended = fusion.observe(exit_observation(127, None, 5.0))
    assert ended is not None
    assert ended.incident.title() == "Agent exited with code 127, command not found (#1)"
    assert ended.incident.details["how"] == "exit code 127 (command not found)"
    killed = fusion.observe(exit_observation(None, 9, 50.0))
    assert killed is not None and killed.incident.title() == "Agent crashed (#2)"
    two = fusion.observe(exit_observation(2, None, 90.0))
    assert two is not None and two.incident.title() == "Agent exited with code 2 (#3)"
