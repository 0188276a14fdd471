"""The `.tether/` folder: where each file lives and how it is read and written.

Disk is the source of truth, so every reader here validates at the edge (file
to dataclass) and every error names the file and what to do. Whole files are
replaced atomically and JSONL files only ever grow by whole lines (see
:mod:`supervisor.store.fsio`); read-modify-write updates from several processes
(``tether note`` from the agent, the panes, the supervisor) are serialised by
an advisory lock on the `.tether/` folder itself, so no edit is lost.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supervisor.errors import TetherError
from supervisor.store import door, fsio
from supervisor.store.door import FILE_NAMES, FOLDER_NAMES  # noqa: F401 (their home was here)
from supervisor.store.incident_claim import INCIDENT_KIND, claim_incident
from supervisor.store.progress import (  # noqa: F401 (their home was here)
    MAX_COUNT,
    Progress,
    describe_value,
    is_count,
)
from supervisor.store.templates import GOAL_PLACEHOLDER, NOTES_TEMPLATE, TASK_TEMPLATE
from supervisor.times import utc_now

DIRNAME = ".tether"

#: The most of progress.json tether reads: it holds a cursor and a phase.
PROGRESS_LIMIT = 1024 * 1024

# Update locks this thread holds, so a nested ``updating()`` does not deadlock on itself.
_held_locks = threading.local()

# The kind of an incident's event, INCIDENT_KIND, comes from incident_claim (below this module).


@dataclass(frozen=True, slots=True)
class TetherDir:
    """The paths of one `.tether/` folder and typed access to its files."""

    root: Path

    @classmethod
    def at(cls, work_dir: Path | str = ".") -> TetherDir:
        """The `.tether/` of ``work_dir``, whether or not it exists yet."""
        return cls(Path(work_dir).absolute() / DIRNAME)

    @classmethod
    def require(cls, work_dir: Path | str = ".") -> TetherDir:
        """The existing `.tether/` of ``work_dir``; a clear error if there is none."""
        tether = cls.at(work_dir)
        if not os.path.lexists(tether.root):
            raise TetherError(f"no .tether/ in {tether.work_dir}; run `tether init`")
        tether.check_door()
        return tether

    def check_door(self) -> None:
        """Refuse a `.tether/` that tether did not make (see :func:`door.check_door`)."""
        door.check_door(self.root)

    def make_private(self) -> int | None:
        """Close `.tether/` to other users (see :func:`door.make_private`)."""
        return door.make_private(self.root)

    # -- paths -------------------------------------------------------------------------------

    @property
    def work_dir(self) -> Path:
        return self.root.parent

    @property
    def task(self) -> Path:
        return self.root / "task.md"

    @property
    def notes(self) -> Path:
        return self.root / "notes.md"

    @property
    def progress(self) -> Path:
        return self.root / "progress.json"

    @property
    def artifacts(self) -> Path:
        return self.root / "artifacts.jsonl"

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"

    @property
    def agent(self) -> Path:
        return self.root / "agent"

    @property
    def lock(self) -> Path:
        return self.root / "lock"

    def exists(self) -> bool:
        """Whether anything is at `.tether` (a link too: :meth:`check_door` judges it)."""
        return os.path.lexists(self.root)

    def sweep_temp_files(self, older_than: float = 600.0) -> int:
        """Remove temp files left by atomic writes that a crash cut short; returns how many.

        Only old ones: a young temp file may belong to a write in progress.
        """
        import time

        removed = 0
        for folder in (self.root, self.checkpoints):
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if not (entry.name.startswith(".") and entry.name.endswith(".tmp")):
                    continue
                try:
                    if time.time() - entry.stat().st_mtime > older_than:
                        os.unlink(entry.path)
                        removed += 1
                except OSError:
                    pass
        return removed

    # -- serialising updates ----------------------------------------------------------------

    @contextlib.contextmanager
    def updating(self) -> Iterator[None]:
        """Hold the folder's update lock across a read-modify-write.

        ``flock`` on the folder itself, so there is no extra file; the supervisor's
        own ``lock`` file is a different lock with a different job.
        """
        held = _held_locks.__dict__.setdefault("roots", {})
        if held.get(self.root):
            held[self.root] += 1  # re-entered in this thread: already ours
            try:
                yield
            finally:
                held[self.root] -= 1
            return
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:
            raise TetherError(f"no .tether/ in {self.work_dir}; run `tether init`") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held[self.root] = 1
            yield
        finally:
            held.pop(self.root, None)
            os.close(fd)  # closing releases the flock

    # -- text files --------------------------------------------------------------------------

    def read_text(self, path: Path) -> str:
        """A Markdown file of the store as text; names the file when it is missing or binary.

        Read bounded and never through a link (see :func:`fsio.read_bounded`).
        """
        try:
            data = fsio.read_bounded(path)
        except FileNotFoundError:
            raise TetherError(
                f"{path} is missing; restore it with `tether restore N` or run `tether init`"
            ) from None
        except PermissionError:
            raise TetherError(f"cannot read {path}: permission denied; check its mode") from None
        except OSError as error:
            raise TetherError(f"cannot read {path}: {error.strerror}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            raise TetherError(
                f"{path}:{line}: not UTF-8 text (byte {error.start}); "
                "restore it with `tether restore N` (see `tether history`) or replace it"
            ) from None

    def read_task(self) -> str:
        return self.read_text(self.task)

    def read_notes(self) -> str:
        return self.read_text(self.notes)

    def write_task(self, text: str) -> None:
        fsio.atomic_write_text(self.task, text)

    def write_notes(self, text: str) -> None:
        fsio.atomic_write_text(self.notes, text)

    def add_note(self, section: str, text: str) -> str:
        """``tether note SECTION TEXT`` under the update lock; returns the section title used.

        See :func:`supervisor.store.notes.apply_note` for which sections are replaced; a
        new phase is also written to ``progress.json`` so the two never disagree.
        """
        from supervisor.store import notes

        title = notes.canonical_title(section)
        with self.updating():
            before = self.read_notes()
            problem = notes.unknown_section(before, section)
            if problem is not None:
                raise TetherError(f"{self.notes}: {problem}")
            after = notes.apply_note(before, section, text, utc_now())
            if after != before:
                self.write_notes(after)
            if title == "Phase":  # progress.json carries the phase too: keep them one
                first_line = notes.clean_text(text).strip().split("\n")[0][:200]
                self.set_progress(phase=first_line)
        return title

    def add_decisions(self, texts: list[str], source: str) -> list[str]:
        """Pin decisions (e.g. captured ``DECISION:`` lines); returns those that were new."""
        from supervisor.store import notes

        added: list[str] = []
        with self.updating():
            text = self.read_notes()
            for decision in texts:
                text, new = notes.add_decision(text, decision, utc_now())
                if new:
                    added.append(decision)
            if added:
                self.write_notes(text)
        for decision in added:
            self.record_event("decision", source, text=decision)
        return added

    # -- progress ----------------------------------------------------------------------------

    def read_progress(self) -> Progress:
        """``progress.json`` as :class:`Progress`; malformed JSON names the line and column."""
        path = self.progress
        try:
            raw = fsio.read_bounded(path, PROGRESS_LIMIT)
        except FileNotFoundError:
            raise TetherError(
                f"{path} is missing; run `tether check --fix` to rebuild it from artifacts.jsonl"
            ) from None
        except PermissionError:
            raise TetherError(f"cannot read {path}: permission denied; check its mode") from None
        try:
            data = json.loads(raw)
        except UnicodeDecodeError:
            raise TetherError(
                f"{path}: not UTF-8 text; run `tether check --fix` to rebuild it"
            ) from None
        except json.JSONDecodeError as error:
            raise TetherError(
                f"{path}:{error.lineno}:{error.colno}: not valid JSON ({error.msg}); "
                "fix it by hand or run `tether check --fix` to rebuild it from artifacts.jsonl"
            ) from None
        except (ValueError, RecursionError):  # a 5,000-digit number, nesting without end
            _, why = fsio.loads_why(raw)
            raise TetherError(
                f"{path}: {why}; fix it by hand or run `tether check --fix` to rebuild it "
                "from artifacts.jsonl"
            ) from None
        if not isinstance(data, dict):
            raise TetherError(
                f'{path}: expected a JSON object with "cursor"; run `tether check --fix`'
            )
        return Progress.from_dict(data, where=str(path))

    def write_progress(self, progress: Progress, *, touch: bool = True) -> Progress:
        """Replace ``progress.json``; ``touch`` stamps ``updated_at`` with now."""
        if touch:
            progress.updated_at = utc_now()
        fsio.atomic_write_json(self.progress, progress.to_dict())
        return progress

    def set_progress(self, *, cursor: int | None = None, phase: str | None = None) -> Progress:
        """Change the cursor and/or phase under the update lock, stamping ``updated_at``."""
        with self.updating():
            try:
                progress = self.read_progress()
            except TetherError:
                if self.progress.exists():
                    raise
                progress = Progress()
            if cursor is not None:
                progress.cursor = cursor
            if phase is not None:
                progress.phase = phase
            return self.write_progress(progress)

    # -- artifacts ---------------------------------------------------------------------------

    def last_artifact(self) -> tuple[dict[str, Any] | None, list[fsio.BadLine]]:
        """The last readable artifact record (reading the tail only) and any bad lines met."""
        records, problems = fsio.tail_jsonl(self.artifacts, 1)
        return (records[-1] if records else None), problems

    # -- events ------------------------------------------------------------------------------

    def record_event(self, kind: str, source: str, **details: Any) -> dict[str, Any]:
        """Append ``{"at", "kind", "source", **details}`` to ``events.jsonl`` and return it.

        One line, one write, fsynced. ``details`` must be JSON-serialisable.
        """
        event = {"at": utc_now(), "kind": kind, "source": source, **details}
        fsio.append_jsonl(self.events, event)
        return event

    def record_incident(self, type_: str, source: str, **details: Any) -> dict[str, Any]:
        """Record an incident event with the next incident number (1, 2, ...).

        The event is ``{"kind": "incident", "number": N, "type": type_, ...}``;
        numbering is serialised by the update lock, so hooks and the supervisor
        never hand out the same number.
        """
        with self.updating():
            number = self.incident_count() + 1
            return self.record_event(INCIDENT_KIND, source, number=number, type=type_, **details)

    def claim_incident(self, type_: str, source: str, **how: Any) -> tuple[dict[str, Any], bool]:
        """This loss's incident, shared by the hook and the supervisor: see incident_claim."""
        return claim_incident(self, type_, source, **how)

    def incident_count(self) -> int:
        """How many incidents were recorded: the number of the last incident event.

        Reads ``events.jsonl`` backwards and stops at the first incident, so the
        cost is the distance from the end to the last incident, not the file.
        """
        marker = INCIDENT_KIND.encode()
        for event in fsio.iter_jsonl_reversed(self.events, containing=marker):
            if event.get("kind") == INCIDENT_KIND:
                number = event.get("number")
                if isinstance(number, int) and not isinstance(number, bool):
                    return number
        return 0


