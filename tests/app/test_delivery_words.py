"""The Events pane says how each recovery payload reached the agent, one copy per loss."""

from __future__ import annotations

from pathlib import Path

from supervisor.agents.session_start_answer import session_start_answer
from supervisor.config.keymap import Keymap
from supervisor.rehydrate.injector import InjectorStatus
from supervisor.run import banner_text
from supervisor.store.tether_dir import init
from tests.store_records import read_jsonl
from widgets.side_pane.event_words import describe


def test_a_hook_answered_with_a_pointer_says_whose_payload_the_turn_carries(tmp_path, monkeypatch):
    monkeypatch.setenv("TETHER_CONFIG_DIR", str(tmp_path / "cfg"))
    tether = init(tmp_path, goal="log in").tether
    tether.record_incident("compaction", "screen", trigger="manual", sources=["screen"])
    tether.record_event("injection", "supervisor", reason="rehydrate", incident=1, restate="all")
    session_start_answer(Path(tmp_path), {"source": "compact"}, profile_name="codex")
    (skipped,) = [e for e in read_jsonl(tether.events)[0] if e["kind"] == "auto_rehydrate_skipped"]
    row = describe(skipped)
    assert row.what == (
        "compact hook: payload not sent again, this turn's prompt is tether's rehydrate payload"
    )
    assert row.incident == "#1"


def test_the_prompt_to_act_on_the_hooks_payload_and_a_withdrawn_copy_are_named():
    nudge = {"kind": "injection", "reason": "act on the hook's payload", "tokens": 60,
             "payload_by": "SessionStart hook", "incident": 2}  # fmt: skip
    assert describe(nudge).what == (
        "prompt to act on the SessionStart hook's payload sent (not a second copy)"
    )
    withdrawn = {"kind": "injection_withdrawn", "reason": "rehydrate", "incident": 2,
                 "why": "the agent's SessionStart hook gave the payload"}  # fmt: skip
    assert describe(withdrawn).what == (
        "queued rehydrate payload withdrawn: the agent's SessionStart hook gave the payload"
    )


def test_the_banner_says_the_hooks_payload_waits_for_the_next_prompt_and_f6_prompts_it():
    held = InjectorStatus("sent", "auto_rehydrate", 4.0, 0, 1, stage="held")
    text, tone = banner_text.injection(held, Keymap())
    assert tone == "info"
    assert text == (
        "Payload given by the agent's SessionStart hook 4 s ago, held for its next prompt; "
        "waiting for the agent's `tether ack` · F6 prompts it now"
    )
    prompted = InjectorStatus("sent", "auto_rehydrate", 9.0, 0, 1, stage="prompted")
    assert "F6" not in banner_text.injection(prompted, Keymap())[0]


def test_a_wipe_seen_in_a_typed_clear_is_said_in_words_not_by_the_sources_name():
    """A /clear the user typed: "seen by typed" read as a slip in the Events tab."""
    observed = {"kind": "wipe", "source": "typed", "at": "2026-12-01T23:01:02.000Z"}
    assert describe(observed).what == "context wiped seen in what the user typed"
    incident = {"kind": "incident", "type": "wipe", "number": 3, "sources": ["typed", "screen"]}
    assert describe(incident).what == "⚠ context wiped, seen by what the user typed, screen"
