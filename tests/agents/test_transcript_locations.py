"""Where the agents keep their session files, in the agent's own environment."""

from __future__ import annotations

import os
import time
from pathlib import Path

from supervisor.agents.transcript_locations import (
    CLAUDE_TRANSCRIPT,
    CODEX_ROLLOUT,
    claude_config_dir,
    claude_project_dir,
    claude_session_of_pid,
    claude_transcript_path,
    codex_home,
    find_transcript,
    newest_jsonl,
)


def test_claude_paths_follow_its_naming(tmp_path: Path) -> None:
    folder = claude_project_dir(Path("/home/dev/my proj"), tmp_path)
    assert folder == tmp_path / "projects" / "-home-dev-my-proj"
    assert claude_transcript_path(Path("/w"), "abc", tmp_path).name == "abc.jsonl"
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "42.json").write_text('{"sessionId": "s-1", "pid": 42}')
    assert claude_session_of_pid(42, tmp_path) == "s-1"
    assert claude_session_of_pid(43, tmp_path) is None
    folder.mkdir(parents=True)
    old, new = folder / "old.jsonl", folder / "new.jsonl"
    old.write_text("{}\n")
    new.write_text("{}\n")
    os.utime(old, (1, 1))
    assert newest_jsonl(folder) == new


def test_agent_folders_follow_the_agents_environment_not_tethers(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path)}
    assert claude_config_dir(home) == tmp_path / ".claude"
    assert codex_home(home) == tmp_path / ".codex"
    moved = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x"}
    assert (claude_config_dir(moved), codex_home(moved)) == (Path("/c"), Path("/x"))


def test_find_transcript_reads_claudes_pid_file_and_codexs_rollouts_of_today(tmp_path):
    env = {"HOME": str(tmp_path)}
    sessions = tmp_path / ".claude" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "7.json").write_text('{"sessionId": "abc"}')
    found = find_transcript({CLAUDE_TRANSCRIPT}, env, 7, Path("/w"), since=0, now=time.time())
    assert found == claude_project_dir(Path("/w"), tmp_path / ".claude") / "abc.jsonl"
    assert find_transcript({CLAUDE_TRANSCRIPT}, env, 8, Path("/w"), since=0, now=0) is None

    now = time.time()
    day = tmp_path / ".codex" / "sessions" / time.strftime("%Y/%m/%d", time.localtime(now))
    day.mkdir(parents=True)
    rollout = day / "rollout-1.jsonl"
    rollout.write_text("{}\n")
    os.utime(rollout, (now, now))
    assert find_transcript({CODEX_ROLLOUT}, env, 9, Path("/w"), since=now - 60, now=now) == rollout
    assert find_transcript({CODEX_ROLLOUT}, env, 9, Path("/w"), since=now + 60, now=now) is None
    assert find_transcript(set(), env, 9, Path("/w"), since=0, now=now) is None
