"""The payload carries the ledger's evidence after the pins, and marks unbacked claims."""

from __future__ import annotations

from pathlib import Path

from supervisor.config.profiles import load_profile
from supervisor.rehydrate.payload import build_payload
from supervisor.rehydrate.tokens import count_tokens
from supervisor.store.tether_dir import TetherDir
from tests.ledger.conftest import claude_bash, claude_bash_failed, claude_write, hook


def _fix_and_pass(repo: Path) -> None:
    hook(repo, claude_bash_failed("pytest -q test_calc.py", "==== 1 failed in 0.02s ===="))
    hook(repo, claude_write(repo / "calc.py", "def add(a, b):\n    return a + b\n"))
    hook(repo, claude_bash("pytest -q test_calc.py", "..\n==== 2 passed in 0.01s ====\n"))


def _evidence(text: str) -> str:
    start = text.index("## Evidence")
    return text[start : text.index("\n## ", start + 1)]


def test_the_payload_has_the_file_both_runs_and_the_passing_one_current(repo: Path) -> None:
    tether = TetherDir.at(repo)
    tether.add_note("decision", "add() returns a + b")
    _fix_and_pass(repo)
    text = build_payload(tether, load_profile("claude")).text
    assert text.index("## Pinned decisions") < text.index("## Evidence")
    assert "outranks the conversation" in text.split("# Checkpoint summary")[0]
    evidence = _evidence(text)
    assert "File touched: calc.py" in evidence
    assert "Ran `pytest -q test_calc.py` at" in evidence and ": exit 1." in evidence
    assert ": exit 0." in evidence
    assert '"2 passed in 0.01s"' in evidence and "CURRENT (ran on this checkout)" in evidence


def test_a_file_change_makes_the_verification_not_current(repo: Path) -> None:
    _fix_and_pass(repo)
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b  # tweak\n")
    evidence = _evidence(build_payload(TetherDir.at(repo), load_profile("claude")).text)
    assert "NOT CURRENT" in evidence and "CURRENT (ran on this checkout)" not in evidence


def test_a_done_claim_written_while_the_last_run_failed_is_unverified(repo: Path) -> None:
    tether = TetherDir.at(repo)
    hook(repo, claude_bash("pytest -q", "3 passed in 0.1s"))
    (repo / "calc.py").write_text("changed\n")
    hook(repo, claude_bash_failed("pytest -q", "1 failed, 2 passed in 0.1s"))
    tether.add_note("done", "all tests pass")
    tether.add_note("done", "renamed the module")
    text = build_payload(tether, load_profile("claude")).text
    assert "- all tests pass [UNVERIFIED: no current passing tests run" in text
    assert "- renamed the module\n" in text


def test_a_backed_claim_is_not_marked(repo: Path) -> None:
    tether = TetherDir.at(repo)
    _fix_and_pass(repo)
    tether.add_note("done", "all tests pass")
    assert "UNVERIFIED" not in build_payload(tether, load_profile("claude")).text


def test_without_a_ledger_there_is_no_evidence_section_and_no_mark(repo: Path) -> None:
    tether = TetherDir.at(repo)
    tether.add_note("done", "all tests pass")
    text = build_payload(tether, load_profile("claude")).text
    assert "## Evidence" not in text and "UNVERIFIED" not in text


def test_the_evidence_fits_the_budget_and_points_to_tether_ledger(repo: Path) -> None:
    tether = TetherDir.at(repo)
    for n in range(60):
        hook(repo, claude_bash(f"echo step {n} " + "x" * 80))
    whole = build_payload(tether, load_profile("claude"), budget=0)
    tight = build_payload(tether, load_profile("claude"), budget=whole.tokens - 80)
    assert tight.tokens <= whole.tokens - 80 and not tight.over_budget
    assert count_tokens(tight.text).n == tight.tokens
    assert "Evidence lines: run `tether ledger`" in tight.text
    assert "Checkout now:" in tight.text  # the most important line is kept


def test_a_summary_claiming_a_pass_the_ledger_does_not_back_is_called_unverified(
    repo: Path,
) -> None:
    tether = TetherDir.at(repo)
    hook(repo, claude_bash_failed("pytest -q", "1 failed, 2 passed in 0.1s"))
    tether.add_note("phase", "rehydrated: parser done, all tests pass")
    incident = {"kind": "incident", "number": 1, "type": "compaction",
                "summary": "The user fixed add(); the test suite is green."}  # fmt: skip
    text = build_payload(tether, load_profile("claude"), incident=incident).text
    evidence = _evidence(text)
    assert 'The phase (your summary) says "rehydrated: parser done, all tests pass": ' in evidence
    assert 'The compaction summary says "The user fixed add(); the test suite' in evidence
    assert evidence.count("UNVERIFIED, no current passing tests run") == 2


def test_a_compactions_answer_reads_gits_configuration_and_the_checkout_once(
    repo: Path, monkeypatch
) -> None:
    """The answer's checkpoint and its Evidence section (built again for a smaller budget
    when too long) see one moment of the checkout: git's driver names are read once and
    the fingerprint's status once, not per build (three git calls, not four or more)."""
    import io
    import json
    import subprocess

    from supervisor.agents.hook_command import handle

    _fix_and_pass(repo)
    tether = TetherDir.at(repo)
    tether.record_incident("compaction", "hook", trigger="auto", sources=["hook"])
    started: list[str] = []
    real = subprocess.Popen.__init__

    def counting(self, args, *rest, **kwargs):  # type: ignore[no-untyped-def]
        started.append(next(a for a in args if a in ("config", "status", "ls-files")))
        real(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    compact = {"hook_event_name": "SessionStart", "source": "compact", "session_id": "s"}
    out = io.StringIO()
    handle("SessionStart", str(repo), io.BytesIO(json.dumps(compact).encode()), out, io.StringIO())
    context = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    assert "CURRENT (ran on this checkout)" in _evidence(context)
    assert sorted(started) == ["config", "status", "status"]
