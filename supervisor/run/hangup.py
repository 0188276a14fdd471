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

A terminal can also go without a SIGHUP (tether started under ``nohup``, whose
ignored SIGHUP stays ignored): its reads then end and its writes fail, and
:func:`hung_up` tells the app's tick so, which ends the run the same way.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the first frame imports this module before asyncio is needed
    import asyncio

SIGNALS = (signal.SIGHUP, signal.SIGTERM)
HUNG_UP = "terminal closed (its input and output ended)"
REASONS: dict[int, str] = {
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
    """Which signal (or hangup) asked `tether run` to end, and the handlers that catch it."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.hung_up = False  # the terminal went without a SIGHUP (see hung_up below)
        self.caught: tuple[int, ...] = ()
        self._terminals: list[int] = []

    @property
    def reason(self) -> str | None:
        if self.signum is not None:
            return reason_for(self.signum)
        return HUNG_UP if self.hung_up else None

    def install(self) -> None:
        """Raise :class:`Ended` at the first signal (main thread only). A SIGHUP ignored
        when tether started (``nohup``) stays ignored."""
        if not self.caught:
            ignored = signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            self.caught = tuple(s for s in SIGNALS if not (ignored and s == signal.SIGHUP))
        for signum in self.caught:
            signal.signal(signum, self._raise)

    def _raise(self, signum: int, _frame: object) -> None:
        if self.signum is not None:
            return  # the clean-up the first one started is under way
        self.signum = signum
        raise Ended(signum)

    def on_loop(self, loop: asyncio.AbstractEventLoop, end: Callable[[str, int], None]) -> None:
        """While ``loop`` runs, call ``end(reason, exit code)`` on it at the first signal;
        :meth:`terminal_gone` watches the terminals from then on."""

        def caught(signum: int) -> None:
            if self.signum is None:
                self.signum = signum
                end(reason_for(signum), exit_code(signum))

        for signum in self.caught:
            loop.add_signal_handler(signum, caught, signum)
        self._terminals = terminal_fds()
        if self.signum is not None:  # it came while the app started (and was not seen)
            loop.call_soon(end, reason_for(self.signum), exit_code(self.signum))

    def terminal_gone(self) -> tuple[str, int] | None:
        """(reason, exit code) once the terminal has hung up without a signal; never blocks."""
        if self.signum is None and not self.hung_up and hung_up(self._terminals):
            self.hung_up = True
            return HUNG_UP, exit_code(signal.SIGHUP)
        return None


def terminal_fds() -> list[int]:
    """The standard streams that are terminals (what :func:`hung_up` watches)."""
    return [fd for fd in (0, 1, 2) if os.isatty(fd)]


def hung_up(fds: list[int]) -> bool:
    """Whether any of these terminals has hung up (its far end closed); never blocks."""
    if not fds:
        return False
    poller = select.poll()
    for fd in fds:
        poller.register(fd, 0)  # POLLHUP and POLLERR are always reported
    try:
        ready = poller.poll(0)
    except OSError:
        return True
    return any(mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, mask in ready)


# How long an orderly shutdown may take, once started, before tether ends itself: Textual's
# own shutdown can hang on a terminal that went away (its writer's queue, its input thread).
SHUTDOWN_GRACE_SECONDS = 10.0


class ShutdownDeadline:
    """Makes sure a shutdown, once started, ends: the engine's clean-up, then the process.

    Armed when the app starts to end (a quit, a signal, a hung-up terminal); if the
    process still runs ``grace`` seconds later, a daemon thread runs ``finish`` (hang up
    on the agent, record ``tether_ended``, release the lock: safe to run twice) and
    ends the process with the exit code of the first reason to end.
    """

    def __init__(
        self,
        finish: Callable[[], None],
        *,
        grace: float | None = None,
        end_process: Callable[[int], None] = os._exit,
    ) -> None:
        self._finish = finish
        self._grace = SHUTDOWN_GRACE_SECONDS if grace is None else grace
        self._end_process = end_process
        self._timer: threading.Timer | None = None
        self.code: int | None = None
        self._lock = threading.Lock()

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def arm(self, code: int) -> None:
        """Start the countdown (the first call decides the exit code)."""
        with self._lock:
            if self._timer is not None:
                return
            self.code = code
            self._timer = threading.Timer(self._grace, self.expire)
            self._timer.daemon = True
            self._timer.name = "tether-shutdown-deadline"
            self._timer.start()

    def disarm(self) -> None:
        """The shutdown ended by itself (the app returned): nothing to force."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def expire(self) -> None:
        """The shutdown did not end in time: clean up from here, and end."""
        try:
            self._finish()
        except BaseException:  # the process ends all the same
            pass
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            self._end_process(self.code if self.code is not None else 1)
