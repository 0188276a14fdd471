"""Dropped, not pinned: the specifics the folded window said, its summary lost, no pin holds.

Summaries keep most decision sentences but few of the paths, commands and measured
values in them. Each sentence of the folded messages is read for its typed
specifics (paths, commands, flags, identifiers, values with units, versions,
quoted strings, dates); one the summary does not carry in any notation, and no
pinned decision holds, is listed once, with the sentence it was said in.
Ordinary words, names and bare numbers are never listed: a summary may drop them
without losing a fact anyone could look up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from supervisor.recognize.judge import matching
from supervisor.recognize.judge.specifics import (
    DATE,
    IDENTIFIER,
    NAME,
    NUMBER,
    QUANTITY,
    QUOTED,
    TIME,
    VERSION,
    Specific,
)
from supervisor.recognize.judge.text import sentences
from supervisor.recognize.judge.verdict import Reading

_NOTHING = re.compile(r"\b(?:nothing|none|zero)\b", re.IGNORECASE)
LIMIT = 20
SAID_CHARS = 300
_LISTED = (QUANTITY, VERSION, IDENTIFIER, QUOTED, DATE, TIME)


@dataclass(frozen=True, slots=True)
class DroppedTerm:
    term: str
    said: str


def _listed(specific: Specific) -> bool:
    if specific.kind in (NUMBER, QUANTITY) and not any(c.isdigit() for c in specific.text):
        return False  # "twice", "three places", "daily": said in words, as prose says them
    if specific.kind == NUMBER:
        return True  # a count ("3 retries"), a setting ("max-age=60"), a measured number
    if specific.kind == IDENTIFIER and len(specific.text.lstrip("-")) < 2:
        return False  # "-k" alone says nothing
    return specific.kind in _LISTED


def _with_count(specific: Specific, reading: Reading) -> str:
    """A counted number with its noun, as written ("3 retries")."""
    text = reading.prepared.text
    if specific.kind == NUMBER and specific.dimension.startswith("count:"):
        rest = text[specific.end :]
        noun = rest.lstrip(" -").split(" ", 1)[0].rstrip(".,;:!?)")
        end = specific.end + (len(rest) - len(rest.lstrip(" -"))) + len(noun)
        return reading.prepared.original(specific.start, end).strip()
    return specific.text


def dropped_not_pinned(
    folded: Sequence[str], summary: str, pinned: Sequence[str] = (), *, limit: int = LIMIT
) -> list[DroppedTerm]:
    """The specifics of ``folded`` that ``summary`` dropped and no pin in ``pinned`` holds."""
    kept = Reading.of(summary)
    pins = Reading.of("\n".join(pinned)) if pinned else None
    found: list[DroppedTerm] = []
    seen: set[str] = set()
    for message in folded:
        reading = Reading.of(message)
        text = reading.prepared.text
        for start, end in sentences(text):
            for specific in reading.specifics:
                if not start <= specific.start < end or not _listed(specific):
                    continue
                if specific.key in seen:
                    continue
                seen.add(specific.key)
                if _carried(specific, kept) or (pins is not None and _carried(specific, pins)):
                    continue
                said = reading.prepared.original(start, end).strip()
                if len(said) > SAID_CHARS:
                    said = said[: SAID_CHARS - 1] + "…"
                found.append(DroppedTerm(_with_count(specific, reading), said))
                if len(found) >= limit:
                    return found
    return found


def _carried(specific: Specific, other: Reading) -> bool:
    """Whether ``other`` carries ``specific`` in any notation."""
    for candidate in other.specifics:
        if specific.kind == NUMBER or candidate.kind == NUMBER:
            # a bare number carries a count only with the same noun or setting
            if (
                specific.kind == candidate.kind == NUMBER
                and specific.number == candidate.number
                and (specific.dimension == candidate.dimension or not candidate.dimension)
            ):
                return True
            continue
        if matching.same(specific, candidate):
            return True
    if specific.kind == NUMBER and specific.number == 0 and _none_of(specific, other):
        return True  # "deleted 0 rows" said as "deleted nothing" or "no rows"
    if specific.kind in (IDENTIFIER, QUOTED, NAME, VERSION):
        return matching.search_written(specific, other.prepared.text)
    return False


def _none_of(specific: Specific, other: Reading) -> bool:
    """Whether ``other`` says there were none of what ``specific`` counts (0 rows)."""
    text = other.prepared.text
    if _NOTHING.search(text):
        return True
    noun = specific.dimension.removeprefix("count:")
    return bool(noun) and re.search(rf"\bno\s+{re.escape(noun)}", text, re.IGNORECASE) is not None
