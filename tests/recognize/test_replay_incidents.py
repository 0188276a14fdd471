"""Every capture yields exactly the incidents its README lists, however the bytes are split."""

from __future__ import annotations

import json

import pytest

from supervisor.store.tether_dir import TetherDir
from tests.replay import SCENARIOS, captures_dir, replay

# scenario -> [(incident kind, trigger or None, sources that must have seen it)]
EXPECTED: dict[str, list[tuple[str, str | None, set[str]]]] = {
    "cc-compact-manual": [("compaction", "manual", {"screen", "transcript"})],
    "cc-compact-manual-da1": [("compaction", "manual", {"screen", "transcript"})],
    "cc-compact-auto": [("compaction", "auto", {"screen", "transcript"})],
    "cc-clear": [("wipe", None, {"transcript"})],
    "cc-crash": [("crash", None, {"process"})],
    "cc-resume": [],
    "cc-hooks": [("compaction", "manual", {"screen", "transcript", "hook"})],
    "cc-context-low": [],
    "cc-context-low-noauto": [],
    "cx-compact-manual": [("compaction", "manual", {"screen", "transcript"})],
    "cx-compact-auto": [
        ("compaction", "auto", {"screen", "transcript"}),
        ("compaction", "auto", {"screen", "transcript"}),
    ],
    "cx-resume": [],
    # Claude Code 2.1.332 (with the hook logger): an automatic compaction shows nothing on
    # screen, and it compacts by itself near the limit (twice in cc332-context-low)
    "cc332-compact-manual": [("compaction", "manual", {"screen", "transcript", "hook"})],
    "cc332-compact-auto": [("compaction", "auto", {"transcript", "hook"})],
    "cc332-clear": [("wipe", None, {"transcript", "hook"})],
    "cc332-crash": [("crash", None, {"process"})],
    "cc332-context-low": [
        ("compaction", "auto", {"transcript", "hook"}),
        ("compaction", "auto", {"transcript", "hook"}),
    ],
    "cc332-context-low-noauto": [],
    "cc332-resume": [],
    "cx171-compact-manual": [("compaction", "manual", {"screen", "transcript"})],
    "cx171-compact-auto": [
        ("compaction", "auto", {"screen", "transcript"}),
        ("compaction", "auto", {"screen", "transcript"}),
    ],
    # Codex's /clear without hooks: the rollout of the new session (its session_meta names
    # another session than the one followed) is the wipe
    "cx171-clear": [("wipe", None, {"transcript"})],
    "cx171-crash": [("crash", None, {"process"})],
    # with hooks (as tether installs them for Codex): /clear fires SessionStart(clear),
    # and the new rollout joins it
    "cx171-hooks": [
        ("compaction", "manual", {"screen", "transcript", "hook"}),
        ("wipe", None, {"hook", "transcript"}),
    ],
    "cx171-resume": [],
}
SEEDS = [None, *range(1, 13)]


def test_every_capture_scenario_has_an_expectation() -> None:
    on_disk = {path.name.removesuffix(".raw") for path in captures_dir().glob("*.raw")}
    assert on_disk == set(SCENARIOS) == set(EXPECTED)


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: "real-reads" if s is None else f"seed{s}")
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_capture_yields_exactly_the_listed_incidents(name: str, seed: int | None) -> None:
    incidents = replay(name, seed).incidents
    got = [(i.kind, i.trigger, set(i.sources)) for i in incidents]
    assert len(got) == len(EXPECTED[name]), got
    for (kind, trigger, sources), (want_kind, want_trigger, want_sources) in zip(
        got, EXPECTED[name], strict=True
    ):
        assert kind == want_kind
        assert trigger == want_trigger
        assert sources == want_sources


@pytest.mark.parametrize(
    "name",
    [
        "cc-compact-manual",
        "cc-hooks",
        "cx-compact-auto",
        "cc332-compact-manual",
        "cc332-compact-auto",
        "cc332-context-low",
        "cx171-compact-manual",
        "cx171-compact-auto",
    ],
)
def test_compaction_incidents_carry_the_summary_text(name: str) -> None:
    for incident in replay(name).incidents:
        assert incident.summary and "COMPACT-SUMMARY" in incident.summary


def test_resumed_sessions_replay_old_compactions_as_history_not_incidents() -> None:
    for name in ("cc-resume", "cx-resume", "cc332-resume", "cx171-resume"):
        result = replay(name)
        assert result.incidents == []
        assert not [o for o in result.observations if o.kind in ("compaction", "wipe")]


def test_context_low_footer_is_observed_with_its_percentage() -> None:
    seen = [
        o.details["percent"]
        for o in replay("cc-context-low-noauto").observations
        if o.kind == "context_low" and o.source == "screen"
    ]
    assert seen == [2, 1, 0]
    seen = [  # 2.1.332 shows the same percentages while it works, with another hint after them
        o.details["percent"]
        for o in replay("cc332-context-low-noauto").observations
        if o.kind == "context_low" and o.source == "screen"
    ]
    assert seen == [2, 1, 0]
    used = [
        o.details["percent"]
        for o in replay("cc-context-low").observations
        if o.kind == "context_used" and o.source == "screen"
    ]
    assert used == [97, 99, 100]
    until = [  # 2.1.332 shows no "% context used"; it counts down to its own compaction
        (o.details["percent"], o.details["marker"])
        for o in replay("cc332-context-low").observations
        if o.kind == "context_low" and o.source == "screen"
    ]
    assert until == [(2, "2% until auto-compact")]


def test_codex_osc7501_reports_are_agent_states() -> None:
    states = [
        o.details["state"]
        for o in replay("cx-compact-manual", 3).observations
        if o.kind == "agent_state" and o.source == "stream"
    ]
    assert states[0] == "waiting" and "busy" in states and states[-1] == "exited"


def test_incidents_are_appended_to_events_jsonl_with_number_trigger_sources(tmp_path) -> None:
    (tmp_path / ".tether").mkdir()
    tether = TetherDir.at(tmp_path)
    replay("cx-compact-auto", 11, tether=tether)
    events = [json.loads(line) for line in tether.events.read_text().splitlines()]
    incidents = [e for e in events if e["kind"] == "incident"]
    assert [e["number"] for e in incidents] == [1, 2]
    assert all(e["type"] == "compaction" and e["trigger"] == "auto" for e in incidents)
    updates = [e for e in events if e["kind"] == "incident_update"]
    assert {u["number"] for u in updates} == {1, 2}
    assert all(set(u["sources"]) == {"screen", "transcript"} for u in updates)
    assert any(e["kind"] == "compaction" and e["source"] == "screen" for e in events)
