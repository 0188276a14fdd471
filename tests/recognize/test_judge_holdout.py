"""The judge on the held-out set, tests/fixtures/judge/holdout.jsonl (120 cases).

The set was written blind by someone else *after* the judge had been tuned against
tests/fixtures/judge/labelled.jsonl, and the judge's authors had not seen it: it
measured how far that tuning generalizes. From the commit that added this test on, it
has been looked at (its misses drove the fixes on branch judge3), so it is no longer
blind; a new held-out set is needed to measure generalization again.

Before judge3 it scored: false alarms 14.1% (13/92), dropped recall 97.3% (36/37),
changed caught 88.0% (22/25), complete restatements 73.3% (11/15), dropped-not-pinned
precision 90.5% (114/126) and recall 92.6% (87/94). The floors below are the figures
reached after, not targets: they keep the fixes from regressing.
This prints the report by kind and every miss left:

    python -c "import tests.recognize.judge_scoring as j; from pathlib import Path; \\
        print(j.report(j.score(j.cases(Path('tests/fixtures/judge/holdout.jsonl')))))"
"""

from __future__ import annotations

import pytest

from tests.locations import REPO
from tests.recognize.judge_scoring import Ratio, cases, report, score

HOLDOUT = REPO / "tests" / "fixtures" / "judge" / "holdout.jsonl"


def at_least(ratio: Ratio, hit: int, total: int) -> bool:
    """``ratio`` is at least ``hit / total``, compared exactly."""
    return ratio.hit * total >= hit * ratio.total


@pytest.fixture(scope="module")
def figures():
    return score(cases(HOLDOUT))


def test_the_holdout_set_is_the_one_written_blind() -> None:
    held = cases(HOLDOUT)
    assert len(held) == 120
    assert {c["mode"] for c in held} == {"summary", "restatement", "folded"}


def test_faithful_paraphrases_false_alarms_stay_at_most_3_of_92(figures) -> None:
    assert at_least(figures.paraphrase_ok, 89, 92), report(figures)


def test_dropped_specifics_recall_stays_at_least_36_of_37(figures) -> None:
    assert at_least(figures.missing_found, 36, 37), report(figures)


def test_changed_caught_stays_at_least_25_of_25(figures) -> None:
    assert at_least(figures.changed_caught, 25, 25), report(figures)


def test_complete_restatements_stay_at_least_14_of_15(figures) -> None:
    assert at_least(figures.complete_complete, 14, 15), report(figures)


def test_dropped_not_pinned_stays_at_least_117_of_119_and_89_of_94(figures) -> None:
    assert at_least(figures.dropped_precision, 117, 119), report(figures)
    assert at_least(figures.dropped_recall, 89, 94), report(figures)
