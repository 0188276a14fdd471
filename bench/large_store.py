"""A large `.tether/` for the store and payload benchmarks: what months of work leave behind."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir, init


def make_large(
    work: Path,
    artifacts: int,
    events: int,
    checkpoint_count: int,
    *,
    goal: str = "a large store",
    trigger: str | None = None,
    fill_notes: Callable[[TetherDir], None] | None = None,
) -> TetherDir:
    """``artifacts`` finished units, ``events`` events after one compaction, notes filled by
    ``fill_notes`` (before the checkpoints, which hold them), ``checkpoint_count`` checkpoints."""
    tether = init(work, goal).tether
    with open(tether.artifacts, "w") as handle:
        for index in range(artifacts):
            record = {"index": index, "at": "2026-01-01T00:00:00.000Z", "task": f"unit {index}"}
            handle.write(json.dumps(record) + "\n")
    tether.set_progress(cursor=artifacts, phase="bulk")
    if trigger is None:
        tether.record_incident("compaction", "bench")
    else:
        tether.record_incident("compaction", "bench", trigger=trigger)
    with open(tether.events, "a") as handle:
        for number in range(events):
            handle.write(json.dumps({"at": "2026-01-01T00:00:00Z", "kind": "screen", "n": number}))
            handle.write("\n")
    if fill_notes is not None:
        fill_notes(tether)
    first = checkpoints.take(tether, "bench", with_git=False).to_dict()
    for seq in range(2, checkpoint_count + 1):
        first["seq"] = seq
        (tether.checkpoints / f"{seq:06d}.json").write_text(json.dumps(first))
    return tether
