"""The verdict on one pinned decision against another text: kept, degraded, lost or changed.

Each decision is compared with the sentences of the other text that speak of its
subject (they share its specifics or its words), not with the whole text: a
number counts only as a whole token of the same quantity, where the decision's
subject is. A specific found with another value there is *changed*; a rule whose
items come back on the other side of a negation is *reversed* (changed too). The
words of a clause that holds no typed specific (the mechanism, the reason) are
kept when enough of their stems come back anywhere in the text: paraphrase
swaps words, and the values are what a summary really loses.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from supervisor.recognize.judge import libraries, matching
from supervisor.recognize.judge.binding import VALUES, Pinned, Place, bind, context
from supervisor.recognize.judge.polarity import (
    PERMISSIVE,
    Polarity,
    carried,
    directions,
    opposite,
    rule_word,
)
from supervisor.recognize.judge.specifics import (
    IDENTIFIER,
    NAME,
    NUMBER,
    QUANTITY,
    QUOTED,
    VERSION,
    Specific,
    extract,
)
from supervisor.recognize.judge.text import (
    STOPWORDS,
    Prepared,
    clauses,
    content_stems,
    prepare,
    sentences,
    words,
)

KEPT = "kept"
DEGRADED = "degraded"
LOST = "lost"
CHANGED = "changed"

WORDS = "words"
REASON = "reason"

_REASON_CUE = re.compile(
    r"(?:\bbecause\b|\bsince\b(?!\s+\d)|\bso\s+that\b|\bdue\s+to\b|\bgiven\s+that\b"
    r"|\bas\s+otherwise\b|\bto\s+avoid\b|\bto\s+keep\b|\bto\s+prevent\b|\botherwise\b"
    r"|\bthat'?s\s+why\b|\bwhich\s+is\s+why\b|,\s*so\b|\s[-–—]+\s|—|--\s)",
    re.IGNORECASE,
)
_WORDS_KEPT = 0.4  # share of a clause's stems that keeps its words
_REASON_KEPT = 0.5
# Distinctive kinds are looked for in the whole text; numbers only where the subject is.
_ANYWHERE = (IDENTIFIER, NAME, QUOTED)


@dataclass(frozen=True, slots=True)
class Changed:
    pinned: str
    now: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """One decision judged: its status, what is missing and what changed, as written."""

    decision: str
    status: str
    terms: tuple[str, ...]
    missing: tuple[str, ...] = ()
    changed: tuple[Changed, ...] = ()

    def to_dict(self, number: int) -> dict[str, object]:
        return {
            "number": number,
            "decision": self.decision,
            "status": self.status,
            "missing": list(self.missing),
            "changed": [{"pinned": c.pinned, "now": c.now} for c in self.changed],
        }


@dataclass(frozen=True, slots=True)
class Soft:
    """A clause of the decision with no typed specific: its mechanism or its reason."""

    kind: str
    text: str
    stems: tuple[str, ...]
    negated: bool = False  # "no merge commits": its direction is part of it


@dataclass(slots=True)
class Reading:
    """A text read once: prepared, its specifics, sentences, stems and negations."""

    prepared: Prepared
    specifics: list[Specific]
    sentence_spans: list[tuple[int, int]]
    sentence_stems: list[frozenset[str]]
    stems: frozenset[str]
    polarity: Polarity
    _by_sentence: list[list[Specific]] = field(default_factory=list)

    @classmethod
    def of(cls, written: str) -> Reading:
        prepared = prepare(written)
        text = prepared.text
        spans = sentences(text)
        found = extract(prepared)
        stems = [frozenset(content_stems(text[s:e])) for s, e in spans]
        reading = cls(prepared, found, spans, stems, frozenset(content_stems(text)), Polarity(text))
        reading._by_sentence = [[x for x in found if s <= x.start < e] for s, e in spans]
        return reading

    def in_sentences(self, indexes: Sequence[int]) -> list[Specific]:
        return [x for i in indexes for x in self._by_sentence[i]]

    def sentence_span(self, position: int) -> tuple[int, int]:
        index = self.sentence_of(position)
        return self.sentence_spans[index] if index >= 0 else (position, position + 1)

    def sentence_of(self, position: int) -> int:
        for index, (start, end) in enumerate(self.sentence_spans):
            if start <= position < end:
                return index
        return -1


@dataclass(slots=True)
class Decision:
    """A pinned decision read once: its typed specifics, its clauses of words, its rule."""

    written: str
    reading: Reading
    specifics: list[Specific]
    soft: list[Soft]
    stems: frozenset[str]

    @classmethod
    def of(cls, written: str) -> Decision:
        return _decision(written)

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(s.text for s in self.specifics) + tuple(s.text for s in self.soft)


@functools.lru_cache(maxsize=256)
def _decision(written: str) -> Decision:
    """A decision read once per process: the pins are judged again and again."""
    reading = Reading.of(written)
    return Decision(
        written, reading, reading.specifics, _soft(reading), reading.stems | _compounds(written)
    )


def _compounds(text: str) -> frozenset[str]:
    """The stems of two words said as one: "roll back" is "rollback", "dead letter"
    "deadletter"."""
    found = words(text)
    return frozenset(
        libraries.stem(a + b)
        for (a, _s, a_end), (b, b_start, _e) in itertools.pairwise(found)
        if len(a) >= 3
        and len(b) >= 3
        and text[a_end:b_start] in (" ", "-")
        and a not in STOPWORDS
        and b not in STOPWORDS
    )


def _soft(reading: Reading) -> list[Soft]:
    """The clauses of the decision that hold no typed specific, as mechanism or reason."""
    text = reading.prepared.text
    reason_at = _reason_start(text)
    found: list[Soft] = []
    spans = clauses(text)
    if reason_at is not None:  # "... 15 minutes because the client can't revoke them"
        spans = [
            part
            for start, end in spans
            for part in (
                ((start, reason_at), (reason_at, end))
                if start < reason_at < end
                else ((start, end),)
            )
        ]
    # "... with a 15-minute TTL and are rotated on every use": the part after "and" that
    # holds no value is a mechanism of its own
    spans = [part for start, end in spans for part in _and_parts(text, start, end, reading)]
    for start, end in spans:
        kind = REASON if reason_at is not None and start >= reason_at else WORDS
        typed = [s for s in reading.specifics if start <= s.start < end]
        if typed and kind == WORDS:
            continue
        if text[end : end + 1] == ":":
            continue  # "Rate limit: 100 rpm": a label names the subject, it is no specific
        # a reason is its words, even around a value ("so that a runaway query can't hold
        # a connection from PgBouncer's pool of 20")
        words_only = "".join(" " if any(s.start <= i < s.end for s in typed) else ch
                             for i, ch in enumerate(text[start:end], start))  # fmt: skip
        stems = tuple(dict.fromkeys(content_stems(words_only)))
        if not stems:
            continue
        negated = kind == WORDS and reading.polarity.negation_at(end - 1) is not None
        found.append(Soft(kind, _trim(reading.prepared.original(start, end)), stems, negated))
    return found


_AND = re.compile(
    r"\s+and\s+(?=(?:are|is|get|gets|be)\s+\w+ed\b|\w+s?\s+(?:on|at|to|in|every|each)\b)"
)


def _and_parts(text: str, start: int, end: int, reading: Reading) -> list[tuple[int, int]]:
    if not any(start <= s.start < end for s in reading.specifics):
        return [(start, end)]
    parts, position = [], start
    for match in _AND.finditer(text, start, end):
        parts.append((position, match.start()))
        position = match.end()
    parts.append((position, end))
    return parts


def _reason_start(text: str) -> int | None:
    match = _REASON_CUE.search(text)
    return match.start() if match else None


_LEADING = re.compile(
    r"^(?:(?:because|since|so\s+that|so|due\s+to|given\s+that|and|but|or|then|which|as"
    r"|otherwise|that'?s\s+why)\b\s*)+",
    re.IGNORECASE,
)


def _trim(clause: str) -> str:
    return _LEADING.sub("", clause.strip(" \t\n.,;:—-")).strip(" \t\n.,;:—-")


@dataclass(frozen=True, slots=True)
class Bindings:
    """The values of the other text, each bound to the pinned value it speaks of."""

    places: tuple[Place, ...]
    bound: dict[int, Pinned | None]

    @classmethod
    def of(cls, pins: Sequence[Decision], text: Reading) -> Bindings:
        pinned = [
            Pinned(owner, s, _label(pin.reading, s)[0])
            for owner, pin in enumerate(pins)
            for s in pin.specifics
            if s.kind in VALUES
        ]
        places = tuple(Place(o, *_label(text, o)) for o in text.specifics if o.kind in VALUES)
        return cls(places, bind(places, pinned))

    def said_of(self, owner: int, specific: Specific) -> list[Specific]:
        """The values of the text bound to this pinned value."""
        return [
            self.places[i].specific
            for i, target in self.bound.items()
            if target is not None and target.owner == owner and target.specific is specific
        ]

    def bound_elsewhere(self, owner: int, specific: Specific) -> bool:
        """Whether every value of the text equal to this one speaks of another pinned value."""
        equal = [
            i for i, place in enumerate(self.places) if matching.same(specific, place.specific)
        ]
        return bool(equal) and all(
            self.bound[i] is not None
            and (self.bound[i].owner, self.bound[i].specific) != (owner, specific)  # type: ignore[union-attr]
            for i in equal
        )

    def free(self, specific: Specific) -> bool:
        for i, place in enumerate(self.places):
            if place.specific is specific:
                return self.bound[i] is None
        return True


def _label(reading: Reading, specific: Specific) -> tuple[dict[str, float], bool]:
    span = reading.sentence_span(specific.start)
    return context(reading.prepared.text, specific, span, reading.specifics)


def judge(
    decision: Decision | str,
    other: Reading | str,
    *,
    claimed: frozenset[str] = frozenset(),
    bindings: Bindings | None = None,
    owner: int = 0,
) -> Verdict:
    """The verdict on ``decision`` against the ``other`` text.

    ``claimed``: the keys of every pinned decision's specifics; a value another pin
    holds is no change of this one's. ``bindings``: the text's values bound among all
    the pins judged together (``owner`` is this decision's index among them)."""
    pin = decision if isinstance(decision, Decision) else Decision.of(decision)
    text = other if isinstance(other, Reading) else Reading.of(other)
    if bindings is None:
        bindings, owner = Bindings.of([pin], text), 0
    claimed = claimed | frozenset(s.key for s in pin.specifics)
    relevant = _relevant_sentences(pin, text)
    near = text.in_sentences(relevant)
    touching = _touching_sentences(pin, text)
    missing: list[str] = []
    changed: list[Changed] = []
    kept_any = False
    for specific in pin.specifics:
        if specific.kind in (NAME, IDENTIFIER) and _acronym_kept(specific, pin, text):
            kept_any = True
            continue
        said = bindings.said_of(owner, specific) if specific.kind in VALUES else []
        if any(matching.same(specific, o) for o in said):
            kept_any = True
            continue
        instead = next((o for o in said if not matching.same(specific, o)), None)
        if not bindings.bound_elsewhere(owner, specific) and _kept(
            specific, text, [o for o in near if bindings.free(o)]
        ):
            kept_any = True
            continue
        if instead is None and not bindings.bound_elsewhere(owner, specific):
            instead = _instead(specific, pin, text, touching, claimed, bindings)
        if instead is None:
            instead = _rescoped(specific, text, near)
        if instead is not None:
            if specific.scope != instead.scope:  # what it is counted per changed: say so
                changed.append(Changed(_with_scope(specific), _with_scope(instead)))
            else:
                changed.append(Changed(specific.text, instead.text))
        else:
            missing.append(specific.text)
    subject = _subject(pin)
    for soft in pin.soft:
        share = _REASON_KEPT if soft.kind == REASON else _WORDS_KEPT
        # what the clause says of its subject ("refresh tokens" are there whatever is lost)
        told = [stem for stem in soft.stems if stem not in subject] or list(soft.stems)
        # its words where one sentence says them together, not scattered over the text
        present = max(
            (sum(_has_stem(stems, stem) for stem in told) for stems in text.sentence_stems),
            default=0,
        )
        if soft.negated and not _said_negated(soft, text):
            present = 0  # "merge commits" said without its "no" keeps words, not the rule
        if present >= max(1, math.ceil(share * len(told) - 1e-9)):
            kept_any = True
        else:
            missing.append(soft.text)
    strong = _strong_sentences(pin, text)
    reversal = (
        _reversal(pin, text, relevant)
        or _swapped_modifier(pin, text, strong)
        or _other_alternative(pin, text, strong)
        or _opposite_word(pin, text, touching)
        or _grown_list(pin, text, claimed)
        or _requalified(pin, text)
        or _rejected_taken(pin, text, strong)
        or _reordered(pin, text, strong)
    )
    if reversal is not None:
        changed.insert(0, reversal)
    elif missing:
        # a decision that lost specifics may have lost its direction too: say so
        spoken = " ".join(text.prepared.text[slice(*text.sentence_spans[i])] for i in strong)
        rule = pin.reading.prepared.text[: _reason_start(pin.reading.prepared.text)]
        negating = " ".join(  # a "never" must be said where what it negated is said
            text.prepared.text[slice(*text.sentence_spans[i])]
            for i in strong
            if _holds_pin_negated(pin, text, i)
        )
        for word in dict.fromkeys(directions(rule)):  # a reason's "can't" is no direction
            where = (
                spoken
                if re.fullmatch(r"only|must|always|required?|skip\w*", word, re.I)
                else negating
            )
            if not carried(word, where):
                missing.append(word)
    if changed:
        status = CHANGED
    elif not missing:
        status = KEPT
    elif not kept_any and not strong:
        status = LOST
    else:
        status = DEGRADED
    return Verdict(pin.written, status, pin.terms, tuple(missing), tuple(changed))


_CAPITALISED_RUN = re.compile(r"\b[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+)+\b")


def _acronym_kept(specific: Specific, pin: Decision, text: Reading) -> bool:
    """ "Firebase Cloud Messaging" said as FCM, or FCM as "Firebase Cloud Messaging"."""
    return _acronym_in(specific, pin, text.prepared.text)


def _acronym_in(specific: Specific, pin: Decision, said: str) -> bool:
    """Whether ``said`` names ``specific`` by its initials, or spells out its initials."""
    pin_text = pin.reading.prepared.text
    for run in _CAPITALISED_RUN.finditer(pin_text):
        if run.start() <= specific.start < run.end():
            initials = "".join(word[0] for word in run.group(0).split())
            if re.search(rf"\b{initials}s?\b", said):
                return True
    parts = re.findall(r"[A-Z][a-z0-9]+", specific.text)
    camel = len(parts) >= 2 and "".join(parts) == specific.text  # PodDisruptionBudget: PDB
    if camel and re.search(rf"\b{''.join(p[0] for p in parts)}s?\b", said):
        return True
    word = specific.text
    if word.isupper() and len(word) >= 2:
        for run in _CAPITALISED_RUN.finditer(said):
            if "".join(w[0] for w in run.group(0).split()) == word:
                return True
        # "right-to-left" for RTL: words joined by hyphens, in any case
        for run in _HYPHENATED_RUN.finditer(said):
            if "".join(w[0] for w in run.group(0).split("-")).upper() == word:
                return True
    return False


_HYPHENATED_RUN = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")


def _relevant_sentences(pin: Decision, text: Reading) -> list[int]:
    """The sentences of ``text`` that speak of the decision's subject."""
    scores: list[float] = []
    for index, stems in enumerate(text.sentence_stems):
        shared = len(pin.stems & stems)
        values = sum(
            1
            for specific in pin.specifics
            if any(matching.same(specific, other) for other in text._by_sentence[index])
        )
        scores.append(shared + 2 * values)
    need = 2 if len(pin.stems) + len(pin.specifics) > 2 else 1
    strong = [index for index, score in enumerate(scores) if score >= need]
    if strong or not scores or max(scores) < 1:
        return strong
    return [index for index, score in enumerate(scores) if score == max(scores)]


_COPULA = re.compile(r"\s(?:is|are|was|were|has|have|gets?|lives?|stays?|goes|go)\s", re.I)


def _subject(pin: Decision) -> frozenset[str]:
    """The stems of what a declarative decision is about: its words before its first
    "is/are/has/lives" ("Refresh tokens are returned in the body": refresh, token)."""
    text = pin.reading.prepared.text
    first = clauses(text)[0] if clauses(text) else (0, 0)
    copula = _COPULA.search(text, *first)
    if copula is None:
        return frozenset()
    return frozenset(content_stems(text[first[0] : copula.start()]))


def _holds_pin_negated(pin: Decision, text: Reading, index: int) -> bool:
    """Whether sentence ``index`` of the text says something the pin negates."""
    polarity = pin.reading.polarity
    span = text.sentence_spans[index]
    for item, at in _items(pin):
        if polarity.negation_at(at) and _occurrences_in(item, pin, text, span):
            return True
    return False


def _has_stem(stems: frozenset[str], stem: str) -> bool:
    """Whether ``stems`` hold the stem, or one of its first five letters ("convert" and
    "conversion" stem to convert and convers)."""
    if stem in stems:
        return True
    return len(stem) >= 5 and any(len(s) >= 5 and s[:5] == stem[:5] for s in stems)


def _said_negated(soft: Soft, text: Reading) -> bool:
    """Whether a sentence of ``text`` that holds the clause's words negates something."""
    for index, stems in enumerate(text.sentence_stems):
        if not stems & set(soft.stems):
            continue
        span = text.sentence_spans[index]
        if text.polarity.any_negation(*span) or _ONLY.search(text.prepared.text[slice(*span)]):
            return True  # "only from CI" says "never locally" its own way
    return False


def _strong_sentences(pin: Decision, text: Reading) -> list[int]:
    """The sentences that clearly speak of the decision (two stems or a value shared)."""
    found = []
    for index, stems in enumerate(text.sentence_stems):
        shared = len(pin.stems & stems)
        values = sum(
            1
            for specific in pin.specifics
            if any(matching.same(specific, o) for o in text._by_sentence[index])
        )
        if shared + 2 * values >= 2:
            found.append(index)
    return found


def _touching_sentences(pin: Decision, text: Reading) -> list[int]:
    """The sentences that share at least one stem or value with the decision, or name
    one of its names by its initials ("PDB" for PodDisruptionBudget)."""
    named = [s for s in pin.specifics if s.kind in (NAME, IDENTIFIER)]
    return [
        index
        for index, stems in enumerate(text.sentence_stems)
        if pin.stems & stems
        or any(matching.same(s, o) for s in pin.specifics for o in text._by_sentence[index])
        or any(
            _acronym_in(s, pin, text.prepared.text[slice(*text.sentence_spans[index])])
            for s in named
        )
    ]


def _rescoped(specific: Specific, text: Reading, near: list[Specific]) -> Specific | None:
    """The same amount said per something else ("100 rpm per IP" for "100 requests per
    minute per API key"): where a same amount would keep the value, it changes its scope."""
    if not specific.scope:
        return None
    candidates = text.specifics if specific.kind == QUANTITY else near
    for other in candidates:
        if other.scope and matching.same_amount_elsewhere(specific, other):
            return other
    return None


def _with_scope(specific: Specific) -> str:
    """A value as written, with what it is counted per when that is what changed."""
    if specific.scope_text and not specific.text.endswith(specific.scope_text.strip()):
        return specific.text + specific.scope_text
    return specific.text


def _kept(specific: Specific, text: Reading, near: list[Specific]) -> bool:
    if any(matching.same(specific, other) for other in near):
        return True
    if specific.kind in _ANYWHERE:
        if any(matching.same(specific, other) for other in text.specifics):
            return True
        return matching.search_written(specific, text.prepared.text)
    if specific.kind == QUOTED:
        return False
    if specific.kind == QUANTITY:  # the same value with its unit, anywhere
        return any(
            other.kind == QUANTITY and matching.same(specific, other) for other in text.specifics
        )
    if specific.kind != NUMBER:
        return any(matching.same(specific, other) for other in text.specifics)
    return False


def _instead(
    specific: Specific,
    pin: Decision,
    text: Reading,
    relevant: list[int],
    claimed: frozenset[str],
    bindings: Bindings,
) -> Specific | None:
    """What the text says in place of ``specific``, where the decision's subject is: a
    value of the same kind near the words of its clause, that no pinned value holds."""
    context = _context_stems(pin, specific)
    for index in relevant:
        for other in text._by_sentence[index]:
            # a setting's key is its own: maxUnavailable 2 holds no pinned minAvailable 2
            if other.key in claimed and not other.dimension.startswith("key:"):
                continue
            if not matching.replaces(specific, other):
                continue
            if not bindings.free(other):
                continue
            if any(matching.same(p, other) for p in pin.specifics):
                continue
            keyed = specific.dimension.startswith("key:") and other.dimension.startswith("key:")
            if (
                specific.kind in (QUANTITY, NUMBER, VERSION)
                and not keyed  # minAvailable and maxUnavailable: the key is the context
                and not _same_context(context, text, other, index)
            ):
                continue
            return other
    return None


def _context_stems(pin: Decision, specific: Specific) -> frozenset[str]:
    """The stems of the clause of the decision that holds ``specific``."""
    text = pin.reading.prepared.text
    for start, end in clauses(text):
        if start <= specific.start < end:
            return frozenset(content_stems(text[start:end]))
    return frozenset()


def _same_context(context: frozenset[str], text: Reading, other: Specific, index: int) -> bool:
    """Whether ``other`` is said of what ``specific`` was: a stem of the decision's clause
    is in the words around it ("access tokens: 30 min" for "access tokens expire after
    15 minutes"), within its sentence."""
    if not context:
        return True
    start, end = text.sentence_spans[index]
    whole = text.prepared.text
    # the words around it, without the names and paths there ("values-prod.yaml: replicas 4"
    # says nothing of helm)
    chars = list(
        whole[max(start, other.start - _CONTEXT_BEFORE) : min(end, other.end + _CONTEXT_AFTER)]
    )
    offset = max(start, other.start - _CONTEXT_BEFORE)
    for specific in text._by_sentence[index]:
        if specific.kind in (IDENTIFIER, QUOTED) or specific is other:
            for at in range(max(specific.start, offset), min(specific.end, offset + len(chars))):
                chars[at - offset] = " "
    return bool(context & frozenset(content_stems("".join(chars))))


_CONTEXT_BEFORE = 48
_CONTEXT_AFTER = 32


def _reversal(pin: Decision, text: Reading, strong: list[int]) -> Changed | None:
    """A rule said the other way round, clause by clause of the decision: most of a
    clause's items that come back come back on the other side of a negation ("must never
    use --no-verify" -> "may use --no-verify"; "rotate the keys" -> "decided against
    rotating them"; "HS256 is not allowed" -> "signed with HS256")."""
    if not strong:
        return None
    polarity = pin.reading.polarity
    pin_text = pin.reading.prepared.text
    lifted = _lifted(pin_text, text, strong) or _widened(pin, text, strong)
    if lifted is not None:
        return lifted
    items = _items(pin)
    # a word the decision says both ways ("never commit"; "pre-commit hooks run") says
    # nothing of its direction
    sides: dict[str, set[bool]] = {}
    for item, at in items:
        sides.setdefault(item, set()).add(polarity.negation_at(at) is not None)
    items = [(i, at) for i, at in items if len(sides[i]) == 1]
    for clause_start, clause_end in _rule_clauses(pin_text):
        found = _clause_reversal(
            pin, text, strong, [(i, at) for i, at in items if clause_start <= at < clause_end]
        )
        if found is not None:
            item, now, at = found
            pinned = polarity.negation_at(at) or rule_word(pin_text[clause_start:clause_end])
            return Changed(pinned or _written_item(pin, item, [(item, at)]), now)
    return None


_RESTRICTION = re.compile(r"\b(?:only|must|always|required|exclusively)\b", re.IGNORECASE)
# "no longer need to", "no longer enforced": a rule lifted
_NO_LONGER = re.compile(
    r"\bno\s+longer\s+(?:\w+\s+){0,2}?(?:needs?|required?|enforced|mandatory|applies|apply"
    r"|holds?|has\s+to|have\s+to|must)\b[^.;\n]*",
    re.IGNORECASE,
)
# "any team member may", "from any acme.io address": an "only" opened to all
_ANY = re.compile(
    r"\b(?:any|anyone|anybody|everyone|everybody|whoever|whichever)\b[^.;,\n]*", re.IGNORECASE
)
_ONLY = re.compile(r"\b(?:only|exclusively|solely|just)\b", re.IGNORECASE)


def _lifted(pin_text: str, text: Reading, strong: list[int]) -> Changed | None:
    """A restriction (only, must) the text says is lifted or opened to all."""
    rule = _RESTRICTION.search(pin_text)
    if rule is None:
        return None
    for index in strong:
        sentence = text.prepared.text[slice(*text.sentence_spans[index])]
        lifted = _NO_LONGER.search(sentence)
        if lifted:
            return Changed(rule.group(0), lifted.group(0).strip())
        opened = _ANY.search(sentence)
        if opened and rule.group(0).lower() == "only" and not _ONLY.search(sentence):
            return Changed(rule.group(0), opened.group(0).strip())
    return None


# "only the platform team", "only in the UI": what an "only" keeps to, up to its clause's end
_ONLY_WHAT = re.compile(
    r"\bonly\s+((?:(?:in|on|at|from|by|for|to|via)\s+)?(?:the\s+|a\s+|an\s+)?[\w-]+(?:\s+[\w-]+)?)",
    re.IGNORECASE,
)
_VERB_AT_START = re.compile(r"^\s*([a-z]{4,})\b")
_ALTERNATIVE_OR = re.compile(r"\s+(?:or|and)\s+(?:the\s+|a\s+|an\s+|any\s+)?[\w-]+(?:\s+[\w-]+)?")


def _widened(pin: Decision, text: Reading, strong: list[int]) -> Changed | None:
    """An "only" the text widens or moves: "only the platform team" said as "the platform
    team or the service owner"; "convert only in the UI" said as "the backend converts",
    with no word of the UI. A clause that says "only" itself keeps the restriction."""
    pin_text = pin.reading.prepared.text
    for start, end in _rule_clauses(pin_text):
        clause = pin_text[start:end]
        restricted = _ONLY_WHAT.search(clause)
        if restricted is None:
            continue
        kept_to = content_stems(restricted.group(1))
        if not kept_to:
            continue
        verb = _VERB_AT_START.match(clause)
        for index in strong:
            for c_start, c_end in text.polarity._clauses:
                sentence = text.sentence_spans[index]
                if not sentence[0] <= c_start < sentence[1]:
                    continue
                said = text.prepared.text[c_start:c_end]
                if _ONLY.search(said):
                    continue
                stems = content_stems(said)
                where = _object_end(said, kept_to)
                if where is not None:  # "the platform team or the service owner"
                    more = _ALTERNATIVE_OR.match(said, where)
                    if more and not set(content_stems(more.group(0))) <= set(kept_to):
                        return Changed(
                            "only " + restricted.group(1), said[: more.end()].strip(" —-")
                        )
                    continue
                # "the backend converts": the restricted act, done where the "only" is not
                if (
                    verb
                    and not text.polarity.any_negation(c_start, c_end)
                    and not restricted.group(1).lower().startswith(("the ", "a ", "an "))
                    and any(_same_stem(libraries.stem(verb.group(1)), x) for x in stems)
                    and not any(_has_stem(frozenset(stems), x) for x in kept_to)
                ):
                    return Changed("only " + restricted.group(1), said.strip())
    return None


def _object_end(said: str, stems: list[str]) -> int | None:
    """Where the words ``stems`` end when ``said`` holds them in a row, else None."""
    found = words(said)
    for i in range(len(found)):
        run = [w for w in found[i:] if w[0] not in STOPWORDS][: len(stems)]
        if len(run) == len(stems) and all(
            libraries.stem(w) == x for (w, _s, _e), x in zip(run, stems, strict=True)
        ):
            return run[-1][2]
    return None


def _swapped_modifier(pin: Decision, text: Reading, strong: list[int]) -> Changed | None:
    """ "transaction mode" said as "session mode": the pin's word before a noun is gone from
    the text, and another word stands before that noun where the decision is spoken of."""
    pin_text = pin.reading.prepared.text
    taken = [(s.start, s.end) for s in pin.specifics]
    pin_words = [
        (w, s, e)
        for w, s, e in words(pin_text)
        if _plain_word(w) and not any(a <= s < b for a, b in taken)
    ]
    for (a, a_start, a_end), (b, b_start, b_end) in itertools.pairwise(pin_words):
        if pin_text[a_end:b_start].strip(" -") or libraries.stem(a) in text.stems:
            continue
        if re.search(r"(?:ed|ing)$", b):
            continue  # "minimum supported": a verb's form is no noun to qualify
        head = libraries.stem(b)
        for index in strong:
            start, end = text.sentence_spans[index]
            sentence = text.prepared.text[start:end]
            found = words(sentence)
            # lowercase, or capital only for starting the line: "Argo Rollouts" is a name
            lowercase = {s for _w, s, _e in found if sentence[s : s + 1].islower()}
            lowercase |= {
                s
                for w, s, _e in found[:1]
                if not re.search(r"[a-z]", sentence[:s]) and sentence[s + 1 : s + len(w)].islower()
            }
            for (c, _cs, c_end), (d, d_start, _de) in itertools.pairwise(found):
                if libraries.stem(d) != head or sentence[c_end:d_start].strip(" -"):
                    continue
                if (
                    _cs in lowercase  # "Argo Rollouts" names a product, not a kind of rollout
                    and _plain_word(c)
                    and _modifier(a)
                    and _modifier(c)
                    and _kind_word(c)
                    and libraries.stem(c) not in pin.stems
                    and c[:4] != a[:4]  # grads for gradient: the same word cut short
                    # "do not hand-roll plural logic" -> "custom plural logic should not
                    # come back": a negated thing said in other words, negated too
                    and not (
                        pin.reading.polarity.negation_at(a_start)
                        and text.polarity.clause_negation_at(start + d_start)
                    )
                ):
                    before = pin.reading.prepared.original(a_start, b_end)
                    return Changed(before, f"{c} {d}")
    return None


_QUALIFIER = re.compile(r"\s*(?:for|of|on)\s+(?:the\s+|all\s+)?([a-z]{3,})\b", re.IGNORECASE)


def _qualifier(text: str, specific: Specific) -> str | None:
    """The stem of what a value is said of: "0.1 for traces", "10% of errors"."""
    match = _QUALIFIER.match(text, specific.end)
    return libraries.stem(match.group(1).lower()) if match else None


def _qualified(text: str, specific: Specific) -> str:
    """A value with what it is said of, as written ("0.1 for traces")."""
    match = _QUALIFIER.match(text, specific.end)
    return text[specific.start : match.end() if match else specific.end]


def _requalified(pin: Decision, text: Reading) -> Changed | None:
    """Two values of a decision, each said of its own thing ("0.1 for traces and 1.0 for
    errors"), and the text gives one thing the other's value ("10% of errors")."""
    pin_text = pin.reading.prepared.text
    qualified = [
        (p, q)
        for p in pin.specifics
        if p.kind in (NUMBER, QUANTITY) and (q := _qualifier(pin_text, p)) is not None
    ]
    if len({q for _p, q in qualified}) < 2:
        return None
    for other in text.specifics:
        if other.kind not in (NUMBER, QUANTITY):
            continue
        said_of = _qualifier(text.prepared.text, other)
        if said_of is None:
            continue
        for pinned, of in qualified:
            if (
                of == said_of
                and not matching.same(pinned, other)
                and any(matching.same(p, other) for p, q in qualified if q != of)
            ):
                return Changed(_qualified(pin_text, pinned), _qualified(text.prepared.text, other))
    return None


# "partitioned by event_date, not by ingestion time": the act, what it takes, what it rejects
_CONTRAST = re.compile(
    r"\b(\w{4,})\s+(by|in|on|at|with|as|from|via|for)\s+([^,;.]+?),?\s+not\s+(?:\2\s+)?([^,;.]+)",
    re.IGNORECASE,
)


def _rejected_taken(pin: Decision, text: Reading, strong: list[int]) -> Changed | None:
    """ "partitioned by event_date, not by ingestion time" said as "partition by ingestion
    date": the act done with what the decision rejected, and not with what it chose."""
    pinned = _CONTRAST.search(pin.reading.prepared.text)
    if pinned is None:
        return None
    verb = libraries.stem(pinned.group(1).lower())
    chosen = set(content_stems(pinned.group(3)))
    rejected = set(content_stems(pinned.group(4))) - chosen
    if not rejected:
        return None
    act = re.compile(rf"\b(\w{{4,}})\s+{pinned.group(2)}\s+([^,;.]+)", re.IGNORECASE)
    for index in strong:
        sentence = text.prepared.text[slice(*text.sentence_spans[index])]
        for said in act.finditer(sentence):
            if not _same_stem(libraries.stem(said.group(1).lower()), verb):
                continue
            stems = set(content_stems(said.group(2)))
            phrase = said.group(2).lower().replace("_", " ")
            taken = pinned.group(3).strip().lower().replace("_", " ")
            if stems & rejected and taken not in phrase and not _ONLY.search(sentence):
                if text.polarity.any_negation(*text.sentence_spans[index]):
                    continue
                rejection = pinned.string[pinned.end(3) : pinned.end(4)].strip(" ,")
                return Changed(rejection, said.group(0).strip())
    return None


_LIST_JOIN = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s)\s*")


