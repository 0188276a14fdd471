"""Codex's SessionStart(compact|clear) fires as the next turn starts: when that turn's prompt
is F6's paste of the payload, the hook answers with a pointer, never a second copy."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from supervisor.agents import turn_recovery
from supervisor.agents.session_start_answer import session_start_answer
from supervisor.config.profiles import load_profile
from supervisor.store.tether_dir import TetherDir, init
from supervisor.times import iso
from tests.store_records import read_jsonl

DECISION = "Retry budget is 250 ms per call; use `retry_budget_ms`"
PREAMBLE_HEAD = "Context check from tether"


@pytest.fixture
def tether(tmp_path, monkeypatch) -> TetherDir:
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "cfg"))  # bundled profiles only
    work = tmp_path / "work"
    work.mkdir()
    tether = init(work, goal="count to 400").tether
    tether.add_note("decision", DECISION)
    tether.record_incident("compaction", "screen", trigger="manual", sources=["screen"])
    return tether


def pasted(tether: TetherDir, *, restate="all", reason="rehydrate", at: float | None = None):
    """The injection event the injector records as F6's paste goes in (its own fields)."""
    fields = {"reason": reason, "incident": 1, "tokens": 400, "restate": restate}
    if at is not None:
        fields["at"] = iso(at)
    return tether.record_event("injection", "supervisor", **fields)


def hook_call(tether: TetherDir, event: str, **payload) -> None:
    tether.record_event("hook", "hook", event=event, payload={"hook_event_name": event, **payload})


def answer(tether: TetherDir, source: str = "compact", profile: str = "codex") -> str:
    """What `tether hook SessionStart` prints, recorded first as the hook command does."""
    hook_call(tether, "SessionStart", source=source)
    out = session_start_answer(
        Path(tether.work_dir), {"source": source, "session_id": "s1"}, profile_name=profile
    )
    assert out is not None
    return json.loads(out)["hookSpecificOutput"]["additionalContext"]


def kinds(tether: TetherDir) -> list[str]:
    return [event["kind"] for event in read_jsonl(tether.events)[0]]


def test_a_turn_started_by_f6s_paste_gets_a_pointer_not_the_payload_again(tether):
    injection = pasted(tether)
    context = answer(tether)
    assert PREAMBLE_HEAD not in context and DECISION not in context
    assert context == (
        "tether already sent the recovery for compaction #1 as this turn's prompt "
        "(rehydrate): follow that prompt; it is not repeated here."
    )
    assert "auto_rehydrate" not in kinds(tether)  # F6's injection stays the one recovery
    (skipped,) = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "auto_rehydrate_skipped"]
    assert skipped["incident"] == 1 and skipped["injection_at"] == injection["at"]
    assert skipped["hook_source"] == "compact" and skipped["injection_reason"] == "rehydrate"


def test_an_edited_payload_from_f7_counts_as_the_recovery_too(tether):
    pasted(tether, reason="rehydrate (edited)")
    assert "(rehydrate (edited))" in answer(tether)


def test_the_users_own_prompt_after_an_earlier_paste_gets_the_payload(tether):
    """F6 went in, its turn ran (UserPromptSubmit, Stop): a later turn is the user's."""
    pasted(tether)
    hook_call(tether, "UserPromptSubmit", prompt="carry on")
    assert answer(tether).startswith(load_profile("codex").preamble)
    assert "auto_rehydrate" in kinds(tether)


def test_a_resend_of_missing_decisions_is_no_whole_payload(tether):
    pasted(tether, restate=[2], reason="resend-missing")
    context = answer(tether)
    assert context.startswith(load_profile("codex").preamble) and DECISION in context


def test_a_wipe_after_f6_is_answered_with_a_pointer_to_the_paste_as_well(tether):
    pasted(tether)
    context = answer(tether, source="clear")
    assert context.startswith("tether already sent the recovery for context wipe #2")


def test_an_injection_older_than_a_turn_is_not_this_turns_prompt(tether):
    now = time.time()
    pasted(tether, at=now - turn_recovery.TURN_WINDOW - 5)
    assert turn_recovery.recovery_starting_this_turn(tether, now) is None
    pasted(tether, at=now - 1)
    assert turn_recovery.recovery_starting_this_turn(tether, now) is not None


def test_an_incident_answered_by_a_pointer_is_not_answered_again(tether):
    """The next compaction's SessionStart must not take the incident F6 recovered."""
    pasted(tether)
    answer(tether)
    hook_call(tether, "UserPromptSubmit", prompt="go on")
    hook_call(tether, "Stop")
    context = answer(tether)
    assert DECISION in context
    (auto,) = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "auto_rehydrate"]
    assert auto["incident"] == 2
