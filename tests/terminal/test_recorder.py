"""Session recording: valid asciicast v2, private files, exact text, bounded size."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from supervisor.terminal import recorder as recorder_module
from supervisor.terminal.recorder import FLUSH_CHARS, FLUSH_INTERVAL, SessionRecorder
from tests.locations import REPO


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _cast_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_cast_is_asciicast_v2_and_text_round_trips_across_split_utf8(tmp_path):
    clock = FakeClock()
    output = "héllo ✓ wörld 🎉\r\n\x1b[1mbold\x1b[0m\r\n".encode() * 3
    recorder = SessionRecorder(tmp_path, "claude", 120, 40, clock=clock)
    for i in range(0, len(output), 3):  # splits every multi-byte character somewhere
        clock.now += 0.01
        recorder.record(output[i : i + 3])
    recorder.resize(100, 30)
    recorder.close(["final line", ""])
    header, *events = _cast_lines(recorder.cast_path)
    assert header["version"] == 2 and (header["width"], header["height"]) == (120, 40)
    assert isinstance(header["timestamp"], int) and header["env"]["TERM"]
    assert all(isinstance(e[0], float | int) and e[1] in ("o", "r") for e in events)
    assert [e[0] for e in events] == sorted(e[0] for e in events)
    assert "".join(e[2] for e in events if e[1] == "o") == output.decode()
    assert ["r", "100x30"] in [e[1:] for e in events]
    assert recorder.cast_path.name.endswith("-claude.cast")


def test_files_are_private(tmp_path):
    recorder = SessionRecorder(tmp_path, "demo", 80, 24)
    recorder.close()
    for path in (recorder.cast_path, recorder.txt_path):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_txt_holds_scrolled_off_lines_then_the_final_screen(tmp_path):
    recorder = SessionRecorder(tmp_path, "demo", 80, 24)
    recorder.scrolled_off(["first", "second"])
    recorder.close(["on screen", "", ""])
    assert recorder.txt_path.read_text() == "first\nsecond\n--- final screen ---\non screen\n"


def test_the_cap_stops_output_with_one_marker(tmp_path):
    clock = FakeClock()
    recorder = SessionRecorder(tmp_path, "demo", 80, 24, cap_bytes=4096, clock=clock)
    for _ in range(500):
        clock.now += 0.6  # every call flushes
        recorder.record(b"x" * 50)
    recorder.close()
    assert recorder.cast_path.stat().st_size <= 4096
    events = _cast_lines(recorder.cast_path)[1:]
    markers = [e for e in events if e[1] == "m"]
    assert len(markers) == 1 and events[-1] == markers[0] and "cap" in markers[0][2]
    assert len(events) > 20


def test_nothing_is_written_until_half_a_second_passes(tmp_path):
    clock = FakeClock()
    recorder = SessionRecorder(tmp_path, "demo", 80, 24, clock=clock)
    recorder.record(b"one")
    recorder.wait_written()
    assert len(_cast_lines(recorder.cast_path)) <= 1  # header only
    clock.now += 0.5
    recorder.record(b"two")
    recorder.wait_written()
    assert [e[2] for e in _cast_lines(recorder.cast_path)[1:]] == ["one", "two"]
    recorder.close()


def test_two_sessions_in_one_second_get_different_files(tmp_path):
    first = SessionRecorder(tmp_path, "demo", 80, 24)
    second = SessionRecorder(tmp_path, "demo", 80, 24)
    assert first.cast_path != second.cast_path
    first.close()
    second.close()


def test_a_flood_is_written_in_bounded_batches_not_half_a_second_at_once(tmp_path):
    from supervisor.terminal.recorder import FLUSH_CHARS

    clock = FakeClock()  # time stands still: only the amount buffered can trigger a write
    recorder = SessionRecorder(tmp_path, "claude", 120, 40, clock=clock)
    recorder.wait_written()
    header_size = recorder.cast_path.stat().st_size
    chunk = b"x" * 8192
    for _ in range(FLUSH_CHARS // len(chunk) - 1):
        recorder.record(chunk)
    recorder.wait_written()
    assert recorder.cast_path.stat().st_size == header_size
    recorder.record(chunk)
    recorder.wait_written()
    assert recorder.cast_path.stat().st_size > FLUSH_CHARS
    recorder.close()
    events = _cast_lines(recorder.cast_path)[1:]
    assert "".join(e[2] for e in events) == "x" * FLUSH_CHARS


def test_a_marker_is_an_asciicast_m_event_without_control_characters(tmp_path):
    clock = FakeClock()
    recorder = SessionRecorder(tmp_path, "demo", 80, 24, clock=clock)
    recorder.record(b"before\r\n")
    clock.now += 2.5
    recorder.mark("compaction #3\x1b[31m, auto")
    recorder.close()
    lines = _cast_lines(recorder.cast_path)
    assert lines[-1] == [2.5, "m", "compaction #3[31m, auto"]


def test_a_recording_that_cannot_grow_stops_with_its_reason(tmp_path):
    """The file size limit (RLIMIT_FSIZE) makes a write fail for real, in a process of
    its own: the recording stops, says why, and the run goes on."""
    script = f"""
