"""The typed specifics of a text: quantities, numbers, versions, identifiers, quoted
strings, dates and names, each with the key it is compared by.

A key is the specific normalized: ``15-minute``, ``15m`` and ``a quarter of an hour``
are all 900 seconds (pint converts); ``PostgreSQL 16`` and ``PG16`` are one version;
a path that ends a sentence loses its full stop. Number words were made digits by
:func:`supervisor.recognize.judge.text.prepare` before any of this runs.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from supervisor.recognize.judge import libraries
from supervisor.recognize.judge.text import STOPWORDS, Prepared

QUANTITY = "quantity"
NUMBER = "number"
VERSION = "version"
IDENTIFIER = "identifier"
QUOTED = "quoted"
DATE = "date"
TIME = "time"
NAME = "name"

# Unit words as people write them, and the unit pint knows them by. Which words are
# units is ours to say (English is full of pint units: "at", "in", "a"); the
# conversions are pint's.
_TIME_UNITS = {
    "nanosecond": "ns nanosecond nanoseconds",
    "microsecond": "µs us microsecond microseconds",
    "millisecond": "ms msec msecs millis millisecond milliseconds",
    "second": "s sec secs second seconds",
    "minute": "m min mins minute minutes",
    "hour": "h hr hrs hour hours",
    "day": "d day days",
    "week": "w wk wks week weeks",
    "month": "mo mos month months",
    "year": "y yr yrs year years",
}
_SIZE_UNITS = {
    "byte": "B byte bytes",
    "kilobyte": "KB kB kb kilobyte kilobytes",
    "kibibyte": "KiB Ki kibibyte kibibytes",
    "megabyte": "MB mb Mb megabyte megabytes",
    "mebibyte": "MiB Mi mebibyte mebibytes",
    "gigabyte": "GB gb Gb gigabyte gigabytes",
    "gibibyte": "GiB Gi gibibyte gibibytes",
    "terabyte": "TB tb terabyte terabytes",
    "tebibyte": "TiB Ti tebibyte tebibytes",
}
_OTHER_UNITS = {
    "percent": "% percent pct",
    "1/second": "rps qps req/s request/s requests/s req/sec requests/sec /s",
    "1/minute": "rpm req/min requests/min /min",
    "hertz": "Hz",
    "kilohertz": "kHz",
    "megahertz": "MHz",
    "gigahertz": "GHz",
    "css_pixel": "px",
}
_UNIT_OF: dict[str, str] = {}
for _table in (_TIME_UNITS, _OTHER_UNITS):
    for _unit, _spellings in _table.items():
        for _spelling in _spellings.split():
            _UNIT_OF[_spelling.lower()] = _unit
_SIZE_OF: dict[str, str] = {}
for _unit, _spellings in _SIZE_UNITS.items():
    for _spelling in _spellings.split():
        _SIZE_OF[_spelling] = _unit


def _unit_pattern() -> str:
    def alternatives(tables: tuple[dict[str, str], ...]) -> str:
        spellings = {s for t in tables for v in t.values() for s in v.split()}
        return "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))

    # sizes are case-sensitive (Mi is a size, mi is not), the rest are not
    return f"(?:{alternatives((_SIZE_UNITS,))}|(?i:{alternatives((_TIME_UNITS, _OTHER_UNITS))}))"


_UNIT = _unit_pattern()
_NUM = (
    r"(?<![\w.#])(?<![A-Za-z]-)"
    r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?[eE]-?\d+|\d+(?:\.\d+)?(?:/\d+)?)"
)
_QUANTITY = re.compile(
    _NUM + r"(k|K)?(?:(?<=/\d)\s+(?:of\s+)?an?\s+|\s*-\s*|\s?)"
    r"(" + _UNIT + r")(?![A-Za-z0-9])(?:-(?:long|old|wide))?"
)
_FRACTION_UNIT = re.compile(r"(\d+)/(\d+)\s+(?:of\s+)?an?\s+(" + _UNIT + r")(?![A-Za-z])")
# periodSeconds: 5, timeout_ms=200: the unit is in the key's name
_KEYED = re.compile(
    r"\b[A-Za-z_][\w.-]*?(Seconds|Secs|Millis|Ms|Minutes|Mins|Hours|Days|Bytes"
    r"|_seconds|_secs|_sec|_ms|_millis|_minutes|_mins|_hours|_days|_bytes|_mb|_gb)"
    r"[\"']?\s*[:=]\s*(\d+(?:\.\d+)?)\b"
)
_KEY_VALUE = re.compile(
    r"(?<![\w-])([A-Za-z_][\w.-]*)\s?=\s?(\d+(?:\.\d+)?)\b"
    r"|(?<![\w-])([a-z]{2,}[A-Z][a-z]+[A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)"
    r"[\"']?(?::\s?|\s)(\d+(?:\.\d+)?)\b(?!\s*-?\s*[A-Za-z])"
    r"|(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:[.-][A-Za-z0-9]+)+)[\"']?:\s?(\d+(?:\.\d+)?)\b"
    r"(?!\s*-?\s*[A-Za-z])"
)
# "100 requests per minute", "3 times a day": a rate
_RATE = re.compile(
    _NUM + r"(k|K)?\s+(?:[a-z]+\s+){0,2}?(?:(?:per|every|each)\s+|an?\s+(?!second)|/\s*)"
    r"(second|sec|s|minute|min|m|hour|hr|h|day|d|week|month)\b",
    re.IGNORECASE,
)
# "a year", "every hour", "daily": one of the unit, with no digit
_ONE_UNIT = re.compile(
    r"(?<!times\s)(?<!time\s)\b(?:an?|every|each|once\s+an?)\s+(minute|hour|day|week|fortnight|month|year)\b"
    r"|\b(hourly|daily|weekly|monthly|yearly|annually)\b",
    re.IGNORECASE,
)
_ADVERB_UNITS = {
    "hourly": "hour",
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "yearly": "year",
    "annually": "year",
}
_PLAIN = re.compile(_NUM + r"(k|K)?(?:x|×)?(?![\w]|\.\d)")
# `--java-options "-Xmx12g"`: a code span may hold quotes; it is read before them
_CODE = re.compile(r"(?<!`)`([^`\n]{1,120})`(?!`)")
# "3h20", "3 h 20 min", "1 hour 30 minutes": one duration in two units
_HOURS_MINUTES = re.compile(
    r"(?<![\w.])(\d+)\s?(?:h|hrs?|hours?)"
    r"(?:\s?(\d{1,2})\s?(?:m|mins?|minutes?)|(\d{2}))(?![\w])",
    re.IGNORECASE,
)
# "2m41s", "2 min 41 s": minutes and seconds
_MINUTES_SECONDS = re.compile(
    r"(?<![\w.])(\d+)\s?(?:m|mins?|minutes?)\s?(\d{1,2})\s?(?:s|secs?|seconds?)(?![\w])",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"""(?<![\w])(["`“‘']|``)([^"`”’\n]{1,120}?)(?:\1|[”’])(?![\w])""")
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\b")
_URL = re.compile(r"\bhttps?://[^\s)\]>\"']+")
_PATH = re.compile(r"(?<![\w/.<>-])(?:~|\.{1,2})?/?(?:[\w.@*<>-]+/)+[\w.@*<>-]*")
_FLAG = re.compile(r"(?<![\w-])(?:--[A-Za-z0-9][\w-]*(?:=[^\s,;)]+)?|-[A-Za-z]\b(?!-))")
_ENV = re.compile(r"\$\{?[A-Za-z_]\w*\}?")
_DOTTED = re.compile(r"\b[A-Za-z_][\w-]*(?:\.[\w-]+)+\b")
_HYPHENATED = re.compile(r"\b[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_CAMEL = re.compile(r"\b(?:[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b")
_ISSUE = re.compile(r"(?<![\w])#\d+\b")
_ALNUM = re.compile(r"\b(?=\w{5,})[a-z]+\d+[a-z][a-z0-9]*\b")  # argon2id (e2e is a word)
_GLUED = re.compile(r"\b([A-Za-z]{2,})(\d+(?:\.\d+)*)\b")  # PG16, EC2, ES2022
_PRODUCTS = frozenset(
    """
    node python postgres postgresql pg go java ruby rust php perl redis kafka mysql ubuntu
    debian react vue angular django rails kubernetes k8s terraform helm
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_VERSIONED = re.compile(
    r"\b([A-Za-z]+\.js|[A-Z][A-Za-z+#]*|[a-z]+[A-Z][A-Za-z]*|node|python|postgres|postgresql|pg|go|java|ruby|rust"
    r"|php|perl|redis|kafka|mysql|ubuntu|debian|react|vue|angular|django|rails)"
    r"\s?v?(\d+(?:\.\d+)*)(?![\w]|\.\d)(?!\s*" + _UNIT + r"(?![A-Za-z]))"
)
# "Pin Node.js to 20", "upgrade Postgres to 16": a known product and its version across
# a preposition ("go to 3 replicas" is a verb: go is left out)
_VERSIONED_TO = re.compile(
    r"\b(node\.js|nodejs|" + "|".join(sorted(_PRODUCTS - {"go"}, key=len, reverse=True)) + r")"
    r"\s+(?:to|at|on)\s+v?(\d+(?:\.\d+)*)(?![\w]|\.\d)(?!\s*" + _UNIT + r"(?![A-Za-z]))",
    re.IGNORECASE,
)
_SEMVER = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:-[\w.]+)?\b|(?<![\w.])v\d+(?:\.\d+)?\b")
_MONTHS = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\.?,?(?:\s+\d{{4}})?\b"
    rf"|\b{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"
    r"|\b\d{1,2}/\d{1,2}/\d{4}\b"
)
_TIME = re.compile(
    r"(?:\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?\b|(?=Z\b)|\b)|\b\d{1,2}\s?[ap]\.?m\.?(?!\w))"
    r"(?:\s?(?P<zone>Z|UTC|GMT|[A-Z][A-Z]?[SD]?T|CET|CEST|EET|EEST|IST|JST|AEST|AEDT)\b)?",
    re.IGNORECASE,
)
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]+s?\b")
_TITLE = re.compile(r"\b[A-Z][a-z]+\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*(?:[-*#>]+\s*|\d+[.)]\s+)*|[(\"“]\s*)$")
# Acronyms of the trade that name no particular thing, so their absence loses nothing.
_GENERIC_ACRONYMS = frozenset(
    """
    OK TODO FIXME NOTE API APIS ID IDS UI UX CI CD PR PRS DB URL URLS HTTP HTTPS JSON YAML
    TOML CSV SQL CLI OS IO AM PM UTC EOF N A I TTL JWT SLA SLO SLI RPO RTO MFA SSO ORM CDN
    DNS TLS SSL VPC RBAC CORS CSRF XSS SDK UUID ETL ML LLM GPU CPU RAM SSD PII GDPR KPI
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_ARTICLES = frozenset({"one", "a", "an"})
_LIST_MARK = re.compile(r"\d{1,2}[.)](?:\s|$)")
_LINE_START = re.compile(r"(?:^|\n)[ \t>*#-]*$")
# One product, several names (a version of one is a version of the others).
_ALIASES = {
    "postgresql": "postgres",
    "pg": "postgres",
    "psql": "postgres",
    "k8s": "kubernetes",
    "js": "javascript",
    "ts": "typescript",
    "node.js": "node",
    "nodejs": "node",
    "golang": "go",
    "mongodb": "mongo",
    "py": "python",
}


def alias(name: str) -> str:
    lowered = name.lower()
    return _ALIASES.get(lowered, lowered)


@dataclass(frozen=True, slots=True)
class Specific:
    """One specific: its kind, how it was written, and what it is compared by.

    ``number`` is the number as written (``15`` of ``15 minute``), ``base`` the quantity
    in base units, ``dimension`` what it measures (or for a version its product, for a
    setting its key, for a counted number the stem of its noun)."""

    kind: str
    text: str
    key: str
    start: int
    end: int
    number: float | None = None
    base: float | None = None
    dimension: str = ""
    stems: tuple[str, ...] = field(default=(), compare=False)
    scope: str = ""  # what an amount is counted per ("per file": file), as a stem
    scope_text: str = field(default="", compare=False)  # " rows per request", as written


def _number(text: str, thousands: str | None = None) -> float | None:
    text = text.replace(",", "")
    try:
        if "/" in text:
            top, bottom = text.split("/", 1)
            value = float(top) / float(bottom)
        else:
            value = float(text)
    except (ValueError, ZeroDivisionError):
        return None
    return value * 1000 if thousands else value


def number_text(value: float) -> str:
    return f"{value:g}" if value != int(value) else str(int(value))


def _unit_name(spelling: str) -> str | None:
    return _SIZE_OF.get(spelling) or _UNIT_OF.get(spelling.lower())


def quantity(value: float, unit_spelling: str) -> tuple[str, float] | None:
    unit = _unit_name(unit_spelling)
    if unit is None:
        return None
    return libraries.quantity_in_base(value, unit)


class _Claims:
    """The spans already taken by a specific: a number inside a path is no number."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        return not any(start < e and s < end for s, e in self.spans)

    def take(self, start: int, end: int) -> None:
        self.spans.append((start, end))


def extract(prepared: Prepared) -> list[Specific]:
    """Every typed specific of ``prepared``, in order of appearance."""
    text = prepared.text
    claims = _Claims()
    found: list[Specific] = []

    def add(kind: str, start: int, end: int, key: str, **values: object) -> None:
        if kind == IDENTIFIER:  # "src/utils/date.ts." ends a sentence: the stop is not its
            while end > start + 1 and text[end - 1] in ".,:;!?":
                end -= 1
        if not claims.free(start, end):
            return
        if kind != QUOTED:  # what a quote holds is read too: `--timeout 10m` has 10 minutes
            claims.take(start, end)
        written = prepared.original(start, end).strip()
        found.append(Specific(kind, written, key, start, end, **values))  # type: ignore[arg-type]

    code = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    for match in _CODE.finditer(text):
        if match.group(1).strip():
            _quoted(prepared, match.start(1), match.end(1), add, claims)
    for match in _QUOTED.finditer(text):
        if any(s <= match.start() < e or s < match.end() <= e for s, e in code):
            continue  # a quote inside a code span, or one made of two spans' backticks
        inner = match.group(2).strip()
        if inner and not (match.group(1) == "'" and " " not in inner and inner.isalpha()):
            _quoted(prepared, match.start(2), match.end(2), add, claims)
    for match in _URL.finditer(text):
        add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0)))
    for match in _EMAIL.finditer(text):  # an address is one identifier, not its domain
        add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0)))
    for match in _DATE.finditer(text):
        key = libraries.date_key(match.group(0).replace(" of ", " "))
        if key:
            add(DATE, match.start(), match.end(), key)
    for match in _TIME.finditer(text):
        key = _time_key(match.group(0))
        if key and match.group("zone"):
            zone = match.group("zone").upper()
            key += "@" + ("UTC" if zone in ("Z", "GMT") else zone)
        if key:
            add(TIME, match.start(), match.end(), key)
    for match in _PATH.finditer(text):
        path = match.group(0).rstrip(".,:;!?")
        if "/" in path.strip("/") and not re.fullmatch(r"[\d/]+|\w+/s|\w+/\w+/s", path):
            if _looks_like_ratio(path):
                continue
            add(IDENTIFIER, match.start(), match.start() + len(path), _ident_key(path))
    for match in _KEYED.finditer(text):
        _keyed_quantity(match, add)
    for match in _HOURS_MINUTES.finditer(text):
        minutes = int(match.group(1)) * 60 + int(match.group(2) or match.group(3))
        measured = quantity(float(minutes), "minute")
        if measured:
            add(QUANTITY, match.start(), match.end(), _qkey(measured), number=float(minutes),
                dimension=measured[0], base=measured[1])  # fmt: skip
    for match in _MINUTES_SECONDS.finditer(text):
        seconds = int(match.group(1)) * 60 + int(match.group(2))
        measured = quantity(float(seconds), "second")
        if measured:
            add(QUANTITY, match.start(), match.end(), _qkey(measured), number=float(seconds),
                dimension=measured[0], base=measured[1])  # fmt: skip
    for match in _FRACTION_UNIT.finditer(text):
        value = _number(f"{match.group(1)}/{match.group(2)}")
        measured = quantity(value, match.group(3)) if value is not None else None
        if measured:
            add(QUANTITY, match.start(), match.end(), _qkey(measured), number=value,
                dimension=measured[0], base=measured[1])  # fmt: skip
    for match in _ONE_UNIT.finditer(text):
        unit = match.group(1) or _ADVERB_UNITS.get(match.group(2).lower(), "")
        measured = quantity(1.0, unit) if unit else None
        if measured:
            add(QUANTITY, match.start(), match.end(), _qkey(measured), number=1.0,
                dimension=measured[0], base=measured[1])  # fmt: skip
    for match in _QUANTITY.finditer(text):
        if len(match.group(3)) == 1 and "-" in text[match.end(1) : match.start(3)]:
            continue  # "1536-d": a suffix, not a unit
        value = _number(match.group(1), match.group(2))
        measured = quantity(value, match.group(3)) if value is not None else None
        if measured and value is not None:
            add(QUANTITY, match.start(), match.end(), _qkey(measured), number=value,
                dimension=measured[0], base=measured[1])  # fmt: skip
    for match in _RATE.finditer(text):
        value = _number(match.group(1), match.group(2))
        measured = quantity(1.0, match.group(3)) if value is not None else None
        if measured and value is not None and measured[0] == "[time]":
            per = libraries.quantity_in_base(value / measured[1], "1/second")
            if per:
                add(QUANTITY, match.start(), match.end(), _qkey(per), number=value,
                    dimension=per[0], base=per[1])  # fmt: skip
    for match in _FLAG.finditer(text):
        add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0)))
    for match in _ENV.finditer(text):
        add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0).strip("${}")))
    for match in _KEY_VALUE.finditer(text):
        key = match.group(1) or match.group(3) or match.group(5)
        number = match.group(2) or match.group(4) or match.group(6)
        value = _number(number)
        add(NUMBER, match.start(), match.end(), f"n:{number_text(value or 0)}", number=value,
            dimension="key:" + key.lower())  # fmt: skip
    for match in _SEMVER.finditer(text):
        add(VERSION, match.start(), match.end(), "v:" + match.group(0).lower().lstrip("v"),
            number=_number(match.group(0).lstrip("vV").split("-")[0].split(".")[0]))  # fmt: skip
    for match in _VERSIONED_TO.finditer(text):
        _version(match.group(1), match.group(2), match.start(), match.end(), add, text)
    for match in _VERSIONED.finditer(text):
        _version(match.group(1), match.group(2), match.start(), match.end(), add, text)
    for match in _GLUED.finditer(text):
        if alias(match.group(1)) in _PRODUCTS or match.group(1).lower() in _PRODUCTS:
            _version(match.group(1), match.group(2), match.start(), match.end(), add, text)
        elif match.group(1).lower() not in STOPWORDS:
            add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0)))  # bf16, SEV1
    for match in _DOTTED.finditer(text):
        dotted = match.group(0)
        if dotted.lower() not in ("e.g", "i.e", "etc", "vs"):
            add(IDENTIFIER, match.start(), match.end(), _ident_key(dotted))
    for match in _HYPHENATED.finditer(text):
        if _is_identifier(match.group(0)):
            add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0)))
    for pattern in (_SNAKE, _CAMEL, _ISSUE, _ALNUM):
        for match in pattern.finditer(text):
            add(IDENTIFIER, match.start(), match.end(), _ident_key(match.group(0)))
    for match in _free_matches(_PLAIN, text, claims):
        value = _number(match.group(1), match.group(2))
        if value is None:
            continue
        if _LIST_MARK.match(text, match.start()) and _LINE_START.search(text[: match.start()]):
            continue  # "2. Key Technical Concepts": a list's number, not a value
        written = prepared.original(match.start(), match.end()).strip().lower()
        if written in _ARTICLES and not _noun_after(text, match.end()):
            continue  # "one of them": a word, not a value; "one release" is a count
        noun = _noun_after(text, match.end()) or _range_noun(text, match.end())
        add(NUMBER, match.start(), match.end(), f"n:{number_text(value)}", number=value,
            dimension=("count:" + libraries.stem(noun)) if noun else "")  # fmt: skip
    for match in _ACRONYM.finditer(text):
        word = match.group(0)
        bare = word[:-1] if word.endswith("s") and word[:-1].isupper() else word
        if bare not in _GENERIC_ACRONYMS and len(bare) >= 2 and not bare.isdigit():
            add(NAME, match.start(), match.end(), "name:" + alias(bare))
    for match in _TITLE.finditer(text):
        word = match.group(0)
        if word.lower() in STOPWORDS or _SENTENCE_START.search(text[: match.start()]):
            continue
        if (
            text[match.start() - 1 : match.start()] == "-"
            or text[match.end() : match.end() + 1] == "-"
        ):
            continue
        add(NAME, match.start(), match.end(), "name:" + alias(word))
    found = [_scoped(s, text) for s in found]
    found.sort(key=lambda s: s.start)
    # a quote that holds one specific whole (`retry_budget_ms`) is that specific
    return [
        s
        for s in found
        if s.kind != QUOTED
        or not any(
            o is not s and o.kind != QUOTED and o.start <= s.start and o.end >= s.end for o in found
        )
    ]


# "25 MB per file", "2,000 rows per request", "100 rpm per API key": what it is counted per
_SCOPE = re.compile(
    r"(?:\s*-?\s*[a-z]{3,}\b)?(?:\s+(?:in\s+total|in\s+all|overall|each))?"
    r"\s+per\s+(?:(?:a|an|the|each|single)\s+)?([A-Za-z][A-Za-z0-9]*)\b(?:\s([a-z]{2,})\b)?"
)


def _scoped(specific: Specific, text: str) -> Specific:
    """``specific`` with the unit it is counted per, when the text says one after it."""
    if specific.kind not in (QUANTITY, NUMBER):
        return specific
    match = _SCOPE.match(text, specific.end)
    if match is None:
        return specific
    word = match.group(1)
    if _unit_name(word) or word.lower() in STOPWORDS:
        return specific  # "per second" is a rate's unit, not a scope
    head = match.group(2)
    if head and head not in STOPWORDS and not head.endswith(("ed", "ing")):
        word = head  # "per API key", "per import request": the noun is the last word
    scope = word if word.isupper() else libraries.stem(word.lower())
    end = match.end() if head == word else match.end(1)
    return dataclasses.replace(specific, scope=scope.lower(), scope_text=text[specific.end : end])


def _free_matches(pattern: re.Pattern[str], text: str, claims: _Claims) -> list[re.Match[str]]:
    """The matches of ``pattern`` in spans no specific took: a match over a taken span is
    tried again from its next character ("Node 16/18": 18 after Node 16)."""
    found: list[re.Match[str]] = []
    position = 0
    while True:
        match = pattern.search(text, position)
        if match is None:
            return found
        if claims.free(match.start(), match.end()):
            found.append(match)
            position = max(match.end(), position + 1)
        else:
            position = match.start() + 1


# The top-level media types (RFC 6838): "image/png" is a format, not a pair of words.
_MEDIA_TYPES = frozenset(
    [
        "application",
        "audio",
        "font",
        "example",
        "image",
        "message",
        "model",
        "multipart",
        "text",
        "video",
    ]
)


def is_media_type(value: str) -> bool:
    """``image/png``, ``application/pdf``: a top-level media type and its subtype."""
    parts = value.split("/")
    return len(parts) == 2 and parts[0].lower() in _MEDIA_TYPES and bool(parts[1])


def _looks_like_ratio(value: str) -> bool:
    """``and/or``, ``read/write``, ``24/7``: a slash between words is no path."""
    parts = value.split("/")
    if is_media_type(value):
        return False  # image/png, application/pdf: a media type names one format
    if parts[0].replace(".", "").isdigit():  # 20/instance, 1/2-minute, 24/7
        return True
    if len(parts) == 2 and all(re.fullmatch(r"[A-Z0-9-]+", p) for p in parts):
        return True  # SEV1/SEV2: a pair, not a path
    return len(parts) == 2 and all(p.isalpha() and p.islower() for p in parts)


def _quoted(prepared: Prepared, start: int, end: int, add: object, claims: _Claims) -> None:
    inner = prepared.text[start:end].strip()
    from supervisor.recognize.judge.text import content_stems

    add(QUOTED, start, end, "quote:" + inner.lower(), stems=tuple(content_stems(inner)))  # type: ignore[operator]


def _keyed_quantity(match: re.Match[str], add: object) -> None:
    unit = match.group(1).lstrip("_").lower()
    unit = {"millis": "ms", "bytes": "B", "mb": "MB", "gb": "GB"}.get(unit, unit)
    value = _number(match.group(2))
    measured = quantity(value, unit) if value is not None else None
    if measured:
        add(QUANTITY, match.start(), match.end(), _qkey(measured), number=value,  # type: ignore[operator]
            dimension=measured[0], base=measured[1])  # fmt: skip


def _version(name: str, number: str, start: int, end: int, add: object, text: str) -> None:
    if name.lower() in STOPWORDS or (name.isupper() and len(name) == 1):
        return
    titled = name[:1].isupper() and name[1:].islower()
    known = alias(name) in _PRODUCTS or name.lower() in _PRODUCTS
    if titled and not known and "." not in number:
        return  # "Return 429", "Chunking 800": a word and a count; "Terraform 1.7" a version
    product = alias(name)
    value = _number(number.split(".")[0] if number.count(".") > 1 else number)
    add(VERSION, start, end, f"v:{product}:{number}", number=value, dimension=product)  # type: ignore[operator]


def _qkey(measured: tuple[str, float]) -> str:
    return f"q:{measured[0]}:{measured[1]:.9g}"


def _time_key(text: str) -> str | None:
    match = re.match(r"(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s?([ap])?", text.lower())
    if not match:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    if match.group(3) == "p" and hour < 12:
        hour += 12
    if match.group(3) == "a" and hour == 12:
        hour = 0
    return f"t:{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else None


def _ident_key(text: str) -> str:
    return "id:" + text.strip().rstrip(".,:;!?").lower()


_VOWELS = set("aeiouy")


def _is_identifier(word: str) -> bool:
    """``us-east-2``, ``tf-locks``, ``orders-dlq`` name a thing; ``read-only`` and
    ``single-use`` are words: a part with a digit or no vowel makes an identifier."""
    if word.isupper() and len(word) > 3:
        return True  # FAKE-REPLY, PAY-142: a name in capitals
    if re.fullmatch(r"[a-z]{2,3}-(?:[A-Z]{2}|[A-Z][a-z]{3})", word):
        return True  # de-DE, pt-BR, zh-Hant: a locale (BCP 47 language and region)
    parts = word.lower().split("-")
    if re.fullmatch(r"\d+(?:\.\d+)?e", parts[0]) and len(parts) == 2 and parts[1].isdigit():
        return False  # 3e-4: a number
    if parts[0].replace(".", "").isdigit() and all(p.isalpha() for p in parts[1:]):
        return False  # 2000-step, 3-day: a count, read as a number
    return any(any(c.isdigit() for c in p) or not (set(p) & _VOWELS) for p in parts)


_NOUN = re.compile(r"\s*(?:-\s*)?([a-z][a-z]{2,})\b")
_RANGE = re.compile(r"\s*(?:and|to|or|-|–)\s*\d[\d.,]*\s*(?:-\s*)?([a-z][a-z]{2,})\b")


def _range_noun(text: str, end: int) -> str | None:
    """The noun of a range: "between 3 and 20 replicas" counts replicas from 3."""
    match = _RANGE.match(text, end)
    if match and match.group(1) not in STOPWORDS:
        return match.group(1)
    return None


def _noun_after(text: str, end: int) -> str | None:
    match = _NOUN.match(text, end)
    if match and match.group(1) not in STOPWORDS:
        return match.group(1)
    return None