# "eu-central-1 first, then us-west-2", "staging before prod": an order of two values
_ORDER = re.compile(r"\b(?:first|then|before|followed\s+by)\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|last)\b", re.IGNORECASE)


def _reordered(pin: Decision, text: Reading, strong: list[int]) -> Changed | None:
    """Two values the decision puts in order ("A first, then B") said in the other order
    ("B first, then A") by a sentence that also speaks of an order."""
    pin_text = pin.reading.prepared.text
    values = [s for s in pin.specifics if s.kind in (IDENTIFIER, NAME, VERSION)]
    for a, b in itertools.combinations(values, 2):
        between = pin_text[a.end : b.start]
        if matching.same(a, b) or not _ORDER.search(between) or _AFTER.search(pin_text):
            continue
        for index in strong:
            start, end = text.sentence_spans[index]
            sentence = text.prepared.text[start:end]
            if not _ORDER.search(sentence) or _AFTER.search(sentence):
                continue
            said = text._by_sentence[index]
            a_at = next((o for o in said if matching.same(a, o)), None)
            b_at = next((o for o in said if matching.same(b, o)), None)
            if a_at is not None and b_at is not None and b_at.start < a_at.start:
                return Changed(
                    pin.reading.prepared.original(a.start, b.end),
                    text.prepared.original(b_at.start, a_at.end),
                )
    return None


