"""Line edits between versions of a notes file, and the merge that keeps both sides.

The Notes pane and the agent edit `notes.md` at the same time. When the file
changed on disk while the user has unsaved edits, the user may merge: the
result is the user's text plus every line the disk added since the version the
user started from, each placed where it appeared on disk. No line of either
side is dropped, except lines the user deliberately deleted and the disk did
not add again. Expressed as line edits so the editor can apply them in place
and keep the user's cursor where it was.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LineEdit:
    """Replace lines ``start:end`` (``start == end``: insert before line ``start``) by ``lines``.

    Lines are the pieces of ``text.split("\\n")``, so the last line is the text
    after the final newline (often empty).
    """

    start: int
    end: int
    lines: tuple[str, ...]


def split_lines(text: str) -> list[str]:
    return text.split("\n")


def apply_edits(text: str, edits: list[LineEdit]) -> str:
    """``text`` with ``edits`` (non-overlapping, any order) applied."""
    lines = split_lines(text)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        lines[edit.start : edit.end] = list(edit.lines)
    return "\n".join(lines)


def line_edits(current: str, target: str) -> list[LineEdit]:
    """The edits that turn ``current`` into ``target``, last first (safe to apply in order)."""
    old, new = split_lines(current), split_lines(target)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    edits = [
        LineEdit(i1, i2, tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]
    edits.reverse()
    return edits


def merge_additions(base: str, disk: str, mine: str) -> list[LineEdit]:
    """Insertions into ``mine`` of the lines ``disk`` has and ``mine`` lacks, last first.

    A disk line that was in ``base`` and is missing from ``mine`` was deleted
    by the user, so it is not put back; every other line only on disk is.
    """
    mine_lines, disk_lines = split_lines(mine), split_lines(disk)
    deleted_by_user = Counter(split_lines(base)) - Counter(mine_lines)
    matcher = difflib.SequenceMatcher(None, mine_lines, disk_lines, autojunk=False)
    edits: list[LineEdit] = []
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag not in ("replace", "insert"):
            continue
        added: list[str] = []
        for line in disk_lines[j1:j2]:
            if deleted_by_user[line] > 0:
                deleted_by_user[line] -= 1
                continue
            added.append(line)
        if added:
            edits.append(LineEdit(i1, i1, tuple(added)))
    edits.reverse()
    return edits


def merge_keep_both(base: str, disk: str, mine: str) -> str:
    """``mine`` plus the lines the disk added since ``base`` (see :func:`merge_additions`)."""
    return apply_edits(mine, merge_additions(base, disk, mine))


def lines_only_in(text: str, other: str) -> int:
    """How many lines of ``text`` are not matched in ``other`` (for a one-line summary)."""
    left, right = split_lines(text), split_lines(other)
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    return len(left) - sum(block.size for block in matcher.get_matching_blocks())
