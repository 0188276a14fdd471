"""Precision and recall of the loss audit on the labelled set in tests/fixtures/audit/.

A reported missing term is right when it names a specific the label says was
dropped (they share a word, compared by its first five letters); a dropped
specific is found when some reported term names it. Run as a script to print
the figures: ``python -m tests.recognize.audit_scoring``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.locations import FIXTURES

LABELLED = FIXTURES / "audit" / "labelled.json"
DROPPED = FIXTURES / "audit" / "dropped.json"


def cases(path=LABELLED) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    keep = {w[:5] for w in words if len(w) >= 3 or any(c.isdigit() for c in w)}
    return keep - {"the", "not", "and"}


@dataclass
class Score:
    reported: int = 0
    right: int = 0
    dropped: int = 0
    found: int = 0
    false_alarms: list[tuple[str, str]] | None = None
    misses: list[tuple[str, str]] | None = None

    @property
    def precision(self) -> float:
        return self.right / self.reported if self.reported else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.dropped if self.dropped else 1.0


def score(missing_terms: Callable[[str, str], list[str]]) -> Score:
    """Score ``missing_terms(decision, summary)`` on every labelled case."""
    return _score(cases(), lambda case: missing_terms(case["decision"], case["summary"]))


def score_dropped(dropped: Callable[[dict], list[str]]) -> Score:
    """Score ``dropped(case)`` (terms of the window the summary dropped, no pin holding them)."""
    return _score(cases(DROPPED), dropped)


def _score(labelled: list[dict], reported: Callable[[dict], list[str]]) -> Score:
    result = Score(false_alarms=[], misses=[])
    for case in labelled:
        where = case.get("decision") or " ".join(case.get("window", []))
        missing = reported(case)
        labels = [_stems(label) for label in case["dropped"]]
        for term in missing:
            result.reported += 1
            if any(_stems(term) & label for label in labels):
                result.right += 1
            else:
                result.false_alarms.append((where[:50], term))
        for label, stems in zip(case["dropped"], labels, strict=True):
            result.dropped += 1
            if any(_stems(term) & stems for term in missing):
                result.found += 1
            else:
                result.misses.append((where[:50], label))
    return result


def audit_missing(decision: str, summary: str) -> list[str]:
    from supervisor.recognize.loss_audit import audit_decision

    return list(audit_decision(decision, summary).missing)


def audit_dropped(case: dict) -> list[str]:
    from supervisor.recognize.loss_audit import dropped_specifics

    found = dropped_specifics(case["window"], case["summary"], case["pinned"])
    return [d.term for d in found]


if __name__ == "__main__":
    for title, figures in (
        ("pinned decisions", score(audit_missing)),
        ("dropped, not pinned", score_dropped(audit_dropped)),
    ):
        print(f"{title}:")
        print(f"  precision {figures.precision:.2f} ({figures.right}/{figures.reported})")
        print(f"  recall    {figures.recall:.2f} ({figures.found}/{figures.dropped})")
        for where, term in figures.false_alarms or []:
            print(f"    false alarm: {term!r} in {where!r}")
        for where, label in figures.misses or []:
            print(f"    missed: {label!r} in {where!r}")
