"""The agent's restatement, judged item by item when it numbered its items as the pins are.

The recovery payload asks for each pinned decision restated under its number. An
item "2. ..." is then judged against decision 2 alone, so the values of decision
1 cannot stand in for those of decision 2. A restatement that did not number its
items is judged whole, as a summary is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from supervisor.recognize.judge.verdict import Decision, Reading, Verdict, judge, judge_all

# "1. ...", "2) ...", "(3) ...", "#4 ...", "Decision 5: ...", at a line's start or inline
# (a number inside a sentence, "failureThreshold: 3.", starts no item: a mark begins a
# line or follows the end of a sentence)
_MARK = re.compile(
    r"(?:^[ \t]*|(?<=[.;|!?:]\s)|(?<=[.;|!?:]\s\s))(?:[-*]\s*)?(?:\*\*)?"
    r"(?:(?:decision|pin|item)\s*#?\s*)?[(\[#]?"
    r"(\d{1,2})(?:[.):\]]|\s*[-–—:])(?:\*\*)?(?=\s)",
    re.IGNORECASE | re.MULTILINE,
)


def numbered_items(text: str, count: int, *, least: int = 2) -> dict[int, str]:
    """The items of ``text`` under increasing numbers of 1..``count``, or {} when fewer
    than ``least`` are numbered."""
    chosen: list[re.Match[str]] = []
    for mark in _MARK.finditer(text):
        number = int(mark.group(1))
        after_colon = text[max(0, mark.start() - 2) : mark.start()].startswith(":")
        if after_colon and (chosen or number != 1):
            continue  # "failureThreshold: 3." is a value; "Restated: 1. ..." starts a list
        if 1 <= number <= count and (not chosen or number > int(chosen[-1].group(1))):
            chosen.append(mark)
    if len(chosen) < least:
        return {}
    items: dict[int, str] = {}
    for index, mark in enumerate(chosen):
        end = chosen[index + 1].start() if index + 1 < len(chosen) else len(text)
        items[int(mark.group(1))] = text[mark.end() : end].strip()
    return items


def judge_restatement(
    decisions: Sequence[str], text: str, asked: Sequence[int] | None = None
) -> dict[int, Verdict]:
    """The verdict on each decision asked for (1-based numbers), from its own numbered item
    when the restatement numbered them, else from the whole text."""
    numbers = list(asked) if asked is not None else list(range(1, len(decisions) + 1))
    numbers = [n for n in numbers if 1 <= n <= len(decisions)]
    items = numbered_items(text, len(decisions), least=min(2, len(numbers)) or 1)
    whole = judge_all(decisions, text)
    verdicts: dict[int, Verdict] = {}
    claimed = frozenset(s.key for d in decisions for s in Decision.of(d).specifics)
    for number in numbers:
        item = items.get(number)
        if item is None:
            verdicts[number] = whole[number - 1]
            continue
        verdicts[number] = judge(decisions[number - 1], Reading.of(item), claimed=claimed)

    return verdicts
