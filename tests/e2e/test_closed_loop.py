"""The closed loop with the real Claude Code and Codex (issue 16): the summarizer is told
what to keep (PreCompact), the agent's restatement after a recovery is checked
(`tether ack`, run by the CLI itself as a tool call of the fake model, which restates the
pins in other words), and F6 after a partial recall re-sends only the missing decisions,
or re-asserts one whose value the restatement changed (issue 24).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from supervisor.run.recovery import NUDGE_REASON
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.fake_server import claude_last_prompt
from tests.e2e.tether_driver import (
    TETHER,
    TetherRun,
    Timer,
    request_text,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

# Two decisions that exist only in .tether/notes.md: never typed, never said to the model.
REDIS = (
    "refresh tokens in Redis, 15 minute TTL, rotate on use, "
    "because the mobile client cannot persist tokens"
)
KIOSK = "sessions expire after 30 minutes idle because the kiosks are shared"
# Claude may run `tether ack` without asking: the one tool call the fake model makes.
CLAUDE_ARGS = ("--allowedTools", "Bash(tether ack:*)")
# The payload's first words (the profiles' preamble): once per copy in a model request.
PAYLOAD_MARK = "Context check from tether: this conversation may have lost detail"


def payload_copies(entry: dict) -> int:
    """How many copies of tether's recovery payload one model request carries."""
    return request_text(entry).count(PAYLOAD_MARK)


