"""The payload's bytes, as they were when the render was sanitized whole at every try: each
text tether did not write is now sanitized once, where it enters, and the render only has
its long lines cut. Hostile bytes in every input, a line the bullet pushes over the limit,
and each way the budget fits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from supervisor.config.profiles import load_profile
from supervisor.rehydrate import evidence_section, live_notes
from supervisor.rehydrate import payload as payload_module
from supervisor.rehydrate import sanitize as sanitize_module
from supervisor.rehydrate.payload import build_payload
from supervisor.store.tether_dir import TetherDir, init

EXPECTED = Path(__file__).parent / "payload_bytes"
HOSTILE = "x\x1b[201~y\x1b]52;c;aGk=\x07z\r\nw\u202eevil\u202c\U000e0041\x9b31m\x07"
TASK = f"""# Task

## Goal

Count to 400 {HOSTILE}, one artifact per number.

## Success criteria

- artifacts.jsonl holds 1..400
- no gaps {HOSTILE}

## Constraints

- never rewrite an artifact
"""
DONE = "".join(f"- step {n} done{HOSTILE if n % 7 == 0 else ''}\n" for n in range(60))
NOTES = f"""# Notes

## Phase

counting, {HOSTILE}

## Decisions

- DECISION: retry budget is 250 ms per call; use `retry_budget_ms`
- DECISION: the cache holds 512 MB {HOSTILE}
  and a second line

## Rejected approaches

- a thread per artifact {HOSTILE}
- {"r" * 2500}

## Done

{DONE}- {"d" * 1999}

## Unproven

- the cache is warm {HOSTILE}

## Next step

write artifact 61 {HOSTILE}
"""
INCIDENT: dict[str, Any] = {
    "kind": "incident",
    "number": 3,
    "type": "compaction",
    "trigger": "auto",
    "sources": ["hook", f"screen{HOSTILE}"],
    "at": "2026-12-02T04:00:00.000Z",
    "summary": f"We counted to 60 {HOSTILE}\nand stopped.",
    "message": f"the agent said {HOSTILE}",
    "audit": {
        "lost": [{"decision": f"the cache holds 512 MB {HOSTILE}", "missing": ["512 MB"]}],
        "degraded": [{"decision": "retry budget", "missing": [f"250{HOSTILE}"]}],
        "changed": [],
    },
    "dropped_unpinned": [{"term": f"port 8443{HOSTILE}"}, {"term": "tokens.py"}],
}
CASES = {"whole": 0, "profile": None, "roomy": 1500, "tight": 700, "over": 40}


def folder(tmp_path: Path) -> TetherDir:
    tether = init(tmp_path, goal="count to 400").tether
    tether.task.write_text(TASK)
    tether.notes.write_text(NOTES)
    return tether


def built(tether: TetherDir, budget: int | None) -> str:
    profile = load_profile("claude")
    return build_payload(tether, profile, incident=dict(INCIDENT), budget=budget).text


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_payload_s_bytes_are_those_of_the_whole_render_sanitized(
    tmp_path: Path, case: str
) -> None:
    text = built(folder(tmp_path), CASES[case])
    expected = (EXPECTED / f"{case}.txt").read_bytes().decode("utf-8")
    assert text == expected


def test_each_text_is_sanitized_once_however_often_the_budget_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tether = folder(tmp_path)
    seen: list[str] = []
    sanitize = sanitize_module.sanitize

    def counted(text: str, **options: Any) -> str:
        seen.append(text)
        return sanitize(text, **options)

    for module in (payload_module, live_notes, evidence_section):
        monkeypatch.setattr(module, "sanitize", counted)
    calls: dict[str, int] = {}
    for case, budget in CASES.items():
        seen.clear()
        text = built(tether, budget)
        assert sanitize(text, max_line=0) == text  # nothing left to remove
        assert not [t for t in seen if "# Checkpoint summary" in t]  # no render, whole
        calls[case] = len(seen)
    # The whole render once, or eight tries at a budget: the same texts, each once.
    assert len(set(calls.values())) == 1, calls
    hostile = [t for t in seen if "\x1b[201~" in t]  # each a text as it entered, once:
    assert len(hostile) == 2 + 6  # task.md, notes.md; the incident's summary, message, a
    # source, the lost and degraded audit rows, a dropped term
