"""Payload build time and key-to-last-byte time on a large `.tether/`.

Not a test: it prints figures for people. The large folder holds 100,000
artifact lines, 100,000 events (the only incident at the very start, the worst
case for finding the latest incident from the tail), 10,000 checkpoints, and
notes with 300 Done items so the budget has work to do. The payload reads the
artifact tail and one checkpoint, never whole files.

    .venv/bin/python bench/payload_timings.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import large_store  # noqa: E402
from supervisor.config.profiles import load_profile  # noqa: E402
from supervisor.rehydrate.injector import Injector  # noqa: E402
from supervisor.rehydrate.payload import build_payload, latest_incident  # noqa: E402
from supervisor.rehydrate.tokens import count_tokens  # noqa: E402
from supervisor.store import checkpoints, notes  # noqa: E402
from supervisor.store.tether_dir import TetherDir  # noqa: E402
from supervisor.terminal.session import AgentSession  # noqa: E402

CHILD = textwrap.dedent(
    """
    import os, sys, tty
    tty.setraw(0)
    os.write(1, b"\\x1b[?2004hREADY\\r\\n")
    while os.read(0, 65536):
        pass
    """
)


def _fill_notes(tether: TetherDir) -> None:
    text = tether.read_notes()
    stamp = "2026-01-01T00:00:00.000Z"
    for i in range(12):
        text = notes.apply_note(
            text, "decision", f"decision {i}: keep batch size {i * 10} MB", stamp
        )
    for i in range(300):
        text = notes.apply_note(text, "done", f"converted batch {i} of the reports, checked", stamp)
    for i in range(40):
        text = notes.apply_note(text, "unproven", f"batch {i} totals match", stamp)
    text = notes.apply_note(text, "next", "convert report 100000", stamp)
    tether.write_notes(text)


def make_large(work: Path, artifacts: int, events: int, checkpoint_count: int) -> TetherDir:
    goal = "convert the 100,000 legacy reports"
    return large_store.make_large(
        work, artifacts, events, checkpoint_count, goal=goal, trigger="auto", fill_notes=_fill_notes
    )


def timed(fn, runs: int) -> tuple[float, float, float]:
    """Median and worst wall time, and median CPU time of this process, in milliseconds."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        fn()
        walls.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpus.append(
            ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
        )
    return statistics.median(walls), max(walls), statistics.median(cpus)


def timed_process(command: list[str], runs: int, stdin: bytes = b"") -> tuple[float, float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, input=stdin, check=True, capture_output=True)
        walls.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(
            ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000
        )
    return statistics.median(walls), max(walls), statistics.median(cpus)


async def key_to_last_byte(tether: TetherDir, text: str, runs: int, folder: Path) -> list[float]:
    """From ``request()`` (what the rehydrate key calls) to the submit key written, in ms."""
    script = folder / "child.py"
    script.write_text(CHILD)
    session = AgentSession([sys.executable, str(script)])
    loop = asyncio.get_running_loop()
    session.start(loop)
    while not session.emulator.modes.bracketed_paste:
        await asyncio.sleep(0.01)
    done: list[float] = []
    real_submit_write = session.write
    profile = load_profile("demo")
    results: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        finished = asyncio.Event()

        def write(
            data: bytes, started: float = started, finished: asyncio.Event = finished
        ) -> None:
            real_submit_write(data)
            if data == profile.submit_key.encode():
                done.append((time.perf_counter() - started) * 1000)
                finished.set()

        session.write = write  # type: ignore[method-assign]
        injector = Injector(session, profile, tether, lambda: True, call_later=loop.call_later)
        injector.request(text, "bench")
        await finished.wait()
        results.append(done[-1])
    session.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    count_tokens("warm up")  # the tokenizer loads once per process; measured separately below
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        work = folder / "large"
        work.mkdir()
        start = time.perf_counter()
        tether = make_large(work, 100_000, 100_000, 10_000)
        print(f"built the large store in {time.perf_counter() - start:.1f} s")
        profile = load_profile("claude")
        last = checkpoints.latest_seq(tether)
        payload = build_payload(tether, profile, incident=latest_incident(tether))
        print(f"payload: {payload.describe()}")
        rows = [
            ("build_payload, live files, budget 6000", lambda: build_payload(tether, profile)),
            (
                "build_payload, live + latest incident (100k events back)",
                lambda: build_payload(tether, profile, incident=latest_incident(tether)),
            ),
            (
                f"build_payload from checkpoint #{last} (of 10,000)",
                lambda: build_payload(tether, profile, checkpoint=checkpoints.latest_seq(tether)),
            ),
            (
                "build_payload, budget 1000 (drops 300+ items)",
                lambda: build_payload(tether, profile, budget=1000),
            ),
            ("latest_incident alone", lambda: latest_incident(tether)),
        ]
        print(f"{'in process (tokenizer warm)':<60} {'median ms':>10} {'max ms':>8} {'cpu ms':>7}")
        for label, fn in rows:
            median, worst, cpu = timed(fn, args.runs)
            print(f"{label:<60} {median:>10.1f} {worst:>8.1f} {cpu:>7.1f}")
        tether_cli = [sys.executable, "-m", "supervisor"]
        print(f"{'whole processes':<60} {'median ms':>10} {'max ms':>8} {'cpu ms':>7}")
        processes = [
            ("python -c pass (baseline)", [sys.executable, "-c", "pass"], b""),
            (
                "tether payload (cold tokenizer load included)",
                [*tether_cli, "payload", "--profile", "claude", "--dir", str(work)],
                b"",
            ),
        ]
        if (REPO / "supervisor" / "cmd_hook.py").exists():
            hook_input = json.dumps(
                {"hook_event_name": "SessionStart", "source": "compact", "cwd": str(work)}
            ).encode()
            processes.append(
                (
                    "tether hook SessionStart (source compact: answers)",
                    [*tether_cli, "hook", "SessionStart", "--dir", str(work)],
                    hook_input,
                )
            )
        for label, command, stdin in processes:
            median, worst, cpu = timed_process(command, max(3, args.runs // 3), stdin)
            print(f"{label:<60} {median:>10.1f} {worst:>8.1f} {cpu:>7.1f}")
        latencies = asyncio.run(key_to_last_byte(tether, payload.text, args.runs, folder))
        print(
            f"{'key press to last byte (checkpoint w/ git + paste + 50 ms + submit)':<60} "
            f"{statistics.median(latencies):>10.1f} {max(latencies):>8.1f}"
        )


if __name__ == "__main__":
    main()