def pin(project: Path, *decisions: str) -> None:
    tether = TETHER  # the running interpreter's, wherever its environment is
    for decision in decisions:
        subprocess.run(
            [str(tether), "note", "decision", decision, "--dir", str(project)],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip


def acking_claude(make_claude_env, fake_server_factory, *options: str):
    """A Claude setup against a fake model that answers recovery payloads with `tether ack`."""
    server = fake_server_factory("--ack", *options)
    setup = make_claude_env()
    setup.env["ANTHROPIC_BASE_URL"] = server.url
    return setup, server


def acking_codex(make_codex_env, fake_server_factory, *options: str):
    """The same for Codex (its config file names the server)."""
    server = fake_server_factory("--ack", *options)
    setup = make_codex_env()
    config = setup.codex_home / "config.toml"
    config.write_text(config.read_text().replace(fake_server_url(setup), server.url))
    return setup, server


def claude_run(tether_run, setup, server) -> TetherRun:
    run = tether_run(setup, server, "claude", *CLAUDE_ARGS, ready=CM["ready"])
    pin(run.project, REDIS, KIOSK)
    run.type_line("hello fake model")
    run.wait_screen(r"FAKE-REPLY 1: ack 'hello fake model'")
    return run


def compact(run: TetherRun) -> dict:
    after = run.last_seq()
    run.type_line("/compact", enter_delay=1.0)
    run.wait_screen(CM["compacted"], timeout=30)
    request = run.wait_request(
        lambda e: e.get("rule") == "claude-compact", after=after, what="the compaction request"
    )
    run.wait_incident("compaction")
    return request


def f6_recall(run: TetherRun, reason: str = "rehydrate") -> dict:
    """F6 → the model answers with `tether ack` as a tool call → the one recall check.

    ``reason``: the injection F6 makes. After Claude's compaction its SessionStart hook has
    given the payload already, so F6 sends the prompt to act on it (``NUDGE_REASON``) and
    the check is the hook's recovery's; otherwise F6's own. Either way one recovery, one
    outcome: nothing superseded."""
    before = len(run.events_of("recall_check"))
    run.press("F6")
    injection = run.wait_event("injection", reason=reason)
    run.poll(lambda: len(run.events_of("recall_check")) > before, 60, "the recall check")
    (check,) = run.events_of("recall_check")[before:]
    recovery = run.events_of("auto_rehydrate")[-1] if reason == NUDGE_REASON else injection
    assert check["injection_at"] == recovery["at"], (check, recovery)
    return check


def test_claude_precompact_puts_a_decision_only_in_notes_into_the_compaction_request(
    make_claude_env, fake_server, tether_run
):
    with Timer("closed loop: PreCompact on /compact"):
        run = claude_run(tether_run, make_claude_env(), fake_server)
        for entry in run.main_requests():
            assert "15 minute TTL" not in request_text(entry)  # the model never heard it
        request = compact(run)
        text = request_text(request)
        assert "Additional Instructions:" in text, text[-2000:]
        assert f"1. {REDIS}" in text and f"2. {KIOSK}" in text
        # the hook's echo on screen is not pinned again
        assert len(run.events_of("decision")) == 0
        notes = (run.project / ".tether" / "notes.md").read_text()
        assert notes.count("refresh tokens in Redis") == 1


def test_claude_precompact_also_instructs_an_automatic_compaction(
    make_claude_env, fake_server, tether_run
):
    with Timer("closed loop: PreCompact on auto-compaction"):
        run = claude_run(tether_run, make_claude_env(), fake_server)
        after = run.last_seq()
        run.type_line("please TOOLONG now")  # 400 prompt-too-long -> Claude compacts, retries
        request = run.wait_request(
            lambda e: e.get("rule") == "claude-compact", after=after, timeout=40,
            what="the automatic compaction request",
        )  # fmt: skip
        text = request_text(request)
        assert "Additional Instructions:" in text and f"1. {REDIS}" in text, text[-2000:]
        run.wait_incident("compaction", where=lambda i: i.get("trigger") == "auto")


def test_claude_complete_recall_after_f6(make_claude_env, fake_server_factory, tether_run):
    with Timer("closed loop: Claude complete recall"):
        setup, server = acking_claude(make_claude_env, fake_server_factory)
        run = claude_run(tether_run, setup, server)
        compact(run)
        after = run.last_seq()
        check = f6_recall(run, NUDGE_REASON)  # the hook gave the payload at the compaction
        turn = [e for e in run.main_requests() if e["seq"] > after]
        assert turn and payload_copies(turn[0]) == 1, request_text(turn[0])[-3000:]
        assert claude_last_prompt(turn[0]["body"]).startswith("Recovery from tether")
        assert max(payload_copies(e) for e in turn) == 1
        assert [e["result"] for e in run.events_of("recall_check")] == ["complete"]
        assert check["result"] == "complete", check
        assert check["restated"] == [1, 2] and check["missing"] == []
        ack = run.events_of("ack")[-1]  # the pins in other words: judged complete
        assert ack["text"].startswith("Restated: 1. we hold that refresh tokens in Redis; ")
        assert "fifteen-minute TTL" in ack["text"] and REDIS not in ack["text"]
        run.wait_tether_screen(r"recovered: 2 of 2 decisions restated")


def test_claude_partial_recall_then_f6_resends_only_the_missing_decision(
    make_claude_env, fake_server_factory, tether_run
):
    with Timer("closed loop: Claude partial recall, re-send"):
        setup, server = acking_claude(make_claude_env, fake_server_factory, "--ack-drop", "1")
        run = claude_run(tether_run, setup, server)
        compact(run)
        check = f6_recall(run, NUDGE_REASON)
        assert check["result"] == "partial", check
        assert check["restated"] == [2]
        assert [m["decision"] for m in check["missing"]] == [1]
        assert "15 minute" in check["missing"][0]["terms"]
        run.wait_tether_screen(r"1 decision not restated \(.*15 minute.*\): F6 re-sends them")
        after = run.last_seq()
        again = f6_recall(run, reason="resend-missing")
        resend = run.events_of("injection", reason="resend-missing")[-1]
        assert resend["restate"] == [1]
        request = run.wait_request(
            lambda e: "Recall check from tether" in claude_last_prompt(e["body"]),
            after=after,
            what="the re-send in a model request",
        )
        prompt = claude_last_prompt(request["body"])
        assert REDIS in prompt and KIOSK not in prompt
        assert again["result"] == "complete" and again["restated"] == [1]
        run.wait_tether_screen(r"recovered: 1 of 1 decisions restated")


def test_claude_a_changed_value_is_caught_and_f6_reasserts_the_pin(
    make_claude_env, fake_server_factory, tether_run
):
    with Timer("closed loop: Claude restates a changed value, F6 re-asserts the pin"):
        setup, server = acking_claude(make_claude_env, fake_server_factory, "--ack-change", "1")
        run = claude_run(tether_run, setup, server)
        compact(run)
        check = f6_recall(run, NUDGE_REASON)
        assert check["result"] == "partial", check
        assert check["restated"] == [2]
        (row,) = check["missing"]
        assert row["decision"] == 1, check
        assert row["changed"] == [{"pinned": "15 minute", "now": "thirty-minute"}], check
        run.wait_tether_screen(r"changed: 15 minute → thirty-minute: F6 re-sends them")
        after = run.last_seq()
        again = f6_recall(run, reason="resend-missing")
        assert run.events_of("injection", reason="resend-missing")[-1]["restate"] == [1]
        request = run.wait_request(
            lambda e: "Recall check from tether" in claude_last_prompt(e["body"]),
            after=after,
            what="the re-send in a model request",
        )
        prompt = claude_last_prompt(request["body"])
        assert f"1. {REDIS}" in prompt and KIOSK not in prompt  # the pin as written
        assert 'you said "thirty-minute", the pin says "15 minute"' in prompt
        assert again["result"] == "complete" and again["restated"] == [1]
        run.wait_tether_screen(r"recovered: 1 of 1 decisions restated")


def codex_run(tether_run, setup, server) -> TetherRun:
    """Codex with the two pins, one exchange and a /compact: incident #1, then the prompt."""
    run = tether_run(setup, server, "codex", ready=XM["ready"])
    pin(run.project, REDIS, KIOSK)
    run.type_line("hello codex")
    run.wait_screen(r"FAKE-REPLY 1: ack 'hello codex'")
    run.wait_screen(XM["ready"])
    run.type_line("/compact", enter_delay=1.0)
    run.wait_screen(XM["compacted"], timeout=30)
    run.wait_incident("compaction")
    run.wait_screen(XM["ready"])
    return run


def test_codex_complete_recall_after_f6(make_codex_env, fake_server_factory, tether_run):
    """F6's paste is the first turn after the fold, so Codex fires SessionStart(compact) as
    it starts: the hook answers with a pointer to the paste, and the model gets one copy."""
    with Timer("closed loop: Codex complete recall"):
        setup, server = acking_codex(make_codex_env, fake_server_factory)
        run = codex_run(tether_run, setup, server)
        after = run.last_seq()
        check = f6_recall(run)
        assert check["result"] == "complete", check
        assert check["restated"] == [1, 2] and check["missing"] == []
        number = run.incidents_of("compaction")[-1]["number"]
        assert check["incident"] == number
        injection = run.events_of("injection", reason="rehydrate")[-1]
        assert check["injection_at"] == injection["at"]  # F6's recovery, the only one
        (skipped,) = run.events_of("auto_rehydrate_skipped")
        assert skipped["incident"] == number and skipped["injection_at"] == injection["at"]
        assert not run.events_of("auto_rehydrate")
        assert [e["result"] for e in run.events_of("recall_check")] == ["complete"]
        turn = [e for e in run.main_requests() if e["seq"] > after]
        assert turn and payload_copies(turn[0]) == 1, request_text(turn[0])[-3000:]
        assert max(payload_copies(e) for e in turn) == 1  # its tool call's follow-up too
        assert f"recovery for compaction #{number} as this turn's prompt" in request_text(turn[0])
        run.wait_tether_screen(r"recovered: 2 of 2 decisions restated")


def test_codex_partial_recall_then_f6_resends_only_the_missing_decision(
    make_codex_env, fake_server_factory, tether_run
):
    with Timer("closed loop: Codex partial recall, re-send"):
        setup, server = acking_codex(make_codex_env, fake_server_factory, "--ack-drop", "2")
        run = codex_run(tether_run, setup, server)
        check = f6_recall(run)
        assert check["result"] == "partial", check
        assert check["restated"] == [1] and [m["decision"] for m in check["missing"]] == [2]
        run.wait_tether_screen(r"1 decision not restated \(30 minutes.*\): F6 re-sends them")
        run.wait_screen(XM["ready"])
        again = f6_recall(run, reason="resend-missing")
        assert run.events_of("injection", reason="resend-missing")[-1]["restate"] == [2]
        assert again["result"] == "complete" and again["restated"] == [2]
        run.wait_tether_screen(r"recovered: 1 of 1 decisions restated")


def test_codex_f6_after_clear_sends_one_copy_though_nothing_saw_the_wipe_yet(
    make_codex_env, fake_server, tether_run
):
    """Codex says nothing of a /clear until the next prompt; F6 pressed then is that prompt,
    so its SessionStart(clear) answer points to the paste, and the wipe is still recorded."""
    with Timer("closed loop: Codex /clear, F6, one copy"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        pin(run.project, REDIS, KIOSK)
        run.type_line("hello codex")
        run.wait_screen(r"FAKE-REPLY 1: ack 'hello codex'")
        run.wait_screen(XM["ready"])
        run.type_line("/clear", enter_delay=1.0)
        run.wait_screen(XM["ready"])
        after = run.last_seq()
        run.press("F6")
        injection = run.wait_event("injection", reason="rehydrate")
        request = run.wait_request(
            lambda e: e.get("rule") == "reply", after=after, what="the reply to F6's paste"
        )
        assert payload_copies(request) == 1, request_text(request)[-3000:]
        assert REDIS in request_text(request)
        skipped = run.wait_event("auto_rehydrate_skipped", hook_source="clear")
        assert skipped["injection_at"] == injection["at"] and not run.events_of("auto_rehydrate")
        wipe = run.wait_incident("wipe", what="the wipe, recorded by the hook")
        assert skipped["incident"] == wipe["number"]


def fake_server_url(setup) -> str:
    """The fake server URL written into the setup's Codex config (``base_url = ".../v1"``)."""
    import re

    text = (setup.codex_home / "config.toml").read_text()
    return re.search(r'base_url = "(http://[^"/]+)', text).group(1)


def test_claude_compaction_lists_what_it_dropped_that_nobody_pinned(
    make_claude_env, fake_server, tether_run
):
    with Timer("closed loop: dropped, not pinned"):
        run = claude_run(tether_run, make_claude_env(), fake_server)
        run.type_line("put the token code in src/auth/tokens.py; the cache holds 512 MB at most")
        run.wait_screen(r"FAKE-REPLY 2: ack 'put the token code in src/auth/tokens.py")
        compact(run)
        incident = run.wait_incident(
            "compaction",
            where=lambda i: i.get("dropped_unpinned"),
            what="the incident's list of what was dropped and not pinned",
        )
        terms = [d["term"] for d in incident["dropped_unpinned"]]
        assert "src/auth/tokens.py" in terms and "512 MB" in terms, terms
        assert not any("Redis" in term for term in terms)  # pinned: the audit covers it
        # the banner says it, unless the hook's payload came first: the attention model
        # then shows the more pressing held payload (the incident above carries the list);
        # its end ("(F12 pins)") may be cut on a narrow screen
        run.wait_tether_screen(r"specifics? dropped, not pinned|held for its next prompt")


def test_claude_compact_key_sends_slash_compact_with_the_pins(
    make_claude_env, fake_server, tether_run
):
    with Timer("closed loop: F3 compacts with the pins"):
        run = claude_run(tether_run, make_claude_env(), fake_server)
        run.wait_screen(CM["ready"])
        after = run.last_seq()
        run.press("F3")
        run.wait_event("injection", reason="compact")
        request = run.wait_request(
            lambda e: e.get("rule") == "claude-compact", after=after, what="the compaction"
        )
        text = request_text(request)
        # the typed instructions are one line (the PreCompact hook's, joined to them, are not)
        assert (
            f"keep it whole: Pinned decisions, copied word for word with their values "
            f"and reasons: 1. {REDIS} 2. {KIOSK}" in text
        ), text[-3000:]
        run.wait_incident("compaction", where=lambda i: i.get("trigger") == "manual")


def test_codex_summarizer_is_not_told_the_pins_so_they_are_re_sent_after_the_fold(
    make_codex_env, fake_server, tether_run
):
    """Codex 0.171.0 has no way to tell its summarizer what to keep: `/compact <text>` is an
    ordinary prompt, and tether's PreCompact answer (run, and heard by tether) never reaches
    the compaction request. F3 types a bare `/compact`, says so, and the pins come back
    with the payload of the first turn after the fold (SessionStart compact)."""
    with Timer("closed loop: Codex compaction, pins re-sent after"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        pin(run.project, REDIS, KIOSK)
        run.type_line("hello codex")
        run.wait_screen(r"FAKE-REPLY 1: ack 'hello codex'")
        run.wait_screen(XM["ready"])
        after = run.last_seq()
        run.type_line("/compact keep the tokens", enter_delay=1.0)
        run.wait_screen(r"FAKE-REPLY 2: ack '/compact keep the tokens'")  # an ordinary prompt
        assert not run.events_of("hook", event="PreCompact")
        assert not [e for e in run.main_requests() if e["seq"] > after and "compact" in e["rule"]]
        run.wait_screen(XM["ready"])
        after = run.last_seq()
        run.press("F3")
        injection = run.wait_event("injection", reason="compact")
        assert injection["chars"] == len("/compact") and injection["summarizer_told"] is False
        run.wait_tether_screen(r"summarizer is not told the pins")
        request = run.wait_request(
            lambda e: e.get("rule") == "codex-compact", after=after, what="the compaction"
        )
        text = request_text(request)
        assert "CONTEXT CHECKPOINT COMPACTION" in text
        assert "15 minute TTL" not in text and "kiosks are shared" not in text, text[-3000:]
        run.wait_event("hook", event="PreCompact")  # it ran: Codex does not use its answer
        run.wait_incident("compaction")
        run.wait_screen(XM["ready"])
        after = run.last_seq()
        run.type_line("carry on")
        request = run.wait_request(
            lambda e: e.get("rule") != "codex-compact" and REDIS in request_text(e),
            after=after,
            what="the pins re-sent with the first turn after the fold",
        )
        assert KIOSK in request_text(request)
        assert payload_copies(request) == 1  # the hook's developer message, nothing else
        (auto,) = run.events_of("auto_rehydrate")
        assert auto["hook_source"] == "compact" and not run.events_of("auto_rehydrate_skipped")
