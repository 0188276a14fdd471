"""GitHub Copilot CLI 1.0.102: profile, journal and hooks, held against what it printed.

The fixtures were recorded with the real CLI offline against tests/e2e/fake_server.py
(tests/fixtures/captures/README.md, "cp102"): two prompts (the first a typed DECISION),
/compact with a focus, a prompt, /clear, a prompt, SIGKILL, `copilot --continue`, a prompt,
a prompt the fake server reported 900,000 tokens for, the prompt whose turn folded, /exit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from supervisor.config.profiles import load_profile
from supervisor.recognize.copilot_journal import CopilotJournal
from supervisor.recognize.hook_events import observations_from_hook
from supervisor.recognize.observations import (
    AT_NEXT_TURN,
    AUTO,
    COMPACTION,
    COMPACTION_STARTED,
    MANUAL,
    SESSION,
    USAGE,
    WIPE,
)
from tests.locations import CAPTURES

SCREENS = CAPTURES / "cp102-screens"
DECISION = (
    "DECISION: refresh tokens live in Redis with a 15 min TTL, rotated on every use, "
    "because the auditors require it"
)


def rows(name: str) -> list[str]:
    return (SCREENS / f"{name}.txt").read_text(encoding="utf-8").splitlines()


def kinds_on(name: str) -> set[str]:
    markers = load_profile("copilot").markers.items()
    return {
        kind
        for row in rows(name)
        for kind, patterns in markers
        if any(pattern.search(row) for pattern in patterns)
    }


@pytest.mark.parametrize(
    ("screen", "expected"),
    [
        ("compact", {"compaction", "prompt_ready"}),
        ("auto", {"compaction_started", "compaction", "prompt_ready"}),
        ("clear", {"wipe", "prompt_ready"}),
        ("continue", {"prompt_ready"}),
        ("exit", {"exit_hint"}),
    ],
)
def test_the_profile_finds_what_each_copilot_screen_shows(screen: str, expected: set[str]) -> None:
    assert kinds_on(screen) == expected


def test_the_exit_hint_names_the_session_to_resume() -> None:
    (pattern,) = load_profile("copilot").markers.exit_hint
    found = [m for row in rows("exit") if (m := pattern.search(row))]
    assert found[0].group("session") == "e79a74b3-7b14-4e72-8b5c-27ca06d707a3"


def journal(name: str) -> list[dict]:
    return [json.loads(line) for line in (CAPTURES / name).read_text().splitlines()]


def feed(parser: CopilotJournal, records: list[dict]) -> list:
    return [o for record in records for o in parser.feed(record, None)]


def test_a_manual_compact_gives_its_trigger_summary_and_what_it_folded() -> None:
    seen = feed(CopilotJournal(), journal("cp102-journal.jsonl"))
    started = [o for o in seen if o.kind == COMPACTION_STARTED]
    done = [o for o in seen if o.kind == COMPACTION]
    assert [o.trigger for o in started] == [MANUAL]
    assert len(done) == 1 and done[0].trigger == MANUAL
    assert done[0].summary.startswith("FAKE-COPILOT-COMPACT-SUMMARY:")
    assert done[0].details["focus"] == "keep the decisions"
    assert done[0].details["checkpoint_path"].endswith(".md")
    assert done[0].details["compaction_id"] == started[0].details["compaction_id"]
    assert DECISION in done[0].folded  # the loss audit's "dropped, not pinned" list
    assert any(o.kind == USAGE and o.details["used"] > 0 for o in seen)


def test_the_session_after_clear_is_a_wipe_reported_at_the_next_turn_then_an_auto_fold() -> None:
    parser = CopilotJournal()
    feed(parser, journal("cp102-journal.jsonl"))
    seen = feed(parser, journal("cp102-journal-2.jsonl"))
    wipes = [o for o in seen if o.kind == WIPE]
    assert len(wipes) == 1 and wipes[0].details[AT_NEXT_TURN]
    assert wipes[0].details["previous_session"] == "1ab3d36e-24b7-451f-a1c7-efcb4e77fe68"
    folds = [o for o in seen if o.kind == COMPACTION]
    assert [o.trigger for o in folds] == [AUTO]  # Copilot's "threshold"
    assert parser.window == 922000


def test_a_resumed_journal_written_before_the_run_is_history() -> None:
    records = journal("cp102-journal.jsonl")
    late = max(r["timestamp"] for r in records)
    from supervisor.times import epoch

    parser = CopilotJournal(started_at=(epoch(late) or 0) + 1)
    assert not [o for o in feed(parser, records) if o.kind in (COMPACTION, WIPE)]


def hook_calls() -> list[dict]:
    return [json.loads(line) for line in (CAPTURES / "cp102-hooks.jsonl").read_text().splitlines()]


def test_copilot_hooks_become_observations() -> None:
    seen = [
        o
        for call in hook_calls()
        for o in observations_from_hook(call["event"], call["payload"], call["t"])
    ]
    started = [o for o in seen if o.kind == COMPACTION_STARTED]
    assert [o.trigger for o in started] == [MANUAL, AUTO]
    sessions = [o.details for o in seen if o.kind == SESSION]
    assert [d.get("start") or d.get("end") for d in sessions] == [
        "new",
        "user_exit",
        "new",
        "resume",
        "user_exit",  # the /exit at the end
    ]
    assert not [o for o in seen if o.kind in (COMPACTION, WIPE)]  # those are the journal's


def test_the_plugin_passes_every_hook_for_one_run(tmp_path: Path) -> None:
    from supervisor.config.profiles import load_profile as load
    from supervisor.run.run_config import agent_argv
    from supervisor.store.tether_dir import init

    tether = init(tmp_path, goal="g").tether
    argv = agent_argv(load("copilot"), ["--model", "x"], tether, resume=True)
    folder = tether.root / "agent" / "copilot-plugin"
    assert argv == ["copilot", "--plugin-dir", str(folder), "--continue", "--model", "x"]
    manifest = json.loads((folder / "plugin.json").read_text())
    hooks = json.loads((folder / manifest["hooks"]).read_text())
    assert hooks["version"] == 1
    assert {"sessionStart", "userPromptSubmitted", "preCompact", "sessionEnd"} <= set(
        hooks["hooks"]
    )
    (first,) = hooks["hooks"]["preCompact"]
    assert first["type"] == "command" and " hook preCompact --dir " in first["bash"]
