"""The direction of a rule: which words of a text are under a negation.

"Commits must never use --no-verify": ``--no-verify`` is under "never".
"Commits may use --no-verify": it is not, and "may" allows it. A rule whose
items change side is a reversed rule. Negations reach forward to the end of
their clause ("never use X"); a few words negate their whole clause from behind
("X is forbidden"); a heading such as "Rejected approaches" negates its lines.
"""

from __future__ import annotations

import re

from supervisor.recognize.judge.text import clauses

# "no more than 3" and "not later than" bound a value; they negate nothing.
_LIMIT = (
    r"(?:no|not)\s+(?:(?:more|less|fewer|later|earlier|longer|shorter|higher|lower|greater"
    r"|bigger|larger|smaller|sooner)\s+than|only)\b"
)
FORWARD = re.compile(
    rf"(?<![\w-])(?!{_LIMIT})(?:no\s+longer|never|not|no|nor|neither|nothing|none|nowhere|nobody"
    r"|without|avoid(?:s|ed|ing)?"
    r"|don'?t|doesn'?t"
    r"|didn'?t|won'?t|mustn'?t|shouldn'?t|can'?t|cannot|isn'?t|aren'?t|wasn'?t|weren'?t"
    r"|no\s+longer|stop(?:s|ped)?\s+\w+ing|decided\s+against|instead\s+of|rather\s+than"
    r"|(?P<state>drop|remove|disable|turn\s+off|switch\s+off|replac(?:e|es|ed|ing)"
    r"|(?:migrat|switch|mov|rewr?itt?)\w*\s+(?:away\s+)?from)"
    r"|refus(?:e|es|ed|ing)\s+to|forbid(?:s)?|ban(?:s)?|disallow(?:s)?"
    r"|prohibit(?:s)?|opt(?:ed)?\s+out\s+of)(?![\w-])",
    re.IGNORECASE,
)
BACKWARD = re.compile(
    r"\b(?:forbidden|disallowed|prohibited|banned|rejected|ruled\s+out|off[- ]limits"
    r"|off\s+the\s+table|not\s+allowed|not\s+permitted|never\s+allowed|vetoed|declined"
    r"|out\s+of\s+scope|a\s+no[- ]go|not\s+an\s+option|refused|denied"
    # a state, not a rule: what is off is negative, but saying it otherwise reverses nothing
    r"|(?P<state>deprecated|abandoned|dropped|discarded|disabled|turned\s+off|switched\s+off"
    r"|(?:is|are|stays?|kept|left)\s+off|excluded|removed|(?:phased|is|are|now)\s+out"
    r"|out(?=\s*$)))\b",
    re.IGNORECASE,
)
# "won't let lobbies go above 10", "never below 3 replicas": a negation that bounds a
# value states a limit ("capped at 10"), not a rule turned round
_BOUND = re.compile(
    # in the negation's own clause, not a condition's ("no order is taken if stock is below 5")
    r"(?:(?!\b(?:if|when|whenever|while|unless|once|until)\b)[^.;:,])*?\b(?:above|over|beyond|past|below|under|exceed(?:s|ed|ing)?"
    r"|(?:more|less|fewer|longer|shorter|higher|lower)\s+than)\s+\d",
    re.IGNORECASE,
)
_VERBAL = re.compile(r"never|not|no\s+longer|cannot|\w+n'?t", re.IGNORECASE)
_PASSIVE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+$", re.IGNORECASE)
PERMISSIVE = re.compile(
    r"\b(?:may|can|could|allowed|permitted|fine|ok|okay|optional(?:ly)?|free\s+to|acceptable"
    r"|is\s+allowed|are\s+allowed|go\s+ahead|feel\s+free|whenever)\b",
    re.IGNORECASE,
)
_NEGATIVE_HEADING = re.compile(
    r"\b(?:reject(?:ed)?|avoid|don'?t|do\s+not|never|not\s+to|ruled\s+out|anti-?patterns?"
    r"|abandoned|dropped|discarded|won'?t)\b",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^\s*(?:#+\s*(.+?)\s*#*|\*\*(.+?)\*\*:?|([A-Z][^.!?\n]{0,60}):)\s*$")
# The rule's word as a person would quote it: must / never / only / no longer ...
RULE_WORDS = re.compile(
    r"\b(?:must\s+not|must\s+never|must|never|always|only|no\s+longer|decided\s+against"
    r"|instead\s+of|rather\s+than|do\s+not|don'?t|not|no|avoid|should|required?)\b",
    re.IGNORECASE,
)


class Polarity:
    """Which positions of a text are under a negation, and which clauses allow."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._negated: list[tuple[int, int, str]] = []
        self._permissive: list[tuple[int, int, str]] = []
        self._clauses = clauses(text)
        self._states: set[tuple[int, int]] = set()
        for start, end in self._clauses:
            clause = text[start:end]
            backward = BACKWARD.search(clause)
            if backward:
                self._negated.append((start, end, backward.group(0)))
                if backward.group("state"):
                    self._states.add((start, end))
            for match in FORWARD.finditer(clause):
                if _BOUND.match(clause, match.end()):
                    continue
                # "floats are never used": a passive negates its subject too
                passive = _PASSIVE.search(clause[: match.start()])
                # "floats never.": a negation that ends its clause negates what came before
                last = not clause[match.end() :].strip(" .!?;:,)—-")
                begin = start if passive or last else start + match.start()
                self._negated.append((begin, end, match.group(0)))
                # "Disable autoscaling": a switch turned off by order, when it opens its
                # clause, is a rule ("drop Node 16" may still come back as "Node 16 goes")
                opens = not clause[: match.start()].strip(" \t\n-*>#0123456789.)")
                switch = re.match(r"disable|turn|switch", match.group(0), re.IGNORECASE)
                if match.group("state") and not (opens and switch):
                    self._states.add((start + match.start(), end))
            allow = PERMISSIVE.search(clause)
            if allow:
                self._permissive.append((start, end, allow.group(0)))
        self._headings = _negative_heading_spans(text)

    def negation_at(self, position: int) -> str | None:
        """The cue that negates ``position``, or None."""
        for start, end, cue in self._negated:
            if start <= position < end:
                return cue
        for start, end, cue in self._headings:
            if start <= position < end:
                return cue
        return None

    def clause_negation_at(self, position: int) -> str | None:
        """The cue of a negation anywhere in the clause that holds ``position``, or None:
        "flash writes never happen" negates its subject as much as its verb."""
        cue = self.negation_at(position)
        if cue is not None:
            return cue
        for start, end in self._clauses:
            if start <= position < end:
                # a verb's negation, not "rather than the body", which negates what follows
                return next(
                    (
                        c
                        for s, e, c in self._negated
                        if s < end and start < e and _VERBAL.fullmatch(c)
                    ),
                    None,
                )
        return None

    def rule_negation_at(self, position: int) -> str | None:
        """The cue that negates ``position`` as a rule does (never, not, forbidden), not as
        a state (disabled, removed), or None."""
        for start, end, cue in self._negated:
            if start <= position < end and (start, end) not in self._states:
                return cue
        return None

    def allowance_at(self, position: int) -> str | None:
        for start, end, cue in self._permissive:
            if start <= position < end:
                return cue
        return None

    def any_negation(self, start: int, end: int) -> bool:
        return any(s < end and start < e for s, e, _c in self._negated) or any(
            s <= start < e for s, e, _c in self._headings
        )


def _negative_heading_spans(text: str) -> list[tuple[int, int, str]]:
    """The spans of text under a heading that negates ("## Rejected approaches")."""
    spans: list[tuple[int, int, str]] = []
    position = 0
    current: tuple[int, str] | None = None
    for line in text.splitlines(keepends=True):
        heading = _HEADING.match(line)
        if heading:
            if current is not None:
                spans.append((current[0], position, current[1]))
                current = None
            title = next(g for g in heading.groups() if g)
            negative = _NEGATIVE_HEADING.search(title)
            if negative:
                current = (position + len(line), negative.group(0))
        position += len(line)
    if current is not None:
        spans.append((current[0], len(text), current[1]))
    return spans


def rule_word(text: str) -> str | None:
    """The word that states the rule's direction, as written (``never``, ``must``)."""
    match = RULE_WORDS.search(text)
    return match.group(0) if match else None


# The families of a rule's direction, and the words that carry each in other wording.
_DIRECTIONS = (
    (
        re.compile(r"\bskip(?:s|ped|ping)?\b", re.IGNORECASE),
        re.compile(
            r"\b(?:skip\w*|ignor\w*|exclud\w*|disabl\w*|quarantin\w*|not\s+run|off)\b",
            re.IGNORECASE,
        ),
    ),
    (
        re.compile(r"\bonly\b", re.IGNORECASE),
        re.compile(
            r"\b(?:only|exclusively|solely|sole|just|nothing\s+but|no\s+other|nowhere\s+else"
            r"|single|alone|limited\s+to|restricted\s+to|\+)",
            re.IGNORECASE,
        ),
    ),
    (
        re.compile(r"\b(?:must|always|required?)\b", re.IGNORECASE),
        re.compile(
            r"\b(?:must|always|require[ds]?|mandatory|have\s+to|has\s+to|needs?\s+to|shall"
            r"|enforced?|every|all|each)\b",
            re.IGNORECASE,
        ),
    ),
)


def directions(text: str) -> list[str]:
    """The words of ``text`` that state its rule's direction, as written: its negations
    (never, no, decided against...), "only", "must"."""
    found = [m.group(0) for m in FORWARD.finditer(text)]
    found += [m.group(0) for m in BACKWARD.finditer(text) if not m.group("state")]
    for word, _carriers in _DIRECTIONS:
        found += [m.group(0) for m in word.finditer(text)]
    return found


def carried(direction: str, text: str) -> bool:
    """Whether ``text`` says the direction ``direction`` in any of its usual words."""
    for word, carriers in _DIRECTIONS:
        if word.fullmatch(direction):
            return bool(carriers.search(text))
    return bool(FORWARD.search(text) or BACKWARD.search(text))


# The opposites that rules turn on, by Snowball stem. No well-kept source of antonyms
# installs offline (WordNet's data comes from a download), and rules use few of them:
# this table is those few, written once.
_OPPOSITE_PAIRS = (
    ("automat", "manual"),
    ("enabl", "disabl"),
    ("allow", "deni"),
    ("client", "server"),
    ("sync", "async"),
    ("synchron", "asynchron"),
    ("includ", "exclud"),
    ("upper", "lower"),
    ("public", "privat"),
    ("read", "write"),
    ("min", "max"),
    ("minimum", "maximum"),
)
OPPOSITES: dict[str, str] = {a: b for a, b in _OPPOSITE_PAIRS} | {b: a for a, b in _OPPOSITE_PAIRS}


def opposite(stem: str) -> str | None:
    """The stem of the word that says the opposite of ``stem`` in a rule, or None."""
    return OPPOSITES.get(stem)
