"""F6 and the SessionStart hook's payload: the agent gets one copy per loss.

A real child in a real PTY stands for the agent (it prints the profile's prompt cue and
a compaction marker, and writes every line it reads to a file); the hook's answer is the
real ``session_start_answer``, written to events.jsonl as `tether hook` writes it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from supervisor.agents.session_start_answer import session_start_answer
from supervisor.rehydrate import recall_check
from supervisor.run.recovery import NUDGE_REASON
from supervisor.run.supervision import RunConfig, Supervision
from supervisor.store.tether_dir import init
from supervisor.terminal.session import AgentSession
from tests.conftest import until
from tests.store_records import read_jsonl

DECISION = "tokens live 15 minutes in Redis because the mobile client cannot keep them"
PREAMBLE_HEAD = "Context check from tether"
CUES = {"claude": "? for shortcuts", "codex": "Ask Codex to do anything"}
MARKERS = {"claude": "✻ Conversation compacted", "codex": "• Context compacted"}

AGENT = """
import os, sys
cue, marker, seen, go = sys.argv[1:5]
print(marker, flush=True)
while not os.path.exists(go):  # busy until the test lets it wait for input
    import time; time.sleep(0.02)
print(cue, flush=True)
for line in sys.stdin:
    with open(seen, "a") as out:
        out.write(line)
    print(cue, flush=True)
