"""Checkpoints: snapshots, listing by name, readable diffs, undoable restores."""

from __future__ import annotations

import json
import subprocess

import pytest

from supervisor.errors import TetherError
from supervisor.store import checkpoints
from supervisor.store.tether_dir import init
from tests.conftest import GOAL


def test_a_checkpoint_holds_task_notes_progress_and_the_verdict(tether):
    tether.add_note("decision", "use port 8443")
    taken = checkpoints.take(tether, "before payload", incident=3)
    assert tether.checkpoints.joinpath("000001.json").is_file()
    loaded = checkpoints.load(tether, 1)
    assert loaded.seq == 1 and loaded.reason == "before payload" and loaded.incident == 3
    assert "use port 8443" in loaded.notes and GOAL in loaded.task
    assert loaded.progress["cursor"] == 0 and loaded.invariant["ok"] is True
    assert loaded.to_dict() == taken.to_dict()


def test_listing_reads_names_and_ignores_other_files(tether):
    for _ in range(3):
        checkpoints.take(tether, with_git=False)
    (tether.checkpoints / ".000004.json.abc.tmp").write_text("{")
    (tether.checkpoints / "README").write_text("x")
    assert checkpoints.list_seqs(tether) == [1, 2, 3]
    assert checkpoints.latest_seq(tether) == 3


def test_git_head_and_dirty_flag_are_recorded_in_a_work_tree(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    tether = init(tmp_path).tether  # .tether/ itself does not make the tree dirty
    clean = checkpoints.take(tether)
    assert clean.git is not None and len(clean.git["head"]) == 40 and clean.git["dirty"] is False
    (tmp_path / "new.py").write_text("x = 1\n")
    assert checkpoints.take(tether).git["dirty"] is True


def test_no_git_is_fine(tether):
    assert checkpoints.take(tether).git is None  # tmp_path is not a work tree


def test_diff_is_section_by_section(tether):
    checkpoints.take(tether, "one", with_git=False)
    tether.add_note("decision", "use sqlite")
    tether.add_note("phase", "storage")
    tether.set_progress(cursor=4)
    checkpoints.take(tether, "two", with_git=False)
    text = checkpoints.diff(checkpoints.load(tether, 1), checkpoints.load(tether, 2))
    assert "notes.md § Decisions:" in text and "use sqlite" in text
    assert "notes.md § Phase:" in text and "+storage" in text
    assert "progress.cursor: 0 -> 4" in text
    assert "§ Done" not in text and "task.md" not in text


def test_restore_checkpoints_the_current_state_first_so_it_can_be_undone(tether):
    checkpoints.take(tether, "good", with_git=False)
    tether.add_note("done", "later work")
    later_notes = tether.read_notes()
    safety, restored = checkpoints.restore(tether, 1)
    assert restored.seq == 1 and "later work" not in tether.read_notes()
    assert checkpoints.load(tether, safety.seq).notes == later_notes
    checkpoints.restore(tether, safety.seq)
    assert tether.read_notes() == later_notes


def test_changed_since_last_checkpoint(tether):
    assert checkpoints.changed_since_last(tether)
    checkpoints.take(tether, with_git=False)
    assert not checkpoints.changed_since_last(tether)
    tether.add_note("unproven", "the cache helps")
    assert checkpoints.changed_since_last(tether)


def test_a_damaged_checkpoint_is_named(tether):
    (tether.checkpoints / "000007.json").write_text('{"seq": 7,')
    with pytest.raises(TetherError, match=r"000007\.json.*damaged"):
        checkpoints.load(tether, 7)
    with pytest.raises(TetherError, match="no checkpoint 8"):
        checkpoints.load(tether, 8)
    json.loads(json.dumps(checkpoints.live(tether).to_dict()))
