"""Regenerate ``tests/fixtures/captures/screens/`` from tmux, an independent emulator.

``<capture>.txt`` is the final screen of each ``.raw`` capture;
``<capture>.checkpoints.txt`` holds the screen at every point where the recorder
typed something (the ``input`` events' ``raw_offset`` in ``<capture>.events.json``),
i.e. what the user saw: banners, spinners, Codex's alternate screen.

Each byte prefix is written, byte for byte, to a detached tmux pane of
120x40 by a child that first puts its terminal in raw mode (so the pty's line
discipline does not turn ``\\n`` into ``\\r\\n``); once it has written everything,
``tmux capture-pane -p`` gives the final screen, stored with trailing spaces
stripped. tmux runs on its own socket with no config and no status line.

Run from the checkout: ``.venv/bin/python -m tests.make_replay_screens`` does every
capture; ``... make_replay_screens cc332 cx171-clear`` only those named (a name, or the
prefix before a ``-``); ``--missing`` only the captures that have no screens yet.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.locations import CAPTURES
from tests.locations import SCREENS as OUT

COLS, ROWS = 120, 40
SOCKET = "tether-replay-ref"

WRITER = """
import os, sys, time, tty
tty.setraw(1)
data = open(sys.argv[1], "rb").read()
view = memoryview(data)
while view:
    view = view[os.write(1, view):]
open(sys.argv[2], "w").close()
time.sleep(600)
"""


def tmux(*args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", SOCKET, "-f", "/dev/null", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def checkpoints(raw: Path) -> list[int]:
    """Byte offsets (read boundaries) at which the recorder sent input."""
    events = json.loads(raw.with_suffix(".events.json").read_text())["events"]
    size = raw.stat().st_size
    return sorted({e["raw_offset"] for e in events if e["kind"] == "input"} - {0, size})


def reference_screen(data: bytes, workdir: Path) -> str:
    """Screen after ``data`` in a 120x40 tmux pane, trailing spaces stripped."""
    raw = workdir / "chunk.raw"
    raw.write_bytes(data)
    done = workdir / "chunk.done"
    done.unlink(missing_ok=True)
    writer = workdir / "writer.py"
    writer.write_text(WRITER)
    cmd = " ".join(shlex.quote(a) for a in (sys.executable, str(writer), str(raw), str(done)))
    for attempt in range(50):  # the server of the previous capture may still be exiting
        try:
            tmux("new-session", "-d", "-s", "ref", "-x", str(COLS), "-y", str(ROWS), cmd)
            break
        except subprocess.CalledProcessError:
            if attempt == 49:
                raise
            time.sleep(0.1)
    try:
        tmux("set-option", "-g", "status", "off")
        tmux("resize-window", "-t", "ref", "-x", str(COLS), "-y", str(ROWS))
        size = tmux("display-message", "-p", "-t", "ref", "#{pane_width}x#{pane_height}").strip()
        if size != f"{COLS}x{ROWS}":
            raise SystemExit(f"tmux pane is {size}, expected {COLS}x{ROWS}")
        deadline = time.monotonic() + 30
        while not done.exists():
            if time.monotonic() > deadline:
                raise SystemExit("timed out writing to tmux")
            time.sleep(0.05)
        time.sleep(0.5)  # let tmux parse everything the writer wrote
        text = tmux("capture-pane", "-p", "-t", "ref")
    finally:
        tmux("kill-session", "-t", "ref")
    lines = [line.rstrip() for line in text.split("\n")[:ROWS]]
    lines += [""] * (ROWS - len(lines))
    return "\n".join(lines) + "\n"


def chosen(raws: list[Path], names: list[str], missing: bool) -> list[Path]:
    """The captures asked for: by name, or by prefix (``cc332`` is every ``cc332-*``) when
    no capture has that exact name."""
    stems = {raw.stem for raw in raws}

    def wanted(stem: str, name: str) -> bool:
        return stem == name if name in stems else stem.startswith(f"{name}-")

    unknown = [n for n in names if not any(wanted(stem, n) for stem in stems)]
    if unknown:
        raise SystemExit(f"no capture named {', '.join(unknown)} in {CAPTURES}")
    picked = [raw for raw in raws if not names or any(wanted(raw.stem, n) for n in names)]
    if missing:
        picked = [raw for raw in picked if not (OUT / f"{raw.stem}.txt").is_file()]
    return picked


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="captures or name prefixes (default: all)")
    parser.add_argument("--missing", action="store_true", help="only captures with no screens")
    args = parser.parse_args(argv)
    if not CAPTURES.is_dir():
        raise SystemExit(f"captures not found at {CAPTURES}")
    OUT.mkdir(exist_ok=True)
    raws = chosen(sorted(CAPTURES.glob("*.raw")), args.names, args.missing)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for raw in raws:
                data = raw.read_bytes()
                (OUT / f"{raw.stem}.txt").write_text(reference_screen(data, Path(tmp)))
                blocks = [
                    f"@@ offset {offset}\n" + reference_screen(data[:offset], Path(tmp))
                    for offset in checkpoints(raw)
                ]
                (OUT / f"{raw.stem}.checkpoints.txt").write_text("".join(blocks))
                print(f"wrote {raw.stem}.txt and {len(blocks)} checkpoints")
        finally:
            subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
