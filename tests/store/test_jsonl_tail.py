"""The JSONL tail: incremental, bounded, and never loses a line a writer is still finishing."""

from __future__ import annotations

import os
from pathlib import Path

from supervisor.store.jsonl_tail import TAIL_WINDOW, JsonlTail


def test_tail_reads_only_new_bytes_and_keeps_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = JsonlTail(path, start="end")
    assert list(tail.poll()) == []
    with path.open("ab") as handle:
        handle.write(b'{"b": 2}\n{"c":')
    assert list(tail.poll()) == [({"b": 2}, False)]
    with path.open("ab") as handle:
        handle.write(b" 3}\nnot json\n")
    assert list(tail.poll()) == [({"c": 3}, False)]
    assert tail.offset == path.stat().st_size


def test_tail_of_a_big_file_reads_a_window_not_the_file(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    line = b'{"type": "user", "pad": "' + b"x" * 1000 + b'"}\n'
    path.write_bytes(line * 5000 + b'{"last": true}\n')  # about 5 MB
    tail = JsonlTail(path, start="tail")
    assert tail.offset >= path.stat().st_size - TAIL_WINDOW
    records = list(tail.poll())
    assert records[-1] == ({"last": True}, True)
    assert len(records) <= TAIL_WINDOW // len(line) + 1
    assert all(history for _, history in records)


def test_tail_starts_over_when_the_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n')
    tail = JsonlTail(path, start="end")
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b'{"z": 1}\n')
    os.replace(replacement, path)
    assert list(tail.poll()) == [({"z": 1}, False)]