def _lists(reading: Reading) -> list[list[Specific]]:
    """The runs of two or more identifiers joined by commas, "and" or "or"."""
    text = reading.prepared.text
    runs: list[list[Specific]] = []
    run: list[Specific] = []
    for specific in reading.specifics:
        if specific.kind != IDENTIFIER:
            continue
        if run and _LIST_JOIN.fullmatch(text[run[-1].end : specific.start]):
            run.append(specific)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = [specific]
    if len(run) >= 2:
        runs.append(run)
    return runs


def _grown_list(pin: Decision, text: Reading, claimed: frozenset[str]) -> Changed | None:
    """A pinned list said whole with more in it ("image/png, image/jpeg, application/pdf"
    said with image/webp among them): what the list admits has changed."""
    for pinned in _lists(pin.reading):
        for said in _lists(text):
            if not all(any(matching.same(p, o) for o in said) for p in pinned):
                continue
            extra = [
                o
                for o in said
                if o.key not in claimed and not any(matching.same(p, o) for p in pinned)
            ]
            if extra and all(any(matching.shaped_like(p, o) for p in pinned) for o in extra):
                written = pin.reading.prepared.original(pinned[0].start, pinned[-1].end)
                now = text.prepared.original(said[0].start, said[-1].end)
                return Changed(written, now)
    return None


