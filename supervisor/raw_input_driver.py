"""Textual's Linux driver, with the agent's keys taken out of the raw input first.

Textual's input thread decodes what the user's terminal sends and parses it into key
events; tether used to turn those back into bytes for the agent, and lost what the
parser folded (Alt+Enter became Enter, Esc then ``:`` became ``:``). Here the thread
reads the same bytes but gives them to an :class:`InputSplitter` first: while the
agent's pane has the focus, the agent's bytes go to its view untouched, as
``TerminalView.Typed`` messages in the order they came, and only tether's (its keys, the
mouse, pastes, focus, the terminal's replies) reach Textual's parser.

The user's terminal is also kept in its legacy key encoding (Textual would switch on
the kitty keyboard protocol where the terminal has it): the agent gets what a terminal
sends a program that asked for nothing, as under tmux.
"""

from __future__ import annotations

import os
import selectors
import sys
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Iterable
from typing import Any

from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.drivers.linux_driver import LinuxDriver

from supervisor.terminal.keys import key_sequences
from supervisor.terminal.raw_input import HOLD_SECONDS, ForAgent, InputSplitter, Piece
from widgets.terminal_view import SCROLL_KEYS, TerminalView

__all__ = ["RawInput"]


class RawInput:
    """The split's state: tether's keys, and the agent's view (``target``, set once mounted).

    ``keys`` are Textual's names of tether's keys (``"f6"``, ``"ctrl+g"``); the view's own
    scroll keys are added. The input thread asks ``target.takes_keys()`` for every read.
    """

    def __init__(self, keys: Iterable[str]) -> None:
        names = [*keys, *SCROLL_KEYS]
        self.splitter = InputSplitter(frozenset().union(*(key_sequences(k) for k in names)))
        self.target: TerminalView | None = None
        self.driver: LinuxDriver | None = None  # ours, once Textual made it (a real terminal)
        self._cursor = ""  # what was last written of the cursor: "" hidden, else its shape
        self._at = ""  # the move to the agent's cursor while it is shown (CUP)
        self._released = False  # the terminal is the user's again (quit, suspend)

    @classmethod
    def install(cls, app: App[Any], keys: Iterable[str]) -> RawInput:
        """Split ``app``'s input from its start: its driver becomes ours where Textual would
        use its Linux driver (Linux, macOS). The app sets ``target`` once its view is up."""
        raw = cls(keys)
        base = app.driver_class
        if issubclass(base, LinuxDriver) and sys.platform != "win32":
            app.driver_class = _driver_for(raw, base)
        return raw

    def attach(self, view: TerminalView) -> TerminalView:
        """The agent's view: its keys, and the real cursor it places (on a real terminal)."""
        self.target = view
        if self.driver is not None:
            view.cursor_out = self
        return view

    def takes_keys(self) -> bool:
        target = self.target
        return target is not None and target.takes_keys()

    def write(self, sequence: str) -> None:
        """Write to the user's terminal in turn with the frames (the driver's writer thread);
        nowhere when the app runs headless."""
        if self.driver is not None:
            self.driver.write(sequence)

    def show_cursor(self, x: int, y: int, shape: int) -> None:
        """The real cursor shown at (``x``, ``y``) of the screen, in the agent's shape
        (DECSCUSR ``shape``, 0 the terminal's default). Every write ends by moving it
        back there (:meth:`placed`): the frames Textual writes end where its own
        ``cursor_position`` is, which the side pane's editor also sets."""
        if self._released:
            return
        at = f"\x1b[{y + 1};{x + 1}H"
        state = f"\x1b[{shape} q\x1b[?25h"
        moved, self._at = at != self._at, at
        if state != self._cursor:
            self._cursor = state
            self.write(state)
        elif moved:
            self.write("")  # to the agent's cursor now, not after the next frame

    def hide_cursor(self) -> None:
        self._at = ""
        if self._cursor and not self._released:
            self._cursor = ""
            self.write("\x1b[?25l")

    def release(self, released: bool) -> None:
        """While the user's terminal is out of application mode (after quit, while
        suspended) the agent's cursor is not placed on it: the shell's screen keeps its
        own cursor, where it was and shown."""
        self._released = released
        self._at = self._cursor = ""

    def placed(self, data: str) -> str:
        """``data``, then the move back to the agent's cursor while it is shown."""
        return data + self._at if self._at else data


