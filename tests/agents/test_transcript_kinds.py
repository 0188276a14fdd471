"""A hook names the transcript to follow, and a hook can name anything: only a regular
file is read; a folder, a named pipe, a device or a name no file can have yields nothing,
says why, and never blocks or ends the supervisor. Lines of any shape are read or skipped.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from supervisor.agents.transcript_follower import TranscriptFollower
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout

HANG_GUARD_S = 30


def poll_in_a_thread(follower: TranscriptFollower) -> list:
    """Poll, failing (not hanging) if the poll blocks: the old open() of a FIFO did."""
    found: list = []
    thread = threading.Thread(target=lambda: found.append(follower.poll(0.0)), daemon=True)
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), "the poll blocked"
    return found[0]


def named(tmp_path: Path, kind: str) -> str:
    path = tmp_path / kind
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        return "/dev/zero"
    elif kind == "nul":
        return "a\0b.jsonl"
    return str(path)


@pytest.mark.parametrize("claude", [True, False], ids=["claude", "codex"])
@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("folder", "a folder, not a file"),
        ("fifo", "a named pipe, not a file"),
        ("device", "not a regular file"),
        ("nul", "embedded null byte"),
    ],
)
def test_anything_but_a_regular_file_is_refused_without_blocking(
    tmp_path: Path, claude: bool, kind: str, why: str
) -> None:
    follower = TranscriptFollower(claude=claude, started_at=0.0)
    follower.follow(named(tmp_path, kind))
    assert poll_in_a_thread(follower) == []
    assert follower.refused == why


def test_a_refused_path_is_followed_once_it_is_a_regular_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.mkdir()
    follower = TranscriptFollower(claude=True, started_at=0.0)
    follower.follow(str(path))
    assert poll_in_a_thread(follower) == [] and follower.refused
    path.rmdir()
    path.write_text(json.dumps({"type": "system", "subtype": "compact_boundary"}) + "\n")
    assert [o.kind for o in poll_in_a_thread(follower)] == ["compaction"]
    assert follower.refused is None


STRANGE = [
    {"type": "event_msg", "payload": {"type": "task_started", "turn_attribution": "user"}},
    {"type": "event_msg", "payload": {"type": "task_started", "turn_attribution": [1, 2]}},
    {"type": "event_msg", "payload": {"type": "token_count", "info": "x"}},
    {"type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": 5}}},
    {"type": "event_msg", "payload": {"type": "token_count", "info": {"model_context_window": []}}},
    {"type": "event_msg", "payload": "not an object"},
    {"type": "compacted", "payload": {"message": ["a"]}},
    {"type": "session_meta", "payload": {"id": {"x": 1}, "source": "cli"}},
    {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [1]}},
    {"type": "response_item", "payload": {"type": "message", "content": [{"text": 5}]}},
    {"type": "assistant", "message": "just a string"},
    {"type": "assistant", "message": {"usage": {"input_tokens": "many"}}},
    {"type": "assistant", "message": {"usage": {"input_tokens": 1e308, "cache_read": None}}},
    {"type": "assistant", "message": {"usage": [1, 2]}},
    {"type": "system", "subtype": "compact_boundary", "compactMetadata": "auto"},
    {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": []}},
    {"type": "user", "isCompactSummary": True, "message": None},
    {"type": "user", "message": {"content": [{"type": "tool_result"}, "x", None]}},
    {"type": "user", "message": {"content": {"nested": {"deeper": [[[[]]]]}}}},
    {"type": "user", "sessionId": ["a"], "timestamp": "0001-01-01T00:00:00+14:00"},
    {"type": "user", "timestamp": 12},
    {"type": None, "payload": None, "message": None},
    {"type": ["assistant"], "isSidechain": "yes"},
]


@pytest.mark.parametrize("parser", [ClaudeTranscript, CodexRollout])
@pytest.mark.parametrize("history", [False, True])
def test_entries_of_any_shape_are_read_or_skipped_never_raised(parser, history: bool) -> None:
    reader = parser()
    for entry in STRANGE:
        assert isinstance(reader.feed(entry, 0.0, history=history), list)


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_claude_s_session_record_is_read_only_from_a_regular_file(
    tmp_path: Path, kind: str
) -> None:
    from supervisor.agents.transcript_locations import claude_session_of_pid

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    record = sessions / "4242.json"
    if kind == "fifo":
        os.mkfifo(record)
    else:
        record.mkdir()
    found: list = []
    thread = threading.Thread(
        target=lambda: found.append(claude_session_of_pid(4242, tmp_path)), daemon=True
    )
    thread.start()
    thread.join(HANG_GUARD_S)
    assert not thread.is_alive(), "reading the session record blocked"
    assert found == [None]
