"""Codex's PostToolUse has no exit code: the hook takes it from the rollout it names."""

from __future__ import annotations

import json
import os
from pathlib import Path

from supervisor.agents.codex_rollout import command_end
from tests.ledger.conftest import hook, ledger_lines

CALL = "call_fake_4969bfb3311e48e4"
# The item_completed line Codex 0.171.0 wrote for `echo hi; exit 3` (a real rollout's).
ITEM = {
    "timestamp": "2026-12-01T22:18:35.054Z",
    "ordinal": 11,
    "type": "event_msg",
    "payload": {
        "type": "item_completed",
        "item": {
            "type": "CommandExecution",
            "id": CALL,
            "command": ["/bin/bash", "-c", "echo hi; exit 3"],
            "status": "failed",
            "aggregated_output": "hi\n",
            "exit_code": 3,
            "duration": {"secs": 1, "nanos": 20396000},
        },
    },
}


def _hook_input(rollout: Path, cwd: Path) -> dict:
    return {
        "session_id": "01a233b0",
        "turn_id": "01a233b0-3149",
        "transcript_path": str(rollout),
        "cwd": str(cwd),
        "hook_event_name": "PostToolUse",
        "model": "fake-gpt",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": {"command": "echo hi; exit 3"},
        "tool_response": "hi\n",
        "tool_use_id": CALL,
    }


def test_the_exit_code_and_duration_come_from_the_rollout(repo: Path, tmp_path: Path) -> None:
    rollout = tmp_path / "sessions" / "rollout-1.jsonl"
    rollout.parent.mkdir()
    rollout.write_text(json.dumps({"type": "session_meta"}) + "\n" + json.dumps(ITEM) + "\n")
    hook(repo, _hook_input(rollout, repo))
    [line] = ledger_lines(repo)
    assert (line["exit"], line["ok"], line["duration_ms"]) == (3, False, 1020)


def test_a_rollout_path_that_is_a_link_or_missing_is_not_read(tmp_path: Path) -> None:
    target = tmp_path / "real.jsonl"
    target.write_text(json.dumps(ITEM) + "\n")
    link = tmp_path / "sessions" / "rollout-2.jsonl"
    link.parent.mkdir()
    os.symlink(target, link)
    assert command_end(_hook_input(link, tmp_path), wait=0) is None
    assert command_end(_hook_input(tmp_path / "gone.jsonl", tmp_path), wait=0) is None
