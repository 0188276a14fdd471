"""The recall check compares the agent's restatement with the pins the recovery sent."""

from __future__ import annotations

import subprocess
import sys

import pytest

from supervisor.errors import TetherError
from supervisor.rehydrate.recall_check import (
    RecallCheck,
    Recovery,
    acknowledge,
    compare,
    latest_recovery,
    resend_text,
)
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import REPO
from tests.store_records import read_jsonl

REDIS = (
    "refresh tokens in Redis, 15 minute TTL, rotate on use, "
    "because the mobile client cannot persist tokens"
)
POLL = "poll the queue every 30 s with at most 381 rows"


@pytest.fixture
def tether(tmp_path) -> TetherDir:
    init(tmp_path, goal="g")
    tether = TetherDir.at(tmp_path)
    tether.add_decisions([REDIS, POLL], "test")
    return tether


def recover(tether: TetherDir, restate="all", incident=3) -> dict:
    """An injection event as the injector writes it, with its checkpoint."""
    seq = checkpoints.take(tether, "before injection", incident=incident).seq
    return tether.record_event(
        "injection", "supervisor", reason="rehydrate", incident=incident,
        checkpoint=seq, restate=restate,
    )  # fmt: skip


def recall_events(tether: TetherDir) -> list[dict]:
    return [e for e in read_jsonl(tether.events)[0] if e["kind"] == "recall_check"]


def test_a_restatement_in_other_words_with_every_specific_is_complete() -> None:
    said = (
        "1. Refresh tokens are kept in Redis with a 15-minute TTL and rotated on each use, "
        "since mobile clients cannot persist them. 2. We poll the queue every 30 seconds, "
        "381 rows at most."
    )
    assert compare([REDIS, POLL], said) == ((1, 2), (), ())


def test_a_lost_value_or_reason_makes_the_decision_missing() -> None:
    said = "Refresh tokens live in Redis, 15 min TTL. The queue is polled every 30 s, 381 rows."
    restated, missing, changed = compare([REDIS, POLL], said)
    assert restated == (2,) and changed == ()
    assert missing == ((1, ("rotate on use", "the mobile client cannot persist tokens")),)


def test_a_restated_value_that_differs_is_changed_and_the_resend_reasserts_the_pin() -> None:
    said = "1. Refresh tokens in Redis with a 30-minute TTL, rotated on each use, since mobile "
    said += "clients cannot persist them. 2. Poll the queue every 30 s, 381 rows at most."
    restated, missing, changed = compare([REDIS, POLL], said)
    assert restated == (2,) and [n for n, _ in missing] == [1]
    assert changed == ((1, (("15 minute", "30-minute"),)),)
    check = RecallCheck(3, "t", 2, restated, missing, "partial", changed)
    assert check.describe().startswith("changed: 15 minute → 30-minute")
    text = resend_text([REDIS, POLL], check)
    assert f"1. {REDIS}" in text and 'you said "30-minute", the pin says "15 minute"' in text
    assert RecallCheck.from_event(check.to_event()) == check


def test_ack_records_one_check_per_recovery_with_exactly_the_issue_fields(tether) -> None:
    injection = recover(tether)
    check, new = acknowledge(tether, "Redis refresh tokens, 15 minute TTL. Poll every 30 s.")
    assert new and check.result == "partial"
    (event,) = recall_events(tether)
    assert set(event) - {"at", "kind", "source"} == {
        "incident", "injection_at", "pinned", "restated", "missing", "result",
    }  # fmt: skip
    assert event["incident"] == 3 and event["injection_at"] == injection["at"]
    assert event["pinned"] == 2 and event["restated"] == []
    assert event["missing"] == [
        {"decision": 1, "terms": ["rotate on use", "the mobile client cannot persist tokens"]},
        {"decision": 2, "terms": ["381"]},
    ]
    again, new = acknowledge(tether, REDIS + " " + POLL)
    assert not new and again.result == "partial"  # the recovery keeps its one check
    assert len(recall_events(tether)) == 1
    acks = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "ack"]
    assert len(acks) == 2 and {a["injection_at"] for a in acks} == {injection["at"]}


def test_the_pins_are_those_the_recovery_sent_not_those_added_later(tether) -> None:
    recover(tether)
    tether.add_decisions(["a decision pinned after the payload went out"], "test")
    check, _ = acknowledge(tether, REDIS + " / " + POLL)
    assert check.result == "complete" and check.pinned == 2


def test_a_resend_asks_only_for_the_missing_decisions(tether) -> None:
    recover(tether)
    check, _ = acknowledge(tether, POLL)
    assert [n for n, _ in check.missing] == [1]
    pins = [REDIS, POLL]
    text = resend_text(pins, check)
    assert REDIS in text and POLL not in text and "tether ack" in text
    resent = recover(tether, restate=[1])
    recovery, checked = latest_recovery(tether)
    assert recovery == Recovery.of(resent) and checked is None and recovery.restate == (1,)
    check, _ = acknowledge(tether, REDIS)
    assert check.result == "complete" and check.pinned == 1 and check.restated == (1,)


