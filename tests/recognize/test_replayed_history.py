"""A crash restart replays the session file: its old losses are history (issue 26, item 1).

`claude --continue` appends to the session file the crashed process wrote, and tether,
following the restarted agent afresh, reads it from its start: the old compact_boundary,
its summary and an old /clear come back with their old times and ids. Only a loss of the
agent's current process makes an incident. The session files are the recorded ones.
"""

from __future__ import annotations

from supervisor.recognize.fusion import Fusion
from supervisor.recognize.observations import Observation
from supervisor.recognize.transcripts import ClaudeTranscript, entry_time
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import CAPTURES
from tests.store_records import recent_events


def records(name: str) -> list[dict]:
    return JsonlBuffer().feed((CAPTURES / name).read_bytes())


def read(parser: ClaudeTranscript, entries: list[dict], now: float) -> list[Observation]:
    """Entries as the follower reads them: all at once, a tick after they were written."""
    return [o for record in entries for o in parser.feed(record, now)]


def last_time(entries: list[dict]) -> float:
    return max(t for t in map(entry_time, entries) if t is not None)


def first_time(entries: list[dict]) -> float:
    return min(t for t in map(entry_time, entries) if t is not None)


def test_claude_continue_after_a_crash_replays_its_compaction_as_history(tmp_path) -> None:
    init(tmp_path, goal="g")
    tether = TetherDir.at(tmp_path)
    before = records("cc-compact-manual.transcript.jsonl")
    resumed = records("cc-resume.transcript.jsonl")
    assert resumed[: len(before)] == before  # the same file, appended to
    fusion = Fusion(tether, agent_started=first_time(before) - 1)
    for observation in read(ClaudeTranscript(), before, last_time(before)):
        fusion.observe(observation)
    assert [i.kind for i in fusion.incidents] == ["compaction"]

    restart = last_time(before) + 5  # the crash, F6: the agent runs again
    fusion.agent_started(restart)
    again = read(ClaudeTranscript(), resumed, last_time(resumed) + 0.3)  # read from its start
    assert [o.kind for o in again if o.kind == "compaction"] == ["compaction"] * 2
    changes = [fusion.observe(o) for o in again]
    assert [c for c in changes if c is not None] == []
    assert [i.kind for i in fusion.incidents] == ["compaction"]  # no #2
    events, _ = recent_events(tether, 200)
    logged = [e for e in events if e["kind"] == "compaction"]
    why = "written before the agent's process started"
    assert [e.get("history") for e in logged[-2:]] == [why, why]


def test_an_old_clear_in_the_resumed_file_is_no_wipe() -> None:
    entries = records("cc-clear.transcript-2.jsonl")  # the session /clear began
    fusion = Fusion(agent_started=last_time(entries) + 3)  # restarted after it all
    observations = read(ClaudeTranscript(), entries, last_time(entries) + 4)
    assert [o.kind for o in observations if o.kind == "wipe"] == ["wipe"]
    assert [fusion.observe(o) for o in observations if o.kind == "wipe"] == [None]
    assert fusion.incidents == []


def test_the_same_compaction_entry_read_twice_is_one_incident() -> None:
    """By its id alone: the compact_boundary uuid it already holds for that channel."""
    entries = records("cc-compact-manual.transcript.jsonl")
    fusion = Fusion()
    for observation in read(ClaudeTranscript(), entries, 100.0):
        fusion.observe(observation)
    for observation in read(ClaudeTranscript(), entries, 500.0):  # far outside the window
        assert fusion.observe(observation) is None
    assert len(fusion.incidents) == 1


def test_a_compaction_of_the_restarted_process_is_an_incident() -> None:
    entries = records("cc-compact-manual.transcript.jsonl")
    fusion = Fusion(agent_started=first_time(entries) - 1)
    fusion.agent_started(first_time(entries) - 0.5)  # restarted before any of it
    for observation in read(ClaudeTranscript(), entries, last_time(entries)):
        fusion.observe(observation)
    assert [i.kind for i in fusion.incidents] == ["compaction"]


def test_codex_resume_last_right_after_a_compaction_replays_it_as_history() -> None:
    """`codex resume --last` appends to the rollout; the restart came a second after the
    compaction (within any slack a time rule might allow): the entry itself is known."""
    from supervisor.recognize.transcripts import CodexRollout

    before = records("cx-compact-manual.transcript.jsonl")
    resumed = records("cx-resume.transcript.jsonl")
    assert resumed[: len(before)] == before
    fusion = Fusion(agent_started=first_time(before) - 1)
    compacted = next(entry_time(r) for r in before if r.get("type") == "compacted")
    for observation in read(CodexRollout(), before[:20], compacted + 0.2):
        fusion.observe(observation)
    assert [i.kind for i in fusion.incidents] == ["compaction"]
    fusion.agent_started(compacted + 1.0)  # SIGKILL, F6 at once
    for observation in read(CodexRollout(), resumed, last_time(resumed) + 0.3):
        assert fusion.observe(observation) is None or observation.kind != "compaction"
    assert [i.kind for i in fusion.incidents] == ["compaction"]
