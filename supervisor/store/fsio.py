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
import math
import os
import stat
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


#: The most tether reads of one file it did not just write (task.md, notes.md, a checkpoint).
TEXT_LIMIT = 64 * 1024 * 1024
#: The longest JSONL line read; a longer one is reported as a bad line and skipped.
LINE_LIMIT = 16 * 1024 * 1024
#: The most a tail (:func:`tail_jsonl`) reads from the end: one longest line and more, so
#: the last record is always found, yet 1 GB of huge lines costs no more than this.
TAIL_BYTES = LINE_LIMIT + 4 * 1024 * 1024

_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


def kind_of(mode: int) -> str:
    """What an ``lstat`` mode is, in words for a message."""
    return "a regular file" if stat.S_ISREG(mode) else _KINDS.get(stat.S_IFMT(mode), "not a file")


def refusal(path: Path, found: str, expected: str = "a regular file") -> TetherError:
    """The message for something under `.tether/` that tether will not open, and what to do."""
    target = ""
    if found == "a symbolic link":
        try:
            target = f" to {os.readlink(path)}"
        except OSError:
            pass
    return TetherError(
        f"{path} is {found}{target}, not {expected}; tether does not follow links or open "
        f"special files inside .tether/ (a cloned repository can plant them): look at it, "
        f"then remove it (`rm {path}`) and run `tether init` to recreate what is missing"
    )


def hard_link_refusal(path: Path, links: int) -> TetherError:
    """The message for a file of the store that has other names (a hard link): writing
    to it would change the file behind every other name too."""
    return TetherError(
        f"{path} is hard-linked ({links} names for one file), so writing to it would also "
        f"change the file under its other names; tether does not write through links inside "
        f".tether/: look at it, then replace it with a copy of its own "
        f"(`cp {path} {path}.copy && mv {path}.copy {path}`) or remove it"
    )


def open_regular(path: Path, flags: int, mode: int = 0o600) -> int:
    """``os.open`` that refuses a symbolic link, a folder, a pipe or a device at ``path``,
    and, to write, a file with more than one name (a hard link).

    ``O_NOFOLLOW`` refuses a link at the last component, ``O_NONBLOCK`` keeps a
    planted FIFO from hanging the open, and ``fstat`` checks what was opened.
    ``FileNotFoundError`` is left to the caller, who knows what a missing file means.
    """
    path = Path(path)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
            try:
                found = kind_of(os.lstat(path).st_mode)
            except OSError:
                found = "not a regular file"
            raise refusal(path, found) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refusal(path, kind_of(info.st_mode))
        if flags & (os.O_WRONLY | os.O_RDWR) and info.st_nlink > 1:
            raise hard_link_refusal(path, info.st_nlink)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: Path, limit: int = TEXT_LIMIT) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; a clear error otherwise.

    For every file tether did not just write: a link, a device (``lock -> /dev/zero``)
    or a file too big to hold is refused, naming it, instead of read until memory ends.
    """
    path = Path(path)
    fd = open_regular(path, os.O_RDONLY)
    try:
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > limit:
        raise TetherError(
            f"{path} is larger than {limit // (1024 * 1024)} MB, more than tether reads; "
            "move old parts of it to another file"
        )
    return b"".join(chunks)


def check_folder(folder: Path) -> None:
    """Refuse a folder of the store that is a symbolic link or not a folder at all."""
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        raise refusal(Path(folder), kind_of(mode), "a folder")


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, whole."""
    path = Path(path)
    check_folder(path.parent)
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
        fsync_dir(path.parent)
    except OSError as error:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise TetherError(f"cannot write {path}: {error.strerror}; {write_hint(error)}") from error


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600) -> None:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as error:  # a surrogate-escaped byte from argv or a file name
        raise TetherError(
            f"cannot write {path}: the text is not UTF-8 (character {error.start}); "
            "give it as UTF-8 text"
        ) from None
    atomic_write_bytes(path, data, mode=mode)


