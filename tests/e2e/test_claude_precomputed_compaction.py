"""Claude Code 2.1.332 folding with a summary it wrote while the user was away, with tether's hooks.

Where it happens (read from 2.1.332's bundled code, then driven): the idle timer (90% of the
1-hour prompt cache's life after the last request that wrote to it, context of at least
CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS) compacts at once when the session has a host (the
interactive REPL's SessionController: "Compacted while idle", see
test_claude_idle_compaction.py); with no host it only *writes the summary* in the background
(``precomputeCompactionEnabled``, default on) and swaps it in when the next prompt comes
after the cache expired (one that comes before discards it: "returned_early", no fold).
Sessions without a host that arm the timer at all are the non-interactive ones started by an
IDE or desktop entrypoint (``CLAUDE_CODE_ENTRYPOINT`` claude-vscode, claude-desktop, ...):
`claude -p --input-format stream-json`. So this fold never shows in a terminal tether
supervises; it is driven here headless, with tether's own hooks (`tether hook`, standalone,
``.tether/`` in the project) and its clock run 60 times as fast.

What it shows: the summary is written with no prompt in flight (the compaction request, the
PreCompact hook) but nothing folds until the next prompt; then SessionStart(compact),
PostCompact ("auto"), the transcript's boundary (``"precomputed": true``) and the notice
"Compacted using a summary written while you were away"; tether's sources fuse into one
incident with trigger ``precomputed``, its summary and loss audit; and tether's payload
(its SessionStart answer) reaches the model in that very prompt's request, once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest

from supervisor.agents.claude_settings import write_settings
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.transcripts import ClaudeTranscript
from supervisor.store.tether_dir import TetherDir, init
from tests.e2e import agents
from tests.e2e.fake_server import ServerProcess, claude_last_prompt
from tests.e2e.tether_driver import Timer, request_text
from tests.store_records import recent_events

pytestmark = pytest.mark.e2e

PAYLOAD_MARK = "Context check from tether: this conversation may have lost detail"
NOTICE = "Compacted using a summary written while you were away"
PIN = "refresh tokens are stored in Redis with a 15 minute TTL"
SPEED = 60
READY = "precomputed compact: ready"  # 2.1.332's debug log, when the summary is kept
DEBUG_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT[\d:.]+Z) \[DEBUG\] (.*)$", re.MULTILINE)
CACHE_HOUR = 3600.0  # the prompt cache's life after its last write, on the agent's clock
CACHE_MARGIN = 120.0  # the reply that wrote it ends after its request's line


class Headless:
    """`claude -p` reading stream-json prompts on stdin, writing stream-json to a file."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], out: Path) -> None:
        self.out = out
        self._stdout = out.open("w", encoding="utf-8")
        self._stderr = out.with_suffix(".stderr").open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=self._stdout,
            stderr=self._stderr, text=True,
        )  # fmt: skip

    def send(self, text: str) -> None:
        message = {"type": "user", "message": {"role": "user", "content": text}}
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def lines(self) -> list[dict]:
        return agents.read_jsonl(self.out) if self.out.exists() else []

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._stdout.close()
        self._stderr.close()


def agent_time(log: Path, text: str, before: float | None = None) -> float | None:
    """When the agent first wrote ``text`` to its debug log, on its own (fast) clock; with
    ``before``, the last time it did before then."""
    if not log.exists():
        return None
    stamps = [
        datetime.fromisoformat(m.group(1)).timestamp()
        for m in DEBUG_LINE.finditer(log.read_text(encoding="utf-8", errors="replace"))
        if text in m.group(2)
    ]
    if before is not None:
        stamps = [t for t in stamps if t <= before][-1:]
    return stamps[0] if stamps else None


def wait_reply(server: ServerProcess, prompt: str, timeout: float = 60) -> dict:
    return server.wait_for_request(
        lambda e: claude_last_prompt(e["body"]).strip() == prompt, timeout=timeout
    )


def wait_for(what: str, probe: Callable[[], object], timeout: float) -> object:
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"no {what} within {timeout}s")
        time.sleep(0.2)


