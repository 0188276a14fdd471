"""GitHub Copilot CLI 1.0.102 under `tether run copilot`, offline against the fake server.

tether passes its hooks as a plugin for the one run (`--plugin-dir .tether/agent/...`),
follows Copilot's journal (~/.copilot/session-state/<id>/events.jsonl) and its screen. The
scenario: a shell command through Copilot's tool (into the ledger, with its exit code), a
typed DECISION (pinned once), /compact (one incident from journal and screen,
the preCompact hook beside them, with the summary and its loss audit; the payload reaches
the model with the next prompt, once), an automatic fold (the same), /clear (one wipe; the
payload with the first prompt after it, once), a SIGKILL of the native binary, F6:
`copilot --continue` and the payload pasted, once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.agents import COPILOT_MARKERS as PM
from tests.e2e.fake_server import chat_last_prompt
from tests.e2e.tether_driver import (
    DECISION,
    TetherRun,
    Timer,
    cmdline,
    descendants,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PREAMBLE = "Context check from tether"


def user_state(home: Path, project: Path) -> dict:
    """What tether must never write: Copilot's settings and hooks, the project's hooks.
    (config.json is Copilot's own bookkeeping: it rewrites it at every start.)"""
    files = [home / ".copilot" / "settings.json", home / ".copilot" / "hooks"]
    files += [project / ".github" / "hooks"]
    return {str(p): p.exists() for p in files}


def copies(entry: dict) -> int:
    """How many copies of tether's payload one request carries, all messages together."""
    return json.dumps(entry["body"], ensure_ascii=False).count(PREAMBLE)


def prompt_and_reply(run: TetherRun, text: str, timeout: float = 30.0) -> dict:
    """Type ``text``; wait for its reply on screen; the request that carried it. After a
    /clear Copilot once kept a typed prompt in its input after Enter: one more Enter, once."""
    after = run.last_seq()
    run.type_line(text, enter_delay=0.8)

    def sent() -> dict | None:
        for entry in run.main_requests():
            if entry["seq"] > after and chat_last_prompt(entry["body"]).endswith(text):
                return entry
        return None

    deadline = time.monotonic() + 8.0
    while not sent() and time.monotonic() < deadline:
        time.sleep(0.2)
    if not sent():
        run.press("Enter")
    request = run.poll(sent, timeout, f"the request for {text!r}")
    run.wait_screen(rf"ack '{re.escape(text[:30])}", timeout=timeout)
    run.wait_screen(PM["ready"])
    return request


def test_copilot_decision_compact_clear_and_crash_each_rehydrate_once(
    make_copilot_env, fake_server, tether_run
):
    with Timer("copilot: DECISION, /compact, /clear, SIGKILL + --continue"):
        setup = make_copilot_env()
        before = user_state(setup.home, setup.project)
        run = tether_run(setup, fake_server, "copilot", "--allow-all-tools", ready=PM["ready"])
        prompt_and_reply(run, "hello copilot")
        # A shell command through Copilot's `bash` tool: its postToolUse hook fills the ledger.
        run.type_line("RUN:echo hello-from-tool && exit 3", enter_delay=0.8)
        run.wait_screen(r"TOOL-RESULT-SEEN: hello-from-tool", timeout=30)
        run.wait_screen(PM["ready"])
        ledger = setup.project / ".tether" / "ledger.jsonl"
        actions = run.poll(
            lambda: ledger.exists() and [json.loads(x) for x in ledger.read_text().splitlines()],
            10,
            "the tool's action in the ledger",
        )
        assert [(a["command"], a["exit"]) for a in actions] == [
            ("echo hello-from-tool && exit 3", 3)
        ], actions
        prompt_and_reply(run, DECISION)
        decisions = run.poll(lambda: run.events_of("decision"), 10, "the pinned DECISION")
        run.wait_screen(PM["ready"])
        assert [d.get("source") for d in run.events_of("decision")] == ["typed"], decisions
        notes = (setup.project / ".tether" / "notes.md").read_text()
        assert notes.count("refresh tokens in Redis") == 1, notes

        # /compact: one incident from the journal and the screen; the preCompact hook (a
        # compaction starting: fusion opens nothing on it) is there too, with its trigger.
        run.type_line("/compact keep the decisions", enter_delay=1.0)
        run.wait_screen(PM["compacted"], timeout=30)
        every_source = {"screen", "transcript"}
        incident = run.wait_incident(
            "compaction",
            where=lambda i: (
                every_source <= set(i.get("sources", []))
                and i.get("trigger") == "manual"
                and i.get("audit")
            ),
            what="a manual compaction from hook, journal and screen, with its audit",
        )
        assert "FAKE-COPILOT-COMPACT-SUMMARY" in incident["summary"], incident
        (pre,) = run.events_of("hook", event="preCompact")
        assert pre["payload"]["trigger"] == "manual", pre
        assert "Redis" in json.dumps(incident["audit"]), incident["audit"]  # the summary lost it
        request = prompt_and_reply(run, "carry on")
        if copies(request) != 1:
            run.fail(f"the prompt after /compact carries {copies(request)} payload copies")
        run.wait_event("auto_rehydrate", hook_source="compact")
        later = prompt_and_reply(run, "and then")
        assert copies(later) == 1, "the payload was sent again with the next prompt"

        # Automatic: a turn reporting 900,000 tokens (of 922,000); the next turn folds in
        # the background, the one after it carries the payload.
        prompt_and_reply(run, "FILLCTX=900000 fill the context")
        prompt_and_reply(run, "next step please")
        auto = run.wait_incident(
            "compaction",
            where=lambda i: (
                i["number"] != incident["number"]
                and every_source <= set(i.get("sources", []))
                and i.get("trigger") == "auto"
                and i.get("audit")
            ),
            what="an automatic compaction from journal and screen, with its audit",
        )
        request = prompt_and_reply(run, "after the auto fold")
        run.poll(
            lambda: len(run.events_of("auto_rehydrate", hook_source="compact")) == 2,
            15,
            "the payload for the automatic fold",
        )
        if copies(request) != 1:
            run.fail(f"the prompt after the auto fold carries {copies(request)} copies")

        # /clear: one wipe; the first prompt after it carries the payload, once.
        run.type_line("/clear", enter_delay=1.0)
        run.wait_screen(PM["cleared"], timeout=30)
        run.wait_screen(PM["ready"])
        request = prompt_and_reply(run, "what now")
        run.wait_event("auto_rehydrate", hook_source="clear")
        if copies(request) != 1:
            run.fail(f"the prompt after /clear carries {copies(request)} payload copies")
        run.poll(
            lambda: any("transcript" in i.get("sources", []) for i in run.incidents_of("wipe")),
            15,
            "the new session's journal joining the wipe",
        )
        assert len(run.incidents_of("wipe")) == 1, run.incidents()
        assert len(run.incidents_of("compaction")) == 2, run.incidents()
        assert auto["number"] == incident["number"] + 1, run.incidents()
        assert len(run.events_of("auto_rehydrate")) == 3, run.events_of("auto_rehydrate")
        assert not run.events_of("injection"), "a key was pressed for the payload"

        # SIGKILL of the native binary; F6 restarts with --continue and sends the payload.
        loader = run.wait_agent_pid()
        native = [p for p in descendants(loader) if "copilot-linux" in cmdline(p)]
        assert native, [cmdline(p) for p in descendants(loader)]
        os.kill(native[0], signal.SIGKILL)
        run.wait_incident("crash", what="a crash incident")
        run.wait_tether_screen(r"F6 restart and rehydrate")
        after = run.last_seq()
        run.press("F6")
        restart = run.wait_event("agent_restart")
        assert restart["argv"][0] == "copilot" and "--continue" in restart["argv"], restart
        assert "--plugin-dir" in restart["argv"], restart
        run.wait_event("injection", reason="restart after crash", timeout=45)
        request = run.wait_request(
            lambda e: chat_last_prompt(e["body"]).startswith(PREAMBLE), after=after, timeout=45
        )
        assert "what now" in json.dumps(request["body"]), "--continue lost the conversation"
        if copies(request) != 1:
            run.fail(f"the restart's request carries {copies(request)} payload copies")
        run.poll(
            lambda: any(
                e["payload"].get("source") == "resume"
                for e in run.events_of("hook", event="sessionStart")
            ),
            15,
            "sessionStart(resume) from the continued session",
        )
        assert len(run.events_of("auto_rehydrate")) == 3, "a hook answered the restart too"
        assert user_state(setup.home, setup.project) == before, "tether wrote the user's files"
