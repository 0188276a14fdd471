"""Durable file primitives: atomic whole-file writes and torn-line-safe JSONL.

Nothing under `.tether/` is ever truncated in place: a whole file is written
to a temp file in the same folder, fsynced and renamed over the old one; a
JSONL record is one ``write`` of one line plus fsync. A reader therefore only
ever meets a torn *last* line (a crash mid-append), which it skips and reports.
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from supervisor.errors import TetherError


@dataclass(frozen=True, slots=True)
class BadLine:
    """A JSONL line that could not be read, named so a person can find it."""

    path: Path
    line_number: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line_number}: {self.reason}"


def write_hint(error: OSError) -> str:
    """What a person can do about a failed write, by its errno."""
    if error.errno == errno.ENOSPC:
        return "the disk is full; free some space"
    if error.errno == errno.EFBIG:
        return "a file size limit was hit (disk quota or `ulimit -f`); free space or raise it"
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "the folder is read-only; make it writable (e.g. `chmod u+w`)"
    return "check the folder"


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, whole."""
    path = Path(path)
    try:
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise TetherError(f"cannot write {path}: {error.strerror}; {write_hint(error)}") from error
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
        _fsync_dir(path.parent)
    except OSError as error:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise TetherError(f"cannot write {path}: {error.strerror}; {write_hint(error)}") from error


def atomic_write_text(path: Path, text: str, *, mode: int = 0o644) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def atomic_write_json(path: Path, obj: Any, *, mode: int = 0o644) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n", mode=mode)


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one record as one line with one ``write`` and an fsync.

    If the file ends in a torn line (a crash mid-append), a newline is written
    first so the new record starts on a line of its own and stays readable.
    """
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    data = line.encode("utf-8")
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as error:
        hint = write_hint(error)
        raise TetherError(f"cannot append to {path}: {error.strerror}; {hint}") from error
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(path, "rb") as reader:
                reader.seek(size - 1)
                if reader.read(1) != b"\n":
                    data = b"\n" + data
        written = os.write(fd, data)
        if written != len(data):
            raise OSError(28, "short write (disk full?)")
        os.fsync(fd)
    except OSError as error:
        hint = write_hint(error)
        raise TetherError(f"cannot append to {path}: {error.strerror}; {hint}") from error
    finally:
        os.close(fd)


def iter_jsonl(path: Path, problems: list[BadLine] | None = None) -> Iterator[dict[str, Any]]:
    """Yield each JSON object of a JSONL file; skip and report lines that are not one."""
    path = Path(path)
    handle = _open_existing(path)
    if handle is None:
        return
    with handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                torn = not raw.endswith(b"\n")
                record = _parse_line(raw, path, problems, torn=torn, number=number)
                if record is not None:
                    yield record


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[BadLine]]:
    problems: list[BadLine] = []
    records = list(iter_jsonl(path, problems))
    return records, problems


def tail_jsonl(
    path: Path, count: int = 1, *, chunk: int = 64 * 1024
) -> tuple[list[dict[str, Any]], list[BadLine]]:
    """The last ``count`` readable records, reading backwards from the end of the file.

    Used where files grow without bound (artifacts, events): the cost is
    proportional to the tail asked for, never to the file.
    """
    problems: list[BadLine] = []
    found = list(itertools.islice(iter_jsonl_reversed(path, problems, chunk=chunk), count))
    found.reverse()
    return found, problems


def iter_jsonl_reversed(
    path: Path,
    problems: list[BadLine] | None = None,
    *,
    chunk: int = 64 * 1024,
    containing: bytes | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSONL file from the last to the first, lazily.

    For questions answered near the end (the last incident, the last artifact):
    stop iterating and the rest of the file is never read. ``containing`` skips,
    unparsed, every line without those bytes: a cheap filter for long scans.
    """
    path = Path(path)
    handle = _open_existing(path)
    if handle is None:
        return
    with handle:
        handle.seek(0, os.SEEK_END)
        position = handle.tell()
        carry = b""
        first_chunk = True
        while position > 0:
            step = min(chunk, position)
            position -= step
            handle.seek(position)
            block = handle.read(step) + carry
            if containing is not None and containing not in block:
                # Nothing wanted here; keep only the partial first line for the next block.
                carry = block.split(b"\n", 1)[0] if position > 0 else b""
                first_chunk = False
                continue
            pieces = block.split(b"\n")
            carry = pieces[0] if position > 0 else b""
            lines = pieces[1:] if position > 0 else pieces
            for index in range(len(lines) - 1, -1, -1):
                raw = lines[index]
                if not raw.strip() or (containing is not None and containing not in raw):
                    continue
                # Only the piece after the file's last newline can be a torn append.
                torn = first_chunk and index == len(lines) - 1
                record = _parse_line(raw, path, problems, torn=torn)
                if record is not None:
                    yield record
            first_chunk = False


def _open_existing(path: Path) -> BinaryIO | None:
    """``path`` opened for reading, or None when it does not exist (yet): no records."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        return None


def _parse_line(
    raw: bytes, path: Path, problems: list[BadLine] | None, *, torn: bool, number: int = -1
) -> dict[str, Any] | None:
    """One line's JSON object, else None with the reason added to ``problems``."""
    try:
        record = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        if problems is not None:
            reason = "torn last line (a write was cut short)" if torn else "not valid JSON"
            problems.append(BadLine(path, number, reason))
        return None
    if not isinstance(record, dict):
        if problems is not None:
            problems.append(BadLine(path, number, "not a JSON object"))
        return None
    return record