def test_claude_precomputed_fold_is_one_incident_rehydrated_in_the_next_prompt(
    make_claude_env, fake_server: ServerProcess, tmp_path: Path
) -> None:
    with Timer("claude precomputed compaction, headless (clock x60)"):
        setup = make_claude_env(hooks=False)
        init(setup.project, goal="keep the auth work on track")
        TetherDir.at(setup.project).add_decisions([PIN], source="test")
        settings = write_settings(setup.project / ".tether")  # the wrapper lengthens its timeouts
        folder = setup.project.parent / "fast-clock"
        agents.fast_clock_wrapper(folder, agents.ensure_libfaketime(), setup.binary, SPEED)
        env = dict(setup.env, PATH=f"{folder}:{setup.env['PATH']}", TETHER_PROFILE="claude")
        # where `init` remembered that this `.tether/` is trusted (the hooks read it there)
        env["TETHER_CONFIG_DIR"] = os.environ["TETHER_CONFIG_DIR"]
        env.update(
            ENABLE_PROMPT_CACHING_1H="1",
            CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS="100000",
            CLAUDE_CODE_ENTRYPOINT="claude-vscode",
        )
        argv = ["claude", "-p", "--input-format", "stream-json", "--output-format", "stream-json"]
        debug = tmp_path / "claude-debug.log"  # it says when the summary is ready
        argv += ["--verbose", "--settings", str(settings), "--debug-file", str(debug)]
        agent = Headless(argv, setup.project, env, tmp_path / "stream.jsonl")
        try:
            agent.send("hello fake model")
            wait_reply(fake_server, "hello fake model")
            agent.send("FILLCTX=150000 CACHEWRITE fill the context")
            fill = wait_reply(fake_server, "FILLCTX=150000 CACHEWRITE fill the context")
            # Nobody types: 54 fake minutes later (about a minute here) the summary is
            # written in the background, and nothing folds yet.
            written = fake_server.wait_for_request(
                lambda e: e["seq"] > fill["seq"], rule="claude-compact", timeout=180
            )
            # It is kept for a prompt that comes after the cache expired: one sent while the
            # summary is being written, or before the hour is out, folds nothing.
            wait_for("ready summary", lambda: agent_time(debug, READY), timeout=60)
            seen, ready = time.time(), agent_time(debug, READY)
            assert ready is not None
            last_write = agent_time(debug, "[API REQUEST] /v1/messages source=sdk", ready)
            assert last_write is not None
            expired = last_write + CACHE_HOUR + CACHE_MARGIN
            wait_for(
                "the cache's hour to pass on the agent's clock",
                lambda: ready + (time.time() - seen) * SPEED >= expired,  # a lower bound
                timeout=(expired - ready) / SPEED + 10,
            )
            (transcript,) = agents.claude_transcripts(setup.home)
            assert not [
                e for e in agents.read_jsonl(transcript) if e.get("subtype") == "compact_boundary"
            ], "the fold came before the next prompt"

            agent.send("carry on")
            request = wait_reply(fake_server, "carry on", timeout=120)
            wait_for(
                "notice",
                lambda: [line for line in agent.lines() if NOTICE in str(line.get("content"))],
                timeout=60,
            )
        finally:
            agent.close()

        assert request["seq"] > written["seq"]
        copies = request_text(request).count(PAYLOAD_MARK)
        assert copies == 1, f"the prompt after the fold carries {copies} payload copies"
        assert PAYLOAD_MARK not in request_text(written), "the summary was asked with a payload"
        # tether's PreCompact answer (keep the pins word for word) reaches the summary written
        # while the user was away: that hook fires then, not when the fold comes.
        assert PIN in request_text(written), "the pins did not reach the background summary"

        # tether's sources of it: its recorded hook calls and the agent's transcript
        events, _bad = recent_events(TetherDir.at(setup.project), 200)
        calls = [e for e in events if e.get("kind") == "hook"]
        said = [(c["event"], (c.get("payload") or {}).get("source")) for c in calls]
        assert ("SessionStart", "compact") in said, said
        answered = [e for e in events if e.get("kind") == "auto_rehydrate"]
        assert [e.get("hook_source") for e in answered] == ["compact"], answered
        entries = agents.read_jsonl(transcript)
        (boundary,) = [e for e in entries if e.get("subtype") == "compact_boundary"]
        assert boundary["compactMetadata"]["precomputed"] is True, boundary
        assert boundary["compactMetadata"]["trigger"] == "auto", boundary

        fusion = Fusion(decisions=lambda: [PIN])
        for call in calls:
            payload = call.get("payload") if isinstance(call.get("payload"), dict) else None
            for observation in observations_from_hook(call["event"], payload, time.time()):
                fusion.observe(observation)
        parser = ClaudeTranscript()
        for entry in entries:
            for observation in parser.feed(entry, time.time()):
                fusion.observe(observation)
        (incident,) = [i for i in fusion.incidents if i.kind == "compaction"]
        assert incident.trigger == "precomputed", incident
        assert {"hook", "transcript"} <= set(incident.sources), incident
        assert "FAKE-COMPACT-SUMMARY" in (incident.summary or ""), incident
        assert incident.audit is not None and incident.audit.decisions[0].decision == PIN
