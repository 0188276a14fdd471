"""The tick's reads: what was appended to events.jsonl since the last read, the invariant,
and the last checkpoint for the status bar, from real files."""

from __future__ import annotations

from supervisor.agents.transcript_follower import TranscriptFollower
from supervisor.config.profiles import load_profile
from supervisor.rehydrate.live_notes import LiveNotes
from supervisor.rehydrate.payload import build_payload
from supervisor.run.tick_reads import TickReader
from supervisor.store import checkpoints, notes
from supervisor.store.invariant_guard import InvariantGuard


def reader_for(tether, live: LiveNotes | None = None) -> TickReader:
    follower = TranscriptFollower(claude=True, started_at=0.0)
    live = live if live is not None else LiveNotes(tether)
    reader = TickReader(tether, follower, InvariantGuard(tether), frozenset(), live)
    reader.open()
    return reader


def test_events_are_read_from_where_the_last_read_ended(tether):
    tether.record_event("before", "test")  # there before the run: handled before
    reader = reader_for(tether)
    tether.record_event("hook", "hook", event="Stop")
    first = reader.read(0.0, agent=None)
    assert [e["kind"] for e in first.events] == ["hook"]
    assert reader.read(0.0, agent=None).events == []


def test_the_last_checkpoint_is_read_with_its_file_time(tether):
    reader = reader_for(tether)
    assert reader.read(0.0, agent=None).last_checkpoint is None
    checkpoints.take(tether, "one", with_git=False)
    taken = checkpoints.take(tether, "two", with_git=False)
    seq, written = reader.read(0.0, agent=None).last_checkpoint
    assert seq == taken.seq == 2 and written > 0


def test_a_due_timer_asks_whether_the_state_changed(tether):
    reader = reader_for(tether)
    checkpoints.take(tether, "first", with_git=False)
    assert reader.read(0.0, agent=None, timer_due=True).state_changed is False
    tether.add_note("next", "write artifact 12")
    assert reader.read(0.0, agent=None, timer_due=True).state_changed is True
    assert reader.read(0.0, agent=None).state_changed is None  # not asked


def test_the_tick_and_the_payload_read_one_parse_per_change_of_the_notes(tether, monkeypatch):
    parsed: list[int] = []
    parse = notes.Document.parse
    monkeypatch.setattr(
        notes.Document, "parse", staticmethod(lambda text: parsed.append(len(text)) or parse(text))
    )
    live = LiveNotes(tether)
    reader = reader_for(tether, live)
    profile = load_profile("claude")
    tether.add_decisions(["tokens live in Redis with a 15 minute TTL"], "test")
    parsed.clear()
    digest = reader.read(0.0, agent=None).notes
    assert digest is not None and digest.pinned == ("tokens live in Redis with a 15 minute TTL",)
    assert len(parsed) == 2  # notes.md and task.md, once each
    shared = build_payload(tether, profile, live=live)
    assert reader.read(0.0, agent=None).notes is None  # unchanged: nothing parsed again
    assert len(parsed) == 2  # the payload read the tick's parse
    assert shared.text == build_payload(tether, profile).text  # as parsed from disk
    tether.add_decisions(["sessions expire after 30 minutes idle"], "test")
    parsed.clear()
    assert "sessions expire" in build_payload(tether, profile, live=live).text  # it changed
    assert reader.read(0.0, agent=None).notes is not None
    assert len(parsed) == 2  # the tick read the payload's parse
