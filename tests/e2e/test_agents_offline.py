"""The real Claude Code and Codex CLIs run offline here, against the fake model server.

No tether yet: each test drives an agent directly in a detached tmux session at 120x40 and
checks what tether will later rely on: the screen markers, the requests the model received,
the hooks and the transcript / rollout files. Every wait is a bounded poll.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.e2e import agents, tmux
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.fake_server import claude_last_prompt, codex_last_prompt
from tests.e2e.tmux import wait_until

DECISION = (
    "DECISION: refresh tokens in Redis, 15 minute TTL, rotate on use, "
    "because the mobile client cannot persist tokens"
)
SPECIFICS = ("Redis", "15 minute", "rotate on use", "mobile client")


def _events(setup, name: str) -> list[dict]:
    return [h["payload"] for h in setup.hooks() if h["event"] == name]


def _transcript_entries(setup) -> list[dict]:
    out: list[dict] = []
    for path in setup.transcripts():
        out += agents.read_jsonl(path)
    return out


def _turn(tm, fake_server, prompt: str, reply: str, last_prompt, path: str) -> dict:
    """Type ``prompt``, see the fake model's ``reply`` on screen: the request that carried
    it (``last_prompt`` reads the prompt out of a request body sent to ``path``)."""
    tm.type_line(prompt)
    tm.wait_for(reply)
    return fake_server.wait_for_request(lambda e: last_prompt(e["body"]) == prompt, path=path)


def _next_turn_carries_the_summary(
    tm, fake_server, summary: str, last_prompt, path: str = "/v1/messages"
) -> None:
    """A prompt after the compaction reaches the model with the compaction's ``summary``;
    prints which of the decision's specifics were still sent (what the agent kept)."""
    after = _turn(tm, fake_server, "after compact", r"ack 'after compact'", last_prompt, path)
    body = json.dumps(after["body"])
    assert summary in body
    print("decision specifics still sent after /compact:", [s for s in SPECIFICS if s in body])


# --------------------------------------------------------------------------- Claude Code


def _start_claude(setup, tmux_session, *args: str):
    tm = tmux_session(120, 40)
    tm.start([*setup.argv, *args], setup.env, setup.project)
    tm.wait_for(CM["ready"], timeout=30)
    return tm


def test_claude_prompt_and_manual_compact(make_claude_env, fake_server, tmux_session):
    setup = make_claude_env(hooks=True)
    tm = _start_claude(setup, tmux_session)

    reply = r"FAKE-REPLY 1: ack 'hello fake model'"
    req = _turn(tm, fake_server, "hello fake model", reply, claude_last_prompt, "/v1/messages")
    assert req["rule"] == "reply"
    assert req["headers"].get("x-api-key") == "<redacted>"
    assert req["body"]["stream"] is True

    tm.type_line(DECISION)
    tm.wait_for(r"FAKE-REPLY 2: ack 'DECISION: refresh tokens in Redis")
    tm.type_line("and the login page stays as it is")
    tm.wait_for(r"FAKE-REPLY 3: ack 'and the login page")

    tm.type_line("/compact", enter_delay=1.0)
    tm.wait_for(CM["compacted"], timeout=30)
    compact_req = fake_server.wait_for_request(rule="claude-compact")
    assert DECISION in json.dumps(compact_req["body"]), "the model saw the decision before"

    # transcript: a manual compact boundary and a summary that lost the specifics
    entries = wait_until(
        lambda: [e for e in _transcript_entries(setup) if e.get("subtype") == "compact_boundary"],
        what="compact_boundary in the transcript",
    )
    assert entries[0]["compactMetadata"]["trigger"] == "manual"
    summary = next(e for e in _transcript_entries(setup) if e.get("isCompactSummary"))
    text = json.dumps(summary["message"])
    assert "FAKE-COMPACT-SUMMARY" in text and "refresh tokens" in text
    assert not [s for s in SPECIFICS if s in text]

    # hooks: PreCompact/PostCompact manual, SessionStart(source=compact)
    wait_until(lambda: _events(setup, "PostCompact"), what="PostCompact hook")
    assert [p["trigger"] for p in _events(setup, "PreCompact")] == ["manual"]
    assert "FAKE-COMPACT-SUMMARY" in _events(setup, "PostCompact")[0]["compact_summary"]
    assert "compact" in [p["source"] for p in _events(setup, "SessionStart")]

    # the next turn goes out on the compacted history
    # Observed with 2.1.332: the most recent exchange before /compact is kept verbatim
    # (compactMetadata.preservedSegment), older turns only through the summary.
    _next_turn_carries_the_summary(tm, fake_server, "FAKE-COMPACT-SUMMARY", claude_last_prompt)

    tm.type_line("/exit", enter_delay=0.7)
    assert tm.wait_exit(timeout=15) == 0
    m = tm.wait_for(CM["exit_hint"], timeout=5)
    assert m.group(2) == _events(setup, "SessionStart")[0]["session_id"]
    assert [p["reason"] for p in _events(setup, "SessionEnd")] == ["prompt_input_exit"]


