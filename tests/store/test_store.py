"""The .tether/ store: layout, typed reads with clear errors, events and incidents."""

from __future__ import annotations

import json

import pytest

from supervisor.errors import TetherError
from supervisor.store.tether_dir import DIRNAME, TetherDir, init, record_event
from tests.store_records import append_artifact, read_jsonl


def test_init_creates_the_layout_of_the_contract(tmp_path):
    tether = init(tmp_path, "ship the parser").tether
    assert tether.root == tmp_path / DIRNAME
    for name in ("task.md", "notes.md", "progress.json", "artifacts.jsonl", "events.jsonl"):
        assert (tether.root / name).is_file(), name
    for name in ("checkpoints", "sessions", "agent"):
        assert (tether.root / name).is_dir(), name
    assert "ship the parser" in tether.read_task()
    progress = json.loads(tether.progress.read_text())
    assert progress["cursor"] == 0 and progress["updated_at"].endswith("Z")


def test_init_again_keeps_every_existing_file(tmp_path):
    tether = init(tmp_path, "first").tether
    tether.add_note("done", "kept")
    result = init(tmp_path, "second")
    assert "notes.md" in result.kept and "task.md" in result.kept
    assert "first" in tether.read_task() and "- kept" in tether.read_notes()


def test_missing_folder_says_run_init(tmp_path):
    with pytest.raises(TetherError, match=r"no \.tether/ in .*; run `tether init`"):
        TetherDir.require(tmp_path)


def test_record_event_appends_one_line_with_time_kind_and_source(tmp_path):
    tether = init(tmp_path).tether
    event = record_event(tmp_path, "hook", "claude", name="PreCompact", n=1)
    records, problems = read_jsonl(tether.events)
    assert records[-1] == event and not problems
    assert list(event)[:3] == ["at", "kind", "source"] and event["at"].endswith("Z")


def test_incidents_are_numbered_and_counted_from_the_tail(tmp_path):
    tether = init(tmp_path).tether
    assert tether.incident_count() == 0
    first = tether.record_incident("compaction", "hook", trigger="auto")
    for _ in range(2000):
        tether.record_event("screen", "detector")
    second = tether.record_incident("wipe", "screen")
    tether.record_event("screen", "detector")
    assert (first["number"], second["number"], tether.incident_count()) == (1, 2, 2)


def test_malformed_progress_names_file_line_and_what_to_do(tmp_path):
    tether = init(tmp_path).tether
    tether.progress.write_text('{\n  "cursor": 3,\n}\n')
    with pytest.raises(TetherError) as caught:
        tether.read_progress()
    assert "progress.json:3" in str(caught.value) and "tether check --fix" in str(caught.value)


def test_negative_cursor_is_rejected_with_the_file_name(tmp_path):
    tether = init(tmp_path).tether
    tether.progress.write_text('{"cursor": -1}')
    with pytest.raises(TetherError, match=r"progress\.json.*cursor"):
        tether.read_progress()


def test_binary_notes_name_the_file_and_the_remedy(tmp_path):
    tether = init(tmp_path).tether
    tether.notes.write_bytes(b"# Notes\n\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(TetherError) as caught:
        tether.add_note("done", "x")
    assert "notes.md:2" in str(caught.value) and "not UTF-8" in str(caught.value)
    assert tether.notes.read_bytes().endswith(b"\xff\xfe")  # untouched


def test_append_artifact_numbers_from_the_last_index(tmp_path):
    tether = init(tmp_path).tether
    assert append_artifact(tether, name="a")["index"] == 0
    assert append_artifact(tether, {"name": "b"})["index"] == 1
    last, _ = tether.last_artifact()
    assert last["name"] == "b" and last["at"].endswith("Z")


def test_unknown_progress_keys_survive_an_update(tmp_path):
    tether = init(tmp_path).tether
    tether.progress.write_text('{"cursor": 2, "phase": "x", "mine": [1, 2]}')
    tether.set_progress(cursor=3)
    assert json.loads(tether.progress.read_text())["mine"] == [1, 2]


def test_nested_updates_in_one_thread_do_not_deadlock(tmp_path):
    tether = init(tmp_path).tether
    with tether.updating(), tether.updating():
        tether.record_incident("crash", "process")
    assert tether.incident_count() == 1
