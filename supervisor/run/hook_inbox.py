"""Hook calls the supervisor's own hook server recorded, handed to the loop in memory.

The server answers each call on a thread of its own and records it in
events.jsonl there (the record); what it recorded comes here, and from here to
the loop in one ``call_soon_threadsafe``, so that fusion hears a compaction as
soon as the hook told it, without a look at the disk. Before the loop is known
(an agent spawned ahead of the app) the events wait, in order, and the first
tick or :meth:`attach` hands them over.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

Event = dict[str, Any]


class HookInbox:
    """Thread-safe hand-over of recorded hook events from the server's thread to the loop."""

    def __init__(self, deliver: Callable[[list[Event]], None]) -> None:
        """``deliver``: called on the loop with the events heard since its last call."""
        self._deliver = deliver
        self._lock = threading.Lock()
        self._waiting: list[Event] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Deliver on ``loop`` from now on (and what waited so far, soon)."""
        with self._lock:
            self._loop = loop
            waiting = bool(self._waiting)
        if waiting:
            loop.call_soon_threadsafe(self.drain)

    def detach(self) -> None:
        with self._lock:
            self._loop = None

    def heard(self, event: Event) -> None:
        """On the server's thread: one recorded hook event."""
        with self._lock:
            self._waiting.append(event)
            first = len(self._waiting) == 1
            loop = self._loop
        if first and loop is not None:
            try:
                loop.call_soon_threadsafe(self.drain)
            except RuntimeError:  # the loop has closed: the next tick (if any) drains
                pass

    def drain(self) -> None:
        """On the loop: deliver what was heard, in the order heard."""
        with self._lock:
            events, self._waiting = self._waiting, []
        if events:
            self._deliver(events)
