"""The supervisor's own events, appended to events.jsonl off the event loop.

events.jsonl is the record of a run, not the bus between its parts: whoever
acts on an event heard of it in memory first. An append is one ``write`` and an
``fsync`` (milliseconds on a slow disk), so with a loop running each event is
written on one writer thread of its own, in the order it was recorded; without
a loop (the shell commands, headless tests) it is written at once. The event's
time is taken when it is recorded, not when it reaches the disk.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import Callable
from typing import Any

from supervisor.errors import TetherError
from supervisor.store import fsio
from supervisor.store.tether_dir import TetherDir
from supervisor.times import utc_now

Event = dict[str, Any]
# Hears a claimed incident's event (None: not recorded) and whether the claim recorded it.
Claimed = Callable[[Event | None, bool], None]


class EventRecorder:
    """Appends the supervisor's events to one `.tether/events.jsonl`, never on the loop."""

    def __init__(self, tether: TetherDir, problem: Callable[[str], None]) -> None:
        """``problem`` hears an event that could not be written (a full disk...)."""
        self.tether = tether
        self._problem = problem
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        self._pending: list[concurrent.futures.Future[None]] = []
        self._closed = False

    def record(self, kind: str, source: str, *, failure: str = "", **details: Any) -> Event:
        """The event as it will read on disk; written off the loop when one runs.

        ``failure``: what the problem says before the error when the write fails.
        """
        event: Event = {"at": utc_now(), "kind": kind, "source": source, **details}
        why = failure
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._write(event, why, None)
            return event
        if self._closed:  # the end of the run: nobody waits for the loop any more
            self._write(event, why, None)
            return event
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="tether-events"
            )
        self._pending = [f for f in self._pending if not f.done()]
        self._pending.append(self._writer.submit(self._write, event, why, loop))
        return event

    def _write(self, event: Event, why: str, loop: asyncio.AbstractEventLoop | None) -> None:
        """``loop``: where the problem is told (the writer thread tells it nothing itself)."""
        try:
            fsio.append_jsonl(self.tether.events, event)
        except (TetherError, OSError) as error:
            said = f"{why}: {error}" if why else str(error)
            if loop is None:
                self._problem(said)
                return
            try:
                loop.call_soon_threadsafe(self._problem, said)
            except RuntimeError:  # the loop has closed: nobody is left to tell
                pass

    def record_event(self, kind: str, source: str, **details: Any) -> Event:
        """:meth:`record`, as fusion's :class:`~supervisor.recognize.fusion.IncidentLog`."""
        return self.record(kind, source, **details)

    def claim_incident(self, type_: str, source: str, **how: Any) -> tuple[Event, bool]:
        """The incident's number, under the store's lock, after the events recorded before
        it (its sightings) are on disk; in the caller's thread (see :meth:`claim`)."""
        self.flush()
        return self.tether.claim_incident(type_, source, **how)

    def claim(self, how: dict[str, Any], then: Claimed) -> None:
        """Claim an incident's number (:meth:`TetherDir.claim_incident` with ``how``) on the
        writer thread, after the events recorded before it, and tell ``then`` on the loop:
        the incident's event, or None when it could not be written (the problem is told),
        and whether this claim recorded it. Without a loop, at once.

        The store's lock keeps numbers unique across processes, and the event is fsynced
        before anyone hears of the incident, so nothing acts on an unrecorded loss.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self._closed:
            then(*self._claim(how, None))
            return
        context = contextvars.copy_context()  # Textual's active app lives in context variables

        def done(future: concurrent.futures.Future[tuple[Event | None, bool]]) -> None:
            try:
                loop.call_soon_threadsafe(then, *future.result(), context=context)
            except RuntimeError:  # the loop has closed: nobody is left to act on it
                pass

        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="tether-events"
            )
        self._writer.submit(self._claim, how, loop).add_done_callback(done)

    def _claim(
        self, how: dict[str, Any], loop: asyncio.AbstractEventLoop | None
    ) -> tuple[Event | None, bool]:
        try:
            return self.tether.claim_incident(**how)
        except (TetherError, OSError) as error:
            said = f"incident not recorded: {error}"
            if loop is None:
                self._problem(said)
            else:
                loop.call_soon_threadsafe(self._problem, said)
            return None, True

    def flush(self) -> None:
        """Wait until every event recorded so far is on disk (tests, the end of a run)."""
        pending, self._pending = self._pending, []
        concurrent.futures.wait(pending)

    def close(self) -> None:
        """Write what is pending; later events are written at once, in the caller's thread."""
        self._closed = True
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        self._pending = []
