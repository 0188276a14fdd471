"""What a verification's output says, and which notes claim a verification passed.

The commands that verify are the profile's (:mod:`supervisor.config.verify_commands`);
here, their closing line ("1782 passed, 2 failed in 3.1s") and the claims of notes
("all tests pass", "lint clean") by the kind of verification they claim.
"""

from __future__ import annotations

import re

# ------------------------------------------------------------------ the result line

_RESULT = re.compile(
    r"\b(\d+ (passed|failed|errors?|skipped|tests?|examples?|failures?)\b|"
    r"All checks passed|Success: no issues|Found \d+ errors?|"
    r"test result:|^ok\b|^FAIL\b|^PASS\b|^FAILED\b|Tests?:|\d+ problems?|"
    r"error(s)? generated|BUILD (SUCCESS|FAILED))",
    re.IGNORECASE,
)
RESULT_MAX = 200


def closing_line(output: str) -> str | None:
    """The line that sums up a verification's output ("1782 passed, 2 failed in 3.1s"):
    the last one that reads like a result, else the last non-empty line."""
    lines = [line.strip() for line in output.splitlines()[-60:] if line.strip()]
    for line in reversed(lines):
        if _RESULT.search(line):
            return _tidy(line)
    return _tidy(lines[-1]) if lines else None


def _tidy(line: str) -> str:
    line = line.strip("=-_* ").strip()
    line = "".join(ch if ch.isprintable() else " " for ch in line)
    return line[:RESULT_MAX]


# ------------------------------------------------------------------ claims in notes

_CLAIMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "tests",
        re.compile(
            r"\b(tests?|test suite|suite|specs?|pytest|unit tests?)\b[^.\n]{0,40}?"
            r"\b(pass(es|ed|ing)?|green|succeed(s|ed)?|ok)\b"
            r"|\bpass(es|ed|ing)? (all )?(the )?tests?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "lint",
        re.compile(
            r"\b(lint(s|er|ing)?|ruff|eslint|flake8)\b[^.\n]{0,30}?\b(clean|pass(es|ed)?|green|ok)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "types",
        re.compile(
            r"\b(type[- ]?check(s|er|ing)?|types|mypy|pyright|tsc)\b[^.\n]{0,30}?"
            r"\b(clean|pass(es|ed)?|green|ok)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "build",
        re.compile(
            r"\b(build|compiles?)\b[^.\n]{0,30}?\b(pass(es|ed)?|green|succeed(s|ed)?|clean|ok)\b",
            re.IGNORECASE,
        ),
    ),
)
_NEGATION = re.compile(r"\b(not|n't|no longer|fail(s|ed|ing)?|broken)\b", re.IGNORECASE)


def claimed_kinds(text: str) -> list[str]:
    """The kinds of verification ``text`` claims passed ("all tests pass" -> ["tests"]);
    a negated claim ("tests do not pass yet") claims nothing."""
    if _NEGATION.search(text):
        return []
    return [kind for kind, pattern in _CLAIMS if pattern.search(text)]
