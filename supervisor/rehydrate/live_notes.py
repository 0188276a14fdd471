"""notes.md and task.md parsed once per change, for every reader in the supervisor.

notes.md can be megabytes (a parse takes 0.8 s at 50 MB). The tick's digest (the
pins, a compaction's instructions), the rehydrate payload and the recall check
all read the one :class:`ParsedNotes` that :class:`LiveNotes` keeps: a reader
asks :meth:`LiveNotes.current` (file I/O, off the event loop), which parses again
only when a file's time or size changed. The text is sanitized before it is
parsed, as the payload sends it. A shell command with no supervisor running
parses from disk once (:meth:`ParsedNotes.read`). A hook the supervisor answers in its
own process reads the supervision's one :class:`LiveNotes`, a ``tether hook`` alone a
:class:`LiveNotes` of its own for that call; a payload built from the checkpoint just
taken reuses the parse when the checkpoint holds the same texts
(:meth:`LiveNotes.of_texts`).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from supervisor.errors import TetherError
from supervisor.rehydrate.sanitize import sanitize
from supervisor.store import notes
from supervisor.store.checkpoints import live_text
from supervisor.store.notes import Document
from supervisor.store.tether_dir import TetherDir

Stamp = tuple[tuple[int, int] | None, tuple[int, int] | None]  # notes.md's, task.md's


@dataclass(frozen=True)
class ParsedNotes:
    """notes.md and task.md as read at ``stamp``, each sanitized and parsed.

    ``error``: a file exists but could not be read (the payload raises it; the
    tick reads nothing from it). A missing file is an empty document.
    """

    stamp: Stamp
    notes: Document
    task: Document
    error: TetherError | None = None
    digest: bytes = b""  # of the texts as read (:func:`texts_digest`)

    @classmethod
    def read(cls, tether: TetherDir, stamp: Stamp | None = None) -> ParsedNotes:
        """Both files from disk, parsed (file I/O)."""
        error: TetherError | None = None
        texts: list[str] = []
        for path in (tether.task, tether.notes):  # task.md first, as a snapshot reads them
            try:
                texts.append(live_text(tether, path))
            except TetherError as failed:
                error = error or failed
                texts.append("")
        stamp = stamp if stamp is not None else _stamp(tether)
        return cls.of_texts(texts[0], texts[1], stamp, error)

    @classmethod
    def of_texts(
        cls,
        task: str,
        notes_text: str,
        stamp: Stamp = (None, None),
        error: TetherError | None = None,
    ) -> ParsedNotes:
        """``task`` and ``notes_text`` (a checkpoint's, or the live files'), parsed."""
        digest = texts_digest(task, notes_text)
        task_, notes_ = (Document.parse(sanitize(text)) for text in (task, notes_text))
        return cls(stamp, notes_, task_, error, digest)

    def decisions(self) -> list[str]:
        """The pinned decisions of notes.md, or none when it could not be read."""
        return notes.decisions_of(self.notes) if self.error is None else []


class LiveNotes:
    """The last :class:`ParsedNotes` of the live files, parsed again when they change.

    Safe from any thread: readers on the tick's and the payload's workers share it.
    """

    def __init__(self, tether: TetherDir) -> None:
        self.tether = tether
        self._lock = threading.Lock()
        self._parsed: ParsedNotes | None = None

    def current(self) -> ParsedNotes:
        """The files as they are now: parsed again only if they changed (file I/O)."""
        with self._lock:
            stamp = _stamp(self.tether)
            parsed = self._parsed
            if parsed is None or parsed.stamp != stamp:
                parsed = self._parsed = ParsedNotes.read(self.tether, stamp)
            return parsed

    def of_texts(self, task: str, notes_text: str) -> ParsedNotes:
        """``task`` and ``notes_text`` parsed: the current parse when the live files hold
        these very texts (a checkpoint just taken of them), else parsed here (file I/O)."""
        parsed = self.current()
        if parsed.error is None and parsed.digest == texts_digest(task, notes_text):
            return parsed
        return ParsedNotes.of_texts(task, notes_text)


def texts_digest(task: str, notes_text: str) -> bytes:
    """What tells two (task, notes) pairs apart, far quicker than parsing them."""
    digest = hashlib.blake2b(digest_size=16)
    for text in (task, notes_text):
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.digest()


def _stamp(tether: TetherDir) -> Stamp:
    return _stat(tether.notes), _stat(tether.task)


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size
