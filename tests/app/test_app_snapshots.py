"""SVG snapshots of the app's own states: the banner's kinds, the payload preview, the quit
dialog, and a start after tether died uncleanly.

The agent is a child printing one fixed line; the side pane is off (its files carry
times). The status bar's checkpoint age is the one clock on screen: it is frozen.
Regenerate after an intended change with ``pytest tests/app/test_app_snapshots.py
--snapshot-update`` and look at the pictures before committing them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

import pytest
from textual.screen import Screen

from supervisor.app import TetherApp
from supervisor.recognize.observations import Incident
from supervisor.rehydrate.injector import InjectorStatus
from supervisor.rehydrate.recall_check import RecallCheck
from supervisor.run.attention_model import AttentionModel
from supervisor.run.supervision import RunConfig
from supervisor.store.tether_dir import init
from tests.conftest import steady_cursors, wait_for_a_still_picture, wait_for_screen, wait_until
from widgets.payload_preview import PayloadPreview

SIZE = (100, 24)
PARTIAL = RecallCheck(3, "t", 2, (2,), ((1, ("15 minute", "TTL", "rotate")),), "partial")
AGENT = [sys.executable, "-c", "print('agent ready'); import time; time.sleep(600)"]
GOAL = "migrate the billing exports to the ledger API"


def build(tmp_path, *, unclean: bool = False) -> TetherApp:
    work = tmp_path / "work"
    work.mkdir()
    tether = init(work, goal=GOAL).tether
    if unclean:  # what a tether killed mid-run leaves: a lock file nobody holds
        stale = {"pid": 999_999, "started_at": "2026-05-01T09:00:00.000Z"}
        tether.lock.write_text(json.dumps(stale) + "\n")
        died = 1_777_628_460.0  # 2026-05-01 09:41:00 UTC: its heartbeat's last touch
        os.utime(tether.lock, (died, died))
    env = {**os.environ, "HOME": str(tmp_path), "TETHER_CONFIG_DIR": str(tmp_path / "cfg")}
    app = TetherApp(RunConfig(argv=AGENT, workdir=work, env=env, side_pane=False))
    app.supervision.checkpoint_age = lambda: "#1, 5 s ago"  # the one clock on screen, frozen
    return app


async def _ready(pilot) -> None:
    app = pilot.app
    await wait_for_screen(pilot, app, r"^agent ready$")
    # Quiet for a while (3 s), the agent (no cue of its own) is said to wait: the status bar's
    # lasting word. "running" lasted only until then, and a busy machine's snapshot missed it.
    await wait_until(pilot, lambda: app.status_bar.agent_state == "waiting", what="waiting")


def _compaction(told: AttentionModel) -> None:
    told.incident(Incident(3, "compaction", "auto", ["hook", "transcript"], 0.0), compactions=0)


def _crash(told: AttentionModel) -> None:
    told.incident(Incident(1, "crash", None, ["process"], 0.0), compactions=0)


def _injection(status: InjectorStatus) -> Callable[[AttentionModel], None]:
    return lambda told: told.injection(status)


BANNERS: dict[str, Callable[[AttentionModel], None]] = {
    "compaction": _compaction,
    "crash": _crash,
    "queued": _injection(InjectorStatus("queued", "rehydrate", 0, 1)),
    "unacknowledged": _injection(InjectorStatus("unacknowledged", "rehydrate", 31.0)),
    "acknowledged": _injection(InjectorStatus("acknowledged", "rehydrate", 12.0)),
    "recall-partial": _injection(
        InjectorStatus("acknowledged", "rehydrate", 3.0, 0, 3, recall=PARTIAL)
    ),
}


@pytest.mark.parametrize("kind", sorted(BANNERS))
def test_banner_snapshot(snap_compare, tmp_path, kind):
    async def show(pilot) -> None:
        await _ready(pilot)
        BANNERS[kind](pilot.app.supervision.attention)  # as the engine tells it
        await wait_until(pilot, lambda: pilot.app.banner.text, what="the banner")
        await pilot.pause()

    assert snap_compare(build(tmp_path), terminal_size=SIZE, run_before=show)


def _counted(screen: Screen) -> bool:
    """The preview has drawn its token count, counted in a thread: "counting tokens…" until then
    (a busy machine's snapshot caught that); the quit dialog counts nothing."""
    return not isinstance(screen, PayloadPreview) or screen.tokens is not None


@pytest.mark.parametrize(("dialog", "key"), [("payload-preview", "f7"), ("quit", "f10")])
def test_dialog_snapshot(snap_compare, tmp_path, dialog, key):
    async def open_dialog(pilot) -> None:
        await _ready(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: len(pilot.app.screen_stack) == 2, what=dialog)
        steady_cursors(pilot.app)  # the picture has the cursor, not a blink's phase
        await wait_until(pilot, lambda: _counted(pilot.app.screen), what="the token count")
        await wait_for_a_still_picture(pilot)

    assert snap_compare(build(tmp_path), terminal_size=SIZE, run_before=open_dialog)


def test_unclean_exit_start_snapshot(snap_compare, tmp_path):
    async def started(pilot) -> None:
        await _ready(pilot)
        await wait_until(pilot, lambda: "uncleanly" in pilot.app.banner.text, what="the banner")
        await pilot.pause()

    assert snap_compare(build(tmp_path, unclean=True), terminal_size=SIZE, run_before=started)
