"""What the supervisor's tick reads from disk, gathered where it cannot hold the event loop.

A few times a second the supervisor looks at hook events appended to
events.jsonl, the agent's transcript (and, without hooks, for it), the cursor
invariant (a fix writes and fsyncs), whether the agent acknowledged the last
payload, for the timer whether the state changed since the last checkpoint, the
last checkpoint for the status bar, and what the loop needs of notes.md when it
changed (:class:`NotesDigest`, of the one parse of notes.md the payload also reads:
:class:`~supervisor.rehydrate.live_notes.LiveNotes`). All of it is file I/O: the app gathers
it on a worker thread with :meth:`TickReader.read`, and the supervision applies
it on the loop. Reads never overlap (the app waits for one to be applied before
the next), so the tails need no lock.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from supervisor.agents.aider_history_follower import AiderHistoryFollower
from supervisor.agents.gemini_session import SessionLoadWatch
from supervisor.agents.ledger_backfill import LedgerBackfill
from supervisor.agents.transcript_follower import TranscriptFollower
from supervisor.agents.transcript_locations import find_transcript
from supervisor.errors import TetherError
from supervisor.recognize.observations import Observation
from supervisor.rehydrate.acknowledgement import read_acknowledgement
from supervisor.rehydrate.live_notes import LiveNotes, ParsedNotes
from supervisor.rehydrate.summary_instructions import instructions_from_document
from supervisor.store import checkpoints
from supervisor.store.invariant_guard import Enforced, InvariantGuard
from supervisor.store.jsonl_tail import JsonlTail
from supervisor.store.tether_dir import TetherDir

DISCOVERY_INTERVAL = 2.0  # seconds between looks for the transcript of an agent without hooks


@dataclass(frozen=True)
class NotesDigest:
    """What the loop uses of notes.md, read off it: the pinned decisions (the loss audit,
    the re-send of what a recall missed) and the instructions of a compaction."""

    pinned: tuple[str, ...] = ()
    compact_instructions: str = ""

    @classmethod
    def of(cls, parsed: ParsedNotes) -> NotesDigest:
        """notes.md's digest; empty when it is missing or unreadable (the payload says so)."""
        if parsed.error is not None:
            return cls()
        return cls(tuple(parsed.decisions()), instructions_from_document(parsed.notes))


class CurrentNotes:
    """notes.md as the loop knows it: the tick's last digest, with the pins added since.

    One object that the recovery coordinator, fusion's loss audit and the compaction
    read, so that notes.md is parsed once per change, off the loop.
    """

    def __init__(self, digest: NotesDigest | None = None) -> None:
        self.digest = digest if digest is not None else NotesDigest()

    @property
    def pinned(self) -> tuple[str, ...]:
        return self.digest.pinned

    def decisions(self) -> list[str]:
        """The pinned decisions, for the loss audit and the re-send of what a recall missed."""
        return list(self.digest.pinned)

    def add_pins(self, added: list[str]) -> None:
        """Pins written since the last read (the next read brings the rest)."""
        pinned = self.digest.pinned
        pins = pinned + tuple(text for text in added if text not in pinned)
        self.digest = replace(self.digest, pinned=pins)


@dataclass
class TickReads:
    """One tick's findings, for :meth:`Supervision.apply_tick` on the loop."""

    events: list[dict[str, Any]] = field(default_factory=list)  # appended to events.jsonl
    transcript: list[Observation] = field(default_factory=list)
    found_transcript: Path | None = None  # discovery found the agent's session file
    invariant: Enforced = field(default_factory=Enforced)
    acknowledged: tuple[Any, dict[str, Any]] | None = None  # (a send, its recall check)
    state_changed: bool | None = None  # asked for the timer checkpoint
    problems: list[str] = field(default_factory=list)
    last_checkpoint: tuple[int, float] | None = None  # its number and file time
    notes: NotesDigest | None = None  # when notes.md changed since the last read
    session_loaded: bool = False  # TickReader.watch saw a resumed session loaded


@dataclass
class Agent:
    """What discovery needs of the running agent: its pid, environment and folder."""

    pid: int
    env: Mapping[str, str]
    workdir: Path


