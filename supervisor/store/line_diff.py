"""A line diff whose cost grows with its input, not with its input times its changes.

:mod:`difflib` finds the longest match in a range, splits there and recurses, scanning
the range each time: 80,000 lines with 2,000 scattered changes took it 64 s. Here the
lines that occur once on each side anchor the comparison (patience diff: the longest
run of such lines in the same order), the gaps between anchors are compared again the
same way, and only gaps small enough to be cheap go to :mod:`difflib`; a large gap with
no anchor is shown as replaced, whole. The hunks are written as ``difflib.unified_diff``
writes them, without its two header lines.
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterable, Sequence

# A pair of line ranges whose product is at most this is left to difflib (its output,
# for the diffs people usually look at); a bigger one is anchored first.
DIFFLIB_WORK = 250_000
_MAX_DEPTH = 12

Opcode = tuple[str, int, int, int, int]


def unified_hunks(a: Sequence[str], b: Sequence[str], context: int = 1) -> list[str]:
    """The hunks of a unified diff of ``a`` and ``b`` (lines without ends)."""
    if len(a) * len(b) <= DIFFLIB_WORK:
        return list(difflib.unified_diff(a, b, lineterm="", n=context))[2:]
    codes = opcodes(a, b)
    out: list[str] = []
    for group in _grouped(codes, context):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                out.extend("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                out.extend("+" + line for line in b[j1:j2])
    return out


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """``SequenceMatcher.get_opcodes`` for ``a`` and ``b``, found in near-linear time."""
    found: list[Opcode] = []
    _compare(a, b, 0, len(a), 0, len(b), found, 0)
    return _merged(found)


def _compare(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[Opcode],
    depth: int,
) -> None:
    # The common start and end first: most of a checkpoint's notes did not change.
    start = alo
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo, blo = alo + 1, blo + 1
    if alo > start:
        out.append(("equal", start, alo, blo - (alo - start), blo))
    end_a, end_b = ahi, bhi
    while ahi > alo and bhi > blo and a[ahi - 1] == b[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
    _middle(a, b, alo, ahi, blo, bhi, out, depth)
    if ahi < end_a:
        out.append(("equal", ahi, end_a, bhi, end_b))


def _middle(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    out: list[Opcode],
    depth: int,
) -> None:
    if alo == ahi and blo == bhi:
        return
    if alo == ahi:
        out.append(("insert", alo, alo, blo, bhi))
        return
    if blo == bhi:
        out.append(("delete", alo, ahi, blo, blo))
        return
    if (ahi - alo) * (bhi - blo) <= DIFFLIB_WORK:
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            out.append((tag, alo + i1, alo + i2, blo + j1, blo + j2))
        return
    anchors = _anchors(a, b, alo, ahi, blo, bhi) if depth < _MAX_DEPTH else []
    if not anchors:
        out.append(("replace", alo, ahi, blo, bhi))
        return
    i, j = alo, blo
    for ai, bj in anchors:
        _compare(a, b, i, ai, j, bj, out, depth + 1)
        out.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    _compare(a, b, i, ahi, j, bhi, out, depth + 1)


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]]:
    """The lines found once on each side, paired, in their longest common order."""
    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if seen_a.get(line, -1) >= 0:
            seen_b[line] = -1 if line in seen_b else j
    pairs = sorted((seen_a[line], j) for line, j in seen_b.items() if j >= 0)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by their first) increasing in their second."""
    tails: list[int] = []  # the smallest second ending a run of each length
    ends: list[int] = []  # the index of that pair
    before = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[length], ends[length] = j, index
        before[index] = ends[length - 1] if length else -1
    run: list[tuple[int, int]] = []
    index = ends[-1] if ends else -1
    while index >= 0:
        run.append(pairs[index])
        index = before[index]
    run.reverse()
    return run


def _merged(codes: list[Opcode]) -> list[Opcode]:
    """Neighbouring opcodes of one kind as one; an empty equal dropped."""
    out: list[Opcode] = []
    for code in codes:
        tag, i1, i2, j1, j2 = code
        if i1 == i2 and j1 == j2:
            continue
        if out and out[-1][0] == tag:
            last = out[-1]
            out[-1] = (tag, last[1], i2, last[3], j2)
        elif out and tag != "equal" and out[-1][0] != "equal":
            last = out[-1]
            out[-1] = ("replace", last[1], i2, last[3], j2)
        else:
            out.append(code)
    return out


def _grouped(codes: list[Opcode], n: int) -> Iterable[list[Opcode]]:
    """``SequenceMatcher.get_grouped_opcodes`` for opcodes found here."""
    matcher = _Given(codes)
    return matcher.get_grouped_opcodes(n)


class _Given(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """A SequenceMatcher that hands back the opcodes it is given (for its grouping)."""

    def __init__(self, codes: list[Opcode]) -> None:
        super().__init__(None, [], [])
        self._codes = codes

    def get_opcodes(self) -> list[Opcode]:  # type: ignore[override]
        return list(self._codes) or [("equal", 0, 1, 0, 1)]


def _range(start: int, stop: int) -> str:
    """A unified diff's range, as difflib writes it."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"