import resource, signal, sys
sys.path.insert(0, {str(REPO)!r})
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
from supervisor.terminal.recorder import SessionRecorder
recorder = SessionRecorder({str(tmp_path)!r}, "demo", 80, 24)
for _ in range(64):
    recorder.record(b"y" * 8192)
recorder.close()
print(recorder.error)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("recording stopped: cannot write")


def test_event_lines_are_what_json_dumps_writes(tmp_path):
    """The hand-made event line (ASCII fast path, UTF-8 otherwise) holds the same event
    as ``json.dumps(..., ensure_ascii=False)``'s, byte for byte but for DEL (``\\u007f``
    from the ASCII escaper): every control, quote and backslash escaped, non-ASCII kept
    as UTF-8."""
    from supervisor.terminal.recorder import _event_line

    texts = [
        "plain log line\r\n",
        'quote " back \\ tab \t bell \x07 esc \x1b[1m nul \x00 del \x7f \x1f',
        "box ─│╭ ✓ 🎉 é\r\n\x1b[0m",
        "",
    ]
    for offset in (0.0, 1e-05, 12.3456789, 100000.123456):
        for text in texts:
            expected = json.dumps([round(offset, 6), "o", text], ensure_ascii=False) + "\n"
            assert _event_line(offset, "o", text) == expected.encode().replace(b"\x7f", b"\\u007f")
            assert json.loads(_event_line(offset, "o", text)) == [round(offset, 6), "o", text]


class _DecodingRecorder(SessionRecorder):
    """The recorder as it was before output was kept as bytes: every chunk decoded
    and escaped as text. The oracle the byte path must match, byte for byte."""

    def record(self, data: bytes) -> None:
        if self.closed or self.stopped:
            return
        text = self._decoder.decode(data)
        now = self._clock()
        if text:
            self._events.append((now - self._start, "o", text))
            self._buffered += len(text)
        if self._buffered >= FLUSH_CHARS or now - self._last_flush >= FLUSH_INTERVAL:
            self.flush()


# Bytes that need escaping or end a character, and runs of plain text between them.
_ODD = (b"\r\n", b"\r", b"\n", b'"', b"\\", b"\x7f", b"\x1b[1m", b"\t", b"\x00", b"\x08", b"\x0c")
_PIECE = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([*_ODD, b"\x1f", "é✓🎉─".encode(), b"\xe2\x94", b"\x80", b"\xf0\x9f\x8e"]),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=60).map(str.encode),
    st.sampled_from([b"log line " * 130, "box ─│ ✓ ".encode() * 100]),  # past MIN_BYTES
)


@contextmanager
def _min_bytes(size: int):
    """Chunks from ``size`` bytes on escaped as bytes (0: every one of them)."""
    saved, recorder_module.MIN_BYTES = recorder_module.MIN_BYTES, size
    try:
        yield
    finally:
        recorder_module.MIN_BYTES = saved


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reads=st.lists(st.lists(_PIECE, max_size=4).map(b"".join), max_size=16),
    cuts=st.lists(st.floats(0, 1), max_size=16),
    steps=st.lists(st.sampled_from([0.0, 0.001, 0.3, 0.7]), min_size=1, max_size=5),
    cap=st.sampled_from([1 << 30, 6000, 4500, 4096 + 200]),
    min_bytes=st.sampled_from([0, recorder_module.MIN_BYTES]),
)
def test_output_kept_as_bytes_writes_the_cast_the_decoding_recorder_wrote(
    tmp_path_factory, reads, cuts, steps, cap, min_bytes
):
    """Arbitrary bytes cut at arbitrary points (a UTF-8 character across two chunks, a
    quote, a backslash, DEL, every control): the .cast is the same bytes as the decoding
    recorder's, the cap's last word included, and its events give back the text."""
    chunks = []
    for i, read in enumerate(reads):  # each read cut once more, anywhere (or not at all)
        at = round(cuts[i] * len(read)) if i < len(cuts) else len(read)
        chunks += [read[:at], read[at:]]
    stream = b"".join(chunks)
    casts = []
    for kind in (SessionRecorder, _DecodingRecorder):
        clock = FakeClock()
        recorder = kind(tmp_path_factory.mktemp("rec"), "demo", 80, 24, cap_bytes=cap, clock=clock)
        with _min_bytes(min_bytes):
            for i, chunk in enumerate(chunks):
                clock.now += steps[i % len(steps)]
                recorder.record(chunk)
            recorder.close()
        casts.append(recorder.cast_path.read_bytes().split(b"\n", 1))
    (new_header, new), (old_header, old) = casts
    assert new == old
    assert {**json.loads(new_header), "timestamp": 0} == {**json.loads(old_header), "timestamp": 0}
    events = [json.loads(line) for line in new.splitlines()]
    if cap == 1 << 30:
        text = "".join(e[2] for e in events if e[1] == "o")
        assert text == stream.decode("utf-8", "replace")


