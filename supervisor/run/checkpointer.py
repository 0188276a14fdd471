"""Checkpoints (and pins) written while the agent's screen is live, none on the event loop.

In a big repository `git status` takes up to its 2 s timeout, and a checkpoint
copies task.md and notes.md (megabytes for a long run: 0.1 s at 4 MB, 1 s at
50 MB); checkpoints are taken on incidents, exits, the timer, the user's key and
before every injection. With a loop running, git is asked on worker threads, and
each checkpoint is written on one writer thread in the order they were asked,
its result heard on the loop; without a loop (the CLI, tests), at once. Pins,
which rewrite notes.md (1.8 s at 50 MB), go to the same writer, in order with them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from supervisor.errors import TetherError
from supervisor.rehydrate.injector import Taken
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir

__all__ = ["Checkpointer", "Taken"]

T = TypeVar("T")


def _result_of(job: Callable[[], T]) -> T | TetherError:
    """What ``job`` returned, or the error a user can cause (a full disk...) it raised."""
    try:
        return job()
    except TetherError as error:
        return error


class Checkpointer:
    """Writes checkpoints of one `.tether/` without holding the loop for git or the copy."""

    def __init__(self, tether: TetherDir, problem: Callable[[str], None]) -> None:
        self.tether = tether
        self._problem = problem
        # Checkpoints waiting for `git status` on a worker thread: (reason, incident, then).
        self.asking: dict[
            asyncio.Future[dict[str, Any] | None], tuple[str, int | str | None, Taken | None]
        ] = {}
        # One thread writes them all, so they are numbered in the order they were asked.
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        self.writing = 0  # written on the writer thread, not yet heard on the loop
        self._closed = False
        # Held by whoever hands asked checkpoints on: the loop's _answered, or close() on
        # the thread that ends the run; the loop never waits for it (see _answered).
        self._handing = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def busy(self) -> bool:
        """A checkpoint is being asked for or written (the timer's can wait for the next)."""
        return bool(self.asking) or self.writing > 0

    def checkpoint(
        self, reason: str, *, incident: int | str | None = None, then: Taken | None = None
    ) -> None:
        """Take a checkpoint; ``then`` hears it on the loop, or the error that kept it from
        being written. Without ``then`` an error is reported as a problem.

        If tether closes before git answers, :meth:`close` asks git itself and writes
        the checkpoint without ``then``: what would follow it (a payload, a
        notification) has nobody left to go to.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._heard(then, self._take(reason, incident, checkpoints.git_state(self._work)))
            return
        self._loop = loop
        asked = loop.run_in_executor(None, checkpoints.git_state, self._work)
        self.asking[asked] = (reason, incident, then)
        asked.add_done_callback(functools.partial(self._answered, loop))

    @property
    def _work(self) -> Path:
        return self.tether.work_dir

    def _answered(
        self, loop: asyncio.AbstractEventLoop, _asked: asyncio.Future[Any] | None
    ) -> None:
        """Hand the checkpoints git has answered for to the writer, in the order asked.

        Two calls race on their threads; an agent's exit would otherwise be numbered
        before the incident it caused. One not yet answered holds back those after it.
        """
        if not self._handing.acquire(blocking=False):
            return  # close() writes them on its thread, and hands back what came meanwhile
        try:
            self._hand_over(loop)
        finally:
            self._handing.release()

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        while self.asking:  # empty once close() wrote them all
            first = next(iter(self.asking))
            if not first.done():
                return
            reason, incident, then = self.asking.pop(first)
            failed = first.cancelled() or first.exception() is not None
            git = None if failed else first.result()
            write = functools.partial(self._take, reason, incident, git)
            self._on_writer(loop, write, functools.partial(self._heard, then))

    def write(self, job: Callable[[], T], then: Callable[[T | TetherError], None]) -> None:
        """Run ``job``, another write to `.tether/` (a pin), on the writer thread after the
        checkpoints handed to it so far; ``then`` hears its result or error on the loop."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            then(_result_of(job))
            return
        self._on_writer(loop, functools.partial(_result_of, job), then)

    def _on_writer(
        self,
        loop: asyncio.AbstractEventLoop,
        job: Callable[[], Any],
        then: Callable[[Any], None],
    ) -> None:
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="tether-writer"
            )
        self.writing += 1
        written = loop.run_in_executor(self._writer, job)
        written.add_done_callback(functools.partial(self._written, then))

    def _written(self, then: Callable[[Any], None], written: asyncio.Future[Any]) -> None:
        self.writing -= 1
        if self._closed or written.cancelled():  # whoever asked is closing too
            return
        then(written.result())

    def _take(
        self, reason: str, incident: int | str | None, git: dict[str, Any] | None
    ) -> checkpoints.Checkpoint | TetherError:
        return _result_of(lambda: checkpoints.take(self.tether, reason, incident=incident, git=git))

    def _heard(self, then: Taken | None, taken: checkpoints.Checkpoint | TetherError) -> None:
        if then is not None:
            then(taken)
        elif isinstance(taken, TetherError):
            self._problem(str(taken))

    def close(self) -> None:
        """Finish the checkpoints being written, then write those git has not answered for
        yet, asking it once for all of them (at the end of the run: on the loop, or on a
        thread while the loop waits for it). What is asked meanwhile is answered as ever."""
        with self._handing:
            self._closed = True
            if self._writer is not None:
                self._writer.shutdown(wait=True)
                self._writer = None
            waiting, self.asking = self.asking, {}
            if waiting:
                git = checkpoints.git_state(self._work)
                for reason, incident, _then in waiting.values():
                    self._heard(None, self._take(reason, incident, git))
        loop = self._loop
        if self.asking and loop is not None:  # asked while it wrote: their answers came
            try:
                loop.call_soon_threadsafe(self._answered, loop, None)
            except RuntimeError:  # the loop has closed
                pass
