"""The loss audit: which pinned decisions a compaction summary kept, degraded, lost or
changed, and what the fold dropped that nobody pinned.

A summary of a summary keeps the shape of a decision and sheds, or rewrites, its
specifics ("tokens in Redis with a short TTL" for "refresh tokens in Redis, 15
minute TTL"; "30 minutes" for "15 minutes"; "may use --no-verify" for "must never
use --no-verify"). The judgement is the judge's (:mod:`supervisor.recognize.judge`),
the same one the recall check and `tether audit` use: it compares facts, not
words. This module turns its verdicts into the incident's ``LossAudit``.
"""

from __future__ import annotations

from collections.abc import Sequence

from supervisor.recognize.observations import DecisionLoss, Dropped, LossAudit

DROPPED_LIMIT = 20


def _loss(verdict: object) -> DecisionLoss:
    from supervisor.recognize.judge.verdict import Verdict

    assert isinstance(verdict, Verdict)
    return DecisionLoss(
        decision=verdict.decision,
        terms=verdict.terms,
        missing=verdict.missing,
        status=verdict.status,
        changed=tuple((c.pinned, c.now) for c in verdict.changed),
    )


def audit_summary(decisions: Sequence[str], summary: str) -> LossAudit:
    """Audit every pinned decision against one compaction summary."""
    from supervisor.recognize.judge.verdict import judge_all

    return LossAudit(tuple(_loss(v) for v in judge_all(list(decisions), summary)))


def dropped_specifics(
    folded: Sequence[str],
    summary: str,
    pinned: Sequence[str] = (),
    *,
    limit: int = DROPPED_LIMIT,
) -> list[Dropped]:
    """The specifics said in the folded window that the summary dropped and no pin holds,
    each once, with the sentence it was said in."""
    from supervisor.recognize.judge.dropped import dropped_not_pinned

    return [
        Dropped(d.term, d.said) for d in dropped_not_pinned(folded, summary, pinned, limit=limit)
    ]
