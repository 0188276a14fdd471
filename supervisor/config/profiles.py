"""Agent profiles: TOML data files parsed once, strictly, into frozen dataclasses.

A profile that is wrong in any way (bad TOML, an unknown key, a wrong type, a
regex that does not compile) stops tether with a message naming the file, the
line and the key: a guessed marker rule would silently miss context losses.

Marker regexes run on every changed screen row of output the agent (or anyone
who can make it print) controls, so they are compiled with RE2, whose matching
time is linear in the row: ``(a+)+$`` over a row of ``a`` costs what ``a+`` does,
where Python's backtracking ``re`` freezes the UI for minutes. What RE2 cannot
run (back-references, look-around) is refused at load, naming file, line and key.

Bundled profiles live in the ``profiles`` package; a user's own profiles in
``<config dir>/profiles/*.toml`` override them by name. The config dir is
``platformdirs.user_config_dir("tether")`` unless ``TETHER_CONFIG_DIR`` is set.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import re2

from supervisor.config.config_dir import user_profiles_dir
from supervisor.config.toml_file import line_of, parse_toml
from supervisor.config.verify_commands import DEFAULT_RULES, KINDS, VerifyRules, merged
from supervisor.errors import TetherError

#: Marker kinds a profile may give regexes for, and what each means.
MARKER_KINDS: dict[str, str] = {
    "compaction_started": "the agent is compacting (opens no incident by itself)",
    "compaction": "a compaction finished",
    "compaction_failed": "a compaction was refused or failed (ends its compaction_started)",
    "context_low": "context nearly full; named group `percent` = percent remaining",
    "context_used": "context meter; named group `percent` = percent used",
    "context_full": "the context is full / a prompt was refused for its size",
    "wipe": "the conversation was cleared",
    "prompt_ready": "the agent waits for input",
    "busy": "the agent is working",
    "exit_hint": "printed on a clean exit; optional named group `session`",
    "hooks_review": "the agent asks the user to review (trust) hooks before it runs them",
}
_PERCENT_KINDS = ("context_low", "context_used")

INTEGRATIONS = frozenset(
    {
        "claude_hooks",
        "claude_transcript",
        "codex_hooks",
        "codex_rollout",
        "copilot_hooks",
        "copilot_journal",
        "aider_history",
        "gemini_hooks",
        "osc7501",
    }
)

# key -> (python type(s), description of the TOML type for messages)
_TOP_KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "description": (str, "a string"),
    "kind": (str, '"agent" or "shell"'),
    "command": (list, "an array of strings"),
    "resume_command": (list, "an array of strings"),
    "context_window": (int, "an integer (tokens, 0 = unknown)"),
    "submit_key": (str, 'a string such as "\\r"'),
    "integrations": (list, "an array of strings"),
    "preamble": (str, "a string"),
    "payload_budget": (int, "an integer (tokens)"),
    "hook_context_limit": (int, "an integer (characters, 0 = none)"),
    "submit_delay_ms": (int, "an integer (milliseconds between a paste and the submit key)"),
    "auto_rehydrate": (bool, "true or false"),
    "initial_brief": (bool, "true or false"),
    "recall_timeout": (int, "an integer (seconds)"),
    "compact_command": (str, 'a string such as "/compact {instructions}"'),
    "compact_offer_percent": (int, "an integer (percent of the context window, 0 = never)"),
    "compact_at_break": (bool, "true or false"),
    "wipe_commands": (list, 'an array of strings such as ["/clear", "/new"]'),
    "markers": (dict, "a table [markers]"),
    "verify": (dict, "a table [verify]"),
}
_REQUIRED = ("command", "preamble", "markers")
PROFILE_KINDS = ("agent", "shell")


# RE2's own memory cap for one compiled pattern; a pattern needing more is refused at load.
_RE2_MAX_MEM = 8 << 20
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.max_mem = _RE2_MAX_MEM
_RE2_OPTIONS.log_errors = False  # the error is ours to word, naming file, line and key

#: A compiled marker regex: a :class:`MarkerPattern`, with ``re.Pattern``'s search/match.
Pattern = Any


# What Python's ``\s`` matches in a str (str.isspace()); RE2's ``\s`` is ASCII only, and
# the agents draw NBSP and other Unicode spaces (Claude Code 2.1.332: "⎿\xa0 Compacted").
_SPACE = (
    r"\t\n\x0b\f\r\x1c-\x20\x85\xa0\x{1680}\x{2000}-\x{200a}"
    r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
)


def _unicode_spaces(source: str) -> str:
    r"""``source`` with ``\s`` and ``\S`` meaning what they mean to ``re``, as profiles expect."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\" and i + 1 < len(source):
            escape = source[i + 1]
            if escape == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
            elif escape == "S" and not in_class:
                out.append(f"[^{_SPACE}]")
            else:
                out.append(source[i : i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            out.append(char)
            if source[i + 1 : i + 2] == "^":
                out.append("^")
                i += 1
            if source[i + 1 : i + 2] == "]":  # a leading ] is a literal in a class
                out.append("]")
                i += 1
        elif char == "]" and in_class:
            in_class = False
            out.append(char)
        else:
            out.append(char)
        i += 1
    return "".join(out)


class MarkerPattern:
    """A profile's regex run by RE2; ``pattern`` is the profile's own text, as ``re`` has it."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, source: str, compiled: Any) -> None:
        self.pattern = source
        self._compiled = compiled

    @property
    def engine_pattern(self) -> str:
        """The pattern as RE2 runs it (``\\s`` spelled out as Unicode spaces)."""
        return self._compiled.pattern

    @property
    def groupindex(self) -> dict[str, int]:
        return self._compiled.groupindex

    def search(self, text: str, *args: int) -> Any:
        return self._compiled.search(text, *args)

    def match(self, text: str, *args: int) -> Any:
        return self._compiled.match(text, *args)

    def __repr__(self) -> str:
        return f"MarkerPattern({self.pattern!r})"


def compile_marker(source: str) -> Pattern:
    """``source`` as a linear-time pattern; ``ValueError`` with RE2's reason if it cannot be."""
    try:
        return MarkerPattern(source, re2.compile(_unicode_spaces(source), _RE2_OPTIONS))
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ValueError(str(reason)) from None


@dataclass(frozen=True, slots=True)
class MarkerRules:
    """Compiled regexes per marker kind, applied to ANSI-free screen rows."""

    compaction_started: tuple[Pattern, ...] = ()
    compaction: tuple[Pattern, ...] = ()
    compaction_failed: tuple[Pattern, ...] = ()
    context_low: tuple[Pattern, ...] = ()
    context_used: tuple[Pattern, ...] = ()
    context_full: tuple[Pattern, ...] = ()
    wipe: tuple[Pattern, ...] = ()
    prompt_ready: tuple[Pattern, ...] = ()
    busy: tuple[Pattern, ...] = ()
    exit_hint: tuple[Pattern, ...] = ()
    hooks_review: tuple[Pattern, ...] = ()
    # All the patterns in one RE2 set: one pass says whether a row can match any of them.
    _any: Any = field(default=None, compare=False, repr=False)

    def items(self) -> list[tuple[str, tuple[Pattern, ...]]]:
        return [(kind, getattr(self, kind)) for kind in MARKER_KINDS]

    def may_match(self, text: str) -> bool:
        """False when no pattern can match ``text``: most rows, told in one linear pass
        instead of one search per pattern (on the real captures 0.6 µs instead of 18)."""
        if self._any is None:
            patterns = [p.engine_pattern for _, group in self.items() for p in group]
            found: Any = re2.Set.SearchSet(_RE2_OPTIONS)
            for pattern in patterns:
                found.Add(pattern)
            try:
                found.Compile()
                found.Match("")
            except Exception:  # over RE2's memory cap together: search each pattern instead
                found = False
            object.__setattr__(self, "_any", found)
        return self._any is False or self._any.Match(text) is not None


@dataclass(frozen=True, slots=True)
class Profile:
    """One agent's description: how to start it, recognise its losses and rehydrate it."""

    name: str
    path: Path
    origin: str  # "bundled" or "user"
    description: str
    command: tuple[str, ...]
    resume_command: tuple[str, ...]
    context_window: int
    submit_key: str
    integrations: frozenset[str]
    preamble: str
    payload_budget: int
    hook_context_limit: int  # the agent cuts a hook's additionalContext past this many chars
    auto_rehydrate: bool
    initial_brief: bool
    markers: MarkerRules
    # The closed loop: seconds to wait for `tether ack` after a recovery (then "none");
    # the agent's own compaction command ("{instructions}" is replaced, "" = none); the
    # context percentage at which the banner offers it; whether tether sends it itself.
    recall_timeout: int = 180
    compact_command: str = ""
    compact_offer_percent: int = 0
    compact_at_break: bool = False
    # What the user types to wipe the conversation (submitted while the agent waits): seen
    # when it is sent, before an agent that tells only at its next turn (Codex) says so.
    wipe_commands: tuple[str, ...] = ()
    # "shell" (or any program tether knows nothing of): a paste runs its lines as commands,
    # so tether pastes a payload into it only when the user confirms (injector.py).
    kind: str = "agent"
    # The commands that verify (tests, lint, types, build): the ledger keeps their results.
    verify: VerifyRules = DEFAULT_RULES
    # Milliseconds between a payload's paste and the submit key: Gemini CLI 0.61.0 takes an
    # Enter 50 ms after a long paste as part of it and leaves "[Pasted Text: N lines]".
    submit_delay_ms: int = 50

    def argv(self, extra: list[str] | tuple[str, ...] = (), *, resume: bool = False) -> list[str]:
        """The command to spawn, with "tether" resolved to the running interpreter."""
        base = self.resume_command if resume and self.resume_command else self.command
        return resolve_command(base) + list(extra)


@dataclass(frozen=True, slots=True)
class ProfileListing:
    """A row of `tether profiles`: where a profile came from and whether it loads."""

    name: str
    path: Path
    origin: str
    overrides: Path | None
    error: str | None


def resolve_command(argv: tuple[str, ...] | list[str]) -> list[str]:
    """Map a leading "tether" to this interpreter so the demo works without an installed script."""
    argv = list(argv)
    if argv and argv[0] == "tether":
        return [sys.executable, "-m", "supervisor.cli", *argv[1:]]
    return argv


def bundled_profiles_dir() -> Path:
    import profiles

    return Path(profiles.__file__).resolve().parent


# ---------------------------------------------------------------- parsing


class _Checker:
    """Builds error messages that name the file, the line and the key."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def fail(self, table: str | None, key: str, problem: str) -> TetherError:
        line = line_of(self.text, table, key)
        where = f"{self.path}:{line}" if line else str(self.path)
        dotted = f"{table}.{key}" if table else key
        return TetherError(
            f"{where}: profile key `{dotted}`: {problem}; fix or remove the file "
            f"(tether will not start with a broken profile)"
        )


def _str_list(check: _Checker, table: str | None, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise check.fail(table, key, "must be an array of strings")
    return tuple(value)


def _compile(check: _Checker, kind: str, value: Any) -> tuple[Pattern, ...]:
    sources = _str_list(check, "markers", kind, value)
    compiled = []
    for source in sources:
        try:
            pattern = compile_marker(source)
        except ValueError as error:
            try:
                re.compile(source)
            except re.error as python_error:
                raise check.fail(
                    "markers", kind, f"invalid regex {source!r}: {python_error}"
                ) from None
            raise check.fail(
                "markers",
                kind,
                f"regex {source!r} cannot run in linear time ({error}); tether matches "
                "markers with RE2, which has no back-references or look-around: rewrite it",
            ) from None
        if pattern.match("") is not None and pattern.search("x") is not None:
            raise check.fail("markers", kind, f"regex {source!r} matches empty text")
        if kind in _PERCENT_KINDS and "percent" not in pattern.groupindex:
            raise check.fail(
                "markers", kind, f"regex {source!r} needs a named group (?P<percent>\\d+)"
            )
        compiled.append(pattern)
    return tuple(compiled)


def parse_profile(
    text: str, path: Path, *, name: str | None = None, origin: str = "user"
) -> Profile:
    """Parse and validate profile TOML; raise :class:`TetherError` naming file, line and key."""
    path = Path(path)
    name = name or path.stem
    data = parse_toml(text, path)
    check = _Checker(path, text)
    for key, value in data.items():
        if key not in _TOP_KEYS:
            known = ", ".join(_TOP_KEYS)
            raise check.fail(None, key, f"unknown key (known keys: {known})")
        expected, described = _TOP_KEYS[key]
        bad_type = not isinstance(value, expected) or (expected is int and isinstance(value, bool))
        if bad_type:
            raise check.fail(None, key, f"must be {described}, not {type(value).__name__}")
    for key in _REQUIRED:
        if key not in data:
            raise TetherError(f"{path}: profile key `{key}` is missing; add it")
    command = _str_list(check, None, "command", data["command"])
    resume = _str_list(check, None, "resume_command", data.get("resume_command", []))
    integrations = _str_list(check, None, "integrations", data.get("integrations", []))
    for item in integrations:
        if item not in INTEGRATIONS:
            raise check.fail(
                None,
                "integrations",
                f"unknown integration {item!r} ({', '.join(sorted(INTEGRATIONS))})",
            )
    for key in (
        "context_window",
        "payload_budget",
        "hook_context_limit",
        "submit_delay_ms",
        "recall_timeout",
        "compact_offer_percent",
    ):
        if data.get(key, 0) < 0:
            raise check.fail(None, key, "must not be negative")
    profile_kind = data.get("kind", "agent")
    if profile_kind not in PROFILE_KINDS:
        known = ", ".join(PROFILE_KINDS)
        raise check.fail(None, "kind", f"must be one of {known}, not {profile_kind!r}")
    submit = data.get("submit_key", "\r")
    if not submit:
        raise check.fail(None, "submit_key", "must not be empty")
    markers: dict[str, Any] = data["markers"]
    rules: dict[str, tuple[Pattern, ...]] = {}
    for kind, value in markers.items():
        if kind not in MARKER_KINDS:
            raise check.fail(
                "markers", kind, f"unknown marker kind (known: {', '.join(MARKER_KINDS)})"
            )
        rules[kind] = _compile(check, kind, value)
    verify = _verify_rules(check, data.get("verify", {}))
    return Profile(
        name=name,
        path=path,
        origin=origin,
        description=data.get("description", name),
        command=command,
        resume_command=resume,
        context_window=data.get("context_window", 0),
        submit_key=submit,
        integrations=frozenset(integrations),
        preamble=data["preamble"].strip(),
        payload_budget=data.get("payload_budget", 4000),
        hook_context_limit=data.get("hook_context_limit", 0),
        auto_rehydrate=data.get("auto_rehydrate", False),
        initial_brief=data.get("initial_brief", False),
        markers=MarkerRules(**rules),
        recall_timeout=data.get("recall_timeout", 180),
        compact_command=data.get("compact_command", ""),
        compact_offer_percent=data.get("compact_offer_percent", 0),
        compact_at_break=data.get("compact_at_break", False),
        wipe_commands=tuple(_str_list(check, None, "wipe_commands", data.get("wipe_commands", []))),
        kind=profile_kind,
        verify=verify,
        submit_delay_ms=data.get("submit_delay_ms", 50),
    )


def _verify_rules(check: _Checker, table: dict[str, Any]) -> VerifyRules:
    """``[verify]``: per kind, commands added to the defaults (``replace_defaults = true``
    makes them the only ones)."""
    if not isinstance(table.get("replace_defaults", False), bool):
        raise check.fail("verify", "replace_defaults", "must be true or false")
    for kind, value in table.items():
        if kind == "replace_defaults":
            continue
        if kind not in KINDS:
            raise check.fail("verify", kind, f"unknown kind (known: {', '.join(KINDS)})")
        commands = _str_list(check, "verify", kind, value)
        if any(not command.strip() for command in commands):
            raise check.fail("verify", kind, "holds an empty command")
    return merged(table)


def load_profile_file(path: Path, *, origin: str = "user") -> Profile:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise TetherError(f"{path}: cannot read the profile: {error.strerror}") from error
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TetherError(
            f"{path}: not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from error
    return parse_profile(text, path, origin=origin)


def _candidates() -> dict[str, list[tuple[Path, str]]]:
    """name -> [(path, origin)], the winning one last (user after bundled)."""
    found: dict[str, list[tuple[Path, str]]] = {}
    for folder, origin in ((bundled_profiles_dir(), "bundled"), (user_profiles_dir(), "user")):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            found.setdefault(path.stem, []).append((path, origin))
    return found


def load_profile(name: str) -> Profile:
    """The profile called ``name``: the user's own if present, else the bundled one."""
    candidates = _candidates()
    if name not in candidates:
        known = ", ".join(sorted(candidates)) or "none"
        suggestion = user_profiles_dir() / f"{name}.toml"
        raise TetherError(f"no profile named {name!r} (known: {known}); add {suggestion}")
    path, origin = candidates[name][-1]
    return load_profile_file(path, origin=origin)


def list_profiles() -> list[ProfileListing]:
    """Every profile name with the file that wins, what it overrides and any error."""
    rows = []
    for name, entries in sorted(_candidates().items()):
        path, origin = entries[-1]
        overrides = entries[-2][0] if len(entries) > 1 else None
        try:
            load_profile_file(path, origin=origin)
            error = None
        except TetherError as problem:
            error = str(problem)
        rows.append(ProfileListing(name, path, origin, overrides, error))
    return rows