def _opposite_word(pin: Decision, text: Reading, touching: list[int]) -> Changed | None:
    """ "automatically" said as "manual", "server-side" as "client-side": a word of the
    decision the text does not say, and its opposite said where the decision is spoken
    of, either as a word the decision does not use or in the decision's own compound."""
    pin_text = pin.reading.prepared.text
    taken = [(s.start, s.end) for s in pin.specifics if s.kind != NAME]
    pin_words = [(w, s, e) for w, s, e in words(pin_text) if not any(a <= s < b for a, b in taken)]
    for position, (word, start, end) in enumerate(pin_words):
        stem = libraries.stem(word.lower())
        other = opposite(stem)
        if other is None or stem in text.stems:
            continue
        following = pin_words[position + 1][0].lower() if position + 1 < len(pin_words) else ""
        joined = pin_text[end : pin_words[position + 1][1]] if following else ""
        for index in touching:
            sentence_start, sentence_end = text.sentence_spans[index]
            said = words(text.prepared.text[sentence_start:sentence_end])
            for place, (now, _s, _e) in enumerate(said):
                if libraries.stem(now.lower()) != other:
                    continue
                after = said[place + 1][0].lower() if place + 1 < len(said) else ""
                if other in pin.stems and not (following and after == following):
                    continue  # the decision says both: only its own compound, turned, counts
                pinned = pin.reading.prepared.original(start, end)
                if following and after == following:
                    return Changed(f"{pinned}{joined}{following}", f"{now}{joined}{after}")
                return Changed(pinned, now)
    return None


