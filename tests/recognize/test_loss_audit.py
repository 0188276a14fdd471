"""The loss audit finds the specifics a summary dropped from each pinned decision."""

from __future__ import annotations

import pytest

from supervisor.recognize.judge.verdict import Decision
from supervisor.recognize.loss_audit import audit_summary
from supervisor.recognize.observations import DecisionLoss
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import JsonlBuffer
from tests.replay import captures_dir


def key_terms(decision: str) -> list[str]:
    """The specifics of a decision as written, in order, as the audit judges them."""
    return list(Decision.of(decision).terms)


def audit_decision(decision: str, summary: str) -> DecisionLoss:
    """One decision against one summary, as the audit of a compaction judges it."""
    (loss,) = audit_summary([decision], summary).decisions
    return loss


REDIS = (
    "refresh tokens in Redis, 15 minute TTL, rotate on use, "
    "because the mobile client cannot persist tokens"
)
FULL = (
    "Auth: refresh tokens live in Redis with a 15-minute TTL and rotate on use, "
    "since the mobile client cannot persist tokens."
)
# each fold of the summary sheds one more specific
FOLDS = [
    (FULL, "kept", ()),
    (
        "Auth: refresh tokens live in Redis with a short TTL and rotate on use, "
        "since the mobile client cannot persist tokens.",
        "degraded",
        ("15 minute",),
    ),
    (
        "Auth: refresh tokens live in Redis with a short expiry and rotate on use, "
        "since the mobile client cannot persist tokens.",
        "degraded",
        ("15 minute",),
    ),
    (
        "Auth: refresh tokens live in a cache with a short expiry and rotate on use.",
        "degraded",  # its subject and mechanism are there: degraded, not lost
        ("Redis", "15 minute", "the mobile client cannot persist tokens"),
    ),
    ("Auth is handled with tokens.", "lost", None),
]


def test_key_terms_of_the_redis_decision() -> None:
    # typed specifics, then the words of the clauses that hold none (mechanism, reason);
    # "TTL" is a word of the trade, not a specific a summary could drop
    assert key_terms(REDIS) == [
        "Redis",
        "15 minute",
        "rotate on use",
        "the mobile client cannot persist tokens",
    ]


TEAM = (
    "Refresh tokens live in Redis with a 15-minute TTL and are rotated on every use, "
    "because the team's mobile client can't persist tokens."
)


def test_apostrophes_are_no_quotes() -> None:
    terms = key_terms(TEAM)
    assert not any(term.startswith("s client") for term in terms)
    assert "the team's mobile client can't persist tokens" in terms
    kept = (
        "Tokens: Redis, 15 min TTL, rotated on each use "
        "(the team's mobile client can't persist them)."
    )
    assert audit_decision(TEAM, kept).status == "kept"


def test_a_lost_mechanism_and_reason_are_missing_terms() -> None:
    loss = audit_decision(TEAM, "Refresh tokens live in Redis with a 15-minute TTL.")
    assert loss.missing == (
        "are rotated on every use",
        "the team's mobile client can't persist tokens",
    )
    assert loss.status == "degraded"


def test_a_reason_said_in_other_inflections_is_kept() -> None:
    summary = (
        "Redis keeps refresh tokens (15 minute TTL), rotating them; "
        "mobile clients cannot persist a token."
    )
    assert audit_decision(REDIS, summary).status == "kept"


@pytest.mark.parametrize(("summary", "status", "missing"), FOLDS)
def test_the_redis_decision_degrades_one_specific_at_a_time(summary, status, missing) -> None:
    loss = audit_decision(REDIS, summary)
    assert loss.status == status
    if missing is not None:
        assert loss.missing == missing


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        ("poll every 30s, at most 381 rows", ["30s", "381"]),
        ("cap the cache at 2 GB", ["2 GB"]),
        ("use src/app/main.py with --dry-run", ["src/app/main.py", "--dry-run"]),
        ("set batch_size in config.yaml", ["batch_size", "config.yaml"]),
        ("wrap it in OrderService", ["OrderService"]),
        ('the default mode is "fast"', ["fast"]),
        ("store jobs in PostgreSQL", ["PostgreSQL"]),
    ],
)
def test_key_terms_cover_numbers_identifiers_quotes_and_names(decision, expected) -> None:
    terms = key_terms(decision)
    for term in expected:
        assert term in terms


def test_respelled_units_still_count_as_kept() -> None:
    assert audit_decision("retry after 30 seconds", "retries wait 30s").status == "kept"
    assert audit_decision("a 15 minute TTL", "TTL of 15 min").status == "kept"
    # another value where the pinned one was is a change, not a loss
    assert audit_decision("a 15 minute TTL", "TTL of 15 hours").status == "changed"


def _real_summaries() -> list[str]:
    summaries = []
    for name, parser in (
        ("cc-compact-manual.transcript.jsonl", ClaudeTranscript()),
        ("cx-compact-auto.transcript.jsonl", CodexRollout()),
    ):
        data = (captures_dir() / name).read_bytes()
        for record in JsonlBuffer().feed(data):
            summaries += [o.summary for o in parser.feed(record) if o.summary]
    return summaries


def test_real_compaction_summaries_from_the_captures_lose_the_pinned_decisions() -> None:
    decisions = [REDIS, "no files were changed", "keep FAKE-REPLY numbering"]
    summaries = _real_summaries()
    assert len(summaries) == 3
    for summary in summaries:
        audit = audit_summary(decisions, summary)
        assert audit.decisions[0].status == "lost"
        assert audit.lost[0].decision == REDIS
        assert "missing from the summary" in audit.headline()
    claude = audit_summary(decisions, summaries[0])
    assert claude.decisions[1].status == "kept"  # "No files were changed" survives
    # "FAKE-COMPACT-SUMMARY" is not "FAKE-REPLY", and "numbering" is gone too
    assert claude.decisions[2].status == "lost"
    assert claude.decisions[2].missing == ("FAKE-REPLY",)
