"""The ledger's second source: what the session file recorded and no hook reported."""

from __future__ import annotations

from pathlib import Path

from supervisor.agents.ledger_backfill import GRACE_S, LedgerBackfill
from supervisor.recognize.tool_reports import ToolReports
from tests.ledger.conftest import claude_bash, hook, ledger_lines

TOOL_USE = {
    "type": "assistant",
    "message": {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "make"}}
        ],
    },
}
TOOL_RESULT = {
    "type": "user",
    "message": {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_9",
                "content": "Exit code 2\nmake: *** [all] Error 2",
                "is_error": True,
            }
        ],
    },
}
CODEX_ITEM = {
    "type": "event_msg",
    "payload": {
        "type": "item_completed",
        "item": {
            "type": "CommandExecution",
            "id": "call_7",
            "command": ["/bin/bash", "-c", "pytest -q"],
            "aggregated_output": "1 failed, 2 passed in 0.1s\n",
            "exit_code": 1,
            "duration": {"secs": 0, "nanos": 250_000_000},
        },
    },
}


def test_a_claude_tool_result_becomes_the_report_its_hook_would_give() -> None:
    reports = ToolReports()
    assert reports.feed(TOOL_USE) == []
    [(event, payload)] = reports.feed(TOOL_RESULT)
    assert event == "PostToolUseFailure" and payload["tool_use_id"] == "toolu_9"
    assert payload["tool_input"] == {"command": "make"} and "Exit code 2" in payload["error"]


def test_a_call_no_hook_reported_is_recorded_after_its_grace(repo: Path) -> None:
    backfill = LedgerBackfill(repo)
    reports = ToolReports()
    backfill.add(reports.feed(TOOL_USE) + reports.feed(TOOL_RESULT), now=100.0)
    backfill.add(ToolReports().feed(CODEX_ITEM), now=100.0)
    assert backfill.run(now=100.0 + GRACE_S / 2) == 0  # the hook may still come
    assert backfill.run(now=100.0 + GRACE_S) == 2
    make, pytest_run = ledger_lines(repo)
    assert (make["command"], make["exit"], make["source"]) == ("make", 2, "transcript")
    assert (pytest_run["command"], pytest_run["exit"]) == ("pytest -q", 1)
    assert pytest_run["duration_ms"] == 250 and pytest_run["verify"]["kind"] == "tests"


def test_a_call_the_hook_recorded_is_not_recorded_twice(repo: Path) -> None:
    report = claude_bash("ls")
    hook(repo, {**report, "tool_use_id": "toolu_9"})
    backfill = LedgerBackfill(repo)
    reports = ToolReports()
    backfill.add(reports.feed(TOOL_USE) + reports.feed(TOOL_RESULT), now=0.0)
    assert backfill.run(now=GRACE_S) == 0
    assert len(ledger_lines(repo)) == 1