_ALTERNATIVE = re.compile(
    r"\b(use|prefer|pick|choose|write)\s+([^\s,;.]+(?:\s[^\s,;.]+)?)\s+instead\b", re.I
)


def _other_alternative(pin: Decision, text: Reading, strong: list[int]) -> Changed | None:
    """ "use commas instead" said as "use en-dashes instead": another alternative."""
    pinned = _ALTERNATIVE.search(pin.reading.prepared.text)
    if pinned is None:
        return None
    wanted = frozenset(content_stems(pinned.group(2)))
    for index in strong or range(len(text.sentence_spans)):
        sentence = text.prepared.text[slice(*text.sentence_spans[index])]
        for said in _ALTERNATIVE.finditer(sentence):
            if said.group(1).lower() != pinned.group(1).lower():
                continue
            if not wanted & frozenset(content_stems(said.group(2))):
                return Changed(pinned.group(0), said.group(0))
    return None


def _modifier(word: str) -> bool:
    """A word that can name a kind of its noun ("transaction" mode), not a verb's form."""
    return not re.search(r"(?:ed|ing|s)$", word)


def _kind_word(word: str) -> bool:
    """A word long enough to name a kind ("session" mode, "rebase"-merge): short common
    adjectives (whole, full, main) rephrase more often than they change a kind."""
    return len(word) >= 6


