"""Gemini CLI 0.61.0 under `tether run gemini`, offline: its model is a BeforeModel hook, or
the fake server's Gemini routes (GOOGLE_GEMINI_BASE_URL) for /compress.

tether passes its hooks for the run through Gemini's system-defaults layer
(GEMINI_CLI_SYSTEM_DEFAULTS_PATH, supervisor/agents/gemini_settings.py); the test's "user"
has a BeforeModel hook of their own in ~/.gemini/settings.json that answers as the model
(tests/e2e/gemini_model.py), so both layers' hooks run. The scenario: a typed DECISION
(pinned), /clear (one wipe from the SessionEnd/SessionStart clear hooks; the next prompt's
BeforeAgent answer is the payload, which reaches the model in that request, once, no key
pressed: Gemini's model never saw the SessionStart answer after /clear).

A SIGKILL and F6 (`gemini --resume latest`): the resumed Gemini draws its prompt at once,
hides it while it loads the session and draws it again; a paste on the first prompt was
lost (3 of 7 runs), so tether waits until it has loaded the session (it appends to the
session file its turn hooks named) before the prompt counts (supervisor/run/restart.py:
prompt_before_session). Its SessionStart(resume) hook fires before or after the loading.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.e2e.fake_server import gemini_last_prompt
from tests.e2e.tether_driver import (
    DECISION,
    TetherRun,
    Timer,
    descendants,
    has_all_specifics,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PREAMBLE = "Context check from tether"
READY = r"Type your message"


def model_requests(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def say(run: TetherRun, log: Path, text: str) -> dict:
    """Type ``text``; the model request that carried it, once its reply is on screen."""
    before = len(model_requests(log))
    run.type_line(text, enter_delay=0.8)

    def sent() -> dict | None:
        for entry in model_requests(log)[before:]:
            if text in json.dumps(entry["messages"][-1:]):
                return entry
        return None

    request = run.poll(sent, 30, f"the model request for {text!r}")
    run.wait_screen(r"FAKE-GEMINI-REPLY", timeout=30)
    run.wait_screen(READY)
    return request


def test_gemini_clear_is_a_wipe_rehydrated_with_the_next_prompt(
    make_gemini_env, fake_server, tether_run
):
    with Timer("gemini: DECISION, /clear, the payload with the next prompt"):
        setup = make_gemini_env()
        log = Path(setup.env["GEMINI_FAKE_LOG"])
        run = tether_run(setup, fake_server, "gemini", "-m", "gemini-2.5-flash", ready=READY)
        run.poll(
            lambda: run.events_of("hook", event="SessionStart"),
            20,
            "tether's SessionStart hook from the system-defaults layer",
        )
        assert not run.events_of("agent_hooks_warning"), run.events_of("agent_hooks_warning")
        say(run, log, "hello gemini")
        say(run, log, DECISION)
        run.poll(lambda: run.events_of("decision"), 10, "the pinned DECISION")

        run.type_line("/clear", enter_delay=0.8)
        wipe = run.wait_incident(
            "wipe", where=lambda i: "hook" in i.get("sources", []), what="a wipe from the hooks"
        )
        # Gemini redraws its whole screen after /clear: keys typed before the old turns are
        # gone from it were lost in two of three runs.
        run.poll(lambda: "FAKE-GEMINI-REPLY" not in run.agent_screen(), 20, "the redraw")
        run.wait_screen(READY)
        request = say(run, log, "what now")
        auto = run.wait_event("auto_rehydrate", hook_source="clear")
        assert auto["incident"] == wipe["number"], (auto, wipe)
        text = json.dumps(request["messages"], ensure_ascii=False).replace("\\n", "\n")
        if text.count(PREAMBLE) != 1 or not has_all_specifics(text):
            run.fail(f"the prompt after /clear carries {text.count(PREAMBLE)} payload copies")
        assert len(run.incidents_of("wipe")) == 1, run.incidents()
        assert not run.events_of("injection"), "a key was pressed for the payload"


def served(run: TetherRun, text: str) -> dict:
    """Type ``text`` (Gemini's model is the fake server); the request that carried it."""
    after = run.last_seq()
    run.type_line(text, enter_delay=0.8)

    def sent() -> dict | None:
        for e in run.server.requests(rule="gemini-reply"):
            if e["seq"] > after and text in gemini_last_prompt(e["body"]):
                return e
        return None

    entry = run.poll(sent, 30, f"the request for {text!r}")
    turn = sum(1 for c in entry["body"]["contents"] if c.get("role") == "user")
    run.wait_screen(rf"FAKE-GEMINI-REPLY {turn}: ack")
    run.wait_screen(READY)
    return entry


def test_gemini_compressions_are_incidents_rehydrated_at_the_next_prompt(
    make_gemini_env, fake_server, tether_run
):
    """/compress for real: the turns and the summary come from the fake server's Gemini
    routes (GOOGLE_GEMINI_BASE_URL). With the BeforeModel hook as the model, Gemini keeps
    no history (a blocked turn is not recorded) and says "Nothing to compress."."""
    with Timer("gemini: DECISION, /compress, an automatic fold, each payload once"):
        setup = make_gemini_env(hook_model=False)
        run = tether_run(setup, fake_server, "gemini", "-m", "gemini-2.5-flash", ready=READY)
        served(run, "hello gemini")
        served(run, DECISION)
        served(run, "one more turn")
        compressing = len(run.events_of("hook", event="PreCompress"))
        run.type_line("/compress", enter_delay=0.8)
        run.wait_screen(r"Chat history compressed from \d+ to \d+ tokens", timeout=60)
        incident = run.wait_incident(
            "compaction",
            where=lambda i: "screen" in i.get("sources", []),
            what="a compaction from the screen",
        )
        # PreCompress comes before every turn too (trigger "auto": Gemini checks whether
        # to fold); only /compress's is "manual".
        later = run.events_of("hook", event="PreCompress")[compressing:]
        manual = [e for e in later if e["payload"].get("trigger") == "manual"]
        assert len(manual) == 1, later
        run.wait_screen(READY)
        request = served(run, "what now")
        auto = run.wait_event("auto_rehydrate")
        assert auto["incident"] == incident["number"], (auto, incident)
        text = json.dumps(request["body"], ensure_ascii=False).replace("\\n", "\n")
        if text.count(PREAMBLE) != 1 or not has_all_specifics(text):
            run.fail(f"the prompt after /compress carries {text.count(PREAMBLE)} payload copies")
        assert "FAKE-GEMINI-SUMMARY" in text, "the summary did not replace the history"
        assert len(run.incidents_of("compaction")) == 1, run.incidents()

        # Automatic: a turn reports 600,000 prompt tokens (over half of the model's 1,048,576);
        # Gemini folds before the next turn's request, after that turn's BeforeAgent: the
        # payload goes with the prompt after it.
        served(run, "FILLCTX=600000 fill the context")
        served(run, "next step please")
        auto_fold = run.wait_incident(
            "compaction",
            where=lambda i: i["number"] != incident["number"],
            what="an automatic compression from the screen",
        )
        assert (incident["trigger"], auto_fold["trigger"]) == ("manual", "auto"), run.incidents()
        request = served(run, "after the auto fold")
        run.poll(
            lambda: len(run.events_of("auto_rehydrate")) == 2, 15, "the automatic fold's payload"
        )
        assert run.events_of("auto_rehydrate")[1]["incident"] == auto_fold["number"]
        text = json.dumps(request["body"], ensure_ascii=False)
        if text.count(PREAMBLE) != 1:
            run.fail(f"the prompt after the auto fold carries {text.count(PREAMBLE)} copies")
        assert len(run.incidents_of("compaction")) == 2, run.incidents()


def test_gemini_sigkill_restarts_with_resume_and_the_payload_once(
    make_gemini_env, fake_server, tether_run
):
    """SIGKILL of Gemini's processes (its launcher and the relaunched child that draws);
    F6 restarts `gemini --resume latest`, the conversation comes back, and the pasted
    payload is the first request of the resumed session, once: no hook answers it too."""
    with Timer("gemini: DECISION, SIGKILL, F6 --resume latest, the pasted payload once"):
        setup = make_gemini_env(hook_model=False)
        run = tether_run(setup, fake_server, "gemini", "-m", "gemini-2.5-flash", ready=READY)
        served(run, "hello gemini")
        served(run, DECISION)
        run.poll(lambda: run.events_of("decision"), 10, "the pinned DECISION")
        run.wait_screen(READY)

        launcher = run.wait_agent_pid()
        for pid in [*reversed(descendants(launcher)), launcher]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # it ended with its child
        crash = run.wait_incident("crash", what="a crash incident")
        run.wait_tether_screen(r"F6 restart and rehydrate")
        after = run.last_seq()
        run.press("F6")
        restart = run.wait_event("agent_restart")
        assert restart["argv"][:3] == ["gemini", "--resume", "latest"], restart
        injection = run.wait_event("injection", reason="restart after crash", timeout=60)
        assert injection["incident"] == crash["number"], (injection, crash)
        run.poll(
            lambda: [
                e
                for e in run.events_of("hook", event="SessionStart")
                if e["payload"].get("source") == "resume"
            ],
            15,
            "SessionStart(resume) from the resumed session",
        )

        def carried() -> dict | None:
            for e in run.server.requests(rule="gemini-reply"):
                if e["seq"] > after and PREAMBLE in gemini_last_prompt(e["body"]):
                    return e
            return None

        request = run.poll(carried, 60, "the resumed session's request with the payload")
        text = json.dumps(request["body"], ensure_ascii=False).replace("\\n", "\n")
        assert "hello gemini" in text, "--resume latest lost the conversation"
        if text.count(PREAMBLE) != 1 or not has_all_specifics(text):
            run.fail(f"the restart's request carries {text.count(PREAMBLE)} payload copies")
        later = [e for e in run.server.requests(rule="gemini-reply") if e["seq"] > after]
        assert later[0]["seq"] == request["seq"], "a request went before the payload's"
        assert not run.events_of("auto_rehydrate"), "a hook answered the restart too"
        assert len(run.incidents_of("crash")) == 1, run.incidents()