def test_the_initial_brief_is_no_recovery_and_ack_without_one_says_so(tether) -> None:
    tether.record_event("injection", "supervisor", reason="initial brief", incident=None)
    with pytest.raises(TetherError, match="no recovery payload was sent"):
        acknowledge(tether, "anything")


def test_describe_names_the_missing_terms() -> None:
    check = RecallCheck(2, "t", 4, (1, 3), ((2, ("15 minute", "TTL")), (4, ("mobile",))), "partial")
    assert check.describe() == "2 decisions not restated (15 minute, TTL; mobile)"
    complete = RecallCheck(2, "t", 4, (1, 2, 3, 4), (), "complete")
    assert complete.describe() == "recovered: 4 of 4 decisions restated"


def tether_cli(tether: TetherDir, *args: str, stdin: str | None = None):
    return subprocess.run(
        [sys.executable, "-m", "supervisor.cli", *args, "--dir", str(tether.work_dir)],
        input=stdin, capture_output=True, text=True, cwd=REPO, timeout=30, check=False,
    )  # fmt: skip


def test_tether_ack_reads_its_argument_or_stdin_and_says_the_result(tether) -> None:
    recover(tether)
    done = tether_cli(tether, "ack", "refresh tokens in Redis, 15 minute TTL")
    assert done.returncode == 1
    assert "recall check for incident #3: partial" in done.stdout
    assert (
        "decision 1: not restated: rotate on use, the mobile client cannot persist tokens"
        in done.stdout
    )
    recover(tether)
    done = tether_cli(tether, "ack", stdin=REDIS + "\n" + POLL + "\n")
    assert done.returncode == 0, done.stderr
    assert "complete: recovered: 2 of 2 decisions restated" in done.stdout
    assert [e["result"] for e in recall_events(tether)] == ["partial", "complete"]


def test_tether_ack_with_nothing_to_check_is_a_clear_message(tether) -> None:
    done = tether_cli(tether, "ack", "hello")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "no recovery payload was sent" in done.stderr
    done = tether_cli(tether, "ack", stdin="   \n")
    assert done.returncode == 2 and "the restatement is empty" in done.stderr


BOTH = (
    "Refresh tokens in Redis, 15 minute TTL, rotate on use, because the mobile client "
    "cannot persist tokens. Poll the queue every 30 s with at most 381 rows."
)


def test_a_recovery_replaced_before_any_ack_is_superseded_and_covered_by_the_newer(
    tether,
) -> None:
    first = recover(tether, incident=3)
    second = recover(tether, incident=4)  # a second loss, before the agent acked the first
    check, new = acknowledge(tether, BOTH)
    assert new and check.injection_at == second["at"] and check.result == "complete"
    superseded, covering = recall_events(tether)
    assert superseded["injection_at"] == first["at"] and superseded["incident"] == 3
    assert superseded["result"] == "superseded"
    assert superseded["superseded_by"] == second["at"] and superseded["covered"] == "complete"
    assert covering["injection_at"] == second["at"] and covering["restated"] == [1, 2]
    assert RecallCheck.from_event(superseded).describe().startswith("replaced by a newer")
    # a later ack finds both checked: one outcome per recovery, never two
    acknowledge(tether, BOTH)
    assert len(recall_events(tether)) == 2


def test_the_newer_recovery_checks_the_union_of_what_both_asked(tether) -> None:
    recover(tether, restate=[1], incident=3)  # a re-send of decision 1, never acked
    recover(tether, restate=[2], incident=3)
    check, _new = acknowledge(tether, "Poll the queue every 30 s with at most 381 rows.")
    assert check.pinned == 2 and check.restated == (2,) and check.result == "partial"
    assert [n for n, _terms in check.missing] == [1]


def test_a_recovery_checked_before_the_next_is_left_as_it_was(tether) -> None:
    recover(tether, incident=3)
    acknowledge(tether, BOTH)
    recover(tether, incident=4)
    acknowledge(tether, BOTH)
    assert [e["result"] for e in recall_events(tether)] == ["complete", "complete"]


def test_no_ack_for_the_newer_records_none_for_it_and_superseded_for_the_older(tether) -> None:
    from supervisor.rehydrate.recall_check import record_none

    first = recover(tether, incident=3)
    second = recover(tether, incident=4)
    record_none(tether, Recovery.of(second))
    superseded, none = recall_events(tether)
    assert superseded["injection_at"] == first["at"] and superseded["covered"] == "none"
    assert none["injection_at"] == second["at"] and none["result"] == "none"
