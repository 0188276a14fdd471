"""Profiles are data, validated strictly: a broken one names its file, line and key."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from supervisor.config.profiles import (
    list_profiles,
    load_profile,
    load_profile_file,
    parse_profile,
    resolve_command,
)
from supervisor.errors import TetherError
from tests.tether_process import run_tether

BUNDLED = ("claude", "codex", "gemini", "aider", "shell", "demo")

GOOD = """\
description = "test agent"
command = ["agent"]
resume_command = ["agent", "--continue"]
context_window = 1000
submit_key = "\\r"
integrations = ["osc7501"]
preamble = "re-read .tether/"
payload_budget = 500
auto_rehydrate = false
initial_brief = false

[markers]
compaction = ['Conversation compacted']
context_low = ['Context low \\((?P<percent>\\d+)% remaining\\)']
prompt_ready = ['> $']
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "config"))
    folder = tmp_path / "config" / "profiles"
    folder.mkdir(parents=True)
    return folder


def line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the profile text")


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_profile_loads(name: str) -> None:
    profile = load_profile(name)
    assert profile.name == name
    assert profile.origin == "bundled"
    assert profile.preamble
    assert "tether check" in profile.preamble and "tether ack" in profile.preamble


def test_demo_profile_matches_what_the_demo_agent_prints() -> None:
    markers = load_profile("demo").markers
    assert any(p.search("✻ Conversation compacted · summary kept") for p in markers.compaction)
    low = [p.search("  Context low (12% remaining)") for p in markers.context_low]
    assert any(m and m.group("percent") == "12" for m in low)
    assert any(p.search("(context wiped)") for p in markers.wipe)
    assert any(p.search("  ? for shortcuts") for p in markers.prompt_ready)
    assert load_profile("demo").initial_brief


def test_demo_command_runs_the_current_interpreter() -> None:
    argv = load_profile("demo").argv()
    assert argv[:3] == [sys.executable, "-m", "supervisor.cli"]
    assert argv[3:] == ["demo-agent"]
    assert resolve_command(["claude", "-c"]) == ["claude", "-c"]


def test_user_profile_overrides_bundled_one_by_name(config: Path) -> None:
    (config / "claude.toml").write_text(GOOD.replace('"agent"]', '"my-claude"]', 1))
    profile = load_profile("claude")
    assert profile.origin == "user"
    assert profile.command == ("my-claude",)
    listing = {row.name: row for row in list_profiles()}
    assert listing["claude"].origin == "user"
    assert listing["claude"].overrides is not None
    assert listing["claude"].overrides.name == "claude.toml"


def test_unknown_profile_name_lists_the_known_ones(config: Path) -> None:
    with pytest.raises(TetherError, match=r"no profile named 'nope'.*claude"):
        load_profile("nope")


def test_good_profile_parses_into_a_frozen_dataclass(tmp_path: Path) -> None:
    profile = parse_profile(GOOD, tmp_path / "x.toml")
    assert profile.context_window == 1000
    assert profile.submit_key == "\r"
    assert profile.integrations == frozenset({"osc7501"})
    assert profile.markers.context_low[0].search("Context low (3% remaining)")
    with pytest.raises(AttributeError):
        profile.name = "y"  # type: ignore[misc]


