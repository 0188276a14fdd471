"""The -c overrides that give Codex tether's hooks: valid TOML, Codex's trust hash, the argv."""

from __future__ import annotations

import hashlib
import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from supervisor.agents import codex_hooks
from supervisor.agents.claude_settings import hook_command
from supervisor.config.profiles import load_profile
from supervisor.run.supervision import agent_argv
from supervisor.store.tether_dir import init


def parsed(overrides: list[str]) -> dict:
    """The -c arguments as Codex reads them: each `key=value`, the value parsed as TOML."""
    assert overrides[::2] == ["-c"] * (len(overrides) // 2)
    table: dict = {}
    for arg in overrides[1::2]:
        key, _, value = arg.partition("=")
        assert key.startswith("hooks."), arg
        table[key.removeprefix("hooks.")] = tomllib.loads(f"v = {value}")["v"]
    return table


def test_every_event_runs_tether_hook_and_is_trusted_by_its_own_hash(tmp_path):
    work = tmp_path / 'wörk "quoted" \\ dir'
    overrides = parsed(codex_hooks.config_overrides(work, argv=["/opt/tether"]))
    assert list(overrides) == [*codex_hooks.HOOK_EVENTS, "state"]
    state = overrides.pop("state")
    for event, groups in overrides.items():
        handler = {
            "type": "command",
            "command": hook_command(event, work, ["/opt/tether"]),
            "timeout": 10,
        }
        limit = 0 if event == "SessionStart" else None  # its answer goes to the model whole
        if limit is not None:
            handler["additionalContextLimit"] = limit
        assert groups == [{"hooks": [handler]}]
        expected = codex_hooks.trusted_hash(event, handler["command"], context_limit=limit)
        assert state[codex_hooks.trust_key(event)] == {"trusted_hash": expected}
    assert sorted(state) == sorted(map(codex_hooks.trust_key, codex_hooks.HOOK_EVENTS))
    assert codex_hooks.trust_key("PreCompact") == "/<session-flags>/config.toml:pre_compact:0:0"


def test_the_hash_is_sha256_of_codexs_canonical_identity():
    canonical = (
        '{"event_name":"user_prompt_submit","hooks":'
        '[{"async":false,"command":"tether hook X","timeout":600,"type":"command"}]}'
    )
    expected = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert codex_hooks.trusted_hash("UserPromptSubmit", "tether hook X", 600) == expected
    assert codex_hooks.trusted_hash("Stop", "tether hook X", 600) != expected
    limited = canonical.replace('"async":false,', '"additionalContextLimit":0,"async":false,')
    assert codex_hooks.trusted_hash("UserPromptSubmit", "tether hook X", 600, context_limit=0) == (
        "sha256:" + hashlib.sha256(limited.encode()).hexdigest()
    )


@pytest.mark.parametrize("text", ['a "b" c', "back\\slash", "tab\there", "del\x7f", "é ☃ 😀", ""])
def test_toml_strings_round_trip(text):
    assert tomllib.loads(f"v = {codex_hooks.toml_string(text)}")["v"] == text


def test_codex_gets_the_overrides_after_its_command_and_before_the_users_extras(tmp_path):
    tether = init(tmp_path).tether
    profile = load_profile("codex")
    overrides = codex_hooks.config_overrides(tether.work_dir)
    fresh = agent_argv(profile, ["--model", "o5"], tether, resume=False)
    assert fresh == ["codex", *overrides, "--model", "o5"]
    resumed = agent_argv(profile, ["--model", "o5"], tether, resume=True)
    assert resumed == ["codex", "resume", "--last", *overrides, "--model", "o5"]
    assert not (tether.root / "agent" / "claude-settings.json").exists()


def test_claudes_resume_keeps_the_hook_settings(tmp_path):
    """Native resume dropping `--settings` is a known trap in other wrappers: tether's
    restart builds the resume command with the same settings file."""
    tether = init(tmp_path).tether
    resumed = agent_argv(load_profile("claude"), [], tether, resume=True)
    settings = str(tether.root / "agent" / "claude-settings.json")
    assert resumed == ["claude", "--settings", settings, "--continue"]


def test_the_hook_command_records_codexs_event_through_a_shell(tmp_path):
    """Codex runs the command with a shell, as given: the real `tether hook` records it."""
    tether = init(tmp_path).tether
    overrides = parsed(codex_hooks.config_overrides(tether.work_dir))
    command = overrides["Stop"][0]["hooks"][0]["command"]
    stdin = {"session_id": "s1", "hook_event_name": "Stop", "turn_id": "t1"}
    done = subprocess.run(
        ["sh", "-c", command], input=json.dumps(stdin), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout == "", done.stderr
    lines = Path(tether.events).read_text().splitlines()
    recorded = [json.loads(line) for line in lines if '"hook"' in line]
    assert recorded[-1]["event"] == "Stop" and recorded[-1]["payload"] == stdin


def test_only_codex_is_rehydrated_at_the_next_prompt():
    """Its banner says so instead of asking for F6, which would send the payload twice."""
    assert codex_hooks.rehydrates_at_next_prompt(load_profile("codex"))
    assert not codex_hooks.rehydrates_at_next_prompt(load_profile("claude"))
    assert not codex_hooks.rehydrates_at_next_prompt(load_profile("demo"))
