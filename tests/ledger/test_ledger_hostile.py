"""Tool hook input is the agent's word: absurd reports are bounded, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ledger.conftest import hook, ledger_lines
from tests.tether_process import run_tether


@pytest.mark.parametrize(
    "payload",
    [
        {"tool_name": "Bash", "tool_input": {"command": "x" * 900_000}},
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": [[[]]] * 10_000},
        {
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"exit_code": 1e308},
        },
        {"tool_name": "Write", "tool_input": {"file_path": "/" + "a/" * 400_000}},
        {"tool_name": "apply_patch", "tool_input": {"command": "*** Add File: x\n" * 50_000}},
        {"tool_name": "Bash", "tool_input": ["ls"], "error": {"not": "a string"}},
    ],
    ids=["huge-command", "nested-output", "float-exit", "deep-path", "many-files", "odd-types"],
)
def test_absurd_reports_are_recorded_bounded(repo: Path, payload: dict) -> None:
    hook(repo, {"hook_event_name": "PostToolUse", **payload})
    for line in ledger_lines(repo):
        assert len(json.dumps(line)) < 64 * 1024
        assert len(line.get("paths") or []) <= 50


def test_a_report_that_is_not_json_still_exits_0(repo: Path) -> None:
    out = run_tether("hook", "PostToolUse", "--dir", str(repo), stdin=b"\xff{not json")
    assert out.returncode == 0 and b"Traceback" not in out.stderr
    assert not (repo / ".tether" / "ledger.jsonl").exists()


def test_a_ledger_planted_as_a_link_costs_the_agent_nothing(repo: Path, tmp_path: Path) -> None:
    (repo / ".tether" / "ledger.jsonl").symlink_to(tmp_path / "elsewhere")
    stdin = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}}).encode()
    out = run_tether("hook", "PostToolUse", "--dir", str(repo), stdin=stdin)
    assert out.returncode == 0 and b"symbolic link" in out.stderr
    assert not (tmp_path / "elsewhere").exists()
