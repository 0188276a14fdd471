"""What tether shows is never cut before its point (issue 26, item 5), in the whole app at
80x24, 120x40 and 160x48: every banner kind (its keys on screen), the queued message (its
"F6 again: send anyway"), the status bar (every fact), the footer (F12 at 80 columns), the
notes-conflict message and the Checkpoints tab. Each state is also an SVG snapshot.

The agent is a child printing one fixed line; the side pane's files carry fixed times
(tests/pane_screens.py); the one clock on screen, the checkpoint's age, is frozen.
Regenerate after an intended change with ``pytest tests/app/test_whole_messages.py
--snapshot-update`` and look at the pictures before committing them.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable

import pytest
from textual.widgets import TabbedContent, TextArea

from supervisor.app import TetherApp
from supervisor.recognize.observations import DecisionLoss, Dropped, Incident, LossAudit
from supervisor.rehydrate.injector import InjectorStatus
from supervisor.rehydrate.recall_check import RecallCheck
from supervisor.run.attention_model import AttentionModel
from supervisor.run.supervision import RunConfig
from tests.app.test_panes import type_at_end
from tests.conftest import wait_for_a_still_picture, wait_for_screen, wait_until
from tests.pane_screens import write_fixture
from widgets.side_pane import SidePane, notes_pane
from widgets.side_pane.checkpoint_list import CheckpointList
from widgets.side_pane.notes_pane import NotesPane

SIZES = [(80, 24), (120, 40), (160, 48)]
AGENT = [sys.executable, "-c", "print('agent ready'); import time; time.sleep(600)"]
PARTIAL = RecallCheck(3, "t", 2, (2,), ((1, ("15 minute", "TTL", "rotate")),), "partial")
DECISION = "refresh tokens in Redis, 15 minute TTL, rotate on use"
TYPING = (
    "you have started typing on the agent's input line; it is sent once the line is empty "
    "(sent or cleared) · F6 again: send anyway"
)


def build(tmp_path) -> TetherApp:
    work = tmp_path / "work"
    work.mkdir()
    write_fixture(work)
    env = {**os.environ, "HOME": str(tmp_path), "TETHER_CONFIG_DIR": str(tmp_path / "cfg")}
    app = TetherApp(RunConfig(argv=AGENT, workdir=work, env=env, side_pane=True))
    app.supervision.checkpoint_age = lambda: "#2, 5 s ago"  # the one clock on screen, frozen
    return app


def _audited() -> Incident:
    audit = LossAudit((DecisionLoss(DECISION, ("Redis", "15 minute"), ("Redis",), "lost"),))
    dropped = (Dropped("512 MB", "The cache holds 512 MB at most."),)
    return Incident(
        3, "compaction", "auto", ["hook", "transcript"], 0.0, audit=audit, dropped=dropped
    )


def _incident(incident: Incident) -> Callable[[AttentionModel], None]:
    return lambda told: told.incident(incident, compactions=1)


def _injection(status: InjectorStatus) -> Callable[[AttentionModel], None]:
    return lambda told: told.injection(status)


# kind -> (what the engine tells the model, what the banner row must show whole)
BANNERS: dict[str, tuple[Callable[[AttentionModel], None], str]] = {
    "compaction-audited": (_incident(_audited()), "F6 rehydrate · F7 preview"),
    "wipe": (_incident(Incident(2, "wipe", None, ["hook"], 0.0)), "F6 rehydrate"),
    "crash": (_incident(Incident(1, "crash", None, ["process"], 0.0)), "F6 restart and rehydrate"),
    "queued-typing": (
        _injection(InjectorStatus("queued", "rehydrate", 0, 1, why=TYPING)),
        "F6 again: send anyway",
    ),
    "queued-busy": (_injection(InjectorStatus("queued", "rehydrate", 0, 1)), "Payload queued"),
    "sent": (_injection(InjectorStatus("sent", "rehydrate", 4.0)), "waiting for"),
    "held": (
        _injection(InjectorStatus("sent", "auto_rehydrate", 2.0, stage="held")),
        "F6 prompts it now",
    ),
    "unacknowledged": (
        _injection(InjectorStatus("unacknowledged", "rehydrate", 31.0)),
        "no `tether ack` yet",
    ),
    "acknowledged": (
        _injection(InjectorStatus("acknowledged", "rehydrate", 12.0)),
        "acknowledged",
    ),
    "recall-partial": (
        _injection(InjectorStatus("acknowledged", "rehydrate", 3.0, 0, 3, recall=PARTIAL)),
        "F6 re-sends them",
    ),
}


def rows(app: TetherApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def _ready(pilot) -> None:
    app = pilot.app
    await wait_for_screen(pilot, app, r"^agent ready$")
    # quiet for a while, the agent (no cue of its own) is said to wait: a still status bar
    await wait_until(pilot, lambda: app.status_bar.agent_state == "waiting", 15, "waiting")
    await wait_until(
        pilot, lambda: app.query(SidePane) and app.query_one(SidePane).is_mounted, what="the pane"
    )


async def _still(pilot) -> None:
    """No blinking cursor, nothing left to paint: the picture the snapshot takes."""
    for area in pilot.app.query(TextArea):
        area.cursor_blink = False
    await wait_for_a_still_picture(pilot)


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
@pytest.mark.parametrize("kind", sorted(BANNERS))
def test_every_banner_shows_its_point_at_every_size(snap_compare, tmp_path, kind, size):
    tell, point = BANNERS[kind]
    seen: dict[str, list[str]] = {}

    async def show(pilot) -> None:
        await _ready(pilot)
        tell(pilot.app.supervision.attention)
        await wait_until(pilot, lambda: pilot.app.banner.text, what="the banner")
        await _still(pilot)
        seen["rows"] = rows(pilot.app)

    assert snap_compare(build(tmp_path), terminal_size=size, run_before=show)
    banner, status, footer = seen["rows"][0], seen["rows"][-2], seen["rows"][-1]
    assert point in banner, banner
    assert "f12 Pin" in footer, footer
    assert "compaction" in status and "5 s ago" in status, status
    assert "…" not in status, status


def _join(lines: list[str]) -> str:
    text = re.sub(r"[│┃║▊▎▌▐╭╮╰╯─━═▔▁▕▏█▀▄]", " ", " ".join(lines))
    return re.sub(r"\s+", " ", text)


async def _pane_shown(pilot) -> SidePane:
    """The side pane, mounted and on screen (at 80 columns it makes way for the agent until
    F5 asks for it)."""
    app = pilot.app
    await _ready(pilot)
    side = app.query_one(SidePane)
    if side.region.width == 0:
        await pilot.press("f5")
    await wait_until(pilot, lambda: side.region.width > 0, what="the side pane on screen")
    await pilot.pause()
    return side


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_the_notes_conflict_is_whole_at_every_size(snap_compare, tmp_path, size, monkeypatch):
    monkeypatch.setattr(notes_pane, "SAVE_DEBOUNCE_SECONDS", 60.0)  # the user is mid-edit
    seen: dict[str, str] = {}

    async def conflict(pilot) -> None:
        await _pane_shown(pilot)
        app = pilot.app
        pane = app.query_one(NotesPane)
        await type_at_end(pilot, "- mine, unsaved\n")
        app.supervision.tether.add_note("done", "theirs, from the agent")
        await wait_until(pilot, lambda: pane.conflicted, what="the conflict")
        await _still(pilot)
        box = app.query_one("#notes-conflict").region
        seen["box"] = _join([r[box.x : box.right] for r in rows(app)[box.y : box.bottom]])

    assert snap_compare(build(tmp_path), terminal_size=size, run_before=conflict)
    assert notes_pane.conflict_words("notes.md", 1, 1) in seen["box"], seen["box"]
    for label in ("Keep disk", "Keep mine", "Merge both"):
        assert label in seen["box"]


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_the_checkpoints_tab_is_whole_at_every_size(snap_compare, tmp_path, size):
    seen: dict[str, str] = {}

    async def checkpoints(pilot) -> None:
        await _pane_shown(pilot)
        app = pilot.app
        app.query_one(TabbedContent).active = "tab-checkpoints"
        listed = app.query_one(CheckpointList)
        await wait_until(pilot, lambda: listed.highlighted is not None, what="the list")
        await _still(pilot)
        pane = app.query_one(SidePane).region
        seen["pane"] = _join([r[pane.x : pane.right] for r in rows(app)[pane.y : pane.bottom]])

    assert snap_compare(build(tmp_path), terminal_size=size, run_before=checkpoints)
    for label in ("Diff live", "Mark", "Diff mark", "Restore…"):
        assert label in seen["pane"], seen["pane"]
