"""aider 0.86.2 under `tether run aider`, offline against the fake server's chat completions.

aider has no hooks and no journal: tether sees it through its screen, and every recovery
is F6 (a paste). Its summarizer runs when the chat moves into the done messages over
``--max-chat-history-tokens``: after an applied edit (``move_back_cur_messages``), and at
start with ``--restore-chat-history``. It summarises in a background thread (one
non-streaming request, the fake server's FAKE-AIDER-SUMMARY) and swaps the summary in at
the next request. It says so only with ``--verbose`` ("Starting to summarize chat
history." / "Finished summarizing chat history."), on screen and in
``.aider.chat.history.md``. The scenario: a typed DECISION (pinned), an edit that makes it
summarise (one compaction incident from the screen), F6 (the payload in one request, once),
/clear (a wipe), a SIGKILL and F6: ``aider --restore-chat-history``, whose restored
history is folded as it starts, and the payload in the first request, once.

tether also follows aider's two history files: ``.aider.chat.history.md`` (the fold's
and /clear's lines, a second source of each incident) and the LLM history it asks aider to
write under ``.tether/`` (``--llm-history-file``): the summary is in the first request
after aider swapped it in, so the fold it came from gets its summary and loss audit.
"""

from __future__ import annotations

import json
import os
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
        # (--verbose prints every request: the screen scrolls past "Applied edit", and the
        # summarizer's thread writes its line after the prompt, "diff> Finished ...".)
        run.type_line("please write EDIT:notes.txt", enter_delay=0.8)
        run.poll(lambda: (setup.project / "notes.txt").exists(), 30, "aider's edit")
        run.wait_screen(AM["folded"], timeout=30)
        # The screen and .aider.chat.history.md ("> Finished summarizing chat history.")
        # saw it: one incident, two sources.
        incident = run.wait_incident(
            "compaction",
            where=lambda i: {"screen", "transcript"} <= set(i.get("sources", [])),
            what="a compaction from aider's screen and its chat history",
        )
        history = [e for e in run.events_of("compaction") if e.get("source") == "transcript"]
        assert [e.get("channel") for e in history] == ["chat_history"], history
        assert run.server.requests(rule="aider-summary"), "aider's summarizer sent nothing"

        # F6: the payload, pasted once. aider (0.86.2) usually throws this summary away: its
        # thread copies the done messages before the main thread appends "I updated the
        # files." to them, and summarize_end keeps a summary only of the messages as they
        # are then (a race; in every run here the full history was still sent).
        after = run.last_seq()
        run.press("F6")
        run.wait_event("injection", timeout=20)
        request = run.wait_request(
            lambda e: chat_last_prompt(e["body"]).startswith(PREAMBLE), after=after, timeout=30
        )
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
        run.wait_incident(
            "wipe",
            where=lambda i: {"screen", "transcript"} <= set(i.get("sources", [])),
            what="a wipe from aider's screen and its chat history",
        )
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
        # tether asks aider to log its requests under .tether/, for the run only.
        llm_history = restart["argv"][restart["argv"].index("--llm-history-file") + 1]
        assert llm_history == str(setup.project / ".tether" / "agent" / "aider-llm-history.txt")
        assert "--openai-api-base" in restart["argv"], restart
        run.wait_event("injection", reason="restart after crash", timeout=45)
        request = run.wait_request(
            lambda e: chat_last_prompt(e["body"]).startswith(PREAMBLE), after=after, timeout=45
        )
        if copies(request) != 1:
            run.fail(f"the restart's request carries {copies(request)} payload copies")
        # The restored history is over 300 tokens: aider folds it as it starts, and this fold
        # sticks (nothing is appended while its thread runs): the summary replaces it. The
        # crash's payload, in the same request, carries the decision past it. (Whether the
        # fold is also an incident of its own depends on when its marker lands: the screen
        # detector takes markers before the restarted agent's first input for replayed
        # history; both happened here.)
        body = json.dumps(request["body"], ensure_ascii=False)
        assert "FAKE-AIDER-SUMMARY" in body and "hello aider" not in body, body[-2000:]
        # That request, in the LLM history tether asked for, carries the summary: the fold
        # has it, and its loss audit (the fake summary keeps no pinned decision).
        folded = run.wait_incident(
            "compaction",
            where=lambda i: "FAKE-AIDER-SUMMARY" in (i.get("summary") or ""),
            timeout=30,
            what="aider's summary, read from its LLM history",
        )
        assert "transcript" in folded["sources"], folded
        assert folded.get("audit"), folded
        seen = [e for e in run.events_of("compaction") if e.get("channel") == "llm_history"]
        assert len(seen) == 1, seen
