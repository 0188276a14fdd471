"""The ledger with the real Claude Code and Codex (issue 28): the fake model runs a failing
test, fixes the file, runs the test again and it passes, then `/compact`. The first model
request after the fold carries tether's Evidence: the file, both runs with their exit codes,
the passing one current; a later change of the file makes it not current, and the payload
says so. A command named in Rejected approaches raises the drift alarm.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.tether_driver import (
    TetherRun,
    Timer,
    request_text,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)
from tests.locations import REPO

pytestmark = pytest.mark.e2e

TETHER = REPO / ".venv" / "bin" / "tether"
TEST = "python3 -m unittest test_calc"
FIX = "printf 'def add(a, b):\\n    return a + b\\n' > calc.py"
# Claude's auto mode asks its server-side check (which the fake server is not) before a
# command: accept-edits mode runs what the rules allow, each command allowed by its prefix.
CLAUDE_ARGS = (
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    "Bash(python3 -m unittest:*)",
    "Bash(printf:*)",
    "Bash(git stash:*)",
)


def git_project(project: Path) -> None:
    """A repository whose test fails until calc.py exists and adds."""
    (project / "test_calc.py").write_text(
        "import unittest\n\nfrom calc import add\n\n\n"
        "class AddTest(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
    )
    (project / ".gitignore").write_text("__pycache__/\n.tether/\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "start"]):
        subprocess.run(
            ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
            cwd=project, check=True, capture_output=True,
        )  # fmt: skip


def ledger(project: Path) -> list[dict]:
    path = project / ".tether" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_ledger(run: TetherRun, count: int) -> list[dict]:
    return run.poll(
        lambda: ledger(run.project) if len(ledger(run.project)) >= count else None,
        30,
        f"{count} actions in the ledger",
    )


def run_command(run: TetherRun, command: str, actions: int, ready: str) -> dict:
    run.type_line(f"RUN:{command}", enter_delay=1.0)  # Codex takes a quick Enter as pasted
    run.wait_screen(r"TOOL-RESULT-SEEN", timeout=30)
    run.wait_screen(ready)
    return wait_ledger(run, actions)[-1]


def fail_fix_pass(run: TetherRun, ready: str) -> list[dict]:
    """The scripted turns: the failing test, the fix, the passing test."""
    first = run_command(run, TEST, 1, ready)
    assert first["exit"] != 0 and first["ok"] is False and first["verify"]["kind"] == "tests"
    fixed = run_command(run, FIX, 2, ready)
    assert fixed["paths"] == ["calc.py"], fixed
    second = run_command(run, TEST, 3, ready)
    assert second["exit"] == 0 and second["ok"] is True, second
    assert second["verify"]["result"] == "OK", second
    return ledger(run.project)


def evidence_of(text: str) -> str:
    start = text.index("## Evidence")
    return text[start : text.index("\n## ", start + 1)]


def assert_evidence(text: str) -> None:
    evidence = evidence_of(text)
    assert "File touched: calc.py" in evidence, evidence
    assert f"Ran `{TEST}` at" in evidence and ": exit 1." in evidence and ": exit 0." in evidence
    assert "CURRENT (ran on this checkout)" in evidence, evidence
    assert "outranks the conversation" in text


def assert_not_current_after_a_change(project: Path) -> None:
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    out = subprocess.run(
        [str(TETHER), "payload", "--dir", str(project)], capture_output=True, text=True, timeout=60
    )
    evidence = evidence_of(out.stdout)
    assert "NOT CURRENT" in evidence and "CURRENT (ran on this checkout)" not in evidence


def test_claude_evidence_survives_the_fold(make_claude_env, fake_server, tether_run):
    with Timer("ledger: Claude fail, fix, pass, /compact"):
        setup = make_claude_env()
        git_project(setup.project)
        run = tether_run(setup, fake_server, "claude", *CLAUDE_ARGS, ready=CM["ready"])
        fail_fix_pass(run, CM["ready"])
        run.type_line("/compact", enter_delay=1.0)
        run.wait_screen(CM["compacted"], timeout=30)
        run.wait_incident("compaction")
        after = run.last_seq()
        run.type_line("hello after the fold")
        request = run.wait_request(
            lambda e: "hello after the fold" in request_text(e), after=after, what="the next turn"
        )
        assert_evidence(request_text(request))
        assert_not_current_after_a_change(run.project)
        assert not [line for line in ledger(run.project) if line.get("source")]  # hooks first


def test_codex_evidence_survives_the_fold(make_codex_env, fake_server, tether_run):
    with Timer("ledger: Codex fail, fix, pass, /compact"):
        setup = make_codex_env()
        git_project(setup.project)
        run = tether_run(setup, fake_server, "codex", ready=XM["ready"])
        fail_fix_pass(run, XM["ready"])
        run.type_line("/compact", enter_delay=1.0)
        run.wait_screen(XM["compacted"], timeout=30)
        run.wait_incident("compaction")
        run.wait_screen(XM["ready"])
        after = run.last_seq()
        run.type_line("hello after the fold")
        request = run.wait_request(
            lambda e: "hello after the fold" in request_text(e), after=after, what="the next turn"
        )
        assert_evidence(request_text(request))
        assert_not_current_after_a_change(run.project)
        assert not [line for line in ledger(run.project) if line.get("source")]  # hooks first


def test_claude_retrying_a_rejected_approach_raises_the_alarm(
    make_claude_env, fake_server, tether_run
):
    with Timer("ledger: Claude rejected approach retried"):
        setup = make_claude_env()
        git_project(setup.project)
        run = tether_run(setup, fake_server, "claude", *CLAUDE_ARGS, ready=CM["ready"])
        subprocess.run(
            [str(TETHER), "note", "rejected", "`git stash` loses the fixtures; never again",
             "--dir", str(run.project)],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip
        action = run_command(run, "git stash list", 1, CM["ready"])
        alarm = run.wait_event("drift_alarm")
        assert alarm["alarm"] == "rejected_retried" and alarm["term"] == "git stash"
        assert alarm["at"] >= action["at"]
        run.wait_tether_screen(r"Rejected approach retried")


def test_codex_third_failure_in_a_row_raises_the_alarm(make_codex_env, fake_server, tether_run):
    with Timer("ledger: Codex same command fails three times"):
        setup = make_codex_env()
        git_project(setup.project)
        run = tether_run(setup, fake_server, "codex", ready=XM["ready"])
        for count in (1, 2, 3):
            action = run_command(run, TEST, count, XM["ready"])
            assert action["exit"] == 1, action
        alarm = run.wait_event("drift_alarm")
        assert alarm["alarm"] == "repeated_failure" and alarm["command"] == TEST
        run.wait_tether_screen(r"failed 3 times in a row")
