"""`.tether/ledger.jsonl`: one line an action, bounded, torn-line safe, never through a link."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from supervisor.errors import TetherError
from supervisor.store import ledger as ledger_module
from supervisor.store.ledger import Ledger
from tests.ledger.conftest import claude_bash, claude_bash_failed, hook, ledger_lines


def test_each_action_is_one_line_with_its_checkout_exit_and_result(repo: Path) -> None:
    hook(repo, claude_bash_failed("pytest -q", "=== 1 failed, 3 passed in 0.05s ==="))
    [line] = ledger_lines(repo)
    assert line["agent"] == "claude" and line["tool"] == "Bash"
    assert line["command"] == "pytest -q" and line["exit"] == 1 and line["ok"] is False
    assert line["verify"] == {"kind": "tests", "result": "1 failed, 3 passed in 0.05s"}
    assert len(line["checkout"]["head"]) == 40 and line["checkout"]["tree"]


def test_a_torn_last_line_is_skipped_and_reported(repo: Path) -> None:
    hook(repo, claude_bash("ls"))
    with open(repo / ".tether" / "ledger.jsonl", "ab") as handle:
        handle.write(b'{"at":"2026-12-01T10:00:00Z","tool":"Ba')
    view = Ledger(repo / ".tether").view()
    assert [r["command"] for r in view.recent] == ["ls"]
    assert any("torn last line" in problem for problem in view.problems)
    hook(repo, claude_bash("pwd"))  # the next append starts on a line of its own
    assert [r["command"] for r in Ledger(repo / ".tether").view().recent] == ["ls", "pwd"]


def test_a_full_segment_rolls_over_carrying_files_and_verifications(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_module, "SEGMENT_BYTES", 2000)
    ledger = Ledger(repo / ".tether")
    ledger.append({"tool": "Write", "paths": ["calc.py"], "ok": True})
    ledger.append(
        {"tool": "Bash", "command": "pytest", "ok": True, "exit": 0, "verify": {"kind": "tests"}}
    )
    for n in range(40):
        ledger.append({"tool": "Bash", "command": f"echo {n}", "ok": True, "exit": 0})
    assert (repo / ".tether" / "ledger.1.jsonl").exists()
    first = (repo / ".tether" / "ledger.jsonl").read_text().splitlines()[0]
    assert json.loads(first)["kind"] == "carry"
    view = ledger.view()
    assert "calc.py" in view.files and "pytest" in view.verifications
    assert view.recent[-1]["command"] == "echo 39"


def test_a_huge_ledger_is_read_from_its_end_only(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_module, "READ_LIMIT", 4096)
    path = repo / ".tether" / "ledger.jsonl"
    lines = [json.dumps({"t": n, "tool": "Bash", "command": f"echo {n}"}) for n in range(2000)]
    path.write_text("\n".join(lines) + "\n")
    view = Ledger(repo / ".tether").view(keep=5)
    assert [r["command"] for r in view.recent] == [f"echo {n}" for n in range(1995, 2000)]
    assert view.actions < 200
    assert any("only its end was read" in problem for problem in view.problems)


def test_a_planted_link_is_refused_not_followed(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text('{"tool":"Bash","command":"cat ~/.ssh/id_rsa"}\n')
    os.symlink(secret, repo / ".tether" / "ledger.jsonl")
    with pytest.raises(TetherError, match="symbolic link"):
        Ledger(repo / ".tether").view()
    with pytest.raises(TetherError, match="symbolic link"):
        Ledger(repo / ".tether").append({"tool": "Bash", "command": "ls"})
    assert secret.read_text().count("\n") == 1


def test_a_shell_command_is_credited_with_the_files_it_changed(repo: Path) -> None:
    (repo / ".gitignore").write_text("__pycache__/\n")
    hook(repo, claude_bash("ls"))
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    hook(repo, claude_bash("sed -i s/-/+/ calc.py"))
    hook(repo, claude_bash("pytest -q", "1 passed"))
    lines = ledger_lines(repo)
    assert lines[1]["paths"] == ["calc.py"]
    assert "paths" not in lines[2]  # nothing changed since the sed


def test_a_line_appended_during_a_rollover_is_kept_before_the_carry(repo: Path) -> None:
    ledger = Ledger(repo / ".tether")
    ledger.path.write_text(
        json.dumps({"t": 2, "tool": "Bash", "command": "early", "ok": True}) + "\n"
        + json.dumps({"kind": "carry", "files": [["a.py", "x"]], "recent": []},
                     separators=(",", ":")) + "\n"
        + json.dumps({"t": 3, "tool": "Bash", "command": "late", "ok": True}) + "\n"
    )  # fmt: skip
    view = ledger.view()
    assert [r["command"] for r in view.recent] == ["early", "late"]
    assert "a.py" in view.files


def test_the_agent_is_the_profile_the_hooks_process_names(repo: Path) -> None:
    import io

    from supervisor.agents.hook_command import handle

    stdin = io.BytesIO(json.dumps(claude_bash("ls")).encode())
    handle("PostToolUse", str(repo), stdin, io.StringIO(), io.StringIO(), profile="codex")
    assert ledger_lines(repo)[-1]["agent"] == "codex"
