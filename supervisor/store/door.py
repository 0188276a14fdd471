"""`.tether/` checked at the door: tether's own folder holds no links and no odd kinds.

A cloned repository can commit a `.tether/`; what it holds is untrusted until
these checks pass, and nothing under it is ever followed through a link.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from supervisor.errors import TetherError
from supervisor.store import fsio

#: What tether keeps in `.tether/`: each name must be of its kind, never a link.
FILE_NAMES = ("task.md", "notes.md", "progress.json", "artifacts.jsonl", "events.jsonl", "lock")
FOLDER_NAMES = ("checkpoints", "sessions", "agent")


def check_door(root: Path) -> None:
    """Refuse a `.tether/` that tether did not make: a link, or links and odd kinds inside.

    A cloned repository can commit `.tether/` with ``notes.md -> ~/.ssh/id_rsa`` or
    ``events.jsonl -> ~/.bashrc``; following either would paste a secret into the
    agent or append to a file a shell runs. `.tether/` itself as a link is refused
    too: its files would live wherever the link points, outside these checks.
    """
    try:
        mode = os.lstat(root).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        try:
            target = f" (to {os.readlink(root)})"
        except OSError:
            target = ""
        raise TetherError(
            f"{root} is a symbolic link{target}; tether keeps its state in a real "
            "folder and does not follow a link there (a cloned repository could point it "
            f"anywhere): replace it with a folder (`rm {root} && tether init`), or run "
            "tether in the folder the link points to"
        )
    if not stat.S_ISDIR(mode):
        raise fsio.refusal(root, fsio.kind_of(mode), "a folder")
    for names, expected, test in (
        (FILE_NAMES, "a regular file", stat.S_ISREG),
        (FOLDER_NAMES, "a folder", stat.S_ISDIR),
    ):
        for name in names:
            path = root / name
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                continue
            if not test(mode):
                raise fsio.refusal(path, fsio.kind_of(mode), expected)


def make_private(root: Path) -> int | None:
    """Close `.tether/` to other users (0700) if an older tether left it open; the old
    mode, or None when nothing changed. Only a folder this user owns is touched."""
    try:
        info = os.lstat(root)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return None
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return None
    try:
        os.chmod(root, 0o700)
    except OSError:
        return None
    return mode
