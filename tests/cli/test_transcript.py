"""`tether transcript`: a recording rendered through the emulator into the whole text, even
after the supervisor was killed."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time

import pytest
from ptyprocess import PtyProcess

from supervisor.agents import hook_folders
from supervisor.errors import TetherError
from supervisor.terminal.session import default_emulator
from supervisor.terminal.transcript import find_session, render
from tests.locations import REPO
from tests.tether_process import run_tether


def write_cast(path, events, *, torn: str = "") -> None:
    header = {"version": 2, "width": 40, "height": 5}
    lines = [json.dumps(header)] + [json.dumps(event) for event in events]
    path.write_text("\n".join(lines) + "\n" + torn)


def transcript(path) -> list[str]:
    with open(path, "rb") as handle:
        return list(render(handle, str(path), default_emulator))


def test_each_screen_before_a_clear_and_the_last_screen_are_in_the_transcript(tmp_path):
    cast = tmp_path / "s.cast"
    write_cast(
        cast,
        [
            [0.1, "o", "line one\r\nline two\r\n"],
            [0.5, "m", "compaction #1"],
            [1.0, "o", "drawn in place\x1b["],  # the clear is split across two reads
            [1.2, "o", "2J\x1b[Hnew screen\r\n"],
            [2.0, "r", "50x5"],
            [2.5, "o", "".join(f"row {n}\r\n" for n in range(8))],
        ],
        torn='[3.0, "o", "never fin',
    )
    text = transcript(cast)
    cleared = text.index("--- the screen at 1.2 s, before it was cleared ---")
    assert text[cleared + 1 : cleared + 4] == ["line one", "line two", "drawn in place"]
    assert "--- marker at 0.5 s: compaction #1 ---" in text
    assert text.index("new screen") > cleared  # scrolled off, in order
    last = text.index("--- the last screen, at 2.5 s ---")
    assert text[last + 1 :] == ["row 4", "row 5", "row 6", "row 7"]
    assert text[last - 3 : last] == ["row 1", "row 2", "row 3"]


def test_a_line_that_is_no_event_is_named_with_its_file_and_line(tmp_path):
    cast = tmp_path / "s.cast"
    write_cast(cast, [[0.1, "o", "fine"], {"not": "an event"}, [0.2, "o", "x"]])
    with pytest.raises(TetherError, match=r"s\.cast:3: not an asciicast event"):
        transcript(cast)


def test_a_session_is_found_by_part_of_its_name_or_is_the_newest(tmp_path):
    for name in ("20260501T090000Z-demo", "20260502T090000Z-claude"):
        write_cast(tmp_path / f"{name}.cast", [])
    assert find_session(tmp_path, None).stem == "20260502T090000Z-claude"
    assert find_session(tmp_path, "demo").stem == "20260501T090000Z-demo"
    with pytest.raises(TetherError, match="matches 2 recordings"):
        find_session(tmp_path, "2026")
    with pytest.raises(TetherError, match="no recordings in"):
        find_session(tmp_path / "none", None)


AGENT = (
    "printf 'the first screen, about to be cleared\\n'; sleep 0.5; clear; "
    "printf 'on screen when tether was killed\\n'; sleep 120"
)


def test_after_a_sigkill_of_tether_the_transcript_holds_the_last_screen(tmp_path, shell_env):
    temp = tmp_path / "tmp"  # where the killed tether's hook folder is left
    temp.mkdir()
    env = dict(shell_env, PYTHONPATH=str(REPO), TERM="xterm-256color", TMPDIR=str(temp))
    tether = PtyProcess.spawn(
        [sys.executable, "-m", "supervisor.cli", "run", "--", "sh", "-c", AGENT],
        cwd=str(tmp_path),
        env=env,
        dimensions=(30, 160),
    )
    sessions = tmp_path / ".tether" / "sessions"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if tether.fd in select.select([tether.fd], [], [], 0.1)[0]:
                try:
                    tether.read(65536)  # keep the screen flowing
                except EOFError:
                    break
            casts = list(sessions.glob("*.cast")) if sessions.is_dir() else []
            if casts and "killed" in casts[0].read_text(errors="replace"):
                break
        else:
            pytest.fail("the recording never got the second screen")
        os.kill(tether.pid, signal.SIGKILL)
    finally:
        tether.terminate(force=True)
    assert hook_folders.sweep(str(temp)) == 1  # what the next start sweeps
    txt = next(sessions.glob("*.txt")).read_text()
    assert "on screen when tether was killed" not in txt  # what the .txt alone misses
    result = run_tether("transcript", "--dir", str(tmp_path), env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    cleared = next(i for i, line in enumerate(lines) if "before it was cleared" in line)
    assert lines[cleared + 1] == "the first screen, about to be cleared"
    last = next(i for i, line in enumerate(lines) if line.startswith("--- the last screen"))
    assert lines[last + 1] == "on screen when tether was killed"


def test_claude_codes_clear_keeps_the_conversation_before_it_in_the_transcript():
    """Claude Code clears by going home and erasing row by row: the real capture of a /clear."""
    from tests.locations import CAPTURES

    text = transcript(CAPTURES / "cc-clear.cast")
    cleared = next(i for i, line in enumerate(text) if "before it was cleared" in line)
    last = next(i for i, line in enumerate(text) if line.startswith("--- the last screen"))
    assert "● FAKE-REPLY 1: ack 'hello fake model'" in text[cleared:last]
    assert "● FAKE-REPLY 1: ack 'after clear'" in text[last:]
