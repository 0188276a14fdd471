"""Transcript parsers: exact about what the agent wrote, and history is not a new loss."""

from __future__ import annotations

from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import JsonlBuffer
from tests.replay import captures_dir


def parse(parser, name: str):
    data = (captures_dir() / name).read_bytes()
    return [o for r in JsonlBuffer().feed(data) for o in parser.feed(r)]


def test_claude_compact_boundary_gives_trigger_and_token_counts() -> None:
    found = [o for o in parse(ClaudeTranscript(), "cc-compact-manual.transcript.jsonl")]
    boundary = [o for o in found if o.details.get("channel") == "compact_boundary"]
    (only,) = boundary
    assert only.trigger == "manual"
    assert only.details["pre_tokens"] == 22299 and only.details["post_tokens"] == 765
    (auto,) = [
        o
        for o in parse(ClaudeTranscript(), "cc-compact-auto.transcript.jsonl")
        if o.details.get("channel") == "compact_boundary"
    ]
    assert auto.trigger == "auto"


def test_claude_compact_summary_text_and_usage_for_the_meter() -> None:
    found = parse(ClaudeTranscript(), "cc-compact-manual.transcript.jsonl")
    (summary,) = [o for o in found if o.details.get("channel") == "compact_summary"]
    assert "FAKE-COMPACT-SUMMARY" in summary.summary
    usage = [o.details["used"] for o in found if o.kind == "usage"]
    assert usage and usage[0] == 22251


def test_claude_clear_starts_a_new_session_file_that_begins_with_the_clear_command() -> None:
    before = parse(ClaudeTranscript(), "cc-clear.transcript.jsonl")
    after = parse(ClaudeTranscript(), "cc-clear.transcript-2.jsonl")
    assert not [o for o in before if o.kind == "wipe"]
    (wipe,) = [o for o in after if o.kind == "wipe"]
    assert wipe.details["session"] == "8638a180-cd4b-461c-bfad-c3614b570814"


def test_codex_rollout_compactions_with_summary_trigger_and_window() -> None:
    manual = [o for o in parse(CodexRollout(), "cx-compact-manual.transcript.jsonl")]
    (compaction,) = [o for o in manual if o.kind == "compaction"]
    assert compaction.trigger == "manual"
    assert compaction.summary.startswith("FAKE-CODEX-COMPACT-SUMMARY")
    usage = [o for o in manual if o.kind == "usage"]
    # with the entry's own time: a usage line read late is no fresher than its entry
    assert usage[0].details == {"used": 12541, "window": 258400, "entry_at": 1795992092.702}
    auto = [o for o in parse(CodexRollout(), "cx-compact-auto.transcript.jsonl")]
    assert [o.trigger for o in auto if o.kind == "compaction"] == ["auto", "auto"]


def test_history_entries_feed_the_meter_but_report_no_loss() -> None:
    parser = ClaudeTranscript()
    data = (captures_dir() / "cc-resume.transcript.jsonl").read_bytes()
    found = [o for r in JsonlBuffer().feed(data) for o in parser.feed(r, history=True)]
    assert found and {o.kind for o in found} == {"usage"}


def test_a_codex_rollout_of_another_session_is_a_wipe_but_history_and_sub_agents_are_not():
    data = (captures_dir() / "cx-clear.session-meta.jsonl").read_bytes()
    before, after = JsonlBuffer().feed(data)
    rollout = CodexRollout()
    assert rollout.feed(before, 1.0) == [] and rollout.session_id == before["payload"]["id"]
    assert rollout.feed(before, 2.0) == []  # the same session again (a resume)
    sub_agent = {**after, "payload": {**after["payload"], "thread_source": "subagent"}}
    assert rollout.feed(sub_agent, 3.0) == []
    assert rollout.feed(after, 4.0, history=True) == []  # read from before tether looked
    rollout.session_id = before["payload"]["id"]
    (wipe,) = rollout.feed(after, 5.0)
    assert wipe.kind == "wipe" and wipe.source == "transcript"
    assert wipe.details == {
        "channel": "new_session",
        "session": after["payload"]["id"],
        "previous_session": before["payload"]["id"],
        "at_next_turn": True,  # written with the first prompt after /clear, however late
    }


def test_a_user_entry_whose_message_is_a_string_reads_as_nothing():
    """Found by the hook fuzz test in a full run: the refused-/compact check read
    ``message.content`` of an entry whose ``message`` is a string, and raised."""
    from supervisor.recognize.transcripts import ClaudeTranscript

    parser = ClaudeTranscript()
    for kind in ("user", "system", "assistant"):
        assert parser.feed({"message": "assistant", "type": kind}, 0.0) == []
