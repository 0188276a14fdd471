"""A file of `.tether/` with another name elsewhere (a hard link) is never written
through: appends are refused with a message that names the file and what to do, and
whole-file writes replace the name, leaving the other file as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from supervisor.errors import TetherError
from supervisor.store.tether_dir import TetherDir, init
from tests.tether_process import run_tether

SECRET = b"the other file's own bytes\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim"
    path.write_bytes(SECRET)
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    init(folder, goal="g")
    return folder


def link_over(victim: Path, name: Path) -> None:
    name.unlink()
    os.link(victim, name)


@pytest.mark.parametrize("name", ["events.jsonl", "artifacts.jsonl", "ledger.jsonl"])
def test_an_append_to_a_hard_linked_file_is_refused_by_name(
    work: Path, victim: Path, name: str
) -> None:
    tether = TetherDir.at(work)
    path = tether.root / name
    path.touch()
    link_over(victim, path)
    with pytest.raises(TetherError, match="hard-linked") as refused:
        from supervisor.store import fsio

        fsio.append_jsonl(path, {"kind": "x"})
    assert str(path) in str(refused.value)
    assert victim.read_bytes() == SECRET


def test_a_hook_with_a_hard_linked_events_file_exits_0_and_says_why(
    work: Path, victim: Path
) -> None:
    link_over(victim, work / ".tether" / "events.jsonl")
    done = run_tether("hook", "Stop", "--dir", str(work), stdin=b"{}")
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert b"hard-linked" in done.stderr
    assert victim.read_bytes() == SECRET


def test_a_whole_file_write_replaces_a_hard_linked_name(work: Path, victim: Path) -> None:
    notes = work / ".tether" / "notes.md"
    link_over(victim, notes)
    done = run_tether("note", "done", "the parser", "--dir", str(work))
    assert done.returncode == 0, done.stderr
    assert victim.read_bytes() == SECRET
    assert "the parser" in notes.read_text() and notes.stat().st_nlink == 1
