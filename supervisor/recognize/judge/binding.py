"""Which pinned value a value of the other text speaks of: its label decides.

"staging in us-west-2 and prod in us-east-2" holds both pinned regions, each said of
the other cluster; "3 partitions, replication factor 12" both pinned numbers, swapped.
So a value is bound by the words around it (the label before it, the noun after it,
the words of its key) to the pinned value whose words match best: the nearest words
weigh most. A value whose words match no pinned value's is free: it keeps a pinned
value it equals, and changes none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from supervisor.recognize.judge import libraries, matching
from supervisor.recognize.judge.specifics import (
    DATE,
    IDENTIFIER,
    NUMBER,
    QUANTITY,
    TIME,
    VERSION,
    Specific,
)
from supervisor.recognize.judge.text import STOPWORDS, words

VALUES = (QUANTITY, NUMBER, VERSION, DATE, TIME, IDENTIFIER)
_BEFORE_WORDS = 3
_AFTER_WEIGHT = 0.6
_TIE = 0.01
_FOLLOWING_WEIGHT = 0.5
# a value said of another pinned value than the one it equals needs a clearly better label
_DIFF_MARGIN = 0.9
_SHARED_BONUS = 5.0
_CONJUNCTION = re.compile(r"\s*(?:,|/|&|and|or|to|-|–|,\s*and|,\s*or)\s*", re.IGNORECASE)
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")

Context = dict[str, float]


@dataclass(frozen=True, slots=True)
class Place:
    """A value where it was said: its sentence's text and the other values there."""

    specific: Specific
    context: Context
    shared: bool = False  # its label is the first value's of a list ("SEV1 and SEV2")


def context(
    text: str, specific: Specific, span: tuple[int, int], others: Sequence[Specific]
) -> tuple[Context, bool]:
    """The words that label ``specific`` in ``text[span]``: up to three content words
    before it, the word right after it (its noun), and the words of its key. A value
    in a list ("SEV1 and SEV2", "between 3 and 20") shares the label of the first (and
    says so: the second of the pair)."""
    start, end = span
    first = specific
    # do not reach past another value of the same kind: its label is its own, unless
    # only a conjunction stands between them
    for other in sorted(others, key=lambda o: -o.start):
        if other is specific or other.kind != first.kind or not start <= other.end <= first.start:
            continue
        if _CONJUNCTION.fullmatch(text[other.end : first.start]):
            first = other
            continue
        # past the other value and its noun ("12 partitions and a replication factor of 3")
        noun = re.match(
            r"\s*(?:-\s*)?(?:(?:for|of|on|in)\s+(?:the\s+)?)?[A-Za-z]+",
            text[other.end : first.start],
        )
        start = max(start, other.end + (noun.end() if noun else 0))
        break
    for other in others:
        if other is not specific and other.kind == specific.kind and specific.end <= other.start:
            end = min(end, other.start)
    taken = [(o.start, o.end) for o in others]
    found: Context = {}
    before = [w for w, s, _e in words(text[start : first.start]) if _content(w, start + s, taken)]
    for word in before[-_BEFORE_WORDS:]:
        _add(found, word, 1.0)
    rest = text[specific.end : end]
    after = re.match(
        r"\s*(?:-\s*)?(?:(?:for|of|on|in)\s+(?:the\s+)?)?([A-Za-z][A-Za-z0-9]*)"
        r"(?:\s+per\s+([A-Za-z]+))?",
        rest,
    )
    if after and _content(after.group(1).lower(), specific.end + after.start(1), taken):
        _add(found, after.group(1).lower(), _AFTER_WEIGHT)
        if after.group(2) and _content(
            after.group(2).lower(), specific.end + after.start(2), taken
        ):
            _add(found, after.group(2).lower(), _AFTER_WEIGHT)
    if not before:
        # "Node 20 is the minimum runtime": the label follows, up to the clause's end
        clause = re.split(r"[,;:()\[\]]|\s[-–—]\s", rest, maxsplit=1)[0]
        following = [w for w, s, _e in words(clause) if _content(w, specific.end + s, taken)]
        for word in following[:_BEFORE_WORDS]:
            _add(found, word, _FOLLOWING_WEIGHT)
    if specific.dimension.startswith(("count:", "key:")):
        for part in re.split(r"[^A-Za-z]+", specific.dimension.split(":", 1)[1]):
            if len(part) >= 3:
                _add(found, part.lower(), 1.0)
    if specific.kind in (QUANTITY, NUMBER):
        key_part = re.match(r"[A-Za-z_][\w.-]*?(?=\s*[:=])", specific.text)
        if key_part:
            for part in _CAMEL.findall(key_part.group(0).replace("_", " ")):
                if len(part) >= 3 and part.lower() not in STOPWORDS:
                    _add(found, part.lower(), 1.0)
    return found, first is not specific


