"""Drift alarms: deterministic signs that the agent is going round in circles.

Three, each judged on the action just recorded and the ledger before it:

- ``rejected_retried``: the command or a path it touched carries an exact term of a
  rejected approach in notes.md (a `backticked` command, a path, a ``--flag``, a
  package named after install/add);
- ``repeated_failure``: the same command failed for the third time in a row;
- ``verification_regressed``: a verification that passed on this very checkout fails now.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

REJECTED_RETRIED = "rejected_retried"
REPEATED_FAILURE = "repeated_failure"
VERIFICATION_REGRESSED = "verification_regressed"
FAILURES_IN_A_ROW = 3
KIND = "drift_alarm"

_BACKTICKS = re.compile(r"`([^`\n]{3,200})`")
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]{2,60})(?![\w-])")
_PATHLIKE = re.compile(
    r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:py|js|ts|tsx|jsx|rs|go|rb|java|toml|json|ya?ml"
    r"|cfg|ini|lock|sh|md|c|h|cpp|sql))(?![\w/-])"
)
_INSTALL = re.compile(
    r"\b(?:install|add|require)\s+((?:-{1,2}[\w-]+\s+)*)([A-Za-z@][\w@/.-]{1,80})", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Alarm:
    kind: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_event(self) -> dict[str, Any]:
        return {"alarm": self.kind, "message": self.message, **self.details}


@dataclass(frozen=True, slots=True)
class Term:
    text: str
    kind: str  # "command", "flag", "path", "package"
    approach: str  # the rejected approach that names it


def rejected_terms(approaches: Iterable[str]) -> list[Term]:
    """The exact terms each rejected approach names."""
    terms: list[Term] = []
    for approach in approaches:
        line = " ".join(approach.split())[:300]
        spans = [" ".join(m.group(1).split()) for m in _BACKTICKS.finditer(approach)]
        terms += [Term(span, "command", line) for span in spans]
        outside = _BACKTICKS.sub(" ", approach)
        terms += [Term(m.group(1), "flag", line) for m in _FLAG.finditer(approach)]
        terms += [Term(m.group(1).strip("."), "path", line) for m in _PATHLIKE.finditer(outside)]
        for match in _INSTALL.finditer(approach):
            name = re.split(r"[=<>~!\[]", match.group(2))[0].rstrip(".,;:")
            if len(name) > 1:
                terms.append(Term(name, "package", line))
    unique: dict[tuple[str, str], Term] = {}
    for term in terms:
        unique.setdefault((term.kind, term.text), term)
    return list(unique.values())


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _matches(term: Term, command: str, words: list[str], paths: list[str]) -> bool:
    if term.kind == "command":
        spaced = " " + " ".join(command.split()) + " "
        return re.search(r"(?<![\w-])" + re.escape(term.text) + r"(?![\w-])", spaced) is not None
    if term.kind == "flag":
        return any(w == term.text or w.startswith(term.text + "=") for w in words)
    if term.kind == "path":
        hits = [*words, *paths]
        return any(h == term.text or h.endswith("/" + term.text) for h in hits)
    bare = [re.split(r"[=<>~!\[]", w)[0] for w in words]
    return term.text in bare


def rejected_retried(record: dict[str, Any], terms: list[Term]) -> Alarm | None:
    raw = record.get("command")
    command = raw if isinstance(raw, str) else ""
    paths = [p for p in record.get("paths") or [] if isinstance(p, str)]
    words = _words(command) if command else []
    for term in terms:
        if _matches(term, command, words, paths):
            what = f"`{command[:120]}`" if command else ", ".join(paths[:3])
            named = "" if term.text in (command, *paths) else f" ({term.kind} {term.text!r})"
            return Alarm(
                REJECTED_RETRIED,
                f"Rejected approach retried: {what}{named}; "
                f'notes.md rejected "{term.approach[:160]}"',
                {"term": term.text, "term_kind": term.kind, "approach": term.approach},
            )
    return None


def failures_in_a_row(record: dict[str, Any], earlier: Iterable[dict[str, Any]]) -> int:
    """How many runs of this command in a row failed, this one included (0 if it passed);
    ``earlier``: the ledger's records before it, newest first."""
    command = record.get("command")
    if not isinstance(command, str) or _passed(record):
        return 0
    count = 1
    for previous in earlier:
        if previous.get("command") != command:
            continue
        if _passed(previous):
            break
        count += 1
        if count > FAILURES_IN_A_ROW:
            break
    return count


def regressed(record: dict[str, Any], earlier: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """The earlier passing run of this verification on this same checkout, if this run fails."""
    command, checkout = record.get("command"), record.get("checkout")
    if not isinstance(record.get("verify"), dict) or _passed(record):
        return None
    if not isinstance(checkout, dict) or not checkout.get("tree"):
        return None
    for previous in earlier:
        if previous.get("command") != command or previous.get("checkout") != checkout:
            continue
        return previous if _passed(previous) else None
    return None


def _passed(record: dict[str, Any]) -> bool:
    return record.get("ok") is True


def alarms(record: dict[str, Any], earlier: list[dict[str, Any]], terms: list[Term]) -> list[Alarm]:
    """Every alarm the action ``record`` raises; ``earlier``: the runs of the same command
    before it, newest first (other records are skipped)."""
    found: list[Alarm] = []
    if (alarm := rejected_retried(record, terms)) is not None:
        found.append(alarm)
    command = str(record.get("command") or "")
    if failures_in_a_row(record, earlier) == FAILURES_IN_A_ROW:
        found.append(
            Alarm(
                REPEATED_FAILURE,
                f"The same command failed {FAILURES_IN_A_ROW} times in a row: `{command[:160]}` "
                f"(exit {record.get('exit')})",
                {"command": command, "exit": record.get("exit")},
            )
        )
    if (before := regressed(record, earlier)) is not None:
        result = (record.get("verify") or {}).get("result") or f"exit {record.get('exit')}"
        found.append(
            Alarm(
                VERIFICATION_REGRESSED,
                f"A verification that passed on this checkout now fails: `{command[:160]}` "
                f"({result}; it passed at {before.get('at')})",
                {"command": command, "passed_at": before.get("at")},
            )
        )
    return found
