"""The closed loop's keys in the app, with the demo agent in a real PTY: compact now (F3,
`tether compact`, offered in the banner past the profile's threshold) and pin what the
fold dropped that nobody pinned (F12)."""

from __future__ import annotations

import subprocess
import sys
import time

from supervisor.recognize.observations import (
    COMPACTION,
    CONTEXT_USED,
    HOOK,
    SCREEN,
    TRANSCRIPT,
    Observation,
)
from supervisor.rehydrate.live_notes import LiveNotes
from supervisor.rehydrate.summary_instructions import instructions
from supervisor.store import notes
from supervisor.store.tether_dir import TetherDir
from tests.conftest import wait_for_screen, wait_until
from tests.locations import REPO
from tests.rehydrate.test_rehydrate_flow import events, injections, login_app
from widgets.loss_banner import LossBanner
from widgets.pin_dropped import PinDropped
from widgets.side_pane.event_words import describe

SAID = (
    "Put the token code in src/auth/tokens.py and run `pytest -k rotation` first.",
    "The cache holds 512 MB at most.",
)


async def test_the_compact_key_types_the_compact_command_with_the_pins(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        await pilot.press("f3")
        await wait_for_screen(pilot, app, r"❯ /compact tether keeps this project's state")
        await wait_for_screen(pilot, app, r"Conversation compacted")
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "Context compacted (#1" in banner.text, what="incident")
    (sent,) = injections(tmp_path, "compact")
    assert sent["bracketed"] is False and sent["by"] == "key" and "restate" not in sent
    expected = "/compact " + " ".join(instructions(LiveNotes(TetherDir.at(tmp_path))).split())
    assert "1. refresh tokens in Redis, 15 minute TTL" in expected
    assert sent["chars"] == len(expected)  # one line: a newline would submit half of it
    assert not [e for e in events(tmp_path) if e["kind"] == "recall_check"]


async def test_tether_compact_from_a_shell_asks_the_running_tether(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        done = subprocess.run(
            [sys.executable, "-m", "supervisor.cli", "compact", "--dir", str(tmp_path)],
            capture_output=True, text=True, cwd=REPO, timeout=30, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        await wait_for_screen(pilot, app, r"Conversation compacted")
    (sent,) = injections(tmp_path, "compact")
    assert sent["by"] == "cli"


def test_tether_compact_without_a_running_tether_says_so(tmp_path):
    from supervisor.store.tether_dir import init

    init(tmp_path, goal="g")
    done = subprocess.run(
        [sys.executable, "-m", "supervisor.cli", "compact", "--dir", str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "no tether is running" in done.stderr
    assert "Traceback" not in done.stderr


async def test_the_banner_offers_a_compaction_past_the_threshold_and_never_sends_it(
    tmp_path, shell_env
):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        banner = app.query_one(LossBanner)
        app.supervision.observe(
            Observation(CONTEXT_USED, SCREEN, time.time(), details={"percent": 80})
        )
        await wait_until(pilot, lambda: "F3 compacts now" in banner.text, what="the offer")
        assert banner.text.startswith("Context 80% used: F3 compacts now")
        await pilot.pause(1.0)
        assert injections(tmp_path, "compact") == []  # offered, not done: it is off by default


async def test_the_pin_key_pins_a_sentence_the_fold_dropped(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        summary = "The user is setting up the token code."
        app.supervision.observe(
            Observation(COMPACTION, TRANSCRIPT, time.time(), summary=summary, folded=SAID)
        )
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "dropped, not pinned" in banner.text, what="the banner")
        assert "3 specifics dropped, not pinned (F12 pins)" in banner.text
        await pilot.press("f12")
        await wait_until(pilot, lambda: isinstance(app.screen, PinDropped), what="the picker")
        await pilot.press("down", "down", "space", "p")  # the third: 512 MB
        await wait_until(pilot, lambda: not isinstance(app.screen, PinDropped), what="closed")
    pins = notes.pinned_decisions(TetherDir.at(tmp_path).read_notes())
    assert pins[-1] == SAID[1]
    incident = next(e for e in events(tmp_path) if e["kind"] == "incident")
    row = describe(incident)
    assert "dropped, not pinned: src/auth/tokens.py, pytest -k rotation, 512 MB" in row.what


async def test_with_compact_at_break_on_tether_compacts_once_at_the_next_break(tmp_path, shell_env):
    import dataclasses

    app = login_app(tmp_path, shell_env)
    app.supervision.profile = dataclasses.replace(app.supervision.profile, compact_at_break=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        # One report, fresher than the demo's own "21% context used" row: that row, drawn
        # before it, read before or after it, or drawn again unchanged, never overrides it.
        app.supervision.observe(
            Observation(CONTEXT_USED, HOOK, time.time(), details={"percent": 80})
        )
        await wait_for_screen(pilot, app, r"Conversation compacted")
        await pilot.pause(1.0)  # more ticks past the threshold: the meter is stale now
    (sent,) = injections(tmp_path, "compact")
    assert sent["by"] == "auto at a break"


def test_the_events_pane_words_each_recall_check_and_ack() -> None:
    base = {"at": "2026-12-01T08:00:05.000Z", "kind": "recall_check", "source": "cli"}
    partial = {
        **base, "incident": 2, "injection_at": "t", "pinned": 2, "restated": [1],
        "missing": [{"decision": 2, "terms": ["15 minute", "TTL"]}], "result": "partial",
    }  # fmt: skip
    row = describe(partial)
    assert row.what == (
        "recall check: partial, 1 of 2 decisions restated; decision 2 missing: 15 minute, TTL"
    )
    assert (row.incident, row.tone, row.time) == ("#2", "warning", "08:00:05")
    complete = {**partial, "restated": [1, 2], "missing": [], "result": "complete"}
    assert describe(complete).what.startswith("recall check: complete, 2 of 2")
    assert describe(complete).tone == "good"
    none = {**partial, "restated": [], "result": "none", "source": "supervisor"}
    assert "none, no `tether ack` in time (1 decision)" in describe(none).what
    superseded = {
        **partial, "restated": [], "missing": [], "result": "superseded",
        "superseded_by": "t2", "covered": "complete",
    }  # fmt: skip
    assert describe(superseded).what == (
        "recall check: superseded by a newer recovery (its check: complete)"
    )
    ack = {"at": base["at"], "kind": "ack", "source": "cli", "text": "Redis, 15 min", "chars": 13}
    assert describe(ack).what == "ack: Redis, 15 min"


async def test_f12_without_a_summary_says_so_and_leaves_the_incidents_banner(tmp_path, shell_env):
    """Issue 26, item 7: F12 said "no compaction dropped an unpinned specific" when no
    summary had been available to audit, and its message replaced the incident's banner."""
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        app.supervision.observe(Observation(COMPACTION, SCREEN, time.time()))  # no summary
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "Context compacted" in banner.text, what="the banner")
        before = banner.text
        await pilot.press("f12")
        await wait_until(
            pilot,
            lambda: any("no summary of compaction" in n.message for n in app._notifications),
            what="F12's answer",
        )
        assert not any("dropped an unpinned" in n.message for n in app._notifications)
        await pilot.pause()
        assert banner.text == before
