"""Claude Code 2.1.332 folding on its own while the user is away, under `tether run claude`.

Claude Code compacts an idle session before its 1-hour prompt cache expires: it arms a timer
for 90% of the cache's life (54 minutes) after the last request that wrote to the cache, for
a context of at least CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS (floor 100,000), and no setting
shortens that wait. So the agent (and only it: not tether, not its hooks) runs with a clock
60 times as fast (libfaketime, through a wrapper first on its PATH), and the fake server reports
a 150,000-token context that wrote to the cache. The fold comes about a minute after the
last turn with no prompt in flight, and must be one incident with trigger ``idle`` (its hooks
and transcript say "auto"; its screen says which), and the payload must reach the model with
the next prompt, once, with no key pressed.
"""

from __future__ import annotations

import pytest

from tests.e2e import agents
from tests.e2e.agents import CLAUDE_MARKERS as CM
from tests.e2e.fake_server import claude_last_prompt
from tests.e2e.tether_driver import (
    TetherRun,
    Timer,
    request_text,
    tether_run_fixture,  # noqa: F401  (the tether_run fixture)
)

pytestmark = pytest.mark.e2e

PAYLOAD_MARK = "Context check from tether: this conversation may have lost detail"
IDLE_SCREEN = r"Compacted while idle, before the prompt cache expired"
SPEED = 60


def test_claude_idle_compaction_is_one_incident_rehydrated_at_the_next_prompt(
    make_claude_env, fake_server, tether_run
):
    with Timer("claude idle compaction (clock x60)"):
        setup = make_claude_env(hooks=False)
        folder = setup.project.parent / "fast-clock"
        agents.fast_clock_wrapper(folder, agents.ensure_libfaketime(), setup.binary, SPEED)
        setup.env["PATH"] = f"{folder}:{setup.env['PATH']}"
        setup.env.update(ENABLE_PROMPT_CACHING_1H="1", CLAUDE_CODE_IDLE_COMPACT_MIN_TOKENS="100000")
        run: TetherRun = tether_run(setup, fake_server, "claude", ready=CM["ready"])
        run.type_line("hello fake model")
        run.wait_screen(r"FAKE-REPLY 1: ack 'hello fake model'")
        run.type_line("FILLCTX=150000 CACHEWRITE fill the context")
        run.wait_screen(r"ack 'FILLCTX=150000 CACHEWRITE")
        after = run.last_seq()
        # Nobody types: Claude folds by itself (54 fake minutes, about a minute here).
        run.wait_screen(IDLE_SCREEN, timeout=180)
        run.wait_request(lambda e: e.get("rule") == "claude-compact", after=after, timeout=10)
        incident = run.wait_incident(
            "compaction",
            where=lambda i: (
                {"hook", "screen", "transcript"} <= set(i.get("sources", []))
                and i.get("trigger") == "idle"
            ),
            what="one idle compaction from hook, screen and transcript",
        )
        assert "FAKE-COMPACT-SUMMARY" in (incident.get("summary") or ""), incident
        auto = run.wait_event("auto_rehydrate", hook_source="compact")
        assert auto["incident"] == incident["number"], (auto, incident)

        run.type_line("carry on")
        request = run.wait_request(
            lambda e: claude_last_prompt(e["body"]).strip() == "carry on",
            after=after,
            what="the request of the prompt after the fold",
        )
        run.wait_screen(r"ack 'carry on'")
        copies = request_text(request).count(PAYLOAD_MARK)
        if copies != 1:
            run.fail(f"the prompt after the idle fold carries {copies} payload copies")
        assert len(run.incidents_of("compaction")) == 1, run.incidents()
        assert not run.events_of("injection"), "a key was pressed for the payload"
