"""`tether ledger`: the agent's own record, for it and for scripts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.ledger.conftest import claude_bash, claude_bash_failed, hook
from tests.tether_process import run_tether


def test_json_lists_actions_and_each_verification_with_its_currency(repo: Path) -> None:
    hook(repo, claude_bash_failed("pytest -q", "1 failed in 0.1s"))
    (repo / "calc.py").write_text("fixed\n")
    hook(repo, claude_bash("pytest -q", "2 passed in 0.1s"))
    out = run_tether("ledger", "--json", "--dir", str(repo))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [a["exit"] for a in data["actions"]] == [1, 0]
    [check] = data["verifications"]
    assert check["ok"] and check["current"] and check["result"] == "2 passed in 0.1s"
    (repo / "calc.py").write_text("changed again\n")
    again = json.loads(run_tether("ledger", "--json", "--verifications", "--dir", str(repo)).stdout)
    assert again["verifications"][0]["current"] is False and "actions" not in again


def test_since_keeps_only_later_actions(repo: Path) -> None:
    hook(repo, claude_bash("ls"))
    out = run_tether("ledger", "--json", "--since", "2999-01-01T00:00:00Z", "--dir", str(repo))
    assert json.loads(out.stdout)["actions"] == []
    bad = run_tether("ledger", "--since", "yesterday", "--dir", str(repo))
    assert bad.returncode != 0 and "--since 'yesterday'" in bad.stderr


def test_text_from_the_hooks_reaches_the_terminal_without_control_characters(repo: Path) -> None:
    hook(repo, claude_bash("echo \x1b]0;pwned\x07 \x1b[2J done"))
    out = run_tether("ledger", "--dir", str(repo))
    assert out.returncode == 0 and "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "echo ^[]0;pwned^G ^[[2J done" in out.stdout  # shown, visibly
    assert "\\u001b" in run_tether("ledger", "--json", "--dir", str(repo)).stdout


def test_an_agent_without_tool_hooks_has_an_empty_ledger_and_is_told_so(repo: Path) -> None:
    out = run_tether("ledger", "--dir", str(repo))
    assert out.returncode == 0 and "only agents with tool hooks" in out.stdout
