"""`tether hook` answers Copilot CLI with the payload once per loss: the next prompt after a
fold (userPromptSubmitted), the first prompt after /clear (sessionStart), never both."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from supervisor.store import lock as supervisor_lock
from supervisor.store.tether_dir import TetherDir, init
from tests.locations import REPO
from tests.store_records import read_jsonl

DECISION = "refresh tokens live 15 minutes in Redis"
SESSION = "1ab3d36e-24b7-451f-a1c7-efcb4e77fe68"


@pytest.fixture
def held(tmp_path):
    tether = init(tmp_path, goal="g").tether
    tether.add_note("decision", DECISION)
    lock = supervisor_lock.acquire(tether)
    yield tether
    lock.release()


def hook(tether: TetherDir, event: str, payload: dict) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("TETHER_HOOK_SOCKET",)}
    env.setdefault("TETHER_CONFIG_DIR", str(tether.work_dir / "cfg"))  # conftest: trusted
    env["TETHER_PROFILE"] = "copilot"
    done = subprocess.run(
        [sys.executable, "-m", "supervisor", "hook", event, "--dir", str(tether.work_dir)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def prompt(text: str, session: str = SESSION) -> dict:
    return {"sessionId": session, "timestamp": 1, "cwd": "/p", "prompt": text}


def answers(tether: TetherDir) -> list[dict]:
    return [e for e in read_jsonl(tether.events)[0] if e["kind"] == "auto_rehydrate"]


def test_no_loss_no_answer(held):
    assert hook(held, "userPromptSubmitted", prompt("hello")) == ""


def test_the_prompt_after_a_fold_carries_the_payload_once(held):
    held.record_incident("compaction", "screen", trigger="manual")
    first = json.loads(hook(held, "userPromptSubmitted", prompt("after the fold")))
    assert DECISION in first["additionalContext"]
    assert set(first) == {"additionalContext"}  # Copilot's shape, not Claude's
    assert hook(held, "userPromptSubmitted", prompt("and again")) == ""
    (auto,) = answers(held)
    assert auto["incident"] == 1 and auto["hook_source"] == "compact"


def test_after_clear_the_session_start_answers_and_the_prompt_does_not(held):
    held.record_incident("wipe", "screen")
    start = {"sessionId": "two", "source": "new", "initialPrompt": "after the clear"}
    assert DECISION in json.loads(hook(held, "sessionStart", start))["additionalContext"]
    assert hook(held, "userPromptSubmitted", prompt("after the clear", "two")) == ""
    assert len(answers(held)) == 1


def test_a_clear_the_screen_missed_is_known_from_session_end_then_start(held):
    hook(held, "sessionStart", {"sessionId": "one", "source": "new", "initialPrompt": "x"})
    hook(held, "sessionEnd", {"sessionId": "one", "reason": "user_exit"})
    start = {"sessionId": "two", "source": "new", "initialPrompt": "y"}
    assert DECISION in json.loads(hook(held, "sessionStart", start))["additionalContext"]
    (auto,) = answers(held)
    assert auto["hook_source"] == "clear"


def test_a_clear_the_screen_saw_is_answered_once_when_the_prompt_s_hook_answers_first(held):
    """Seen in a loaded e2e run: the screen's wipe, then the prompt's hook took the update
    lock before sessionStart's, answered, and sessionStart took the clear for one the
    screen had missed: a second incident and a second payload."""
    hook(held, "sessionStart", {"sessionId": "one", "source": "new", "initialPrompt": "x"})
    hook(held, "sessionEnd", {"sessionId": "one", "reason": "user_exit"})
    held.record_incident("wipe", "screen")
    assert (
        DECISION
        in json.loads(hook(held, "userPromptSubmitted", prompt("y", "two")))["additionalContext"]
    )
    assert (
        hook(held, "sessionStart", {"sessionId": "two", "source": "new", "initialPrompt": "y"})
        == ""
    )
    (auto,) = answers(held)
    assert auto["incident"] == 1
    assert [e["number"] for e in read_jsonl(held.events)[0] if e["kind"] == "incident"] == [1]


def test_a_whole_recovery_paste_after_the_loss_is_not_doubled(held):
    held.record_incident("compaction", "screen")
    held.record_event("injection", "supervisor", reason="F6", incident=1, restate="all")
    assert hook(held, "userPromptSubmitted", prompt("the payload")) == ""


def test_session_start_and_prompt_hooks_started_together_answer_once(held):
    """Copilot 1.0.102 starts both hooks of the first prompt after /clear in the same
    millisecond (seen in the e2e run): one answers, the other finds it answered."""
    held.record_incident("wipe", "screen")
    env = {k: v for k, v in os.environ.items() if k != "TETHER_HOOK_SOCKET"}
    env.setdefault("TETHER_CONFIG_DIR", str(held.work_dir / "cfg"))  # conftest: trusted
    env["TETHER_PROFILE"] = "copilot"
    calls = [
        ("sessionStart", {"sessionId": "two", "source": "new", "initialPrompt": "go"}),
        ("userPromptSubmitted", prompt("go", "two")),
    ]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "supervisor", "hook", event, "--dir", str(held.work_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        for event, _ in calls
    ]
    outs = [
        p.communicate(json.dumps(payload), timeout=60)[0]
        for p, (_, payload) in zip(procs, calls, strict=True)
    ]
    assert sorted(bool(out) for out in outs) == [False, True], outs
    assert len(answers(held)) == 1


def test_copilots_tool_report_lands_in_the_ledger_with_its_exit_code(held):
    """Recorded from 1.0.102 (cp102-tool.hooks.jsonl): `bash` ran `echo ... && exit 3`."""
    from tests.locations import CAPTURES

    (call,) = [
        json.loads(x) for x in (CAPTURES / "cp102-tool.hooks.jsonl").read_text().splitlines()
    ]
    assert hook(held, "postToolUse", call["payload"]) == ""
    ledger = held.root / "ledger.jsonl"
    (action,) = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert action["command"] == "echo hello-from-tool && exit 3"
    assert action["exit"] == 3
