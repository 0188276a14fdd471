"""The supervisor's guard of the cursor invariant: checked when a file changed, fixed from disk."""

from __future__ import annotations

import json
import os

from supervisor.store import invariant
from supervisor.store.invariant_guard import InvariantGuard
from tests.store_records import append_artifact, read_jsonl


def _artifacts(tether, count: int) -> None:
    lines = [json.dumps({"index": i}) + "\n" for i in range(count)]
    tether.artifacts.write_text("".join(lines))


def test_a_cursor_claiming_unwritten_work_is_rolled_back_once_and_said(tether):
    _artifacts(tether, 3)
    tether.set_progress(cursor=7)
    guard = InvariantGuard(tether)
    enforced = guard.enforce()
    assert enforced.result is not None and enforced.result.ok
    assert enforced.problem and "cursor fixed from disk" in enforced.problem
    assert tether.read_progress().cursor == 3
    assert not guard.changed()  # its own fix does not count as a change to look at again
    assert guard.enforce().result is None  # nothing changed: not even read
    fixes = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "invariant-fix"]
    assert [(f["from_cursor"], f["to_cursor"], f["source"]) for f in fixes] == [
        (7, 3, "supervisor")
    ]


def test_a_change_of_either_file_is_checked_again(tether):
    _artifacts(tether, 2)
    tether.set_progress(cursor=2)
    guard = InvariantGuard(tether)
    assert guard.enforce().result.ok
    append_artifact(tether, task="third")
    stamp = os.stat(tether.artifacts).st_mtime + 1
    os.utime(tether.artifacts, (stamp, stamp))  # a coarse clock must not hide the append
    assert guard.changed()
    enforced = guard.enforce()
    assert enforced.result is not None and enforced.result.ok  # rolled forward to 3
    assert tether.read_progress().cursor == 3 and "cursor fixed" in (enforced.problem or "")


def test_an_unreadable_progress_file_is_rebuilt_and_kept_aside(tether):
    _artifacts(tether, 4)
    tether.progress.write_text("{ not json")
    enforced = InvariantGuard(tether).enforce()
    assert enforced.result is not None and enforced.result.kind == invariant.OK
    assert tether.read_progress().cursor == 4
    assert list(tether.root.glob("progress.json.bad-*"))