def test_claude_reactive_auto_compact(make_claude_env, fake_server, tmux_session):
    setup = make_claude_env(hooks=True)
    tm = _start_claude(setup, tmux_session)

    tm.type_line("hello fake model")
    tm.wait_for(r"FAKE-REPLY 1")
    tm.type_line("second message")
    tm.wait_for(r"FAKE-REPLY 2")

    # TOOLONG -> HTTP 400 "prompt is too long" -> Claude compacts and retries the prompt
    tm.type_line("please TOOLONG now")
    tm.wait_for(r"ack 'please TOOLONG now'", timeout=30)
    rules = [e["rule"] for e in fake_server.requests(path="/v1/messages")]
    i = rules.index("toolong")
    assert rules[i + 1 : i + 3] == ["claude-compact", "reply"], rules

    boundary = wait_until(
        lambda: [e for e in _transcript_entries(setup) if e.get("subtype") == "compact_boundary"],
        what="compact_boundary in the transcript",
    )
    assert boundary[0]["compactMetadata"]["trigger"] == "auto"
    wait_until(lambda: _events(setup, "PostCompact"), what="PostCompact hook")
    assert [p["trigger"] for p in _events(setup, "PreCompact")] == ["auto"]
    assert [p["trigger"] for p in _events(setup, "PostCompact")] == ["auto"]
    assert "compact" in [p["source"] for p in _events(setup, "SessionStart")]
    assert "Context limit reached" not in tm.capture(history=True, join=True)

    # /clear: new session id (SessionEnd clear, SessionStart clear), then a double ^C exit
    first_id = _events(setup, "SessionStart")[0]["session_id"]
    tm.type_line("/clear", enter_delay=1.0)
    wait_until(
        lambda: [p for p in _events(setup, "SessionStart") if p["source"] == "clear"],
        what="SessionStart(clear)",
    )
    new_id = _events(setup, "SessionStart")[-1]["session_id"]
    assert new_id != first_id
    assert [p["reason"] for p in _events(setup, "SessionEnd")] == ["clear"]
    tm.type_line("after clear")
    # wait for the end of the turn ("✻ Cooked for 0s"), or ^C interrupts it instead
    tm.wait_for(r"FAKE-REPLY 1: ack 'after clear'(?:.*\n)+?.*" + CM["turn_done"])

    tm.send_keys("C-c")
    tm.wait_for(CM["exit_again"], timeout=5)
    tm.send_keys("C-c")
    assert tm.wait_exit(timeout=15) == 0
    assert tm.wait_for(CM["exit_hint"], timeout=5).group(2) == new_id


# --------------------------------------------------------------------------- Codex


def _start_codex(setup, tmux_session, *args: str):
    tm = tmux_session(120, 40)
    tm.start([*setup.argv, *args], setup.env, setup.project)
    tm.wait_for(XM["ready"], timeout=30)
    return tm


def _rollout_entries(setup) -> list[dict]:
    return _transcript_entries(setup)


