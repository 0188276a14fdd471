"""Replay a real capture through the whole recognition engine, as the app would run it.

Bytes go through the AvtEmulator (its OSC 7501 reports) + screen detector in
the chunks given; inputs end the resume replay window at their byte offsets;
the capture's transcript (and hook log) are fed at their own times, aligned to
the capture clock; the process exit is classified; fusion makes incidents.
"""

from __future__ import annotations

import bisect
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from supervisor.config.profiles import load_profile
from supervisor.recognize.agent_state import StatusReports
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.observations import Incident, Observation
from supervisor.recognize.process_watch import exit_observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout, entry_time
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.terminal.avt_emulator import AvtEmulator
from tests.locations import CAPTURES


def captures_dir() -> Path:
    if not (CAPTURES / "README.md").is_file():
        raise AssertionError(f"the captures are missing: expected them in {CAPTURES}")
    return CAPTURES


# scenario -> (profile, started with the resume command, transcript files, prefix scenario)
SCENARIOS: dict[str, tuple[str, bool, tuple[str, ...], str | None]] = {
    "cc-compact-manual": ("claude", False, ("transcript",), None),
    "cc-compact-manual-da1": ("claude", False, ("transcript",), None),
    "cc-compact-auto": ("claude", False, ("transcript",), None),
    "cc-clear": ("claude", False, ("transcript", "transcript-2"), None),
    "cc-crash": ("claude", False, ("transcript",), None),
    "cc-resume": ("claude", True, ("transcript",), "cc-compact-manual"),
    "cc-hooks": ("claude", False, ("transcript",), None),
    "cc-context-low": ("claude", False, ("transcript",), None),
    "cc-context-low-noauto": ("claude", False, ("transcript",), None),
    "cx-compact-manual": ("codex", False, ("transcript",), None),
    "cx-compact-auto": ("codex", False, ("transcript",), None),
    "cx-resume": ("codex", True, ("transcript",), "cx-compact-manual"),
    # recorded by tests/e2e/record_captures.py from Claude Code 2.1.332 and Codex 0.171.0
    "cc332-compact-manual": ("claude", False, ("transcript",), None),
    "cc332-compact-auto": ("claude", False, ("transcript",), None),
    "cc332-clear": ("claude", False, ("transcript", "transcript-2"), None),
    "cc332-crash": ("claude", False, ("transcript",), None),
    "cc332-context-low": ("claude", False, ("transcript",), None),
    "cc332-context-low-noauto": ("claude", False, ("transcript",), None),
    "cc332-resume": ("claude", True, ("transcript",), "cc332-compact-manual"),
    "cx171-compact-manual": ("codex", False, ("transcript",), None),
    "cx171-compact-auto": ("codex", False, ("transcript",), None),
    "cx171-clear": ("codex", False, ("transcript", "transcript-2"), None),
    "cx171-crash": ("codex", False, ("transcript",), None),
    "cx171-resume": ("codex", True, ("transcript",), "cx171-compact-manual"),
    "cx171-hooks": ("codex", False, ("transcript", "transcript-2"), None),
}


@dataclass
class Replay:
    incidents: list[Incident]
    observations: list[Observation] = field(default_factory=list)


def chunk_offsets(name: str, seed: int | None) -> list[int]:
    """Ends of the reads: the real ones (seed None) or random cuts of 1..400 bytes."""
    folder = captures_dir()
    size = (folder / f"{name}.raw").stat().st_size
    if seed is None:
        meta = json.loads((folder / f"{name}.events.json").read_text())
        ends = sorted({offset + length for _, offset, length in meta["read_chunks"]["list"]})
    else:
        rnd = random.Random(seed)
        ends, position = [], 0
        while position < size:
            position = min(size, position + rnd.randint(1, 400))
            ends.append(position)
    return sorted(set(ends) | {size})


