"""Which `.tether/` files git tracks: asked once, started early, read when needed."""

from __future__ import annotations

import subprocess

from supervisor.store import trust
from supervisor.store.tether_dir import TetherDir, init


def _git(work, *args):
    subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True)


def test_the_answer_names_the_committed_files_and_is_read_once(tmp_path, monkeypatch):
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "config"))  # nothing trusted
    init(tmp_path)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".tether/notes.md")
    asked = trust.TrackedFiles(TetherDir.at(tmp_path))  # git runs meanwhile
    (tmp_path / "unrelated").write_text("work goes on")
    assert asked.names() == [".tether/notes.md"]
    assert asked.names() == [".tether/notes.md"]  # the same answer, git not asked again
    assert "tracked by git (.tether/notes.md)" in trust.warning(TetherDir.at(tmp_path), asked)


def test_no_repository_and_no_git_mean_nothing_tracked(tmp_path, monkeypatch):
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "config"))
    init(tmp_path)
    assert trust.TrackedFiles(TetherDir.at(tmp_path)).names() == []  # not a repository
    _git(tmp_path, "init", "-q")
    assert trust.warning(TetherDir.at(tmp_path)) is None  # a repository, .tether/ untracked
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert trust.TrackedFiles(TetherDir.at(tmp_path)).names() == []  # no git at all
