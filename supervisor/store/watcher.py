"""Watching `.tether/` for changes, and following a JSONL file from where it was last read.

The panes show files that the agent, `tether note` and the supervisor change at
any moment, so they must hear about changes rather than poll. A burst of writes
(an atomic replace is a create, a few modifies and a rename) is collapsed into
one callback per file after a short quiet period (or at the latest half a
second after the first change of the burst), and tether's own temp files
(``.notes.md.xxxx.tmp``) are never reported: the rename that ends an atomic
write is reported under the real name instead.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from supervisor.store.fsio import BadLine, tail_jsonl
from supervisor.store.jsonl_tail import JsonlTail

DEFAULT_DEBOUNCE_SECONDS = 0.1
# A file that never goes quiet (events.jsonl through a busy session, notes.md rewritten
# in a loop) must not hold back the other files' news for good.
DEFAULT_MAX_WAIT_SECONDS = 0.5

# Events that mean the content changed; opened and closed-without-write events
# are left out, or every read the panes make would be reported as a change.
_CHANGE_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileDeletedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


def is_temp_file(path: str | os.PathLike[str]) -> bool:
    """tether's own atomic-write temp files: ``.<name>.<random>.tmp``."""
    name = os.path.basename(os.fspath(path))
    return name.startswith(".") and name.endswith(".tmp")


# The folders under `.tether/` a pane shows. Not `sessions/`: the recorder appends there
# all through a flood, and the observer thread woken by each write takes the GIL from
# the event loop (bench/README.md).
WATCHED_FOLDERS = ("checkpoints",)


class TetherWatcher:
    """Calls ``callback(path)`` (on a background thread) once per changed file per burst.

    Watches ``root`` and its ``folders``, not recursively. ``start()`` and ``stop()``
    are idempotent, and ``stop()`` waits for the observer thread, so a pane can stop
    it on unmount without leaking threads.
    """

    def __init__(
        self,
        root: Path,
        callback: Callable[[Path], None],
        *,
        debounce: float = DEFAULT_DEBOUNCE_SECONDS,
        max_wait: float = DEFAULT_MAX_WAIT_SECONDS,
        folders: tuple[str, ...] = WATCHED_FOLDERS,
    ) -> None:
        self.root = Path(root)
        self._folders = {self.root / name for name in folders}
        self._watched: dict[Path, Any] = {}  # folder -> its ObservedWatch
        self._handler = _Handler(self._noticed)
        self._callback = callback
        self._debounce = debounce
        self._max_wait = max(max_wait, debounce)
        self._burst_began = 0.0  # time.monotonic() of the first pending change
        self._lock = threading.Lock()
        self._pending: dict[Path, None] = {}  # ordered set of changed paths
        self._timer: threading.Timer | None = None
        self._observer: Any = None
        self._stopped = False

    @property
    def running(self) -> bool:
        return self._observer is not None

    def start(self) -> None:
        """Start watching ``root`` and its folders; raises ``OSError`` if it cannot be watched."""
        if self._observer is not None:
            return
        self._stopped = False
        observer = Observer()
        observer.daemon = True
        self._watched = {}
        self._observer = observer
        self._watch(observer, self.root)
        for folder in self._folders:
            self._watch(observer, folder)
        observer.start()

    def _watch(self, observer: Any, folder: Path) -> None:
        """Watch one folder (once; a missing sub-folder is watched when it appears)."""
        if folder in self._watched or (folder != self.root and not folder.is_dir()):
            return
        try:
            watch = observer.schedule(
                self._handler, str(folder), recursive=False, event_filter=_CHANGE_EVENTS
            )
        except OSError:
            if folder == self.root:
                raise
            return  # gone again already; its next creation tries again
        self._watched[folder] = watch

    def _folder_changed(self, observer: Any, folder: Path) -> None:
        """A watched sub-folder was created or removed: follow it."""
        if folder.is_dir():
            self._watch(observer, folder)
            return
        watch = self._watched.pop(folder, None)
        if watch is not None:
            try:
                observer.unschedule(watch)
            except (KeyError, OSError):
                pass

    def stop(self) -> None:
        """Stop watching and drop pending notifications; safe to call more than once."""
        with self._lock:
            self._stopped = True
            self._pending.clear()
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            if observer.is_alive() and observer is not threading.current_thread():
                observer.join(timeout=2.0)

    def _noticed(self, path: str) -> None:
        if is_temp_file(path):
            return
        observer = self._observer  # stop() may clear it meanwhile, from another thread
        if observer is not None and Path(path) in self._folders:
            self._folder_changed(observer, Path(path))
        with self._lock:
            if self._stopped:
                return
            now = time.monotonic()
            if not self._pending:
                self._burst_began = now
            self._pending[Path(path)] = None
            if self._timer is not None:
                self._timer.cancel()
            delay = min(self._debounce, self._burst_began + self._max_wait - now)
            self._timer = threading.Timer(max(delay, 0.0), self._flush)
            self._timer.daemon = True
            self._timer.start()

    def _flush(self) -> None:
        with self._lock:
            if self._stopped:
                return
            paths = list(self._pending)
            self._pending.clear()
            self._timer = None
        for path in paths:
            try:
                self._callback(path)
            except Exception:  # a failing listener must not kill the timer thread silently
                import logging

                logging.getLogger(__name__).exception("watcher callback failed for %s", path)


class _Handler(FileSystemEventHandler):
    def __init__(self, noticed: Callable[[str], None]) -> None:
        self._noticed = noticed

    def on_any_event(self, event: FileSystemEvent) -> None:
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                self._noticed(os.fsdecode(raw))


@dataclass
class JsonlFollower:
    """Reads a growing JSONL file incrementally: the tail first, then only what was appended.

    The following itself is :class:`~supervisor.store.jsonl_tail.JsonlTail`; this adds
    the backwards read of the last ``count`` records to start from.
    """

    path: Path
    problems: list[BadLine] = field(default_factory=list)
    _tail: Any = None

    def start(self, count: int = 200) -> list[dict[str, Any]]:
        """The last ``count`` records, reading backwards from the end only."""
        try:
            size = os.path.getsize(self.path)
        except OSError:
            self._tail = JsonlTail(self.path, start=0)
            return []
        records, self.problems = tail_jsonl(self.path, count)
        self._tail = JsonlTail(self.path, start=self._complete_end(size))
        return records

    def _complete_end(self, size: int) -> int:
        """The offset just after the last newline at or before ``size``."""
        try:
            with open(self.path, "rb") as handle:
                back = min(size, 64 * 1024)
                handle.seek(size - back)
                chunk = handle.read(back)
        except OSError:
            return size
        cut = chunk.rfind(b"\n")
        return size - back + cut + 1 if cut >= 0 else max(size - back, 0)

    def read_new(self) -> list[dict[str, Any]]:
        """Records appended since the last read (a torn last line waits for its end)."""
        if self._tail is None:
            return self.start()
        return [record for record, _history in self._tail.poll()]