def _transcript_observations(name: str, meta: dict, files: tuple[str, ...], prefix: str | None):
    """Transcript entries as observations on the capture clock (t seconds since spawn)."""
    folder = captures_dir()
    parser = CodexRollout() if name.startswith("cx") else ClaudeTranscript()
    records = []
    for index, suffix in enumerate(files):
        data = (folder / f"{name}.{suffix}.jsonl").read_bytes()
        start = 0
        if prefix and index == 0:
            before = (folder / f"{prefix}.transcript.jsonl").read_bytes()
            assert data.startswith(before)
            start = len(before)  # what existed before this run started: not replayed
        records += [(r, False) for r in JsonlBuffer().feed(data[start:])]
    # align: the first turn entry is written when the first Enter is pressed
    first_enter = next(
        e["t"] for e in meta["events"] if e["kind"] == "input" and e.get("data") == "\r"
    )
    anchor = None
    for record, _ in records:
        starts_turn = (
            record.get("type") == "user" and not record.get("isMeta")
            if parser.__class__ is ClaudeTranscript
            else (record.get("payload") or {}).get("type") == "task_started"
        )
        if starts_turn and entry_time(record) is not None:
            anchor = entry_time(record) - first_enter
            break
    assert anchor is not None, name
    found = []
    for record, history in records:
        at = entry_time(record)
        if at is not None:
            found += parser.feed(record, at - anchor, history=history)
    return found


def _hook_observations(name: str, meta: dict) -> list[Observation]:
    path = captures_dir() / f"{name}.hooks.jsonl"
    if not path.is_file():
        return []
    found = []
    for line, summary in zip(path.read_text().splitlines(), meta["hooks"], strict=True):
        entry = json.loads(line)
        found += observations_from_hook(entry["event"], entry["payload"], summary["t"])
    return found


def replay(name: str, seed: int | None = None, *, tether=None) -> Replay:
    """Run one capture through the engine; ``seed`` picks a random chunking (None = real reads).

    Real reads go through the emulator as the app configures it. Random cuts
    land inside Codex's synchronized-output frames at almost every read, and
    the emulator's hold restarts with each frame, so there the hold is turned
    off: the detector then also sees torn, half-drawn frames, the harder case.
    """
    folder = captures_dir()
    profile_name, resuming, files, prefix = SCENARIOS[name]
    profile = load_profile(profile_name)
    meta = json.loads((folder / f"{name}.events.json").read_text())
    raw = (folder / f"{name}.raw").read_bytes()
    read_ends = [offset + length for _, offset, length in meta["read_chunks"]["list"]]
    read_times = [t for t, _, _ in meta["read_chunks"]["list"]]
    inputs = sorted(e["raw_offset"] for e in meta["events"] if e["kind"] == "input")

    def clock(offset: int) -> float:
        index = min(bisect.bisect_left(read_ends, offset), len(read_times) - 1)
        return read_times[index]

    timed: list[tuple[float, int, Observation]] = []
    emulator = AvtEmulator(120, 40, 1000, sync_timeout=1.0 if seed is None else 0.0)
    screen = ScreenDetector(profile.markers, replaying=resuming)
    reports = StatusReports()
    position = 0
    scrolled = 0
    for end in chunk_offsets(name, seed):
        while inputs and inputs[0] <= position:
            inputs.pop(0)
            screen.note_input()
        data = raw[position:end]
        now = clock(end)
        scrolled += len(emulator.feed(data).scrolled_off)
        for observation in reports.read(emulator.agent_status, now):
            timed.append((now, len(timed), observation))
        dirty = emulator.take_dirty()
        if dirty:  # as Supervision does: scan when rows changed, with the scroll since
            for observation in screen.scan(emulator, now, dirty, scrolled=scrolled):
                timed.append((now, len(timed), observation))
            scrolled = 0
        position = end
    for observation in _transcript_observations(name, meta, files, prefix):
        timed.append((observation.at, len(timed), observation))
    for observation in _hook_observations(name, meta):
        timed.append((observation.at, len(timed), observation))
    exit_event = next(e for e in meta["events"] if e["kind"] == "process_exit")
    detail = exit_event["detail"]
    ended = exit_observation(detail.get("exit_code"), detail.get("signal"), exit_event["t"])
    timed.append((ended.at, len(timed), ended))

    timed.sort(key=lambda item: (item[0], item[1]))
    fusion = Fusion(tether)
    observations = [observation for _, _, observation in timed]
    for observation in observations:
        fusion.observe(observation)
    return Replay(fusion.incidents, observations)
