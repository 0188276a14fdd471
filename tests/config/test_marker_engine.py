"""The marker engine on the real captures: RE2 finds what Python's `re` finds, and the
one-pass prefilter never hides a row that a pattern matches."""

from __future__ import annotations

import json
import re

import pytest

from supervisor.config.profiles import load_profile
from supervisor.terminal.avt_emulator import AvtEmulator
from tests.locations import CAPTURES


def scanned_rows(cast) -> list[str]:
    """Every row the emulator reported changed while replaying ``cast``, as the detector sees it."""
    lines = cast.read_text().splitlines()
    head = json.loads(lines[0])
    emulator = AvtEmulator(head["width"], head["height"])
    rows = []
    for line in lines[1:]:
        _at, kind, data = json.loads(line)
        if kind == "o":
            emulator.feed(data.encode())
            rows += [emulator.row_text(y) for y in sorted(emulator.take_dirty())]
    return rows


@pytest.mark.parametrize("cast", sorted(CAPTURES.glob("*.cast")), ids=lambda p: p.stem)
def test_re2_and_its_prefilter_agree_with_re_on_every_scanned_row(cast):
    markers = load_profile("claude" if cast.name.startswith("cc") else "codex").markers
    patterns = [p for _kind, group in markers.items() for p in group]
    python = [re.compile(p.pattern) for p in patterns]
    hits = 0
    for row in scanned_rows(cast):
        ours = [(m.group(0), m.groupdict()) if (m := p.search(row)) else None for p in patterns]
        theirs = [(m.group(0), m.groupdict()) if (m := p.search(row)) else None for p in python]
        assert ours == theirs, row
        assert markers.may_match(row) == any(ours), row
        hits += any(ours)
    assert hits, "no marker on any row: the replay is not what it was"
