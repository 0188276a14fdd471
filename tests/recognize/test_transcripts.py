"""Transcript tails: incremental, bounded, and exact about what the agent wrote."""

from __future__ import annotations

import os
from pathlib import Path

from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import TAIL_WINDOW, JsonlBuffer, JsonlTail
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
    assert usage[0].details == {"used": 12541, "window": 258400}
    auto = [o for o in parse(CodexRollout(), "cx-compact-auto.transcript.jsonl")]
    assert [o.trigger for o in auto if o.kind == "compaction"] == ["auto", "auto"]


def test_history_entries_feed_the_meter_but_report_no_loss() -> None:
    parser = ClaudeTranscript()
    data = (captures_dir() / "cc-resume.transcript.jsonl").read_bytes()
    found = [o for r in JsonlBuffer().feed(data) for o in parser.feed(r, history=True)]
    assert found and {o.kind for o in found} == {"usage"}


def test_tail_reads_only_new_bytes_and_keeps_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = JsonlTail(path, start="end")
    assert list(tail.poll()) == []
    with path.open("ab") as handle:
        handle.write(b'{"b": 2}\n{"c":')
    assert list(tail.poll()) == [({"b": 2}, False)]
    with path.open("ab") as handle:
        handle.write(b" 3}\nnot json\n")
    assert list(tail.poll()) == [({"c": 3}, False)]
    assert tail.offset == path.stat().st_size


def test_tail_of_a_big_file_reads_a_window_not_the_file(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    line = b'{"type": "user", "pad": "' + b"x" * 1000 + b'"}\n'
    path.write_bytes(line * 5000 + b'{"last": true}\n')  # about 5 MB
    tail = JsonlTail(path, start="tail")
    assert tail.offset >= path.stat().st_size - TAIL_WINDOW
    records = list(tail.poll())
    assert records[-1] == ({"last": True}, True)
    assert len(records) <= TAIL_WINDOW // len(line) + 1
    assert all(history for _, history in records)


def test_tail_starts_over_when_the_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n')
    tail = JsonlTail(path, start="end")
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b'{"z": 1}\n')
    os.replace(replacement, path)
    assert list(tail.poll()) == [({"z": 1}, False)]
