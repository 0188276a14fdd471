"""Session recording: `sessions/<UTC stamp>-<profile>.cast` (asciicast v2) and `.txt`.

The ``.cast`` replays the agent's terminal in asciinema, with a marker at each
landmark (:meth:`SessionRecorder.mark`); the ``.txt`` is the
plain text a person or the agent can grep: lines as they scroll off the top of
the screen, then the final screen on close. Both are created with mode 0600
because agent output can carry secrets.

The recorder sits on the hot path of the PTY read loop, so :meth:`record` only
decodes (UTF-8 stays bytes, escaped as bytes) and appends to a list, and no file is
opened or written on the loop: what is buffered is handed to the recording's one
writer thread (:class:`RecordingWriter`), which serialises the lines and writes them
in order, at most every :data:`FLUSH_INTERVAL` seconds (checked on the next call, or
by :meth:`flush` from the tick), as soon as :data:`FLUSH_CHARS` of output are
buffered (so that under a flood one batch's JSON work and write stay under a
millisecond, not half a second's worth of output at once), and on close, which
waits until the thread has written everything and closed both files.

Bounded growth: each file stops growing at its cap (:data:`DEFAULT_CAP_BYTES`,
64 MiB for the cast). When the next event would cross it, one marker event
(``[t, "m", "tether: recording stopped ..."]``) is written instead and later
output is dropped; the session goes on unrecorded. The ``.txt`` has its own cap
and a closing line saying so. A write error (disk full, a file size limit) stops
recording the same way, said aloud: :attr:`SessionRecorder.error` says why, the
recorder's ``on_failure`` hears one :class:`RecordingFailed` (for an event and the
banner; on the feeding thread, at the next flush), and a marker saying so goes into
each file that can still take it (a line torn by the failed write is ended first),
tried again at each batch and on close.
"""

from __future__ import annotations

import codecs
import json
import os
import queue
import threading
import time
from codecs import utf_8_decode
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring, encode_basestring_ascii
from pathlib import Path
from typing import NamedTuple

DEFAULT_CAP_BYTES = 64 * 1024 * 1024
DEFAULT_TEXT_CAP_BYTES = 16 * 1024 * 1024
FLUSH_INTERVAL = 0.5
FLUSH_CHARS = 64 * 1024  # a flush under a millisecond even in a flood (bench/README.md)


def _open_private(path: Path) -> int:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)  # the umask can only narrow it, but be explicit
    return fd


# Session paths handed out whose files the writer thread has not created yet.
_HANDED_OUT: set[Path] = set()
_HANDED_OUT_LOCK = threading.Lock()