def _plain_word(word: str) -> bool:
    return len(word) >= 4 and word not in STOPWORDS and not any(ch.isdigit() for ch in word)


def _sentence_at(text: Reading, place: int) -> str:
    return text.prepared.text[slice(*text.sentence_span(place))]


def _allowing(text: Reading) -> Callable[[int], str | None]:
    """The permission that governs a place: "may"/"can" before it in its clause."""

    def allowance(place: int) -> str | None:
        cue = text.polarity.allowance_at(place)
        if cue is None:
            return None
        if not re.fullmatch(r"may|can|could|free\s+to|feel\s+free", cue, re.IGNORECASE):
            return cue  # "local applies are fine": an adjective allows its subject
        for start, end in text.polarity._clauses:
            if start <= place < end:
                before = text.prepared.text[start:place].lower()
                return cue if cue.lower() in before else None
        return None

    return allowance


def _holds_negated(pin: Decision, items: list[tuple[str, int]], text: Reading, place: int) -> bool:
    """Whether the text's clause at ``place`` also holds what the pin itself negates: the
    negation there is the pin's own, moved ("the client never sees flag rules" -> "flag
    rules are never shipped to the client")."""
    polarity = pin.reading.polarity
    negated = {item for item, at in items if polarity.negation_at(at)}
    # "npm instead of pnpm" swaps the two: there the pin's negated item must be negated
    # too; a plain negation ("flag rules never reach the client") is the pin's own
    contrast = re.match(r"instead|rather", text.polarity.negation_at(place) or "", re.I)
    for start, end in text.polarity._clauses:
        if start <= place < end:
            return any(
                start <= other < end
                and (not contrast or text.polarity.negation_at(other) is not None)
                for item in negated
                for other in _occurrences_in(item, pin, text, (start, end))
            )
    return False


