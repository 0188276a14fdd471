"""Scenarios 1-5 of issue 6: `tether run claude|codex` in a real PTY (tmux at 200x50, so the
agent's pane is ~120 columns), typed into as a user would, against the fake model server.
Scenario 6 (screen fidelity) is in test_fidelity.py.

What each proves is in tests/e2e/README.md ("Scenarios"). Every wait is a bounded poll; a
failure prints tether's screen, the agent's screen, the last events and the server log tail.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from supervisor.run.recovery import NUDGE_REASON
from tests.e2e import tmux
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.fake_server import claude_last_prompt, codex_last_prompt
from tests.e2e.tether_driver import (
    DECISION,
    TetherRun,
    Timer,
    cmdline,
    has_all_specifics,
    processes_mentioning,
    request_text,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PREAMBLE = "Context check from tether"  # the first words of every profile's recovery preamble
# The audit's missing terms for the decision: its values, names, mechanism and reason.
AUDITED = ("Redis", "15 minute", "rotate", "mobile client")


def _not_kept(audit: dict) -> list[dict]:
    """The decisions a summary did not keep: the judge says lost (nothing of it is there)
    or degraded (its subject is there, its specifics are not), as the fake summaries do."""
    return list(audit.get("lost") or []) + list(audit.get("degraded") or [])


def _claude_conversation(run: TetherRun) -> None:
    """A prompt, the DECISION with the four specifics, and a filler prompt (Claude 2.1.332
    keeps the most recent exchange verbatim through /compact; the filler is that exchange)."""
    run.type_line("hello fake model")
    run.wait_screen(r"FAKE-REPLY 1: ack 'hello fake model'")
    run.type_line(DECISION)
    run.wait_screen(r"FAKE-REPLY 2: ack 'DECISION: refresh tokens in Redis")
    run.type_line("and the login page stays as it is")
    run.wait_screen(r"FAKE-REPLY 3: ack 'and the login page")
    decisions = run.events_of("decision")
    assert [d["text"] for d in decisions] == [DECISION.removeprefix("DECISION: ")], decisions


# Claude Code 2.1.332 sends a long bracketed paste to the model wrapped in these tags.
_PASTED = re.compile(r'</?pasted_content(?: id="[^"]*")?>')


def _typed_payload(entry: dict) -> bool:
    """The request's last user turn is tether's payload (typed in, not a hook's context)."""
    prompt = _PASTED.sub("", claude_last_prompt(entry["body"])).strip()
    return prompt.startswith(PREAMBLE) and has_all_specifics(prompt)


SESSION_START_CONTEXT = "SessionStart hook additional context:"


def _session_start_context(entry: dict) -> str | None:
    """The text after "SessionStart hook additional context:" in any block of the request
    (a system-reminder in a user turn, a "system" message, or the system prompt)."""
    body = entry["body"]
    blocks: list = []
    for part in [body.get("system"), *(m.get("content") for m in body.get("messages") or [])]:
        blocks += [part] if isinstance(part, str) else list(part or [])
    for block in blocks:
        text = block if isinstance(block, str) else block.get("text", "")
        if isinstance(text, str) and SESSION_START_CONTEXT in text:
            return text.split(SESSION_START_CONTEXT, 1)[1]
    return None


def _rehydrate_with_f6(run: TetherRun) -> dict:
    """F6 after Claude's SessionStart hook gave the payload (it holds it until the next
    prompt): F6 sends the short prompt to act on it, and the model's next main-loop request
    carries the payload once, as the hook's context, with the prompt as the user's turn."""
    after = run.last_seq()
    run.press("F6")
    injection = run.wait_event("injection", reason=NUDGE_REASON)
    assert "restate" not in injection, injection  # the hook's recovery is the one checked
    request = run.wait_request(
        lambda e: claude_last_prompt(e["body"]) != "", after=after, what="the next request"
    )
    prompt = _PASTED.sub("", claude_last_prompt(request["body"])).strip()
    if not prompt.startswith("Recovery from tether"):
        run.fail(f"the first main-loop request after F6 is not tether's prompt: {prompt[:300]!r}")
    context = _session_start_context(request)
    assert context and context.strip().startswith(PREAMBLE), (context or "")[:500]
    assert has_all_specifics(context), context[:2000]
    assert request_text(request).count(PREAMBLE) == 1  # one copy of the payload, not two
    run.wait_screen(r"FAKE-REPLY \d+: ack '(?:<pasted_content[^>]*> )?Recovery from tether")
    return request


def test_1_claude_manual_compact_then_rehydrate_key(make_claude_env, fake_server, tether_run):
    with Timer("1 claude /compact, F6"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        _claude_conversation(run)
        run.type_line("/compact", enter_delay=1.0)
        run.wait_screen(CM["compacted"], timeout=30)

        every_source = {"screen", "hook", "transcript"}
        incident = run.wait_incident(
            "compaction",
            where=lambda i: every_source <= set(i.get("sources", [])) and i.get("audit"),
            what="a compaction incident seen by screen, hook and transcript, with its audit",
        )
        assert incident["trigger"] == "manual", incident
        assert "FAKE-COMPACT-SUMMARY" in incident["summary"]
        lost = _not_kept(incident["audit"])
        assert [d["decision"] for d in lost] == [DECISION.removeprefix("DECISION: ")]
        missing = " | ".join(lost[0]["missing"])
        assert all(s in missing for s in AUDITED), lost

        _rehydrate_with_f6(run)
        # one loss, one incident: the screen, hook and transcript sightings fused
        assert len(run.incidents_of("compaction")) == 1, run.incidents()
        assert not run.incidents_of("wipe") and not run.incidents_of("crash")


def test_2_claude_auto_compact_rehydrates_through_session_start(
    make_claude_env, fake_server, tether_run
):
    with Timer("2 claude TOOLONG auto-compact, SessionStart rehydrate"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        _claude_conversation(run)
        run.type_line("please TOOLONG now")  # 400 prompt-too-long -> compact -> retry
        run.wait_screen(r"FAKE-REPLY \d+: ack 'please TOOLONG now'", timeout=40)

        incident = run.wait_incident(
            "compaction",
            where=lambda i: i.get("trigger") == "auto" and i.get("audit"),
            what="an auto compaction incident with its loss audit",
        )
        assert {"hook", "transcript"} <= set(incident["sources"]), incident
        missing = " | ".join(_not_kept(incident["audit"])[0]["missing"])
        assert all(s in missing for s in AUDITED), incident["audit"]
        auto = run.wait_event("auto_rehydrate", hook_source="compact")
        assert auto["tokens"] > 0 and not auto["over_budget"], auto

        # The retried prompt, the first main-loop request after the compaction, carries the
        # payload as the hook's additional context; nobody pressed a key.
        rules = [e["rule"] for e in run.main_requests()]
        i = rules.index("toolong")
        assert rules[i + 1 : i + 3] == ["claude-compact", "reply"], rules
        retry = run.main_requests()[i + 2]
        assert claude_last_prompt(retry["body"]) == "please TOOLONG now"
        # Observed with 2.1.332: the hook's context is a text block of a role "system" message
        # in `messages` ("SessionStart hook additional context: ..."), not a system-reminder.
        context = _session_start_context(retry)
        if context is None:
            run.fail("no SessionStart additional context in the retried request")
        assert PREAMBLE in context and has_all_specifics(context), context[:2000]
        assert not run.events_of("injection"), run.events_of("injection")
        assert len(run.incidents_of("compaction")) == 1, run.incidents()


def test_2b_claude_session_start_answer_fits_its_context_limit(
    make_claude_env, fake_server, tether_run
):
    """Claude Code 2.1.332 replaces an additionalContext over 10,000 characters with a 2 KB
    preview (8,993 characters arrived whole, 10,600 did not): with a long Done list the
    answer is built to fit, whole, the pinned decision in it and the oldest items out."""
    from supervisor.store.tether_dir import TetherDir

    with Timer("2b claude auto-compact, a long state, SessionStart within the limit"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        tether = TetherDir.at(run.project)
        for n in range(60):
            tether.add_note("done", f"DONE-{n:02d} " + "wrote and tested one more module " * 7)
        _claude_conversation(run)
        run.type_line("please TOOLONG now")
        run.wait_screen(r"FAKE-REPLY \d+: ack 'please TOOLONG now'", timeout=40)
        run.wait_event("auto_rehydrate", hook_source="compact")
        contexts = [c for c in map(_session_start_context, run.main_requests()) if c]
        if not contexts:
            run.fail("no SessionStart additional context in any request")
        context = contexts[-1]
        assert "persisted-output" not in context, context[-600:]
        assert PREAMBLE in context and has_all_specifics(context), context[:2000]
        assert "DONE-59" in context and "DONE-00" not in context


def test_3_claude_clear_is_a_wipe_then_rehydrate_key(make_claude_env, fake_server, tether_run):
    with Timer("3 claude /clear, F6"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        _claude_conversation(run)
        run.type_line("/clear", enter_delay=1.0)
        # The typed /clear opens the incident; the hooks' sighting joins it when it comes.
        run.wait_incident(
            "wipe", where=lambda i: "hook" in i.get("sources", []), what="a wipe seen by hooks"
        )
        run.wait_screen(CM["ready"])
        _rehydrate_with_f6(run)
        assert len(run.incidents_of("wipe")) == 1, run.incidents()
        assert not run.incidents_of("compaction"), run.incidents()


def test_4_claude_sigkill_is_a_crash_then_f6_restarts_and_rehydrates(
    make_claude_env, fake_server, tether_run
):
    with Timer("4 claude SIGKILL, F6 restart --continue"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        _claude_conversation(run)
        pid = run.wait_agent_pid()
        assert "claude" in cmdline(pid), cmdline(pid)
        os.kill(pid, signal.SIGKILL)
        incident = run.wait_incident("crash", what="a crash incident")
        assert "process" in incident["sources"], incident
        run.wait_tether_screen(r"F6 restart and rehydrate")

        after = run.last_seq()
        mark = len(run.events())
        run.press("F6")
        restart = run.wait_event("agent_restart")
        assert "--continue" in restart["argv"], restart
        assert "--settings" in restart["argv"], restart  # native resume keeps tether's hooks
        new_pid = run.wait_agent_pid(other_than=pid)
        assert "--continue" in cmdline(new_pid), cmdline(new_pid)
        run.wait_event("injection", reason="restart after crash", timeout=45)
        request = run.wait_request(
            lambda e: claude_last_prompt(e["body"]) != "", after=after, what="a request"
        )
        if not _typed_payload(request):
            prompt = claude_last_prompt(request["body"])
            run.fail(f"the first request after the restart is not the payload: {prompt!r}")
        # --continue brought the conversation back: the DECISION turn is in the history too
        assert DECISION in request_text(request)
        # ...and its hooks run: SessionStart of the resumed session (source "resume", or
        # "fork" in some versions: neither is a loss), then the payload's turn.
        hooks = run.poll(
            lambda: (
                [e for e in run.events()[mark:] if e.get("kind") == "hook"]
                if "UserPromptSubmit" in {e.get("event") for e in run.events()[mark:]}
                else None
            ),
            timeout=20,
            what="tether's hooks in the resumed Claude session",
        )
        starts = [e["payload"].get("source") for e in hooks if e["event"] == "SessionStart"]
        assert starts and set(starts) <= {"resume", "fork", "startup"}, starts
        print(f"\n[claude --continue] SessionStart sources: {starts}")
        assert len(run.incidents_of("crash")) == 1, run.incidents()


# --------------------------------------------------------------------------- Codex


def _codex_payload_request(run: TetherRun, after: int, reason: str = "rehydrate") -> dict:
    """F6 → an injection → the first main-loop request after it has the payload as the
    user's last message (Codex keeps earlier user messages verbatim through compaction, so
    the specifics are checked in the payload turn itself, not merely somewhere in the body)."""
    run.press("F6")
    injection = run.wait_event("injection", where=lambda e: e["at"] > run.mark, reason=reason)
    assert injection["bracketed"] is True, injection
    request = run.wait_request(
        lambda e: e["rule"] == "reply", after=after, what="the request after F6"
    )
    prompt = codex_last_prompt(request["body"])
    if not (prompt.startswith(PREAMBLE) and has_all_specifics(prompt)):
        run.fail(f"the first request after F6 is not the payload: {prompt[:400]!r}")
    run.wait_screen(r"FAKE-REPLY \d+: ack 'Context check from tether", timeout=30)
    run.wait_screen(XM["ready"])
    return request


def test_5_codex_manual_and_auto_compact_then_rehydrate(make_codex_env, fake_server, tether_run):
    with Timer("5 codex /compact + auto-compact, F6 twice"):
        run = tether_run(
            make_codex_env(),
            fake_server,
            "codex",
            "-c",
            "model_auto_compact_token_limit=200000",
            ready=XM["ready"],
        )
        run.type_line("hello codex")
        run.wait_screen(r"FAKE-REPLY 1: ack 'hello codex'")
        run.type_line(DECISION)
        run.wait_screen(r"ack 'DECISION: refresh tokens in Redis")
        assert run.events_of("decision"), "the typed DECISION line was not pinned"

        # /compact: one incident, seen on screen and in the rollout file
        run.type_line("/compact", enter_delay=1.0)
        run.wait_screen(XM["compacted"], timeout=30)
        both = {"screen", "transcript"}
        manual = run.wait_incident(
            "compaction",
            where=lambda i: both <= set(i.get("sources", [])) and i.get("audit"),
            what="a compaction incident from screen and rollout, with its audit",
        )
        assert manual["trigger"] == "manual", manual
        assert "FAKE-CODEX-COMPACT-SUMMARY" in manual["summary"]
        missing = " | ".join(_not_kept(manual["audit"])[0]["missing"])
        assert all(s in missing for s in AUDITED), manual["audit"]
        run.wait_screen(XM["ready"])
        run.mark = run.events()[-1]["at"]
        _codex_payload_request(run, after=run.last_seq())

        # auto: a turn that reports 250k input tokens, then the next turn compacts first
        run.type_line("FILLCTX=250000 fill the context")
        run.wait_screen(r"ack 'FILLCTX=250000 fill the context'")
        run.wait_screen(XM["ready"])
        run.type_line("next step please")
        run.wait_screen(r"ack 'next step please'", timeout=30)
        auto = run.wait_incident(
            "compaction",
            where=lambda i: (
                i["number"] != manual["number"]
                and both <= set(i.get("sources", []))
                and i.get("trigger") == "auto"
            ),
            what="an auto compaction incident from screen and rollout",
        )
        assert "FAKE-CODEX-COMPACT-SUMMARY" in (auto.get("summary") or ""), auto
        run.wait_screen(XM["ready"])
        run.mark = run.events()[-1]["at"]
        _codex_payload_request(run, after=run.last_seq())
        assert len(run.incidents_of("compaction")) == 2, run.incidents()


# --------------------------------------------------------------------------- repeated folds


def _session_start_contexts(entry: dict) -> list[str]:
    """Every "SessionStart hook additional context:" text in the request, in order."""
    body = entry["body"]
    blocks: list = []
    for part in [body.get("system"), *(m.get("content") for m in body.get("messages") or [])]:
        blocks += [part] if isinstance(part, str) else list(part or [])
    texts = [block if isinstance(block, str) else block.get("text", "") for block in blocks]
    return [
        text.split(SESSION_START_CONTEXT, 1)[1]
        for text in texts
        if isinstance(text, str) and SESSION_START_CONTEXT in text
    ]


def test_7_claude_three_compacts_are_three_incidents_each_rehydrated_by_its_own_hook(
    make_claude_env, fake_server, tether_run
):
    with Timer("7 claude /compact x3, SessionStart payload names each"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        _claude_conversation(run)
        for number in (1, 2, 3):
            run.type_line("/compact", enter_delay=1.0)
            run.wait_incident(
                "compaction",
                where=lambda i, n=number: i["number"] == n and "screen" in i.get("sources", []),
                timeout=40,
                what=f"compaction incident #{number}, seen on screen too",
            )
            auto = run.wait_event("auto_rehydrate", hook_source="compact", incident=number)
            assert auto["tokens"] > 0, auto
            run.wait_screen(CM["ready"])
            after = run.last_seq()
            run.type_line(f"carry on after fold {number}")
            request = run.wait_request(
                lambda e, n=number: claude_last_prompt(e["body"]) == f"carry on after fold {n}",
                after=after,
                what=f"the first prompt after fold {number}",
            )
            contexts = _session_start_contexts(request)
            named = [c for c in contexts if f"Context compacted (#{number}, manual)" in c]
            if not named:
                run.fail(f"no SessionStart context names incident #{number}: {contexts!r:.600}")
            assert PREAMBLE in named[-1] and has_all_specifics(named[-1]), named[-1][:1500]
            run.wait_screen(rf"ack 'carry on after fold {number}'", timeout=30)
        compactions = run.incidents_of("compaction")
        assert [i["number"] for i in compactions] == [1, 2, 3], run.incidents()
        assert all(i["trigger"] == "manual" for i in compactions), compactions
        hooks = [e["incident"] for e in run.events_of("auto_rehydrate", hook_source="compact")]
        assert hooks == [1, 2, 3], hooks


def test_8_codex_three_compacts_are_three_incidents_each_f6_payload_names_it(
    make_codex_env, fake_server, tether_run
):
    with Timer("8 codex /compact x3, F6 names each"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        run.type_line("hello codex")
        run.wait_screen(r"FAKE-REPLY 1: ack 'hello codex'")
        run.type_line(DECISION)
        run.wait_screen(r"ack 'DECISION: refresh tokens in Redis")
        for number in (1, 2, 3):
            run.type_line("/compact", enter_delay=1.0)
            run.wait_incident(
                "compaction",
                where=lambda i, n=number: (
                    i["number"] == n and {"screen", "transcript"} <= set(i.get("sources", []))
                ),
                timeout=40,
                what=f"compaction incident #{number} from screen and rollout",
            )
            run.wait_screen(XM["ready"])
            run.mark = run.events()[-1]["at"]
            request = _codex_payload_request(run, after=run.last_seq())
            prompt = codex_last_prompt(request["body"])
            assert f"Context compacted (#{number}, manual)" in prompt, prompt[:2000]
        compactions = run.incidents_of("compaction")
        assert [i["number"] for i in compactions] == [1, 2, 3], run.incidents()


def test_nothing_left_running(tmp_path_factory):
    """Runs last in the e2e tier (the files run in name order): no tether, agent, hook, fake
    server or tmux server of this session is alive: they carry its temp dir or socket."""
    marks = [str(tmp_path_factory.getbasetemp()), *tmux.CREATED_SOCKETS]
    deadline = time.monotonic() + 60  # a busy machine reaps slowly: the bound, not a wait
    while left := [p for mark in marks for p in processes_mentioning(mark)]:
        if time.monotonic() >= deadline:
            pytest.fail(f"left running: {left}")
        time.sleep(0.1)