"""


class Run:
    def __init__(self, tmp_path: Path, profile: str):
        self.work = tmp_path / "work"
        self.work.mkdir()
        tether = init(self.work, goal="log in").tether
        tether.add_note("decision", DECISION)
        self.tether = tether
        self.profile = profile
        self.seen = tmp_path / "seen.txt"
        self.go = tmp_path / "go"
        argv = [sys.executable, "-c", AGENT, CUES[profile], MARKERS[profile]]
        argv += [str(self.seen), str(self.go)]
        self.session = AgentSession(argv, cols=120, rows=30, cwd=str(self.work))
        config = RunConfig(argv=argv, workdir=self.work, profile_name=profile, record=False)
        self.supervision = Supervision(config, self.session)

    async def start(self) -> None:
        self.supervision.open()
        self.session.start()
        await self.ticking(lambda: self.supervision.current_incident is not None, "the incident")

    async def ticking(self, predicate, what: str, timeout: float = 15.0) -> None:
        def tick_and_look() -> bool:
            self.supervision.tick()
            return predicate()

        await until(tick_and_look, what, timeout)

    async def let_it_wait(self) -> None:
        self.go.touch()
        await self.ticking(self.supervision.ready_for_injection, "the agent to wait for input")

    def hook_answers(self, source: str = "compact") -> str:
        """The SessionStart hook as the agent would run it (the same answer, the same events)."""
        self.tether.record_event("hook", "hook", event="SessionStart", payload={"source": source})
        out = session_start_answer(self.work, {"source": source}, profile_name=self.profile)
        assert out is not None
        return out

    def hook_event(self, event: str) -> None:
        self.tether.record_event("hook", "hook", event=event, payload={"hook_event_name": event})

    def lines_seen(self) -> str:
        return self.seen.read_text() if self.seen.exists() else ""

    def events(self, kind: str) -> list[dict]:
        return [e for e in read_jsonl(self.tether.events)[0] if e["kind"] == kind]

    def close(self) -> None:
        self.supervision.stop_agent()
        self.supervision.close()


@pytest.fixture
async def claude(tmp_path, monkeypatch):
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "cfg"))
    run = Run(tmp_path, "claude")
    await run.start()
    yield run
    run.close()


@pytest.fixture
async def codex(tmp_path, monkeypatch):
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "cfg"))
    run = Run(tmp_path, "codex")
    await run.start()
    yield run
    run.close()


async def test_f6_after_claudes_hook_answer_prompts_the_agent_instead_of_a_second_copy(claude):
    """Claude Code's SessionStart(compact) answer sits in its context until the next prompt:
    F6 then sends a short prompt that takes it to the model, not the payload again."""
    await claude.let_it_wait()
    assert PREAMBLE_HEAD in claude.hook_answers()
    injector = claude.supervision.injector
    await claude.ticking(lambda: injector.last is not None, "the hook's recovery tracked")
    assert injector.status().stage == "held"  # Claude keeps it for the next prompt
    assert "held for its next prompt" in injector.status().describe()
    assert claude.supervision.rehydrate() == "sent"
    await until(lambda: "Recovery from tether" in claude.lines_seen(), "the prompt in the agent")
    seen = claude.lines_seen()
    assert "payload for compaction #1 is already in your context" in seen
    assert PREAMBLE_HEAD not in seen and DECISION not in seen
    (nudge,) = claude.events("injection")
    assert nudge["reason"] == NUDGE_REASON and "restate" not in nudge  # no recovery of its own
    assert nudge["payload_by"] == "SessionStart hook"
    status = injector.status()
    assert status.reason == "auto_rehydrate"  # the hook's recovery still awaits its ack
    assert status.describe() == (
        f"Payload given by the agent's SessionStart hook {status.seconds:.0f} s ago, then "
        "tether's prompt to take it; waiting for the agent's `tether ack`"
    )
    check, _new = recall_check.acknowledge(claude.tether, "Restated: " + DECISION)
    assert check.result == "complete"
    assert [e["injection_at"] for e in claude.events("recall_check")] == [
        claude.events("auto_rehydrate")[0]["at"]
    ]  # one recovery, one outcome: nothing superseded


async def test_f6_pressed_before_claudes_hook_answer_becomes_the_prompt_to_act_on_it(claude):
    """F6 while Claude compacts (busy) queues the payload; the hook's answer comes first, so
    the queued copy is withdrawn and the short prompt goes in its place."""
    assert claude.supervision.rehydrate() == "queued"
    claude.hook_answers()
    await claude.ticking(lambda: claude.events("injection_withdrawn"), "the withdrawal")
    (withdrawn,) = claude.events("injection_withdrawn")
    assert withdrawn["reason"] == "rehydrate" and "SessionStart hook" in withdrawn["why"]
    await claude.let_it_wait()
    await claude.ticking(lambda: "Recovery from tether" in claude.lines_seen(), "the prompt")
    assert PREAMBLE_HEAD not in claude.lines_seen()
    assert [e["reason"] for e in claude.events("injection")] == [NUDGE_REASON]


async def test_once_a_turn_took_the_hooks_payload_f6_sends_the_whole_payload(claude):
    await claude.let_it_wait()
    claude.hook_answers()
    claude.hook_event("UserPromptSubmit")  # the user's own prompt took it to the model
    claude.hook_event("Stop")
    supervision = claude.supervision
    await claude.ticking(
        lambda: supervision.injector.last is not None and supervision.ready_for_injection(),
        "the turn seen, and the agent waiting again",
    )
    assert supervision.recovery.held is None
    assert supervision.rehydrate() == "sent"
    await until(lambda: PREAMBLE_HEAD in claude.lines_seen(), "the payload in the agent")
    (injection,) = claude.events("injection")
    assert injection["reason"] == "rehydrate" and injection["restate"] == "all"


async def test_f6_queued_when_codexs_hook_gives_the_payload_with_a_turn_is_withdrawn(codex):
    """Codex's hook answers as a turn starts: that turn carries the payload, so the copy F6
    queued meanwhile is not sent after it, and nothing replaces it."""
    assert codex.supervision.rehydrate() == "queued"
    codex.hook_answers()
    await codex.ticking(lambda: codex.events("injection_withdrawn"), "the withdrawal")
    await codex.let_it_wait()
    for _ in range(20):  # a few ticks with the agent waiting: nothing goes in
        codex.supervision.tick()
        await asyncio.sleep(0.02)
    assert codex.lines_seen() == "" and not codex.events("injection")
    assert codex.supervision.injector.status().reason == "auto_rehydrate"
