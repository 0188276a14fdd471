"""Codex with tether's hooks (issue 17): `tether run codex` against the fake server, in tmux.

tether passes its hooks and their trust as `-c` overrides (supervisor/agents/codex_hooks.py),
so no "Hooks need review" screen appears and nothing is written into the user's CODEX_HOME.
Each scenario checks that last: Codex's own bookkeeping in config.toml (the `[tui]` table it
rewrites at every start) is allowed, anything else that changed there is tether's fault.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
import tomllib
from pathlib import Path

import pytest

from supervisor.agents.codex_hooks import EVENT_LABELS, toml_string, trusted_hash
from supervisor.store.tether_dir import TetherDir
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.agents import hook_logger, read_hook_log
from tests.e2e.fake_server import codex_last_prompt
from tests.e2e.tether_driver import (
    DECISION,
    TetherRun,
    Timer,
    cmdline,
    has_all_specifics,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PREAMBLE = "Context check from tether"
REVIEW_SCREEN = r"Hooks need review"
# What Codex 0.171.0 itself writes into config.toml at every TUI start.
CODEX_BOOKKEEPING = ("tui",)


# --------------------------------------------------------------------------- the user's files


def user_codex_state(codex_home: Path) -> dict:
    """What tether must never change: config.toml without Codex's own bookkeeping, and the
    hooks, auth and instruction files at the top of CODEX_HOME."""
    config = tomllib.loads((codex_home / "config.toml").read_text())
    for key in CODEX_BOOKKEEPING:
        config.pop(key, None)
    files = {}
    for name in ("hooks.json", "auth.json", "AGENTS.md", "requirements.toml"):
        path = codex_home / name
        files[name] = path.read_bytes() if path.exists() else None
    return {"config": config, "files": files}


def assert_tether_wrote_nothing(run: TetherRun, before: dict) -> None:
    codex_home = run.setup.codex_home
    after = user_codex_state(codex_home)
    text = (codex_home / "config.toml").read_text()
    if "hooks" in after["config"] or " hook " in text or "session-flags" in text:
        run.fail(f"tether's hooks or their trust landed in the user's config.toml:\n{text}")
    if after != before:
        run.fail(f"the user's Codex files changed beyond Codex's own [tui] bookkeeping:\n{text}")


def start(make_codex_env, fake_server, tether_run, *args: str) -> tuple[TetherRun, dict]:
    setup = make_codex_env()
    before = user_codex_state(setup.codex_home)
    run = tether_run(setup, fake_server, "codex", *args, ready=XM["ready"])
    if re.search(REVIEW_SCREEN, run.agent_screen()):
        run.fail("Codex asks to review tether's hooks: the inline trust hash is wrong")
    return run, before


# --------------------------------------------------------------------------- the model's side


def developer_texts(entry: dict) -> list[str]:
    """Texts of the request's developer items (where Codex puts a hook's additionalContext)."""
    out = []
    for item in entry["body"].get("input") or []:
        if isinstance(item, dict) and item.get("role") == "developer":
            for part in item.get("content") or []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    out.append(part["text"])
    return out


def carries_payload(entry: dict) -> bool:
    return any(PREAMBLE in t and has_all_specifics(t) for t in developer_texts(entry))


def prompt_and_reply(run: TetherRun, text: str, timeout: float = 30.0) -> dict:
    """Type ``text``; wait for its reply on screen; the model request that carried it.

    On a loaded machine Codex may read the Enter as part of the typed burst (its paste
    heuristic) and put a newline in the composer instead of submitting: one more Enter,
    once, if no request came.
    """
    after = run.last_seq()
    run.type_line(text, enter_delay=1.0)

    def sent() -> dict | None:
        for entry in run.main_requests():
            if entry["seq"] > after and codex_last_prompt(entry["body"]).strip() == text:
                return entry
        return None

    deadline = time.monotonic() + 8.0
    while not sent() and time.monotonic() < deadline:
        time.sleep(0.2)
    if not sent():
        run.press("Enter")
    request = run.poll(sent, timeout, f"the request for {text!r}")
    run.wait_screen(rf"ack '{re.escape(text[:40])}", timeout=timeout)
    run.wait_screen(XM["ready"])
    return request


def converse(run: TetherRun) -> None:
    prompt_and_reply(run, "hello codex")
    prompt_and_reply(run, DECISION)
    assert run.events_of("decision"), "the typed DECISION line was not pinned"
    run.poll(
        lambda: (
            {"SessionStart", "UserPromptSubmit", "Stop"}
            <= {e["event"] for e in run.events_of("hook")}
        ),
        timeout=15,
        what="tether's SessionStart, UserPromptSubmit and Stop hooks",
    )


# --------------------------------------------------------------------------- scenarios


def test_codex_clear_is_a_wipe_rehydrated_at_the_next_prompt(
    make_codex_env, fake_server, tether_run
):
    with Timer("codex /clear, auto rehydrate"):
        run, before = start(make_codex_env, fake_server, tether_run)
        converse(run)
        # A payload over Codex's 2,500-token hook-output limit, which would otherwise be cut
        # to a preview and written to CODEX_HOME/hook_outputs/.
        tether = TetherDir.at(run.project)
        for n in range(60):
            tether.add_note("done", f"DONE-{n:02d} " + "wrote and tested one more module " * 7)
        run.type_line("/clear", enter_delay=1.0)
        run.wait_screen(XM["ready"])
        # Codex says nothing of a /clear until the next prompt: SessionStart(clear) with a
        # new session, and a new rollout file, both when that prompt is submitted.
        request = prompt_and_reply(run, "what now")
        wipe = run.wait_incident(
            "wipe",
            where=lambda i: {"hook", "transcript"} <= set(i.get("sources", [])),
            what="a wipe incident from the hook and the new rollout",
        )
        auto = run.wait_event("auto_rehydrate", hook_source="clear")
        assert auto["incident"] in (None, wipe["number"]), (auto, wipe)
        if not carries_payload(request):
            run.fail(f"the prompt after /clear lacks the payload: {developer_texts(request)}")
        context = next(t for t in developer_texts(request) if PREAMBLE in t)
        assert "DONE-00" in context and "DONE-59" in context and len(context) > 12_000
        assert "Full hook output saved to" not in context
        assert not (run.setup.codex_home / "hook_outputs").exists()
        assert not run.events_of("injection"), "a key was pressed for the payload"
        assert len(run.incidents_of("wipe")) == 1, run.incidents()
        assert not run.incidents_of("compaction"), run.incidents()
        assert_tether_wrote_nothing(run, before)


def _one_compaction(run: TetherRun, trigger: str, other_than: int | None = None) -> dict:
    every_source = {"hook", "screen", "transcript"}
    incident = run.wait_incident(
        "compaction",
        where=lambda i: (
            i["number"] != other_than
            and every_source <= set(i.get("sources", []))
            and i.get("trigger") == trigger
            and i.get("audit")
        ),
        what=f"a {trigger} compaction incident from hook, screen and rollout, with its audit",
    )
    assert "FAKE-CODEX-COMPACT-SUMMARY" in incident["summary"], incident
    return incident


def test_codex_manual_and_auto_compaction_rehydrate_with_no_key(
    make_codex_env, fake_server, tether_run
):
    with Timer("codex /compact + auto-compact, SessionStart rehydrate"):
        run, before = start(
            make_codex_env, fake_server, tether_run, "-c", "model_auto_compact_token_limit=200000"
        )
        converse(run)

        run.type_line("/compact", enter_delay=1.0)
        run.wait_screen(XM["compacted"], timeout=30)
        run.wait_screen(XM["ready"])
        manual = _one_compaction(run, "manual")
        run.wait_tether_screen(r"rehydrated with your next prompt · F6 now")
        # The next request (the next prompt: Codex fires SessionStart(compact) at the first
        # turn after the compaction) carries the payload; nobody pressed F6.
        request = prompt_and_reply(run, "carry on")
        if not carries_payload(request):
            run.fail(f"the turn after /compact lacks the payload: {developer_texts(request)}")
        run.wait_event("auto_rehydrate", hook_source="compact")

        # Auto: a turn reporting 250k input tokens; the next turn compacts before its request.
        prompt_and_reply(run, "FILLCTX=250000 fill the context")
        after = run.last_seq()
        request = prompt_and_reply(run, "next step please")
        auto = _one_compaction(run, "auto", other_than=manual["number"])
        rules = [e["rule"] for e in run.main_requests() if e["seq"] > after]
        assert rules[:2] == ["codex-compact", "reply"], rules  # compacted first, then the turn
        if not carries_payload(request):
            run.fail(f"the turn after the auto compaction lacks the payload: {rules}")
        assert len(run.events_of("auto_rehydrate", hook_source="compact")) == 2
        assert not run.events_of("injection"), "a key was pressed for the payload"
        assert len(run.incidents_of("compaction")) == 2, run.incidents()
        assert auto["number"] == manual["number"] + 1, run.incidents()
        assert_tether_wrote_nothing(run, before)


def test_codex_resume_after_sigkill_keeps_tethers_hooks(make_codex_env, fake_server, tether_run):
    with Timer("codex SIGKILL, F6 resume --last with hooks"):
        run, before = start(make_codex_env, fake_server, tether_run)
        converse(run)
        session = run.events_of("hook", event="SessionStart")[0]["payload"]["session_id"]
        pid = run.wait_agent_pid()
        assert "codex" in cmdline(pid), cmdline(pid)
        os.kill(pid, signal.SIGKILL)
        run.wait_incident("crash", what="a crash incident")
        run.wait_tether_screen(r"F6 restart and rehydrate")

        after = run.last_seq()
        mark = len(run.events())
        run.press("F6")
        restart = run.wait_event("agent_restart")
        argv = restart["argv"]
        assert argv[:3] == ["codex", "resume", "--last"], argv
        assert any(a.startswith("hooks.state=") for a in argv), argv
        run.wait_event("injection", reason="restart after crash", timeout=45)
        request = run.wait_request(
            lambda e: codex_last_prompt(e["body"]).startswith(PREAMBLE), after=after
        )
        assert DECISION in str(request["body"]), "resume --last did not bring the conversation"
        if re.search(REVIEW_SCREEN, run.agent_screen()):
            run.fail("the resumed Codex asks to review tether's hooks")
        # The resumed session runs tether's hooks: SessionStart(resume) and the payload's turn.
        run.poll(
            lambda: (
                {"SessionStart", "UserPromptSubmit", "Stop"}
                <= {e["event"] for e in run.events()[mark:] if e.get("kind") == "hook"}
            ),
            timeout=20,
            what="tether's hooks in the resumed session",
        )
        resumed = [e for e in run.events()[mark:] if e.get("event") == "SessionStart"]
        assert resumed[0]["payload"]["source"] == "resume", resumed
        assert resumed[0]["payload"]["session_id"] == session, (resumed, session)
        assert len(run.incidents_of("crash")) == 1, run.incidents()
        assert not run.incidents_of("wipe"), run.incidents()
        assert_tether_wrote_nothing(run, before)


def test_the_users_own_trusted_hooks_run_beside_tethers(make_codex_env, fake_server, tether_run):
    """A user with hooks of their own in CODEX_HOME/hooks.json, trusted in their config.toml:
    both sets run, nothing asks for review, and their files stay as they were."""
    with Timer("codex with the user's own hooks"):
        setup = make_codex_env()
        log = setup.project.parent / "user-hooks.jsonl"
        theirs = hook_logger(log, ("SessionStart", "Stop"))
        hooks = {e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in theirs.items()}
        (setup.codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        source = setup.codex_home / "hooks.json"
        trust = "".join(
            f"\n[hooks.state.{toml_string(f'{source}:{EVENT_LABELS[e]}:0:0')}]\n"
            f"trusted_hash = {toml_string(trusted_hash(e, c, 600))}\n"
            for e, c in theirs.items()
        )
        with (setup.codex_home / "config.toml").open("a") as config:
            config.write(trust)
        before = user_codex_state(setup.codex_home)
        run = tether_run(setup, fake_server, "codex", ready=XM["ready"])
        prompt_and_reply(run, "hello codex")
        if re.search(REVIEW_SCREEN, run.agent_screen()):
            run.fail("Codex asks to review hooks")
        run.poll(
            lambda: {e["event"] for e in read_hook_log(log)} == {"SessionStart", "Stop"},
            timeout=15,
            what="the user's own hooks",
        )
        run.poll(
            lambda: (
                {"SessionStart", "UserPromptSubmit", "Stop"}
                <= {e["event"] for e in run.events_of("hook")}
            ),
            timeout=15,
            what="tether's hooks beside the user's",
        )
        after = user_codex_state(setup.codex_home)
        assert after == before, "the user's hooks, trust or config changed"


def test_codex_new_is_a_wipe_rehydrated_at_the_next_prompt(make_codex_env, fake_server, tether_run):
    """Codex reports /new as SessionStart(startup) with a new session id: tether tells it
    from a real start and answers as for /clear; the new rollout file makes the wipe."""
    with Timer("codex /new, auto rehydrate"):
        run, before = start(make_codex_env, fake_server, tether_run)
        converse(run)
        run.type_line("/new", enter_delay=1.0)
        run.wait_screen(XM["ready"])
        request = prompt_and_reply(run, "what now")
        wipe = run.wait_incident("wipe", what="a wipe incident from the new rollout")
        assert "transcript" in wipe["sources"], wipe
        auto = run.wait_event("auto_rehydrate", hook_source="startup")
        assert auto["new_session"] is True, auto
        if not carries_payload(request):
            run.fail(f"the prompt after /new lacks the payload: {developer_texts(request)}")
        assert len(run.events_of("auto_rehydrate")) == 1, run.events_of("auto_rehydrate")
        assert len(run.incidents_of("wipe")) == 1, run.incidents()
        assert_tether_wrote_nothing(run, before)


def test_only_the_users_untrusted_hook_is_up_for_review(make_codex_env, fake_server, tether_run):
    """A user hook nobody trusted brings up Codex's review screen: it lists that one hook
    only (tether's are trusted), tether says what the screen is, and continuing without
    trusting leaves the user's files as they were."""
    with Timer("codex review screen for the user's own hook"):
        setup = make_codex_env()
        log = setup.project.parent / "user-hooks.jsonl"
        theirs = hook_logger(log, ("Stop",))
        hooks = {e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in theirs.items()}
        (setup.codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
        before = user_codex_state(setup.codex_home)
        run = tether_run(setup, fake_server, "codex", ready=REVIEW_SCREEN)
        run.wait_screen(r"1 hook is new or changed")
        run.wait_tether_screen(r"review hooks|passes its own already trusted")
        run.press("Down", "Down", "Enter")  # 3. Continue without trusting
        run.wait_screen(XM["ready"])
        prompt_and_reply(run, "hello codex")
        run.poll(
            lambda: "Stop" in {e["event"] for e in run.events_of("hook")},
            timeout=15,
            what="tether's hooks, which need no review",
        )
        assert not read_hook_log(log), "the untrusted user hook ran"
        assert user_codex_state(setup.codex_home) == before
