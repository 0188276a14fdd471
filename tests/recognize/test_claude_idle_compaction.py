"""Claude Code's own folds (2.1.286 and later): idle and precomputed, each one incident with
its trigger, from a screen crafted with the texts of 2.1.332's binary and hook inputs."""

from __future__ import annotations

import pytest

from supervisor.config.profiles import load_profile
from supervisor.recognize.fusion import Fusion
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.observations import COMPACTION, Observation
from supervisor.recognize.screen_detector import ScreenDetector
from supervisor.terminal.avt_emulator import AvtEmulator

CLAUDE = load_profile("claude").markers
OFF = ' · turn off with "idleCompaction": false in settings.json'
IDLE = f"  ⎿  Compacted while idle, before the prompt cache expired{OFF}"
PRECOMPUTED = f"  ⎿  Compacted using a summary written while you were away{OFF}"


def sightings(text: str, at: float = 1.0) -> list[Observation]:
    emulator = AvtEmulator(120, 8, 100)
    emulator.feed(("> earlier prompt\r\n\r\n" + text + "\r\n").encode())
    return ScreenDetector(CLAUDE).scan(emulator, at, emulator.take_dirty())


@pytest.mark.parametrize(("row", "trigger"), [(IDLE, "idle"), (PRECOMPUTED, "precomputed")])
def test_the_screen_names_the_scheduled_folds_trigger(row: str, trigger: str) -> None:
    (seen,) = [o for o in sightings(row) if o.kind == COMPACTION]
    assert seen.trigger == trigger


@pytest.mark.parametrize(("row", "trigger"), [(IDLE, "idle"), (PRECOMPUTED, "precomputed")])
def test_hook_and_screen_of_a_scheduled_fold_make_one_incident_with_its_trigger(
    row: str, trigger: str
) -> None:
    """Its PreCompact and PostCompact hooks say "auto" (the only words the hook has), the
    screen says which: whichever came first, the incident keeps the specific one."""
    fusion = Fusion()
    pre = {"hook_event_name": "PreCompact", "trigger": "auto", "session_id": "s"}
    post = {"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": "S"}
    observed = [
        *observations_from_hook("PreCompact", pre, 10.0),
        *observations_from_hook("PostCompact", post, 11.0),
        *sightings(row, 11.5),
    ]
    for observation in observed:
        fusion.observe(observation)
    (incident,) = fusion.incidents
    assert incident.trigger == trigger
    assert incident.sources == ["hook", "screen"]
    assert incident.title() == f"Context compacted (#1, {trigger})"


def test_a_plain_auto_fold_stays_auto() -> None:
    fusion = Fusion()
    post = {"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": "S"}
    for observation in observations_from_hook("PostCompact", post, 11.0):
        fusion.observe(observation)
    (incident,) = fusion.incidents
    assert incident.trigger == "auto"


def test_the_recorded_idle_fold_is_one_idle_incident() -> None:
    """Recorded from 2.1.332 offline with its clock run 60 times as fast (the e2e test's way):
    the screen's row and the hooks of that fold (PreCompact and PostCompact say "auto",
    SessionStart says "compact")."""
    import json

    from tests.locations import CAPTURES

    rows = (CAPTURES / "cc332-idle-screen.txt").read_text(encoding="utf-8").splitlines()
    (row,) = [r for r in rows if "Compacted while idle" in r]
    calls = [json.loads(x) for x in (CAPTURES / "cc332-idle.hooks.jsonl").read_text().splitlines()]
    fusion = Fusion()
    for n, call in enumerate(calls[1:]):  # the first is the session's start
        for observation in observations_from_hook(call["event"], call["payload"], 10.0 + n):
            fusion.observe(observation)
    for observation in sightings(row, 13.5):
        fusion.observe(observation)
    (incident,) = fusion.incidents
    assert (incident.trigger, incident.sources) == ("idle", ["hook", "screen"])


def test_the_recorded_precomputed_fold_is_one_precomputed_incident_with_its_audit() -> None:
    """Recorded from 2.1.332 offline, headless (`-p --input-format stream-json`, entrypoint
    claude-vscode: the only sessions whose idle timer writes the summary in the background),
    its clock run 60 times as fast (tests/e2e/test_claude_precomputed_compaction.py's way).
    Its PreCompact fires while the user is away, when the summary is written; SessionStart
    (compact), PostCompact and the transcript's boundary only when the next prompt swaps it
    in, about 54 fake minutes later. The hooks say "auto"; the boundary says
    ``"precomputed": true``. One incident, trigger ``precomputed``, audited."""
    import json

    from supervisor.recognize.transcripts import ClaudeTranscript
    from tests.locations import CAPTURES

    calls = [
        json.loads(x) for x in (CAPTURES / "cc332-precomputed.hooks.jsonl").read_text().splitlines()
    ]
    entries = [
        json.loads(x)
        for x in (CAPTURES / "cc332-precomputed.transcript.jsonl").read_text().splitlines()
    ]
    pins = ["refresh tokens are stored in Redis with a 15 minute TTL"]
    fusion = Fusion(decisions=lambda: pins)
    away = 3240.0  # the summary is written at 90% of the cache's hour; the swap comes later
    for call in calls[1:]:  # the first is the session's start
        at = call["t"] + (away if call["event"] != "PreCompact" else 0.0)
        for observation in observations_from_hook(call["event"], call["payload"], at):
            fusion.observe(observation)
    parser = ClaudeTranscript()
    read_at = calls[-1]["t"] + away
    for entry in entries:
        for observation in parser.feed(entry, read_at):
            fusion.observe(observation)
    (incident,) = fusion.incidents
    assert incident.trigger == "precomputed"
    assert incident.sources == ["hook", "transcript"]
    assert "FAKE-COMPACT-SUMMARY" in (incident.summary or "")
    assert incident.audit is not None
    (loss,) = incident.audit.decisions
    assert loss.status != "kept", loss  # the summary kept "refresh tokens", not Redis or 15 min
    (notice,) = [e for e in entries if e.get("subtype") == "informational"]
    (row,) = [m for m in CLAUDE.compaction if "away" in m.pattern]
    assert row.search(notice["content"]), notice["content"]
