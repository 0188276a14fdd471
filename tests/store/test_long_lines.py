"""Long JSONL lines cost what they weigh: reading backwards and following are linear in
what they read, and a tail reads a bounded part of the file however long its lines.

The work bounds are CPU-time limits on a child process (``RLIMIT_CPU``): a measure of
work done, not of the wall clock, so a busy machine does not change the verdict. Each is
ten times or more what the linear code needs, and a fraction of what the old one took.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

from supervisor.store import fsio
from supervisor.store.jsonl_tail import LINE_LIMIT as FOLLOW_LINE_LIMIT
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.store.tether_dir import init
from supervisor.store.watcher import JsonlFollower
from tests.tether_process import TETHER

MB = 1024 * 1024


def _cpu_limited(seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))


def run_with_cpu_limit(
    argv: list[str], cwd: Path, seconds: int, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv``; the kernel ends it (SIGXCPU) once it has used ``seconds`` of CPU.
    The wall-clock timeout is only a hang guard."""
    return subprocess.run(
        argv,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: _cpu_limited(seconds),
    )


def event_line(size: int, kind: str = "note") -> bytes:
    record = {"at": "2026-01-01T00:00:00Z", "kind": kind, "source": "test", "blob": "a" * size}
    return json.dumps(record).encode() + b"\n"


def test_tether_status_and_session_start_hook_read_past_a_15_mb_event_line_cheaply(
    tmp_path: Path,
) -> None:
    init(tmp_path, goal="g")
    with open(tmp_path / ".tether" / "events.jsonl", "ab") as events:
        events.write(event_line(15 * MB))
    status = run_with_cpu_limit([*TETHER, "status"], tmp_path, seconds=3)
    assert status.returncode == 0, status.stderr.decode()
    hook = run_with_cpu_limit(
        [*TETHER, "hook", "SessionStart"], tmp_path, seconds=3, stdin=b'{"source": "compact"}'
    )
    assert hook.returncode == 0, hook.stderr.decode()
    assert b"additionalContext" in hook.stdout


def test_reading_backwards_yields_every_record_around_a_long_line_in_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    lines = [event_line(10, "a"), event_line(3 * MB, "b"), event_line(10, "c")]
    path.write_bytes(b"".join(lines) + b'{"kind": "torn')
    problems: list[fsio.BadLine] = []
    kinds = [r["kind"] for r in fsio.iter_jsonl_reversed(path, problems, chunk=4096)]
    assert kinds == ["c", "b", "a"]
    assert [(p.line_number, p.reason) for p in problems] == [
        (4, "torn last line (a write was cut short)")
    ]


def test_a_line_over_the_limit_is_reported_and_skipped_going_backwards(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(event_line(10, "a") + event_line(fsio.LINE_LIMIT + 1, "b") + event_line(10))
    problems: list[fsio.BadLine] = []
    kinds = [r["kind"] for r in fsio.iter_jsonl_reversed(path, problems)]
    assert kinds == ["note", "a"]
    assert [(p.line_number, p.reason) for p in problems] == [(2, "line longer than 16 MB")]


def test_a_tail_of_huge_lines_reads_a_bounded_part_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    with open(path, "wb") as events:
        for _ in range(5):
            events.write(event_line(15 * MB))
    records, _problems = fsio.tail_jsonl(path, 200)
    assert 1 <= len(records) <= fsio.TAIL_BYTES // (15 * MB)
    follower = JsonlFollower(path)
    assert len(follower.start(200)) == len(records)


def test_following_a_long_line_written_a_little_at_a_time_is_linear(tmp_path: Path) -> None:
    script = (
        "from supervisor.store.jsonl_tail import JsonlBuffer\n"
        "buffer = JsonlBuffer()\n"
        "line = b'{\"blob\": \"' + b'a' * (7 * 1024 * 1024) + b'\"}\\n'\n"
        "found = []\n"
        "for at in range(0, len(line), 1024):\n"
        "    found += buffer.feed(line[at : at + 1024])\n"
        "assert len(found) == 1 and len(found[0]['blob']) == 7 * 1024 * 1024\n"
    )
    done = run_with_cpu_limit([sys.executable, "-c", script], Path.cwd(), seconds=2)
    assert done.returncode == 0, done.stderr.decode()


def test_a_followed_line_over_the_limit_is_dropped_to_its_end() -> None:
    buffer = JsonlBuffer()
    huge = b'{"kind": "huge", "blob": "' + b"a" * FOLLOW_LINE_LIMIT + b'"}\n'
    found = []
    for at in range(0, len(huge), MB):
        found += buffer.feed(huge[at : at + MB])
    found += buffer.feed(b'{"kind": "after"}\n')
    assert [r["kind"] for r in found] == ["after"]
    assert buffer.bad_lines == 1
