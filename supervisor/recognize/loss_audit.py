"""The loss audit: which pinned decisions a compaction summary kept, degraded or lost.

A summary of a summary keeps the shape of a decision and sheds its specifics
("tokens in Redis with a short TTL" for "refresh tokens in Redis, 15 minute
TTL, rotate on use"). So the audit does not compare prose: it extracts the
*key terms* of each decision — numbers with their units, identifiers, quoted
values, paths, flags, capitalised names — and looks for each in the summary.
A decision whose terms are mostly gone is **lost**; one missing some is
**degraded**.
"""

from __future__ import annotations

import re

from supervisor.recognize.observations import DecisionLoss, LossAudit

_UNITS = (
    r"ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|months?|years?"
    r"|b|kb|mb|gb|tb|kib|mib|gib|tib|bytes?|k|%|percent|px|rpm|rps|qps|tokens?|x|req|requests?"
    r"|users?|rows?|retries|attempts?|items?|workers?|threads?|cores?|nodes?|replicas?"
)
_NUMBER = re.compile(
    rf"(?<![\w.])(\d+(?:[.,]\d+)*)(?:\s?(?:-\s?)?({_UNITS}))?(?![\w])", re.IGNORECASE
)
_QUOTED = re.compile(r"""["'`“‘]([^"'`”’\n]{1,80})["'`”’]""")
_PATH = re.compile(r"(?<![\w])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_SNAKE = re.compile(r"\b[A-Za-z]\w*_\w+\b")
_CAMEL = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|\b[A-Z][a-z]+\b")
_ACRONYM = re.compile(r"\b[A-Z]{2,}[0-9]*\b")

# Capitalised words that are ordinary English at the start of a sentence or clause.
_COMMON = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "because",
        "so",
        "if",
        "then",
        "when",
        "while",
        "use",
        "uses",
        "using",
        "we",
        "our",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "keep",
        "kept",
        "do",
        "not",
        "no",
        "never",
        "always",
        "only",
        "all",
        "any",
        "each",
        "every",
        "for",
        "from",
        "into",
        "on",
        "in",
        "of",
        "to",
        "with",
        "without",
        "by",
        "via",
        "per",
        "as",
        "at",
        "be",
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "must",
        "may",
        "can",
        "cannot",
        "decision",
        "decided",
        "rejected",
        "done",
        "next",
        "note",
        "see",
        "also",
        "after",
        "before",
        "over",
        "under",
        "store",
        "stored",
        "i",
        "you",
        "he",
        "she",
        "they",
        "them",
    ]
)

_CLAUSE_SPLIT = re.compile(r"[,;:()]|\bbecause\b|\bso that\b|\bsince\b|\bas\b")
_LOST_SHARE = 0.6  # at least this share of terms missing = lost


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("‐", "-").replace("–", "-")).lower()


_UNIT_ALIASES = {
    "min": "minute",
    "mins": "minute",
    "minutes": "minute",
    "m": "minute",
    "sec": "second",
    "secs": "second",
    "seconds": "second",
    "s": "second",
    "hrs": "hour",
    "hr": "hour",
    "hours": "hour",
    "h": "hour",
    "days": "day",
    "d": "day",
}


def key_terms(decision: str) -> list[str]:
    """The specifics of a decision, in order of appearance, each once."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, term: str) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        found.append((start, term))

    for match in _QUOTED.finditer(decision):
        add(match.start(), match.end(), match.group(1).strip())
    for pattern in (_PATH, _FLAG, _DOTTED, _SNAKE, _CAMEL):
        for match in pattern.finditer(decision):
            text = match.group(0)
            if pattern is _PATH and "/" not in text:
                continue
            add(match.start(), match.end(), text)
    for match in _NUMBER.finditer(decision):
        number, unit = match.group(1), match.group(2)
        add(match.start(), match.end(), f"{number} {unit}" if unit else number)
    for pattern in (_ACRONYM, _CAPITALISED):
        for match in pattern.finditer(decision):
            word = match.group(0)
            if word.lower() in _COMMON or len(word) < 2:
                continue
            add(match.start(), match.end(), word)
    # a clause with no specific of its own ("rotate on use", the reason after "because")
    # is a specific as a whole: its content words must survive
    position = 0
    for clause in _CLAUSE_SPLIT.split(decision):
        start = decision.find(clause, position)
        position = max(position, start + len(clause))
        end = start + len(clause)
        if any(start <= s < end for s, _ in taken) or len(_content_words(clause)) == 0:
            continue
        add(start, end, clause.strip())
    found.sort()
    seen: set[str] = set()
    terms = []
    for _, term in found:
        if term.lower() not in seen:
            seen.add(term.lower())
            terms.append(term)
    return terms


def _content_words(text: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9]+", text.lower())
    return [word for word in words if len(word) >= 3 and word not in _COMMON]


def _present(term: str, summary: str) -> bool:
    """Whether a key term survives in the summary, allowing for the usual respellings."""
    text = _norm(summary)
    wanted = _norm(term)
    if re.search(rf"(?<![\w]){re.escape(wanted)}(?![\w])", text):
        return True
    if " " in wanted and not re.match(r"\d", wanted):
        words = _content_words(wanted)
        if len(words) >= 2 or (words and not re.search(r"[A-Z0-9_./-]", term)):
            # a phrase: every content word, by its stem, somewhere in the summary
            return all(re.search(rf"\b{re.escape(word[:5])}", text) for word in words)
    number = re.fullmatch(r"(\d+(?:[.,]\d+)*) ?(.+)?", wanted)
    if number:
        value, unit = number.group(1), number.group(2)
        if unit is None:
            return bool(re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d])", text))
        unit = _UNIT_ALIASES.get(unit, unit.rstrip("s") if len(unit) > 3 else unit)
        for found in re.finditer(rf"(?<![\d.,]){re.escape(value)}\s?-?\s?([a-z%]+)", text):
            other = found.group(1)
            other = _UNIT_ALIASES.get(other, other.rstrip("s") if len(other) > 3 else other)
            if other == unit:
                return True
    return False


def audit_decision(decision: str, summary: str) -> DecisionLoss:
    terms = tuple(key_terms(decision))
    missing = tuple(term for term in terms if not _present(term, summary))
    if not terms or not missing:
        status = "kept"
    elif len(missing) / len(terms) >= _LOST_SHARE:
        status = "lost"
    else:
        status = "degraded"
    return DecisionLoss(decision=decision, terms=terms, missing=missing, status=status)


def audit_summary(decisions: list[str] | tuple[str, ...], summary: str) -> LossAudit:
    """Audit every pinned decision against one compaction summary."""
    return LossAudit(tuple(audit_decision(decision, summary) for decision in decisions))
