"""Checkpoints taken while the agent's screen is live, none of it on the event loop.

In a big repository `git status` takes up to its 2 s timeout, and a checkpoint
copies task.md and notes.md (megabytes for a long run: 0.1 s at 4 MB, 1 s at
50 MB); checkpoints are taken on incidents, exits, the timer, the user's key and
before every injection. With a loop running, git is asked on worker threads, and
each checkpoint is written on one writer thread in the order they were asked,
its result heard on the loop; without a loop (the CLI, tests), at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable

from supervisor.errors import TetherError
from supervisor.rehydrate.injector import Taken
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir

__all__ = ["Checkpointer", "Taken"]


class Checkpointer:
    """Writes checkpoints of one `.tether/` without holding the loop for git or the copy."""

    def __init__(self, tether: TetherDir, problem: Callable[[str], None]) -> None:
        self.tether = tether
        self._problem = problem
        # Checkpoints waiting for `git status` on a worker thread: (reason, incident, then).
        self.asking: dict[asyncio.Future, tuple[str, int | str | None, Taken | None]] = {}
        # One thread writes them all, so they are numbered in the order they were asked.
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        self.writing = 0  # written on the writer thread, not yet heard on the loop
        self._closed = False

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
        asked = loop.run_in_executor(None, checkpoints.git_state, self._work)
        self.asking[asked] = (reason, incident, then)
        asked.add_done_callback(functools.partial(self._answered, loop))

    @property
    def _work(self):
        return self.tether.work_dir

    def _answered(self, loop: asyncio.AbstractEventLoop, _asked: asyncio.Future) -> None:
        """Hand the checkpoints git has answered for to the writer, in the order asked.

        Two calls race on their threads; an agent's exit would otherwise be numbered
        before the incident it caused. One not yet answered holds back those after it.
        """
        while self.asking:  # empty once close() wrote them all
            first = next(iter(self.asking))
            if not first.done():
                return
            reason, incident, then = self.asking.pop(first)
            failed = first.cancelled() or first.exception() is not None
            git = None if failed else first.result()
            if self._writer is None:
                self._writer = concurrent.futures.ThreadPoolExecutor(
                    1, thread_name_prefix="tether-checkpoint"
                )
            self.writing += 1
            written = loop.run_in_executor(self._writer, self._take, reason, incident, git)
            written.add_done_callback(functools.partial(self._written, then))

    def _written(self, then: Taken | None, written: asyncio.Future) -> None:
        self.writing -= 1
        if self._closed or written.cancelled():  # whoever asked is closing too
            return
        self._heard(then, written.result())

    def _take(
        self, reason: str, incident: int | str | None, git: dict | None
    ) -> checkpoints.Checkpoint | TetherError:
        try:
            return checkpoints.take(self.tether, reason, incident=incident, git=git)
        except TetherError as error:
            return error

    def _heard(self, then: Taken | None, taken: checkpoints.Checkpoint | TetherError) -> None:
        if then is not None:
            then(taken)
        elif isinstance(taken, TetherError):
            self._problem(str(taken))

    def close(self) -> None:
        """Finish the checkpoints being written, then write those git has not answered for
        yet, asking it once for all of them (at the end of the run, on the loop)."""
        self._closed = True
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        waiting, self.asking = self.asking, {}
        if waiting:
            git = checkpoints.git_state(self._work)
            for reason, incident, _then in waiting.values():
                self._heard(None, self._take(reason, incident, git))
