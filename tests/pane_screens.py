"""A small app showing the side pane over fixed data, for snapshots and screenshots.

Everything on screen comes from files written here with fixed times, so the
pictures do not change from run to run: the textbook invariant violation
(progress says 381, artifacts end at 379), two checkpoints a few edits apart,
and a short event history with one incident.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import TextArea

from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from tests.conftest import wait_for_panes_read
from widgets.side_pane import SidePane
from widgets.side_pane.checkpoint_list import CheckpointList

SIZE = (76, 30)

TASK = """\
# Task

## Goal

Migrate the billing exports to the new ledger API.

## Success criteria

- every export of March re-run with identical totals

## Constraints

- never write to the production ledger
"""

NOTES_BEFORE = """\
# Notes

## Phase

exporting

## Decisions

- [2026-05-01T09:12:00Z] page size 500, because the API times out above 800

## Rejected approaches

- one request per invoice: 40k requests, hits the rate limit

## Done

- exports 0-200

## Unproven

## Next step

export 201 onwards
"""

NOTES_AFTER = NOTES_BEFORE.replace(
    "- exports 0-200\n", "- exports 0-200\n- exports 201-379\n"
).replace("export 201 onwards", "verify totals of 0-379")

EVENTS = [
    {"at": "2026-05-01T09:00:00.000Z", "kind": "init", "source": "cli", "created": ["task.md"]},
    {"at": "2026-05-01T09:12:00.000Z", "kind": "decision", "source": "cli", "text": "page 500"},
    {
        "at": "2026-05-01T09:40:00.000Z",
        "kind": "decision",
        "source": "screen",
        "text": "use port 7443 for the admin API because 8443 is taken by the proxy",
    },
    {
        "at": "2026-05-01T09:58:30.000Z",
        "kind": "injection",
        "source": "supervisor",
        "reason": "rehydrate",
        "incident": None,
        "tokens": 1240,
        "channel": "re0",
        "queued_for_seconds": 0.651,
        "checkpoint": 1,
    },
    {"at": "2026-05-01T10:02:11.000Z", "kind": "hook", "source": "hook", "event": "PreCompact"},
    {
        "at": "2026-05-01T10:02:14.000Z",
        "kind": "incident",
        "source": "fusion",
        "number": 1,
        "type": "compaction",
        "trigger": "auto",
        "sources": ["screen", "hook", "transcript"],
    },
    {
        "at": "2026-05-01T10:02:15.000Z",
        "kind": "invariant-fix",
        "source": "supervisor",
        "violation": "cursor-ahead",
        "from_cursor": 381,
        "to_cursor": 380,
        "last_index": 379,
    },
]


def _checkpoint(seq: int, at: str, reason: str, notes: str, cursor: int, ok: bool) -> dict:
    message = (
        f"cursor {cursor} matches artifacts (last index {cursor - 1})"
        if ok
        else "progress says cursor 381, artifacts end at index 379 (expected cursor 380): "
        "progress claims work that is not on disk"
    )
    return {
        "seq": seq,
        "at": at,
        "reason": reason,
        "incident": None,
        "git": {"head": "3f2a9c1d0b7e4f6a8c2d", "dirty": seq > 1},
        "progress": {"cursor": cursor, "phase": "exporting", "updated_at": at},
        "invariant": {"ok": ok, "kind": "ok" if ok else "cursor-ahead", "message": message},
        "task": TASK,
        "notes": notes,
    }


def write_fixture(work_dir: Path) -> TetherDir:
    """A `.tether/` with fixed contents and times under ``work_dir``."""
    tether = TetherDir.at(work_dir)
    for folder in (tether.root, tether.checkpoints, tether.sessions, tether.agent):
        folder.mkdir(parents=True, exist_ok=True)
    fsio.atomic_write_text(tether.task, TASK)
    fsio.atomic_write_text(tether.notes, NOTES_AFTER)
    progress = {"cursor": 381, "phase": "exporting", "updated_at": "2026-05-01T10:01:59.000Z"}
    fsio.atomic_write_json(tether.progress, progress)
    lines = [
        json.dumps({"index": i, "at": "2026-05-01T10:01:58.000Z", "file": f"export-{i}.csv"})
        for i in range(377, 380)
    ]
    tether.artifacts.write_text("\n".join(lines) + "\n")
    tether.events.write_text("".join(json.dumps(event) + "\n" for event in EVENTS))
    checkpoints = [
        _checkpoint(1, "2026-05-01T09:30:00.000Z", "timer", NOTES_BEFORE, 201, True),
        _checkpoint(2, "2026-05-01T10:02:14.500Z", "incident 1", NOTES_AFTER, 381, False),
    ]
    for point in checkpoints:
        fsio.atomic_write_json(tether.checkpoints / f"{point['seq']:06d}.json", point)
    return tether


class PaneHarness(App[None]):
    """The side pane alone, on one tab, without a watcher (nothing changes under it)."""

    CSS = "SidePane { width: 1fr; }"

    def __init__(self, tether: TetherDir, tab: str = "notes", *, watch: bool = False) -> None:
        super().__init__()
        self.tether = tether
        self.tab = tab
        self.watch = watch

    def compose(self) -> ComposeResult:
        yield SidePane(self.tether, watch=self.watch, initial=self.tab, id="side")

    def on_mount(self) -> None:
        for area in self.query(TextArea):
            area.cursor_blink = False


async def prepare(pilot, tab: str) -> None:
    """Bring the harness to the state its picture shows (the panes read their files on
    worker threads: each step waits for the reads it asked for)."""
    await wait_for_panes_read(pilot)
    if tab == "checkpoints":
        pilot.app.query_one(CheckpointList).diff(1, 2)
    if tab == "events":  # the long decision, cut in its row and whole below
        await pilot.press("up", "up", "up", "up")
    await wait_for_panes_read(pilot)
    await pilot.pause()


def build(work_dir: Path, tab: str) -> PaneHarness:
    return PaneHarness(write_fixture(work_dir), tab)


SCREENS = {
    "notes": "notes-pane",
    "progress": "progress-pane",
    "checkpoints": "checkpoints-pane",
    "events": "events-pane",
}


async def _screenshot(tab: str, out_dir: Path) -> Path:
    with tempfile.TemporaryDirectory() as work:
        app = build(Path(work), tab)
        async with app.run_test(size=SIZE) as pilot:
            await prepare(pilot, tab)
            return Path(app.save_screenshot(f"{SCREENS[tab]}.svg", str(out_dir)))


def make_pane_screenshots(out_dir: Path | str) -> list[Path]:
    """Write notes-pane.svg, progress-pane.svg, checkpoints-pane.svg and events-pane.svg into
    ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [asyncio.run(_screenshot(tab, out)) for tab in SCREENS]


if __name__ == "__main__":
    for path in make_pane_screenshots(sys.argv[1] if len(sys.argv) > 1 else "screenshots"):
        print(path)