def test_codex_prompt_and_manual_compact(make_codex_env, fake_server, tmux_session):
    setup = make_codex_env(hooks=True)
    tm = _start_codex(setup, tmux_session)

    reply = r"FAKE-REPLY 1: ack 'hello codex'"
    req = _turn(tm, fake_server, "hello codex", reply, codex_last_prompt, "/v1/responses")
    assert req["headers"].get("authorization") == "<redacted>"
    assert req["body"]["stream"] is True

    tm.type_line(DECISION)
    tm.wait_for(r"ack 'DECISION: refresh tokens in Redis")

    tm.type_line("/compact", enter_delay=1.0)
    tm.wait_for(XM["compacted"], timeout=30)
    compact_req = fake_server.wait_for_request(rule="codex-compact")
    meta = json.loads(compact_req["headers"].get("x-codex-turn-metadata", "{}"))
    assert meta.get("compaction", {}).get("trigger") == "manual"

    compacted = wait_until(
        lambda: [e for e in _rollout_entries(setup) if e.get("type") == "compacted"],
        what="compacted entry in the rollout",
    )
    assert "FAKE-CODEX-COMPACT-SUMMARY" in compacted[0]["payload"]["message"]
    wait_until(lambda: _events(setup, "PostCompact"), what="PostCompact hook")
    assert [p["trigger"] for p in _events(setup, "PreCompact")] == ["manual"]

    # Observed with 0.171.0: earlier USER messages survive compaction verbatim.
    summary = "FAKE-CODEX-COMPACT-SUMMARY"
    _next_turn_carries_the_summary(tm, fake_server, summary, codex_last_prompt, "/v1/responses")
    assert "compact" in [p["source"] for p in _events(setup, "SessionStart")]

    tm.type_line("/quit", enter_delay=1.0)
    assert tm.wait_exit(timeout=15) == 0
    m = tm.wait_for(XM["exit_hint"], timeout=5)
    assert m.group(1) == _events(setup, "SessionStart")[0]["session_id"]


def test_codex_auto_compact(make_codex_env, fake_server, tmux_session):
    setup = make_codex_env(hooks=True)
    tm = _start_codex(setup, tmux_session, "-c", "model_auto_compact_token_limit=5000")

    tm.type_line("hello codex")
    tm.wait_for(r"FAKE-REPLY 1: ack 'hello codex'")
    assert not fake_server.requests(rule="codex-compact")

    # the first turn reported > 5000 tokens, so Codex compacts before the second turn
    tm.type_line("second prompt")
    # wait for the end of the turn ("Worked for <1s"), or ^C interrupts it instead of quitting
    tm.wait_for(r"ack 'second prompt'(?:.*\n)+?.*" + XM["turn_done"], timeout=30)
    assert tm.capture(join=True).count("Context compacted") == 1
    compact_req = fake_server.wait_for_request(rule="codex-compact")
    meta = json.loads(compact_req["headers"].get("x-codex-turn-metadata", "{}"))
    assert meta["compaction"]["trigger"] == "auto"
    assert meta["compaction"]["reason"] == "context_limit"

    compacted = wait_until(
        lambda: [e for e in _rollout_entries(setup) if e.get("type") == "compacted"],
        what="compacted entry in the rollout",
    )
    assert "FAKE-CODEX-COMPACT-SUMMARY" in compacted[0]["payload"]["message"]
    # 0.171.0 writes no "context_compacted" event_msg (agent-markers.md, from strings); the
    # event is an item_completed whose item.type is "ContextCompaction"
    assert any(
        e.get("type") == "event_msg"
        and e["payload"].get("type") == "item_completed"
        and e["payload"].get("item", {}).get("type") == "ContextCompaction"
        for e in _rollout_entries(setup)
    )
    wait_until(lambda: _events(setup, "PostCompact"), what="PostCompact hook")
    assert [p["trigger"] for p in _events(setup, "PreCompact")] == ["auto"]

    tm.send_keys("C-c")
    assert tm.wait_exit(timeout=15) == 0
    tm.wait_for(XM["exit_hint"], timeout=5)


def _processes_mentioning(text: str) -> list[str]:
    """Live processes whose command line or environment mentions ``text``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            environ = (proc / "environ").read_bytes().decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and (text in cmdline or text in environ):
            found.append(f"{proc.name}: {cmdline[:200]}")
    return found


def test_nothing_left_running(tmp_path_factory):
    """Runs last in this file: no agent, hook, fake server (they all carry this session's
    temp dir in their arguments or environment) and no tmux server of ours is alive."""
    marks = [str(tmp_path_factory.getbasetemp()), *tmux.CREATED_SOCKETS]

    def alive() -> list[str]:
        return [p for mark in marks for p in _processes_mentioning(mark)]

    try:
        wait_until(lambda: not alive(), timeout=5)
    except TimeoutError:
        pytest.fail(f"left running: {alive()}")
