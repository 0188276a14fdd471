"""Checkpoints: numbered snapshots of the state in `.tether/checkpoints/NNNNNN.json`.

A checkpoint holds the whole text of ``task.md`` and ``notes.md``, the progress,
the invariant verdict and the git position, so that any earlier state can be
read, compared and restored without anything else. Listing reads file names
only, never contents, so it stays fast with thousands of checkpoints.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supervisor.errors import TetherError
from supervisor.store import fsio, invariant, safe_git
from supervisor.store import trust as trust_list
from supervisor.store.checkout import repository_root
from supervisor.store.tether_dir import Progress, TetherDir
from supervisor.times import utc_now

_NAME = re.compile(r"^(\d{6,})\.json$")
GIT_TIMEOUT_SECONDS = 2.0


@dataclass(slots=True)
class Checkpoint:
    """One snapshot; ``seq`` is ``None`` for the live state (see :func:`live`)."""

    seq: int | None
    at: str
    reason: str
    task: str
    notes: str
    progress: dict[str, Any]
    invariant: dict[str, Any]
    git: dict[str, Any] | None = None  # {"head": sha or None, "dirty": bool}
    incident: int | str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return "live" if self.seq is None else f"#{self.seq}"

    def to_dict(self) -> dict[str, Any]:
        data = {
            "seq": self.seq,
            "at": self.at,
            "reason": self.reason,
            "incident": self.incident,
            "git": self.git,
            "progress": self.progress,
            "invariant": self.invariant,
            "task": self.task,
            "notes": self.notes,
        }
        return {**data, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str) -> Checkpoint:
        try:
            known = {
                "seq": int(data["seq"]),
                "at": str(data["at"]),
                "reason": str(data.get("reason", "")),
                "task": str(data.get("task", "")),
                "notes": str(data.get("notes", "")),
                "progress": dict(data.get("progress") or {}),
                "invariant": dict(data.get("invariant") or {}),
                "git": data.get("git"),
                "incident": data.get("incident"),
            }
            if known["git"] is not None and not isinstance(known["git"], dict):
                raise TypeError(f"git is {type(known['git']).__name__}, not an object")
        except (KeyError, TypeError, ValueError, OverflowError) as error:
            raise TetherError(
                f"{where}: not a checkpoint ({error}); move it out of checkpoints/"
            ) from None
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(**known, extra=extra)


def path_of(tether: TetherDir, seq: int) -> os.PathLike[str]:
    return tether.checkpoints / f"{seq:06d}.json"


def list_seqs(tether: TetherDir) -> list[int]:
    """The checkpoint numbers, ascending, from file names alone."""
    try:
        entries = os.scandir(tether.checkpoints)
    except FileNotFoundError:
        return []
    with entries:
        seqs = [int(m.group(1)) for e in entries if (m := _NAME.match(e.name))]
    seqs.sort()
    return seqs


def latest_seq(tether: TetherDir) -> int | None:
    seqs = list_seqs(tether)
    return seqs[-1] if seqs else None


#: A checkpoint holds task.md and notes.md whole, each at most fsio.TEXT_LIMIT.
CHECKPOINT_LIMIT = 3 * fsio.TEXT_LIMIT


def load(tether: TetherDir, seq: int) -> Checkpoint:
    path = path_of(tether, seq)
    try:
        raw = fsio.read_bounded(path, CHECKPOINT_LIMIT)
    except FileNotFoundError:
        raise TetherError(
            f"no checkpoint {seq} in {tether.checkpoints}; see `tether history`"
        ) from None
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        line = getattr(error, "lineno", 1)
        raise TetherError(
            f"{path}:{line}: not valid JSON; checkpoint {seq} is damaged, use another one"
        ) from None
    except (ValueError, RecursionError):
        _, why = fsio.loads_why(raw)
        raise TetherError(f"{path}: {why}; checkpoint {seq} is damaged, use another one") from None
    if not isinstance(data, dict):
        raise TetherError(f"{path}: not a checkpoint object; use another one")
    return Checkpoint.from_dict(data, str(path))


def git_state(
    work_dir: os.PathLike[str] | str, *, trusted: bool | None = None
) -> dict[str, Any] | None:
    """HEAD and the dirty flag of the git work tree holding ``work_dir``; ``None`` if none.

    One ``git status`` call with a short timeout, with optional locks off so it
    never takes ``index.lock`` from under someone committing; `.tether/` itself
    is left out of the dirty flag because it changes all the time. The folder may
    be a stranger's clone, so git runs with every setting that could start a
    program turned off (:mod:`supervisor.store.safe_git`); ``trusted``: whether the
    user said to trust its `.tether/` (asked of the trust list when not given). Outside
    any git work tree (no ``.git`` at or above the folder, so git would find none) no git
    runs at all: a hook's answer there costs no process.
    """
    if repository_root(Path(work_dir)) is None:
        return None
    if trusted is None:
        trusted = trust_list.is_trusted(TetherDir.at(work_dir))
    deadline = time.monotonic() + GIT_TIMEOUT_SECONDS
    drivers = safe_git.named_drivers(work_dir, trusted=trusted, timeout=GIT_TIMEOUT_SECONDS)
    if drivers is None:
        return None
    command = safe_git.command(
        work_dir,
        "status",
        "--porcelain=v2",
        "--branch",
        "--untracked-files=normal",
        "--ignore-submodules=all",
        "--",
        ":/",
        ":!.tether",
        drivers=drivers,
    )
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=max(0.1, deadline - time.monotonic()),
            env=safe_git.environment(trusted=trusted),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    head: str | None = None
    dirty = False
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("# branch.oid "):
            oid = line.split(" ", 2)[2].strip()
            head = None if oid == "(initial)" else oid
        elif line and not line.startswith("#"):
            dirty = True
    return {"head": head, "dirty": dirty}


def live(tether: TetherDir, *, reason: str = "live", texts: bool = True) -> Checkpoint:
    """The current state in checkpoint form (``seq`` is ``None``), for diffs and snapshots.

    ``texts``: False leaves task and notes empty, for a reader that has them parsed."""
    verdict = invariant.check(tether)
    try:
        progress = tether.read_progress().to_dict()
    except TetherError:
        progress = {}
    return Checkpoint(
        seq=None,
        at=utc_now(),
        reason=reason,
        task=live_text(tether, tether.task) if texts else "",
        notes=live_text(tether, tether.notes) if texts else "",
        progress=progress,
        invariant=verdict.to_dict(),
    )


def live_text(tether: TetherDir, path: os.PathLike[str]) -> str:
    """A live file (task.md, notes.md); missing is empty, unreadable is an error naming it."""
    try:
        return tether.read_text(path)
    except TetherError:
        if not os.path.exists(path):
            return ""
        raise


_ASK_GIT: Any = object()


def take(
    tether: TetherDir,
    reason: str = "manual",
    *,
    incident: int | str | None = None,
    with_git: bool = True,
    git: dict[str, Any] | None = _ASK_GIT,
) -> Checkpoint:
    """Write the next checkpoint of the live state and return it.

    ``git``: the position when the caller has already asked :func:`git_state` (the
    supervisor asks on a worker thread, as `git status` can take seconds).
    """
    if git is _ASK_GIT:
        git = git_state(tether.work_dir) if with_git else None
    try:
        tether.checkpoints.mkdir(exist_ok=True)
    except OSError as error:
        raise TetherError(
            f"cannot create {tether.checkpoints}: {error.strerror}; {fsio.write_hint(error)}"
        ) from error
    with tether.updating():
        snapshot = live(tether, reason=reason)
        snapshot.incident = incident
        snapshot.git = git
        snapshot.seq = (latest_seq(tether) or 0) + 1
        fsio.atomic_write_json(path_of(tether, snapshot.seq), snapshot.to_dict())
    return snapshot


def changed_since_last(tether: TetherDir) -> bool:
    """Whether task, notes or progress differ from the last checkpoint (for the timer)."""
    seq = latest_seq(tether)
    if seq is None:
        return True
    try:
        last = load(tether, seq)
    except TetherError:
        return True
    now = live(tether)
    return (now.task, now.notes, now.progress) != (last.task, last.notes, last.progress)


def restore(tether: TetherDir, seq: int) -> tuple[Checkpoint, Checkpoint]:
    """Put checkpoint ``seq`` back into the live files; returns (safety, restored).

    The current state is checkpointed first (reason ``before restore of N``), so a
    restore is undone by restoring that safety checkpoint. Artifacts and events
    are history and are not rolled back; the invariant is checked afterwards.
    """
    target = load(tether, seq)
    with tether.updating():
        safety = take(tether, f"before restore of {seq}")
        tether.write_task(target.task)
        tether.write_notes(target.notes)
        if target.progress:
            progress = Progress.from_dict(target.progress, where=str(path_of(tether, seq)))
            tether.write_progress(progress, touch=False)
    tether.record_event("restore", "cli", checkpoint=seq, safety_checkpoint=safety.seq)
    return safety, target


def diff(old: Checkpoint, new: Checkpoint) -> str:
    """A readable diff, section by section: what changed in task, notes, progress, git.

    Linear in the texts (sections by title in one pass, :mod:`.line_diff` for the
    lines): 20,000 headings, or 80,000 lines with 2,000 changes, in well under a second.
    """
    from supervisor.store.line_diff import unified_hunks
    from supervisor.store.notes import Document

    out: list[str] = [
        f"--- {old.label} ({old.at}, {old.reason})",
        f"+++ {new.label} ({new.at}, {new.reason})",
    ]
    for name, before, after in (
        ("task.md", old.task, new.task),
        ("notes.md", old.notes, new.notes),
    ):
        if before == after:
            continue
        old_bodies, new_bodies = _bodies(Document.parse(before)), _bodies(Document.parse(after))
        titles = dict.fromkeys([*old_bodies, *new_bodies])  # in order, each once
        for title in titles:
            a, b = old_bodies.get(title), new_bodies.get(title)
            if a == b:
                continue
            heading = f"{name} § {title}" if title else f"{name} (before the first heading)"
            if a is None:
                out.append(f"\n{heading}: added")
            elif b is None:
                out.append(f"\n{heading}: removed")
            else:
                out.append(f"\n{heading}:")
            hunks = unified_hunks((a or "").splitlines(), (b or "").splitlines(), context=1)
            out.extend("  " + line for line in hunks)
    for key in sorted(set(old.progress) | set(new.progress)):
        if key == "updated_at":
            continue
        if old.progress.get(key) != new.progress.get(key):
            out.append(f"\nprogress.{key}: {old.progress.get(key)!r} -> {new.progress.get(key)!r}")
    if old.invariant.get("message") != new.invariant.get("message"):
        out.append(
            f"\ninvariant: {old.invariant.get('message', '?')}\n"
            f"       -> {new.invariant.get('message', '?')}"
        )
    if old.git != new.git and old.seq is not None and new.seq is not None:
        out.append(f"\ngit: {_git_text(old.git)} -> {_git_text(new.git)}")
    if len(out) == 2:
        out.append("\nno differences in task, notes or progress")
    return "\n".join(out) + "\n"


def _bodies(document: Any) -> dict[str, str]:
    """Each section's body by its title (the first of a repeated title, as a reader finds
    it), the text before the first heading under ``""``: one pass, so a diff of
    20,000 headings looks each up once instead of scanning for it."""
    bodies: dict[str, str] = {"": document.sections[0].body}
    for section in document.sections[1:]:
        bodies.setdefault(section.title, section.body)
    return bodies


def _git_text(git: dict[str, Any] | None) -> str:
    if not git:
        return "no git"
    head = (git.get("head") or "no commit")[:12]
    return f"{head}{' (dirty)' if git.get('dirty') else ''}"
