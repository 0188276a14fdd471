"""Test helpers that read and write `.tether/` records the way a test needs them.

tether itself never reads a whole JSON Lines file (it reads tails, backwards) and
never appends to artifacts.jsonl (the agent does): these live here, not in the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from supervisor.times import utc_now


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[fsio.BadLine]]:
    """Every readable record of a JSON Lines file, and the lines that were not."""
    problems: list[fsio.BadLine] = []
    records = list(fsio.iter_jsonl(path, problems))
    return records, problems


def recent_events(
    tether: TetherDir, count: int = 50
) -> tuple[list[dict[str, Any]], list[fsio.BadLine]]:
    """The last ``count`` readable events, reading the tail only."""
    return fsio.tail_jsonl(tether.events, count)


def append_artifact(
    tether: TetherDir, record: dict[str, Any] | None = None, **fields: Any
) -> dict[str, Any]:
    """Append one finished unit of work as the agent would; ``index`` defaults to the last
    index + 1, ``at`` to now (the batching check compares it with progress.updated_at)."""
    with tether.updating():
        data = {**(record or {}), **fields}
        if "index" not in data:
            last, _ = tether.last_artifact()
            last_index = last.get("index") if last else None
            data["index"] = last_index + 1 if isinstance(last_index, int) else 0
        data.setdefault("at", utc_now())
        fsio.append_jsonl(tether.artifacts, data)
        return data
