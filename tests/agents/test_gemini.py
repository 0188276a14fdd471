"""Gemini CLI 0.61.0: tether's hooks through the system-defaults layer for one run, and the
payload with the first prompt (BeforeAgent) after a compression."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from supervisor.agents.gemini_settings import DEFAULTS_ENV, write_defaults
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.observations import AGENT_STATE, COMPACTION_STARTED, WIPE
from supervisor.store import lock as supervisor_lock
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import REPO
from tests.store_records import read_jsonl

DECISION = "refresh tokens live 15 minutes in Redis"


def test_the_machines_defaults_are_kept_and_tethers_hooks_come_after_theirs(tmp_path):
    machine = tmp_path / "system-defaults.json"
    theirs = {"type": "command", "command": "audit-log"}
    machine.write_text(
        json.dumps({"ui": {"theme": "x"}, "hooks": {"SessionStart": [{"hooks": [theirs]}]}})
    )
    (tmp_path / ".tether").mkdir()
    path, problem = write_defaults(tmp_path / ".tether", {DEFAULTS_ENV: str(machine)})
    assert problem is None or "writable by group or others" in problem  # /tmp's own mode
    written = json.loads(path.read_text())
    assert written["ui"] == {"theme": "x"}
    first, ours = written["hooks"]["SessionStart"]
    assert first["hooks"] == [theirs]
    assert " hook SessionStart --dir " in ours["hooks"][0]["command"]
    assert {"PreCompress", "BeforeAgent", "AfterAgent", "SessionEnd"} <= set(written["hooks"])


def test_a_broken_machine_file_is_left_out_and_said_so(tmp_path):
    machine = tmp_path / "system-defaults.json"
    machine.write_text("{not json")
    (tmp_path / ".tether").mkdir()
    path, problem = write_defaults(tmp_path / ".tether", {DEFAULTS_ENV: str(machine)})
    assert problem is not None and "not valid JSON" in problem and str(machine) in problem
    assert set(json.loads(path.read_text())) == {"hooks"}


def test_the_run_gives_gemini_the_defaults_path(tmp_path):
    from supervisor.config.profiles import load_profile
    from supervisor.run.run_config import agent_env

    tether = init(tmp_path, goal="g").tether
    env = agent_env(load_profile("gemini"), tether)
    assert env[DEFAULTS_ENV] == str(tether.root / "agent" / "gemini-system-defaults.json")


def test_gemini_hooks_become_observations():
    pre = observations_from_hook("PreCompress", {"trigger": "manual"}, 1.0)
    assert [(o.kind, o.trigger) for o in pre] == [(COMPACTION_STARTED, "manual")]
    assert [o.kind for o in observations_from_hook("BeforeAgent", {"prompt": "x"}, 1.0)] == [
        AGENT_STATE
    ]
    clear = observations_from_hook("SessionStart", {"source": "clear", "session_id": "s"}, 1.0)
    assert [o.kind for o in clear] == [WIPE]


@pytest.fixture
def held(tmp_path):
    tether = init(tmp_path, goal="g").tether
    tether.add_note("decision", DECISION)
    lock = supervisor_lock.acquire(tether)
    yield tether
    lock.release()


def before_agent(tether: TetherDir, prompt: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TETHER_HOOK_SOCKET"}
    env.setdefault("TETHER_CONFIG_DIR", str(tether.work_dir / "cfg"))  # conftest: trusted
    env["TETHER_PROFILE"] = "gemini"
    payload = {"session_id": "s", "hook_event_name": "BeforeAgent", "prompt": prompt}
    done = subprocess.run(
        [sys.executable, "-m", "supervisor", "hook", "BeforeAgent", "--dir", str(tether.work_dir)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def test_the_first_prompt_after_a_compression_carries_the_payload_once(held: TetherDir):
    assert before_agent(held, "hello") == ""
    held.record_incident("compaction", "screen", trigger="manual")
    answer = json.loads(before_agent(held, "carry on"))["hookSpecificOutput"]
    assert answer["hookEventName"] == "BeforeAgent" and DECISION in answer["additionalContext"]
    assert before_agent(held, "and then") == ""
    (auto,) = [e for e in read_jsonl(held.events)[0] if e["kind"] == "auto_rehydrate"]
    assert auto["hook_source"] == "compact" and auto["profile"] == "gemini"


def test_a_hooks_file_below_a_folder_others_may_write_is_said_to_be_skipped(tmp_path):
    opened = tmp_path / "open-to-all"
    (opened / ".tether").mkdir(parents=True)
    opened.chmod(0o777)
    _path, problem = write_defaults(opened / ".tether", {DEFAULTS_ENV: str(tmp_path / "none")})
    assert problem is not None and f"{opened} is writable by group or others" in problem