def session_paths(
    sessions_dir: Path, profile: str, now: datetime | None = None
) -> tuple[Path, Path]:
    """Fresh ``.cast`` and ``.txt`` paths; a suffix keeps two sessions in one second apart.

    The writer thread creates the files later, so the paths handed out are also kept
    (for this process) until then: two recorders started together get two names."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in profile) or "agent"
    for attempt in range(1, 1000):
        suffix = "" if attempt == 1 else f"-{attempt}"
        cast = sessions_dir / f"{stamp}-{safe}{suffix}.cast"
        with _HANDED_OUT_LOCK:
            if cast in _HANDED_OUT:
                continue
            if not cast.exists() and not cast.with_suffix(".txt").exists():
                _HANDED_OUT.add(cast)
                return cast, cast.with_suffix(".txt")
    raise FileExistsError(f"too many sessions named {stamp}-{safe} in {sessions_dir}")


def _event_line(offset: float, code: str, text: str | bytes) -> bytes:
    """One asciicast v2 event line, as ``json.dumps`` would write it.

    ASCII text goes through the ASCII escaper (C, pre-sized, ~1.6x the general one on a
    flood's text, bench/README.md) and needs no UTF-8 encoding; other text keeps its
    characters as UTF-8 (``\\uXXXX`` would triple box drawing's size against the cap).
    Output kept as bytes (valid UTF-8, :meth:`SessionRecorder.record`) is escaped as
    bytes, to the same line.
    """
    if isinstance(text, bytes):
        if text.isascii():
            head = f"[{round(offset, 6)!r}, {encode_basestring_ascii(code)}, ".encode()
            return b"".join((head, b'"', _escape_bytes(text, _ASCII), b'"]\n'))
        head = f"[{round(offset, 6)!r}, {encode_basestring(code)}, ".encode()
        return b"".join((head, b'"', _escape_bytes(text, _UTF8), b'"]\n'))
    if text.isascii():
        quoted = encode_basestring_ascii(text)
        return f"[{round(offset, 6)!r}, {encode_basestring_ascii(code)}, {quoted}]\n".encode()
    quoted = encode_basestring(text)
    line = f"[{round(offset, 6)!r}, {encode_basestring(code)}, {quoted}]\n"
    return line.encode("utf-8", "replace")


TERMINAL = b"\x1b\r\n"  # what a terminal's output escapes most: ESC and line ends


class _Escaper(NamedTuple):
    """How one of the json escapers writes bytes: which stay, how the others are written."""

    verbatim: bytes  # the bytes a JSON string holds as themselves
    escapes: tuple[tuple[int, bytes, bytes], ...]  # byte, as bytes, its escape
    terminal: tuple[tuple[int, bytes, bytes], ...]  # those of ESC, CR and LF
    whole: Callable[[bytes], bytes]  # the escaper itself, quotes cut off


def _escaper(
    controls: Iterable[int], verbatim: Iterable[int], escape: Callable[[bytes], bytes]
) -> _Escaper:
    short = {0x5C: b"\\\\", 0x22: b'\\"', 0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t"}
    short |= {0x08: b"\\b", 0x0C: b"\\f"}
    # The backslash comes first: the escapes written after it hold backslashes of their own.
    escapes = tuple((c, bytes([c]), short.get(c, b"\\u%04x" % c)) for c in (0x5C, 0x22, *controls))
    terminal = tuple(e for e in escapes if e[0] in TERMINAL)
    return _Escaper(bytes(verbatim), escapes, terminal, escape)


_PRINTABLE = [c for c in range(0x20, 0x7F) if c not in b'"\\']
# ``encode_basestring_ascii`` (ASCII text) escapes DEL; ``encode_basestring`` (any other
# text, its characters kept as UTF-8) leaves DEL and every byte of a character as it is.
_ASCII = _escaper(
    [*range(0x20), 0x7F],
    _PRINTABLE,
    lambda data: encode_basestring_ascii(data.decode("ascii")).encode()[1:-1],
)
_UTF8 = _escaper(
    range(0x20),
    [*_PRINTABLE, *range(0x7F, 0x100)],
    lambda data: encode_basestring(data.decode("utf-8")).encode("utf-8")[1:-1],
)
# When the escaper's one pass beats a replace per kind: a short chunk, many kinds, or
# many bytes to escape (bench/README.md, the constants).
MIN_BYTES = 1024
MAX_KINDS = 8
MAX_SHARE = 5  # one byte in MAX_SHARE escaped


def _escape_bytes(data: bytes, escaper: _Escaper) -> bytes:
    """The inside of the JSON string of ``data`` (ASCII, or valid UTF-8), byte for byte
    what the escaper writes, in a few passes of C over the bytes.

    The escapers walk the text a character at a time (40 ms of 21 MB of log lines);
    here one ``translate`` picks out the bytes to escape, and a ``replace`` per kind of
    them present (line ends only, in a log; ESC and line ends in a redraw) escapes them.
    Output with more kinds, or more bytes to escape, than replaces are quick for goes
    through the escaper.
    """
    if len(data) < MIN_BYTES:
        return escaper.whole(data)
    special = data.translate(None, escaper.verbatim)
    if not special:
        return data
    if len(special) * MAX_SHARE > len(data):
        return escaper.whole(data)
    if not special.translate(None, b"\r\n"):  # log lines: nothing but line ends
        return data.replace(b"\r", b"\\r").replace(b"\n", b"\\n")
    kinds = escaper.escapes if special.translate(None, TERMINAL) else escaper.terminal
    present = [(one, escape) for byte, one, escape in kinds if byte in special]
    if len(present) > MAX_KINDS:
        return escaper.whole(data)
    for one, escape in present:
        data = data.replace(one, escape)
    return data


@dataclass(frozen=True, slots=True)
class RecordingFailed:
    """The recording stopped on a write error: what the user is to be told, once."""

    path: Path  # the file that could not be written
    reason: str  # the system's words (``No space left on device``)
    errno: int | None
    at: float  # seconds into the recording

    @property
    def message(self) -> str:
        return f"recording stopped: cannot write {self.path}: {self.reason}"


Writer = Callable[[int, memoryview], int]


class _CappedFile:
    """An append-only file that buffers writes and stops, with one last word, at its cap.

    Used by the writer thread alone; it opens the file at its first write."""

    def __init__(self, path: Path, cap: int, write: Writer = os.write) -> None:
        self.path = path
        self.cap = cap
        self.size = 0
        self.full = False
        self.ends_line = True  # the last byte written was a newline (or none was)
        self._write = write
        self._fd: int | None = None
        self._pending: list[bytes] = []
        self._pending_size = 0

    def near_cap(self, size: int, room: int = 4096) -> bool:
        """Whether ``size`` more bytes, with room for a last word, could cross the cap."""
        return self.size + self._pending_size + size + room > self.cap

    def add(self, data: bytes, stop_note: bytes) -> None:
        if self.full:
            return
        if self.size + self._pending_size + len(data) + len(stop_note) > self.cap:
            self.full = True
            data = stop_note
        self._pending.append(data)
        self._pending_size += len(data)

    def open(self) -> None:
        if self._fd is None:
            try:
                self._fd = _open_private(self.path)
            finally:
                with _HANDED_OUT_LOCK:  # it exists now (or never will): exists() tells
                    _HANDED_OUT.discard(self.path)

    def flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        self._write_all(data)

    def _write_all(self, data: bytes) -> None:
        self.open()
        assert self._fd is not None
        view = memoryview(data)
        while view:
            written = self._write(self._fd, view)
            self.size += written
            if written:
                self.ends_line = view[written - 1] == 0x0A
            view = view[written:]

    def last_word(self, line: bytes) -> bool:
        """After a failed write: ``line`` on a line of its own, if the file takes it now."""
        self._pending.clear()
        self._pending_size = 0
        try:
            self._write_all(line if self.ends_line else b"\n" + line)
        except OSError:
            return False
        return True

    def close(self) -> None:
        try:
            self.flush()
            self.open()  # an empty .txt is still there for `tether transcript`
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


Event = tuple[float, str, str | bytes]  # seconds into the recording, code, data


@dataclass(frozen=True, slots=True)
class _Batch:
    """What the loop hands the writer at a flush: events for the .cast, text for the .txt."""

    events: list[Event]
    text: list[bytes]
    at: float  # seconds into the recording when handed over


class RecordingWriter:
    """The recording's two files and the one thread that writes them, in order.

    The loop hands over :class:`_Batch` es (:meth:`submit`) and never waits, except in
    :meth:`wait` and :meth:`close`. The thread serialises the events (the cap's last
    word included), writes, and on a write error stops: :attr:`failure` says why, and a
    marker goes into each file that can still take it. The thread tells nobody itself:
    the recorder reads :attr:`failure` on the loop (see :meth:`SessionRecorder.flush`).
    """

    def __init__(self, cast: _CappedFile, txt: _CappedFile, header: bytes) -> None:
        """``header`` is the .cast's first line, written with the files' creation now."""
        self.cast = cast
        self.txt = txt
        self.failure: RecordingFailed | None = None  # set by the thread, read by the loop
        self.incomplete: str | None = None  # a file that did not close cleanly
        self._words_due: list[_CappedFile] = []  # files still owed the stop marker
        self._queue: queue.Queue[_Batch | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="tether-recording", daemon=True)
        self.cast.add(header, b"")
        self._thread.start()
        self.submit(_Batch([], [], 0.0))  # the files exist from the start

    @property
    def stopped(self) -> bool:
        """The .cast takes nothing more (its cap, or a write error): output can be dropped."""
        return self.cast.full

    def submit(self, batch: _Batch) -> None:
        self._queue.put(batch)

    def wait(self) -> None:
        """Until every batch handed over is written (or dropped on a failure)."""
        self._queue.join()

    def close(self) -> None:
        """Write what was handed over, close both files, end the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            batch = self._queue.get()
            try:
                if batch is None:
                    self._close_files()
                    return
                self._write(batch)
            except Exception as error:  # a bug must not hang close: stop
                self._failed(self.cast, OSError(None, f"recording writer failed: {error!r}"), 0.0)
            finally:
                self._queue.task_done()

    def _write(self, batch: _Batch) -> None:
        if self.failure is not None:
            self._say_stopped()
            return
        cast = self.cast
        for offset, code, text in batch.events:
            line = _event_line(offset, code, text)
            cast.add(line, self._stop_note_cast(offset) if cast.near_cap(len(line)) else b"")
            if cast.full:
                break
        for data in batch.text:
            self.txt.add(data, self._stop_note_txt())
        for file in (self.cast, self.txt):
            try:
                file.open()  # both exist from the first batch on, for `tether transcript`
                file.flush()
            except OSError as error:
                self._failed(file, error, batch.at)
                return

    def _failed(self, file: _CappedFile, error: OSError, at: float) -> None:
        """A write failed: stop recording, with a marker wherever it can be said."""
        self.failure = RecordingFailed(file.path, error.strerror or str(error), error.errno, at)
        self.cast.full = self.txt.full = True
        self._words_due = [self.cast, self.txt]
        self._say_stopped()

    def _say_stopped(self) -> None:
        """The stop marker into each file that has not taken it yet, if it can now."""
        if self.failure is None or not self._words_due:
            return
        offset = round(self.failure.at, 6)
        label = f"tether: {self.failure.message}; output not recorded from here"
        words = {
            self.cast: json.dumps([offset, "m", label]).encode() + b"\n",
            self.txt: f"[{label}]\n".encode("utf-8", "replace"),
        }
        self._words_due = [f for f in self._words_due if not f.last_word(words[f])]

    def _stop_note_cast(self, offset: float) -> bytes:
        label = f"tether: recording stopped at the {self.cast.cap} byte cap; output not recorded"
        return json.dumps([round(offset, 6), "m", label]).encode() + b"\n"

    def _stop_note_txt(self) -> bytes:
        return f"[tether: text stopped at the {self.txt.cap} byte cap]\n".encode()

    def _close_files(self) -> None:
        for file in (self.cast, self.txt):
            try:
                file.close()
            except OSError as error:
                self.incomplete = self.incomplete or f"recording incomplete: {error.strerror}"


class SessionRecorder:
    """Record one agent run; feed it every chunk read from the PTY, on one thread (the loop).

    That thread only decodes and appends; the files are written by the recording's
    :class:`RecordingWriter` thread. ``on_failure`` is called on the feeding thread, at
    the first :meth:`flush` (the tick's, or the output's) or :meth:`close` after the
    writer met the error: never on the writer's thread.
    """

    def __init__(
        self,
        sessions_dir: Path,
        profile: str,
        width: int,
        height: int,
        *,
        term: str = "xterm-256color",
        cap_bytes: int = DEFAULT_CAP_BYTES,
        text_cap_bytes: int = DEFAULT_TEXT_CAP_BYTES,
        clock: Callable[[], float] = time.monotonic,
        on_failure: Callable[[RecordingFailed], None] | None = None,
        write: Writer = os.write,
    ) -> None:
        sessions_dir = Path(sessions_dir)
        sessions_dir.mkdir(parents=True, exist_ok=True)
        self.cast_path, self.txt_path = session_paths(sessions_dir, profile)
        self._clock = clock
        self._start = clock()
        self._last_flush = self._start
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.closed = False
        self._on_failure = on_failure
        self._told = False  # on_failure has heard of the writer's failure
        header = {
            "version": 2,
            "width": int(width),
            "height": int(height),
            "timestamp": int(time.time()),
            "env": {"TERM": term},
            "title": f"tether: {profile}",
        }
        self._writer = RecordingWriter(
            _CappedFile(self.cast_path, cap_bytes, write),
            _CappedFile(self.txt_path, text_cap_bytes, write),
            json.dumps(header).encode() + b"\n",
        )
        self._events: list[Event] = []
        self._text: list[bytes] = []  # for the .txt
        self._buffered = 0  # characters of output in self._events

    @property
    def failure(self) -> RecordingFailed | None:
        """Why the recording stopped on a write error (once the writer met it)."""
        return self._writer.failure

    @property
    def error(self) -> str | None:
        """What to say about the recording: its failure, or a file not closed cleanly."""
        failure = self._writer.failure
        return failure.message if failure is not None else self._writer.incomplete

    @property
    def stopped(self) -> bool:
        """Output is no longer recorded: the cap, or a write error."""
        return self._writer.stopped

    # -- hot path ----------------------------------------------------------------------------

    def record(self, data: bytes) -> None:
        """One chunk of the agent's output. Cheap: decode, append, maybe hand over."""
        if self.closed or self._writer.stopped:
            return
        text, size = self._output(data)
        now = self._clock()
        if text:
            self._events.append((now - self._start, "o", text))
            self._buffered += size
        if self._buffered >= FLUSH_CHARS or now - self._last_flush >= FLUSH_INTERVAL:
            self.flush()

    def _output(self, data: bytes) -> tuple[str | bytes, int]:
        """The chunk's output and its length in characters: as bytes when they are valid
        UTF-8 (escaped as bytes at the flush), else decoded with U+FFFD for what is not.

        A character cut by the read is held by the decoder, as when it decodes.
        """
        decoder = self._decoder
        if len(data) < MIN_BYTES:  # escaped as text: the passes over bytes cost more
            text = decoder.decode(data)
            return text, len(text)
        pending = decoder.getstate()[0]
        if not pending and data.isascii():
            return bytes(data), len(data)
        whole = pending + data if pending else bytes(data)
        try:
            text, used = utf_8_decode(whole, "strict", False)
        except UnicodeDecodeError:  # not UTF-8: the decoder's replacement characters
            text = decoder.decode(data)
            return text, len(text)
        decoder.setstate((whole[used:], 0))
        return whole[:used], len(text)

    def resize(self, width: int, height: int) -> None:
        """An asciicast v2 resize event (``"r"``, ``"COLSxROWS"``)."""
        if not self.closed:
            self._events.append((self._clock() - self._start, "r", f"{width}x{height}"))

    def mark(self, label: str) -> None:
        """An asciicast v2 marker (``"m"``) a player can jump to, e.g. ``compaction #3``;
        control characters are dropped from the label."""
        if self.closed or self._writer.stopped:
            return
        clean = "".join(c for c in label if c.isprintable()) or "marker"
        self._events.append((self._clock() - self._start, "m", clean))

    def scrolled_off(self, lines: list[str]) -> None:
        """Lines that left the top of the screen (``FeedResult.scrolled_off``) for the .txt."""
        if self.closed or not lines:
            return
        self._text.append(("\n".join(lines) + "\n").encode("utf-8", "replace"))

    # -- handing over ------------------------------------------------------------------------

    def flush(self) -> None:
        """Hand what is buffered to the writer thread: from :meth:`record` every half
        second or :data:`FLUSH_CHARS`, the tick, or close. Tells ``on_failure`` of a
        failure the writer met since."""
        now = self._clock()
        self._last_flush = now
        self._buffered = 0
        if self._events or self._text:
            events, self._events = self._events, []
            text, self._text = self._text, []
            self._writer.submit(_Batch(events, text, now - self._start))
        self._tell_failure()

    def wait_written(self) -> None:
        """Until what was handed over is on disk (tests; :meth:`close` does it itself)."""
        self._writer.wait()
        self._tell_failure()

    def _tell_failure(self) -> None:
        failure = self._writer.failure
        if failure is None or self._told:
            return
        self._told = True
        if self._on_failure is not None:
            self._on_failure(failure)

    def close(self, final_screen: list[str] | None = None) -> None:
        """Hand over everything, the final screen for the .txt, and wait until the writer
        has written it and closed both files."""
        if self.closed:
            return
        tail = self._decoder.decode(b"", final=True)
        if tail:
            self._events.append((self._clock() - self._start, "o", tail))
        if final_screen is not None:
            screen = list(final_screen)
            while screen and not screen[-1].strip():
                screen.pop()
            text = "".join(line.rstrip() + "\n" for line in screen)
            self._text.append(("--- final screen ---\n" + text).encode("utf-8", "replace"))
        self.flush()
        self.closed = True
        self._writer.close()
        self._tell_failure()

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