class TickReader:
    """Holds the tails and the remembered file times between reads."""

    def __init__(
        self,
        tether: TetherDir,
        transcript: TranscriptFollower,
        invariant: InvariantGuard,
        integrations: frozenset[str],
        live: LiveNotes,
        aider: AiderHistoryFollower | None = None,
    ) -> None:
        """``live``: notes.md and task.md parsed once per change, shared with the payload;
        ``aider``: aider's history files, followed beside (it has no transcript)."""
        self.tether = tether
        self.live = live
        self.aider = aider
        self.transcript = transcript
        self.invariant = invariant
        self.integrations = integrations
        self.events: JsonlTail | None = None
        self._last_discovery = 0.0
        self._checkpoints_seen: tuple[float, int | None] = (-1.0, None)
        self._digested: ParsedNotes | None = None  # the parse the last digest was made of
        self._digest = NotesDigest()
        self.backfill = LedgerBackfill(tether.work_dir)
        self.watch: SessionLoadWatch | None = None  # a resumed session being loaded

    def open(self) -> None:
        """Follow events.jsonl from its end: what is there already was handled before."""
        self.events = JsonlTail(self.tether.events, start="end")

    def read(
        self,
        now: float,
        *,
        agent: Agent | None,
        sent: Any = None,
        overdue: bool = False,
        since: float = 0.0,
        timer_due: bool = False,
    ) -> TickReads:
        """Everything the tick needs from disk. ``sent``: the injector's last send, if
        it waits for its recall check (``overdue``: past the timeout, so a missing one is
        recorded as none); ``timer_due``: the timer checkpoint is due."""
        reads = TickReads()
        if self.events is not None:
            pid = os.getpid()  # what our own hook server recorded came in memory already
            reads.events = [
                record for record, _history in self.events.poll() if record.get("served_by") != pid
            ]
        if agent is not None and now - self._last_discovery >= DISCOVERY_INTERVAL:
            self._last_discovery = now
            reads.found_transcript = find_transcript(
                self.integrations, agent.env, agent.pid, agent.workdir, since=since, now=now
            )
        reads.transcript = self.transcript.poll(now)
        if self.aider is not None:
            try:
                reads.transcript += self.aider.poll(now)
            except Exception as error:  # a file of any shape must not stop the tick
                reads.problems.append(f"aider's history files not read: {error}")
        try:  # the ledger's second source: calls the hooks did not report (runs git)
            self.backfill.add(self.transcript.take_reports(), now)
            self.backfill.run(now)
        except Exception as error:  # a broken repository must not stop the tick
            reads.problems.append(f"ledger not backfilled from the session file: {error}")
        reads.invariant = self.invariant.enforce()
        reads.notes = self.notes_if_changed()
        if sent is not None:
            try:
                pins = list(self._digest.pinned)
                recall = read_acknowledgement(self.tether, sent.event, overdue=overdue, pins=pins)
            except TetherError as error:
                reads.problems.append(f"recall check not recorded: {error}")
                recall = None
            if recall is not None:
                reads.acknowledged = (sent, recall)
        if timer_due:
            try:
                reads.state_changed = checkpoints.changed_since_last(self.tether)
            except TetherError as error:
                reads.problems.append(str(error))
        reads.last_checkpoint = self._last_checkpoint()
        watch = self.watch
        if watch is not None:
            reads.session_loaded = watch.poll()
        return reads

    def notes_if_changed(self) -> NotesDigest | None:
        """notes.md's digest, or None when it is as it was at the last read."""
        parsed = self.live.current()  # parsed again only if notes.md or task.md changed
        if parsed is self._digested:
            return None
        self._digested = parsed
        self._digest = NotesDigest.of(parsed)
        return self._digest

    def _last_checkpoint(self) -> tuple[int, float] | None:
        """The newest checkpoint and its file time; the folder is listed only when it changed."""
        try:
            folder_time = os.stat(self.tether.checkpoints).st_mtime
        except OSError:
            return None
        if self._checkpoints_seen[0] != folder_time:
            self._checkpoints_seen = (folder_time, checkpoints.latest_seq(self.tether))
        last = self._checkpoints_seen[1]
        if last is None:
            return None
        try:
            return last, os.stat(checkpoints.path_of(self.tether, last)).st_mtime
        except OSError:
            return last, 0.0
