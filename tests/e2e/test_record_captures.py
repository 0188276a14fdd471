"""The capture recorder itself, on a small real child in a real PTY (no agent needed).

What the replay tests trust about a capture: the ``.raw`` is the reads joined, the
``.cast`` carries the same bytes, marker offsets point at the marker's bytes even when
its words are placed with cursor moves, and the screen offset is a read boundary after
which the marker is visible.
"""

from __future__ import annotations

import json
import sys

from tests.e2e.capture_events import Marker, events_json, texts_on_screen
from tests.e2e.capture_take import cast_text, trimmed_transcript
from tests.e2e.pty_recorder import PtyRecorder
from tests.e2e.record_captures import CX, selected

# Prints a word-by-word line as Claude Code does (CSI n G between words), waits for a
# line of input, echoes it, then exits 3.
CHILD = r"""
import sys
sys.stdout.write("\x1b[?2004h\x1b]0;child\x07ready\x1b[7Gto\x1b[10Ggo\r\n")
sys.stdout.flush()
line = sys.stdin.readline().strip()
sys.stdout.write("got: " + line + "\r\n\x1b[?2004l")
sys.stdout.flush()
sys.exit(3)
"""


def _record(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color"}
    recorder = PtyRecorder([sys.executable, str(script)], env, tmp_path, cols=40, rows=10)
    try:
        recorder.wait_screen(r"ready to go", timeout=20)
        recorder.type_line("hello", enter_delay=0.2)
        recorder.wait_screen(r"got: hello", timeout=20)
        assert recorder.wait_exit(timeout=20) == {"signaled": False, "exit_code": 3}
    finally:
        recorder.close()
    return recorder.recording


def test_a_recording_keeps_every_byte_and_places_markers_on_bytes_and_screen(tmp_path):
    recording = _record(tmp_path)
    raw = recording.raw
    markers = [
        Marker("ready", "ready to go"),
        Marker("echo", "got: hello", search_from=recording.inputs[0][1]),
        Marker("paste_off", data=b"\x1b[?2004l"),
        Marker("absent", "never printed"),
    ]
    meta = events_json("child", recording, markers)
    chunks = meta["read_chunks"]["list"]
    assert sum(length for _, _, length in chunks) == len(raw) == meta["raw_bytes"]
    events = {e["kind"]: e for e in meta["events"]}
    ready = events["ready"]
    assert raw[ready["raw_offset"] : ready["raw_end"]] == b"ready\x1b[7Gto\x1b[10Ggo"
    assert ready["contiguous_in_raw"] is False and ready["occurrences_in_stream"] == 1
    assert ready["screen"]["after_raw_offset"] in {o + n for _, o, n in chunks}
    assert events["echo"]["contiguous_in_raw"] is True
    assert raw[events["paste_off"]["raw_offset"] :].startswith(b"\x1b[?2004l")
    assert meta["markers_not_found"] == [{"kind": "absent", "marker": "never printed"}]
    assert [e["data"] for e in meta["events"] if e["kind"] == "input"] == ["hello", "\r"]
    assert events["process_exit"]["detail"] == {"signaled": False, "exit_code": 3}
    assert meta["window_titles"]["distinct"][0]["title"] == "child"
    [(text, read_start)] = texts_on_screen(recording, r"got: \w+")
    assert text == "got: hello" and read_start <= raw.find(b"got: hello")

    lines = cast_text(recording).splitlines()
    header = json.loads(lines[0])
    assert (header["version"], header["width"], header["height"]) == (2, 40, 10)
    body = [json.loads(line) for line in lines[1:]]
    assert "".join(text for _, kind, text in body if kind == "o").encode() == raw
    assert [text for _, kind, text in body if kind == "i"] == ["hello", "\r"]


def test_a_killed_child_is_recorded_as_signalled(tmp_path):
    script = tmp_path / "sleeper.py"
    script.write_text("import time\nprint('up', flush=True)\ntime.sleep(60)\n")
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm-256color"}
    recorder = PtyRecorder([sys.executable, str(script)], env, tmp_path, cols=40, rows=10)
    try:
        recorder.wait_screen("up", timeout=20)
        recorder.kill()
        detail = recorder.wait_exit(timeout=20)
    finally:
        recorder.close()
    assert detail == {"signaled": True, "signal": 9, "shell_status": 137}
    assert [e["kind"] for e in recorder.recording.process][-3:] == [
        "process_kill",
        "process_eof",
        "process_exit",
    ]


def test_transcripts_lose_only_the_long_strings_of_bulky_lines():
    bulky = {"type": "attachment", "attachment": {"type": "prompt_snapshot", "text": "x" * 5000}}
    kept = {"type": "user", "message": {"content": "y" * 5000}}
    data = "\n".join(json.dumps(e) for e in (bulky, kept)).encode() + b"\n{torn"
    out, changed = trimmed_transcript(data)
    first, second, torn = out.split(b"\n")
    assert changed == 1 and torn == b"{torn"
    assert json.loads(second) == kept
    small = json.loads(first)
    assert small["attachment"]["type"] == "prompt_snapshot"
    assert small["attachment"]["text"].startswith("<elided by record_captures: 5002 ")


def test_a_resume_brings_the_run_it_continues():
    names = [s.name for s in selected([f"{CX}-resume"])]
    assert names == [f"{CX}-compact-manual", f"{CX}-resume"]
