"""The whole chain with the demo agent in a real PTY: loss → banner → key → payload → agent."""

from __future__ import annotations

import json

from supervisor.app import TetherApp
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir, init
from tests.conftest import demo_app, wait_for_screen, wait_until
from widgets.loss_banner import LossBanner
from widgets.payload_preview import PayloadPreview


def login_app(
    tmp_path, shell_env, delay: str = "0.05", auto_compact: str = "0", **agent_env: str
) -> TetherApp:
    """The demo agent on a login task with one pinned decision and a next step;
    ``agent_env``: more of the demo's settings (``TETHER_DEMO_FORGET="2"``)."""
    shell_env.update(agent_env)
    init(tmp_path, goal="Ship the login endpoint with refresh tokens")
    tether = TetherDir.at(tmp_path)
    tether.add_decisions(
        [
            "refresh tokens in Redis, 15 minute TTL, rotate on use, because the mobile client "
            "cannot persist tokens"
        ],
        "test",
    )
    tether.add_note("next", "write the token rotation test")
    return demo_app(tmp_path, shell_env, delay, auto_compact)


def events(tmp_path) -> list[dict]:
    lines = (tmp_path / ".tether" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def injections(tmp_path, reason: str | None = None) -> list[dict]:
    events = (tmp_path / ".tether" / "events.jsonl").read_text().splitlines()
    return [
        e
        for e in map(json.loads, events)
        if e.get("kind") == "injection" and reason in (None, e.get("reason"))
    ]


def checkpoint_reasons(tether: TetherDir) -> list[str]:
    """Each checkpoint's reason, up to its first colon."""
    seqs = checkpoints.list_seqs(tether)
    return [checkpoints.load(tether, seq).reason.split(":")[0] for seq in seqs]


async def compact(pilot, app) -> None:
    await wait_for_screen(pilot, app, r"\? for shortcuts")
    await pilot.press(*"/compact", "enter")
    await wait_for_screen(pilot, app, r"Conversation compacted")
    banner = app.query_one(LossBanner)
    await wait_until(pilot, lambda: "Context compacted (#" in banner.text, what="the banner")


async def rehydrate_over_typing(pilot, app, words: str) -> tuple[LossBanner, int]:
    """After the brief and a compaction, type ``words`` without sending them and press F6:
    the banner says the payload is queued. The banner, and the rehydrations sent before."""
    await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
    await compact(pilot, app)
    before = len(injections(app.config.workdir, "rehydrate"))
    await pilot.press(*words)  # typed, not sent
    await pilot.press("f6")
    banner = app.query_one(LossBanner)
    await wait_until(pilot, lambda: "queued" in banner.text, what="the queued banner")
    return banner, before


async def test_compaction_banner_then_the_key_sends_the_payload_as_one_paste(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
        size = (app.session.emulator.cols, app.session.emulator.rows)
        await compact(pilot, app)
        # The banner's row is always there: showing it never resizes (and redraws) the agent.
        assert (app.session.emulator.cols, app.session.emulator.rows) == size
        banner = app.query_one(LossBanner)
        assert "F6 rehydrate" in banner.text
        assert app.status_bar.compactions == 1
        await pilot.press("f6")
        screen = await wait_for_screen(pilot, app, r"Next step: write the token rotation test")
        # The agent's reply proves it read the payload: goal, the pinned decision, next step.
        assert "⏺ Rehydrated: read the recovery payload" in screen
        assert "Goal: Ship the login endpoint with refresh tokens" in screen
        assert "Pinned decisions: 1 — refresh tokens in Redis, 15 minute TTL" in screen
        sent = injections(tmp_path)[-1]
        assert sent["reason"] == "rehydrate" and sent["bracketed"] is True
        # The agent restated the pins with `tether ack`: the recall check is complete.
        await wait_until(pilot, lambda: "recovered" in banner.text, what="the recall check")
        assert banner.text == "recovered: 1 of 1 decisions restated"
        assert banner.tone == "success"
        checks = [e for e in events(tmp_path) if e["kind"] == "recall_check"]
        assert [c["result"] for c in checks] == ["complete"]
        assert checks[0]["injection_at"] == sent["at"] and checks[0]["restated"] == [1]
        assert set(checks[0]) == {
            "at", "kind", "source", "incident", "injection_at", "pinned", "restated",
            "missing", "result",
        }  # fmt: skip
        # The incident's update is recorded off the loop: wait for it, never for a time.
        await wait_until(
            pilot,
            lambda: any(e.get("acknowledged") for e in events(tmp_path)),
            what="the incident's acknowledged update",
        )
        update = [e for e in events(tmp_path) if e.get("acknowledged")]
        assert [u["number"] for u in update] == [checks[0]["incident"]] == [sent["incident"]]


async def test_the_recording_marks_each_incident_and_injection(tmp_path, shell_env):
    """A player jumps to "compaction #1" and to the payload sent after it."""
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")
        await compact(pilot, app)
        await pilot.press("f6")
        await wait_for_screen(pilot, app, r"⏺ Rehydrated")
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "recovered" in banner.text, what="the recall check")
        cast = next((tmp_path / ".tether" / "sessions").glob("*.cast"))
        recorder = app.supervision.recorder
        assert recorder is not None

        def marked() -> bool:  # a tick reads the check's event back and marks it
            recorder.flush()  # what its half-second timer does
            return "recall check: complete" in cast.read_text()

        await wait_until(pilot, marked, 60, "the recall check's marker")
    lines = [json.loads(line) for line in cast.read_text().splitlines()[1:]]
    markers = [text for _at, code, text in lines if code == "m"]
    assert markers == [
        "injection: initial brief",
        "compaction #1, manual",
        "injection: rehydrate (incident #1)",
        "recall check: complete (incident #1)",
    ]
    times = [at for at, code, _text in lines if code == "m"]
    assert times == sorted(times)


async def test_preview_lets_the_user_edit_before_sending(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
        await compact(pilot, app)
        await pilot.press("f7")
        await wait_until(pilot, lambda: isinstance(app.screen, PayloadPreview), what="preview")
        preview = app.screen
        editor = preview.query_one("TextArea")
        assert "Redis, 15 minute TTL" in editor.text
        editor.text = "Please re-read .tether/ now: EDITED-BY-USER\n" + editor.text
        await pilot.press("ctrl+s")
        await wait_for_screen(pilot, app, r"⏺ Rehydrated")
        assert injections(tmp_path)[-1]["reason"] == "rehydrate (edited)"


async def test_payload_is_queued_while_the_agent_is_busy(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env, delay="3")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
        await compact(pilot, app)
        before = len(injections(tmp_path, "rehydrate"))
        await pilot.press(*"a long task", "enter")
        await wait_for_screen(pilot, app, r"Thinking…")
        await pilot.press("f6")
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "queued" in banner.text, what="the queued banner")
        assert len(injections(tmp_path, "rehydrate")) == before
        await wait_for_screen(pilot, app, r"⏺ Rehydrated", timeout=20)
        assert len(injections(tmp_path, "rehydrate")) == before + 1


async def test_crash_then_restart_with_the_resume_command_and_rehydrate(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
        await wait_for_screen(pilot, app, r"\? for shortcuts")
        await pilot.press(*"/crash", "enter")
        banner = app.query_one(LossBanner)
        await wait_until(pilot, lambda: "restart" in banner.text, what="the crash banner")
        assert "crash" in banner.text.lower() or "exit" in banner.text.lower()
        await pilot.press("f6")
        await wait_until(pilot, lambda: app.session.running, what="the restart")
        await wait_for_screen(pilot, app, r"⏺ Rehydrated", timeout=20)
        events = [
            json.loads(line)
            for line in (tmp_path / ".tether" / "events.jsonl").read_text().splitlines()
        ]
        kinds = [e["kind"] for e in events]
        assert "agent_restart" in kinds
        assert any(e.get("kind") == "incident" and e.get("type") == "crash" for e in events)


async def test_the_payload_waits_while_the_user_is_typing(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(140, 40)) as pilot:
        _banner, before = await rehydrate_over_typing(pilot, app, "half a thought")
        await pilot.pause(1.5)
        assert len(injections(tmp_path, "rehydrate")) == before  # not mixed into the line
        await pilot.press("enter")
        await wait_for_screen(pilot, app, r"Working on it: half a thought")
        await wait_for_screen(pilot, app, r"⏺ Rehydrated", timeout=20)
        assert len(injections(tmp_path, "rehydrate")) == before + 1


async def test_the_rehydrate_key_leaves_the_app_live_while_git_is_slow(
    tmp_path, shell_env, held_git
):
    head = held_git.repository(tmp_path)
    held_git.release()  # the brief's and the compaction's checkpoints: git answers at once
    app = login_app(tmp_path, shell_env)
    tether = TetherDir.at(tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for_screen(pilot, app, r"Understood: I will keep my state")  # initial brief
        await compact(pilot, app)
        await wait_until(
            pilot,
            lambda: checkpoint_reasons(tether)[-1:] == ["Context compacted (#1, manual)"],
            what="its checkpoint",
        )
        before, calls = checkpoints.list_seqs(tether), held_git.calls()
        held_git.hold()  # from now on git takes as long as the test likes
        ticks: list[int] = []
        app.set_interval(0.01, lambda: ticks.append(1))
        await pilot.press("f6")
        await wait_until(pilot, lambda: held_git.calls() == calls + 1, what="git to be asked")
        seen = len(ticks)
        await wait_until(pilot, lambda: len(ticks) >= seen + 3, what="a timer while git waits")
        assert checkpoints.list_seqs(tether) == before and injections(tmp_path, "rehydrate") == []
        held_git.release()
        await wait_for_screen(pilot, app, r"⏺ Rehydrated")
    sent = injections(tmp_path, "rehydrate")
    assert len(sent) == 1
    snapshot = checkpoints.load(tether, sent[0]["checkpoint"])
    assert snapshot.reason == "before injection" and snapshot.seq == before[-1] + 1
    assert snapshot.git["head"] == head and snapshot.at <= sent[0]["at"]


async def test_a_half_typed_line_holds_the_payload_until_it_is_empty_and_says_so(
    tmp_path, shell_env
):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        banner, before = await rehydrate_over_typing(pilot, app, "half typed words")
        assert "you have started typing on the agent's input line" in banner.text
        assert "F6 again: send anyway" in banner.text and "busy" not in banner.text
        # the two agree: the agent waits (its echo of the keys is over), the typed line holds it
        await wait_until(pilot, lambda: app.status_bar.agent_state == "waiting", what="waiting")
        assert "you have started typing" in banner.text
        await pilot.pause(11)  # longer than any patience: a typed line is never run over
        assert len(injections(tmp_path, "rehydrate")) == before
        await pilot.press("ctrl+c")  # the user clears the line
        screen = await wait_for_screen(pilot, app, r"⏺ Rehydrated", timeout=20)
        assert "wordsContext" not in screen and "half typed words" not in screen
        assert len(injections(tmp_path, "rehydrate")) == before + 1


async def test_the_rehydrate_key_pressed_again_sends_anyway(tmp_path, shell_env):
    app = login_app(tmp_path, shell_env)
    async with app.run_test(size=(160, 40)) as pilot:
        banner, _before = await rehydrate_over_typing(pilot, app, "my own words ")
        await wait_until(pilot, lambda: "send anyway" in banner.text, what="the offer")
        await pilot.press("f6")  # the user chooses: send it now
        await wait_for_screen(pilot, app, r"⏺ Rehydrated", timeout=20)
        assert len(injections(tmp_path, "rehydrate")) == 1
