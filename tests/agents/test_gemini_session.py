"""A resumed Gemini CLI has loaded its session when the load mark is appended to its file."""

from __future__ import annotations

from pathlib import Path

from supervisor.agents.gemini_session import SessionLoadWatch, is_load_mark

# Lines as Gemini CLI 0.61.0 writes them (JSON.stringify: no spaces).
STARTUP = b'{"sessionId":"bdd59383-a9dc","projectHash":"ab12","startTime":"2026-12-02T01:33:35Z"}'
MESSAGE = b'{"id":"m1","timestamp":"2026-12-02T01:33:29Z","type":"user","content":"hello"}'
TOUCHED = b'{"$set":{"lastUpdated":"2026-12-02T01:33:30Z"}}'
LOADED = b'{"$set":{"sessionId":"bdd59383-a9dc"}}'


def test_only_the_resumed_sessions_load_record_is_the_mark():
    assert is_load_mark(LOADED)
    for line in (STARTUP, MESSAGE, TOUCHED, b"", b"{not json", b'{"$set":"x"}'):
        assert not is_load_mark(line), line


def test_the_watch_sees_the_mark_appended_after_its_first_look(tmp_path: Path):
    session = tmp_path / "session-2026-12-02T01-33-bdd59383.jsonl"
    session.write_bytes(STARTUP + b"\n" + MESSAGE + b"\n" + LOADED + b"\n")  # an older resume
    watch = SessionLoadWatch(session)
    assert not watch.poll()  # what is there already is the baseline
    with session.open("ab") as handle:
        handle.write(STARTUP + b"\n")  # the fresh start, into the same file (same minute)
    assert not watch.poll()
    with session.open("ab") as handle:
        handle.write(LOADED[:10])  # half written
    assert not watch.poll()
    with session.open("ab") as handle:
        handle.write(LOADED[10:] + b"\n")
    assert watch.poll() and watch.loaded


def test_a_missing_file_is_not_loaded_until_it_appears_with_the_mark(tmp_path: Path):
    session = tmp_path / "chats" / "session.jsonl"
    watch = SessionLoadWatch(session)
    assert not watch.poll()
    session.parent.mkdir()
    session.write_bytes(LOADED + b"\n")
    assert watch.poll()
