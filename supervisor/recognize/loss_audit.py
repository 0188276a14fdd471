"""The loss audit: which pinned decisions a text (a compaction summary, the agent's
restatement) kept, degraded or lost.

A summary of a summary keeps the shape of a decision and sheds its specifics
("tokens in Redis with a short TTL" for "refresh tokens in Redis, 15 minute
TTL, rotate on use, because the mobile client cannot persist tokens"). So the
audit does not compare prose: it extracts the *key terms* of each decision and
looks for each in the text. Two kinds:

* **exact** terms: numbers with their units, identifiers, quoted values, paths,
  flags, names — they must survive as written (allowing respelled units);
* **word** terms: what each clause says in words — the mechanism ("rotate on
  use"), the reason ("the mobile client cannot persist tokens"). A clause is
  kept when at least half of its content words survive, compared by their
  first letters so "rotated" is "rotate"; when it is lost, its missing words
  are the term reported.

A decision whose terms are mostly gone is **lost**; one missing some is
**degraded**. The labelled set in tests/fixtures/audit/ measures both kinds.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from supervisor.recognize.observations import DecisionLoss, Dropped, LossAudit

_UNITS = (
    r"ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|months?|years?"
    r"|b|kb|mb|gb|tb|kib|mib|gib|tib|bytes?|k|%|percent|px|rpm|rps|qps|tokens?|x|req|requests?"
    r"|users?|rows?|retries|attempts?|items?|workers?|threads?|cores?|nodes?|replicas?"
)
_NUMBER = re.compile(
    rf"(?<![\w.])(\d+(?:[.,:]\d+)*)(?:\s?(?:-\s?)?({_UNITS}))?(?![\w])", re.IGNORECASE
)
# A quote opens where no letter precedes it and closes where none follows, so the
# apostrophes of "team's" and "can't" are no quotes.
_QUOTED = re.compile(r"""(?<![\w])["'`“‘]([^"'`”’\n]{1,80}?)["'`”’](?![\w])""")
_PATH = re.compile(r"(?<![\w])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]+")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_SNAKE = re.compile(r"\b[A-Za-z]\w*_\w+\b")
_CAMEL = re.compile(r"\b(?:[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*\b|\b[A-Z][a-z]+\b")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b|\b[A-Z]{2,}[0-9]*\b")  # FAKE-REPLY, TTL
_SENTENCE_START = re.compile(r"(?:^|[.;:!?]\s+|\(\s*)$")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][a-z]+)?")

# Words that carry no specific of a decision: grammar, and verbs any paraphrase swaps.
_COMMON = frozenset(
    """
    a an the and or but because so if then when while until unless since than
    use uses used using we our us it its this that these those there their they them
    keep keeps kept do does did don't doesn't not no never always only all any each every
    for from into onto on in of to with without by via per as at be is are was were been
    being will would should must may can could cannot can't won't shall might
    i you he she his her my your me one
    decision decided decide rejected done next note see also after before over under
    store stored stores instead rather about just very much many more most less least
    some such other same which what who whom whose where how here own first last
    has have had having get gets got go goes going went make makes made put puts
    live lives run runs ran take takes took talk talks give gives need needs want wants
    like still already yet even both either neither too now new
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_CLAUSE_SPLIT = re.compile(
    r"[,;:()]|\s[-–—]\s|\b(?:because|so that|so|since|as|until|unless|then|but|and|"
    r"instead of|which|whereas|otherwise)\b",
    re.IGNORECASE,
)
_LOST_SHARE = 0.6  # at least this share of terms missing = lost
_STEM = 5  # words compare by their first letters: rotate, rotated, rotation


@dataclass(frozen=True, slots=True)
class Term:
    """One key term: ``text`` as reported; ``words`` for a clause compared word by word."""

    text: str
    words: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return not self.words


@functools.lru_cache(maxsize=16)  # one summary is searched for every term of every decision
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


def terms_of(decision: str) -> list[Term]:
    """The key terms of a decision, in order of appearance, each once."""
    found: list[tuple[int, Term]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, term: Term) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        found.append((start, term))

    for match in _QUOTED.finditer(decision):
        add(match.start(), match.end(), Term(match.group(1).strip()))
    for pattern in (_PATH, _FLAG, _DOTTED, _SNAKE, _CAMEL):
        for match in pattern.finditer(decision):
            text = match.group(0)
            if pattern is _PATH and "/" not in text:
                continue
            add(match.start(), match.end(), Term(text))
    for match in _NUMBER.finditer(decision):
        number, unit = match.group(1), match.group(2)
        add(match.start(), match.end(), Term(f"{number} {unit}" if unit else number))
    for pattern in (_ACRONYM, _CAPITALISED):
        for match in pattern.finditer(decision):
            word = match.group(0)
            if word.lower() in _COMMON or len(word) < 2:
                continue
            # "Poll the queue": a capital that only starts a sentence names nothing
            if (
                pattern is _CAPITALISED
                and word[1:].islower()
                and _SENTENCE_START.search(decision[: match.start()])
            ):
                continue
            add(match.start(), match.end(), Term(word))
    exact_spans = list(taken)
    position = 0
    for clause in _CLAUSE_SPLIT.split(decision):
        start = decision.find(clause, position)
        position = max(position, start + len(clause))
        words, first = [], start
        for match in _WORD.finditer(clause):
            at = start + match.start()
            if any(s <= at < e for s, e in exact_spans):
                continue
            word = re.sub(r"['’]s$", "", match.group(0).lower())  # team's: team
            if len(word) >= 3 and word not in _COMMON:
                first = first if words else at
                words.append(word)
        if words:
            found.append((first, Term(" ".join(words), tuple(words))))
    found.sort(key=lambda pair: pair[0])
    seen: set[str] = set()
    terms = []
    for _, term in found:
        if term.text.lower() not in seen:
            seen.add(term.text.lower())
            terms.append(term)
    return terms


def key_terms(decision: str) -> list[str]:
    """The specifics of a decision as text, in order of appearance, each once."""
    return [term.text for term in terms_of(decision)]


_SUFFIX = re.compile(r"(?:ies|ied)$|(?:ations?|ions?|ings?|ed|es|s)$")


def _stem(word: str) -> str:
    """A word's first letters after its inflection: "retries" is "retry", "rotated" "rotat"."""
    word = word.lower().replace("’", "'")
    if len(word) > 4:
        word = _SUFFIX.sub(lambda m: "y" if m.group(0).startswith("i") else "", word)
    return word[:_STEM]


@functools.lru_cache(maxsize=16)
def _stems(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in _WORD.findall(text))


def _missing_words(term: Term, stems: frozenset[str]) -> tuple[str, ...]:
    """The words of a clause term that are gone, or nothing when at least half survive."""
    gone = tuple(word for word in term.words if _stem(word) not in stems)
    return gone if len(gone) * 2 > len(term.words) else ()


def _present(term: str, summary: str) -> bool:
    """Whether an exact term survives in the summary, allowing for the usual respellings."""
    text = _norm(summary)
    wanted = _norm(term)
    # a plain substring test first: a regex over a long summary for every term adds up
    if wanted in text and re.search(rf"(?<![\w]){re.escape(wanted)}(?![\w])", text):
        return True
    bare = wanted.lstrip("-")
    if bare != wanted and bare in text and re.search(rf"(?<![\w]){re.escape(bare)}\b", text):
        return True  # "--dry-run" said as "dry-run"
    if " " in wanted and not re.match(r"\d", wanted):
        words = _content_words(wanted)
        if words:  # a quoted phrase: every content word, by its stem, somewhere in the text
            stems = _stems(text)
            return all(_stem(word) in stems for word in words)
    number = re.fullmatch(r"(\d+(?:[.,:]\d+)*) ?(.+)?", wanted)
    if number:
        value, unit = number.group(1), number.group(2)
        if value not in text:
            return False
        if unit is None:
            return bool(re.search(rf"(?<![\d.,]){re.escape(value)}(?![\d])", text))
        unit = _UNIT_ALIASES.get(unit, unit.rstrip("s") if len(unit) > 3 else unit)
        for found in re.finditer(rf"(?<![\d.,]){re.escape(value)}\s?-?\s?([a-z%]+)", text):
            other = found.group(1)
            other = _UNIT_ALIASES.get(other, other.rstrip("s") if len(other) > 3 else other)
            if other == unit:
                return True
    return False


def _content_words(text: str) -> list[str]:
    words = re.findall(r"[a-z][a-z0-9]+", text.lower())
    return [word for word in words if len(word) >= 3 and word not in _COMMON]


def missing_terms(decision: str, text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(terms, missing)``: the decision's key terms and those ``text`` dropped."""
    terms = terms_of(decision)
    stems = _stems(text)
    missing: list[str] = []
    for term in terms:
        if term.exact:
            if not _present(term.text, text):
                missing.append(term.text)
        else:
            gone = _missing_words(term, stems)
            if gone:
                missing.append(" ".join(gone))
    return tuple(term.text for term in terms), tuple(missing)


def audit_decision(decision: str, summary: str) -> DecisionLoss:
    terms, missing = missing_terms(decision, summary)
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


# ------------------------------------------------------------------ dropped, not pinned

DROPPED_LIMIT = 20
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_REASON = re.compile(r"\b(?:because|since|so that)\b([^.;!?\n]+)", re.IGNORECASE)
_SAID_CHARS = 300


def dropped_specifics(
    folded: list[str] | tuple[str, ...],
    summary: str,
    pinned: list[str] | tuple[str, ...] = (),
    *,
    limit: int = DROPPED_LIMIT,
) -> list[Dropped]:
    """The specifics said in the folded window that the summary dropped and no pin holds.

    Summaries keep most decision sentences but few of the paths, commands and
    measured numbers in them: each sentence's exact terms (and the words of a
    reason it gives) are looked for in the summary and in the pinned decisions;
    those in neither are listed once, with the sentence they were said in.
    """
    pins = " \n ".join(pinned)
    summary_stems = _stems(summary)
    found: list[Dropped] = []
    seen: set[str] = set()
    for text in folded:
        for sentence in _SENTENCES.split(text):
            sentence = sentence.strip()
            if not sentence:
                continue
            said = sentence if len(sentence) <= _SAID_CHARS else sentence[: _SAID_CHARS - 1] + "…"
            candidates = [
                (term.text, False)
                for term in terms_of(sentence)
                if term.exact and not re.fullmatch(r"--?\w", term.text)  # "-k" alone says nothing
            ]
            for reason in _REASON.finditer(sentence):
                words = tuple(_content_words(reason.group(1)))
                if words and _missing_words(Term(" ".join(words), words), summary_stems):
                    candidates.append((" ".join(words), True))
            for term, is_reason in candidates:
                key = term.lower()
                if key in seen:
                    continue
                seen.add(key)
                # a reason's words were found missing from the summary already
                gone = is_reason or not _present(term, summary)
                if gone and not (pins and _present(term, pins)):
                    found.append(Dropped(term, said))
                    if len(found) >= limit:
                        return found
    return found
