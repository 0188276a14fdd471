"""aider 0.86.2 under `tether run aider`, offline against the fake server's chat completions.

aider has no hooks and no journal: tether sees it through its screen, and every recovery
is F6 (a paste). Its summarizer runs only when the chat history moves from the current
exchange into the done messages, which aider does after it applied an edit
(``move_back_cur_messages``), and only when those messages are over
``--max-chat-history-tokens``; it summarises in a background thread and swaps the summary
in at the next request. It says so only with ``--verbose`` ("Starting to summarize chat
history." / "Finished summarizing chat history."), on screen and in
``.aider.chat.history.md``. The scenario: a typed DECISION (pinned), an edit that folds the
history (the fake server's summary in the next request), F6 (the payload in one request,
once), /clear (a wipe), a SIGKILL and F6: ``aider --restore-chat-history`` and the payload.
"""

from __future__ import annotations

import json
import os
import re
import signal

import pytest

from tests.e2e.agents import AIDER_MARKERS as AM
from tests.e2e.agents import aider_args
from tests.e2e.fake_server import chat_last_prompt
from tests.e2e.tether_driver import (
    DECISION,
    TetherRun,
    Timer,
    has_all_specifics,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PREAMBLE = "Context check from tether"


def copies(entry: dict) -> int:
    """Copies of tether's payload in one request's last user message."""
    return chat_last_prompt(entry["body"]).count(PREAMBLE)


def say(run: TetherRun, text: str, reply: str = r"FAKE-REPLY \d+: ack") -> dict:
    """Type ``text``; the request that carried it, once its reply and the prompt are back."""
    after = run.last_seq()
    run.type_line(text, enter_delay=0.8)
    request = run.wait_request(
        lambda e: chat_last_prompt(e["body"]).startswith(text), after=after, what=repr(text)
    )
    run.wait_screen(reply)
    run.wait_screen(AM["ready"])
    return request


def test_aider_decision_fold_clear_and_crash_are_recovered_by_f6(
    make_aider_env, fake_server, tether_run
):
    with Timer("aider: DECISION, a fold, F6, /clear, SIGKILL + --restore-chat-history"):
        setup = make_aider_env()
        args = [*aider_args(fake_server.url), "--verbose"]
        run = tether_run(setup, fake_server, "aider", *args, ready=AM["ready"])
        say(run, "hello aider")
        say(run, DECISION)
        decisions = run.poll(lambda: run.events_of("decision"), 10, "the pinned DECISION")
        assert [d.get("source") for d in decisions] == ["typed"], decisions

        # An edit moves the exchange into aider's done messages, over 300 tokens: it folds.
        say(run, "please write EDIT:notes.txt", reply=r"Applied edit to notes\.txt")
        run.wait_screen(AM["folded"], timeout=30)
        incident = run.wait_incident(
            "compaction",
            where=lambda i: "screen" in i.get("sources", []),
            what="a compaction from aider's screen",
        )
        assert run.server.requests(rule="aider-summary"), "aider's summarizer sent nothing"
        assert (setup.project / "notes.txt").exists()

        # F6: the payload, pasted once; the summary replaced the history in that request.
        after = run.last_seq()
        run.press("F6")
        run.wait_event("injection", timeout=20)
        request = run.wait_request(
            lambda e: chat_last_prompt(e["body"]).startswith(PREAMBLE), after=after, timeout=30
        )
        body = json.dumps(request["body"], ensure_ascii=False)
        assert "FAKE-AIDER-SUMMARY" in body, "the fold's summary is not in the next request"
        text = chat_last_prompt(request["body"])
        if copies(request) != 1 or not has_all_specifics(text):
            run.fail(f"the F6 request carries {copies(request)} payload copies")
        run.wait_screen(AM["ready"])
        later = [e for e in run.main_requests() if e["seq"] > request["seq"]]
        assert not any(copies(e) for e in later), "the payload was pasted twice"
        assert len(run.incidents_of("compaction")) == 1, run.incidents()
        assert incident["number"] == run.incidents_of("compaction")[0]["number"]

        # /clear: a wipe.
        run.type_line("/clear", enter_delay=0.8)
        run.wait_screen(AM["cleared"])
        run.wait_incident("wipe", what="a wipe from aider's screen")
        run.wait_screen(AM["ready"])
        say(run, "what now")
        assert len(run.incidents_of("wipe")) == 1, run.incidents()

        # SIGKILL; F6 restarts with --restore-chat-history and pastes the payload.
        pid = run.wait_agent_pid()
        os.kill(pid, signal.SIGKILL)
        run.wait_incident("crash", what="a crash incident")
        run.wait_tether_screen(r"F6 restart and rehydrate")
        after = run.last_seq()
        run.press("F6")
        restart = run.wait_event("agent_restart")
        assert "--restore-chat-history" in restart["argv"], restart
        assert "--openai-api-base" in restart["argv"], restart
        run.wait_event("injection", reason="restart after crash", timeout=45)
        request = run.wait_request(
            lambda e: chat_last_prompt(e["body"]).startswith(PREAMBLE), after=after, timeout=45
        )
        if copies(request) != 1:
            run.fail(f"the restart's request carries {copies(request)} payload copies")
        assert re.search("what now", json.dumps(request["body"])), "the history was not restored"
