"""Which commands verify: the profile's ``[verify]`` lists, matched on a command's words.

A verification is a command the profile lists (``pytest``, ``make test``, ``ruff
check``, ...), matched on the words of each part of a shell command line, so
``cd app && .venv/bin/python -m pytest -q`` is a ``pytest`` run. Its *kind* (tests,
lint, types, build) links it to the claims notes make: "all tests pass" is a claim
of the kind ``tests`` (see :mod:`supervisor.recognize.verification`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

KINDS = ("tests", "lint", "types", "build")

#: The verification commands every profile starts from; a profile's ``[verify]`` adds to them.
DEFAULT_VERIFY: dict[str, tuple[str, ...]] = {
    "tests": (
        "pytest",
        "python -m pytest",
        "python3 -m pytest",
        "py.test",
        "tox",
        "nox",
        "make test",
        "make check",
        "npm test",
        "npm run test",
        "pnpm test",
        "yarn test",
        "bun test",
        "npx jest",
        "npx vitest",
        "jest",
        "vitest",
        "cargo test",
        "cargo nextest",
        "go test",
        "mvn test",
        "gradle test",
        "./gradlew test",
        "dotnet test",
        "ctest",
        "rspec",
        "bundle exec rspec",
        "mix test",
        "phpunit",
        "python -m unittest",
        "deno test",
    ),
    "lint": (
        "ruff check",
        "ruff",
        "flake8",
        "pylint",
        "eslint",
        "npx eslint",
        "npm run lint",
        "make lint",
        "cargo clippy",
        "golangci-lint",
        "go vet",
        "shellcheck",
        "lint-imports",
        "rubocop",
        "biome check",
    ),
    "types": (
        "mypy",
        "python -m mypy",
        "pyright",
        "tsc",
        "npx tsc",
        "npm run typecheck",
        "cargo check",
    ),
    "build": ("make", "cargo build", "go build", "npm run build", "tsc -b"),
}

# Words in front of the command proper that do not change what it is.
_WRAPPERS = frozenset({"env", "time", "nice", "nohup", "command", "exec", "sudo", "xvfb-run"})
_RUNNERS = (("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("hatch", "run"), ("pdm", "run"))
_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class VerifyRules:
    """The verification commands by kind, as word tuples, longest first."""

    rules: tuple[tuple[tuple[str, ...], str], ...]

    @classmethod
    def of(cls, table: Mapping[str, Iterable[str]]) -> VerifyRules:
        rules: list[tuple[tuple[str, ...], str]] = []
        for kind, commands in table.items():
            for command in commands:
                words = tuple(_command_words(command))
                if words:
                    rules.append((words, kind))
        rules.sort(key=lambda rule: -len(rule[0]))
        return cls(tuple(rules))

    def kind_of(self, command: str) -> str | None:
        """The kind of verification ``command`` runs (the first part that is one), or None."""
        for part in _SEPARATORS.split(command):
            words = _command_words(part)
            if not words:
                continue
            for pattern, kind in self.rules:
                if _starts_with(words, pattern):
                    return kind
        return None


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _command_words(part: str) -> list[str]:
    """The words of one simple command, without assignments, wrappers and runners, and with
    each program named by its base name (``.venv/bin/pytest`` is ``pytest``)."""
    words = _words(part.strip())
    while words:
        head = words[0]
        if _ASSIGNMENT.match(head) or head.rsplit("/", 1)[-1] in _WRAPPERS:
            words = words[1:]
        elif (head == "timeout" and len(words) > 1) or _runner(words):
            words = words[2:]
        else:
            break
    if words:
        words[0] = words[0].rsplit("/", 1)[-1]
        if re.fullmatch(r"python3?(\.\d+)?", words[0]):
            words[0] = "python"
    return words


def _runner(words: list[str]) -> bool:
    return any(tuple(words[: len(r)]) == r for r in _RUNNERS)


def _starts_with(words: list[str], pattern: tuple[str, ...]) -> bool:
    if len(words) < len(pattern):
        return False
    if tuple(words[: len(pattern)]) != pattern:
        return False
    # "make" alone verifies a build; "make test" is tests; "make install" is neither.
    return not (pattern == ("make",) and len(words) > 1 and not words[1].startswith("-"))


DEFAULT_RULES = VerifyRules.of(DEFAULT_VERIFY)


def merged(table: Mapping[str, object]) -> VerifyRules:
    """The rules of a profile's ``[verify]`` table (already validated, or skipped item by
    item when not): its commands added to the defaults, or alone with ``replace_defaults``."""
    if not table:
        return DEFAULT_RULES
    kinds: dict[str, tuple[str, ...]] = (
        {} if table.get("replace_defaults") is True else {**DEFAULT_VERIFY}
    )
    for kind, value in table.items():
        if kind in KINDS and isinstance(value, list):
            extra = tuple(v for v in value if isinstance(v, str) and v.strip())
            kinds[kind] = (*kinds.get(kind, ()), *extra)
    return VerifyRules.of(kinds)


PROFILE_LIMIT = 1024 * 1024


def rules_for_profile(name: str) -> VerifyRules:
    """Only the ``[verify]`` table of profile ``name``, for the hook: no marker regexes
    compiled, no profile checked (the supervisor reports a broken profile at its start;
    here a broken one means the defaults)."""
    import tomllib

    import profiles as bundled
    from supervisor.config.config_dir import user_profiles_dir

    if not re.fullmatch(r"[\w.-]{1,100}", name):
        return DEFAULT_RULES
    for folder in (user_profiles_dir(), Path(bundled.__file__).parent):
        path = folder / f"{name}.toml"
        if not path.is_file():
            continue
        try:
            with open(path, "rb") as handle:
                data = tomllib.loads(handle.read(PROFILE_LIMIT).decode("utf-8"))
        except (OSError, ValueError):
            return DEFAULT_RULES
        table = data.get("verify")
        return merged(table) if isinstance(table, dict) else DEFAULT_RULES
    return DEFAULT_RULES
