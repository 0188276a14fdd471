"""The cursor invariant: disk wins, in words and numbers."""

from __future__ import annotations

import json
import os

from supervisor.store import invariant
from supervisor.store.tether_dir import TetherDir
from tests.store_records import append_artifact, read_jsonl


def _artifacts(tether: TetherDir, count: int, **extra) -> None:
    lines = [json.dumps({"index": i, **extra}) + "\n" for i in range(count)]
    tether.artifacts.write_text("".join(lines))


def _events(tether: TetherDir, kind: str) -> list[dict]:
    return [e for e in read_jsonl(tether.events)[0] if e["kind"] == kind]


def test_cursor_rolls_back_when_progress_claims_unwritten_work(tether):
    _artifacts(tether, 380)  # indexes 0..379
    tether.set_progress(cursor=381)
    verdict = invariant.check(tether)
    assert not verdict.ok and verdict.kind == invariant.CURSOR_AHEAD
    assert (verdict.cursor, verdict.last_index, verdict.expected_cursor) == (381, 379, 380)
    assert "cursor 381" in verdict.message and "index 379" in verdict.message
    outcome = invariant.fix(tether)
    assert outcome.after.ok and tether.read_progress().cursor == 380
    [event] = _events(tether, "invariant-fix")
    assert (event["from_cursor"], event["to_cursor"]) == (381, 380)
    assert event["violation"] == "cursor-ahead"


def test_cursor_rolls_forward_when_an_artifact_was_written_but_progress_not_updated(tether):
    _artifacts(tether, 5)
    tether.set_progress(cursor=5)
    append_artifact(tether, task="sixth")
    verdict = invariant.check(tether)
    assert verdict.kind == invariant.CURSOR_BEHIND and verdict.expected_cursor == 6
    invariant.fix(tether)
    assert tether.read_progress().cursor == 6 and invariant.check(tether).ok


def test_progress_older_than_the_last_artifact_is_batching(tether):
    tether.set_progress(cursor=3)
    _artifacts(tether, 3, at="2099-01-01T00:00:00Z")
    verdict = invariant.check(tether)
    assert verdict.kind == invariant.BATCHING and verdict.artifact_time_source == "at"
    assert "batching" in verdict.message
    invariant.fix(tether)
    assert invariant.check(tether).kind == invariant.BATCHING  # an "at" in the future stays ahead


def test_batching_uses_the_file_time_when_artifacts_carry_no_time(tether):
    _artifacts(tether, 3)
    progress = tether.read_progress()
    progress.cursor = 3
    progress.updated_at = "2000-01-01T00:00:00Z"
    tether.write_progress(progress, touch=False)
    verdict = invariant.check(tether)
    assert verdict.kind == invariant.BATCHING and verdict.artifact_time_source == "mtime"
    invariant.fix(tether)  # stamps updated_at: the cursor already covers the artifacts
    assert invariant.check(tether).ok


def test_written_at_counts_as_the_artifact_time(tether):
    tether.set_progress(cursor=1)
    _artifacts(tether, 1, written_at="2000-01-01T00:00:00Z")
    verdict = invariant.check(tether)
    assert verdict.ok and verdict.artifact_time_source == "written_at"


def test_a_torn_last_artifact_line_is_ignored_and_reported(tether):
    _artifacts(tether, 4)
    with open(tether.artifacts, "a") as handle:
        handle.write('{"index": 4, "ta')
    tether.set_progress(cursor=4)
    verdict = invariant.check(tether)
    assert verdict.ok and verdict.last_index == 3
    assert any("torn" in warning for warning in verdict.warnings)


def test_an_artifact_without_index_is_reported_not_guessed(tether):
    tether.artifacts.write_text('{"index": 0}\n{"task": "no index"}\n')
    verdict = invariant.check(tether)
    assert verdict.kind == invariant.BAD_ARTIFACT and "artifacts.jsonl" in verdict.message
    assert not invariant.fix(tether).changed


def test_malformed_progress_is_kept_aside_and_rebuilt_from_artifacts(tether):
    _artifacts(tether, 7)
    tether.progress.write_text('{"cursor": 7,\n')
    verdict = invariant.check(tether)
    assert verdict.kind == invariant.BAD_PROGRESS and "progress.json:2" in verdict.message
    invariant.fix(tether)
    assert tether.read_progress().cursor == 7
    kept = [n for n in os.listdir(tether.root) if n.startswith("progress.json.bad-")]
    assert len(kept) == 1 and (tether.root / kept[0]).read_text() == '{"cursor": 7,\n'


def test_no_artifacts_and_cursor_zero_is_fine(tether):
    assert invariant.check(tether).ok


def test_result_round_trips_through_a_dict(tether):
    verdict = invariant.check(tether)
    assert invariant.InvariantResult.from_dict(verdict.to_dict()) == verdict
