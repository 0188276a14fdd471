"""Issue 26, items 1 and 2, with the real agents: an incident is made only by a loss that
happened in this run.

A resize after a /compact or a /clear makes the agent redraw its screen, old notices
included; a SIGKILL and F6's restart (`claude --continue`, `codex resume --last`) replays
the session's history, on the screen and in its session file. Neither is a new loss: the
incidents stay those of the losses the user made, and the restart's old entries are
recorded as history.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest

from supervisor.times import epoch
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.agents import CODEX_MARKERS as XM
from tests.e2e.fake_server import claude_last_prompt, codex_last_prompt
from tests.e2e.test_codex_hooks import converse, prompt_and_reply
from tests.e2e.test_scenarios import (
    _claude_conversation,
    _codex_payload_request,
    _rehydrate_with_f6,
)
from tests.e2e.tether_driver import (
    TetherRun,
    Timer,
    cmdline,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PREAMBLE = "Context check from tether"


def resize(run: TetherRun, width: int, height: int) -> None:
    """The user's terminal changes size; wait until the agent's screen has its new rows."""
    rows = len(run.agent_screen().split("\n"))
    run.tm.tmux("resize-window", "-t", run.tm.name, "-x", str(width), "-y", str(height))
    run.poll(
        lambda: len(run.agent_screen().split("\n")) not in (rows, 1),
        timeout=15,
        what=f"the agent's screen resized with the window ({width}x{height})",
    )


def kill_agent(run: TetherRun, name: str) -> None:
    """SIGKILL the agent itself (tether's other child is its PTY reader)."""
    pid = run.poll(
        lambda: next((p for p in run.agent_pids() if name in cmdline(p)), None),
        timeout=15,
        what=f"the {name} process under tether",
    )
    os.kill(pid, signal.SIGKILL)
    run.wait_incident("crash", what="a crash incident")
    run.wait_tether_screen(r"F6 restart and rehydrate")


def payload_answered(run: TetherRun, after: int, last_prompt: Callable[[dict], str]) -> None:
    """The restart's payload reached the model (a request after ``after``) and the agent's
    turn ended (its Stop hook after that request): the composer is the user's again."""
    request = run.wait_request(
        lambda e: PREAMBLE in last_prompt(e["body"]), after=after, what="the restart's payload"
    )
    sent = float(request["t"])
    run.wait_event(
        "hook",
        where=lambda e: e.get("event") == "Stop" and (epoch(e.get("at")) or 0) > sent,
        timeout=30,
    )


def losses(run: TetherRun) -> list[str]:
    return [i["type"] for i in run.incidents().values()]


def assert_losses(run: TetherRun, expected: list[str]) -> None:
    if losses(run) != expected:
        run.fail(f"incidents {losses(run)}, expected {expected}: {run.incidents()}")


def history_event(run: TetherRun, kind: str) -> dict:
    """The restart replayed an old loss: recorded, as history."""
    return run.wait_event(kind, where=lambda e: bool(e.get("history")), timeout=30)


# --------------------------------------------------------------------------- Claude Code


def _claude_compact(run: TetherRun) -> None:
    _claude_conversation(run)
    run.type_line("/compact", enter_delay=1.0)
    run.wait_screen(CM["compacted"], timeout=30)
    run.wait_incident("compaction", where=lambda i: "transcript" in i.get("sources", []))
    run.wait_screen(CM["ready"])
    _rehydrate_with_f6(run)


def _claude_clear(run: TetherRun) -> None:
    _claude_conversation(run)
    run.type_line("/clear", enter_delay=1.0)
    run.wait_incident("wipe", what="a wipe incident")
    run.wait_screen(CM["ready"])
    _rehydrate_with_f6(run)


def _claude_prompt(run: TetherRun, text: str) -> None:
    run.wait_screen(CM["ready"])
    run.type_line(text)
    run.wait_screen(rf"ack '{text}'", timeout=30)


@pytest.mark.parametrize("loss", ["compact", "clear"])
def test_claude_resized_after_a_loss_makes_no_new_incident(
    loss, make_claude_env, fake_server, tether_run
):
    with Timer(f"claude /{loss}, resize"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        (_claude_compact if loss == "compact" else _claude_clear)(run)
        made = losses(run)
        resize(run, 160, 48)
        _claude_prompt(run, "after the first resize")
        resize(run, 120, 40)
        _claude_prompt(run, "after the second resize")
        assert_losses(run, made)


@pytest.mark.parametrize("loss", ["compact", "clear"])
def test_claude_restarted_after_a_crash_replays_its_losses_as_history(
    loss, make_claude_env, fake_server, tether_run
):
    with Timer(f"claude /{loss}, SIGKILL, F6 restart"):
        run = tether_run(make_claude_env(), fake_server, "claude", ready=CM["ready"])
        (_claude_compact if loss == "compact" else _claude_clear)(run)
        made = losses(run)
        kill_agent(run, "claude")
        after = run.last_seq()
        run.press("F6")
        run.wait_event("injection", reason="restart after crash", timeout=45)
        if loss == "compact":  # the resumed session file holds the old compact_boundary
            replayed = history_event(run, "compaction")
            assert replayed["source"] == "transcript", replayed
        payload_answered(run, after, claude_last_prompt)
        _claude_prompt(run, "after the restart")
        assert_losses(run, [*made, "crash"])


# --------------------------------------------------------------------------- Codex


def _codex_compact(run: TetherRun) -> None:
    converse(run)
    run.type_line("/compact", enter_delay=1.0)
    run.wait_screen(XM["compacted"], timeout=30)
    run.wait_incident("compaction", where=lambda i: "transcript" in i.get("sources", []))
    run.wait_screen(XM["ready"])
    run.mark = run.events()[-1]["at"]
    _codex_payload_request(run, after=run.last_seq())


def _codex_clear(run: TetherRun) -> None:
    converse(run)
    run.type_line("/clear", enter_delay=1.0)
    run.wait_screen(XM["ready"])
    prompt_and_reply(run, "what now")  # Codex tells of a /clear at the next prompt
    run.wait_incident("wipe", where=lambda i: "transcript" in i.get("sources", []))


@pytest.mark.parametrize("loss", ["compact", "clear"])
def test_codex_resized_after_a_loss_makes_no_new_incident(
    loss, make_codex_env, fake_server, tether_run
):
    with Timer(f"codex /{loss}, resize"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        (_codex_compact if loss == "compact" else _codex_clear)(run)
        made = losses(run)
        resize(run, 160, 48)
        prompt_and_reply(run, "after the first resize")
        resize(run, 120, 40)
        prompt_and_reply(run, "after the second resize")
        assert_losses(run, made)


@pytest.mark.parametrize("loss", ["compact", "clear"])
def test_codex_restarted_after_a_crash_replays_its_losses_as_history(
    loss, make_codex_env, fake_server, tether_run
):
    with Timer(f"codex /{loss}, SIGKILL, F6 restart"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        (_codex_compact if loss == "compact" else _codex_clear)(run)
        made = losses(run)
        kill_agent(run, "codex")
        after = run.last_seq()
        run.press("F6")
        run.wait_event("injection", reason="restart after crash", timeout=45)
        payload_answered(run, after, codex_last_prompt)
        run.wait_screen(XM["ready"])
        prompt_and_reply(run, "after the restart")
        assert_losses(run, [*made, "crash"])


# --------------------------------------------------------------------------- item 4


def banner(run: TetherRun) -> str:
    """tether's banner row (the first row of its screen)."""
    return run.tm.capture().split("\n", 1)[0]


def test_codex_clear_then_f6_sends_a_payload_naming_the_wipe_and_offers_no_second(
    make_codex_env, fake_server, tether_run
):
    with Timer("codex /clear, F6"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        converse(run)
        run.type_line("/clear", enter_delay=1.0)
        wipe = run.wait_incident("wipe", what="the wipe, as /clear was sent")
        run.wait_screen(XM["ready"])
        after = run.last_seq()
        run.mark = run.events()[-1]["at"]
        run.press("F6")
        injection = run.wait_event("injection", where=lambda e: e["at"] > run.mark)
        assert injection["incident"] == wipe["number"], (injection, wipe)
        request = run.wait_request(
            lambda e: PREAMBLE in codex_last_prompt(e["body"]), after=after, what="the payload"
        )
        incident = codex_last_prompt(request["body"]).split("## Incident", 1)[1]
        assert f"Context wiped (#{wipe['number']}" in incident, incident[:300]
        run.wait_event(
            "hook",
            where=lambda e: e.get("event") == "SessionStart" and e["at"] > run.mark,
            timeout=30,
        )
        run.wait_screen(XM["ready"])
        assert_losses(run, ["wipe"])
        run.poll(lambda: "Payload" in banner(run), timeout=10, what="the payload's banner")
        assert "F6 now" not in banner(run) and "rehydrate" not in banner(run), banner(run)
        prompt_and_reply(run, "and now")
        assert "F6 now" not in banner(run), banner(run)


def test_codex_compaction_then_f6_banner_says_the_payload_went(
    make_codex_env, fake_server, tether_run
):
    with Timer("codex /compact, F6, banner"):
        run = tether_run(make_codex_env(), fake_server, "codex", ready=XM["ready"])
        _codex_compact(run)  # F6 sent the payload
        run.wait_event(
            "hook",
            where=lambda e: e.get("event") == "SessionStart" and e["at"] > run.mark,
            timeout=30,
        )
        run.wait_screen(XM["ready"])
        run.poll(lambda: "Payload" in banner(run), timeout=10, what="the payload's banner")
        assert "F6 now" not in banner(run), banner(run)
