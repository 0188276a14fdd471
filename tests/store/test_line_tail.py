"""LineTail: a growing text file's new lines, torn, rotated, truncated or huge."""

from __future__ import annotations

import os
from pathlib import Path

from supervisor.store import line_tail
from supervisor.store.line_tail import LineTail


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as file:
        file.write(data)


def test_an_existing_file_is_followed_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / "history.md"
    path.write_bytes(b"> All chat history cleared.  \n")
    tail = LineTail(path)
    assert tail.poll() == []
    append(path, b"#### hello\n")
    assert tail.poll() == ["#### hello"]


def test_a_missing_file_is_read_from_its_start_once_it_appears(tmp_path: Path) -> None:
    path = tmp_path / "llm.txt"
    tail = LineTail(path)
    assert tail.poll() == []
    path.write_bytes(b"TO LLM 2026-12-02T01:00:00\n-------\n")
    assert tail.poll() == ["TO LLM 2026-12-02T01:00:00", "-------"]


def test_a_torn_line_waits_for_its_end(tmp_path: Path) -> None:
    path = tmp_path / "history.md"
    path.write_bytes(b"")
    tail = LineTail(path)
    append(path, b"> Finished summ")
    assert tail.poll() == []
    assert not tail.caught_up
    append(path, "arizing chat history. \u00e9\r\n".encode())
    assert tail.poll() == ["> Finished summarizing chat history. \u00e9"]
    assert tail.caught_up


def test_a_rotated_or_truncated_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "history.md"
    path.write_bytes(b"old line\n" * 10)
    tail = LineTail(path)
    rotated = tmp_path / "history.new"
    rotated.write_bytes(b"first\n")
    os.replace(rotated, path)  # another inode
    assert tail.poll() == ["first"]
    os.truncate(path, 0)  # seen as such before it grows past the old offset again
    assert tail.poll() == []
    append(path, b"again\n")
    assert tail.poll() == ["again"]


def test_a_huge_line_is_cut_and_a_huge_burst_is_read_in_bounded_pieces(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(line_tail, "LINE_LIMIT", 100)
    monkeypatch.setattr(line_tail, "READ_LIMIT", 64)
    path = tmp_path / "llm.txt"
    path.write_bytes(b"")
    tail = LineTail(path)
    append(path, b"x" * 1000 + b"\nnext\n")
    lines: list[str] = []
    reads = 0
    while True:
        got = tail.poll()
        reads += 1
        lines += got
        if tail.caught_up:
            break
    assert lines == ["x" * 100, "next"]
    assert reads == 16  # 1006 bytes, at most 64 a poll


def test_bytes_that_are_not_utf8_are_replaced_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "history.md"
    path.write_bytes(b"")
    tail = LineTail(path)
    append(path, b"\xff\xfe bad\n")
    assert tail.poll() == ["\ufffd\ufffd bad"]


def test_a_folder_is_refused_by_name(tmp_path: Path) -> None:
    tail = LineTail(tmp_path)
    assert tail.poll() == []
    assert tail.refused == "a folder, not a file"


def test_a_file_in_tethers_folder_is_not_read_through_a_symlink(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_bytes(b"")
    link = tmp_path / "llm.txt"
    link.symlink_to(elsewhere)
    own, theirs = LineTail(link, follow_symlink=False), LineTail(link)
    append(elsewhere, b"TO LLM 2026-12-02T01:00:00\n")
    assert own.poll() == [] and own.refused
    assert theirs.poll() == ["TO LLM 2026-12-02T01:00:00"]
