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


def cases() -> list[dict]:
    return json.loads(LABELLED.read_text(encoding="utf-8"))["cases"]


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:5] for w in words if w.isdigit() or len(w) >= 3} - {"the", "not", "and"}


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
    result = Score(false_alarms=[], misses=[])
    for case in cases():
        missing = missing_terms(case["decision"], case["summary"])
        labels = [_stems(label) for label in case["dropped"]]
        for term in missing:
            result.reported += 1
            if any(_stems(term) & label for label in labels):
                result.right += 1
            else:
                result.false_alarms.append((case["decision"][:50], term))
        for label, stems in zip(case["dropped"], labels, strict=True):
            result.dropped += 1
            if any(_stems(term) & stems for term in missing):
                result.found += 1
            else:
                result.misses.append((case["decision"][:50], label))
    return result


def audit_missing(decision: str, summary: str) -> list[str]:
    from supervisor.recognize.loss_audit import audit_decision

    return list(audit_decision(decision, summary).missing)


if __name__ == "__main__":
    figures = score(audit_missing)
    print(f"precision {figures.precision:.2f} ({figures.right}/{figures.reported})")
    print(f"recall    {figures.recall:.2f} ({figures.found}/{figures.dropped})")
    for where, term in figures.false_alarms or []:
        print(f"  false alarm: {term!r} in {where!r}")
    for where, label in figures.misses or []:
        print(f"  missed: {label!r} in {where!r}")
