"""The tick's file reads on one thread of their own, each applied on the loop when done.

The supervisor reads its files a few times a second even when nothing happens, so
what a read costs beyond its own I/O is idle CPU. A Textual thread worker per read
made a Worker, three state-change messages and a ``call_from_thread`` round trip
that held its thread until the loop ran the callback: five wake-ups of the loop and
two of the executor's threads per tick. Here a read is one job on a one-thread
executor and its result one callback on the loop. Reads never overlap: a request
while one is under way is dropped (the next tick asks again).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")


class TickPump(Generic[T]):
    """Runs ``read`` off the loop and hands its result to ``apply`` on it; an exception
    in ``read`` goes to ``failed`` on the loop instead."""

    def __init__(
        self,
        read: Callable[[], T],
        apply: Callable[[T], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        self._read = read
        self._apply = apply
        self._failed = failed
        self._executor: ThreadPoolExecutor | None = None
        self.busy = False  # a read is under way or its result not applied yet
        self.closed = False

    def request(self) -> bool:
        """Start a read now unless one is under way; False when none was started."""
        if self.busy or self.closed:
            return False
        loop = asyncio.get_running_loop()
        # The result is applied in the requester's context (Textual's active app and
        # message pump live in context variables: a timer set while applying needs them).
        context = contextvars.copy_context()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="tether-tick")
        self.busy = True
        future = self._executor.submit(self._read)
        future.add_done_callback(lambda done: _call_soon(loop, context, self._done, done))
        return True

    def _done(self, future: Future[T]) -> None:
        self.busy = False
        if self.closed or future.cancelled():
            return
        error = future.exception()
        if error is not None:
            self._failed(error)
        else:
            self._apply(future.result())

    def close(self) -> None:
        """No more reads; waits for one under way (its result is dropped), so that nothing
        reads the files while their owner closes them."""
        self.closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


def _call_soon(
    loop: asyncio.AbstractEventLoop,
    context: contextvars.Context,
    callback: Callable[..., object],
    *args: object,
) -> None:
    try:
        loop.call_soon_threadsafe(callback, *args, context=context)
    except RuntimeError:  # the loop has closed: nobody is left to apply it
        pass
