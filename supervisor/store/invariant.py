"""The cursor invariant: ``progress.cursor`` == last artifact ``index`` + 1, and no batching.

Disk wins. ``artifacts.jsonl`` is what was actually finished; ``progress.json``
is what the agent claims. When they disagree, :func:`fix` rolls the cursor back
(claimed work that is not on disk) or forward (work on disk the agent did not
count), records the discrepancy as an event, and the payload tells the agent.

Batching: ``progress.updated_at`` must not be older than the last artifact
line. The time of that line is its own ``"at"`` (or ``"written_at"``) field
when it has one; otherwise the modification time of ``artifacts.jsonl``, which
is the time of its last append because the file only ever grows by appends.
Times are compared with :data:`BATCHING_SLACK_SECONDS` of slack, because an
agent writing JSON with its own tools may stamp whole seconds.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any

from supervisor.errors import TetherError
from supervisor.store.artifact_scan import ArtifactScan
from supervisor.store.tether_dir import Progress, TetherDir, describe_value, is_count
from supervisor.times import iso, parse_time, utc_now

BATCHING_SLACK_SECONDS = 1.0

OK = "ok"
CURSOR_AHEAD = "cursor-ahead"  # progress claims work that is not in artifacts.jsonl
CURSOR_BEHIND = "cursor-behind"  # artifacts.jsonl holds work progress does not count
BATCHING = "batching"
BAD_PROGRESS = "bad-progress"
BAD_ARTIFACT = "bad-artifact"


@dataclass(frozen=True, slots=True)
class InvariantResult:
    """The verdict in words (``message``) and numbers, for the CLI, the panes and payloads."""

    ok: bool
    kind: str
    message: str
    cursor: int | None = None
    last_index: int | None = None
    expected_cursor: int | None = None
    updated_at: str | None = None
    last_artifact_at: str | None = None
    artifact_time_source: str = ""  # "at", "written_at", "mtime" or "" (no artifacts)
    warnings: list[str] = field(default_factory=list)  # torn lines met on the way

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InvariantResult:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        known.setdefault("ok", False)
        known.setdefault("kind", "unknown")
        known.setdefault("message", "")
        return cls(**known)


def _last_artifact_time(tether: TetherDir, record: dict[str, Any]) -> tuple[str | None, str]:
    for name in ("at", "written_at"):
        if parse_time(record.get(name)) is not None:
            return record[name], name
    try:
        mtime = os.stat(tether.artifacts).st_mtime
    except OSError:
        return None, ""
    return iso(mtime), "mtime"


def check(tether: TetherDir, scan: ArtifactScan | None = None) -> InvariantResult:
    """Compare ``progress.json`` with the tail of ``artifacts.jsonl``.

    The tail only, unless ``scan`` is given: then the gaps in the indexes and the
    bad lines of the whole file are warnings too (a scan reads only what was
    appended since its last look).
    """
    last, problems = tether.last_artifact()
    warnings = [str(problem) for problem in problems]
    if scan is not None:
        for warning in scan.look().warnings(tether.artifacts):
            if warning not in warnings:
                warnings.append(warning)
    last_index: int | None = None
    last_at, time_source = None, ""
    if last is not None:
        index = last.get("index")
        if not is_count(index):
            return InvariantResult(
                False,
                BAD_ARTIFACT,
                f'{tether.artifacts}: the last record has no whole-number "index" '
                f"(found {describe_value(index)}); fix that line by hand",
                warnings=warnings,
            )
        last_index = index
        last_at, time_source = _last_artifact_time(tether, last)
    expected = 0 if last_index is None else last_index + 1
    try:
        progress = tether.read_progress()
    except TetherError as error:
        return InvariantResult(
            False,
            BAD_PROGRESS,
            str(error),
            last_index=last_index,
            expected_cursor=expected,
            last_artifact_at=last_at,
            artifact_time_source=time_source,
            warnings=warnings,
        )
    numbers = dict(
        cursor=progress.cursor,
        last_index=last_index,
        expected_cursor=expected,
        updated_at=progress.updated_at,
        last_artifact_at=last_at,
        artifact_time_source=time_source,
        warnings=warnings,
    )
    ends = (
        "artifacts.jsonl is empty" if last_index is None else f"artifacts end at index {last_index}"
    )
    said = f"progress says cursor {progress.cursor}, {ends} (expected cursor {expected})"
    if progress.cursor > expected:
        message = f"{said}: progress claims work that is not on disk"
        return InvariantResult(False, CURSOR_AHEAD, message, **numbers)
    if progress.cursor < expected:
        message = f"{said}: artifacts were written but progress was not updated"
        return InvariantResult(False, CURSOR_BEHIND, message, **numbers)
    lag = _lag_seconds(progress.updated_at, last_at)
    if lag is not None and lag > BATCHING_SLACK_SECONDS:
        where = 'its "at"' if time_source != "mtime" else "the file's modification time"
        message = (
            f"cursor {progress.cursor} matches artifacts, but progress.updated_at "
            f"({progress.updated_at}) is {lag:.1f} s older than the last artifact "
            f"({last_at}, from {where}): the agent is batching; update progress after each artifact"
        )
        return InvariantResult(False, BATCHING, message, **numbers)
    if last_index is None:
        message = "cursor 0, no artifacts yet"
    else:
        message = f"cursor {progress.cursor} matches artifacts (last index {last_index})"
    return InvariantResult(True, OK, message, **numbers)


def _lag_seconds(updated_at: str | None, last_artifact_at: str | None) -> float | None:
    """How far ``updated_at`` trails the last artifact; a missing ``updated_at`` trails fully."""
    artifact_time = parse_time(last_artifact_at)
    if artifact_time is None:
        return None
    progress_time = parse_time(updated_at)
    if progress_time is None:
        return float("inf")
    return (artifact_time - progress_time).total_seconds()


@dataclass(frozen=True, slots=True)
class FixResult:
    """``changes``: what was written, in words ("progress.json: cursor 381 → 380")."""

    before: InvariantResult
    after: InvariantResult
    changed: bool
    event: dict[str, Any] | None
    changes: tuple[str, ...] = ()


def fix(tether: TetherDir, source: str = "cli", scan: ArtifactScan | None = None) -> FixResult:
    """Roll ``progress.cursor`` to the disk truth and record the discrepancy as an event.

    A malformed ``progress.json`` is kept beside as ``progress.json.bad-<time>``
    and rebuilt from the artifacts; batching is acknowledged by stamping
    ``updated_at``. A bad artifact line cannot be fixed from here: it is reported.
    """
    with tether.updating():
        before = check(tether, scan)
        if before.ok or before.kind == BAD_ARTIFACT:
            return FixResult(before, before, False, None)
        expected = before.expected_cursor or 0
        changes: list[str] = []
        if before.kind == BAD_PROGRESS:
            progress = Progress(cursor=expected, phase="")
            if tether.progress.exists():
                keep = tether.progress.with_name(f"progress.json.bad-{utc_now().replace(':', '')}")
                _copy_aside(tether.progress, keep)
                changes.append(f"kept the unreadable {tether.progress.name} as {keep.name}")
            changes.append(f"{tether.progress.name}: rebuilt with cursor {expected}")
        else:
            progress = tether.read_progress()
            if progress.cursor != expected:
                changes.append(f"{tether.progress.name}: cursor {progress.cursor} → {expected}")
            else:
                changes.append(f"{tether.progress.name}: updated_at stamped now (was batching)")
            progress.cursor = expected
        tether.write_progress(progress)
        after = check(tether, scan)
    event = tether.record_event(
        "invariant-fix",
        source,
        violation=before.kind,
        message=before.message,
        before=before.message,
        after=after.message,
        changes=changes,
        from_cursor=before.cursor,
        to_cursor=expected,
        last_index=before.last_index,
    )
    return FixResult(before, after, True, event, tuple(changes))


def _copy_aside(path: Any, target: Any) -> None:
    from supervisor.store import fsio

    try:
        data = fsio.read_bounded(path, fsio.TEXT_LIMIT)
    except (OSError, TetherError):
        return
    fsio.atomic_write_bytes(target, data)
