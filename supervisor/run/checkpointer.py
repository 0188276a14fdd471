"""Checkpoints taken while the agent's screen is live, with `git status` asked off the loop.

In a big repository `git status` takes up to its 2 s timeout, and checkpoints
are taken on incidents, exits, the timer, the user's key and every injection.
With a loop running, git is asked on a worker thread and the checkpoint written
on the loop when it answers, in the order they were asked; without one (the
CLI, tests), at once.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from supervisor.errors import TetherError
from supervisor.rehydrate.injector import GitAnswer
from supervisor.store import checkpoints
from supervisor.store.tether_dir import TetherDir

Taken = Callable[[checkpoints.Checkpoint | TetherError], None]


class Checkpointer:
    """Writes checkpoints of one `.tether/`, asking git first without holding the loop."""

    def __init__(self, tether: TetherDir, problem: Callable[[str], None]) -> None:
        self.tether = tether
        self._problem = problem
        # Checkpoints waiting for `git status` on a worker thread: (reason, incident, then).
        self.asking: dict[asyncio.Future, tuple[str, int | str | None, GitAnswer]] = {}

    def checkpoint(
        self, reason: str, *, incident: int | str | None = None, then: Taken | None = None
    ) -> None:
        """Take a checkpoint; ``then`` hears it, or the error that kept it from being written.

        Without ``then`` an error is reported as a problem.
        """
        write = functools.partial(self._write, reason, incident, then=then)
        self.ask_git(reason, incident, write)

    def ask_git(self, reason: str, incident: int | str | None, then: GitAnswer) -> None:
        """Ask `git status` for the checkpoint ``reason``; ``then(git)`` takes it with the answer.

        If tether closes first, :meth:`close` asks git itself and writes the
        checkpoint without ``then``: what would follow it (a payload, a
        notification) has nobody left to go to.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            then(checkpoints.git_state(self.tether.work_dir))
            return
        asked = loop.run_in_executor(None, checkpoints.git_state, self.tether.work_dir)
        self.asking[asked] = (reason, incident, then)
        asked.add_done_callback(self._answered)

    def _answered(self, _asked: asyncio.Future) -> None:
        """Go on with the checkpoints git has answered for, in the order they were asked.

        Two calls race on their threads; an agent's exit would otherwise be numbered
        before the incident it caused. One not yet answered holds back those after it.
        """
        while self.asking:  # empty once close() wrote them all
            first = next(iter(self.asking))
            if not first.done():
                return
            _reason, _incident, then = self.asking.pop(first)
            failed = first.cancelled() or first.exception() is not None
            then(None if failed else first.result())

    def _write(
        self,
        reason: str,
        incident: int | str | None,
        git: dict | None,
        then: Taken | None = None,
    ) -> None:
        try:
            snapshot = checkpoints.take(self.tether, reason, incident=incident, git=git)
        except TetherError as error:
            if then is None:
                self._problem(str(error))
            else:
                then(error)
            return
        if then is not None:
            then(snapshot)

    def close(self) -> None:
        """Write the checkpoints git has not answered for yet, asking it once for all of them."""
        waiting, self.asking = self.asking, {}
        if waiting:
            git = checkpoints.git_state(self.tether.work_dir)
            for reason, incident, _then in waiting.values():
                self._write(reason, incident, git)
