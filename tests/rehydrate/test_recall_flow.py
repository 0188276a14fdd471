"""The closed loop with the demo agent in a real PTY: recovery → `tether ack` → recall check.

The demo agent restates the pins it read with a real `tether ack` child process;
``TETHER_DEMO_FORGET=2`` makes it leave decision 2 out of its first restatement.
"""

from __future__ import annotations

from supervisor.store.tether_dir import TetherDir
from tests.conftest import wait_for_screen, wait_until
from tests.rehydrate.test_rehydrate_flow import compact, events, injections, login_app
from widgets.loss_banner import LossBanner

SECOND = "sessions expire after 30 minutes of idle time because the kiosks are shared"


def two_decisions(tmp_path, shell_env, **env):
    app = login_app(tmp_path, shell_env, **env)
    TetherDir.at(tmp_path).add_decisions([SECOND], "test")
    return app


async def recovered_once(pilot, app) -> LossBanner:
    """The brief, a compaction and F6: the agent restated the pins (the check is complete)
    and waits at its prompt again. The banner, for what comes next."""
    await wait_for_screen(pilot, app, r"Understood: I will keep my state")
    await compact(pilot, app)
    banner = app.query_one(LossBanner)
    await pilot.press("f6")
    await wait_until(pilot, lambda: "recovered" in banner.text, what="the recall check")
    await wait_for_screen(pilot, app, r"\? for shortcuts")
    return banner


def recall_checks(tmp_path) -> list[dict]:
    return [e for e in events(tmp_path) if e["kind"] == "recall_check"]


async def test_a_partial_recall_names_what_is_missing_and_the_key_resends_only_that(
    tmp_path, shell_env
):
    app = two_decisions(tmp_path, shell_env, TETHER_DEMO_FORGET="2")
    banner = None
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")
        await compact(pilot, app)
        banner = app.query_one(LossBanner)
        await pilot.press("f6")
        await wait_until(pilot, lambda: "not restated" in banner.text, what="the partial check")
        assert banner.tone == "warning"
        assert banner.text == (
            "1 decision not restated (30 minutes, the kiosks are shared): F6 re-sends them"
        )
        (check,) = recall_checks(tmp_path)
        assert check["result"] == "partial" and check["pinned"] == 2
        assert check["restated"] == [1]
        assert check["missing"][0]["decision"] == 2
        await pilot.press("f6")
        await wait_for_screen(pilot, app, r"Restated the 1 missing decisions")
        await wait_until(pilot, lambda: "recovered" in banner.text, what="the second check")
        assert banner.text == "recovered: 1 of 1 decisions restated"
    resend = injections(tmp_path, "resend-missing")
    assert len(resend) == 1 and resend[0]["restate"] == [2]
    assert resend[0]["incident"] == check["incident"]
    first, second = recall_checks(tmp_path)
    assert second["injection_at"] == resend[0]["at"] != first["injection_at"]
    assert second["result"] == "complete" and second["restated"] == [2]


async def test_a_new_incident_is_not_acknowledged_by_the_previous_recovery(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        banner = await recovered_once(pilot, app)
        await pilot.press(*"/clear", "enter")  # a second loss, of another kind
        await wait_until(pilot, lambda: "(#2" in banner.text, what="the second incident")
        await pilot.pause(1.0)  # four ticks of the supervisor
        (second,) = [i for i in app.supervision.fusion.incidents if i.number == 2]
        assert not second.acknowledged
        assert app.supervision.fusion.incidents[0].acknowledged
    acknowledged = [e["number"] for e in events(tmp_path) if e.get("acknowledged")]
    assert acknowledged == [1]


async def test_after_a_crash_the_same_restatement_as_before_still_acknowledges(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        banner = await recovered_once(pilot, app)
        await pilot.press(*"/crash", "enter")
        await wait_until(pilot, lambda: "restart" in banner.text, what="the crash banner")
        await pilot.press("f6")
        await wait_until(
            pilot, lambda: len(recall_checks(tmp_path)) == 2, timeout=25, what="the second check"
        )
        await wait_until(pilot, lambda: "recovered" in banner.text, what="the banner")
    acks = [e for e in events(tmp_path) if e["kind"] == "ack"]
    assert len(acks) == 2 and acks[0]["text"] == acks[1]["text"]  # the same words twice
    first, second = recall_checks(tmp_path)
    assert second["result"] == "complete" and second["injection_at"] != first["injection_at"]
    crash = next(e for e in events(tmp_path) if e.get("type") == "crash")
    assert second["incident"] == crash["number"]
