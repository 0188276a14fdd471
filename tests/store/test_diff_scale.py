"""Diffs cost what their texts weigh: `tether diff` of 20,000 headings, or of one section
of 80,000 lines with 2,000 changes, is linear work (a CPU-time limit on the child, not a
wall-clock timing: the old diff took 87 s and 64 s); and its hunks are a true diff."""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.store import checkpoints, line_diff
from supervisor.store.tether_dir import init
from tests.store.test_long_lines import run_with_cpu_limit
from tests.tether_process import TETHER


def notes_with_headings(count: int, changed: bool) -> str:
    body = "".join(
        f"## Heading {i}\n{'changed' if changed and i % 7 == 0 else 'body'} {i}\n"
        for i in range(count)
    )
    return "# Notes\n\n" + body


def test_tether_diff_of_20000_headings_is_linear_work(tmp_path: Path) -> None:
    tether = init(tmp_path, goal="g").tether
    tether.notes.write_text(notes_with_headings(20_000, changed=False))
    checkpoints.take(tether, reason="before")
    tether.notes.write_text(notes_with_headings(20_000, changed=True))
    checkpoints.take(tether, reason="after")
    done = run_with_cpu_limit([*TETHER, "diff", "1", "2"], tmp_path, seconds=8)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.count(b"\nnotes.md \xc2\xa7 Heading ") == len(range(0, 20_000, 7))


def test_a_long_section_with_scattered_changes_is_linear_work(tmp_path: Path) -> None:
    script = (
        "from supervisor.store.checkpoints import Checkpoint, diff\n"
        "lines = [f'line {i} of the notes, forty bytes or so' for i in range(80_000)]\n"
        "new = [('CHANGED ' + l) if i % 40 == 0 else l for i, l in enumerate(lines)]\n"
        "old_cp = Checkpoint(1, 't', 'r', '', '## Done\\n' + '\\n'.join(lines), {}, {})\n"
        "new_cp = Checkpoint(2, 't', 'r', '', '## Done\\n' + '\\n'.join(new), {}, {})\n"
        "text = diff(old_cp, new_cp)\n"
        "assert text.count('\\n  +CHANGED ') == 2_000, text[:500]\n"
    )
    done = run_with_cpu_limit([sys.executable, "-c", script], tmp_path, seconds=8)
    assert done.returncode == 0, done.stderr.decode()


def patched(a: list[str], hunks: list[str]) -> list[str]:
    """``a`` with the unified hunks applied, as `patch` would."""
    out: list[str] = []
    at = 0
    for line in hunks:
        if line.startswith("@@"):
            found = re.match(r"@@ -(\d+)(?:,(\d+))? ", line)
            assert found is not None
            start, length = int(found.group(1)), int(found.group(2) or 1)
            start = start - 1 if length else start
            out.extend(a[at:start])
            at = start
        elif line.startswith(" "):
            assert a[at] == line[1:]
            out.append(a[at])
            at += 1
        elif line.startswith("-"):
            assert a[at] == line[1:]
            at += 1
        else:
            out.append(line[1:])
    return out + a[at:]


LINES = st.lists(st.sampled_from(["a", "b", "c", "d", "x1", "x2", "y", ""]), max_size=80)


@settings(max_examples=150, deadline=None)
@given(LINES, LINES)
def test_the_anchored_diff_turns_one_text_into_the_other(a: list[str], b: list[str]) -> None:
    with patch.object(line_diff, "DIFFLIB_WORK", 4):  # anchors all the way down
        assert patched(a, line_diff.unified_hunks(a, b)) == b
        codes = line_diff.opcodes(a, b)
    rebuilt: list[str] = []
    for tag, i1, i2, j1, j2 in codes:
        assert tag in ("equal", "replace", "insert", "delete")
        rebuilt += a[i1:i2] if tag == "equal" else b[j1:j2]
    assert rebuilt == b


def test_a_diff_small_enough_reads_as_difflib_writes_it() -> None:
    tether_notes = ["## Done", "- one", "- two", "- three"]
    changed = [*tether_notes[:2], "- 2", tether_notes[3]]
    expected = list(difflib.unified_diff(tether_notes, changed, lineterm="", n=1))[2:]
    assert line_diff.unified_hunks(tether_notes, changed) == expected


def test_large_inputs_use_the_anchors_and_still_patch_exactly(monkeypatch) -> None:
    monkeypatch.setattr(line_diff, "DIFFLIB_WORK", 4)
    a = [f"line {i}" for i in range(300)] + ["same"] * 50
    b = [("new " + line) if i % 9 == 0 else line for i, line in enumerate(a)]
    assert patched(a, line_diff.unified_hunks(a, b)) == b
