"""Drift alarms, raised by the very hook that reports the action."""

from __future__ import annotations

import json
from pathlib import Path

from supervisor.recognize.drift import rejected_terms
from supervisor.store.tether_dir import TetherDir
from tests.ledger.conftest import (
    claude_bash,
    claude_bash_failed,
    claude_write,
    events_of,
    hook,
)


def test_a_command_named_in_rejected_approaches_raises_the_alarm(repo: Path) -> None:
    TetherDir.at(repo).add_note(
        "rejected", "`pip install ujson`: segfaults on 3.13, keep the stdlib json"
    )
    hook(repo, claude_bash("pip install ujson"))
    [alarm] = events_of(repo, "drift_alarm")
    assert alarm["alarm"] == "rejected_retried" and alarm["term"] == "pip install ujson"
    assert "Rejected approach retried" in alarm["message"]


def test_a_path_or_flag_named_in_a_rejected_approach_raises_it_too(repo: Path) -> None:
    TetherDir.at(repo).add_note("rejected", "rewriting legacy/parser.py with --force-regen")
    (repo / "legacy").mkdir()
    hook(repo, claude_write(repo / "legacy" / "parser.py", "x"))
    hook(repo, claude_bash("make gen --force-regen"))
    alarms = events_of(repo, "drift_alarm")
    assert [a["term"] for a in alarms] == ["legacy/parser.py", "--force-regen"]


def test_unrelated_commands_raise_nothing(repo: Path) -> None:
    TetherDir.at(repo).add_note("rejected", "`pip install ujson`: segfaults")
    hook(repo, claude_bash("pip install orjson"))
    hook(repo, claude_bash("pytest -q"))
    assert events_of(repo, "drift_alarm") == []


def test_the_third_failure_in_a_row_of_one_command_raises_the_alarm_once(repo: Path) -> None:
    for _ in range(2):
        hook(repo, claude_bash_failed("npm run build", "error TS2304"))
    assert events_of(repo, "drift_alarm") == []
    hook(repo, claude_bash("ls"))  # another command in between does not break the row
    hook(repo, claude_bash_failed("npm run build", "error TS2304"))
    [alarm] = events_of(repo, "drift_alarm")
    assert alarm["alarm"] == "repeated_failure" and alarm["command"] == "npm run build"
    hook(repo, claude_bash_failed("npm run build", "error TS2304"))
    assert len(events_of(repo, "drift_alarm")) == 1


def test_a_success_breaks_the_row(repo: Path) -> None:
    hook(repo, claude_bash_failed("./deploy.sh", "err"))
    hook(repo, claude_bash_failed("./deploy.sh", "err"))
    hook(repo, claude_bash("./deploy.sh"))
    hook(repo, claude_bash_failed("./deploy.sh", "err"))
    assert events_of(repo, "drift_alarm") == []


def test_a_verification_that_passed_on_this_checkout_and_now_fails_raises_it(
    repo: Path,
) -> None:
    hook(repo, claude_bash("pytest -q", "3 passed in 0.1s"))
    hook(repo, claude_bash_failed("pytest -q", "1 failed, 2 passed in 0.1s"))
    [alarm] = events_of(repo, "drift_alarm")
    assert alarm["alarm"] == "verification_regressed"


def test_a_verification_failing_after_a_change_is_no_regression_alarm(repo: Path) -> None:
    hook(repo, claude_bash("pytest -q", "3 passed in 0.1s"))
    (repo / "calc.py").write_text("broken\n")
    hook(repo, claude_bash_failed("pytest -q", "1 failed, 2 passed in 0.1s"))
    assert events_of(repo, "drift_alarm") == []


def test_rejected_terms_are_exact_terms_not_words() -> None:
    terms = rejected_terms(
        ["Tried `poetry lock --no-update` and src/db/models.py; npm install left-pad"]
    )
    assert {(t.kind, t.text) for t in terms} >= {
        ("command", "poetry lock --no-update"),
        ("path", "src/db/models.py"),
        ("package", "left-pad"),
    }
    assert not any(t.text in ("Tried", "and") for t in terms)


def test_an_alarm_takes_the_banner_but_never_over_an_incident() -> None:
    from supervisor.config.keymap import Keymap
    from supervisor.recognize.observations import Incident
    from supervisor.run.attention_model import AttentionModel

    told = AttentionModel(
        keymap=Keymap(),
        profile_name="claude",
        at_next_prompt=False,
        orphan=lambda: None,
        compact_told=True,
    )
    told.drift_alarm("Rejected approach retried: `pip install ujson`")
    assert told.state.notice is not None and told.state.notice.source == "drift"
    assert "pip install ujson" in told.state.banner_line()
    told.incident(Incident(1, "compaction", "auto", ["hook"], 0.0), compactions=1)
    told.drift_alarm("The same command failed 3 times in a row: `make`")
    assert told.state.notice is not None and told.state.notice.source == "incident"


def test_the_events_tab_words_an_alarm_as_a_warning() -> None:
    from widgets.side_pane.event_words import describe

    row = describe(
        {"at": "2026-12-01T22:00:01Z", "kind": "drift_alarm", "alarm": "repeated_failure",
         "message": "The same command failed 3 times in a row: `make` (exit 2)"}
    )  # fmt: skip
    assert row.tone == "warning" and row.what.startswith("⚠ drift: The same command failed 3")


def test_the_row_of_failures_is_counted_across_a_rollover(repo: Path, monkeypatch) -> None:
    from supervisor.store import ledger as ledger_module

    hook(repo, claude_bash_failed("npm run build", "error TS2304"))
    monkeypatch.setattr(ledger_module, "SEGMENT_BYTES", 1)  # every append rolls over now
    hook(repo, claude_bash_failed("npm run build", "error TS2304"))
    hook(repo, claude_bash_failed("npm run build", "error TS2304"))
    segment = (repo / ".tether" / "ledger.jsonl").read_text().splitlines()
    assert json.loads(segment[0])["kind"] == "carry" and len(segment) == 2  # 1st in the carry
    [alarm] = events_of(repo, "drift_alarm")
    assert alarm["alarm"] == "repeated_failure"