def _rule_clauses(text: str) -> list[tuple[int, int]]:
    """The parts of a decision that each state a rule: its sentences and ;-parts."""
    spans, position = [], 0
    for match in re.finditer(r"[;.!?](?=\s|$)|\n", text):
        spans.append((position, match.start()))
        position = match.end()
    spans.append((position, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


_WHOLE_RULE = 0.75  # share of a negated clause's items said plainly that reverses it


def _clause_reversal(
    pin: Decision, text: Reading, strong: list[int], items: list[tuple[str, int]]
) -> tuple[str, str, int] | None:
    """The first item of one clause of the decision found on the other side, when more of
    what the clause negates (or of what it affirms) is found reversed than kept."""
    polarity = pin.reading.polarity
    sides_in_pin: dict[str, set[bool]] = {}
    for item, at in items:
        sides_in_pin.setdefault(item, set()).add(polarity.negation_at(at) is not None)
    flipped = {True: [], False: []}  # type: dict[bool, list[tuple[str, str, int]]]
    agreeing = {True: 0, False: 0}
    plain: list[tuple[str, str, int]] = []  # said without the rule's "never", nothing allowing
    plain_places: list[tuple[str, str, int]] = []
    negated_items = 0
    said_negated = 0  # of what the rule negates, the items the text says at all
    for item, at in items:
        sides = sides_in_pin.pop(item, None)
        if sides is None or len(sides) != 1:
            continue  # said both ways in the pin ("squash-merge; no merge commits")
        negated = next(iter(sides))
        negated_items += negated
        if not negated and _amount(item):
            continue  # "limited to 7" is "rejects more than 7": a value is no direction
        places = _occurrences(item, pin, at, text, strong)
        if not places:
            continue
        said_negated += negated
        cues = [text.polarity.negation_at(place) for place in places]
        # what the pin negates is negated where its clause is ("flash writes never happen")
        said_in_negation = any(text.polarity.clause_negation_at(place) for place in places)
        if negated and not said_in_negation:
            allowance = next((a for a in map(_allowing(text), places) if a is not None), None)
            if allowance is not None:
                flipped[True].append((item, allowance, at))
            elif polarity.rule_negation_at(at):
                plain.append((item, _affirmed(text, places[0]), at))
                plain_places.append((item, "", places[0]))
        elif (
            not negated
            and all(cue is not None for cue in cues)
            and not any(_holds_negated(pin, items, text, place) for place in places)
        ):
            flipped[False].append((item, str(cues[0]), at))
        else:
            agreeing[negated] += 1
    # a negated rule said plainly: most of what it negated, and nothing of it negated; but
    # "X instead of Y" with X kept says Y only to say it was replaced
    contrast = any(
        re.match(r"instead|rather", polarity.negation_at(at) or "", re.IGNORECASE)
        for _i, _n, at in plain
    )
    if contrast and agreeing[False]:
        plain = []
    if any(_ONLY.search(_sentence_at(text, place)) for _i, _n, place in plain_places):
        plain = []  # "only from CI" says "never locally" its own way
    # with nothing of the rule's affirmed side said, half of what it negated is enough
    share = _WHOLE_RULE if agreeing[False] else 0.5
    # or, its verb said in other words ("no longer supports offline mode" -> "keeps full
    # offline mode"), all of what the text says of it, two items at least, said plainly
    # and nothing negated in the sentences that say them
    whole = (
        len(plain) >= 2
        and len(plain) == said_negated
        and not any(
            text.polarity.any_negation(*text.sentence_span(place)) for _i, _n, place in plain_places
        )
    )
    if plain and not agreeing[True] and (len(plain) >= share * negated_items or whole):
        flipped[True] += plain
    for side in (True, False):
        if flipped[side] and len(flipped[side]) > agreeing[side]:
            return flipped[side][0]
    return None


def _written_item(pin: Decision, item: str, items: list[tuple[str, int]]) -> str:
    """An item of the decision as written (the word itself, not its stem)."""
    at = next(start for key, start in items if key == item)
    for _word, start, end in words(pin.reading.prepared.text):
        if start == at:
            return pin.reading.prepared.original(start, end)
    return item.removeprefix("stem:")


def _amount(item: str) -> bool:
    return item.startswith(("n:", "q:", "t:", "v:", "--")) or item[:1].isdigit()


def _affirmed(text: Reading, place: int) -> str:
    """The clause that states, unnegated, what the pin negated."""
    whole = text.prepared.text
    for start, end in text.polarity._clauses:
        if start <= place < end:
            return text.prepared.original(start, end).strip()
    return whole[place : place + 40]


def _items(pin: Decision) -> list[tuple[str, int]]:
    """What a rule is about: its typed specifics (by key) and the stems of its words."""
    items: list[tuple[str, int]] = [(s.key, s.start) for s in pin.specifics]
    text = pin.reading.prepared.text
    taken = [(s.start, s.end) for s in pin.specifics]
    for word, start, _end in words(text):
        if len(word) < 3 or word in STOPWORDS or any(s <= start < e for s, e in taken):
            continue
        if PERMISSIVE.fullmatch(word):
            continue
        items.append(("stem:" + libraries.stem(word), start))
    return items


def _same_stem(a: str, b: str) -> bool:
    """One word's stem, or one the stemmer cut otherwise ("autoscaling" is autosc,
    "autoscale" autoscal): of six letters or more, one begins the other."""
    return a == b or (min(len(a), len(b)) >= 6 and (a.startswith(b) or b.startswith(a)))


def _occurrences_in(item: str, pin: Decision, text: Reading, span: tuple[int, int]) -> list[int]:
    """Where ``item`` appears in ``text[span]``."""
    start, end = span
    if item.startswith("stem:"):
        stem = item[5:]
        return [
            start + s
            for word, s, _e in words(text.prepared.text[start:end])
            if len(word) >= 3 and _same_stem(libraries.stem(word), stem)
        ]
    specifics = [s for s in pin.specifics if s.key == item]
    return [
        o.start
        for o in text.specifics
        if start <= o.start < end and any(matching.same(s, o) for s in specifics)
    ]


def _occurrences(
    item: str, pin: Decision, at: int, text: Reading, relevant: list[int]
) -> list[int]:
    """Where ``item`` appears in the relevant sentences of ``text``."""
    places: list[int] = []
    if item.startswith("stem:"):
        stem = item[5:]
        inside = [(o.start, o.end) for o in text.specifics if o.kind in (IDENTIFIER, QUOTED)]
        for index in relevant:
            start, end = text.sentence_spans[index]
            for word, s, _e in words(text.prepared.text[start:end]):
                if any(a <= start + s < b for a, b in inside):
                    continue  # "prod" of infra/prod/ is a path's part, not the word
                if len(word) >= 3 and _same_stem(libraries.stem(word), stem):
                    places.append(start + s)
        return places
    specific = next(s for s in pin.specifics if s.key == item and s.start == at)
    for index in relevant:
        for other in text._by_sentence[index]:
            if matching.same(specific, other):
                places.append(other.start)
    return places


def judge_all(decisions: Sequence[str], text: str) -> list[Verdict]:
    """Every decision judged against one text (a summary, or a restatement not numbered)."""
    pins = [Decision.of(d) for d in decisions]
    reading = Reading.of(text)
    claimed = frozenset(s.key for pin in pins for s in pin.specifics)
    bindings = Bindings.of(pins, reading)
    return [
        judge(pin, reading, claimed=claimed, bindings=bindings, owner=owner)
        for owner, pin in enumerate(pins)
    ]
