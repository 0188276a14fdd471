"""What the fold dropped that nobody pinned: the window the transcript saw, against its summary."""

from __future__ import annotations

import json

from supervisor.recognize.fusion import Fusion
from supervisor.recognize.loss_audit import dropped_specifics
from supervisor.recognize.transcripts import ClaudeTranscript, CodexRollout
from supervisor.store.jsonl_tail import JsonlBuffer
from supervisor.store.tether_dir import TetherDir
from tests.replay import captures_dir

SAID = [
    "Put the token code in src/auth/tokens.py and run `pytest -k rotation` before each commit.",
    "The cache may hold 512 MB at most because the kiosk boxes are small.",
    "Thanks, that looks right.",
]


def compactions(name: str, parser) -> list:
    records = JsonlBuffer().feed((captures_dir() / name).read_bytes())
    return [o for r in records for o in parser.feed(r) if o.summary]


def test_the_transcripts_hand_over_the_window_each_summary_folded() -> None:
    (claude,) = compactions("cc-compact-manual.transcript.jsonl", ClaudeTranscript())
    assert claude.folded == ("hello fake model", "second message")
    first, second = compactions("cx-compact-auto.transcript.jsonl", CodexRollout())
    assert first.folded == ("hello codex",) and second.folded == ("second prompt",)
    # the captures' windows held no specific: their real summaries dropped none
    for observation in (claude, first, second):
        assert dropped_specifics(observation.folded, observation.summary) == []


def test_paths_commands_and_values_the_real_summary_dropped() -> None:
    # specifics only: a reason's words ("the kiosk boxes are small") are no specific
    (claude,) = compactions("cc-compact-manual.transcript.jsonl", ClaudeTranscript())
    dropped = dropped_specifics(SAID, claude.summary)
    assert [d.term for d in dropped] == [
        "src/auth/tokens.py",
        "pytest -k rotation",
        "512 MB",
    ]
    assert dropped[2].said == SAID[1]


def test_what_a_pin_holds_or_the_summary_kept_is_not_listed() -> None:
    summary = "The user wants tests run with pytest -k rotation."
    dropped = dropped_specifics(SAID, summary, ["cap the cache at 512 MB"])
    assert [d.term for d in dropped] == ["src/auth/tokens.py"]


def test_fusion_puts_the_list_in_the_incident_and_its_event(tmp_path) -> None:
    (tmp_path / ".tether").mkdir()
    tether = TetherDir.at(tmp_path)
    parser = ClaudeTranscript()
    lines = [{"type": "user", "message": {"content": text}, "sessionId": "s"} for text in SAID] + [
        {
            "type": "user",
            "isCompactSummary": True,
            "message": {"content": "<summary>The user set up the token code.</summary>"},
        }
    ]
    fusion = Fusion(tether, decisions=lambda: ["cap the cache at 512 MB"])
    for record in lines:
        for observation in parser.feed(record, 10.0):
            fusion.observe(observation)
    (incident,) = fusion.incidents
    assert [d.term for d in incident.dropped] == ["src/auth/tokens.py", "pytest -k rotation"]
    events = [json.loads(line) for line in tether.events.read_text().splitlines()]
    recorded = next(e for e in events if e["kind"] == "incident")
    assert recorded["dropped_unpinned"][0] == {"term": "src/auth/tokens.py", "said": SAID[0]}


def test_only_the_agents_own_decision_lines_join_the_window() -> None:
    parser = ClaudeTranscript()
    for text in ("FAKE-REPLY 2: ack 'DECISION: use Redis'", "DECISION: cap the cache at 2 GB"):
        parser.feed({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
    summary = {"type": "user", "isCompactSummary": True, "message": {"content": "short"}}
    (observation,) = parser.feed(summary, 1.0)
    assert observation.folded == ("DECISION: cap the cache at 2 GB",)


def _with_tether_prompt(name: str, text: str, *, codex: bool = False) -> list[dict]:
    """The recorded session with tether's recovery prompt as one more user turn before
    its compaction, as the agent writes it when F6 typed it."""
    records = JsonlBuffer().feed((captures_dir() / name).read_bytes())
    if codex:
        turn = {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
            },
        }
        at = next(i for i, r in enumerate(records) if r.get("type") == "compacted")
    else:
        turn = {"type": "user", "message": {"role": "user", "content": text}}
        at = next(i for i, r in enumerate(records) if r.get("subtype") == "compact_boundary")
    return [*records[:at], turn, *records[at:]]


def test_tethers_own_recovery_prompt_is_not_in_the_folded_window() -> None:
    """Issue 26, item 3: after /clear, F6's prompt and a /compact, the dropped list was
    "2", "SessionStart", "tether ack": tether's own words, which tether knows it sent."""
    from supervisor.recognize.transcripts import OwnWords
    from supervisor.run.recovery import nudge_text

    prompt = nudge_text("wipe", 2)
    for name, codex in (
        ("cc-compact-manual.transcript.jsonl", False),
        ("cx-compact-manual.transcript.jsonl", True),
    ):
        records = _with_tether_prompt(name, prompt, codex=codex)
        own = OwnWords()
        own.add(prompt)
        parser = CodexRollout(own) if codex else ClaudeTranscript(own)
        (fold,) = [o for r in records for o in parser.feed(r) if o.summary]
        assert not any("Recovery from tether" in said for said in fold.folded), fold.folded
        assert dropped_specifics(fold.folded, fold.summary) == []
        # the same transcript read as before: tether's words were "dropped, not pinned"
        blind = CodexRollout() if codex else ClaudeTranscript()
        (before,) = [o for r in records for o in blind.feed(r) if o.summary]
        terms = {d.term for d in dropped_specifics(before.folded, before.summary)}
        assert terms, "the prompt's specifics would have been listed"


def test_the_users_own_message_quoting_a_few_of_tethers_words_stays() -> None:
    from supervisor.recognize.transcripts import OwnWords

    own = OwnWords()
    words = "Recovery from tether: the recovery payload for context wipe #2 is in context."
    own.add(words)
    assert not own.said("ok")  # a short reply is never taken for a part of tether's text
    assert not own.said("Keep the cache at 512 MB because the kiosks are small.")
    assert own.said(words.replace(" ", "  \n"))  # the same words, spaced by the agent
