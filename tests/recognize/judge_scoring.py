"""The judge's figures on the labelled set (tests/fixtures/judge/labelled.jsonl), as its
schema's "Scoring" section defines them, by kind.

The set was written by hand, without looking at the judge, and is kept as written.
Run as a script to print the figures and every false alarm left:
``python -m tests.recognize.judge_scoring``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.locations import FIXTURES

LABELLED = FIXTURES / "judge" / "labelled.jsonl"


def cases(path=LABELLED) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            row["_line"] = number
            rows.append(row)
    return rows


def _plain(term: str) -> str:
    return term.lower().strip().strip(".,;:!?\"'`()[]{}").strip()


def _normal(term: str) -> frozenset[str]:
    """A term's normal form: the keys of its typed specifics, else the stems of its words."""
    from supervisor.recognize.judge.specifics import extract
    from supervisor.recognize.judge.text import content_stems, prepare

    keys = frozenset(s.key for s in extract(prepare(term)))
    return keys or frozenset(content_stems(term))


def same_term(a: str, b: str) -> bool:
    """The schema's rule: after lowercasing and trimming punctuation at the ends, one
    contains the other, or both normalise to the same value."""
    x, y = _plain(a), _plain(b)
    if x and y and (x in y or y in x):
        return True
    nx, ny = _normal(a), _normal(b)
    return bool(nx) and nx == ny


@dataclass
class Ratio:
    hit: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.hit += ok

    @property
    def value(self) -> float:
        return self.hit / self.total if self.total else 1.0

    def __str__(self) -> str:
        return f"{self.value:.1%} ({self.hit}/{self.total})"


@dataclass
class Figures:
    """The five figures, overall and by kind, with what went wrong."""

    paraphrase_ok: Ratio = field(default_factory=Ratio)  # labelled kept, judged kept
    missing_found: Ratio = field(default_factory=Ratio)
    changed_caught: Ratio = field(default_factory=Ratio)
    complete_complete: Ratio = field(default_factory=Ratio)
    dropped_precision: Ratio = field(default_factory=Ratio)
    dropped_recall: Ratio = field(default_factory=Ratio)
    by_kind: dict[str, dict[str, Ratio]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Ratio))
    )
    false_alarms: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    changes_missed: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)
    dropped_wrong: list[str] = field(default_factory=list)
    dropped_missed: list[str] = field(default_factory=list)

    @property
    def false_alarm_rate(self) -> float:
        return 1 - self.paraphrase_ok.value


Judge = Callable[[dict[str, Any]], list[dict[str, Any]]]


def judged(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The judge's verdicts on a summary or restatement case, as `tether audit --json`."""
    if case["mode"] == "restatement":
        from supervisor.recognize.judge.restatement import judge_restatement

        verdicts = sorted(judge_restatement(case["pins"], case["text"]).items())
        return [v.to_dict(n) for n, v in verdicts]
    from supervisor.recognize.judge.verdict import judge_all

    return [v.to_dict(n) for n, v in enumerate(judge_all(case["pins"], case["text"]), 1)]


def dropped(case: dict[str, Any]) -> list[str]:
    from supervisor.recognize.judge.dropped import dropped_not_pinned

    folded = [m["content"] if isinstance(m, dict) else m for m in case["folded"]]
    return [d.term for d in dropped_not_pinned(folded, case["summary"], case["pins"], limit=999)]


def score(
    labelled: list[dict[str, Any]] | None = None,
    judge: Judge = judged,
    folded: Callable[[dict[str, Any]], list[str]] = dropped,
) -> Figures:
    figures = Figures()
    for case in labelled if labelled is not None else cases():
        if case["mode"] == "folded":
            _score_folded(case, folded(case), figures)
        else:
            _score_pins(case, judge(case), figures)
    return figures


def _score_pins(case: dict[str, Any], verdicts: list[dict[str, Any]], figures: Figures) -> None:
    kind = figures.by_kind[case["kind"]]
    for pin, expect, got in zip(case["pins"], case["expect"], verdicts, strict=True):
        where = f"{case['id']}: {pin[:60]!r}"
        if expect["status"] == "kept":
            ok = got["status"] == "kept"
            figures.paraphrase_ok.add(ok)
            kind["kept judged kept"].add(ok)
            if not ok:
                figures.false_alarms.append(
                    f"{where} judged {got['status']}: missing {got['missing']}, "
                    f"changed {got['changed']}"
                )
        if expect["status"] == "changed":
            ok = got["status"] == "changed"
            figures.changed_caught.add(ok)
            kind["changed caught"].add(ok)
            if not ok:
                figures.changes_missed.append(
                    f"{where} judged {got['status']} {got['missing']}; expected {expect['changed']}"
                )
        for term in expect.get("missing") or []:
            ok = any(same_term(term, reported) for reported in got["missing"])
            figures.missing_found.add(ok)
            kind["missing found"].add(ok)
            if not ok:
                figures.missed.append(f"{where}: {term!r} not reported (got {got['missing']})")
    if case["mode"] == "restatement" and all(e["status"] == "kept" for e in case["expect"]):
        ok = all(v["status"] == "kept" for v in verdicts)
        figures.complete_complete.add(ok)
        figures.by_kind[case["kind"]]["complete judged complete"].add(ok)
        if not ok:
            figures.incomplete.append(f"{case['id']}: {[v['status'] for v in verdicts]}")


def _score_folded(case: dict[str, Any], reported: list[str], figures: Figures) -> None:
    expected = case["expect_dropped"]
    kind = figures.by_kind[case["kind"]]
    for term in reported:
        ok = any(same_term(term, label) for label in expected)
        figures.dropped_precision.add(ok)
        kind["dropped precision"].add(ok)
        if not ok:
            figures.dropped_wrong.append(f"{case['id']}: {term!r} reported, not expected")
    for label in expected:
        ok = any(same_term(term, label) for term in reported)
        figures.dropped_recall.add(ok)
        kind["dropped recall"].add(ok)
        if not ok:
            figures.dropped_missed.append(f"{case['id']}: {label!r} not reported")


def report(figures: Figures) -> str:
    lines = [
        f"false alarms on faithful paraphrases: {figures.false_alarm_rate:.1%} "
        f"({figures.paraphrase_ok.total - figures.paraphrase_ok.hit}"
        f"/{figures.paraphrase_ok.total})",
        f"recall of dropped specifics: {figures.missing_found}",
        f"changed values and reversed rules caught: {figures.changed_caught}",
        f"complete restatements judged complete: {figures.complete_complete}",
        f"dropped, not pinned: precision {figures.dropped_precision}, "
        f"recall {figures.dropped_recall}",
        "",
        "by kind:",
    ]
    for kind in sorted(figures.by_kind):
        parts = [f"{name} {ratio}" for name, ratio in sorted(figures.by_kind[kind].items())]
        lines.append(f"  {kind}: " + "; ".join(parts))
    for title, rows in (
        ("false alarms left", figures.false_alarms),
        ("dropped specifics not reported", figures.missed),
        ("changes not caught", figures.changes_missed),
        ("complete restatements judged incomplete", figures.incomplete),
        ("dropped-not-pinned terms reported wrongly", figures.dropped_wrong),
        ("dropped-not-pinned terms missed", figures.dropped_missed),
    ):
        lines += ["", f"{title} ({len(rows)}):", *[f"  {row}" for row in rows]]
    return "\n".join(lines)


_SPACES = re.compile(r"\s+")

if __name__ == "__main__":
    print(report(score()))
