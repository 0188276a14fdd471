"""Session recording: `sessions/<UTC stamp>-<profile>.cast` (asciicast v2) and `.txt`.

The ``.cast`` replays the agent's terminal in asciinema, with a marker at each
landmark (:meth:`SessionRecorder.mark`); the ``.txt`` is the
plain text a person or the agent can grep: lines as they scroll off the top of
the screen, then the final screen on close. Both are created with mode 0600
because agent output can carry secrets.

The recorder sits on the hot path of the PTY read loop, so :meth:`record` only
decodes (UTF-8 stays bytes, escaped as bytes) and appends to a list; lines are
serialised and written at most every :data:`FLUSH_INTERVAL` seconds (checked on the
next call, or by :meth:`flush` from a timer), as soon as :data:`FLUSH_CHARS` of
output are buffered (so that under a flood one flush's JSON work and write stay
under a millisecond, not half a second's worth of output at once), and on close.

Bounded growth: each file stops growing at its cap (:data:`DEFAULT_CAP_BYTES`,
64 MiB for the cast). When the next event would cross it, one marker event
(``[t, "m", "tether: recording stopped ..."]``) is written instead and later
output is dropped; the session goes on unrecorded. The ``.txt`` has its own cap
and a closing line saying so. A write error (disk full, a file size limit) stops
recording the same way, said aloud: :attr:`SessionRecorder.error` says why, the
recorder's ``on_failure`` hears one :class:`RecordingFailed` (for an event and the
banner), and a marker saying so goes into each file that can still take it (a line
torn by the failed write is ended first), tried again at each flush and on close.
"""

from __future__ import annotations

import codecs
import json
import os
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


def session_paths(
    sessions_dir: Path, profile: str, now: datetime | None = None
) -> tuple[Path, Path]:
    """Fresh ``.cast`` and ``.txt`` paths; a suffix keeps two sessions in one second apart."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in profile) or "agent"
    for attempt in range(1, 1000):
        suffix = "" if attempt == 1 else f"-{attempt}"
        cast = sessions_dir / f"{stamp}-{safe}{suffix}.cast"
        if not cast.exists() and not cast.with_suffix(".txt").exists():
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
    """An append-only file that buffers writes and stops, with one last word, at its cap."""

    def __init__(self, path: Path, cap: int, write: Writer = os.write) -> None:
        self.path = path
        self.cap = cap
        self.size = 0
        self.full = False
        self.ends_line = True  # the last byte written was a newline (or none was)
        self._write = write
        self._fd = _open_private(path)
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

    def flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        self._write_all(data)

    def _write_all(self, data: bytes) -> None:
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
        finally:
            os.close(self._fd)


class SessionRecorder:
    """Record one agent run; feed it every chunk read from the PTY."""

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
        clock: object = time.monotonic,
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
        self.error: str | None = None
        self.failure: RecordingFailed | None = None
        self.closed = False
        self._on_failure = on_failure
        self._words_due: list[_CappedFile] = []  # files still owed the stop marker
        self._cast = _CappedFile(self.cast_path, cap_bytes, write)
        self._txt = _CappedFile(self.txt_path, text_cap_bytes, write)
        header = {
            "version": 2,
            "width": int(width),
            "height": int(height),
            "timestamp": int(time.time()),
            "env": {"TERM": term},
            "title": f"tether: {profile}",
        }
        self._cast.add(json.dumps(header).encode() + b"\n", b"")
        self._events: list[tuple[float, str, str | bytes]] = []
        self._buffered = 0  # characters of output in self._events

    # -- hot path ----------------------------------------------------------------------------

    def record(self, data: bytes) -> None:
        """One chunk of the agent's output. Cheap: decode, append, maybe flush."""
        if self.closed or self._cast.full:
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
        if self.closed or self._cast.full:
            return
        clean = "".join(c for c in label if c.isprintable()) or "marker"
        self._events.append((self._clock() - self._start, "m", clean))

    def scrolled_off(self, lines: list[str]) -> None:
        """Lines that left the top of the screen (``FeedResult.scrolled_off``) for the .txt."""
        if self.closed or not lines:
            return
        data = ("\n".join(lines) + "\n").encode("utf-8", "replace")
        self._txt.add(data, self._stop_note_txt())

    # -- writing -----------------------------------------------------------------------------

    def flush(self) -> None:
        """Write what is buffered: from :meth:`record` every half second, a timer, or close."""
        self._last_flush = self._clock()
        self._buffered = 0
        if self.error is not None:
            self._events.clear()
            self._say_stopped()
            return
        events, self._events = self._events, []
        cast = self._cast
        for offset, code, text in events:
            line = _event_line(offset, code, text)
            cast.add(line, self._stop_note_cast(offset) if cast.near_cap(len(line)) else b"")
            if cast.full:
                break
        for file in (self._cast, self._txt):
            try:
                file.flush()
            except OSError as error:
                self._failed(file, error)
                return

    def _failed(self, file: _CappedFile, error: OSError) -> None:
        """A write failed: stop recording, and say so (once) wherever it can be said."""
        at = self._clock() - self._start
        self.failure = RecordingFailed(file.path, error.strerror or str(error), error.errno, at)
        self.error = self.failure.message
        self._cast.full = self._txt.full = True
        self._words_due = [self._cast, self._txt]
        self._say_stopped()
        if self._on_failure is not None:
            self._on_failure(self.failure)

    def _say_stopped(self) -> None:
        """The stop marker into each file that has not taken it yet, if it can now."""
        if self.failure is None or not self._words_due:
            return
        offset = round(self.failure.at, 6)
        label = f"tether: {self.failure.message}; output not recorded from here"
        words = {
            self._cast: json.dumps([offset, "m", label]).encode() + b"\n",
            self._txt: f"[{label}]\n".encode("utf-8", "replace"),
        }
        self._words_due = [f for f in self._words_due if not f.last_word(words[f])]

    def _stop_note_cast(self, offset: float) -> bytes:
        label = f"tether: recording stopped at the {self._cast.cap} byte cap; output not recorded"
        return json.dumps([round(offset, 6), "m", label]).encode() + b"\n"

    def _stop_note_txt(self) -> bytes:
        return f"[tether: text stopped at the {self._txt.cap} byte cap]\n".encode()

    def close(self, final_screen: list[str] | None = None) -> None:
        """Flush everything, append the final screen to the .txt, close both files."""
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
            self._txt.add(
                ("--- final screen ---\n" + text).encode("utf-8", "replace"),
                self._stop_note_txt(),
            )
        self.flush()
        self.closed = True
        for file in (self._cast, self._txt):
            try:
                file.close()
            except OSError as error:
                self.error = self.error or f"recording incomplete: {error.strerror}"

    def __enter__(self) -> SessionRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