def record_event(tether: TetherDir | Path | str, kind: str, source: str, **details: Any) -> dict:
    """Module-level shorthand: ``record_event(work_dir_or_tether, kind, source, **details)``."""
    if not isinstance(tether, TetherDir):
        tether = TetherDir.at(tether)
    return tether.record_event(kind, source, **details)


@dataclass(frozen=True, slots=True)
class InitResult:
    tether: TetherDir
    created: list[str]
    kept: list[str]


def init(work_dir: Path | str = ".", goal: str | None = None) -> InitResult:
    """Create `.tether/` with templates; files that already exist are kept untouched.

    A new `.tether/` is built whole in a private temp folder beside it and renamed
    into place, so an `init` that fails (a full disk, text that cannot be written)
    leaves nothing behind, and one that succeeds leaves everything. It is private
    (0700): notes and recordings can hold what the user typed.
    """
    tether = TetherDir.at(work_dir)
    if not tether.work_dir.is_dir():
        raise TetherError(f"{tether.work_dir} is not a folder; create it first")
    goal_text = (goal or "").strip() or GOAL_PLACEHOLDER
    if not os.path.lexists(tether.root):
        result = _init_new(tether, goal_text)
        if result is not None:
            trust_what_we_made(tether)
            return result
    tether.check_door()
    return _fill_in(tether, goal_text)


