"""SIGHUP and SIGTERM end `tether run` as cleanly as a quit does.

Python's default for both is to die on the spot: the agent kept running, the
lock kept its content (the next start then reported an unclean exit, falsely)
and the hook socket's folder stayed in /tmp. Before the app runs, a signal here
raises :class:`Ended`, a ``SystemExit``, so every ``finally`` of `tether run`
hangs up on the agent and releases what it holds; while the app runs, the app
takes both signals on its event loop instead (:meth:`Hangups.on_loop`) and quits
through its own shutdown. A second signal during that clean-up is ignored: the
clean-up is what it would have asked for. SIGKILL cannot be caught, and its
unclean-exit report stays true.
"""

from __future__ import annotations

import signal
from collections.abc import Callable

SIGNALS = (signal.SIGHUP, signal.SIGTERM)
REASONS = {
    signal.SIGHUP: "terminal closed (SIGHUP)",
    signal.SIGTERM: "terminated (SIGTERM)",
}


def reason_for(signum: int) -> str:
    return REASONS.get(signum) or f"ended by {signal.Signals(signum).name}"


def exit_code(signum: int) -> int:
    """What a shell reports for a process a signal ended (128 + its number)."""
    return 128 + signum


class Ended(SystemExit):
    """`tether run` was told to end by a signal before (or after) its app ran."""

    def __init__(self, signum: int) -> None:
        super().__init__(exit_code(signum))
        self.signum = signum
        self.reason = reason_for(signum)


class Hangups:
    """Which signal asked `tether run` to end, if any, and the handlers that catch it."""

    def __init__(self) -> None:
        self.signum: int | None = None

    @property
    def reason(self) -> str | None:
        return None if self.signum is None else reason_for(self.signum)

    def install(self) -> None:
        """Raise :class:`Ended` at the first signal (main thread only)."""
        for signum in SIGNALS:
            signal.signal(signum, self._raise)

    def _raise(self, signum: int, _frame: object) -> None:
        if self.signum is not None:
            return  # the clean-up the first one started is under way
        self.signum = signum
        raise Ended(signum)

    def on_loop(self, loop, callback: Callable[[int], None]) -> None:
        """While ``loop`` runs, call ``callback(signum)`` on it at the first signal."""

        def caught(signum: int) -> None:
            if self.signum is None:
                self.signum = signum
                callback(signum)

        for signum in SIGNALS:
            loop.add_signal_handler(signum, caught, signum)
