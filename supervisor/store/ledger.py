"""`.tether/ledger.jsonl`: what the agent did, one JSON line an action.

Written only from what the agent's own integrations report (its tool hooks),
never from what it says. Each line: ``at`` and ``t`` (when), ``agent``, ``tool``,
``command`` or ``paths``, ``exit`` and ``error``, ``duration_ms``, ``checkout``
(git HEAD and the working tree's fingerprint, :mod:`supervisor.store.checkout`),
and for a verification command ``verify`` with its kind and closing line.

Bounded for week-long sessions: when the file passes :data:`SEGMENT_BYTES` it is
renamed to ``ledger.1.jsonl`` (replacing the one before) and a new file starts
with one ``carry`` line: the files touched, each verification's latest result and
the last actions of everything before. A reader therefore reads one segment at
most (about 2 MB, however long the session) and never the whole history. Appends
are one write of one line plus fsync, as for events.jsonl; a torn last line is
skipped; nothing under `.tether/` is followed through a link.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supervisor.store import fsio
from supervisor.times import utc_now

LEDGER_NAME = "ledger.jsonl"
PREVIOUS_NAME = "ledger.1.jsonl"
#: A segment's size before it rolls over; also the most a reader reads of it.
SEGMENT_BYTES = 1024 * 1024
#: What a reader reads at most: a segment, the line that crossed it, the carry line.
READ_LIMIT = 4 * 1024 * 1024
CARRY = "carry"
CARRY_START = b'{"kind":"carry"'
CARRY_FILES = 300
CARRY_VERIFICATIONS = 100
CARRY_RECENT = 30
CARRY_WITHIN = 16  # lines from the top of a segment where its carry line may be


@dataclass(slots=True)
class LedgerView:
    """What the ledger says, newest first, for the payload, the pane and `tether ledger`.

    ``files``: path -> when it was last touched; ``verifications``: command -> its latest
    record; ``recent``: the last actions (oldest first); ``problems``: unreadable lines.
    """

    files: dict[str, str] = field(default_factory=dict)
    verifications: dict[str, dict[str, Any]] = field(default_factory=dict)
    recent: list[dict[str, Any]] = field(default_factory=list)
    actions: int = 0  # actions in this segment (the carry's not counted)
    problems: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.files or self.verifications or self.recent)


class Ledger:
    """The ledger file of one `.tether/` folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.path = self.root / LEDGER_NAME
        self.previous = self.root / PREVIOUS_NAME

    # -- writing ---------------------------------------------------------------------------

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Append one action (``at`` and ``t`` filled in), rolling the file over first when
        it is full. Returns the record as written."""
        line = {"at": utc_now(), "t": round(time.time(), 3)}
        line.update({k: v for k, v in record.items() if v is not None})
        try:
            size = os.lstat(self.path).st_size
        except FileNotFoundError:
            size = 0
        if size >= SEGMENT_BYTES:
            self._roll_over()
        fsio.append_jsonl(self.path, line)
        return line

    def _roll_over(self) -> None:
        """Start a new segment whose first line carries what the old one knew.

        Serialised by a lock on the ledger file itself, so two hooks finishing at once
        roll it over once; the loser finds a fresh file and appends to it.
        """
        import fcntl

        fd = fsio.open_regular(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.lstat(self.path).st_ino != os.fstat(fd).st_ino:
                return  # another process rolled it over while we waited
            if os.fstat(fd).st_size < SEGMENT_BYTES:
                return
            # Renamed first, then read: a hook appending meanwhile lands in one file or
            # the other, and the carry is appended, so no new line is overwritten.
            os.replace(self.path, self.previous)
            view = self.view(path=self.previous)
            carry = {
                "kind": CARRY,
                "at": utc_now(),
                "files": list(view.files.items())[:CARRY_FILES],
                "verifications": list(view.verifications.values())[:CARRY_VERIFICATIONS],
                "recent": view.recent[-CARRY_RECENT:],
            }
            fsio.append_jsonl(self.path, carry)
        finally:
            os.close(fd)

    # -- reading ---------------------------------------------------------------------------

    def _lines(self, path: Path | None = None) -> tuple[bytes, list[bytes], list[str]]:
        """The carry line (or b"") and the segment's other lines, oldest first; at most
        :data:`READ_LIMIT` bytes from the end are read, whatever the file's size."""
        path = path if path is not None else self.path
        problems: list[str] = []
        try:
            fd = fsio.open_regular(path, os.O_RDONLY)
        except FileNotFoundError:
            return b"", [], problems
        try:
            size = os.fstat(fd).st_size
            start = max(0, size - READ_LIMIT)
            data = os.pread(fd, size - start, start)
            head = b""
            if start > 0:
                head = os.pread(fd, 1 << 20, 0).split(b"\n", 1)[0]
                data = data.split(b"\n", 1)[1] if b"\n" in data else b""
                problems.append(
                    f"{path}: larger than {READ_LIMIT // (1024 * 1024)} MB; only its end was read"
                )
        finally:
            os.close(fd)
        lines = data.split(b"\n")
        if lines and not data.endswith(b"\n") and lines[-1].strip():
            problems.append(f"{path}: torn last line (a write was cut short), skipped")
        lines = lines[:-1]  # the piece after the last newline: empty or torn
        # The carry is the first line, or nearly: a hook may append between the rollover's
        # rename and its carry.
        for index, raw in enumerate(lines[:CARRY_WITHIN] if start == 0 else []):
            if raw.startswith(CARRY_START):
                head, lines = raw, lines[:index] + lines[index + 1 :]
                break
        if not head.startswith(CARRY_START):
            head = b""
        return head, lines, problems

    def history(
        self, containing: bytes, limit: int
    ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """The newest action, and up to ``limit`` actions holding ``containing`` (newest
        first), from one read of the segment: what a hook asks before it appends."""
        newest: dict[str, Any] | None = None
        found: list[dict[str, Any]] = []
        head, lines, _ = self._lines()
        for index, raw in enumerate(reversed(lines)):
            if index > 0 and containing not in raw:
                continue
            record, why = fsio.loads_why(raw)
            if why is not None or not isinstance(record, dict):
                continue
            if index == 0:
                newest = record
                if containing not in raw:
                    continue
            found.append(record)
            if len(found) >= limit:
                return newest, found
        carry = _carry(head).get("recent") or []
        for record in reversed(carry):
            if isinstance(record, dict):
                newest = newest or record
                if containing in json.dumps(record, ensure_ascii=False).encode():
                    found.append(record)
        return newest, found[:limit]

    def view(
        self, *, since: float | None = None, keep: int = CARRY_RECENT, path: Path | None = None
    ) -> LedgerView:
        """Files, verifications and recent actions (those at ``t`` >= ``since``, if given)."""
        head, lines, problems = self._lines(path)
        view = LedgerView(problems=problems)
        carry = _carry(head)
        if since is None:
            for item in carry.get("files") or []:
                if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
                    view.files[item[0]] = str(item[1])
            for record in carry.get("verifications") or []:
                if isinstance(record, dict) and isinstance(record.get("command"), str):
                    view.verifications[record["command"]] = record
            view.recent = [r for r in carry.get("recent") or [] if isinstance(r, dict)]
        carried_files = dict(view.files)
        view.files = {}
        # Only what the view shows is parsed: the last ``keep`` lines and those with paths
        # or a verification (a tenth of a real ledger); with ``since`` every line's time.
        last = len(lines) - keep
        for number, raw in enumerate(lines):
            if not raw.strip():
                continue
            if since is None and number < last and b'"paths"' not in raw and b'"verify"' not in raw:
                view.actions += 1
                continue
            record, why = fsio.loads_why(raw)
            if why is not None or not isinstance(record, dict):
                where = path if path is not None else self.path
                view.problems.append(f"{where}: a line is {why or 'not a JSON object'}")
                continue
            t = record.get("t")
            if since is not None and not (isinstance(t, int | float) and t >= since):
                continue
            view.actions += 1
            if number >= last or since is not None:
                view.recent.append(record)
            at = str(record.get("at") or "")
            for touched in record.get("paths") or []:
                if isinstance(touched, str):
                    view.files.pop(touched, None)
                    view.files[touched] = at
            command = record.get("command")
            if isinstance(record.get("verify"), dict) and isinstance(command, str):
                view.verifications.pop(command, None)
                view.verifications[command] = record
        # newest first; the carried files after this segment's
        newest = dict(reversed(list(view.files.items())))
        for touched, at in carried_files.items():
            newest.setdefault(touched, at)
        view.files = newest
        view.verifications = dict(reversed(list(view.verifications.items())))
        view.recent = view.recent[-keep:] if keep > 0 else []
        return view


def _carry(head: bytes) -> dict[str, Any]:
    if not head:
        return {}
    record, why = fsio.loads_why(head)
    if why is not None or not isinstance(record, dict) or record.get("kind") != CARRY:
        return {}
    return record