def trust_what_we_made(tether: TetherDir) -> None:
    """The user just made this `.tether/`: its notes are theirs, nothing to ask about
    (:mod:`supervisor.store.trust`). Not remembered (a read-only config folder): asked."""
    from supervisor.store import trust  # it reads TetherDir: imported here, not above

    try:
        trust.trust(tether)
    except (OSError, TetherError):
        pass


def _init_new(tether: TetherDir, goal_text: str) -> InitResult | None:
    """Build `.tether/` in a temp folder and rename it into place; None if another won."""
    try:
        staging = Path(tempfile.mkdtemp(prefix=".tether.init-", dir=tether.work_dir))
    except OSError as error:
        raise TetherError(
            f"cannot create {tether.root}: {error.strerror}; check that {tether.work_dir} "
            "is writable"
        ) from error
    try:
        os.chmod(staging, 0o700)
        result = _fill_in(TetherDir(staging), goal_text, record=False)
        created = [DIRNAME + "/", *result.created]
        TetherDir(staging).record_event("init", "cli", created=created)
        try:
            os.rename(staging, tether.root)
        except OSError as error:
            if os.path.lexists(tether.root):
                return None  # another `init` made it first: fill in around theirs
            raise TetherError(
                f"cannot create {tether.root}: {error.strerror}; {fsio.write_hint(error)}"
            ) from error
        fsio.fsync_dir(tether.work_dir)
        return InitResult(tether, created, [])
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fill_in(tether: TetherDir, goal_text: str, *, record: bool = True) -> InitResult:
    """Create what is missing in an existing `.tether/`, each file atomically."""
    created: list[str] = []
    kept: list[str] = []
    try:
        for folder in (tether.checkpoints, tether.sessions, tether.agent):
            if os.path.lexists(folder):
                continue
            folder.mkdir(mode=0o700)
            created.append(folder.name + "/")
    except OSError as error:
        raise TetherError(
            f"cannot create {folder}: {error.strerror}; {fsio.write_hint(error)}"
        ) from error
    files: list[tuple[Path, str]] = [
        (tether.task, TASK_TEMPLATE.format(goal=goal_text)),
        (tether.notes, NOTES_TEMPLATE),
    ]
    with tether.updating():
        for path, text in files:
            if os.path.lexists(path):
                kept.append(path.name)
                continue
            fsio.atomic_write_text(path, text)
            created.append(path.name)
        if os.path.lexists(tether.progress):
            kept.append(tether.progress.name)
        else:
            tether.write_progress(Progress(cursor=0, phase="starting"))
            created.append(tether.progress.name)
        for path in (tether.artifacts, tether.events):
            if os.path.lexists(path):
                kept.append(path.name)
            else:
                fsio.atomic_write_bytes(path, b"")
                created.append(path.name)
    tether.sweep_temp_files()
    if created and record:
        tether.record_event("init", "cli", created=created)
    return InitResult(tether, created, kept)
