"""Line edits between versions of a notes file, and the merge that keeps both sides.

The Notes pane and the agent edit `notes.md` at the same time. When the file
changed on disk while the user has unsaved edits, the user may merge: the
result is the user's text plus every line the disk added since the version the
user started from, each placed where it appeared on disk. No line of either
side is dropped, except lines the user deliberately deleted and the disk did
not add again. Expressed as line edits so the editor can apply them in place
and keep the user's cursor where it was.

The diff is difflib's, which is quadratic on repeated lines (6,000 identical lines
took 4 s, 4 MB of them froze the pane for minutes), so it only ever sees what lies
between the common first and last lines, and a middle too big for it is one
replacement: the same result, with less care for where the cursor stays.
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


# Above this many line pairs between the common head and tail, no line-by-line diff.
DIFF_PAIRS_LIMIT = 1_000_000


def split_lines(text: str) -> list[str]:
    return text.split("\n")


def opcodes(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes from ``old`` to ``new``, in time linear in the common head and tail
    and bounded in the middle (see the module's docstring)."""
    head = 0
    most = min(len(old), len(new))
    while head < most and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < most - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old_end, new_end = len(old) - tail, len(new) - tail
    codes: list[tuple[str, int, int, int, int]] = []
    if head:
        codes.append(("equal", 0, head, 0, head))
    middle_old, middle_new = old[head:old_end], new[head:new_end]
    if len(middle_old) * len(middle_new) > DIFF_PAIRS_LIMIT:
        codes.append(("replace", head, old_end, head, new_end))
    elif middle_old or middle_new:
        matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            codes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        codes.append(("equal", old_end, len(old), new_end, len(new)))
    return codes


def apply_edits(text: str, edits: list[LineEdit]) -> str:
    """``text`` with ``edits`` (non-overlapping, any order) applied."""
    lines = split_lines(text)
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        lines[edit.start : edit.end] = list(edit.lines)
    return "\n".join(lines)


def line_edits(current: str, target: str) -> list[LineEdit]:
    """The edits that turn ``current`` into ``target``, last first (safe to apply in order)."""
    old, new = split_lines(current), split_lines(target)
    edits = [
        LineEdit(i1, i2, tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in opcodes(old, new)
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
    edits: list[LineEdit] = []
    for tag, i1, i2, j1, j2 in opcodes(mine_lines, disk_lines):
        if tag not in ("replace", "insert"):
            continue
        candidates = disk_lines[j1:j2]
        if _undiffed(i1, i2, j1, j2):  # only the disk's lines that mine's middle lacks
            lacking = Counter(candidates) - Counter(mine_lines[i1:i2])
            candidates = [line for line in candidates if _take(lacking, line)]
        added = [line for line in candidates if not _take(deleted_by_user, line)]
        if added:
            edits.append(LineEdit(i1, i1, tuple(added)))
    edits.reverse()
    return edits


def _undiffed(i1: int, i2: int, j1: int, j2: int) -> bool:
    """A block :func:`opcodes` left whole, too big to diff line by line."""
    return (i2 - i1) * (j2 - j1) > DIFF_PAIRS_LIMIT


def _take(counts: Counter[str], line: str) -> bool:
    """Use up one ``line`` from ``counts``; False when there is none left."""
    if counts[line] > 0:
        counts[line] -= 1
        return True
    return False


def lines_only_in(text: str, other: str) -> int:
    """How many lines of ``text`` are not matched in ``other`` (for a one-line summary)."""
    left, right = split_lines(text), split_lines(other)
    unmatched = 0
    for tag, i1, i2, j1, j2 in opcodes(left, right):
        if tag == "equal":
            continue
        if _undiffed(i1, i2, j1, j2):
            unmatched += sum((Counter(left[i1:i2]) - Counter(right[j1:j2])).values())
        else:
            unmatched += i2 - i1
    return unmatched