# (what is broken, the text, the key the message must name, the text on the reported line)
BROKEN = [
    (
        "unknown top key",
        GOOD.replace("[markers]", 'colour = "red"\n\n[markers]'),
        "colour",
        'colour = "red"',
    ),
    ("unknown marker kind", GOOD + "compactionn = ['x']\n", "markers.compactionn", "compactionn"),
    (
        "invalid regex",
        GOOD.replace("['> $']", "['(unclosed']"),
        "markers.prompt_ready",
        "(unclosed",
    ),
    ("regex list not strings", GOOD.replace("['> $']", "[1, 2]"), "markers.prompt_ready", "[1, 2]"),
    ("marker not a list", GOOD.replace("['> $']", "'> $'"), "markers.prompt_ready", "prompt_ready"),
    (
        "context_low without percent group",
        GOOD.replace("(?P<percent>\\d+)", "(\\d+)"),
        "markers.context_low",
        "context_low",
    ),
    (
        "command not a list",
        GOOD.replace('command = ["agent"]', 'command = "agent"'),
        "command",
        'command = "agent"',
    ),
    (
        "command holds a number",
        GOOD.replace('command = ["agent"]', "command = [1]"),
        "command",
        "command = [1]",
    ),
    (
        "window as string",
        GOOD.replace("context_window = 1000", 'context_window = "1M"'),
        "context_window",
        "context_window",
    ),
    (
        "bool for an int",
        GOOD.replace("payload_budget = 500", "payload_budget = true"),
        "payload_budget",
        "payload_budget",
    ),
    (
        "int for a bool",
        GOOD.replace("auto_rehydrate = false", "auto_rehydrate = 1"),
        "auto_rehydrate",
        "auto_rehydrate",
    ),
    (
        "unknown integration",
        GOOD.replace('["osc7501"]', '["osc7502"]'),
        "integrations",
        "integrations",
    ),
    (
        "negative budget",
        GOOD.replace("payload_budget = 500", "payload_budget = -5"),
        "payload_budget",
        "payload_budget",
    ),
    (
        "negative recall timeout",
        GOOD.replace("payload_budget = 500", "payload_budget = 500\nrecall_timeout = -1"),
        "recall_timeout",
        "recall_timeout = -1",
    ),
    (
        "compact command not a string",
        GOOD.replace("payload_budget = 500", "payload_budget = 500\ncompact_command = 3"),
        "compact_command",
        "compact_command = 3",
    ),
    (
        "empty submit key",
        GOOD.replace('submit_key = "\\r"', 'submit_key = ""'),
        "submit_key",
        "submit_key",
    ),
    (
        "markers not a table",
        GOOD.replace("[markers]\n", "markers = 3\n[other]\n"),
        "markers",
        "markers = 3",
    ),
    (
        "regex matching everything",
        GOOD.replace("['> $']", "['.*']"),
        "markers.prompt_ready",
        "'.*'",
    ),
]


@pytest.mark.parametrize(("why", "text", "key", "on_line"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_profile_names_file_line_and_key(
    config: Path, why: str, text: str, key: str, on_line: str
) -> None:
    path = config / "broken.toml"
    path.write_text(text)
    with pytest.raises(TetherError) as caught:
        load_profile("broken")
    message = str(caught.value)
    assert f"{path}:{line_of(text, on_line)}:" in message, message
    assert f"`{key}`" in message, message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('command = ["a"\npreamble = "x"\n', 2),  # unclosed array
        ('description = "x\n', 1),  # unterminated string
        ('command = ["a"]\ncommand = ["b"]\n', 2),  # duplicate key
        ("[markers]\ncompaction = ['\\d']\n[markers]\n", 3),  # duplicate table
    ],
)
def test_bad_toml_names_file_and_line(config: Path, text: str, line: int) -> None:
    path = config / "bad.toml"
    path.write_text(text)
    with pytest.raises(TetherError) as caught:
        load_profile("bad")
    assert str(caught.value).startswith(f"{path}:{line}: not valid TOML")


def test_missing_required_key_is_named(config: Path) -> None:
    (config / "short.toml").write_text('command = ["a"]\n[markers]\n')
    with pytest.raises(TetherError, match=r"short\.toml: profile key `preamble` is missing"):
        load_profile("short")


def test_non_utf8_profile_is_refused(config: Path) -> None:
    (config / "latin.toml").write_bytes(b'description = "caf\xe9"\n')
    with pytest.raises(TetherError, match=r"latin\.toml: not UTF-8"):
        load_profile_file(config / "latin.toml")


def test_profiles_command_lists_sources_and_flags_broken_ones(config: Path) -> None:
    (config / "claude.toml").write_text(GOOD)
    (config / "broken.toml").write_text(GOOD.replace("['> $']", "['(']"))
    result = run_tether("profiles")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    claude = next(line for line in lines if line.startswith("claude"))
    assert "user" in claude and "overrides" in claude
    assert re.search(
        r"BROKEN .*broken\.toml:\d+: profile key `markers.prompt_ready`", result.stdout
    )
    assert any(line.startswith("codex") and "bundled" in line for line in lines)


def test_the_closed_loop_settings_of_the_bundled_agents() -> None:
    claude, codex, shell = load_profile("claude"), load_profile("codex"), load_profile("shell")
    assert claude.compact_command == "/compact {instructions}" and codex.compact_command
    assert claude.compact_offer_percent == 75 and not claude.compact_at_break  # offered, never sent
    assert claude.recall_timeout == 180
    assert shell.compact_command == "" and shell.compact_offer_percent == 0  # nothing to offer
