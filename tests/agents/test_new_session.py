"""Codex's /new: a SessionStart(startup) of another session in the running agent is a wipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from supervisor.agents.new_session import started_anew
from supervisor.store import lock as supervisor_lock
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import REPO
from tests.store_records import read_jsonl

DECISION = "tokens live 15 minutes"


def start(session: str) -> dict:
    return {"session_id": session, "hook_event_name": "SessionStart", "source": "startup"}


@pytest.fixture
def held(tmp_path):
    tether = init(tmp_path, goal="g").tether
    tether.add_note("decision", DECISION)
    lock = supervisor_lock.acquire(tether)
    yield tether
    lock.release()


def record_start(tether: TetherDir, session: str) -> None:
    tether.record_event("hook", "hook", event="SessionStart", payload=start(session))


def test_a_second_session_in_the_same_run_is_new(held):
    record_start(held, "one")
    assert not started_anew(held, start("one"))  # the first start: nothing before it
    record_start(held, "two")
    assert started_anew(held, start("two"))
    assert not started_anew(held, {**start("two"), "source": "resume"})


def test_after_an_agent_exit_or_restart_a_start_is_a_start(held):
    record_start(held, "one")
    held.record_event("agent_restart", "supervisor", argv=["codex"])
    record_start(held, "two")
    assert not started_anew(held, start("two"))


def test_without_a_running_supervisor_nothing_is_new(tmp_path):
    tether = init(tmp_path, goal="g").tether
    record_start(tether, "one")
    record_start(tether, "two")
    assert not started_anew(tether, start("two"))


def test_tether_hook_answers_codexs_new_with_the_payload(held):
    env = {k: v for k, v in os.environ.items() if k != "TETHER_PROFILE"}
    env.setdefault("TETHER_CONFIG_DIR", str(held.work_dir / "cfg"))  # conftest's: trusted
    env["TETHER_PROFILE"] = "codex"

    def hook(session: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "supervisor", "hook", "SessionStart"]
        return subprocess.run(
            [*argv, "--dir", str(held.work_dir)],
            input=json.dumps(start(session)),
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=60,
        )

    first = hook("one")
    assert first.returncode == 0 and first.stdout == "", first.stderr
    second = hook("two")
    assert second.returncode == 0, second.stderr
    context = json.loads(second.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DECISION in context
    (auto,) = [e for e in read_jsonl(held.events)[0] if e["kind"] == "auto_rehydrate"]
    assert auto["hook_source"] == "startup" and auto["new_session"] is True