def _driver_for(raw: RawInput, base: type[LinuxDriver]) -> type[LinuxDriver]:
    """A subclass of ``base`` (Textual's Linux driver, or the app's subclass of it)."""

    class RawInputDriver(base):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            raw.driver = self
            # Textual stops the input thread by this event, then joins it: set, it also
            # wakes the thread, which waits without a timeout (see _split_input).
            self.exit_event: WakingEvent = WakingEvent()

        def close(self) -> None:
            super().close()
            self.exit_event.close()

        def start_application_mode(self) -> None:
            raw.release(False)
            super().start_application_mode()

        def stop_application_mode(self) -> None:
            raw.release(True)
            super().write("\x1b[0 q")  # the user's own cursor shape back
            super().stop_application_mode()

        def write(self, data: str) -> None:
            # Textual's kitty keyboard push (CSI > flags u): refused, see the module's doc.
            if data.startswith("\x1b[>") and data.endswith("u"):
                return
            super().write(raw.placed(data))

        def run_input_thread(self) -> None:
            _split_input(self, raw, self.exit_event)

    return RawInputDriver


class WakingEvent(threading.Event):
    """A ``threading.Event`` whose ``set`` also makes a pipe readable, so that a thread
    waiting on file descriptors wakes for it; ``clear`` empties the pipe again. Textual
    sets its driver's ``exit_event`` and then joins the input thread; the flag is set
    before the pipe is written, so the woken thread sees it (no lost wake-up)."""

    def __init__(self) -> None:
        super().__init__()
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._closed = False

    def fileno(self) -> int:
        """The end to wait on: readable once set."""
        return self._read

    def set(self) -> None:
        super().set()
        if not self._closed:
            try:
                os.write(self._write, b"\0")
            except BlockingIOError:  # set many times without a clear: readable already
                pass

    def clear(self) -> None:
        super().clear()
        if not self._closed:
            try:
                while os.read(self._read, 64):
                    pass
            except BlockingIOError:  # emptied
                pass

    def close(self) -> None:
        """The pipe's ends closed (the driver is done); still usable as a plain event."""
        if not self._closed:
            self._closed = True
            os.close(self._read)
            os.close(self._write)


def _split_input(driver: LinuxDriver, raw: RawInput, stop: WakingEvent) -> None:
    """Textual's ``run_input_thread``, with the split in front of its parser.

    Textual's own thread wakes ten times a second to look at its exit flag and its
    parser's escape timeout, also when nobody types (a third of an idle tether's
    wake-ups). This one waits for the terminal or for ``stop`` with no timeout, and
    with one only while a timeout is due: the splitter's hold, or the parser's
    ``ESCAPE_DELAY`` after what it was last fed (a lone Esc is a key once it passed).
    """
    selector = selectors.SelectSelector()
    fileno = driver.fileno
    selector.register(fileno, selectors.EVENT_READ)
    selector.register(stop.fileno(), selectors.EVENT_READ)
    parser = XTermParser(debug=False)
    decode = getincrementaldecoder("utf-8")().decode
    splitter = raw.splitter
    held_since = 0.0
    escape_due: float | None = None  # the parser may hold a lone Esc until then

    def deliver(pieces: list[Piece]) -> None:
        nonlocal escape_due
        for piece in pieces:
            target = raw.target
            if isinstance(piece, ForAgent):
                if target is None:
                    continue
                if piece.pasted:  # in the view's queue with the keys, in their order
                    target.post_message(events.Paste(piece.data.decode("utf-8", "replace")))
                else:
                    target.post_message(TerminalView.Typed(piece.data))
                continue
            for event in parser.feed(decode(piece.data)):
                driver.process_message(event)
            escape_due = time.monotonic() + constants.ESCAPE_DELAY
            if piece.focus is not None and target is not None and raw.takes_keys():
                target.post_message(TerminalView.FocusReported(piece.focus))

    try:
        while not stop.is_set():
            due = held_since + HOLD_SECONDS if splitter.holding() else None
            if escape_due is not None:
                due = escape_due if due is None else min(due, escape_due)
            timeout = None if due is None else max(0.0, due - time.monotonic())
            ready = any(key.fd == fileno for key, _ in selector.select(timeout))
            passthrough = raw.takes_keys()
            if ready:
                data = os.read(fileno, 4096)
                if not data:
                    break
                was_holding = splitter.holding()
                deliver(splitter.split(data, passthrough=passthrough))
                if splitter.holding() and not was_holding:
                    held_since = time.monotonic()
            elif splitter.holding():
                deliver(splitter.flush(passthrough=passthrough))
            if escape_due is not None and time.monotonic() >= escape_due:
                escape_due = None  # the parser's own timeout, set before ours, has passed
            for event in parser.tick():
                driver.process_message(event)
    finally:
        selector.close()