def atomic_write_json(path: Path, obj: Any, *, mode: int = 0o600) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n", mode=mode)


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one record as one line with one ``write`` and an fsync.

    If the file ends in a torn line (a crash mid-append), a newline is written
    first so the new record starts on a line of its own and stays readable.
    """
    data = _json_line(record)
    path = Path(path)
    check_folder(path.parent)
    try:
        fd = open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError as error:
        hint = write_hint(error)
        raise TetherError(f"cannot append to {path}: {error.strerror}; {hint}") from error
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
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


def _json_line(record: dict[str, Any]) -> bytes:
    """One record as one UTF-8 line of strict JSON (what ``jq`` reads): a number JSON
    cannot carry (NaN, Infinity) or a lone surrogate (an undecodable byte of an argument
    or a file name, or a hook's ``"\\ud800"``) is first made into text that it can
    (:func:`json_safe`)."""
    try:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return (line + "\n").encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        safe = json_safe(record)
        line = json.dumps(safe, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return (line + "\n").encode("utf-8")


#: The deepest nesting :func:`json_safe` takes: far more than any record tether or an
#: agent writes, far less than the interpreter's stack that json.dumps recurses on.
MAX_DEPTH = 200
_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def json_safe(value: Any) -> Any:
    """``value`` with what strict JSON cannot carry replaced: NaN and the infinities by
    their names as strings, a surrogate-escaped byte by ``\\xNN`` and any other lone
    surrogate by U+FFFD; containers are copied only when something in them changed.
    Raises ValueError for nesting deeper than :data:`MAX_DEPTH` (iterative: never a
    RecursionError)."""
    if not isinstance(value, dict | list | tuple):
        return _safe_scalar(value)
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any, int]] = [(value, root, 1)]
    while stack:
        source, target, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"JSON nested too deeply (over {MAX_DEPTH} levels)")
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, dict | list | tuple):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy, depth + 1))
                item = copy
            else:
                item = _safe_scalar(item)
            if isinstance(target, dict):
                target[_safe_scalar(key) if isinstance(key, str) else key] = item
            else:
                target.append(item)
    return root


def _safe_scalar(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE[repr(value)]
    if isinstance(value, str) and not _encodes(value):
        return "".join(_safe_char(c) for c in value)
    return value


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _safe_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as os.fsdecode keeps it
        return f"\\x{code - 0xDC00:02x}"
    return "\ufffd" if 0xD800 <= code <= 0xDFFF else char


def loads_why(raw: bytes | str) -> tuple[Any, str | None]:
    """``json.loads`` that says what was wrong instead of raising, for untrusted bytes.

    Beyond bad syntax it catches what :mod:`json` raises on absurd but valid
    input: integers of more digits than Python converts (``ValueError``) and
    nesting deeper than the interpreter's stack (``RecursionError``).
    """
    try:
        return json.loads(raw), None
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except json.JSONDecodeError as error:
        return None, f"not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"
    except ValueError as error:  # "Exceeds the limit (4300 digits) for integer string ..."
        if "digits" in str(error):
            return None, "a number with more digits than tether reads (at most 4,300)"
        return None, f"a value tether cannot read ({error})"
    except RecursionError:
        return None, "JSON nested too deeply"


def iter_jsonl(path: Path, problems: list[BadLine] | None = None) -> Iterator[dict[str, Any]]:
    """Yield each JSON object of a JSONL file; skip and report lines that are not one."""
    path = Path(path)
    handle = _open_existing(path)
    if handle is None:
        return
    with handle:
        number = 0
        while raw := handle.readline(LINE_LIMIT + 1):
            number += 1
            if len(raw) > LINE_LIMIT and not raw.endswith(b"\n"):
                while (rest := handle.readline(LINE_LIMIT)) and not rest.endswith(b"\n"):
                    pass  # skip the rest of the overlong line
                if problems is not None:
                    limit = LINE_LIMIT // (1024 * 1024)
                    problems.append(BadLine(path, number, f"line longer than {limit} MB"))
                continue
            if raw.strip():
                torn = not raw.endswith(b"\n")
                record = _parse_line(raw, path, problems, torn=torn, number=number)
                if record is not None:
                    yield record


def tail_jsonl(
    path: Path, count: int = 1, *, chunk: int = 64 * 1024, max_bytes: int | None = None
) -> tuple[list[dict[str, Any]], list[BadLine]]:
    """The last ``count`` readable records, reading backwards from the end of the file.

    Used where files grow without bound (artifacts, events): the cost is
    proportional to the tail asked for, never to the file, and never more than
    ``max_bytes`` (default :data:`TAIL_BYTES`) of it, however long its lines.
    """
    problems: list[BadLine] = []
    budget = TAIL_BYTES if max_bytes is None else max_bytes
    records = iter_jsonl_reversed(path, problems, chunk=chunk, max_bytes=budget)
    found = list(itertools.islice(records, count))
    found.reverse()
    return found, problems


def iter_jsonl_reversed(
    path: Path,
    problems: list[BadLine] | None = None,
    *,
    chunk: int = 64 * 1024,
    containing: bytes | None = None,
    max_bytes: int | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSONL file from the last to the first, lazily.

    For questions answered near the end (the last incident, the last artifact):
    stop iterating and the rest of the file is never read. ``containing`` skips,
    unparsed, every line without those bytes: a cheap filter for long scans.
    ``max_bytes`` stops after reading that much from the end (a bounded tail).

    Each byte is read once and copied at most twice, whatever the lines' lengths: a
    line longer than a block is kept as a list of its blocks and joined once, when
    its start is found (joining at every block made one 15 MB line cost seconds).
    """
    path = Path(path)
    handle = _open_existing(path)
    if handle is None:
        return
    with handle:
        yield from _reversed_records(handle, path, problems, chunk, containing, max_bytes)


def _reversed_records(
    handle: BinaryIO,
    path: Path,
    problems: list[BadLine] | None,
    chunk: int,
    containing: bytes | None,
    max_bytes: int | None,
) -> Iterator[dict[str, Any]]:
    handle.seek(0, os.SEEK_END)
    position = end = handle.tell()
    floor = 0 if max_bytes is None else max(0, end - max_bytes)
    # The end of the line being read backwards: its blocks, last first, and their size;
    # None while skipping a line too long to hold, back to its start.
    partial: list[bytes] | None = []
    partial_size = 0
    last_line = True  # only the piece after the file's last newline can be a torn append
    while position > floor:
        step = min(chunk, position - floor)
        position -= step
        handle.seek(position)
        block = handle.read(step)
        first = block.find(b"\n")
        if first < 0 and position > 0:
            if partial is not None:
                partial.append(block)
                partial_size += len(block)
                if partial_size > LINE_LIMIT:
                    partial, partial_size = None, 0
            continue
        # ``block[first + 1:]`` and ``partial`` end the line after the block's last
        # newline... but first the whole lines inside the block, then that one, last first.
        tail_start = block.rfind(b"\n") + 1 if first >= 0 else 0
        if partial is None:
            _too_long(problems, path, position + tail_start)
        else:
            partial.append(block[tail_start:])
            partial.reverse()
            raw = b"".join(partial)
            if len(raw) > LINE_LIMIT:
                _too_long(problems, path, position + tail_start)
            elif raw.strip() and (containing is None or containing in raw):
                record = _parse_line(
                    raw, path, problems, torn=last_line, offset=position + tail_start
                )
                if record is not None:
                    yield record
        last_line = False
        partial, partial_size = [], 0
        if first < 0:  # the block starts the file and holds no newline: done
            break
        inner = block[first + 1 : tail_start - 1] if tail_start - 1 > first else b""
        if inner and (containing is None or containing in inner):
            pieces = inner.split(b"\n")
            offset = position + first + 1
            offsets = []
            for raw in pieces:
                offsets.append(offset)
                offset += len(raw) + 1
            for index in range(len(pieces) - 1, -1, -1):
                raw = pieces[index]
                if not raw.strip() or (containing is not None and containing not in raw):
                    continue
                record = _parse_line(raw, path, problems, torn=False, offset=offsets[index])
                if record is not None:
                    yield record
        head = block[:first]
        if position == 0:
            if head.strip() and (containing is None or containing in head):
                record = _parse_line(head, path, problems, torn=False, offset=0)
                if record is not None:
                    yield record
            break
        partial, partial_size = [head], len(head)


def _too_long(problems: list[BadLine] | None, path: Path, offset: int) -> None:
    if problems is not None:
        limit = LINE_LIMIT // (1024 * 1024)
        problems.append(BadLine(path, _where(path, -1, offset), f"line longer than {limit} MB"))


def _open_existing(path: Path) -> BinaryIO | None:
    """``path`` opened for reading, or None when it does not exist (yet): no records.

    Links and devices are refused (:func:`open_regular`), so no tail reads without end.
    """
    try:
        fd = open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    return os.fdopen(fd, "rb")


def _parse_line(
    raw: bytes,
    path: Path,
    problems: list[BadLine] | None,
    *,
    torn: bool,
    number: int = -1,
    offset: int | None = None,
) -> dict[str, Any] | None:
    """One line's JSON object, else None with the reason added to ``problems``.

    Its line is ``number``, or counted from its byte ``offset`` (readers going
    backwards), then only when the line is bad.
    """
    record, why = loads_why(raw)
    if why is not None:
        if problems is not None:
            reason = "torn last line (a write was cut short)" if torn else why
            problems.append(BadLine(path, _where(path, number, offset), reason))
        return None
    if not isinstance(record, dict):
        if problems is not None:
            problems.append(BadLine(path, _where(path, number, offset), "not a JSON object"))
        return None
    return record


def _where(path: Path, number: int, offset: int | None) -> int:
    return number if offset is None else line_number_at(path, offset)


def line_number_at(path: Path, offset: int, *, chunk: int = 1 << 20) -> int:
    """The 1-based line number of the line starting at byte ``offset``.

    Readers that go backwards do not know it; only a bad line needs it, so it is
    counted then (newlines before ``offset``), in chunks. -1 if the file is gone.
    """
    try:
        with open(path, "rb") as handle:
            newlines, left = 0, offset
            while left > 0:
                block = handle.read(min(chunk, left))
                if not block:
                    break
                newlines += block.count(b"\n")
                left -= len(block)
    except OSError:
        return -1
    return newlines + 1
