"""A writer for the crash-safety tests, and the checks run on what it leaves behind.

``python tests/crash_writer.py serve`` imports the store once, then for every
``run WORK_DIR RUN DELAY`` line on stdin forks a child that writes notes,
progress, artifacts, events and checkpoints in a loop, printing ``ack ...`` to
stdout after each write returns. The server SIGKILLs the child DELAY seconds
after its loop began, reaps it, and prints ``done``. Forking from a warm server keeps each
run to a few milliseconds, so a test can afford hundreds of real kills.

:func:`verify` states what must hold afterwards: every file parses, every
acknowledged write is on disk, and ``check`` tells the truth.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from supervisor.errors import TetherError
from supervisor.store import checkpoints, invariant
from supervisor.store.notes import Document
from supervisor.store.tether_dir import TetherDir, init
from tests.store_records import append_artifact, read_jsonl


def _ack(text: str) -> None:
    os.write(1, (f"ack {text}\n").encode())


def write_loop(work: Path, run: str, ready_fd: int | None = None) -> None:
    """Write forever (until killed), acknowledging each write after it returned."""
    tether = TetherDir.at(work)
    invariant.fix(tether, source="writer-start")  # what a supervisor does at start
    if ready_fd is not None:
        os.write(ready_fd, b"r")
        os.close(ready_fd)
    kinds = ("artifact", "progress", "note", "event", "checkpoint")
    # Each run starts at another kind of write, so every kind meets the kill
    # even when a loaded machine makes the loop slower than the kill delay.
    first = sum(map(ord, run)) % len(kinds)
    index = 0
    for position in range(first, 5_000_000):
        step, kind = divmod(position, len(kinds))
        token = f"{run}-{step}"
        if kind == 0:
            last, _ = tether.last_artifact()
            index = last["index"] + 1 if last else 0
            append_artifact(tether, index=index, token=token)
            _ack(f"artifact {token}")
        elif kind == 1:
            last, _ = tether.last_artifact()
            cursor = last["index"] + 1 if last else 0
            tether.set_progress(cursor=cursor, phase=f"run {run}")
            _ack(f"progress {cursor}")
        elif kind == 2:
            tether.add_note("done", f"item {token}")
            _ack(f"note {token}")
        elif kind == 3:
            tether.record_event("writer", "crash-test", token=token)
            _ack(f"event {token}")
        else:
            checkpoint = checkpoints.take(tether, f"writer {token}", with_git=False)
            _ack(f"checkpoint {checkpoint.seq}")


def serve() -> None:
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] != "run":
            continue
        work, run, delay = Path(parts[1]), parts[2], float(parts[3])
        ready_read, ready_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: write until killed
            try:
                os.close(ready_read)
                write_loop(work, run, ready_write)
            finally:
                os._exit(0)
        os.close(ready_write)
        # Count the delay from the start of the write loop, so a loaded machine
        # still kills mid-write rather than always during start-up.
        os.read(ready_read, 1)
        os.close(ready_read)
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.write(1, f"done {run}\n".encode())


@dataclass
class Acks:
    """Everything the writer reported done, over all runs so far."""

    artifacts: set[str] = field(default_factory=set)
    notes: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    checkpoints: set[int] = field(default_factory=set)
    last_progress: int | None = None  # in the latest run

    def take(self, line: str) -> None:
        _, what, value = line.split(" ", 2)
        if what == "artifact":
            self.artifacts.add(value)
        elif what == "note":
            self.notes.add(value)
        elif what == "event":
            self.events.add(value)
        elif what == "checkpoint":
            self.checkpoints.add(int(value))
        elif what == "progress":
            self.last_progress = int(value)


def prepare(work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)
    init(work, "survive SIGKILL")


def verify(work: Path, acks: Acks, kills: int) -> list[str]:
    """What is wrong on disk (empty when all is well)."""
    tether = TetherDir.at(work)
    wrong: list[str] = []
    try:
        notes_text = tether.read_notes()
        Document.parse(notes_text)
        tether.read_task()
        progress = tether.read_progress()
    except TetherError as error:
        return [f"a file does not parse: {error}"]
    artifacts, bad_artifacts = read_jsonl(tether.artifacts)
    events, bad_events = read_jsonl(tether.events)
    if len(bad_artifacts) > kills or len(bad_events) > kills:
        wrong.append(f"more bad lines than kills: {bad_artifacts + bad_events}")
    tokens = {a.get("token") for a in artifacts}
    if missing := acks.artifacts - tokens:
        wrong.append(f"acknowledged artifacts missing: {sorted(missing)[:5]}")
    event_tokens = {e.get("token") for e in events}
    if missing := acks.events - event_tokens:
        wrong.append(f"acknowledged events missing: {sorted(missing)[:5]}")
    if missing := {n for n in acks.notes if f"- item {n}\n" not in notes_text}:
        wrong.append(f"acknowledged notes missing: {sorted(missing)[:5]}")
    for seq in acks.checkpoints:
        try:
            checkpoints.load(tether, seq)
        except TetherError as error:
            wrong.append(f"acknowledged checkpoint {seq}: {error}")
    for seq in checkpoints.list_seqs(tether):
        try:
            checkpoints.load(tether, seq)
        except TetherError as error:
            wrong.append(f"checkpoint file does not parse: {error}")
    if acks.last_progress is not None and not (
        acks.last_progress <= progress.cursor <= acks.last_progress + 1
    ):
        wrong.append(f"progress {progress.cursor}, last acknowledged {acks.last_progress}")
    # The truth, computed the slow way, against what `check` says.
    last_index = artifacts[-1]["index"] if artifacts else None
    expected = 0 if last_index is None else last_index + 1
    verdict = invariant.check(tether)
    if verdict.expected_cursor != expected or verdict.last_index != last_index:
        wrong.append(f"check says last index {verdict.last_index}, the file says {last_index}")
    if verdict.ok != (progress.cursor == expected):
        wrong.append(f"check says ok={verdict.ok} for cursor {progress.cursor} vs {expected}")
    if not verdict.ok and str(progress.cursor) not in verdict.message:
        wrong.append(f"check message lacks the cursor: {verdict.message}")
    return wrong


class Server:
    """The warm writer process, driven from a test or the soak script."""

    def __init__(self) -> None:
        import subprocess

        self.process = subprocess.Popen(
            [sys.executable, __file__, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def run(self, work: Path, run: str, delay: float, acks: Acks) -> None:
        assert self.process.stdin and self.process.stdout
        acks.last_progress = None
        self.process.stdin.write(f"run {work} {run} {delay:.4f}\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith("ack "):
                acks.take(line.rstrip("\n"))
            elif line.startswith("done "):
                return
        raise RuntimeError("the writer server died")

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait(timeout=10)


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        print(__doc__)
        sys.exit(2)