def _styled_like(pinned: Specific, other: Specific) -> bool:
    """snake_case and camelCase, kebab-case: one naming style said for another."""
    style = re.compile(
        r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:-[a-z]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+"
    )
    return (
        pinned.kind == other.kind == IDENTIFIER
        and bool(style.fullmatch(pinned.text))
        and bool(style.fullmatch(other.text))
        and not matching.same(pinned, other)
    )


def _bare_count(pinned: Specific, other: Specific) -> bool:
    """ "iOS 15+" for "iOS 16 and newer": a number without its noun, under the same label."""
    return (
        pinned.kind == NUMBER
        and other.kind == NUMBER
        and not other.dimension
        and not matching.same(pinned, other)
    )


def _content(word: str, at: int, taken: list[tuple[int, int]]) -> bool:
    if len(word) < 3 or word in STOPWORDS or word.isdigit():
        return False
    return not any(s <= at < e for s, e in taken)


def _add(found: Context, word: str, weight: float) -> None:
    stem = libraries.stem(word)
    found[stem] = max(found.get(stem, 0.0), weight)


def affinity(a: Context, b: Context) -> float:
    """How well two labels match: the weights of the stems they share (a stem matches one
    it begins, of four letters or more: "lock" and "lockout")."""
    total = 0.0
    for stem, weight in a.items():
        best = 0.0
        for other, other_weight in b.items():
            if stem == other or (
                min(len(stem), len(other)) >= 4
                and (stem.startswith(other) or other.startswith(stem))
            ):
                best = max(best, other_weight)
        total += weight * best
    return total


@dataclass(frozen=True, slots=True)
class Pinned:
    """A pinned value with its label, and the decision it belongs to."""

    owner: int
    specific: Specific
    context: Context


def bind(places: Sequence[Place], pinned: Sequence[Pinned]) -> dict[int, Pinned | None]:
    """For each place (by index), the pinned value it speaks of, or None when it is free.

    A place goes to the pinned value its label matches best (on a tie, the one it
    equals). It speaks of a pinned value it does not equal only when that value is not
    said, under its own label, elsewhere in the text: "lock_timeout of 5s" after "a
    900-second statement timeout" does not change the 15 minutes said there."""
    said = {id(p) for p in pinned if any(matching.same(p.specific, pl.specific) for pl in places)}
    owners: list[tuple[Pinned, bool] | None] = []
    for place in places:
        best: tuple[float, Pinned, bool] | None = None
        any_same = any(matching.same(c.specific, place.specific) for c in pinned)
        for candidate in pinned:
            same = matching.same(candidate.specific, place.specific)
            score = affinity(place.context, candidate.context)
            if not (
                same
                or matching.replaces(candidate.specific, place.specific)
                or (score >= 1 and matching.shaped_like(candidate.specific, place.specific))
                or (score >= 1 and _styled_like(candidate.specific, place.specific))
                or (
                    score >= 1
                    and id(candidate) not in said
                    and _bare_count(candidate.specific, place.specific)
                )
            ):
                continue
            if place.shared and same:
                score += _SHARED_BONUS  # a list shares one label: its values go by equality
            if score <= 0 and not same:
                continue
            score += _TIE if same else -_DIFF_MARGIN if any_same else 0.0
            if score <= 0 and not same:
                continue
            if best is None or score > best[0]:
                best = (score, candidate, same)
        if best is not None and best[2] and affinity(place.context, best[1].context) <= 0:
            best = None  # bound by its equality alone: free
        owners.append((best[1], best[2]) if best else None)
    anchored = {id(owner[0]) for owner in owners if owner is not None and owner[1]}
    bound: dict[int, Pinned | None] = {}
    for index, owner in enumerate(owners):
        if owner is None or owner[1]:
            bound[index] = owner[0] if owner else None
            continue
        # said of another value than it equals: the best-labelled one not said elsewhere
        # (the value it would change is said, and labelled, elsewhere otherwise)
        place = places[index]
        chosen: tuple[float, Pinned] | None = None
        for candidate in pinned:
            if id(candidate) in anchored or matching.same(candidate.specific, place.specific):
                continue
            score = affinity(place.context, candidate.context)
            if score > 0 and id(candidate) not in said:
                score += _TIE  # on a tie, the value the text does not say at all
            better = score > 0 and (chosen is None or score > chosen[0])
            if better and _may_replace(candidate, place):
                chosen = (score, candidate)
        bound[index] = chosen[1] if chosen else None
    return bound


def _may_replace(candidate: Pinned, place: Place) -> bool:
    return (
        matching.replaces(candidate.specific, place.specific)
        or matching.shaped_like(candidate.specific, place.specific)
        or _styled_like(candidate.specific, place.specific)
    )
