"""The checkout an action ran against: git HEAD and a fingerprint of the working tree.

A verification is *current* only while the checkout it ran against is the checkout
now, so the fingerprint must change whenever a file git would report changes: it
hashes ``git status --porcelain=v2 -z`` (what is modified, added, untracked, and
HEAD) and the size and modification time of every path it names (an edit of an
already modified file leaves the status unchanged but not its stat).

git runs hardened, because the folder may be a hostile clone (every setting that can
start a program off, :mod:`supervisor.store.safe_git`, no optional locks so status
never writes the index under the agent), with a timeout and a bounded read of its
output. It is a blocking call: never on the event loop.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supervisor.store import safe_git
from supervisor.store import trust as trust_list
from supervisor.store.tether_dir import TetherDir

GIT_TIMEOUT_S = 5.0
#: The most of ``git status`` read; past it the fingerprint covers what was read and says so.
STATUS_LIMIT = 8 * 1024 * 1024
#: Dirty paths whose stat is hashed; a tree with more is fingerprinted on its status alone.
STAT_LIMIT = 5000


@dataclass(frozen=True, slots=True)
class Checkout:
    """``head``: the commit (None before the first one or outside git); ``tree``: the
    working tree's fingerprint (None when git could not tell)."""

    head: str | None
    tree: str | None
    # The changed paths git reports (relative to the repository's root) and their mtime in
    # ns, to tell which files an action touched; not part of the checkout's identity.
    dirty: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def known(self) -> bool:
        return self.tree is not None

    def to_json(self) -> dict[str, Any]:
        return {"head": self.head, "tree": self.tree}

    @classmethod
    def from_json(cls, data: Any) -> Checkout:
        if not isinstance(data, dict):
            return UNKNOWN
        head, tree = data.get("head"), data.get("tree")
        return cls(head if isinstance(head, str) else None, tree if isinstance(tree, str) else None)

    def short(self) -> str:
        """For people: ``a1b2c3d+f00d`` (HEAD, working tree)."""
        if not self.known:
            return "unknown checkout"
        head = (self.head or "no commit")[:10]
        return f"{head} tree {self.tree}"


UNKNOWN = Checkout(None, None)


def repository_root(work_dir: Path) -> Path | None:
    """The nearest folder at or above ``work_dir`` holding ``.git`` (a folder or a worktree's
    file): git names paths from there. Found without running git."""
    here = Path(os.path.abspath(work_dir))
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def current_checkout(work_dir: Path | str) -> Checkout:
    """The checkout of ``work_dir`` now; :data:`UNKNOWN` outside git or when git fails.

    tether's own folder is left out: a note written is not a change of the checkout.
    git runs as every git call of tether's does (:mod:`supervisor.store.safe_git`):
    nothing the repository's configuration names (fsmonitor, hooks, filter drivers,
    a pager) can start a program. Within :func:`safe_git.one_reading` it is read once.
    """
    work_dir = Path(os.path.abspath(work_dir))
    return safe_git.remembered(("checkout", str(work_dir)), lambda: _read_checkout(work_dir))


def _read_checkout(work_dir: Path) -> Checkout:
    root = repository_root(work_dir)
    if root is None:
        return UNKNOWN
    try:
        trusted = trust_list.is_trusted(TetherDir.at(work_dir))
    except Exception:  # an unreadable trust list: the stricter way
        trusted = False
    drivers = safe_git.named_drivers(work_dir, trusted=trusted, timeout=GIT_TIMEOUT_S)
    if drivers is None:
        return UNKNOWN
    argv = safe_git.command(
        work_dir,
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--ignore-submodules=dirty",
        "--",
        ":/",
        ":!.tether",
        drivers=drivers,
    )
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=safe_git.environment(trusted=trusted),
        )
    except OSError:
        return UNKNOWN
    assert proc.stdout is not None
    try:
        out = proc.stdout.read(STATUS_LIMIT + 1)
        truncated = len(out) > STATUS_LIMIT
        if truncated:
            proc.kill()
        proc.stdout.close()
        code = proc.wait(timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return UNKNOWN
    if code != 0 and not truncated:
        return UNKNOWN
    own = os.fsencode(os.path.relpath(work_dir / ".tether", root)) + b"/"
    return fingerprint(out[:STATUS_LIMIT], root, truncated=truncated, exclude=own)


def fingerprint(
    status: bytes, root: Path, *, truncated: bool = False, exclude: bytes | None = None
) -> Checkout:
    """The :class:`Checkout` of one ``git status --porcelain=v2 -z --branch`` output;
    paths under ``exclude`` (a folder, relative to ``root``, ending in "/") are left out."""
    digest = hashlib.sha256()
    head: str | None = None
    paths: list[bytes] = []
    records = status.split(b"\0")
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        path: bytes | None = None
        if record.startswith(b"# branch.oid "):
            oid = record[len(b"# branch.oid ") :].decode("ascii", "replace")
            head = None if oid == "(initial)" else oid
        elif record[:2] == b"1 ":
            path = record.split(b" ", 8)[-1]
        elif record[:2] == b"u ":
            path = record.split(b" ", 10)[-1]
        elif record[:2] == b"2 ":  # a rename: the new path here, the old one next
            path = record.split(b" ", 9)[-1]
            if index < len(records):
                record += b"\0" + records[index]
            index += 1
        elif record[:2] == b"? ":
            path = record[2:]
        if path is None or (exclude and path.startswith(exclude)):
            continue
        digest.update(record + b"\0")
        paths.append(path)
    digest.update(b"HEAD " + (head or "").encode())
    dirty: list[tuple[str, int]] = []
    for path in paths[:STAT_LIMIT]:
        try:
            info = os.lstat(os.path.join(os.fsencode(root), path))
            digest.update(b"%s\0%d\0%d\0" % (path, info.st_size, info.st_mtime_ns))
            dirty.append((os.fsdecode(path), info.st_mtime_ns))
        except OSError:
            digest.update(path + b"\0gone\0")
    if truncated or len(paths) > STAT_LIMIT:
        digest.update(b"\0partial")
    return Checkout(head, digest.hexdigest()[:16], tuple(dirty))