def test_every_byte_is_escaped_as_the_json_escaper_of_its_text_does(monkeypatch):
    """ASCII as ``encode_basestring_ascii`` (DEL as ``\\u007f``), UTF-8 as
    ``encode_basestring`` (DEL and characters as they are): one kind of byte to escape
    among plain text (a replace), every kind (the escaper), or most bytes escaped."""
    from json.encoder import encode_basestring, encode_basestring_ascii

    from supervisor.terminal.recorder import _ASCII, _UTF8, _escape_bytes

    every = bytes(range(128))
    monkeypatch.setattr(recorder_module, "MIN_BYTES", 0)  # short samples: as bytes too
    for tail in (b"", "é─✓🎉".encode()):
        escaper, escape = (_UTF8, encode_basestring) if tail else (_ASCII, encode_basestring_ascii)
        samples = [every + tail, every + b"x" * 1000 + tail, b"\x1b[K" * 50 + tail]
        samples += [bytes([byte]) * 3 + b"x" * 40 + b"\r\n" + tail for byte in every]
        for sample in samples:
            expected = escape(sample.decode()).encode()
            assert b'"' + _escape_bytes(sample, escaper) + b'"' == expected, sample


def test_a_recording_that_stops_says_so_once_and_marks_the_cast_where_it_still_can(tmp_path):
    """A full disk tore the .cast at 4,096 bytes with no marker, no event, no message.
    Here the first write of the flush goes in half and then fails (ENOSPC); the space
    comes back: the torn line is ended and the marker follows it, on a line of its own."""
    import errno

    failures = []
    calls = {"n": 0}

    def disk_full_once(fd: int, data: memoryview) -> int:
        calls["n"] += 1
        if calls["n"] == 2:  # the header went in; the first output goes in half, then fails
            written = os.write(fd, data[: len(data) // 2])
            assert written
            return written
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)

    clock = FakeClock()
    recorder = SessionRecorder(
        tmp_path, "demo", 80, 24, clock=clock, on_failure=failures.append, write=disk_full_once
    )
    recorder.flush()  # the header
    recorder.record(b"x" * 5000)
    clock.now += 1.0
    recorder.flush()
    recorder.record(b"lost\r\n")
    recorder.close()
    assert [f.reason for f in failures] == ["No space left on device"]
    assert failures[0].path == recorder.cast_path
    assert recorder.error == failures[0].message
    lines = recorder.cast_path.read_bytes().split(b"\n")
    marker = json.loads(lines[-2])
    assert marker[1] == "m" and "recording stopped" in marker[2] and "No space left" in marker[2]
    assert b"lost" not in recorder.cast_path.read_bytes()
    assert "recording stopped" in recorder.txt_path.read_text()


def test_a_file_size_limit_tells_the_listener_and_the_text_file(tmp_path):
    """RLIMIT_FSIZE for real: the .cast cannot take its marker (it is at the limit), the
    .txt can; the listener hears of it once."""
    script = f"""
import resource, signal, sys
sys.path.insert(0, {str(REPO)!r})
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
from supervisor.terminal.recorder import SessionRecorder
heard = []
recorder = SessionRecorder({str(tmp_path)!r}, "demo", 80, 24, on_failure=heard.append)
for _ in range(64):
    recorder.record(b"y" * 8192)
recorder.close()
print(len(heard), heard[0].errno, recorder.txt_path.read_text().strip())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    count, code, text = done.stdout.split(" ", 2)
    assert (count, code) == ("1", "27")  # EFBIG
    assert text.startswith("[tether: recording stopped: cannot write") and "File too large" in text
