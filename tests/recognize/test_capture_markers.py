"""Each profile's marker regexes held against the real screens of every agent version captured.

An agent release that rewords a notice ("✻ Conversation compacted" became only
"⎿  Compacted (ctrl+o …)" in Claude Code 2.1.332) silently blinds a screen source. Here
every capture is replayed read by read through the app's emulator, each changed row is
matched against the bundled profile, and two tables say what must be found:

* ``SEEN``: per capture, the marker kinds whose regexes match somewhere in it;
* ``HOLDS``: per regex, the capture generations (agent and version) where it matches.

A new version's captures (``tests/e2e/record_captures.py``) get their rows in both; a
regex that stops matching, or starts matching where it should not, fails a test that
names the capture and the regex.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from supervisor.config.profiles import load_profile
from supervisor.terminal.session import default_emulator
from tests.locations import CAPTURES
from tests.replay import SCENARIOS

COLS, ROWS = 120, 40

# name prefix -> generation: the agent and version that produced those captures
GENERATIONS = {
    "cc-": "claude 2.1.197",
    "cc332-": "claude 2.1.332",
    "cx-": "codex 0.171.0 (first recorder)",
    "cx171-": "codex 0.171.0 (e2e harness)",
}
CC197, CC332 = "claude 2.1.197", "claude 2.1.332"
CX_OLD, CX_NEW = "codex 0.171.0 (first recorder)", "codex 0.171.0 (e2e harness)"

_CC_TURN = {"prompt_ready", "busy", "exit_hint"}
_CC_COMPACT = _CC_TURN | {"compaction_started", "compaction"}
_CX_TURN = {"prompt_ready", "busy", "exit_hint"}

# capture -> marker kinds the bundled profile must find on its screens
SEEN: dict[str, set[str]] = {
    "cc-compact-manual": _CC_COMPACT,
    "cc-compact-manual-da1": _CC_COMPACT,
    "cc-hooks": _CC_COMPACT,
    "cc-compact-auto": _CC_COMPACT,  # 2.1.197 printed the notice for an auto compaction too
    "cc-clear": _CC_TURN,
    "cc-crash": {"prompt_ready", "busy"},  # killed: no exit hint
    "cc-resume": _CC_TURN | {"compaction"},  # the replayed history
    "cc-context-low": _CC_TURN | {"context_used"},
    "cc-context-low-noauto": _CC_TURN | {"context_low", "context_full"},
    "cc332-compact-manual": _CC_COMPACT,
    "cc332-compact-auto": _CC_TURN | {"compaction_started"},  # no "Compacted" line at all
    "cc332-clear": _CC_TURN,
    "cc332-crash": {"prompt_ready", "busy"},
    # compacts by itself near the limit; the meter is "2% until auto-compact"
    "cc332-context-low": _CC_TURN | {"compaction_started", "context_low"},
    "cc332-context-low-noauto": _CC_TURN | {"context_low", "context_full"},
    "cc332-resume": _CC_TURN | {"compaction"},
    "cx-compact-manual": _CX_TURN | {"compaction_started", "compaction"},
    "cx-compact-auto": _CX_TURN | {"compaction_started", "compaction"},
    "cx-resume": _CX_TURN | {"compaction"},
    "cx171-compact-manual": _CX_TURN | {"compaction_started", "compaction"},
    "cx171-compact-auto": _CX_TURN | {"compaction_started", "compaction"},
    "cx171-clear": _CX_TURN,
    "cx171-crash": {"prompt_ready", "busy"},
    "cx171-resume": _CX_TURN | {"compaction"},
    "cx171-hooks": _CX_TURN | {"compaction_started", "compaction"},
}

# (profile, kind, regex index in the profile) -> generations whose captures it matches;
# an empty set is a regex no capture shows (taken from the agent's strings, not seen here)
HOLDS: dict[tuple[str, str, int], set[str]] = {
    ("claude", "compaction_started", 0): {CC197, CC332},  # Compacting conversation
    ("claude", "compaction_started", 1): {CC197, CC332},  # Running PreCompact hooks
    # ✻ Conversation compacted: 2.1.332 prints it only in a resumed session's history, as
    # "(ctrl+o for the summary)"; a compaction in the session shows only the ⎿ line
    ("claude", "compaction", 0): {CC197, CC332},
    ("claude", "compaction", 1): {CC197, CC332},  # ⎿  Compacted (ctrl+o to see full summary)
    # Claude Code's idle and precomputed folds (2.1.286+): from the strings, in no capture.
    ("claude", "compaction", 2): set(),
    ("claude", "compaction", 3): set(),
    ("claude", "context_low", 0): {CC197, CC332},  # Context low (N% remaining)
    ("claude", "context_low", 1): {CC332},  # N% until auto-compact
    ("claude", "context_used", 0): {CC197},  # N% context used: 2.1.332 shows none
    ("claude", "context_full", 0): {CC197, CC332},  # Context limit reached · ...
    # no capture refuses a /compact (the words are agent-markers.md's, seen running 2.1.332)
    ("claude", "compaction_failed", 0): set(),  # ⎿  Not enough messages to compact
    ("claude", "compaction_failed", 1): set(),  # Error compacting conversation
    ("claude", "compaction_failed", 2): set(),  # Compaction unavailable:
    ("codex", "compaction_failed", 0): set(),  # Error running remote compact task
    ("claude", "context_full", 1): set(),  # Prompt is too long (not on screen here)
    ("claude", "prompt_ready", 0): {CC197},  # ? for shortcuts: gone in 2.1.332
    ("claude", "prompt_ready", 1): {CC332},  # (shift+tab to cycle): new in 2.1.332
    ("claude", "busy", 0): {CC197, CC332},  # esc to interrupt
    ("claude", "exit_hint", 0): {CC197, CC332},  # Resume this session with:
    ("claude", "exit_hint", 1): {CC197, CC332},  # claude ... --resume <id>
    ("codex", "compaction_started", 0): {CX_OLD, CX_NEW},  # Compacting context
    ("codex", "compaction", 0): {CX_OLD, CX_NEW},  # • Context compacted
    ("codex", "context_low", 0): set(),  # N% context left (no usage shown in 120 columns)
    ("codex", "context_low", 1): set(),  # Context N% left (a status-line item)
    ("codex", "context_used", 0): set(),  # Context N% used (a status-line item)
    ("codex", "context_full", 0): set(),  # ran out of room in the model's context window
    ("codex", "prompt_ready", 0): {CX_OLD, CX_NEW},  # Ask Codex to do anything
    ("codex", "busy", 0): {CX_OLD, CX_NEW},  # esc to interrupt
    ("codex", "exit_hint", 0): {CX_OLD, CX_NEW},  # To continue this session, run:
    ("codex", "exit_hint", 1): {CX_OLD, CX_NEW},  # codex resume <id>
    # Hooks need review: only when Codex does not trust the hooks (tests/e2e/test_codex_hooks)
    ("codex", "hooks_review", 0): set(),
}
PROFILES = ("claude", "codex")


def generation(name: str) -> str:
    prefix = max((p for p in GENERATIONS if name.startswith(p)), key=len)
    return GENERATIONS[prefix]


@cache
def matches(name: str) -> dict[tuple[str, int], str]:
    """(kind, regex index) -> the first row text it matched, over the whole capture.

    Bytes go in read by read, as the app gets them; only the rows the emulator reports
    changed are matched, as the screen detector does.
    """
    profile = load_profile(SCENARIOS[name][0])
    raw = (CAPTURES / f"{name}.raw").read_bytes()
    reads = json.loads((CAPTURES / f"{name}.events.json").read_text())["read_chunks"]["list"]
    emulator = default_emulator(COLS, ROWS)
    found: dict[tuple[str, int], str] = {}
    rules = [(kind, patterns) for kind, patterns in profile.markers.items() if patterns]
    for _, offset, length in reads:
        emulator.feed(raw[offset : offset + length])
        for y in sorted(emulator.take_dirty()):
            text = emulator.row_text(y)
            for kind, patterns in rules:
                for index, pattern in enumerate(patterns):
                    if (kind, index) not in found and pattern.search(text):
                        found[(kind, index)] = text.strip()
    return found


def test_every_capture_and_every_regex_has_a_row() -> None:
    assert set(SEEN) == set(SCENARIOS) == {p.stem for p in CAPTURES.glob("*.raw")}
    in_profiles = {
        (name, kind, index)
        for name in PROFILES
        for kind, patterns in load_profile(name).markers.items()
        for index in range(len(patterns))
    }
    assert set(HOLDS) == in_profiles, "a profile regex was added or removed: give it a row"


@pytest.mark.parametrize("name", sorted(SEEN))
def test_the_profile_finds_the_markers_each_capture_shows(name: str) -> None:
    found = matches(name)
    kinds = {kind for kind, _ in found}
    assert kinds == SEEN[name], (
        f"{name} ({generation(name)}): missing {sorted(SEEN[name] - kinds)}, "
        f"unexpected {sorted(kinds - SEEN[name])}; matched rows: "
        + "; ".join(f"{k}[{i}] {t!r}" for (k, i), t in sorted(found.items()))
    )


@pytest.mark.parametrize("key", sorted(HOLDS), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}")
def test_each_regex_holds_on_the_versions_it_was_seen_in(key: tuple[str, str, int]) -> None:
    profile, kind, index = key
    pattern = load_profile(profile).markers.items()
    source = dict(pattern)[kind][index].pattern
    names = [n for n in SCENARIOS if SCENARIOS[n][0] == profile]
    seen_in = {generation(n) for n in names if (kind, index) in matches(n)}
    assert seen_in == HOLDS[key], (
        f"{profile} {kind} regex {index} {source!r} matches in {sorted(seen_in)}, "
        f"expected {sorted(HOLDS[key])}"
    )
