"""Text as the judge reads it: number words as digits, split into sentences and clauses,
with the stems of its content words, every position traceable to the text as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from supervisor.recognize.judge import libraries

_CARDINAL = (
    r"zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|thousand|million|billion|quarter|half|dozen"
)
# A run of number words (the article only before a word that takes one: "a quarter").
_FRACTION = r"thirds?|quarters?|fifths?|tenths?|hundredths?|halves"
_TIMES = {"twice": "2 times", "thrice": "3 times"}  # numerizer reads neither
# "two and a half days", "a minute and a half": a half added to a count, before or after
# its unit (numerizer adds it when it comes right after the count)
_UNIT_AND_A_HALF = re.compile(
    rf"\b(?P<count>an?|{_CARDINAL}|\d+)"
    r"(?:[ -](?P<unit>(?:second|minute|hour|day|week|month|year)s?))?"
    r"\s+and\s+a\s+half\b",
    re.IGNORECASE,
)
# "after the fourth failed attempt" is "after 4 failed attempts": an ordinal that counts
# up to a threshold is its number (numerizer reads it as 4th)
_ORDINAL = (
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
    r"|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth"
)
_NUMBER_WORDS = re.compile(
    rf"\b(?P<threshold>(?:after|before|until)\s+the\s+)(?P<ordinal>{_ORDINAL})\b(?!\s+of\b)"
    rf"|{_UNIT_AND_A_HALF.pattern}"
    r"|\btwice\b|\bthrice\b"
    rf"|\b(?:an?|one|two|three|four|five|nine)[ -](?:{_FRACTION})\b"
    rf"|\b(?:(?:an?|one)[ -](?=(?:quarter|half|hundred|thousand|dozen)\b))?"
    rf"(?:{_CARDINAL})(?:(?:[ -]|[ -]and[ -])(?:{_CARDINAL}))*\b",
    re.IGNORECASE,
)
# what follows a quarter of a year: anything but "of" ("a quarter of an hour")
_CALENDAR_QUARTER = re.compile(r"(?!\s+of\b)(?!-)")
_HYPHENS = str.maketrans(
    {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u00a0": " ", "\u2019": "'", "\u2018": "'"}
)
# "a single release" is one release (kept the same length: positions map one to one)
_SINGLE = re.compile(r"\b(?:a|one)\s+single\b|\bsingle\b(?=\s+[a-z])", re.IGNORECASE)
_EN_DASH_RANGE = re.compile(r"(?<=\d)\u2013(?=\d)")

# Words that say nothing of a decision's subject: grammar and the verbs of any clause.
STOPWORDS = frozenset(
    """
    a an the and or but nor because so if then when while until unless since than that
    this these those there here it its it's we our ours us you your i me my he she they
    them their his her one ones is are was were be been being am do does did done doing
    have has had having will would shall should must may might can could cannot can't
    won't don't doesn't didn't isn't aren't wasn't weren't not no never always only just
    all any each every both either neither some such other another same more most less
    least many much few very too also still yet even already now then again ever
    for from into onto on in of to with without by via per as at about over under after
    before between through during within across against instead rather
    use uses used using keep keeps kept make makes made get gets got set sets go goes
    put puts take takes took give gives need needs want wants let lets say says said
    what which who whom whose where why how own new old first last next way thing things
    decision decisions decided decide pinned pin note notes agreed agree
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][a-z]+)?")
# Sentences end at a line break, or at . ! ? followed by a space and not inside a number
# or a name (E.164, 3.9, src/date.ts): a full stop that ends a path ends the sentence.
_SENTENCE_END = re.compile(r"\n+|(?<=[.!?])[\"')\]]*\s+|(?<=[;])\s+|\s[|/]\s")
# Clauses: commas, semicolons, colons, brackets, dashes, and the words that start one.
_CLAUSE_BREAK = re.compile(
    r"[.!?,;:](?=\s|$)\s*|\n+|[()\[\]]\s*|\s[-–—|/]+\s|—"
    r"|\s(?=(?:but|whereas|although|though|except)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A text with its number words as digits, and where each character came from."""

    written: str
    text: str
    _starts: tuple[int, ...]
    _ends: tuple[int, ...]

    def original(self, start: int, end: int) -> str:
        """The written text behind ``text[start:end]``."""
        if start >= end:
            return ""
        return self.written[self._starts[start] : self._ends[end - 1]]


def prepare(written: str) -> Prepared:
    """``written`` with number words replaced by digits (``fifteen-minute`` ->
    ``15-minute``) and odd hyphens made plain, keeping a map back to the written text."""
    source = _EN_DASH_RANGE.sub("-", written.translate(_HYPHENS))
    source = _SINGLE.sub(lambda m: " " * (len(m.group(0)) - 1) + "1", source)
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for match in _NUMBER_WORDS.finditer(source):
        word = match.group(0).lower()
        if (
            _CALENDAR_QUARTER.match(source, match.end())
            and re.search(
                r"\b(?:this|next|last|that|each|every|per|previous|current|same|the|a)\s+$",
                source[: match.start()],
                re.IGNORECASE,
            )
            and word in ("quarter", "quarters")
        ):
            continue  # "out of scope this quarter": a part of the year, not a fraction
        if match.group("ordinal"):
            number = libraries.numerize(match.group("ordinal")).rstrip("stndrh")
            digits = match.group("threshold") + number
        elif match.group("count"):
            count = re.sub(r"^an?$", "one", match.group("count").lower())
            digits = libraries.numerize(count + " and a half")
            if match.group("unit"):
                digits += " " + match.group("unit")
        else:
            digits = _TIMES.get(word) or libraries.numerize(match.group(0).replace("-", " "))
        if not any(char.isdigit() for char in digits):
            continue
        for index in range(position, match.start()):
            pieces.append(source[index])
            starts.append(index)
            ends.append(index + 1)
        pieces.append(digits)
        starts.extend([match.start()] * len(digits))
        ends.extend([match.end()] * len(digits))
        position = match.end()
    for index in range(position, len(source)):
        pieces.append(source[index])
        starts.append(index)
        ends.append(index + 1)
    return Prepared(written, "".join(pieces), tuple(starts), tuple(ends))


def sentences(text: str) -> list[tuple[int, int]]:
    """The spans of ``text``'s sentences (lines, or . ! ? ; followed by a space)."""
    spans: list[tuple[int, int]] = []
    position = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > position and text[position : match.start()].strip():
            spans.append((position, match.start()))
        position = match.end()
    if position < len(text) and text[position:].strip():
        spans.append((position, len(text)))
    return spans


def clauses(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The spans of the clauses of ``text[start:end]``."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    position = start
    for match in _CLAUSE_BREAK.finditer(text, start, end):
        if match.start() > position:
            spans.append((position, match.start()))
        position = match.end()
    if position < end:
        spans.append((position, end))
    return spans


def words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text``, lowercased, with their spans (a possessive 's dropped)."""
    found = []
    for match in _WORD.finditer(text):
        word = re.sub(r"['’]s$", "", match.group(0).lower()).replace("’", "'")
        found.append((word, match.start(), match.end()))
    return found


def content_stems(text: str) -> list[str]:
    """The stems of ``text``'s content words, in order (stopwords and short words left out)."""
    return [
        libraries.stem(word)
        for word, s, e in words(text)
        if (len(word) >= 3 or _ACRONYM_2.fullmatch(text[s:e]))
        and word not in STOPWORDS
        and not word.isdigit()
    ]


_ACRONYM_2 = re.compile(r"[A-Z]{2}")  # UI, DB, CI: short, but words of their own
