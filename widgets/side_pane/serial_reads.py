"""A widget's file reads, on a worker thread, applied on the loop in the order they were read.

A pane reads `.tether/` files when it mounts and whenever one changes; on the event loop
a read of a large or slow file froze the whole UI (issue 23). Each read goes to a Textual
thread worker, and its result comes back to the loop through ``call_from_thread``. One
lock per widget holds from the read until its result is applied on the loop, so results
are applied in the order they were read and the last one applied is always the newest
read (a read never overwrites a newer one). ``pending`` says whether a read asked for
has not been applied yet: what tests and snapshots wait on instead of time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from textual.widget import Widget

T = TypeVar("T")


class SerialReads:
    """Reads for one widget: off the loop, one at a time, each applied before the next."""

    def __init__(self, widget: Widget, group: str) -> None:
        self._widget = widget
        self._group = group
        self._lock = threading.Lock()  # taken by workers only, never on the loop
        self._asked = 0
        self._done = 0

    @property
    def pending(self) -> bool:
        """A read was asked for and its result is not applied yet."""
        return self._done < self._asked

    def read(self, read: Callable[[], T], apply: Callable[[T], None]) -> None:
        """Run ``read`` on a worker thread, then ``apply(result)`` on the loop."""
        self._asked += 1
        self._widget.run_worker(lambda: self._off_loop(read, apply), thread=True, group=self._group)

    def run_serially(self, job: Callable[[], None]) -> None:
        """On a worker thread: run ``job`` (which may hand results to the loop) between reads."""
        with self._lock:
            job()

    def _off_loop(self, read: Callable[[], T], apply: Callable[[T], None]) -> None:
        with self._lock:
            try:
                result = read()
            except BaseException:
                self._call(self._finish, None)
                raise
            self._call(self._finish, lambda: apply(result))

    def _call(
        self, callback: Callable[[Callable[[], None] | None], None], arg: Callable[[], None] | None
    ) -> None:
        try:
            self._widget.app.call_from_thread(callback, arg)
        except RuntimeError:  # the app has stopped: nothing is left to show it
            pass

    def _finish(self, apply: Callable[[], None] | None) -> None:
        """On the loop: count the read done, and apply it if the widget is still shown."""
        self._done += 1
        if apply is not None and self._widget.is_attached:
            apply()


class NewestWins:
    """Requests that a newer one cancels (an ``exclusive`` worker): each is numbered when
    asked, and a result lands only if no newer one has landed (a cancelled worker's
    thread runs on, and may call back after the newer one)."""

    def __init__(self) -> None:
        self._asked = 0
        self._landed = 0

    @property
    def pending(self) -> bool:
        """A request was made whose result (or a newer one's) has not landed yet."""
        return self._landed < self._asked

    def ask(self) -> int:
        """On the loop: the new request's number."""
        self._asked += 1
        return self._asked

    def lands(self, asked: int) -> bool:
        """On the loop: whether the ``asked``-th result is to be shown (then it is the newest)."""
        if asked < self._landed:
            return False
        self._landed = asked
        return True
