"""One supervised agent run: PTY → emulator → listeners, driven by an asyncio loop.

The session reads the PTY in bounded chunks from ``loop.add_reader`` (never a
blocking read on the loop), feeds the emulator, writes the emulator's query
replies straight back, and tells its listeners (recorder, detectors, the view)
what arrived. Everything here is engine: no Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from supervisor.terminal.backends import default_emulator
from supervisor.terminal.emulator import Emulator, FeedResult
from supervisor.terminal.keys import encode_paste
from supervisor.terminal.pty_host import ExitStatus, PtyHost

if TYPE_CHECKING:  # asyncio is imported by whoever runs the loop: not before the agent starts
    import asyncio

# One loop turn reads and processes (emulator, recorder, detectors) about TURN_SECONDS
# of output at most, so keys and repaints never wait longer than that; the kernel's PTY
# buffer pushes back on the child meanwhile. A turn reads one chunk at a time and feeds it
# to the emulator before the next read: a PTY hands over 4 KiB a read, and a read that
# finds nothing ready waits for the kernel to move the next 4 KiB in, which it does while
# the emulator works (reading a turn's worth first waited on every read: bench/README.md).
# Short turns, because a turn and a whole repaint can share one wait of the loop and a
# loaded machine stretches both (the A/B behind 4 ms: bench/README.md).
TURN_SECONDS = 0.004
# A turn shares TURN_SECONDS with the loop's other work since the last turn (a repaint,
# above all), so that the two together stay near one turn; it always does one slice.
# Work further back than SHARED_WINDOW is not counted: the loop was idle in between.
SHARED_WINDOW = 0.05
# The listeners (recorder, detectors, the view) hear of the output in slices of up to
# SLICE bytes, whatever the reads were; output read before the loop ran (handed back) is
# worked off in slices too, yielding to the loop once the turn's time is spent. A slice
# of the slowest output (real captures, ~20 MB/s) takes about 3 ms.
SLICE = 64 * 1024
SYNC_END = b"\x1b[?2026l"
SYNC_START = b"\x1b[?2026h"
# A synchronized frame whose end has not arrived yet is held back from the emulator, up to
# HOLD_LIMIT bytes, until it does or HOLD_SECONDS pass with nothing more read: a turn that
# ends with the pipe empty then leaves the last whole frame on screen for the next paint,
# not half of the next one (whose repaint the emulator would hold).
HOLD_LIMIT = 1024 * 1024
HOLD_SECONDS = 0.05
# After the PTY closes, the child is reaped by polling every EXIT_POLL; one that lives
# on past EXIT_WAIT is hung up on.
EXIT_POLL = 0.02
EXIT_WAIT = 2.0
# The agent's output waiting in the PTY this long with nothing read from the reader's
# pipe meanwhile: the reader has stopped delivering (see AgentSession.output_stalled).
STALL_SECONDS = 2.0


class OutputListener(Protocol):
    def __call__(self, data: bytes, result: FeedResult) -> None: ...


class AgentSession:
    """The agent process, its screen, and who wants to hear about its output."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cols: int = 80,
        rows: int = 24,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        emulator_factory: Callable[[int, int], Emulator] = default_emulator,
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.base_env = dict(env) if env is not None else None
        self.emulator = emulator_factory(cols, rows)
        self.listeners: list[OutputListener] = []
        self.exit_listeners: list[Callable[[ExitStatus], None]] = []
        self.screen_listeners: list[Callable[[], None]] = []
        self.input_listeners: list[Callable[[bytes], None]] = []
        # Around a resize: before the emulator reflows, and after it has.
        self.before_resize: list[Callable[[], None]] = []
        self.after_resize: list[Callable[[], None]] = []
        self._held_input: bytearray | None = None  # the user's keys while an injection ends
        self.host: PtyHost | None = None
        self.exit_status: ExitStatus | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.bytes_read = 0
        self._unpainted: set[int] = set()
        self._backlog = b""  # read before the loop ran, not yet processed
        self._fed: list[bytes] = []  # fed to the emulator, not yet told to the listeners
        self._fed_size = 0
        self._fed_scrolled: list[str] = []
        self._fed_bell = False
        self._held = b""  # the start of a synchronized frame, read but not yet fed
        self._held_since = 0.0
        self._hold_timer: asyncio.TimerHandle | None = None
        self._more = False  # the last feed left its scrolled-off lines for a later one
        self._backlog_at = 0
        self._ended = False  # EOF seen; finish once the backlog is processed
        self._reading = False
        self._reading_fd = -1
        self._turn: asyncio.Handle | None = None  # the next turn, when one is due
        self._turn_ended_at = self._turn_ended_cpu = 0.0  # wall and CPU clocks
        self._pending_since: float | None = None  # output seen waiting in the PTY, unread

    # -- lifecycle ---------------------------------------------------------

    def start(
        self, loop: asyncio.AbstractEventLoop | None = None, argv: Sequence[str] | None = None
    ) -> None:
        """Spawn the child (raises TetherError if it cannot start) and begin reading."""
        self.spawn(argv)
        if loop is None:
            import asyncio

            loop = asyncio.get_running_loop()
        self.read_on(loop)

    def spawn(self, argv: Sequence[str] | None = None) -> None:
        """Spawn the child without reading it yet (no event loop runs before the UI has
        loaded): its output waits in the PTY, and a full PTY makes it wait, until
        :meth:`read_on`."""
        if argv is not None:
            self.argv = list(argv)
        if self.host is not None:  # a restart: the new child gets a page of its own
            self.emulator.new_page()
            self._screen_reset()
        self.exit_status = None
        self.host = PtyHost(
            self.argv,
            cols=self.emulator.cols,
            rows=self.emulator.rows,
            cwd=self.cwd,
            env=self.base_env,
        )
        self._cancel_turn()
        self._backlog, self._backlog_at, self._ended = b"", 0, False
        self._held = b""  # the old child's unfinished frame, if any, ends with it

    def adopt(self, host: PtyHost) -> None:
        """Take on a child spawned before this session existed (`tether run` spawns it
        before the emulator is even imported), at this session's size."""
        if self.host is not None:
            raise RuntimeError("this session has a child already")
        self.host, self.exit_status = host, None
        if (host.cols, host.rows) != (self.emulator.cols, self.emulator.rows):
            host.resize(self.emulator.cols, self.emulator.rows)

    def read_on(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the spawned child's output from ``loop`` from now on (what was handed
        back first), through a reader process where one can start."""
        self._loop = loop
        if self.host is not None:
            self.host.read_through_process()
        if self._backlog:
            self._schedule_turn()  # reading resumes once the backlog is processed
        else:
            self._set_reading(True)

    def hand_back(self, data: bytes) -> None:
        """Output someone else read from the PTY before the loop ran (the early painter):
        processed first, exactly as if the session had read it."""
        if data:
            self._backlog = data + self._backlog[self._backlog_at :]
            self._backlog_at = 0

    def _set_reading(self, on: bool) -> None:
        """Watch the PTY for output, or stop while a backlog is being worked off."""
        if self._loop is None or self.host is None or on == self._reading:
            return
        self._reading = on
        try:
            if on:
                self._reading_fd = self.host.read_fd  # a pipe's, until its reader ends
                self._loop.add_reader(self._reading_fd, self._on_readable)
            else:
                self._loop.remove_reader(self._reading_fd)
        except (ValueError, OSError):
            self._reading = False

    @property
    def running(self) -> bool:
        return self.host is not None and self.exit_status is None

    def _on_readable(self) -> None:
        """Output is waiting: read it in a turn of its own.

        The turn runs as a timer, after the callbacks already waiting (a task that a
        timer woke, a repaint): asyncio runs ready readers before the timers that fell
        due meanwhile, so work done here would run back to back with the last turn.
        """
        self._set_reading(False)  # until the turn is done: the kernel's buffer holds the rest
        self._schedule_turn()

    def _schedule_turn(self) -> None:
        """The next turn, two loop iterations away: the first runs the timers that fell
        due during the last turn, the second the tasks those timers woke (a sleeper, a
        repaint), so that they wait for one turn, not two."""
        if self._loop is not None and self._turn is None:
            self._turn = self._loop.call_soon(self._schedule_turn_after_timers)

    def _schedule_turn_after_timers(self) -> None:
        if self._loop is not None:
            self._turn = self._loop.call_later(0, self._drain)

    def _cancel_turn(self) -> None:
        if self._turn is not None:
            self._turn.cancel()
            self._turn = None
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None

    def _turn_seconds(self) -> float:
        """This turn's time: TURN_SECONDS less the loop's own work since the last turn."""
        if time.perf_counter() - self._turn_ended_at > SHARED_WINDOW:
            return TURN_SECONDS
        return TURN_SECONDS - (time.thread_time() - self._turn_ended_cpu)

    def _drain(self) -> None:
        """Process what was read, reading more as it goes, for at most this turn's time;
        then let the loop breathe."""
        self._turn = None
        started = time.perf_counter()
        allowed = self._turn_seconds()
        backlog, position = self._backlog, self._backlog_at
        while True:
            if position >= len(backlog):
                read = self._read_ready()
                if read is None:
                    break
                backlog, position = self._hold_open_frame(read), 0
                if not backlog:  # all of it is a frame's start: read on for its end
                    if time.perf_counter() - started >= allowed:
                        break
                    continue
            piece = backlog[position : position + SLICE]
            if position + len(piece) < len(backlog):
                # Slices end with a synchronized frame when one ends in them, so a turn
                # that stops early leaves a whole frame on screen for the next paint
                # (mid-frame, repaints are held).
                end = piece.rfind(SYNC_END)
                if end > 0:
                    piece = piece[: end + len(SYNC_END)]
            position += len(piece)
            if self._fed_size + len(piece) > SLICE:
                self._tell()
            self._feed(piece, more=True)
            if time.perf_counter() - started >= allowed:
                break
        self._tell()
        self._turn_ended_at, self._turn_ended_cpu = time.perf_counter(), time.thread_time()
        if position < len(backlog):
            self._backlog, self._backlog_at = backlog, position
            self._schedule_turn()
            return
        self._backlog, self._backlog_at = b"", 0
        if self._ended:
            self._release_held()
            self._finish()
        elif self.exit_status is None:
            self._set_reading(True)
            if self._held and self._hold_timer is None and self._loop is not None:
                self._hold_timer = self._loop.call_later(HOLD_SECONDS, self._release_held)

    def _hold_open_frame(self, read: bytes) -> bytes:
        """What of the held bytes and ``read`` to process now: all of it but a
        synchronized frame still open at its end (kept in ``_held``)."""
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        data = self._held + read if self._held else read
        start = data.rfind(SYNC_START)
        if start < 0 or data.find(SYNC_END, start) >= 0 or len(data) - start > HOLD_LIMIT:
            self._held = b""
            return data
        if start > 0 or not self._held:  # a frame of its own: its hold starts now
            self._held_since = time.monotonic()
        elif time.monotonic() - self._held_since > HOLD_SECONDS:
            self._held = b""  # a frame that trickles in is shown as it comes
            return data
        self._held = data[start:]
        return data[:start]

    def _release_held(self) -> None:
        """Nothing more came for the held frame: process it as it is."""
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
        if self._held:
            held, self._held = self._held, b""
            self.process_output(held)

    def _read_ready(self) -> bytes | None:
        """The next chunk of output, or None when there is none now (or at EOF).

        When the kernel has nothing ready, the output already fed is told first: the
        listeners' work gives the kernel time to move the next chunk in.
        """
        host = self.host
        if host is None or self._ended or self.exit_status is not None:
            return None
        if self._fed and not host.waiting():
            self._tell()
        try:
            data = host.read_chunk(SLICE)
        except OSError:
            data = None
        if data is None:
            self._ended = True
        elif data:
            self._pending_since = None  # output flows
        return data or None

    def output_stalled(self, now: float | None = None) -> bool:
        """Whether the agent's output is held up before tether: the reader process is
        stopped (SIGSTOP) or has left output waiting in the PTY for STALL_SECONDS with
        nothing delivered meanwhile. The agent is then blocked mid-output, not waiting
        for input: nothing may be typed or pasted into it. Cheap (one ioctl, one small
        read of /proc); the supervision's tick asks it, and so does the injector."""
        host = self.host
        reader = host.reader if host is not None and self.exit_status is None else None
        if host is None or reader is None or host.pty_pending() == 0:
            self._pending_since = None
            return False
        if reader.stopped():
            return True
        now = time.monotonic() if now is None else now
        if self._pending_since is None:
            self._pending_since = now
        return now - self._pending_since >= STALL_SECONDS

    def process_output(self, data: bytes) -> None:
        """Feed one read through the emulator and out to every listener."""
        self._feed(data)
        self._tell()

    def _feed(self, data: bytes, more: bool = False) -> None:
        """Parse ``data``, answering the child's queries at once; the listeners hear of it
        with the next :meth:`_tell` (``more``: see Emulator.feed)."""
        self.bytes_read += len(data)
        self._more = more
        self._fed.append(data)
        self._fed_size += len(data)
        self._take(self.emulator.feed(data, more=more))

    def _take(self, result: FeedResult) -> None:
        """A feed's replies go to the child at once; the rest waits for the next tell."""
        if result.replies and self.host is not None:
            self.host.write(result.replies)
        if result.scrolled_off:
            self._fed_scrolled += result.scrolled_off
        self._fed_bell = self._fed_bell or result.bell

    def _tell(self) -> None:
        """Tell every listener what was fed since the last time, as one piece of output."""
        fed = self._fed
        if not fed:
            return
        if self._more:  # the lines that scrolled off, all of them
            self._more = False
            self._take(self.emulator.feed(b""))
        data = fed[0] if len(fed) == 1 else b"".join(fed)
        result = FeedResult(scrolled_off=self._fed_scrolled, bell=self._fed_bell)
        self._fed, self._fed_size, self._fed_scrolled, self._fed_bell = [], 0, [], False
        result.dirty = self.emulator.take_dirty()
        self._unpainted |= result.dirty
        for listener in self.listeners:
            listener(data, result)
        for notify in self.screen_listeners:
            notify()

    def take_unpainted(self) -> set[int]:
        """Rows changed since the view last painted (the view's share of the dirty rows)."""
        rows, self._unpainted = self._unpainted, set()
        return rows

    def _finish(self) -> None:
        """The PTY closed: reap the child, polling from the loop rather than holding it."""
        host = self.host
        if host is None or self.exit_status is not None:
            return
        self._set_reading(False)
        if self._loop is None:
            self._exited(host, host.wait_exit(EXIT_WAIT) or host.terminate())
        else:
            self._reap(host, time.monotonic() + EXIT_WAIT)

    def _reap(self, host: PtyHost, deadline: float) -> None:
        if host is not self.host or self.exit_status is not None:
            return  # restarted or stopped meanwhile
        status = host.poll_exit()
        if status is None and time.monotonic() < deadline and self._loop is not None:
            self._loop.call_later(EXIT_POLL, self._reap, host, deadline)
            return
        # A child that closed the PTY but lives on past EXIT_WAIT is hung up on.
        self._exited(host, status or host.terminate())

    def _exited(self, host: PtyHost, status: ExitStatus | None) -> None:
        host.close()
        self.exit_status = status or ExitStatus(None, None)
        self._terminal_ended()
        for notify in self.exit_listeners:
            notify(self.exit_status)

    def _terminal_ended(self) -> None:
        """The child is gone: the modes it set end with it (see Emulator.process_ended)."""
        self.emulator.process_ended()
        self._screen_reset()

    def _screen_reset(self) -> None:
        """Rows tether itself redrew, between children: the view repaints them; the
        detectors never see them as a child's output."""
        self._unpainted |= self.emulator.take_dirty()
        for notify in self.screen_listeners:
            notify()

    def stop(self) -> ExitStatus | None:
        """Hang up on the child and reap it (used when tether quits or restarts)."""
        host = self.host
        if host is None:
            return self.exit_status
        self._set_reading(False)
        self._cancel_turn()
        self._release_held()  # read, so recorded and shown, as the rest was
        status = host.terminate()
        if self.exit_status is None:
            self.exit_status = status
            self._terminal_ended()
        return self.exit_status

    # -- input -------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Bytes to the child, at once (keys, encoded pastes)."""
        if self.host is not None and self.exit_status is None and data:
            self.host.write(data)

    def send_input(self, data: bytes) -> None:
        """What the user typed or pasted: written at once (or, between an injection's paste
        and its submit key, right after that key), then told to the input listeners."""
        if self._held_input is not None:
            self._held_input += data
        else:
            self.write(data)
        for notify in self.input_listeners:
            notify(data)

    def hold_input(self) -> None:
        """Tether's own line is on the agent's input line and its submit key is due: the
        user's keys wait for :meth:`release_input`, else they would be glued to that line
        and submitted with it."""
        if self._held_input is None:
            self._held_input = bytearray()

    def release_input(self) -> None:
        """The submit key went: the keys typed meanwhile follow it, in the order typed."""
        held, self._held_input = self._held_input, None
        if held:
            self.write(bytes(held))

    def paste(self, text: str) -> None:
        self.send_input(encode_paste(text, self.emulator.modes))

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = max(cols, 2), max(rows, 2)
        if (cols, rows) == (self.emulator.cols, self.emulator.rows):
            return
        for notify in self.before_resize:
            notify()
        self.emulator.resize(cols, rows)
        for notify in self.after_resize:
            notify()
        self._unpainted.update(range(rows))
        if self.host is not None and self.exit_status is None:
            self.host.resize(cols, rows)
        for notify in self.screen_listeners:
            notify()
